//===- OpImpl.cpp - helpers for implementing Top ops ----------------------===//

#include "OpImpl.h"
#include "strata/Support/Limits.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>

using namespace mlir;

namespace strata::top::impl {

LogicalResult checkArrayAttr(Operation *op, StringRef name,
                             ArrayRef<int64_t> values, size_t size,
                             int64_t minValue) {
  if (values.size() != size)
    return op->emitOpError() << "attribute '" << name << "' must have " << size
                             << " values, got " << values.size() << " "
                             << formatArray(values);
  for (auto [i, v] : llvm::enumerate(values))
    if (v < minValue)
      return op->emitOpError()
             << "attribute '" << name << "' value " << v << " at index " << i
             << " must be >= " << minValue << " (got " << formatArray(values)
             << ")";
  return success();
}

DType computeType(DType type) {
  if (type == DType::F64)
    return DType::F64;
  if (isFloat(type))
    return DType::F32;
  return DType::I64;
}

Tensor toCompute(const Tensor &t) { return t.castTo(computeType(t.dtype())); }

DType resultDType(Value result) { return *dtypeOfValue(result); }

void applyRelu(Tensor &t, double limit) {
  int64_t n = t.numElements();
  if (t.dtype() == DType::F32) {
    float *p = t.data<float>();
    float lim = static_cast<float>(limit);
    for (int64_t i = 0; i < n; ++i) {
      float v = p[i] > 0.f ? p[i] : 0.f;
      p[i] = (limit >= 0 && v > lim) ? lim : v;
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    double v = std::max(t.getAsDouble(i), 0.0);
    if (limit >= 0)
      v = std::min(v, limit);
    t.setFromDouble(i, v);
  }
}

SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> outShape) {
  size_t rank = outShape.size(), off = rank - shape.size();
  SmallVector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    strides[i + off] = shape[i] == 1 ? 0 : s;
    s *= shape[i];
  }
  return strides;
}

BroadcastPlan planBroadcast(ArrayRef<int64_t> outShape,
                            ArrayRef<int64_t> lhsShape,
                            ArrayRef<int64_t> rhsShape) {
  SmallVector<int64_t> ls = broadcastStrides(lhsShape, outShape);
  SmallVector<int64_t> rs = broadcastStrides(rhsShape, outShape);
  BroadcastPlan plan;
  plan.total = 1;
  // From the innermost dim out: skip size-1 dims, merge a dim into the one
  // inside it when both operands step over it contiguously (or not at all).
  for (int64_t d = static_cast<int64_t>(outShape.size()) - 1; d >= 0; --d) {
    int64_t n = outShape[d];
    plan.total *= n;
    if (n == 1)
      continue;
    if (!plan.shape.empty()) {
      int64_t inner = plan.shape.back();
      if (ls[d] == plan.lhsStrides.back() * inner &&
          rs[d] == plan.rhsStrides.back() * inner) {
        plan.shape.back() *= n;
        continue;
      }
    }
    plan.shape.push_back(n);
    plan.lhsStrides.push_back(ls[d]);
    plan.rhsStrides.push_back(rs[d]);
  }
  if (plan.shape.empty()) {
    plan.shape.push_back(1);
    plan.lhsStrides.push_back(0);
    plan.rhsStrides.push_back(0);
  }
  std::reverse(plan.shape.begin(), plan.shape.end());
  std::reverse(plan.lhsStrides.begin(), plan.lhsStrides.end());
  std::reverse(plan.rhsStrides.begin(), plan.rhsStrides.end());
  return plan;
}

Tensor mapUnary(const Tensor &input, DType outType,
                const std::function<double(double)> &fn) {
  Tensor out(outType, input.shape());
  int64_t n = input.numElements();
  if (input.dtype() == DType::F32 && outType == DType::F32) {
    const float *in = input.data<float>();
    float *o = out.data<float>();
    for (int64_t i = 0; i < n; ++i)
      o[i] = static_cast<float>(fn(in[i]));
    return out;
  }
  for (int64_t i = 0; i < n; ++i)
    out.setFromDouble(i, fn(input.getAsDouble(i)));
  return out;
}

} // namespace strata::top::impl

namespace strata::top::impl {

FailureOr<int64_t> normalizeAxis(Operation *op, StringRef name, int64_t axis,
                                 int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError() << "attribute '" << name << "' = " << axis
                             << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

FailureOr<SmallVector<int64_t>> normalizeAxes(Operation *op, StringRef name,
                                             ArrayRef<int64_t> axes,
                                             int64_t rank) {
  SmallVector<int64_t> out;
  SmallVector<bool> seen(rank, false);
  for (int64_t axis : axes) {
    auto a = normalizeAxis(op, name, axis, rank);
    if (failed(a))
      return failure();
    if (seen[*a])
      return op->emitOpError() << "attribute '" << name << "' "
                               << formatArray(axes) << " repeats dim " << *a;
    seen[*a] = true;
    out.push_back(*a);
  }
  return out;
}

FailureOr<int64_t> runtimeListLength(Operation *op, StringRef name,
                                     Value value) {
  auto t = dyn_cast<RankedTensorType>(value.getType());
  if (!t || t.getRank() != 1 || t.isDynamicDim(0))
    return op->emitOpError() << "operand '" << name
                             << "' must be a 1-D tensor of static length, got "
                             << value.getType();
  return t.getDimSize(0);
}

LogicalResult checkRuntimeScalar(Operation *op, StringRef name, Value value) {
  auto t = dyn_cast<RankedTensorType>(value.getType());
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1)
    return op->emitOpError() << "operand '" << name
                             << "' must hold one integer, got "
                             << value.getType();
  return success();
}

/// The operand's shape and (during a run) tensor, for a shape function.
static shapes::RuntimeValue runtimeValue(const ShapeContext &ctx, Value value) {
  SmallVector<int64_t> shape = ctx.shape(value);
  return {Shape(shape.begin(), shape.end()), ctx.tensor(value)};
}

FailureOr<std::optional<shapes::RuntimeValue>>
runtimeList(Operation *op, const ShapeContext &ctx, StringRef name,
            Value value) {
  if (!value)
    return std::optional<shapes::RuntimeValue>();
  if (failed(runtimeListLength(op, name, value)))
    return failure();
  return std::optional(runtimeValue(ctx, value));
}

FailureOr<std::optional<shapes::RuntimeValue>>
runtimeScalar(Operation *op, const ShapeContext &ctx, StringRef name,
              Value value) {
  if (!value)
    return std::optional<shapes::RuntimeValue>();
  if (failed(checkRuntimeScalar(op, name, value)))
    return failure();
  return std::optional(runtimeValue(ctx, value));
}

SmallVector<int64_t> runtimeInts(const Tensor &t) {
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < t.numElements(); ++i)
    out.push_back(t.getAsInt(i));
  return out;
}

FailureOr<int64_t> runtimeScalarInt(Operation *op, StringRef name,
                                    const Tensor &t) {
  if (t.numElements() != 1)
    return op->emitOpError() << "operand '" << name
                             << "' must hold one integer, got shape "
                             << formatArray(t.shape());
  return t.getAsInt(0);
}

FailureOr<SmallVector<int64_t>> normalizeRuntimeAxes(Operation *op,
                                                    StringRef name,
                                                    ArrayRef<int64_t> axes,
                                                    int64_t rank) {
  SmallVector<int64_t> out;
  SmallVector<bool> seen(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank)
      return op->emitOpError() << "operand '" << name << "' holds axis "
                               << axis << ", out of range for rank " << rank;
    int64_t a = axis < 0 ? axis + rank : axis;
    if (seen[a])
      return op->emitOpError() << "operand '" << name << "' "
                               << formatArray(axes) << " repeats dim " << a;
    seen[a] = true;
    out.push_back(a);
  }
  return out;
}

LogicalResult checkRuntimeResultSize(Operation *op, ArrayRef<int64_t> shape) {
  if (!checkedNumElements(std::vector<int64_t>(shape.begin(), shape.end()),
                          limits().maxElements))
    return op->emitOpError()
           << "result shape " << formatArray(shape)
           << " computed at run time has more than " << formatElementLimit()
           << " elements, the element limit (--max-elements raises it)";
  return success();
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  // Unsigned so that an empty shape with huge dims wraps instead of
  // overflowing; such strides are never used to read.
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = static_cast<int64_t>(static_cast<uint64_t>(strides[i + 1]) *
                                      static_cast<uint64_t>(shape[i + 1]));
  return strides;
}

bool isEmptyShape(ArrayRef<int64_t> shape) {
  return llvm::is_contained(shape, 0);
}

namespace {
/// Copies one element of `size` bytes.
inline void copyElement(uint8_t *dst, const uint8_t *src, size_t size) {
  switch (size) {
  case 1: *dst = *src; return;
  case 2: std::memcpy(dst, src, 2); return;
  case 4: std::memcpy(dst, src, 4); return;
  case 8: std::memcpy(dst, src, 8); return;
  default: std::memcpy(dst, src, size);
  }
}
} // namespace

Tensor gatherOffsets(const Tensor &input, std::vector<int64_t> outShape,
                     ArrayRef<SmallVector<int64_t>> offsets,
                     const Tensor *fill) {
  Tensor out(input.dtype(), std::move(outShape));
  int64_t n = out.numElements();
  if (n == 0)
    return out;
  size_t size = dtypeSize(input.dtype());
  const uint8_t *src = input.data<uint8_t>();
  const uint8_t *fillPtr = fill ? fill->data<uint8_t>() : nullptr;
  uint8_t *dst = out.data<uint8_t>();
  int64_t rank = out.rank();
  if (rank == 0) {
    copyElement(dst, src, size);
    return out;
  }
  // Odometer over the outer dims; `base` is the sum of their offsets, or
  // kFillOffset if one of them is a fill position.
  SmallVector<int64_t> idx(rank, 0);
  int64_t inner = out.dim(rank - 1);
  ArrayRef<int64_t> innerOffsets = offsets[rank - 1];
  auto outerBase = [&]() {
    int64_t base = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      int64_t o = offsets[d][idx[d]];
      if (o == kFillOffset)
        return kFillOffset;
      base += o;
    }
    return base;
  };
  for (int64_t row = 0; row < n; row += inner) {
    int64_t base = outerBase();
    for (int64_t k = 0; k < inner; ++k) {
      int64_t o = innerOffsets[k];
      const uint8_t *from = (base == kFillOffset || o == kFillOffset)
                                ? fillPtr
                                : src + (base + o) * size;
      copyElement(dst + (row + k) * size, from, size);
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++idx[d] < out.dim(d))
        break;
      idx[d] = 0;
    }
  }
  return out;
}

SmallVector<int64_t> stridedOffsets(int64_t start, int64_t step, int64_t size,
                                    int64_t stride) {
  SmallVector<int64_t> offsets(size);
  for (int64_t i = 0; i < size; ++i)
    offsets[i] = (start + i * step) * stride;
  return offsets;
}

Ints OperandShapes::operator()(Value value) {
  held.push_back(ctx.shape(value));
  return held.back();
}

std::optional<Ints> OperandShapes::optional(Value value) {
  if (!value || isNone(value))
    return std::nullopt;
  return (*this)(value);
}

SmallVector<int64_t> EnvShapeContext::shape(Value value) const {
  const std::vector<int64_t> &s = env.get(value).shape();
  return SmallVector<int64_t>(s.begin(), s.end());
}

const Tensor *EnvShapeContext::tensor(Value value) const {
  return env.find(value);
}

/// "float", "float or integer", ... for the kinds in `kinds`.
static std::string elementKindText(unsigned kinds) {
  SmallVector<StringRef> names;
  if (kinds & kFloatElements)
    names.push_back("float");
  if (kinds & kIntElements)
    names.push_back("integer");
  if (kinds & kBoolElements)
    names.push_back("i1");
  std::string s;
  for (auto [i, n] : llvm::enumerate(names)) {
    if (i)
      s += i + 1 == names.size() ? " or " : ", ";
    s += n.str();
  }
  return s;
}

LogicalResult checkElementKind(Operation *op, StringRef what, Value value,
                               unsigned kinds) {
  Type elem = cast<ShapedType>(value.getType()).getElementType();
  std::optional<DType> dt = dtypeOf(elem);
  unsigned kind = !dt                 ? 0u
                  : isFloat(*dt)      ? unsigned(kFloatElements)
                  : *dt == DType::Bool ? unsigned(kBoolElements)
                                       : unsigned(kIntElements);
  if (kind & kinds)
    return success();
  std::string text = elementKindText(kinds);
  return op->emitOpError() << what << " must have "
                           << (text.front() == 'i' ? "an " : "a ") << text
                           << " element type, got " << elem;
}

LogicalResult checkSameElementType(Operation *op, StringRef whatA, Value a,
                                   StringRef whatB, Value b) {
  Type ea = cast<ShapedType>(a.getType()).getElementType();
  Type eb = cast<ShapedType>(b.getType()).getElementType();
  if (ea == eb || (dtypeOf(ea) && dtypeOf(ea) == dtypeOf(eb)))
    return success();
  return op->emitOpError() << whatB << " element type " << eb
                           << " must match " << whatA << " element type "
                           << ea;
}

int64_t elementwiseFlops(Value result, int64_t perElement) {
  auto t = cast<ShapedType>(result.getType());
  return t.hasStaticShape() ? t.getNumElements() * perElement : 0;
}

Tensor broadcastTo(const Tensor &t, ArrayRef<int64_t> outShape) {
  Tensor out(t.dtype(), std::vector<int64_t>(outShape.begin(), outShape.end()));
  size_t size = dtypeSize(t.dtype());
  const auto *src = static_cast<const uint8_t *>(t.raw());
  auto *dst = static_cast<uint8_t *>(out.raw());
  forEachBroadcast(outShape, t.shape(), outShape,
                   [&](int64_t o, int64_t i, int64_t) {
                     std::memcpy(dst + o * size, src + i * size, size);
                   });
  return out;
}

mlir::FailureOr<std::pair<int64_t, int64_t>>
windowExtent(Operation *op, size_t dim, int64_t in, int64_t kernel,
             int64_t dilation, int64_t padBegin, int64_t padEnd) {
  int64_t ext, padded;
  if (llvm::MulOverflow(dilation, kernel - 1, ext) ||
      llvm::AddOverflow(ext, int64_t(1), ext) ||
      llvm::AddOverflow(in, padBegin, padded) ||
      llvm::AddOverflow(padded, padEnd, padded))
    return op->emitOpError() << "window or padded input size overflows int64 "
                                "in spatial dim "
                             << dim;
  return std::make_pair(ext, padded);
}

OptionalShape::OptionalShape(const ShapeContext &ctx, Value value) {
  if (!isNone(value))
    shape = ctx.shape(value);
}

OptionalShape::operator std::optional<Ints>() const {
  return shape ? std::optional<Ints>(*shape) : std::nullopt;
}

SmallVector<int64_t> toChannelsFirst(ArrayRef<int64_t> shape,
                                     bool channelsLast) {
  if (!channelsLast || shape.size() < 2)
    return SmallVector<int64_t>(shape);
  return permuteShape(shape, channelsLastToFirstOrder(shape.size()));
}

SmallVector<int64_t> fromChannelsFirst(ArrayRef<int64_t> shape,
                                       bool channelsLast) {
  if (!channelsLast || shape.size() < 2)
    return SmallVector<int64_t>(shape);
  return permuteShape(shape, channelsFirstToLastOrder(shape.size()));
}

Tensor permuteTensor(const Tensor &t, ArrayRef<int64_t> order) {
  SmallVector<int64_t> strides = rowMajorStrides(t.shape());
  SmallVector<SmallVector<int64_t>> offsets;
  std::vector<int64_t> outShape;
  for (int64_t d : order) {
    offsets.push_back(stridedOffsets(0, 1, t.dim(d), strides[d]));
    outShape.push_back(t.dim(d));
  }
  if (isEmptyShape(outShape))
    return Tensor(t.dtype(), outShape);
  return gatherOffsets(t, outShape, offsets);
}

Tensor toChannelsFirst(const Tensor &t, bool channelsLast) {
  if (!channelsLast || t.rank() < 2)
    return t;
  return permuteTensor(t, channelsLastToFirstOrder(t.rank()));
}

Tensor fromChannelsFirst(const Tensor &t, bool channelsLast) {
  if (!channelsLast || t.rank() < 2)
    return t;
  return permuteTensor(t, channelsFirstToLastOrder(t.rank()));
}

} // namespace strata::top::impl

