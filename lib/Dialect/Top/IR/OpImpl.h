//===- OpImpl.h - helpers for implementing Top ops --------------*- C++ -*-===//
//
// Private to lib/Dialect/Top/IR: attribute checks that emit uniform errors,
// and host-side helpers the ops' reference semantics share.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_DIALECT_TOP_IR_OPIMPL_H
#define STRATA_LIB_DIALECT_TOP_IR_OPIMPL_H

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/Shapes/ShapeShapes.h"
#include "strata/Support/Tensor.h"

#include <cmath>
#include <deque>
#include <functional>
#include <optional>

namespace strata::top::impl {

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;
using mlir::LogicalResult;
using mlir::Operation;

/// Checks that attribute `name` has `size` entries, each >= `minValue`.
LogicalResult checkArrayAttr(Operation *op, StringRef name,
                             ArrayRef<int64_t> values, size_t size,
                             int64_t minValue);

/// The type computations run in: f64 for f64, f32 for other floats, i64 for
/// integers and bool.
DType computeType(DType type);
/// `t` converted to its compute type (shares the buffer if already there).
Tensor toCompute(const Tensor &t);
/// The element type of `result` as a host dtype (asserts it is supported).
DType resultDType(mlir::Value result);

/// Applies relu (and a cap if `limit >= 0`) in place to a compute tensor.
void applyRelu(Tensor &t, double limit);

//===----------------------------------------------------------------------===//
// Activation functions and epilogues (Epilogue.cpp)
//===----------------------------------------------------------------------===//

double sigmoid(double x);
/// ONNX HardSigmoid: max(0, min(1, alpha * x + beta)); NaN stays NaN.
double hardSigmoid(double x, double alpha, double beta);
/// 0.5 * x * (1 + erf(x / sqrt(2))).
double geluErf(double x);
/// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
double geluTanh(double x);

/// Checks the epilogue attributes `activation` / `activation_params` of a
/// Conv, Deconv or MatMul: its number of params, a float result, not together
/// with `do_relu`, clip's min <= max.
LogicalResult verifyEpilogue(Operation *op);
/// The scalar function of epilogue activation `act` (its params verified).
std::function<double(double)> activationFunction(EpilogueActivation act,
                                                 ArrayRef<double> params);
/// Applies the op's epilogue (`do_relu`/`relu_limit`, then `activation`) in
/// place to a compute tensor.
void applyEpilogue(Operation *op, Tensor &t);

/// The broadcast of two shapes with size-1 dims dropped and the dims that
/// are contiguous for both operands merged: at least one dim; strides are 0
/// where an operand is broadcast.
struct BroadcastPlan {
  SmallVector<int64_t> shape, lhsStrides, rhsStrides;
  int64_t total = 0;
};
BroadcastPlan planBroadcast(ArrayRef<int64_t> outShape,
                            ArrayRef<int64_t> lhsShape,
                            ArrayRef<int64_t> rhsShape);

/// Calls `fn(outIndex, lhsIndex, rhsIndex)` for every element of the
/// broadcast of two shapes (flat indices, row-major, in order). A template so
/// that `fn` inlines into the innermost loop.
template <typename Fn>
void forEachBroadcast(ArrayRef<int64_t> outShape, ArrayRef<int64_t> lhsShape,
                      ArrayRef<int64_t> rhsShape, Fn &&fn) {
  BroadcastPlan plan = planBroadcast(outShape, lhsShape, rhsShape);
  if (plan.total == 0)
    return;
  size_t rank = plan.shape.size();
  int64_t inner = plan.shape[rank - 1];
  int64_t lsi = plan.lhsStrides[rank - 1], rsi = plan.rhsStrides[rank - 1];
  SmallVector<int64_t> idx(rank, 0);
  int64_t li = 0, ri = 0, oi = 0;
  while (true) {
    if (lsi == 1 && rsi == 1)
      for (int64_t k = 0; k < inner; ++k)
        fn(oi + k, li + k, ri + k);
    else if (lsi == 1 && rsi == 0)
      for (int64_t k = 0; k < inner; ++k)
        fn(oi + k, li + k, ri);
    else if (lsi == 0 && rsi == 1)
      for (int64_t k = 0; k < inner; ++k)
        fn(oi + k, li, ri + k);
    else
      for (int64_t k = 0; k < inner; ++k)
        fn(oi + k, li + k * lsi, ri + k * rsi);
    oi += inner;
    int64_t d = static_cast<int64_t>(rank) - 2;
    for (; d >= 0; --d) {
      ++idx[d];
      li += plan.lhsStrides[d];
      ri += plan.rhsStrides[d];
      if (idx[d] < plan.shape[d])
        break;
      li -= plan.lhsStrides[d] * idx[d];
      ri -= plan.rhsStrides[d] * idx[d];
      idx[d] = 0;
    }
    if (d < 0)
      break;
  }
}

/// Strides of `shape` broadcast to `outShape` (0 on broadcast dims).
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> outShape);

/// C[M,N] (+)= A[M,K] * B[K,N], row-major with leading dims, f32 (Eigen;
/// HostGemm.cpp).
void gemmF32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
             const float *B, int64_t ldb, float *C, int64_t ldc,
             bool accumulate);

/// Applies a unary function elementwise in the compute type and converts the
/// result to the result's dtype.
Tensor mapUnary(const Tensor &input, DType outType,
                const std::function<double(double)> &fn);

/// `axis` in [-rank, rank) as an index in [0, rank); emits "attribute
/// '<name>' = <axis> is out of range for rank <rank>" otherwise.
mlir::FailureOr<int64_t> normalizeAxis(Operation *op, StringRef name,
                                       int64_t axis, int64_t rank);

/// Normalizes every entry of the axis list attribute `name` (see
/// normalizeAxis) and rejects duplicates ("attribute '<name>' [..] repeats
/// dim <d>").
mlir::FailureOr<SmallVector<int64_t>>
normalizeAxes(Operation *op, StringRef name, ArrayRef<int64_t> axes,
              int64_t rank);

//===----------------------------------------------------------------------===//
// Runtime operands: shapes, axes, counts only known when the op runs
//===----------------------------------------------------------------------===//

/// The length of the optional 1-D integer operand `name` (e.g. a runtime
/// `axes_value`), which must have a static shape; emits "operand '<name>'
/// must be a 1-D tensor of static length, got <type>" otherwise.
mlir::FailureOr<int64_t> runtimeListLength(Operation *op, StringRef name,
                                           mlir::Value value);
/// Checks that the optional operand `name` holds one integer (static shape
/// with one element, any rank).
LogicalResult checkRuntimeScalar(Operation *op, StringRef name,
                                 mlir::Value value);
/// Runtime list operand `name` for a shape function: nullopt when the op
/// does not have it (`value` is null), its shape and (during a run) its
/// tensor otherwise; fails as runtimeListLength does on a bad type.
mlir::FailureOr<std::optional<shapes::RuntimeValue>>
runtimeList(Operation *op, const ShapeContext &ctx, StringRef name,
            mlir::Value value);
/// Runtime scalar operand `name` for a shape function, like runtimeList;
/// fails as checkRuntimeScalar does on a bad type.
mlir::FailureOr<std::optional<shapes::RuntimeValue>>
runtimeScalar(Operation *op, const ShapeContext &ctx, StringRef name,
              mlir::Value value);
/// The integers of a runtime operand's tensor (any integer dtype).
SmallVector<int64_t> runtimeInts(const Tensor &t);
/// The one integer of runtime operand `name`; an error naming the op, the
/// operand and its shape if it does not hold exactly one.
mlir::FailureOr<int64_t> runtimeScalarInt(Operation *op, StringRef name,
                                          const Tensor &t);
/// Normalizes runtime axes like normalizeAxes; errors read "operand
/// '<name>' holds axis <a>, out of range for rank <r>" and "... repeats
/// dim <d>".
mlir::FailureOr<SmallVector<int64_t>>
normalizeRuntimeAxes(Operation *op, StringRef name, ArrayRef<int64_t> axes,
                     int64_t rank);

/// Checks that a result shape computed from runtime operands has at most
/// 2^31 elements (the interpreter allocates it); the error names the op and
/// the shape.
LogicalResult checkRuntimeResultSize(Operation *op, ArrayRef<int64_t> shape);

/// Row-major strides (in elements) of `shape`.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape);

/// True if a shape has no elements (some dim is 0).
bool isEmptyShape(ArrayRef<int64_t> shape);

/// Marks an output position that takes the fill value in `gatherOffsets`.
constexpr int64_t kFillOffset = INT64_MIN;

/// Data movement by offset tables: returns a tensor of `input`'s dtype and
/// shape `outShape` whose element (o_0, .., o_{r-1}) is the input element at
/// flat index sum_d offsets[d][o_d] (copied as bytes). If some
/// offsets[d][o_d] is kFillOffset the element is `fill`'s first element
/// instead (`fill` must then be given, with input's dtype).
/// offsets[d] has outShape[d] entries.
Tensor gatherOffsets(const Tensor &input, std::vector<int64_t> outShape,
                     ArrayRef<SmallVector<int64_t>> offsets,
                     const Tensor *fill = nullptr);

/// Offset table of an input dim with `stride` read at positions
/// start, start + step, ... (`size` entries).
SmallVector<int64_t> stridedOffsets(int64_t start, int64_t step, int64_t size,
                                    int64_t stride);

//===----------------------------------------------------------------------===//
// Operand shapes for shape functions (strata/Dialect/Top/Shapes)
//===----------------------------------------------------------------------===//

/// Reads operand shapes from a ShapeContext and holds them, so that the
/// `Ints` views a shape function takes stay valid while this object lives.
/// `inferShapes` reads its context; `interpret` an EnvShapeContext (the
/// tensors of the run, never the IR types); `getFlops` a TypeShapeContext.
class OperandShapes {
public:
  explicit OperandShapes(const ShapeContext &ctx) : ctx(ctx) {}
  /// The shape of tensor operand `value`.
  Ints operator()(mlir::Value value);
  /// The shape of optional operand `value`; nullopt when it is `none` or
  /// null.
  std::optional<Ints> optional(mlir::Value value);

private:
  const ShapeContext &ctx;
  std::deque<SmallVector<int64_t>> held; ///< stable element addresses
};

/// The value of a shape function's result, or its error emitted on `op`
/// ("'top.X' op <message>").
template <typename T>
mlir::FailureOr<T> valueOrEmit(Operation *op, ShapeOr<T> result) {
  if (!result)
    return op->emitOpError() << result.error();
  return std::move(*result);
}

/// Operands from a run: the shapes and elements of the tensors in `env`.
class EnvShapeContext final : public ShapeContext {
public:
  explicit EnvShapeContext(const InterpreterEnv &env) : env(env) {}
  SmallVector<int64_t> shape(mlir::Value value) const override;
  const Tensor *tensor(mlir::Value value) const override;

private:
  const InterpreterEnv &env;
};

//===----------------------------------------------------------------------===//
// Elementwise helpers
//===----------------------------------------------------------------------===//

/// Classes of element types an op accepts (a bit mask). Quantized types count
/// as their storage type.
enum ElementKind : unsigned {
  kFloatElements = 1, ///< f16, bf16, f32, f64
  kIntElements = 2,   ///< signless/signed/unsigned integers of 8-64 bits
  kBoolElements = 4,  ///< i1
  kAnyElements = kFloatElements | kIntElements | kBoolElements,
};

/// Checks that tensor `value` has an element type of one of `kinds`; the
/// error names the value as `what` (e.g. "operand 'lhs'") and its type.
LogicalResult checkElementKind(Operation *op, StringRef what,
                               mlir::Value value, unsigned kinds);
/// Checks that tensors `a` and `b` have the same element type (the same
/// storage type for quantized types); the error names both and their types.
LogicalResult checkSameElementType(Operation *op, StringRef whatA,
                                   mlir::Value a, StringRef whatB,
                                   mlir::Value b);

/// `perElement` times the element count of a static result, else 0.
int64_t elementwiseFlops(mlir::Value result, int64_t perElement);

/// `t` materialized at `outShape`, to which its shape must broadcast
/// (numpy rules). Copies element bytes, so any dtype works.
Tensor broadcastTo(const Tensor &t, ArrayRef<int64_t> outShape);

/// The extent `dilation * (kernel - 1) + 1` of a sliding window and the
/// padded input size `in + padBegin + padEnd` of spatial dim `dim`, or an
/// error naming the dim if either overflows int64.
mlir::FailureOr<std::pair<int64_t, int64_t>>
windowExtent(Operation *op, size_t dim, int64_t in, int64_t kernel,
             int64_t dilation, int64_t padBegin, int64_t padEnd);

//===----------------------------------------------------------------------===//
// Shape function adapters (inferShapes of the ops with shape functions)
//===----------------------------------------------------------------------===//

/// The shape of an optional tensor operand (none when it is `top.None`),
/// held for the `Ints` view a shape function takes.
class OptionalShape {
public:
  OptionalShape(const ShapeContext &ctx, mlir::Value value);
  operator std::optional<Ints>() const;

private:
  std::optional<SmallVector<int64_t>> shape;
};

/// An optional list attribute as the optional view a shape function takes.
inline std::optional<Ints> optionalInts(std::optional<ArrayRef<int64_t>> a) {
  return a ? std::optional<Ints>(*a) : std::nullopt;
}

//===----------------------------------------------------------------------===//
// Layout helpers (ops with a `layout` attribute)
//===----------------------------------------------------------------------===//

/// `shape` of a channels-last tensor in channels-first order (unchanged when
/// `channelsLast` is false), and back.
SmallVector<int64_t> toChannelsFirst(ArrayRef<int64_t> shape,
                                     bool channelsLast);
SmallVector<int64_t> fromChannelsFirst(ArrayRef<int64_t> shape,
                                       bool channelsLast);
/// `t` transposed as `top.Permute` with `order` does (any dtype).
Tensor permuteTensor(const Tensor &t, ArrayRef<int64_t> order);
/// A channels-last tensor in channels-first order, and back (no copy when
/// `channelsLast` is false).
Tensor toChannelsFirst(const Tensor &t, bool channelsLast);
Tensor fromChannelsFirst(const Tensor &t, bool channelsLast);

} // namespace strata::top::impl

#endif // STRATA_LIB_DIALECT_TOP_IR_OPIMPL_H
