//===- Linear.cpp - Top MatMul, Conv, Deconv and the pools to linalg ------===//
//
// The contractions and windowed ops. Every lowering follows the reference
// interpreter (lib/Dialect/Top/IR/{MatMul,Conv,Pool,Select,Linalg}Ops.cpp):
//
// - Operands are first converted to the interpreter's compute type (f64 for
//   f64, f32 for the other floats, i64 for integers, unsigned ones
//   zero-extended), the contraction accumulates in it, the epilogue (bias,
//   relu / relu_limit, activation) runs in it, and the result is converted to
//   the result element type as `Tensor::castTo` does (integers wrap, floats
//   to integers saturate, NaN gives 0).
// - NHWC ops compute channels-first between transposes (the final one is the
//   output map of the epilogue generic).
// - Windows are read from a `tensor.pad`ded input: zero for convolutions and
//   sums, -inf (the type's minimum for integers) for max pooling.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace strata::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// The interpreter's compute type of element type `t`: f64 for f64, f32 for
/// the other floats, i64 for integers.
Type computeElementType(Type t) {
  MLIRContext *ctx = t.getContext();
  if (t.isF64())
    return t;
  if (isa<FloatType>(t))
    return Float32Type::get(ctx);
  return IntegerType::get(ctx, 64);
}

/// `v` converted to `dst` as the interpreter's `castTo` does: integers
/// extend (by `srcUnsigned`) or wrap, integers to floats round, floats to
/// integers truncate toward zero, saturate at the type's bounds and give 0
/// for NaN.
Value convertScalar(OpBuilder &b, Location l, Value v, bool srcUnsigned,
                    Type dst, bool dstUnsigned) {
  Type src = v.getType();
  if (src == dst)
    return v;
  auto sf = dyn_cast<FloatType>(src);
  auto df = dyn_cast<FloatType>(dst);
  if (sf && df) {
    if (sf.getWidth() < df.getWidth())
      return arith::ExtFOp::create(b, l, dst, v);
    if (sf.getWidth() > df.getWidth()) {
      // f64 to a half type goes through f32 (the interpreter's
      // setFromDouble rounds twice the same way).
      if (sf.getWidth() > 32 && df.getWidth() < 32)
        v = arith::TruncFOp::create(b, l, b.getF32Type(), v);
      return arith::TruncFOp::create(b, l, dst, v);
    }
    Value wide = arith::ExtFOp::create(b, l, b.getF32Type(), v);
    return arith::TruncFOp::create(b, l, dst, wide);
  }
  if (!sf && !df) {
    unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
    if (sw > dw)
      return arith::TruncIOp::create(b, l, dst, v);
    if (srcUnsigned || sw == 1)
      return arith::ExtUIOp::create(b, l, dst, v);
    return arith::ExtSIOp::create(b, l, dst, v);
  }
  if (!sf) {
    if (srcUnsigned || src.getIntOrFloatBitWidth() == 1)
      return arith::UIToFPOp::create(b, l, dst, v);
    return arith::SIToFPOp::create(b, l, dst, v);
  }
  // Float to integer, in f64: NaN -> 0, saturating, truncating.
  Type f64 = b.getF64Type();
  Value x = convertScalar(b, l, v, false, f64, false);
  unsigned dw = dst.getIntOrFloatBitWidth();
  APInt lo =
      dstUnsigned ? APInt::getMinValue(dw) : APInt::getSignedMinValue(dw);
  APInt hi =
      dstUnsigned ? APInt::getMaxValue(dw) : APInt::getSignedMaxValue(dw);
  double loD = dstUnsigned ? 0.0 : lo.roundToDouble(true);
  double hiD = dstUnsigned ? hi.roundToDouble(false) : hi.roundToDouble(true);
  Value loF = scalarConstant(b, l, f64, loD);
  Value hiF = scalarConstant(b, l, f64, hiD);
  Value zeroF = scalarConstant(b, l, f64, 0.0);
  Value le = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, x, loF);
  Value ge = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, x, hiF);
  Value gt = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, loF);
  Value lt = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, hiF);
  Value inside = arith::AndIOp::create(b, l, gt, lt);
  Value safe = arith::SelectOp::create(b, l, inside, x, zeroF);
  Value i = dstUnsigned ? Value(arith::FPToUIOp::create(b, l, dst, safe))
                        : Value(arith::FPToSIOp::create(b, l, dst, safe));
  Value loI = arith::ConstantOp::create(b, l, dst, b.getIntegerAttr(dst, lo));
  Value hiI = arith::ConstantOp::create(b, l, dst, b.getIntegerAttr(dst, hi));
  Value r = arith::SelectOp::create(b, l, ge, hiI, i);
  return arith::SelectOp::create(b, l, le, loI, r);
}

Value addScalar(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, y);
  return arith::AddIOp::create(b, l, x, y);
}

Value mulScalar(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, y);
  return arith::MulIOp::create(b, l, x, y);
}

/// The interpreter's `applyRelu` on a compute-type scalar: f32 as
/// `v > 0 ? v : 0` then `v > limit ? limit : v` (NaN gives 0); f64 and
/// integers as `min(max(v, 0), limit)` with NaN kept and an integer limit
/// rounded down.
Value reluWithLimit(OpBuilder &b, Location l, Value v, double limit) {
  Type t = v.getType();
  Value zero = scalarConstant(b, l, t, 0.0);
  if (t.isF32()) {
    Value pos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, zero);
    v = arith::SelectOp::create(b, l, pos, v, zero);
    if (limit >= 0) {
      Value lim = scalarConstant(b, l, t, static_cast<float>(limit));
      Value over =
          arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, lim);
      v = arith::SelectOp::create(b, l, over, lim, v);
    }
    return v;
  }
  if (isa<FloatType>(t)) {
    // std::max(v, 0.0) = v < 0 ? 0 : v; std::min(v, lim) = lim < v ? lim : v.
    Value neg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, v, zero);
    v = arith::SelectOp::create(b, l, neg, zero, v);
    if (limit >= 0) {
      Value lim = scalarConstant(b, l, t, limit);
      Value over =
          arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, lim, v);
      v = arith::SelectOp::create(b, l, over, lim, v);
    }
    return v;
  }
  v = arith::MaxSIOp::create(b, l, v, zero);
  if (limit >= 0) {
    double lim = std::floor(std::min(limit, 9.2e18));
    v = arith::MinSIOp::create(b, l, v, scalarConstant(b, l, t, lim));
  }
  return v;
}

/// `c ? x : y`.
Value selectOf(OpBuilder &b, Location l, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, l, c, x, y);
}

/// std::clamp(x, lo, hi) in f64 (NaN kept).
Value clampF64(OpBuilder &b, Location l, Value x, double lo, double hi) {
  Type f64 = b.getF64Type();
  Value loC = scalarConstant(b, l, f64, lo);
  Value hiC = scalarConstant(b, l, f64, hi);
  Value below = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, loC);
  Value above = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, hiC, x);
  return selectOf(b, l, below, loC, selectOf(b, l, above, hiC, x));
}

Value sigmoidF64(OpBuilder &b, Location l, Value x) {
  Type f64 = b.getF64Type();
  Value one = scalarConstant(b, l, f64, 1.0);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}

/// The epilogue activation `act` on an f64 scalar (Epilogue.cpp).
Value activationF64(OpBuilder &b, Location l, Value x,
                    top::EpilogueActivation act, ArrayRef<double> p) {
  Type f64 = b.getF64Type();
  auto c = [&](double v) { return scalarConstant(b, l, f64, v); };
  auto mul = [&](Value u, Value v) -> Value {
    return arith::MulFOp::create(b, l, u, v);
  };
  auto add = [&](Value u, Value v) -> Value {
    return arith::AddFOp::create(b, l, u, v);
  };
  auto hardSigmoid = [&](double alpha, double beta) {
    return clampF64(b, l, add(mul(c(alpha), x), c(beta)), 0.0, 1.0);
  };
  switch (act) {
  case top::EpilogueActivation::Sigmoid:
    return sigmoidF64(b, l, x);
  case top::EpilogueActivation::SiLU:
    return mul(x, sigmoidF64(b, l, x));
  case top::EpilogueActivation::Gelu: {
    Value e = math::ErfOp::create(
        b, l, arith::DivFOp::create(b, l, x, c(std::sqrt(2.0))));
    return mul(mul(c(0.5), x), add(c(1.0), e));
  }
  case top::EpilogueActivation::GeluTanh: {
    Value x3 = mul(mul(x, x), x);
    Value in = mul(c(std::sqrt(2.0 / M_PI)), add(x, mul(c(0.044715), x3)));
    return mul(mul(c(0.5), x), add(c(1.0), math::TanhOp::create(b, l, in)));
  }
  case top::EpilogueActivation::HardSwish:
    return mul(x, hardSigmoid(1.0 / 6.0, 0.5));
  case top::EpilogueActivation::HardSigmoid:
    return hardSigmoid(p[0], p[1]);
  case top::EpilogueActivation::LeakyRelu: {
    Value ge = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, x, c(0));
    return selectOf(b, l, ge, x, mul(c(p[0]), x));
  }
  case top::EpilogueActivation::Clip:
    break;
  }
  return clampF64(b, l, x, p[0], p[1]);
}

/// The fused epilogue of Conv, Deconv and MatMul on a compute-type scalar:
/// relu (with its limit) or the activation (computed in f64 and rounded back,
/// as the interpreter's `mapUnary` does).
struct Epilogue {
  bool doRelu = false;
  double reluLimit = -1.0;
  std::optional<top::EpilogueActivation> act;
  SmallVector<double> params;

  template <typename OpTy> static Epilogue of(OpTy op) {
    Epilogue e;
    e.doRelu = op.getDoRelu();
    e.reluLimit = op.getReluLimit().convertToDouble();
    e.act = op.getActivation();
    if (auto p = op.getActivationParams())
      e.params.assign(p->begin(), p->end());
    return e;
  }

  Value apply(OpBuilder &b, Location l, Value v) const {
    if (doRelu)
      v = reluWithLimit(b, l, v, reluLimit);
    if (act) {
      Type t = v.getType();
      Value x = convertScalar(b, l, v, false, b.getF64Type(), false);
      x = activationF64(b, l, x, *act, params);
      v = convertScalar(b, l, x, false, t, false);
    }
    return v;
  }
};

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(ArrayRef<int64_t> shape, Type elem) {
  return RankedTensorType::get(shape, elem);
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

bool hasStaticShape(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape();
}

/// A tensor of `shape` filled with `value`.
Value filled(OpBuilder &b, Location l, ArrayRef<int64_t> shape, Type elem,
             Value value) {
  Value e = emptyTensor(b, l, tensorType(shape, elem));
  return linalg::FillOp::create(b, l, ValueRange{value}, ValueRange{e})
      .getResult(0);
}

Value zeros(OpBuilder &b, Location l, ArrayRef<int64_t> shape, Type elem) {
  return filled(b, l, shape, elem, scalarConstant(b, l, elem, 0.0));
}

/// `v` with its elements converted to `dst` (convertScalar); `v` itself if
/// the element type is already `dst`.
Value convertTensor(OpBuilder &b, Location l, Value v, bool srcUnsigned,
                    Type dst, bool dstUnsigned = false) {
  if (elemOf(v) == dst)
    return v;
  return buildElementwise(
      b, l, tensorType(shapeOf(v), dst), {v},
      [&](OpBuilder &nb, Location nl, ValueRange xs, Type t) {
        return convertScalar(nb, nl, xs[0], srcUnsigned, t, dstUnsigned);
      });
}

/// `v` reshaped to the static `shape` (same element count) with
/// collapse_shape / expand_shape.
Value reshapeTo(OpBuilder &b, Location l, Value v, ArrayRef<int64_t> shape) {
  auto src = cast<RankedTensorType>(v.getType());
  auto dst = tensorType(shape, src.getElementType());
  if (src == dst)
    return v;
  if (dst.getRank() < src.getRank())
    if (auto re = getReassociationIndicesForReshape(src, dst))
      return tensor::CollapseShapeOp::create(b, l, dst, v, *re);
  if (dst.getRank() > src.getRank())
    if (auto re = getReassociationIndicesForReshape(dst, src))
      return tensor::ExpandShapeOp::create(b, l, dst, v, *re);
  // Through one dim.
  int64_t n = src.getNumElements();
  auto flat = tensorType({n}, src.getElementType());
  auto all = [](int64_t rank) {
    SmallVector<ReassociationIndices> re;
    if (rank > 0)
      re.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
    return re;
  };
  Value f = src.getRank() == 0
                ? Value(tensor::ExpandShapeOp::create(b, l, flat, v, all(0)))
                : Value(tensor::CollapseShapeOp::create(b, l, flat, v,
                                                        all(src.getRank())));
  if (dst.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, l, dst, f, all(0));
  return tensor::ExpandShapeOp::create(b, l, dst, f, all(dst.getRank()));
}

/// `v` transposed: result dim i is input dim perm[i].
Value transposed(OpBuilder &b, Location l, Value v, ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> shape = shapeOf(v);
  SmallVector<int64_t> out;
  for (int64_t p : perm)
    out.push_back(shape[p]);
  Value init = emptyTensor(b, l, tensorType(out, elemOf(v)));
  return linalg::TransposeOp::create(b, l, v, init, perm)->getResult(0);
}

/// The permutation taking channels-last `N x D1..Dr x C` to channels-first.
SmallVector<int64_t> toChannelsFirstPerm(int64_t rank) {
  SmallVector<int64_t> p{0, rank - 1};
  for (int64_t d = 1; d + 1 < rank; ++d)
    p.push_back(d);
  return p;
}

/// A channels-last shape in channels-first order.
SmallVector<int64_t> channelsFirstShape(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> out;
  for (int64_t p : toChannelsFirstPerm(shape.size()))
    out.push_back(shape[p]);
  return out;
}

/// `v` padded by `low`/`high` per dim with the scalar `value`.
Value padded(OpBuilder &b, Location l, Value v, ArrayRef<int64_t> low,
             ArrayRef<int64_t> high, Value value) {
  if (llvm::all_of(low, [](int64_t x) { return x == 0; }) &&
      llvm::all_of(high, [](int64_t x) { return x == 0; }))
    return v;
  SmallVector<int64_t> shape(shapeOf(v));
  SmallVector<OpFoldResult> lo, hi;
  for (size_t d = 0; d < shape.size(); ++d) {
    shape[d] += low[d] + high[d];
    lo.push_back(b.getIndexAttr(low[d]));
    hi.push_back(b.getIndexAttr(high[d]));
  }
  return tensor::PadOp::create(b, l, tensorType(shape, elemOf(v)), v, lo, hi,
                               value);
}

/// `[0, 0, spatial...]`: pads for an `N x C x D...` tensor.
SmallVector<int64_t> withBatchChannel(ArrayRef<int64_t> spatial) {
  SmallVector<int64_t> out{0, 0};
  out.append(spatial.begin(), spatial.end());
  return out;
}

/// The combining function of a window reduction.
enum class WindowKind { MaxFloat, MaxSigned, MaxUnsigned, Sum };

/// A window reduction over `in` (`N x C x X1..Xr`, already padded) into
/// `init` (`N x C x Y1..Yr`), the input read at `y*stride + k*dilation`:
/// linalg.pooling_nchw_max / pooling_nchw_sum for 2 spatial dims (not for
/// unsigned max), otherwise a linalg.generic with loops (n, c, y..., k...).
Value windowReduce(OpBuilder &b, Location l, Value in, Value init,
                   ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> dilations, WindowKind kind) {
  MLIRContext *ctx = b.getContext();
  int64_t r = kernel.size(), loops = 2 + 2 * r;
  Value window = emptyTensor(b, l, tensorType(kernel, elemOf(init)));
  if (r == 2 && kind != WindowKind::MaxUnsigned) {
    auto s = b.getI64TensorAttr(strides), d = b.getI64TensorAttr(dilations);
    SmallVector<Value> ins{in, window};
    if (kind == WindowKind::Sum)
      return linalg::PoolingNchwSumOp::create(b, l, TypeRange{init.getType()},
                                              ins, ValueRange{init}, s, d)
          .getResult(0);
    return linalg::PoolingNchwMaxOp::create(b, l, TypeRange{init.getType()},
                                            ins, ValueRange{init}, s, d)
        .getResult(0);
  }
  SmallVector<AffineExpr> inExprs{getAffineDimExpr(0, ctx),
                                  getAffineDimExpr(1, ctx)},
      winExprs, outExprs{getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)};
  for (int64_t d = 0; d < r; ++d) {
    AffineExpr y = getAffineDimExpr(2 + d, ctx),
               k = getAffineDimExpr(2 + r + d, ctx);
    inExprs.push_back(y * strides[d] + k * dilations[d]);
    winExprs.push_back(k);
    outExprs.push_back(y);
  }
  SmallVector<AffineMap> maps{AffineMap::get(loops, 0, inExprs, ctx),
                              AffineMap::get(loops, 0, winExprs, ctx),
                              AffineMap::get(loops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(2 + r, utils::IteratorType::parallel);
  iters.append(r, utils::IteratorType::reduction);
  auto g = linalg::GenericOp::create(
      b, l, TypeRange{init.getType()}, ValueRange{in, window}, ValueRange{init},
      maps, iters, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value acc = args[2], x = args[0], v;
        switch (kind) {
        case WindowKind::MaxFloat:
          v = arith::MaximumFOp::create(nb, nl, acc, x);
          break;
        case WindowKind::MaxSigned:
          v = arith::MaxSIOp::create(nb, nl, acc, x);
          break;
        case WindowKind::MaxUnsigned:
          v = arith::MaxUIOp::create(nb, nl, acc, x);
          break;
        case WindowKind::Sum:
          v = addScalar(nb, nl, acc, x);
          break;
        }
        linalg::YieldOp::create(nb, nl, v);
      });
  return g.getResult(0);
}

/// The convolution accumulation `N x O x Y...` (zero-initialised, element
/// type of `in`) of `in` (`N x C x X...`, padded, compute type) with `w`
/// (`O x C/group x K...`): a named linalg convolution for group 1 and 1 to 3
/// spatial dims and for grouped and depthwise 2-d, otherwise a grouped
/// linalg.generic.
Value convolve(OpBuilder &b, Location l, Value in, Value w, int64_t group,
               ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
               ArrayRef<int64_t> outShape) {
  MLIRContext *ctx = b.getContext();
  Type elem = elemOf(in);
  int64_t r = static_cast<int64_t>(strides.size());
  Value init = zeros(b, l, outShape, elem);
  auto outType = tensorType(outShape, elem);
  if (group == 1 && r >= 1 && r <= 3) {
    auto s = b.getI64TensorAttr(strides), d = b.getI64TensorAttr(dilations);
    SmallVector<Value> ins{in, w};
    if (r == 1)
      return linalg::Conv1DNcwFcwOp::create(b, l, TypeRange{outType}, ins,
                                            ValueRange{init}, s, d)
          .getResult(0);
    if (r == 2)
      return linalg::Conv2DNchwFchwOp::create(b, l, TypeRange{outType}, ins,
                                              ValueRange{init}, s, d)
          .getResult(0);
    return linalg::Conv3DNcdhwFcdhwOp::create(b, l, TypeRange{outType}, ins,
                                              ValueRange{init}, s, d)
        .getResult(0);
  }
  ArrayRef<int64_t> inShape = shapeOf(in), wShape = shapeOf(w);
  int64_t n = inShape[0], c = inShape[1], o = wShape[0], cg = c / group,
          og = o / group;
  if (r == 2 && group == c && group == o) {
    // Depthwise: the C x 1 x KH x KW filter as C x KH x KW.
    Value f = tensor::CollapseShapeOp::create(
        b, l, tensorType({o, wShape[2], wShape[3]}, elem), w,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    return linalg::DepthwiseConv2DNchwChwOp::create(
               b, l, TypeRange{outType}, SmallVector<Value>{in, f},
               ValueRange{init}, b.getI64TensorAttr(strides),
               b.getI64TensorAttr(dilations))
        .getResult(0);
  }
  // Grouped: N x G x C/G x X, G x O/G x C/G x K -> N x G x O/G x Y.
  SmallVector<int64_t> inG{n, group, cg}, wG{group, og, cg}, outG{n, group, og};
  inG.append(inShape.begin() + 2, inShape.end());
  wG.append(wShape.begin() + 2, wShape.end());
  outG.append(outShape.begin() + 2, outShape.end());
  // Split dim 1 (input, output) or dim 0 (filter) into groups.
  auto split = [&](int64_t at, int64_t rank) {
    SmallVector<ReassociationIndices> re;
    for (int64_t d = 0, next = 0; d < rank; ++d) {
      if (d == at) {
        re.push_back({next, next + 1});
        next += 2;
      } else {
        re.push_back({next++});
      }
    }
    return re;
  };
  int64_t rank = r + 2;
  Value inE = tensor::ExpandShapeOp::create(b, l, tensorType(inG, elem), in,
                                            split(1, rank));
  Value wE = tensor::ExpandShapeOp::create(b, l, tensorType(wG, elem), w,
                                           split(0, rank));
  Value initE = tensor::ExpandShapeOp::create(b, l, tensorType(outG, elem),
                                              init, split(1, rank));
  if (r == 2) {
    Value g = linalg::Conv2DNgchwGfchwOp::create(
                  b, l, TypeRange{initE.getType()}, SmallVector<Value>{inE, wE},
                  ValueRange{initE}, b.getI64TensorAttr(strides),
                  b.getI64TensorAttr(dilations))
                  .getResult(0);
    return tensor::CollapseShapeOp::create(b, l, outType, g, split(1, rank));
  }
  // Loops: n, g, o, y..., c, k...
  int64_t loops = 4 + 2 * r;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> inExprs{dim(0), dim(1), dim(3 + r)},
      wExprs{dim(1), dim(2), dim(3 + r)}, outExprs{dim(0), dim(1), dim(2)};
  for (int64_t d = 0; d < r; ++d) {
    inExprs.push_back(dim(3 + d) * strides[d] + dim(4 + r + d) * dilations[d]);
    wExprs.push_back(dim(4 + r + d));
    outExprs.push_back(dim(3 + d));
  }
  SmallVector<AffineMap> maps{AffineMap::get(loops, 0, inExprs, ctx),
                              AffineMap::get(loops, 0, wExprs, ctx),
                              AffineMap::get(loops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(3 + r, utils::IteratorType::parallel);
  iters.append(1 + r, utils::IteratorType::reduction);
  auto g = linalg::GenericOp::create(
      b, l, TypeRange{initE.getType()}, ValueRange{inE, wE}, ValueRange{initE},
      maps, iters, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value p = mulScalar(nb, nl, args[0], args[1]);
        linalg::YieldOp::create(nb, nl, addScalar(nb, nl, args[2], p));
      });
  return tensor::CollapseShapeOp::create(b, l, outType, g.getResult(0),
                                         split(1, rank));
}

/// The final linalg.generic of the channel ops: loops over the channels-first
/// form of `resultType`, reading `src` (channels-first) and the `extras` (each
/// with its map from the channels-first loops), writing the result in its own
/// layout. `body(srcScalar, extraScalars)` returns the result scalar.
Value channelEpilogue(
    OpBuilder &b, Location l, RankedTensorType resultType, bool channelsLast,
    Value src, ArrayRef<std::pair<Value, AffineMap>> extras,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs{src};
  SmallVector<AffineMap> maps{id};
  for (auto [v, m] : extras) {
    inputs.push_back(v);
    maps.push_back(m);
  }
  AffineMap outMap = id;
  if (channelsLast) {
    // Result dim i is loop dim perm'[i] where perm' is NCHW -> NHWC.
    SmallVector<AffineExpr> exprs{getAffineDimExpr(0, ctx)};
    for (int64_t d = 2; d < rank; ++d)
      exprs.push_back(getAffineDimExpr(d, ctx));
    exprs.push_back(getAffineDimExpr(1, ctx));
    outMap = AffineMap::get(rank, 0, exprs, ctx);
  }
  maps.push_back(outMap);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto g = linalg::GenericOp::create(
      b, l, TypeRange{resultType}, inputs,
      ValueRange{emptyTensor(b, l, resultType)}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value r = body(nb, nl, args[0], args.drop_front().drop_back());
        linalg::YieldOp::create(nb, nl, r);
      });
  return g.getResult(0);
}

/// `bias` (any shape with `count` elements) as a 1-d compute-type tensor.
Value biasVector(OpBuilder &b, Location l, Value bias, Value origBias,
                 Type computeType) {
  int64_t n = cast<RankedTensorType>(bias.getType()).getNumElements();
  Value flat = reshapeTo(b, l, bias, {n});
  return convertTensor(b, l, flat, isUnsignedElement(origBias), computeType);
}

/// A constant i64 tensor of `shape` with `values`.
Value i64Constant(OpBuilder &b, Location l, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> values) {
  auto t = tensorType(shape, b.getI64Type());
  return arith::ConstantOp::create(b, l, t,
                                   DenseIntElementsAttr::get(t, values));
}

//===----------------------------------------------------------------------===//
// Conv and Deconv
//===----------------------------------------------------------------------===//

/// Checks shared by Conv and Deconv: static shapes, 1 to 3 spatial dims,
/// attribute sizes.
template <typename OpTy>
LogicalResult checkConvForm(OpTy op, Value in, Value w, Value bias,
                            ConversionPatternRewriter &rewriter) {
  if (!hasStaticShape(in) || !hasStaticShape(w) ||
      (!isNone(bias) && !hasStaticShape(bias)))
    return rewriter.notifyMatchFailure(op, "operand shapes are not static");
  int64_t rank = shapeOf(in).size();
  size_t r = op.getKernelShape().size();
  if (rank < 3 || static_cast<size_t>(rank - 2) != r ||
      shapeOf(w).size() != static_cast<size_t>(rank))
    return rewriter.notifyMatchFailure(op, "operand ranks do not match "
                                           "kernel_shape");
  if (op.getStridesOrDefault().size() != r ||
      op.getDilationsOrDefault().size() != r ||
      op.getPadsOrDefault().size() != 2 * r || op.getGroup() < 1)
    return rewriter.notifyMatchFailure(op, "window attributes have the wrong "
                                           "size");
  return success();
}

/// The epilogue of Conv and Deconv: `acc` (`N x O x Y...`, compute type) plus
/// the bias, relu or activation, converted to the result type and layout.
Value convEpilogue(OpBuilder &b, Location l, Value acc, Value bias,
                   Value origBias, RankedTensorType resultType,
                   bool resultUnsigned, bool channelsLast,
                   const Epilogue &epilogue) {
  MLIRContext *ctx = b.getContext();
  Type computeType = elemOf(acc);
  int64_t rank = resultType.getRank();
  SmallVector<std::pair<Value, AffineMap>> extras;
  bool hasBias = !isNone(origBias);
  Type resultElem = resultType.getElementType();
  if (!hasBias && !epilogue.doRelu && !epilogue.act && !channelsLast &&
      resultElem == computeType)
    return acc;
  if (hasBias)
    extras.push_back({biasVector(b, l, bias, origBias, computeType),
                      AffineMap::get(rank, 0, getAffineDimExpr(1, ctx), ctx)});
  return channelEpilogue(
      b, l, resultType, channelsLast, acc, extras,
      [&](OpBuilder &nb, Location nl, Value v, ValueRange xs) {
        if (hasBias)
          v = addScalar(nb, nl, v, xs[0]);
        v = epilogue.apply(nb, nl, v);
        return convertScalar(nb, nl, v, false, resultElem, resultUnsigned);
      });
}

/// A zero point to subtract: none, one scalar, or an i64 constant tensor
/// read per element through a map (per input channel).
struct ZeroPoint {
  Value tensor; // i64, or null
  int64_t scalar = 0;
  bool present = false;
};

/// `v` (original operand, signless) converted to the compute type with the
/// zero point `zp` subtracted: `zpTensor` (i64, read at `zpMap`) or the
/// scalar.
Value convertMinusZp(OpBuilder &b, Location l, Value v, bool srcUnsigned,
                     Type computeType, const ZeroPoint &zp, AffineMap zpMap) {
  if (!zp.present)
    return convertTensor(b, l, v, srcUnsigned, computeType);
  MLIRContext *ctx = b.getContext();
  int64_t rank = shapeOf(v).size();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs{v};
  SmallVector<AffineMap> maps{id};
  if (zp.tensor) {
    inputs.push_back(zp.tensor);
    maps.push_back(zpMap);
  }
  maps.push_back(id);
  auto outType = tensorType(shapeOf(v), computeType);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto g = linalg::GenericOp::create(
      b, l, TypeRange{outType}, inputs, ValueRange{emptyTensor(b, l, outType)},
      maps, iters, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value x =
            convertScalar(nb, nl, args[0], srcUnsigned, computeType, false);
        Value z = zp.tensor ? args[1]
                            : scalarConstant(nb, nl, b.getI64Type(),
                                             static_cast<double>(zp.scalar));
        z = convertScalar(nb, nl, z, false, computeType, false);
        Value r = isa<FloatType>(computeType)
                      ? Value(arith::SubFOp::create(nb, nl, x, z))
                      : Value(arith::SubIOp::create(nb, nl, x, z));
        linalg::YieldOp::create(nb, nl, r);
      });
  return g.getResult(0);
}

/// Conv's and Deconv's operands after the checks they share: the static
/// result type, and the input and filter channels first (transposed from
/// NHWC), with the compute element type.
struct ConvInputs {
  RankedTensorType type;
  Value in, w;
  bool channelsLast;
  int64_t rank, r, group;
  Type computeType;
};

/// Conv and Deconv: the shared checks and channels-first operands, then
/// `Derived::accumulate` (the `N x O x Y...` accumulator in the compute
/// type, or a match failure), then the shared epilogue (bias, relu or
/// activation, result type and layout).
template <typename OpTy, typename Derived>
struct ConvLikeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *this->getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value in = adaptor.getInput(), w = adaptor.getFilter(),
          bias = adaptor.getBias();
    if (failed(checkConvForm(op, in, w, bias, rewriter)))
      return failure();
    Location l = op.getLoc();
    bool channelsLast = op.getLayout() == top::Layout::NHWC;
    int64_t rank = shapeOf(in).size();
    Type computeType = computeElementType(elemOf(in));
    if (channelsLast) {
      in = transposed(rewriter, l, in, toChannelsFirstPerm(rank));
      w = transposed(rewriter, l, w, toChannelsFirstPerm(rank));
    }
    ConvInputs ci{*type,
                  in,
                  w,
                  channelsLast,
                  rank,
                  rank - 2,
                  static_cast<int64_t>(op.getGroup()),
                  computeType};
    FailureOr<Value> acc =
        static_cast<const Derived *>(this)->accumulate(op, ci, rewriter);
    if (failed(acc))
      return failure();
    rewriter.replaceOp(op,
                       convEpilogue(rewriter, l, *acc, bias, op.getBias(),
                                    *type, isUnsignedElement(op.getOutput()),
                                    channelsLast, Epilogue::of(op)));
    return success();
  }
};

struct ConvLowering : ConvLikeLowering<top::ConvOp, ConvLowering> {
  using ConvLikeLowering::ConvLikeLowering;
  FailureOr<Value> accumulate(top::ConvOp op, const ConvInputs &ci,
                              ConversionPatternRewriter &rewriter) const {
    RankedTensorType type = ci.type;
    Value in = ci.in, w = ci.w;
    bool channelsLast = ci.channelsLast;
    int64_t rank = ci.rank, r = ci.r, group = ci.group;
    Type computeType = ci.computeType;
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    ArrayRef<int64_t> inShape = shapeOf(in), wShape = shapeOf(w);
    int64_t c = inShape[1], o = wShape[0];
    if (c % group || o % group || wShape[1] * group != c)
      return rewriter.notifyMatchFailure(op, "channels do not match group");
    int64_t cg = c / group, og = o / group;

    // Zero points (the interpreter applies them except on its f32 path).
    MLIRContext *ctx = getContext();
    auto zeroPoint = [&](std::optional<ArrayRef<int64_t>> attr,
                         bool forFilter) -> FailureOr<ZeroPoint> {
      ZeroPoint zp;
      if (!attr || computeType.isF32())
        return zp;
      zp.present = true;
      if (attr->size() == 1) {
        zp.scalar = (*attr)[0];
        return zp;
      }
      if (static_cast<int64_t>(attr->size()) != c)
        return failure();
      if (!forFilter) {
        zp.tensor = i64Constant(b, l, {c}, *attr);
        return zp;
      }
      // Filter element (oc, ci) belongs to input channel (oc / og) * cg + ci.
      SmallVector<int64_t> values;
      for (int64_t oc = 0; oc < o; ++oc)
        for (int64_t ci = 0; ci < cg; ++ci)
          values.push_back((*attr)[(oc / og) * cg + ci]);
      zp.tensor = i64Constant(b, l, {o, cg}, values);
      return zp;
    };
    FailureOr<ZeroPoint> izp = zeroPoint(op.getInputZp(), false);
    FailureOr<ZeroPoint> wzp = zeroPoint(op.getWeightZp(), true);
    if (failed(izp) || failed(wzp))
      return rewriter.notifyMatchFailure(op, "zero points are neither one "
                                             "value nor one per channel");
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    Value x =
        convertMinusZp(b, l, in, isUnsignedElement(op.getInput()), computeType,
                       *izp, AffineMap::get(rank, 0, dim(1), ctx));
    Value f =
        convertMinusZp(b, l, w, isUnsignedElement(op.getFilter()), computeType,
                       *wzp, AffineMap::get(rank, 0, {dim(0), dim(1)}, ctx));

    SmallVector<int64_t> pads = op.getPadsOrDefault();
    x = padded(b, l, x, withBatchChannel(ArrayRef(pads).take_front(r)),
               withBatchChannel(ArrayRef(pads).drop_front(r)),
               scalarConstant(b, l, computeType, 0.0));
    SmallVector<int64_t> outShape(type.getShape());
    if (channelsLast)
      outShape = channelsFirstShape(outShape);
    return convolve(b, l, x, f, group, op.getStridesOrDefault(),
                    op.getDilationsOrDefault(), outShape);
  }
};

/// Deconv as a convolution: the input is spread `stride` apart into a zero
/// tensor padded by `(K-1)*dilation - pad_begin` in front (cut where that is
/// negative) and sized for the output, and convolved with the flipped filter
/// whose in/out channel dims are swapped per group (stride 1, same
/// dilation). Positions past the full output (output_padding) get only the
/// bias, as in the interpreter's scatter.
struct DeconvLowering : ConvLikeLowering<top::DeconvOp, DeconvLowering> {
  using ConvLikeLowering::ConvLikeLowering;
  FailureOr<Value> accumulate(top::DeconvOp op, const ConvInputs &ci,
                              ConversionPatternRewriter &rewriter) const {
    RankedTensorType type = ci.type;
    Value in = ci.in, w = ci.w;
    bool channelsLast = ci.channelsLast;
    int64_t rank = ci.rank, r = ci.r, group = ci.group;
    Type computeType = ci.computeType;
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = getContext();
    Value x =
        convertTensor(b, l, in, isUnsignedElement(op.getInput()), computeType);
    Value f =
        convertTensor(b, l, w, isUnsignedElement(op.getFilter()), computeType);
    SmallVector<int64_t> inShape(shapeOf(x)), wShape(shapeOf(f));
    int64_t n = inShape[0], c = inShape[1], og = wShape[1];
    if (c % group || wShape[0] != c)
      return rewriter.notifyMatchFailure(op, "channels do not match group");
    int64_t cg = c / group, o = og * group;
    SmallVector<int64_t> outShape(type.getShape());
    if (channelsLast)
      outShape = channelsFirstShape(outShape);
    if (outShape[1] != o)
      return rewriter.notifyMatchFailure(op, "result channels do not match");
    ArrayRef<int64_t> kernel(wShape.begin() + 2, wShape.end());
    SmallVector<int64_t> strides = op.getStridesOrDefault(),
                         dil = op.getDilationsOrDefault(),
                         pads = op.getPadsOrDefault();

    // Filter: C x O/G x K -> G x C/G x O/G x K -> G x O/G x C/G x K (flipped)
    // -> O x C/G x K.
    SmallVector<int64_t> wG{group, cg, og}, wT{group, og, cg}, wC{o, cg};
    wG.append(kernel.begin(), kernel.end());
    wT.append(kernel.begin(), kernel.end());
    wC.append(kernel.begin(), kernel.end());
    Value fG = reshapeTo(b, l, f, wG);
    SmallVector<AffineExpr> exprs{getAffineDimExpr(0, ctx),
                                  getAffineDimExpr(2, ctx),
                                  getAffineDimExpr(1, ctx)};
    for (int64_t d = 0; d < r; ++d)
      exprs.push_back(kernel[d] - 1 - getAffineDimExpr(3 + d, ctx));
    auto fTType = tensorType(wT, computeType);
    SmallVector<AffineMap> maps{AffineMap::get(3 + r, 0, exprs, ctx),
                                AffineMap::getMultiDimIdentityMap(3 + r, ctx)};
    SmallVector<utils::IteratorType> iters(3 + r,
                                           utils::IteratorType::parallel);
    Value fT = linalg::GenericOp::create(
                   b, l, TypeRange{fTType}, ValueRange{fG},
                   ValueRange{emptyTensor(b, l, fTType)}, maps, iters,
                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                     linalg::YieldOp::create(nb, nl, args[0]);
                   })
                   .getResult(0);
    Value filter = reshapeTo(b, l, fT, wC);

    // The spread input.
    SmallVector<int64_t> zShape{n, c};
    SmallVector<int64_t> srcOff{0, 0}, srcSize{n, c}, dstOff{0, 0},
        dstStride{1, 1};
    bool empty = n == 0 || c == 0;
    for (int64_t d = 0; d < r; ++d) {
      int64_t span = (kernel[d] - 1) * dil[d];
      int64_t size = outShape[2 + d] + span;
      int64_t lead = span - pads[d];
      int64_t s = strides[d], inD = inShape[2 + d];
      // x with 0 <= lead + x*s < size and x < inD.
      int64_t x0 = lead >= 0 ? 0 : (-lead + s - 1) / s;
      int64_t x1 =
          size - 1 - lead < 0 ? -1 : std::min(inD - 1, (size - 1 - lead) / s);
      zShape.push_back(size);
      if (x1 < x0) {
        empty = true;
        x1 = x0 - 1;
      }
      srcOff.push_back(x0);
      srcSize.push_back(x1 - x0 + 1);
      dstOff.push_back(lead + x0 * s);
      dstStride.push_back(s);
    }
    Value z = zeros(b, l, zShape, computeType);
    if (!empty) {
      auto attrs = [&](ArrayRef<int64_t> v) {
        return getAsIndexOpFoldResult(ctx, v);
      };
      Value src = x;
      if (ArrayRef<int64_t>(srcSize) != ArrayRef<int64_t>(inShape))
        src = tensor::ExtractSliceOp::create(
            b, l, x, attrs(srcOff), attrs(srcSize),
            attrs(SmallVector<int64_t>(rank, 1)));
      z = tensor::InsertSliceOp::create(b, l, src, z, attrs(dstOff),
                                        attrs(srcSize), attrs(dstStride));
    }
    return convolve(b, l, z, filter, group, SmallVector<int64_t>(r, 1), dil,
                    outShape);
  }
};

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

struct MatMulLowering : OpConversionPattern<top::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value lhs = adaptor.getInput(), rhs = adaptor.getRight(),
          bias = adaptor.getBias();
    if (!hasStaticShape(lhs) || !hasStaticShape(rhs) ||
        (!isNone(bias) && !hasStaticShape(bias)))
      return rewriter.notifyMatchFailure(op, "operand shapes are not static");
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = getContext();
    Type computeType = computeElementType(elemOf(lhs));
    Value a =
        convertTensor(b, l, lhs, isUnsignedElement(op.getInput()), computeType);
    Value bm =
        convertTensor(b, l, rhs, isUnsignedElement(op.getRight()), computeType);
    SmallVector<int64_t> aShape(shapeOf(a)), bShape(shapeOf(bm));
    if (aShape.empty() || bShape.empty())
      return rewriter.notifyMatchFailure(op, "an operand is a scalar");
    bool aVec = aShape.size() == 1, bVec = bShape.size() == 1;
    bool transB = op.getRightTranspose() && !bVec;
    if (aVec) {
      aShape.insert(aShape.begin(), 1);
      a = reshapeTo(b, l, a, aShape);
    }
    if (bVec) {
      bShape.push_back(1);
      bm = reshapeTo(b, l, bm, bShape);
    }
    if (transB)
      std::swap(bShape[bShape.size() - 1], bShape[bShape.size() - 2]);
    int64_t m = aShape[aShape.size() - 2], k = aShape.back(),
            nn = bShape.back();
    if (bShape[bShape.size() - 2] != k)
      return rewriter.notifyMatchFailure(op, "contraction dims differ");
    ArrayRef<int64_t> aBatch = ArrayRef(aShape).drop_back(2),
                      bBatch = ArrayRef(bShape).drop_back(2);
    size_t nb = std::max(aBatch.size(), bBatch.size());
    SmallVector<int64_t> batch(nb, 1);
    for (size_t i = 0; i < nb; ++i) {
      int64_t da = i + aBatch.size() >= nb ? aBatch[i + aBatch.size() - nb] : 1;
      int64_t db = i + bBatch.size() >= nb ? bBatch[i + bBatch.size() - nb] : 1;
      if (da != db && da != 1 && db != 1)
        return rewriter.notifyMatchFailure(op, "batch dims do not broadcast");
      batch[i] = da == 1 ? db : da;
    }
    SmallVector<int64_t> full(batch);
    full.push_back(m);
    full.push_back(nn);
    Value init = zeros(b, l, full, computeType);
    auto fullType = tensorType(full, computeType);
    Value acc;
    if (nb == 0 && !transB) {
      acc = linalg::MatmulOp::create(b, l, TypeRange{fullType},
                                     ValueRange{a, bm}, ValueRange{init})
                .getResult(0);
    } else if (nb == 1 && !transB && aBatch == bBatch) {
      acc = linalg::BatchMatmulOp::create(b, l, TypeRange{fullType},
                                          ValueRange{a, bm}, ValueRange{init})
                .getResult(0);
    } else {
      // Loops: batch..., m, n, k.
      int64_t loops = nb + 3;
      auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
      auto batchExprs = [&](ArrayRef<int64_t> own) {
        SmallVector<AffineExpr> e;
        for (size_t i = 0; i < own.size(); ++i) {
          size_t at = i + nb - own.size();
          e.push_back(own[i] == 1 && batch[at] != 1
                          ? getAffineConstantExpr(0, ctx)
                          : dim(at));
        }
        return e;
      };
      SmallVector<AffineExpr> aE = batchExprs(aBatch), bE = batchExprs(bBatch),
                              oE;
      for (size_t i = 0; i < nb; ++i)
        oE.push_back(dim(i));
      aE.append({dim(nb), dim(nb + 2)});
      if (transB)
        bE.append({dim(nb + 1), dim(nb + 2)});
      else
        bE.append({dim(nb + 2), dim(nb + 1)});
      oE.append({dim(nb), dim(nb + 1)});
      SmallVector<AffineMap> maps{AffineMap::get(loops, 0, aE, ctx),
                                  AffineMap::get(loops, 0, bE, ctx),
                                  AffineMap::get(loops, 0, oE, ctx)};
      SmallVector<utils::IteratorType> iters(loops - 1,
                                             utils::IteratorType::parallel);
      iters.push_back(utils::IteratorType::reduction);
      acc = linalg::GenericOp::create(
                b, l, TypeRange{fullType}, ValueRange{a, bm}, ValueRange{init},
                maps, iters,
                [&](OpBuilder &nb2, Location nl, ValueRange args) {
                  Value p = mulScalar(nb2, nl, args[0], args[1]);
                  linalg::YieldOp::create(nb2, nl,
                                          addScalar(nb2, nl, args[2], p));
                })
                .getResult(0);
    }

    // Epilogue over the result: the full form's M / N dims are read at 0
    // where a 1-d operand dropped them.
    int64_t rank = type->getRank();
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> accE;
    int64_t next = 0;
    for (size_t i = 0; i < nb; ++i)
      accE.push_back(dim(next++));
    accE.push_back(aVec ? getAffineConstantExpr(0, ctx) : dim(next++));
    AffineExpr nExpr = bVec ? getAffineConstantExpr(0, ctx) : dim(next++);
    accE.push_back(nExpr);
    if (next != rank)
      return rewriter.notifyMatchFailure(op, "result rank does not match");
    SmallVector<Value> inputs{acc};
    SmallVector<AffineMap> maps{AffineMap::get(rank, 0, accE, ctx)};
    bool hasBias = !isNone(op.getBias());
    if (hasBias) {
      Value bv = biasVector(b, l, bias, op.getBias(), computeType);
      int64_t count = shapeOf(bv)[0];
      if (count != 1 && count != nn)
        return rewriter.notifyMatchFailure(op, "bias size is neither 1 nor "
                                               "the last dim");
      inputs.push_back(bv);
      maps.push_back(AffineMap::get(
          rank, 0, count == 1 ? getAffineConstantExpr(0, ctx) : nExpr, ctx));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Epilogue epilogue = Epilogue::of(op);
    bool resultUnsigned = isUnsignedElement(op.getOutput());
    Type resultElem = type->getElementType();
    if (!hasBias && !epilogue.doRelu && !epilogue.act && !aVec && !bVec &&
        resultElem == computeType) {
      rewriter.replaceOp(op, acc);
      return success();
    }
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value r =
        linalg::GenericOp::create(
            b, l, TypeRange{*type}, inputs,
            ValueRange{emptyTensor(b, l, *type)}, maps, iters,
            [&](OpBuilder &nb2, Location nl, ValueRange args) {
              Value v = args[0];
              if (hasBias)
                v = addScalar(nb2, nl, v, args[1]);
              v = epilogue.apply(nb2, nl, v);
              linalg::YieldOp::create(
                  nb2, nl,
                  convertScalar(nb2, nl, v, false, resultElem, resultUnsigned));
            })
            .getResult(0);
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Pads that make every output window fit: the begin pads, and at the end
/// whatever the last window needs (ceil_mode may reach past the end pad).
void windowPads(ArrayRef<int64_t> inSpatial, ArrayRef<int64_t> outSpatial,
                ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                ArrayRef<int64_t> dil, ArrayRef<int64_t> pads,
                SmallVectorImpl<int64_t> &low, SmallVectorImpl<int64_t> &high) {
  int64_t r = kernel.size();
  low.assign({0, 0});
  high.assign({0, 0});
  for (int64_t d = 0; d < r; ++d) {
    low.push_back(pads[d]);
    int64_t need = outSpatial[d] == 0 ? 0
                                      : (outSpatial[d] - 1) * strides[d] +
                                            (kernel[d] - 1) * dil[d] + 1;
    high.push_back(std::max<int64_t>(0, need - pads[d] - inSpatial[d]));
  }
}

template <typename OpTy>
LogicalResult checkPoolForm(OpTy op, Value in,
                            ConversionPatternRewriter &rewriter) {
  if (!hasStaticShape(in))
    return rewriter.notifyMatchFailure(op, "input shape is not static");
  size_t r = op.getKernelShape().size();
  if (shapeOf(in).size() != r + 2 || r == 0)
    return rewriter.notifyMatchFailure(op, "input rank does not match "
                                           "kernel_shape");
  if (op.getStridesOrDefault().size() != r ||
      op.getDilationsOrDefault().size() != r ||
      op.getPadsOrDefault().size() != 2 * r)
    return rewriter.notifyMatchFailure(op, "window attributes have the wrong "
                                           "size");
  return success();
}

/// MaxPool: the max over the window of the input padded with -inf (the
/// type's minimum for integers), which never wins; NaN propagates as in the
/// interpreter. Computed in the input's element type (f32 for f16/bf16).
struct MaxPoolLowering : OpConversionPattern<top::MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value in = adaptor.getInput();
    if (failed(checkPoolForm(op, in, rewriter)))
      return failure();
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    bool channelsLast = op.getLayout() == top::Layout::NHWC;
    bool isUnsigned = isUnsignedElement(op.getInput());
    int64_t rank = shapeOf(in).size();
    if (channelsLast)
      in = transposed(b, l, in, toChannelsFirstPerm(rank));
    Type elem = elemOf(in);
    if (isa<FloatType>(elem) && !elem.isF64())
      in = convertTensor(b, l, in, false, b.getF32Type());
    elem = elemOf(in);
    Value lowest;
    if (auto ft = dyn_cast<FloatType>(elem)) {
      lowest = arith::ConstantOp::create(
          b, l, elem,
          b.getFloatAttr(elem, APFloat::getInf(ft.getFloatSemantics(), true)));
    } else {
      unsigned w = elem.getIntOrFloatBitWidth();
      APInt v =
          isUnsigned ? APInt::getMinValue(w) : APInt::getSignedMinValue(w);
      lowest = arith::ConstantOp::create(b, l, elem, b.getIntegerAttr(elem, v));
    }
    SmallVector<int64_t> outShape(type->getShape());
    if (channelsLast)
      outShape = channelsFirstShape(outShape);
    ArrayRef<int64_t> inShape = shapeOf(in);
    SmallVector<int64_t> strides = op.getStridesOrDefault(),
                         dil = op.getDilationsOrDefault(),
                         pads = op.getPadsOrDefault(), low, high;
    windowPads(inShape.drop_front(2), ArrayRef(outShape).drop_front(2),
               op.getKernelShape(), strides, dil, pads, low, high);
    Value x = padded(b, l, in, low, high, lowest);
    Value init = filled(b, l, outShape, elem, lowest);
    WindowKind kind = isa<FloatType>(elem) ? WindowKind::MaxFloat
                      : isUnsigned         ? WindowKind::MaxUnsigned
                                           : WindowKind::MaxSigned;
    Value acc =
        windowReduce(b, l, x, init, op.getKernelShape(), strides, dil, kind);
    bool doRelu = op.getDoRelu();
    double limit = op.getReluLimit().convertToDouble();
    bool resultUnsigned = isUnsignedElement(op.getOutput());
    Type resultElem = type->getElementType();
    if (!doRelu && !channelsLast && resultElem == elem) {
      rewriter.replaceOp(op, acc);
      return success();
    }
    rewriter.replaceOp(
        op, channelEpilogue(
                b, l, *type, channelsLast, acc, {},
                [&](OpBuilder &nb, Location nl, Value v, ValueRange) {
                  if (doRelu) {
                    if (isa<FloatType>(elem)) {
                      v = reluWithLimit(nb, nl, v, limit);
                    } else {
                      // Integers: max(v, 0) then min(v, floor(limit)).
                      Type t = v.getType();
                      if (!isUnsigned)
                        v = arith::MaxSIOp::create(
                            nb, nl, v, scalarConstant(nb, nl, t, 0.0));
                      if (limit >= 0) {
                        unsigned w = t.getIntOrFloatBitWidth();
                        double cap = std::floor(limit);
                        double tmax = isUnsigned ? std::ldexp(1.0, w) - 1
                                                 : std::ldexp(1.0, w - 1) - 1;
                        if (cap < tmax) {
                          Value c = scalarConstant(nb, nl, t, cap);
                          v = isUnsigned
                                  ? Value(arith::MinUIOp::create(nb, nl, v, c))
                                  : Value(arith::MinSIOp::create(nb, nl, v, c));
                        }
                      }
                    }
                  }
                  return convertScalar(nb, nl, v, isUnsigned, resultElem,
                                       resultUnsigned);
                }));
    return success();
  }
};

/// AvgPool: the f64 sum over the zero-padded window divided by a constant
/// per output position (the input elements in the window, or with
/// count_include_pad the elements inside the explicit padding; 0 gives 0),
/// as the interpreter computes it.
struct AvgPoolLowering : OpConversionPattern<top::AvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::AvgPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value in = adaptor.getInput();
    if (failed(checkPoolForm(op, in, rewriter)))
      return failure();
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = getContext();
    bool channelsLast = op.getLayout() == top::Layout::NHWC;
    int64_t rank = shapeOf(in).size(), r = rank - 2;
    Type inElem = elemOf(in);
    if (channelsLast)
      in = transposed(b, l, in, toChannelsFirstPerm(rank));
    Type f64 = b.getF64Type();
    Value x = convertTensor(b, l, in, isUnsignedElement(op.getInput()), f64);
    SmallVector<int64_t> outShape(type->getShape());
    if (channelsLast)
      outShape = channelsFirstShape(outShape);
    ArrayRef<int64_t> inShape = shapeOf(x), kernel = op.getKernelShape();
    SmallVector<int64_t> strides = op.getStridesOrDefault(),
                         dil = op.getDilationsOrDefault(),
                         pads = op.getPadsOrDefault(), low, high;
    windowPads(inShape.drop_front(2), ArrayRef(outShape).drop_front(2), kernel,
               strides, dil, pads, low, high);
    x = padded(b, l, x, low, high, scalarConstant(b, l, f64, 0.0));
    Value acc = windowReduce(b, l, x, zeros(b, l, outShape, f64), kernel,
                             strides, dil, WindowKind::Sum);
    // The divisor of every output position.
    ArrayRef<int64_t> outSpatial = ArrayRef(outShape).drop_front(2);
    int64_t positions = 1, kn = 1;
    for (int64_t d = 0; d < r; ++d) {
      positions *= outSpatial[d];
      kn *= kernel[d];
    }
    bool includePad = op.getCountIncludePad();
    SmallVector<double> divisors;
    SmallVector<int64_t> o(r), kIdx(r);
    for (int64_t p = 0; p < positions; ++p) {
      int64_t rem = p;
      for (int64_t d = r - 1; d >= 0; --d) {
        o[d] = rem % outSpatial[d];
        rem /= outSpatial[d];
      }
      int64_t count = 0, padCount = 0;
      for (int64_t k = 0; k < kn; ++k) {
        int64_t krem = k;
        bool inside = true, inPadded = true;
        for (int64_t d = r - 1; d >= 0; --d) {
          int64_t kd = krem % kernel[d];
          krem /= kernel[d];
          int64_t xi = o[d] * strides[d] + kd * dil[d] - pads[d];
          int64_t size = inShape[2 + d];
          inside = inside && xi >= 0 && xi < size;
          inPadded = inPadded && xi >= -pads[d] && xi < size + pads[d + r];
        }
        count += inside;
        padCount += inPadded;
      }
      divisors.push_back(static_cast<double>(includePad ? padCount : count));
    }
    auto divType = tensorType(outSpatial, f64);
    Value div = arith::ConstantOp::create(
        b, l, divType, DenseFPElementsAttr::get(divType, divisors));
    SmallVector<AffineExpr> divExprs;
    for (int64_t d = 0; d < r; ++d)
      divExprs.push_back(getAffineDimExpr(2 + d, ctx));
    AffineMap divMap = AffineMap::get(rank, 0, divExprs, ctx);
    bool doRelu = op.getDoRelu();
    double limit = op.getReluLimit().convertToDouble();
    // f32 and the narrower floats are stored as f32 before the relu.
    bool viaF32 = isa<FloatType>(inElem) && !inElem.isF64();
    bool resultUnsigned = isUnsignedElement(op.getOutput());
    Type resultElem = type->getElementType();
    rewriter.replaceOp(
        op, channelEpilogue(
                b, l, *type, channelsLast, acc, {{div, divMap}},
                [&](OpBuilder &nb, Location nl, Value v, ValueRange xs) {
                  Value zero = scalarConstant(nb, nl, f64, 0.0);
                  Value isZero = arith::CmpFOp::create(
                      nb, nl, arith::CmpFPredicate::OEQ, xs[0], zero);
                  Value q = arith::DivFOp::create(nb, nl, v, xs[0]);
                  v = arith::SelectOp::create(nb, nl, isZero, zero, q);
                  if (viaF32)
                    v = arith::TruncFOp::create(nb, nl, nb.getF32Type(), v);
                  if (doRelu)
                    v = reluWithLimit(nb, nl, v, limit);
                  return convertScalar(nb, nl, v, false, resultElem,
                                       resultUnsigned);
                }));
    return success();
  }
};

/// GlobalAvgPool: the f64 mean over the spatial dims (0 for an empty plane).
struct GlobalAvgPoolLowering : OpConversionPattern<top::GlobalAvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::GlobalAvgPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value in = adaptor.getInput();
    if (!hasStaticShape(in) || shapeOf(in).size() < 2)
      return rewriter.notifyMatchFailure(op, "input is not a static tensor of "
                                             "rank >= 2");
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = getContext();
    bool channelsLast = op.getLayout() == top::Layout::NHWC;
    int64_t rank = shapeOf(in).size();
    if (channelsLast)
      in = transposed(b, l, in, toChannelsFirstPerm(rank));
    Type f64 = b.getF64Type();
    ArrayRef<int64_t> shape = shapeOf(in);
    int64_t plane = 1;
    for (int64_t d = 2; d < rank; ++d)
      plane *= shape[d];
    Value init = zeros(b, l, shape.take_front(2), f64);
    bool isUnsigned = isUnsignedElement(op.getInput());
    SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
    iters.append(rank - 2, utils::IteratorType::reduction);
    SmallVector<AffineMap> maps{
        AffineMap::getMultiDimIdentityMap(rank, ctx),
        AffineMap::get(rank, 0,
                       {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)},
                       ctx)};
    Value sum =
        linalg::GenericOp::create(
            b, l, TypeRange{init.getType()}, ValueRange{in}, ValueRange{init},
            maps, iters,
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value v = convertScalar(nb, nl, args[0], isUnsigned, f64, false);
              Value sum = arith::AddFOp::create(nb, nl, args[1], v);
              linalg::YieldOp::create(nb, nl, sum);
            })
            .getResult(0);
    // The result is N x C x 1.. (or N x 1.. x C): read the sum at (n, c).
    int64_t outRank = type->getRank();
    AffineMap sumMap =
        AffineMap::get(outRank, 0,
                       {getAffineDimExpr(0, ctx),
                        getAffineDimExpr(channelsLast ? outRank - 1 : 1, ctx)},
                       ctx);
    bool resultUnsigned = isUnsignedElement(op.getOutput());
    Type resultElem = type->getElementType();
    Value divisor = scalarConstant(b, l, f64, static_cast<double>(plane));
    SmallVector<utils::IteratorType> outIters(outRank,
                                              utils::IteratorType::parallel);
    Value r =
        linalg::GenericOp::create(
            b, l, TypeRange{*type}, ValueRange{sum},
            ValueRange{emptyTensor(b, l, *type)},
            ArrayRef<AffineMap>{
                sumMap, AffineMap::getMultiDimIdentityMap(outRank, ctx)},
            outIters,
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value v =
                  plane ? Value(arith::DivFOp::create(nb, nl, args[0], divisor))
                        : scalarConstant(nb, nl, f64, 0.0);
              linalg::YieldOp::create(
                  nb, nl,
                  convertScalar(nb, nl, v, false, resultElem, resultUnsigned));
            })
            .getResult(0);
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// MaxPoolIndices, MaxUnpool, LRN
//===----------------------------------------------------------------------===//

/// MaxPoolIndices: one reduction generic with two results (the best value so
/// far and its flat index), the first maximum in window order winning, and
/// positions outside the input skipped by index arithmetic. A window without
/// any input element (the interpreter's run-time error) gives -1.
struct MaxPoolIndicesLowering : OpConversionPattern<top::MaxPoolIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::MaxPoolIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value in = adaptor.getInput();
    if (!hasStaticShape(in) || shapeOf(in).size() != 4)
      return rewriter.notifyMatchFailure(op, "input is not a static 4-d "
                                             "tensor");
    ArrayRef<int64_t> k = op.getKernelShape(), st = op.getStrides(),
                      dl = op.getDilations(), pads = op.getPads();
    if (k.size() != 2 || st.size() != 2 || dl.size() != 2 || pads.size() != 4)
      return rewriter.notifyMatchFailure(op, "window attributes have the "
                                             "wrong size");
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = getContext();
    bool isUnsigned = isUnsignedElement(op.getInput());
    Type elem = elemOf(in);
    Type cmpType =
        isa<FloatType>(elem) && !elem.isF64() ? b.getF32Type() : elem;
    ArrayRef<int64_t> inShape = shapeOf(in);
    int64_t C = inShape[1], H = inShape[2], W = inShape[3];
    ArrayRef<int64_t> outShape = type->getShape();
    // Pad so every window position is addressable; padding is never chosen.
    SmallVector<int64_t> low, high;
    windowPads(inShape.drop_front(2), outShape.drop_front(2), k, st, dl,
               {pads[0], pads[1], pads[2], pads[3]}, low, high);
    Value x = padded(b, l, in, low, high, scalarConstant(b, l, elem, 0.0));
    SmallVector<AffineExpr> inE{getAffineDimExpr(0, ctx),
                                getAffineDimExpr(1, ctx)},
        winE, outE{getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)};
    for (int64_t d = 0; d < 2; ++d) {
      AffineExpr y = getAffineDimExpr(2 + d, ctx),
                 kk = getAffineDimExpr(4 + d, ctx);
      inE.push_back(y * st[d] + kk * dl[d]);
      winE.push_back(kk);
      outE.push_back(y);
    }
    AffineMap outMap = AffineMap::get(6, 0, outE, ctx);
    SmallVector<AffineMap> maps{AffineMap::get(6, 0, inE, ctx),
                                AffineMap::get(6, 0, winE, ctx), outMap,
                                outMap};
    SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
    iters.append(2, utils::IteratorType::reduction);
    Value bestInit = zeros(b, l, outShape, cmpType);
    Value idxInit = filled(b, l, outShape, b.getI64Type(),
                           scalarConstant(b, l, b.getI64Type(), -1.0));
    Value window = emptyTensor(b, l, tensorType(k, cmpType));
    bool columnMajor = op.getStorageOrder() == 1;
    auto g = linalg::GenericOp::create(
        b, l, TypeRange{bestInit.getType(), idxInit.getType()},
        ValueRange{x, window}, ValueRange{bestInit, idxInit}, maps, iters,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Type i64 = nb.getI64Type();
          auto idx = [&](int64_t d) -> Value {
            Value i = linalg::IndexOp::create(nb, nl, d);
            return arith::IndexCastOp::create(nb, nl, i64, i);
          };
          auto c = [&](int64_t v) {
            return scalarConstant(nb, nl, i64, static_cast<double>(v));
          };
          auto mul = [&](Value u, Value v) -> Value {
            return arith::MulIOp::create(nb, nl, u, v);
          };
          auto add = [&](Value u, Value v) -> Value {
            return arith::AddIOp::create(nb, nl, u, v);
          };
          auto cmp = [&](arith::CmpIPredicate p, Value u, Value v) -> Value {
            return arith::CmpIOp::create(nb, nl, p, u, v);
          };
          // h = oh*s - pad + kh*d, w likewise.
          Value h = add(add(mul(idx(2), c(st[0])), c(-pads[0])),
                        mul(idx(4), c(dl[0])));
          Value w = add(add(mul(idx(3), c(st[1])), c(-pads[1])),
                        mul(idx(5), c(dl[1])));
          Value inside = arith::AndIOp::create(
              nb, nl,
              arith::AndIOp::create(nb, nl,
                                    cmp(arith::CmpIPredicate::sge, h, c(0)),
                                    cmp(arith::CmpIPredicate::slt, h, c(H))),
              arith::AndIOp::create(nb, nl,
                                    cmp(arith::CmpIPredicate::sge, w, c(0)),
                                    cmp(arith::CmpIPredicate::slt, w, c(W))));
          Value v = convertScalar(nb, nl, args[0], isUnsigned, cmpType, false);
          Value best = args[2], bestIdx = args[3];
          Value greater;
          if (isa<FloatType>(cmpType))
            greater = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT,
                                            v, best);
          else
            greater =
                arith::CmpIOp::create(nb, nl,
                                      isUnsigned ? arith::CmpIPredicate::ugt
                                                 : arith::CmpIPredicate::sgt,
                                      v, best);
          Value none = cmp(arith::CmpIPredicate::slt, bestIdx, c(0));
          Value take = arith::AndIOp::create(
              nb, nl, inside, arith::OrIOp::create(nb, nl, none, greater));
          Value plane = add(mul(idx(0), c(C)), idx(1));
          Value flat = columnMajor
                           ? add(mul(plane, c(H * W)), add(mul(w, c(H)), h))
                           : add(mul(plane, c(H * W)), add(mul(h, c(W)), w));
          linalg::YieldOp::create(
              nb, nl,
              ValueRange{arith::SelectOp::create(nb, nl, take, v, best),
                         arith::SelectOp::create(nb, nl, take, flat, bestIdx)});
        });
    rewriter.replaceOp(op, g.getResult(1));
    return success();
  }
};

/// MaxUnpool: a zero result into which a loop over the input elements writes
/// `input[p]` at flat position `indices[p]`. An index outside the result
/// (the interpreter's run-time error) is skipped.
struct MaxUnpoolLowering : OpConversionPattern<top::MaxUnpoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::MaxUnpoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value in = adaptor.getInput(), indices = adaptor.getIndices();
    if (!hasStaticShape(in) || !hasStaticShape(indices) ||
        shapeOf(in) != shapeOf(indices))
      return rewriter.notifyMatchFailure(op, "input and indices are not "
                                             "static tensors of one shape");
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    Type elem = type->getElementType();
    if (elemOf(in) != elem)
      return rewriter.notifyMatchFailure(op, "element types differ");
    int64_t total = type->getNumElements();
    int64_t count = cast<RankedTensorType>(in.getType()).getNumElements();
    Value flatIn = reshapeTo(b, l, in, {count});
    Value flatIdx = reshapeTo(b, l, indices, {count});
    bool idxUnsigned = isUnsignedElement(op.getIndices());
    Value out = zeros(b, l, {total}, elem);
    Value lb = arith::ConstantIndexOp::create(b, l, 0);
    Value ub = arith::ConstantIndexOp::create(b, l, count);
    Value step = arith::ConstantIndexOp::create(b, l, 1);
    auto loop = scf::ForOp::create(
        b, l, lb, ub, step, ValueRange{out},
        [&](OpBuilder &nb, Location nl, Value i, ValueRange iter) {
          Value at = tensor::ExtractOp::create(nb, nl, flatIdx, ValueRange{i});
          Type i64 = nb.getI64Type();
          at = convertScalar(nb, nl, at, idxUnsigned, i64, false);
          Value zero = scalarConstant(nb, nl, i64, 0.0);
          Value limit = scalarConstant(nb, nl, i64, static_cast<double>(total));
          Value ge = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge,
                                           at, zero);
          Value lt = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt,
                                           at, limit);
          // A huge unsigned i64 index reads as negative: skipped too.
          Value ok = arith::AndIOp::create(nb, nl, ge, lt);
          auto ifOp = scf::IfOp::create(
              nb, nl, ok,
              [&](OpBuilder &tb, Location tl) {
                Value v =
                    tensor::ExtractOp::create(tb, tl, flatIn, ValueRange{i});
                Value pos =
                    arith::IndexCastOp::create(tb, tl, tb.getIndexType(), at);
                Value upd = tensor::InsertOp::create(tb, tl, v, iter[0],
                                                     ValueRange{pos});
                scf::YieldOp::create(tb, tl, upd);
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, iter[0]);
              });
          scf::YieldOp::create(nb, nl, ifOp.getResult(0));
        });
    rewriter.replaceOp(op,
                       reshapeTo(b, l, loop.getResult(0), type->getShape()));
    return success();
  }
};

/// LRN in f64 as the interpreter computes it: squares, padded with zeros
/// along the channels, summed over a window of `size` channels, then
/// `x / pow(bias + alpha / size * sum, beta)`.
struct LRNLowering : OpConversionPattern<top::LRNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value in = adaptor.getInput();
    int64_t size = op.getSize();
    if (!hasStaticShape(in) || shapeOf(in).size() < 2 || size < 1)
      return rewriter.notifyMatchFailure(op, "input is not a static tensor of "
                                             "rank >= 2 or size < 1");
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = getContext();
    Type f64 = b.getF64Type();
    int64_t rank = shapeOf(in).size();
    Value x = convertTensor(b, l, in, isUnsignedElement(op.getInput()), f64);
    Value sq = buildElementwise(
        b, l, tensorType(shapeOf(x), f64), {x},
        [](OpBuilder &nb, Location nl, ValueRange xs, Type) -> Value {
          return arith::MulFOp::create(nb, nl, xs[0], xs[0]);
        });
    int64_t before = (size - 1) / 2, after = size - 1 - before;
    SmallVector<int64_t> low(rank, 0), high(rank, 0);
    low[1] = before;
    high[1] = after;
    sq = padded(b, l, sq, low, high, scalarConstant(b, l, f64, 0.0));
    // Loops: the input dims, then the channel window i (reduction).
    int64_t loops = rank + 1;
    SmallVector<AffineExpr> sqE, outE;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr e = getAffineDimExpr(d, ctx);
      sqE.push_back(d == 1 ? e + getAffineDimExpr(rank, ctx) : e);
      outE.push_back(e);
    }
    SmallVector<AffineMap> maps{
        AffineMap::get(loops, 0, sqE, ctx),
        AffineMap::get(loops, 0, getAffineDimExpr(rank, ctx), ctx),
        AffineMap::get(loops, 0, outE, ctx)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    Value init = zeros(b, l, shapeOf(x), f64);
    Value window = emptyTensor(b, l, tensorType({size}, f64));
    Value sum =
        linalg::GenericOp::create(
            b, l, TypeRange{init.getType()}, ValueRange{sq, window},
            ValueRange{init}, maps, iters,
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nl,
                  Value(arith::AddFOp::create(nb, nl, args[2], args[0])));
            })
            .getResult(0);
    double alpha = op.getAlpha().convertToDouble(),
           beta = op.getBeta().convertToDouble(),
           bias = op.getBias().convertToDouble();
    bool resultUnsigned = isUnsignedElement(op.getOutput());
    Value r = buildElementwise(
        b, l, *type, {x, sum},
        [&](OpBuilder &nb, Location nl, ValueRange xs, Type t) -> Value {
          Value scaled = arith::MulFOp::create(
              nb, nl, scalarConstant(nb, nl, f64, alpha / size), xs[1]);
          Value base = arith::AddFOp::create(
              nb, nl, scalarConstant(nb, nl, f64, bias), scaled);
          Value p = math::PowFOp::create(nb, nl, base,
                                         scalarConstant(nb, nl, f64, beta));
          Value y = arith::DivFOp::create(nb, nl, xs[0], p);
          return convertScalar(nb, nl, y, false, t, resultUnsigned);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// DeformConv in f64 as the interpreter computes it: a generic builds the
/// sampled columns `N x C x kH x kW x oH x oW` (each tap's bilinear sample
/// at its offset position, zero outside the image, times the mask), a
/// grouped contraction with the filter follows, then the bias.
struct DeformConvLowering : OpConversionPattern<top::DeformConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::DeformConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    Value in = adaptor.getInput(), w = adaptor.getFilter(),
          off = adaptor.getOffset(), bias = adaptor.getBias(),
          mask = adaptor.getMask();
    bool hasBias = !isNone(op.getBias()), hasMask = !isNone(op.getMask());
    if (!hasStaticShape(in) || !hasStaticShape(w) || !hasStaticShape(off) ||
        (hasBias && !hasStaticShape(bias)) ||
        (hasMask && !hasStaticShape(mask)))
      return rewriter.notifyMatchFailure(op, "operand shapes are not static");
    if (shapeOf(in).size() != 4 || shapeOf(w).size() != 4 ||
        shapeOf(off).size() != 4 || type->getRank() != 4)
      return rewriter.notifyMatchFailure(op, "operands are not 4-d");
    auto orDefault = [](std::optional<ArrayRef<int64_t>> a, size_t n,
                        int64_t v) {
      return a ? SmallVector<int64_t>(*a) : SmallVector<int64_t>(n, v);
    };
    SmallVector<int64_t> st = orDefault(op.getStrides(), 2, 1),
                         pads = orDefault(op.getPads(), 4, 0),
                         dil = orDefault(op.getDilations(), 2, 1);
    if (st.size() != 2 || pads.size() != 4 || dil.size() != 2)
      return rewriter.notifyMatchFailure(op, "window attributes have the "
                                             "wrong size");
    Location l = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = getContext();
    Type f64 = b.getF64Type();
    ArrayRef<int64_t> inShape = shapeOf(in), wShape = shapeOf(w);
    int64_t n = inShape[0], c = inShape[1], h = inShape[2], wd = inShape[3];
    int64_t m = wShape[0], cpg = wShape[1], kh = wShape[2], kw = wShape[3];
    int64_t group = op.getGroup(), og = op.getOffsetGroup();
    if (group < 1 || og < 1 || c % group || m % group || c % og ||
        cpg * group != c)
      return rewriter.notifyMatchFailure(op, "channels do not match the "
                                             "groups");
    int64_t mpg = m / group, cpog = c / og, taps = kh * kw;
    int64_t oh = type->getDimSize(2), ow = type->getDimSize(3);
    Value x = convertTensor(b, l, in, isUnsignedElement(op.getInput()), f64);
    Value wf = convertTensor(b, l, w, isUnsignedElement(op.getFilter()), f64);
    Value offf =
        convertTensor(b, l, off, isUnsignedElement(op.getOffset()), f64);
    Value maskf = hasMask ? convertTensor(b, l, mask,
                                          isUnsignedElement(op.getMask()), f64)
                          : Value();

    SmallVector<int64_t> sShape{n, c, kh, kw, oh, ow};
    Value samples;
    if (h == 0 || wd == 0) {
      samples = zeros(b, l, sShape, f64);
    } else {
      auto sType = tensorType(sShape, f64);
      SmallVector<utils::IteratorType> iters(6, utils::IteratorType::parallel);
      samples =
          linalg::GenericOp::create(
              b, l, TypeRange{sType}, ValueRange{},
              ValueRange{emptyTensor(b, l, sType)},
              ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(6, ctx)},
              iters,
              [&](OpBuilder &nb, Location nl, ValueRange) {
                Type i64 = nb.getI64Type();
                auto idx = [&](int64_t d) -> Value {
                  return linalg::IndexOp::create(nb, nl, d);
                };
                auto cI = [&](int64_t v) -> Value {
                  return arith::ConstantIndexOp::create(nb, nl, v);
                };
                auto cF = [&](double v) {
                  return scalarConstant(nb, nl, f64, v);
                };
                auto addI = [&](Value u, Value v) -> Value {
                  return arith::AddIOp::create(nb, nl, u, v);
                };
                auto mulI = [&](Value u, Value v) -> Value {
                  return arith::MulIOp::create(nb, nl, u, v);
                };
                auto cmpF = [&](arith::CmpFPredicate p, Value u, Value v) {
                  return Value(arith::CmpFOp::create(nb, nl, p, u, v));
                };
                auto andI = [&](Value u, Value v) -> Value {
                  return arith::AndIOp::create(nb, nl, u, v);
                };
                Value bi = idx(0), ci = idx(1), a = idx(2), e = idx(3),
                      i = idx(4), j = idx(5);
                Value ogi = arith::DivUIOp::create(nb, nl, ci, cI(cpog));
                Value t = addI(mulI(a, cI(kw)), e);
                Value offCh = addI(mulI(ogi, cI(taps * 2)), mulI(t, cI(2)));
                Value dy = tensor::ExtractOp::create(
                    nb, nl, offf, ValueRange{bi, offCh, i, j});
                Value dx = tensor::ExtractOp::create(
                    nb, nl, offf, ValueRange{bi, addI(offCh, cI(1)), i, j});
                // The tap's position: i*s - pad + a*d (exact in f64) + offset.
                auto base = [&](Value o, Value k, int64_t s, int64_t p,
                                int64_t d) -> Value {
                  Value v = addI(mulI(o, cI(s)), mulI(k, cI(d)));
                  Value vi = arith::IndexCastOp::create(nb, nl, i64, v);
                  vi = arith::SubIOp::create(
                      nb, nl, vi,
                      scalarConstant(nb, nl, i64, static_cast<double>(p)));
                  return arith::SIToFPOp::create(nb, nl, f64, vi);
                };
                Value y = arith::AddFOp::create(
                    nb, nl, base(i, a, st[0], pads[0], dil[0]), dy);
                Value xx = arith::AddFOp::create(
                    nb, nl, base(j, e, st[1], pads[1], dil[1]), dx);
                // Non-finite positions fail these ordered comparisons.
                Value valid =
                    andI(andI(cmpF(arith::CmpFPredicate::OGT, y, cF(-1)),
                              cmpF(arith::CmpFPredicate::OGT, xx, cF(-1))),
                         andI(cmpF(arith::CmpFPredicate::OLT, y,
                                   cF(static_cast<double>(h))),
                              cmpF(arith::CmpFPredicate::OLT, xx,
                                   cF(static_cast<double>(wd)))));
                Value ys = arith::SelectOp::create(nb, nl, valid, y, cF(0));
                Value xs = arith::SelectOp::create(nb, nl, valid, xx, cF(0));
                Value fy = math::FloorOp::create(nb, nl, ys);
                Value fx = math::FloorOp::create(nb, nl, xs);
                Value y0 = arith::FPToSIOp::create(nb, nl, i64, fy);
                Value x0 = arith::FPToSIOp::create(nb, nl, i64, fx);
                Value ly = arith::SubFOp::create(nb, nl, ys, fy);
                Value lx = arith::SubFOp::create(nb, nl, xs, fx);
                Value one = cF(1.0);
                Value hy[2] = {arith::SubFOp::create(nb, nl, one, ly), ly};
                Value hx[2] = {arith::SubFOp::create(nb, nl, one, lx), lx};
                Value v = cF(0.0);
                auto cmpI = [&](arith::CmpIPredicate p, Value u, int64_t k) {
                  return Value(arith::CmpIOp::create(
                      nb, nl, p, u,
                      scalarConstant(nb, nl, i64, static_cast<double>(k))));
                };
                auto clampIdx = [&](Value u, int64_t size) -> Value {
                  Value lo = scalarConstant(nb, nl, i64, 0.0);
                  Value hi = scalarConstant(nb, nl, i64,
                                            static_cast<double>(size - 1));
                  Value r = arith::MaxSIOp::create(nb, nl, u, lo);
                  r = arith::MinSIOp::create(nb, nl, r, hi);
                  return arith::IndexCastOp::create(nb, nl, nb.getIndexType(),
                                                    r);
                };
                for (int64_t py = 0; py < 2; ++py)
                  for (int64_t px = 0; px < 2; ++px) {
                    Value yy = arith::AddIOp::create(
                        nb, nl, y0, scalarConstant(nb, nl, i64, py));
                    Value xi = arith::AddIOp::create(
                        nb, nl, x0, scalarConstant(nb, nl, i64, px));
                    Value wt = arith::MulFOp::create(nb, nl, hy[py], hx[px]);
                    Value inb = andI(
                        andI(valid,
                             andI(cmpI(arith::CmpIPredicate::sge, yy, 0),
                                  cmpI(arith::CmpIPredicate::slt, yy, h))),
                        andI(andI(cmpI(arith::CmpIPredicate::sge, xi, 0),
                                  cmpI(arith::CmpIPredicate::slt, xi, wd)),
                             cmpF(arith::CmpFPredicate::UNE, wt, cF(0.0))));
                    Value pv = tensor::ExtractOp::create(
                        nb, nl, x,
                        ValueRange{bi, ci, clampIdx(yy, h), clampIdx(xi, wd)});
                    Value sum = arith::AddFOp::create(
                        nb, nl, v, arith::MulFOp::create(nb, nl, wt, pv));
                    v = arith::SelectOp::create(nb, nl, inb, sum, v);
                  }
                if (hasMask) {
                  Value mch = addI(mulI(ogi, cI(taps)), t);
                  Value mv = tensor::ExtractOp::create(
                      nb, nl, maskf, ValueRange{bi, mch, i, j});
                  v = arith::MulFOp::create(nb, nl, v, mv);
                }
                linalg::YieldOp::create(nb, nl, v);
              })
              .getResult(0);
    }

    // Grouped contraction: loops n, g, o, i, j, c, a, e.
    auto dim = [&](int64_t k) { return getAffineDimExpr(k, ctx); };
    Value sG = tensor::ExpandShapeOp::create(
        b, l, tensorType({n, group, cpg, kh, kw, oh, ow}, f64), samples,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}, {5}, {6}});
    Value wG = tensor::ExpandShapeOp::create(
        b, l, tensorType({group, mpg, cpg, kh, kw}, f64), wf,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    Value initG = zeros(b, l, {n, group, mpg, oh, ow}, f64);
    SmallVector<AffineMap> maps{
        AffineMap::get(8, 0,
                       {dim(0), dim(1), dim(5), dim(6), dim(7), dim(3), dim(4)},
                       ctx),
        AffineMap::get(8, 0, {dim(1), dim(2), dim(5), dim(6), dim(7)}, ctx),
        AffineMap::get(8, 0, {dim(0), dim(1), dim(2), dim(3), dim(4)}, ctx)};
    SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
    iters.append(3, utils::IteratorType::reduction);
    Value accG =
        linalg::GenericOp::create(
            b, l, TypeRange{initG.getType()}, ValueRange{sG, wG},
            ValueRange{initG}, maps, iters,
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value p = arith::MulFOp::create(nb, nl, args[0], args[1]);
              linalg::YieldOp::create(
                  nb, nl, Value(arith::AddFOp::create(nb, nl, args[2], p)));
            })
            .getResult(0);
    Value acc = tensor::CollapseShapeOp::create(
        b, l, tensorType({n, m, oh, ow}, f64), accG,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    rewriter.replaceOp(op, convEpilogue(b, l, acc, bias, op.getBias(), *type,
                                        isUnsignedElement(op.getOutput()),
                                        /*channelsLast=*/false, Epilogue()));
    return success();
  }
};

} // namespace

void populateTopToLinalgLinearPatterns(const TopTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConvLowering, DeconvLowering, MatMulLowering, MaxPoolLowering,
               AvgPoolLowering, GlobalAvgPoolLowering, MaxPoolIndicesLowering,
               MaxUnpoolLowering, LRNLowering, DeformConvLowering>(converter,
                                                                   ctx);
}

} // namespace strata::conversion
