//===- ConvertElementwise.cpp - ONNX elementwise, activation, logic and math ops to Top ===//

#include "ImportContext.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace strata::onnx_import {
namespace {
const ConverterEntry kElementwise[] = {
    {nullptr, nullptr},
};
} // namespace

ArrayRef<ConverterEntry> elementwiseConverters() {
  return ArrayRef<ConverterEntry>(kElementwise).drop_back();
}

} // namespace strata::onnx_import
