//===- ValueTable.cpp - ONNX names to values and list values --------------===//
//
// The importer's value bookkeeping: a name to its value (an initializer is
// materialized as a top.Weight when first read), unique weight names, the
// data of constants; and the sequence / optional values (OnnxValue) with
// the expansion of list-typed graph inputs and outputs into tensors
// (ValueTable.h).
//
//===----------------------------------------------------------------------===//

#include "ValueTable.h"
#include "GraphImporter.h"
#include "OnnxTensor.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"

using namespace mlir;

namespace strata::onnx_import {

//===----------------------------------------------------------------------===//
// Names to values
//===----------------------------------------------------------------------===//

Value GraphImporter::lookup(const std::string &name) {
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  auto init = initializers.find(name);
  if (init == initializers.end())
    return {};
  Tensor data;
  std::string error;
  Location loc = NameLoc::get(StringAttr::get(&ctx, name));
  if (!readTensorProto(*init->second, modelDir, data, error)) {
    emitError(loc) << "initializer '" << name << "': " << error;
    return {};
  }
  Value v = createWeight(data, name, loc);
  values[name] = v;
  return v;
}

Value GraphImporter::createWeight(const Tensor &data, llvm::StringRef name,
                                  Location loc) {
  std::string unique = name.str();
  while (weightNames.contains(unique))
    unique = name.str() + "_" + std::to_string(constCounter++);
  weightNames.insert(unique);
  weights.set(unique, data);
  auto type = RankedTensorType::get(data.shape(),
                                    top::elementTypeOf(data.dtype(), &ctx));
  return top::WeightOp::create(builder, loc, type, unique).getOutput();
}

const Tensor *GraphImporter::constantData(Value v) {
  auto w = v.getDefiningOp<top::WeightOp>();
  return w ? weights.find(w.getName().str()) : nullptr;
}

//===----------------------------------------------------------------------===//
// Sequences and optionals (OnnxValue)
//===----------------------------------------------------------------------===//

void bindName(llvm::StringMap<Value> &values, llvm::StringMap<OnnxValue> &lists,
              llvm::StringRef name, OnnxValue v) {
  if (v.kind == OnnxValue::Tensor) {
    lists.erase(name);
    values[name] = v.tensor;
  } else {
    values.erase(name);
    lists[name] = std::move(v);
  }
}

void flattenLeaves(const OnnxValue &v, SmallVectorImpl<Value> &out) {
  if (v.kind == OnnxValue::Tensor) {
    out.push_back(v.tensor);
    return;
  }
  for (const OnnxValue &e : v.elems)
    flattenLeaves(e, out);
}

OnnxValue rebuildLeaves(const OnnxValue &structure, ArrayRef<Value> &leaves) {
  if (structure.kind == OnnxValue::Tensor) {
    Value v = leaves.front();
    leaves = leaves.drop_front();
    return OnnxValue::of(v);
  }
  OnnxValue r{structure.kind, Value(), {}};
  for (const OnnxValue &e : structure.elems)
    r.elems.push_back(rebuildLeaves(e, leaves));
  return r;
}

/// "a sequence of length 3", "an empty optional", "a tensor".
std::string describe(const OnnxValue &v) {
  switch (v.kind) {
  case OnnxValue::Tensor:
    return "a tensor";
  case OnnxValue::Sequence:
    return "a sequence of length " + std::to_string(v.elems.size());
  case OnnxValue::Optional:
    return v.elems.empty() ? "an empty optional"
                           : "an optional holding " + describe(v.elems[0]);
  }
  return "?";
}

/// True if `a` and `b` have the same kinds and lengths throughout.
bool sameStructure(const OnnxValue &a, const OnnxValue &b) {
  if (a.kind != b.kind || a.elems.size() != b.elems.size())
    return false;
  for (auto [x, y] : llvm::zip(a.elems, b.elems))
    if (!sameStructure(x, y))
      return false;
  return true;
}

LogicalResult
expandListInputs(const onnx::GraphProto &g, const ImportOptions &options,
                 const llvm::StringMap<const onnx::TensorProto *> &initializers,
                 MLIRContext *ctx, std::vector<onnx::ValueInfoProto> &tensorInputs,
                 std::vector<ListInput> &listInputs) {
  llvm::StringSet<> sequences, optionals;
  for (const auto &in : g.input()) {
    const onnx::TypeProto &t = in.type();
    if (initializers.count(in.name()) || t.has_tensor_type() ||
        (!t.has_sequence_type() && !t.has_optional_type())) {
      tensorInputs.push_back(in); // other types are rejected as before
      continue;
    }
    Location loc = NameLoc::get(StringAttr::get(ctx, in.name()));
    ListInput li;
    li.name = in.name();
    const onnx::TypeProto *inner = &t;
    if (t.has_optional_type()) {
      optionals.insert(in.name());
      li.optional = true;
      li.absent = llvm::is_contained(options.absentInputs, in.name());
      inner = &t.optional_type().elem_type();
    }
    if (inner->has_sequence_type()) {
      sequences.insert(in.name());
      const onnx::TypeProto &elem = inner->sequence_type().elem_type();
      if (!elem.has_tensor_type())
        return emitError(loc) << "graph input '" << in.name()
                              << "' is a sequence of non-tensors (only "
                                 "sequences of tensors are supported)";
      auto len = options.sequenceLengths.find(in.name());
      if (li.absent) {
        listInputs.push_back(li);
        continue;
      }
      if (len == options.sequenceLengths.end())
        return emitError(loc)
               << "graph input '" << in.name()
               << "' is a sequence; Strata needs its length at import: give "
                  "it with --sequence-lengths "
               << in.name() << ":N (element i becomes input " << in.name()
               << ".i)";
      if (len->second < 0)
        return emitError(loc) << "--sequence-lengths gives '" << in.name()
                              << "' the negative length " << len->second;
      li.length = len->second;
      for (int64_t i = 0; i < li.length; ++i) {
        onnx::ValueInfoProto e;
        e.set_name(in.name() + "." + std::to_string(i));
        *e.mutable_type() = elem;
        tensorInputs.push_back(std::move(e));
      }
    } else if (inner->has_tensor_type()) {
      if (!li.absent) {
        onnx::ValueInfoProto e;
        e.set_name(in.name());
        *e.mutable_type() = *inner;
        tensorInputs.push_back(std::move(e));
      }
    } else {
      return emitError(loc) << "graph input '" << in.name()
                            << "' is an optional of neither a tensor nor a "
                               "sequence of tensors (not supported)";
    }
    listInputs.push_back(li);
  }
  for (const auto &[name, _] : options.sequenceLengths)
    if (!sequences.contains(name))
      return emitError(UnknownLoc::get(ctx))
             << "--sequence-lengths names '" << name
             << "', which is not a sequence-typed graph input";
  for (const std::string &name : options.absentInputs)
    if (!optionals.contains(name))
      return emitError(UnknownLoc::get(ctx))
             << "--absent-inputs names '" << name
             << "', which is not an optional-typed graph input";
  return success();
}

void bindListInputs(ArrayRef<ListInput> listInputs,
                    llvm::StringMap<Value> &values,
                    llvm::StringMap<OnnxValue> &lists) {
  for (const ListInput &li : listInputs) {
    OnnxValue v;
    if (li.length >= 0) {
      v.kind = OnnxValue::Sequence;
      for (int64_t i = 0; i < li.length; ++i) {
        std::string part = li.name + "." + std::to_string(i);
        v.elems.push_back(OnnxValue::of(values.lookup(part)));
        values.erase(part);
      }
    } else if (!li.absent) {
      v = OnnxValue::of(values.lookup(li.name));
    }
    if (li.optional) {
      OnnxValue opt{OnnxValue::Optional, Value(), {}};
      if (!li.absent)
        opt.elems.push_back(std::move(v));
      v = std::move(opt);
    }
    bindName(values, lists, li.name, std::move(v));
  }
}

void flattenListOutput(StringRef name, const OnnxValue &v,
                       SmallVectorImpl<Value> &results,
                       SmallVectorImpl<std::string> &names,
                       SmallVectorImpl<NamedAttribute> &info, Builder &b) {
  // A sequence: its length; an optional: "absent", or what it holds.
  const OnnxValue *content = &v;
  if (v.kind == OnnxValue::Optional) {
    if (v.elems.empty()) {
      info.push_back(b.getNamedAttr(name, b.getStringAttr("absent")));
      return;
    }
    content = &v.elems[0];
  }
  if (content->kind == OnnxValue::Tensor) {
    info.push_back(b.getNamedAttr(name, b.getStringAttr("tensor")));
    results.push_back(content->tensor);
    names.push_back(name.str());
    return;
  }
  info.push_back(
      b.getNamedAttr(name, b.getI64IntegerAttr(content->elems.size())));
  for (auto [i, e] : llvm::enumerate(content->elems)) {
    SmallVector<Value> leaves;
    flattenLeaves(e, leaves); // elements are tensors
    for (Value l : leaves) {
      results.push_back(l);
      names.push_back(name.str() + "." + std::to_string(i));
    }
  }
}

} // namespace strata::onnx_import
