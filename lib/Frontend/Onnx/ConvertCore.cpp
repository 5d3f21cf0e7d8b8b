//===- ConvertCore.cpp - ONNX Identity and Constant to Top ----------------===//
//
// The Core family (TopCoreOps.td: graph inputs, weights, none): Constant
// becomes a top.Weight, Identity its input's value.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

LogicalResult convertIdentity(NodeContext &c) {
  c.setOutput(0, c.input(0));
  return success();
}

LogicalResult convertConstant(NodeContext &c) {
  if (c.node().attribute_size() != 1)
    return c.error() << "expected exactly one value attribute, got "
                     << c.node().attribute_size();
  const onnx::AttributeProto &a = c.node().attribute(0);
  using AP = onnx::AttributeProto;
  static const std::pair<const char *, AP::AttributeType> kTypes[] = {
      {"value", AP::TENSOR},       {"value_float", AP::FLOAT},
      {"value_floats", AP::FLOATS}, {"value_int", AP::INT},
      {"value_ints", AP::INTS}};
  for (const auto &[name, type] : kTypes)
    if (a.name() == name && a.type() != type)
      return c.error() << "attribute '" << name << "' must be of type "
                       << AP::AttributeType_Name(type) << ", not "
                       << (AP::AttributeType_IsValid(a.type())
                               ? AP::AttributeType_Name(a.type())
                               : std::string("INVALID"));
  Tensor t;
  if (a.name() == "value") {
    std::string err;
    if (!readTensorProto(a.t(), c.modelDir(), t, err))
      return c.error() << "attribute 'value': " << err;
  } else if (a.name() == "value_float") {
    t = Tensor(DType::F32, {});
    t.data<float>()[0] = a.f();
  } else if (a.name() == "value_floats") {
    t = Tensor(DType::F32, {a.floats_size()});
    for (int i = 0; i < a.floats_size(); ++i)
      t.data<float>()[i] = a.floats(i);
  } else if (a.name() == "value_int") {
    t = Tensor(DType::I64, {});
    t.data<int64_t>()[0] = a.i();
  } else if (a.name() == "value_ints") {
    t = Tensor(DType::I64, {a.ints_size()});
    for (int i = 0; i < a.ints_size(); ++i)
      t.data<int64_t>()[i] = a.ints(i);
  } else {
    return c.error() << "attribute '" << a.name() << "' is not supported";
  }
  c.setOutput(0, c.constant(t, "value"));
  return success();
}

const ConverterEntry kCore[] = {
    {"Identity", convertIdentity},
    {"Constant", convertConstant},
};
} // namespace

ArrayRef<ConverterEntry> coreConverters() { return kCore; }

} // namespace strata::onnx_import
