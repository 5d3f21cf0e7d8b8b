//===- ConvertSequence.cpp - ONNX sequences and optionals -----------------===//
//
// ONNX sequences and optionals are resolved at import time into static lists
// of tensor values (OnnxValue): a sequence's length and an optional's
// presence must be known when the model is imported, and every position or
// split size must be a constant. Top IR and the interpreter only see the
// tensors. Sequence-typed graph inputs and outputs become one tensor per
// element, NAME.0 .. NAME.{n-1} (ValueTable.cpp); see docs/onnx.md
// "Sequences and optionals".
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {

namespace {

/// Most tensors SplitToSequence makes (one top.Split result each).
constexpr int64_t kMaxSequenceLength = int64_t(1) << 16;

//===----------------------------------------------------------------------===//
// Converters
//===----------------------------------------------------------------------===//

/// Input `i` as a sequence; an error naming it otherwise.
FailureOr<OnnxValue> sequenceInput(NodeContext &c, size_t i) {
  const OnnxValue *l = c.listInput(i);
  if (!l || l->kind != OnnxValue::Sequence)
    return c.error() << "input " << i << " ('" << c.node().input(i)
                     << "') must be a sequence, got "
                     << (l ? describe(*l) : std::string("a tensor"));
  return *l;
}

/// Input `i` (a tensor) as a constant integer scalar or 1-element tensor.
FailureOr<int64_t> constantIndex(NodeContext &c, size_t i, StringRef what) {
  auto v = c.constantInts(i);
  if (!v)
    return c.error() << "input " << i << " '" << what << "' (value '"
                     << c.node().input(i)
                     << "') must be a constant: Strata resolves sequences at "
                        "import time";
  if (v->size() != 1)
    return c.error() << "input " << i << " '" << what << "' (value '"
                     << c.node().input(i) << "') must be a scalar, got "
                     << v->size() << " values";
  return (*v)[0];
}

/// `pos` checked against [-n, n + extra) and made non-negative.
FailureOr<int64_t> checkPosition(NodeContext &c, int64_t pos, int64_t n,
                                 int64_t extra) {
  if (pos < -n || pos >= n + extra)
    return c.error() << "position " << pos << " is out of range for a "
                     << "sequence of length " << n << " (valid: " << -n
                     << " to " << n + extra - 1 << ")";
  return pos < 0 ? pos + n : pos;
}

OnnxValue emptySequence() { return {OnnxValue::Sequence, Value(), {}}; }

Value scalarConstant(NodeContext &c, DType type, int64_t v) {
  Tensor t(type, {});
  t.setFromDouble(0, static_cast<double>(v));
  return c.constant(t, "scalar");
}

LogicalResult convertSequenceEmpty(NodeContext &c) {
  c.setOutput(0, emptySequence());
  return success();
}

LogicalResult convertSequenceConstruct(NodeContext &c) {
  OnnxValue s = emptySequence();
  for (size_t i = 0; i < c.numInputs(); ++i) {
    if (!c.hasInput(i) || c.listInput(i))
      return c.error() << "input " << i << " must be a tensor";
    if (c.inputElementType(i) != c.inputElementType(0))
      return c.error() << "input " << i << " has element type "
                       << c.inputElementType(i) << ", input 0 has "
                       << c.inputElementType(0);
    s.elems.push_back(OnnxValue::of(c.input(i)));
  }
  c.setOutput(0, std::move(s));
  return success();
}

LogicalResult convertSequenceAt(NodeContext &c) {
  auto s = sequenceInput(c, 0);
  if (failed(s))
    return failure();
  auto pos = constantIndex(c, 1, "position");
  if (failed(pos))
    return failure();
  int64_t n = s->elems.size();
  auto p = checkPosition(c, *pos, n, 0);
  if (failed(p))
    return failure();
  c.setOutput(0, s->elems[*p]);
  return success();
}

LogicalResult convertSequenceInsert(NodeContext &c) {
  auto s = sequenceInput(c, 0);
  if (failed(s))
    return failure();
  if (c.listInput(1))
    return c.error() << "input 1 ('tensor') must be a tensor";
  int64_t n = s->elems.size();
  int64_t pos = n;
  if (c.hasInput(2)) {
    auto v = constantIndex(c, 2, "position");
    if (failed(v))
      return failure();
    auto p = checkPosition(c, *v, n, 1);
    if (failed(p))
      return failure();
    pos = *p;
  }
  if (n && c.inputElementType(1) !=
               ValueBuilder::elem(s->elems[0].tensor))
    return c.error() << "input 1 has element type " << c.inputElementType(1)
                     << " but the sequence holds "
                     << ValueBuilder::elem(s->elems[0].tensor);
  OnnxValue r = *s;
  r.elems.insert(r.elems.begin() + pos, OnnxValue::of(c.input(1)));
  c.setOutput(0, std::move(r));
  return success();
}

LogicalResult convertSequenceErase(NodeContext &c) {
  auto s = sequenceInput(c, 0);
  if (failed(s))
    return failure();
  int64_t n = s->elems.size();
  int64_t pos = -1;
  if (c.hasInput(1)) {
    auto v = constantIndex(c, 1, "position");
    if (failed(v))
      return failure();
    pos = *v;
  }
  auto p = checkPosition(c, pos, n, 0);
  if (failed(p))
    return failure();
  OnnxValue r = *s;
  r.elems.erase(r.elems.begin() + *p);
  c.setOutput(0, std::move(r));
  return success();
}

LogicalResult convertSequenceLength(NodeContext &c) {
  auto s = sequenceInput(c, 0);
  if (failed(s))
    return failure();
  c.setOutput(0, scalarConstant(c, DType::I64, s->elems.size()));
  return success();
}

LogicalResult convertConcatFromSequence(NodeContext &c) {
  auto s = sequenceInput(c, 0);
  if (failed(s))
    return failure();
  auto axisAttr = c.attrIntOpt("axis");
  auto newAxis = c.attrInt("new_axis", 0);
  if (failed(axisAttr) || failed(newAxis))
    return failure();
  if (!*axisAttr)
    return c.error() << "attribute 'axis' is required";
  if (*newAxis != 0 && *newAxis != 1)
    return c.error() << "attribute 'new_axis' must be 0 or 1, got " << *newAxis;
  if (s->elems.empty())
    return c.error() << "input 0 ('" << c.node().input(0)
                     << "') is an empty sequence; ConcatFromSequence needs at "
                        "least one tensor";
  SmallVector<Value> parts;
  for (const OnnxValue &e : s->elems)
    parts.push_back(e.tensor);
  if (!hasStaticShape(parts[0]))
    return c.error() << "the sequence's tensors need static shapes";
  int64_t rank = shapeOf(parts[0]).size();
  auto axis = c.normalizeAxis("attribute 'axis'", **axisAttr, rank + *newAxis);
  if (failed(axis))
    return failure();
  ValueBuilder vb(c);
  if (*newAxis) {
    for (Value &p : parts) {
      if (!hasStaticShape(p))
        return c.error() << "the sequence's tensors need static shapes";
      auto shape = shapeOf(p);
      SmallVector<int64_t> dims(shape.begin(), shape.end());
      dims.insert(dims.begin() + *axis, 1);
      auto r = vb.reshape(p, dims);
      if (failed(r))
        return failure();
      p = *r;
    }
  }
  return c.setResult(c.create<ConcatOp>(ValueBuilder::elem(parts[0]),
                                        ValueRange(parts),
                                        c.builder().getI64IntegerAttr(*axis)));
}

LogicalResult convertSplitToSequence(NodeContext &c) {
  auto shape = c.requireShape(0);
  if (failed(shape))
    return failure();
  auto axisAttr = c.attrInt("axis", 0);
  auto keepdims = c.attrInt("keepdims", 1);
  if (failed(axisAttr) || failed(keepdims))
    return failure();
  int64_t rank = shape->size();
  auto axis = c.normalizeAxis("attribute 'axis'", *axisAttr, rank);
  if (failed(axis))
    return failure();
  int64_t dim = (*shape)[*axis];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  // The pieces become results of one top.Split and the sequence's elements:
  // count them before making any (a declared dim may be 2^40).
  auto tooMany = [&](int64_t pieces) {
    return c.error() << "splitting dim " << *axis << " of size " << dim
                     << " makes " << pieces << " tensors, more than "
                     << kMaxSequenceLength
                     << " (the most elements of a sequence at import)";
  };
  if (!c.hasInput(1)) {
    if (dim > kMaxSequenceLength)
      return tooMany(dim);
    sizes.assign(dim, 1);
    squeeze = *keepdims == 0;
  } else {
    auto split = c.constantInts(1);
    if (!split)
      return c.error() << "input 1 'split' (value '" << c.node().input(1)
                       << "') must be a constant: Strata resolves sequences "
                          "at import time";
    auto splitShape = c.inputShape(1);
    if (splitShape && splitShape->size() > 1)
      return c.error() << "input 1 'split' must be a scalar or 1-D, got rank "
                       << splitShape->size();
    if (splitShape && splitShape->empty()) {
      int64_t k = (*split)[0];
      if (k <= 0)
        return c.error() << "input 1 'split' must be positive, got " << k;
      if (int64_t pieces = dim / k + (dim % k != 0);
          pieces > kMaxSequenceLength)
        return tooMany(pieces);
      for (int64_t at = 0; at < dim; at += k)
        sizes.push_back(std::min(k, dim - at));
    } else {
      int64_t sum = 0;
      for (int64_t k : *split) {
        if (k < 0)
          return c.error() << "input 1 'split' has the negative size " << k;
        sum += k;
      }
      if (sum != dim)
        return c.error() << "input 1 'split' sums to " << sum
                         << " but axis " << *axis << " has " << dim;
      sizes = *split;
    }
  }
  OnnxValue seq = emptySequence();
  if (sizes.empty()) {
    c.setOutput(0, std::move(seq));
    return success();
  }
  Type elem = c.inputElementType(0);
  SmallVector<Type> types(sizes.size(), elem);
  auto parts = c.createMulti<SplitOp>(types, c.input(0),
                                      c.builder().getI64IntegerAttr(*axis),
                                      c.builder().getDenseI64ArrayAttr(sizes));
  if (failed(parts))
    return failure();
  ValueBuilder vb(c);
  for (Value p : *parts) {
    if (squeeze) {
      std::vector<int64_t> dims = *shape;
      dims.erase(dims.begin() + *axis);
      auto r = vb.reshape(p, dims);
      if (failed(r))
        return failure();
      p = *r;
    }
    seq.elems.push_back(OnnxValue::of(p));
  }
  c.setOutput(0, std::move(seq));
  return success();
}

LogicalResult convertSequenceMap(NodeContext &c) {
  auto body = c.attrGraph("body");
  if (failed(body))
    return failure();
  auto first = sequenceInput(c, 0);
  if (failed(first))
    return failure();
  size_t n = first->elems.size();
  std::vector<OnnxValue> inputs;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    if (!c.hasInput(i))
      return c.error() << "input " << i << " is empty";
    OnnxValue v = c.anyInput(i);
    if (v.kind == OnnxValue::Optional)
      return c.error() << "input " << i << " is an optional; SequenceMap takes "
                       << "sequences and tensors";
    if (v.kind == OnnxValue::Sequence && v.elems.size() != n)
      return c.error() << "input " << i << " is a sequence of length "
                       << v.elems.size() << " but input 0 has length " << n;
    inputs.push_back(std::move(v));
  }
  std::vector<OnnxValue> outs(c.numOutputs(), emptySequence());
  if ((*body)->output_size() != static_cast<int>(c.numOutputs()))
    return c.error() << "the body has " << (*body)->output_size()
                     << " outputs but the node has " << c.numOutputs();
  for (size_t k = 0; k < n; ++k) {
    if (failed(c.countUnrolledBody("SequenceMap (unrolled at import)")))
      return failure();
    std::vector<OnnxValue> args, results;
    for (const OnnxValue &v : inputs)
      args.push_back(v.kind == OnnxValue::Sequence ? v.elems[k] : v);
    if (failed(c.inlineSubgraph(**body, args, results)))
      return failure();
    for (auto [j, r] : llvm::enumerate(results)) {
      if (r.kind != OnnxValue::Tensor)
        return c.error() << "body output #" << j << " is " << describe(r)
                         << "; sequences of sequences or optionals are not "
                            "supported";
      outs[j].elems.push_back(std::move(r));
    }
  }
  for (auto [j, o] : llvm::enumerate(outs))
    c.setOutput(j, std::move(o));
  return success();
}

LogicalResult convertOptional(NodeContext &c) {
  OnnxValue opt{OnnxValue::Optional, Value(), {}};
  if (c.hasInput(0))
    opt.elems.push_back(c.anyInput(0));
  c.setOutput(0, std::move(opt));
  return success();
}

LogicalResult convertOptionalHasElement(NodeContext &c) {
  bool has = false;
  if (c.hasInput(0)) {
    const OnnxValue *l = c.listInput(0);
    has = !l || l->kind != OnnxValue::Optional || !l->elems.empty();
  }
  c.setOutput(0, scalarConstant(c, DType::Bool, has));
  return success();
}

LogicalResult convertOptionalGetElement(NodeContext &c) {
  OnnxValue v = c.anyInput(0);
  if (v.kind != OnnxValue::Optional) {
    c.setOutput(0, std::move(v));
    return success();
  }
  if (v.elems.empty())
    return c.error() << "input 0 ('" << c.node().input(0)
                     << "') is an empty optional (known at import)";
  c.setOutput(0, v.elems[0]);
  return success();
}

LogicalResult convertListIdentity(NodeContext &c) {
  c.setOutput(0, c.anyInput(0));
  return success();
}

/// True if input `i` of `op` may be a sequence or optional.
bool takesList(StringRef op, size_t i) {
  if (op == "SequenceMap")
    return true;
  return i == 0 && llvm::is_contained({"SequenceAt", "SequenceInsert",
                                       "SequenceErase", "SequenceLength",
                                       "ConcatFromSequence", "Optional",
                                       "OptionalHasElement",
                                       "OptionalGetElement"},
                                      op);
}

const ConverterEntry kConverters[] = {
    {"SequenceEmpty", convertSequenceEmpty},
    {"SequenceConstruct", convertSequenceConstruct},
    {"SequenceAt", convertSequenceAt},
    {"SequenceInsert", convertSequenceInsert},
    {"SequenceErase", convertSequenceErase},
    {"SequenceLength", convertSequenceLength},
    {"ConcatFromSequence", convertConcatFromSequence},
    {"SplitToSequence", convertSplitToSequence},
    {"SequenceMap", convertSequenceMap},
    {"Optional", convertOptional},
    {"OptionalHasElement", convertOptionalHasElement},
    {"OptionalGetElement", convertOptionalGetElement},
};

} // namespace

llvm::ArrayRef<ConverterEntry> sequenceConverters() { return kConverters; }

/// Loop carrying a sequence or optional, unrolled at import (below).
LogicalResult convertLoopUnrolled(NodeContext &c);

LogicalResult routeListInputs(NodeContext &c, ConvertFn &convert) {
  StringRef op = c.node().op_type();
  for (size_t i = 0; i < c.numInputs(); ++i) {
    const OnnxValue *l = c.listInput(i);
    if (!l)
      continue;
    if (op == "Identity") {
      convert = convertListIdentity;
      return success();
    }
    if (op == "Loop" && i >= 2) {
      convert = convertLoopUnrolled;
      return success();
    }
    if (!takesList(op, i))
      return c.error() << "input " << i << " ('" << c.node().input(i)
                       << "') is " << describe(*l) << "; " << op
                       << " takes a tensor there";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Loop over sequences: unrolled at import
//===----------------------------------------------------------------------===//

LogicalResult convertLoopUnrolled(NodeContext &c) {
  auto body = c.attrGraph("body");
  if (failed(body))
    return failure();
  int64_t trip = -1;
  if (c.hasInput(0)) {
    auto t = constantIndex(c, 0, "M");
    if (failed(t))
      return c.error() << "a Loop carrying a sequence or optional is unrolled "
                          "at import, so its trip count must be a constant";
    trip = *t;
  }
  bool cond = true;
  if (c.hasInput(1)) {
    auto v = constantIndex(c, 1, "cond");
    if (failed(v))
      return c.error() << "a Loop carrying a sequence or optional is unrolled "
                          "at import, so its condition must be a constant";
    cond = *v != 0;
  }
  size_t numCarried = c.numInputs() < 2 ? 0 : c.numInputs() - 2;
  std::vector<OnnxValue> carried;
  for (size_t k = 0; k < numCarried; ++k) {
    if (!c.hasInput(k + 2))
      return c.error() << "loop-carried input " << k + 2 << " is empty";
    carried.push_back(c.anyInput(k + 2));
  }
  int bodyOutputs = (*body)->output_size();
  if (bodyOutputs < static_cast<int>(1 + numCarried))
    return c.error() << "the body has " << bodyOutputs << " outputs but at "
                     << "least " << 1 + numCarried
                     << " (cond, carried values) are needed";
  size_t numScans = bodyOutputs - 1 - numCarried;
  std::vector<SmallVector<Value>> scans(numScans);
  ValueBuilder vb(c);
  for (int64_t i = 0; cond && (trip < 0 || i < trip); ++i) {
    if (failed(c.countUnrolledBody(
            "unrolling the Loop (it carries a sequence or optional)")))
      return failure();
    std::vector<OnnxValue> args{
        OnnxValue::of(scalarConstant(c, DType::I64, i)),
        OnnxValue::of(scalarConstant(c, DType::Bool, cond))};
    args.insert(args.end(), carried.begin(), carried.end());
    std::vector<OnnxValue> outs;
    if (failed(c.inlineSubgraph(**body, args, outs)))
      return failure();
    const Tensor *next = outs[0].kind == OnnxValue::Tensor
                             ? c.constantValue(outs[0].tensor)
                             : nullptr;
    if (!next || next->numElements() != 1)
      return c.error() << "the body's condition output must be a constant "
                          "scalar to unroll a Loop carrying a sequence or "
                          "optional";
    cond = next->getAsInt(0) != 0;
    for (size_t k = 0; k < numCarried; ++k)
      carried[k] = outs[1 + k];
    for (size_t j = 0; j < numScans; ++j) {
      const OnnxValue &o = outs[1 + numCarried + j];
      if (o.kind != OnnxValue::Tensor || !hasStaticShape(o.tensor))
        return c.error() << "scan output #" << j
                         << " must be a tensor with a static shape";
      auto shape = shapeOf(o.tensor);
      SmallVector<int64_t> dims{1};
      dims.append(shape.begin(), shape.end());
      auto r = vb.reshape(o.tensor, dims);
      if (failed(r))
        return failure();
      scans[j].push_back(*r);
    }
  }
  for (size_t k = 0; k < numCarried; ++k)
    c.setOutput(k, carried[k]);
  for (size_t j = 0; j < numScans; ++j) {
    if (scans[j].empty())
      return c.error() << "scan output #" << j
                       << " of the unrolled Loop has no iterations, so its "
                          "shape is unknown";
    auto r = c.create<ConcatOp>(ValueBuilder::elem(scans[j][0]),
                                ValueRange(scans[j]),
                                c.builder().getI64IntegerAttr(0));
    if (failed(r))
      return failure();
    c.setOutput(numCarried + j, *r);
  }
  return success();
}

} // namespace strata::onnx_import
