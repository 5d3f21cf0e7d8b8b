//===- Recurrent.cpp - top.LSTM, top.GRU, top.RNN to scf.for + linalg -----===//
//
// Each direction becomes one scf.for over the time steps carrying the hidden
// state (and the LSTM cell state) as [N, H] tensors and the Y result. A step
// extracts X_t ([N, I], either layout), computes the input and recurrence
// products with linalg.matmul against W^T and R^T (transposed once, outside
// the loop; the biases are the matmuls' initial values) and the gates with
// linalg.generic ops of arith/math, then writes Y_t and keeps the new states
// where the step is inside the batch entry's sequence. As the reference
// interpreter (lib/Dialect/Top/IR/RecurrentOps.cpp), everything is computed
// in f32 and the results are converted to the result element type.
//
// Sequence lengths outside [0, S] (an interpreter error) are clamped into
// it: generated code never fails at run time (docs/codegen-control-flow.md).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace strata::conversion {
namespace {

using top::RnnActivation;
using top::RnnDirection;

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// One resolved activation function.
struct Act {
  RnnActivation kind;
  double alpha, beta;
};

/// The ONNX default alpha / beta of `kind` (NaN: an explicit value is
/// needed), as the interpreter's table.
std::pair<double, double> defaultAlphaBeta(RnnActivation kind) {
  double needed = std::nan("");
  switch (kind) {
  case RnnActivation::Affine:
  case RnnActivation::ScaledTanh:
    return {needed, needed};
  case RnnActivation::LeakyRelu:
    return {0.01, 0};
  case RnnActivation::ThresholdedRelu:
    return {1.0, 0};
  case RnnActivation::HardSigmoid:
    return {0.2, 0.5};
  case RnnActivation::Elu:
    return {1.0, 0};
  default:
    return {0, 0};
  }
}

/// `act(x)` for an f32 scalar, as the interpreter's `Activation`.
Value applyAct(OpBuilder &b, Location l, const Act &a, Value x) {
  Type f32 = b.getF32Type();
  auto c = [&](double v) { return scalarConstant(b, l, f32, v); };
  auto ge = [&](Value u, Value v) {
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, u, v);
  };
  switch (a.kind) {
  case RnnActivation::Relu:
    return arith::MaximumFOp::create(b, l, x, c(0));
  case RnnActivation::Tanh:
    return math::TanhOp::create(b, l, x);
  case RnnActivation::Sigmoid: {
    Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
    return arith::DivFOp::create(b, l, c(1),
                                 arith::AddFOp::create(b, l, c(1), e));
  }
  case RnnActivation::Affine:
    return arith::AddFOp::create(
        b, l, arith::MulFOp::create(b, l, c(a.alpha), x), c(a.beta));
  case RnnActivation::LeakyRelu:
    return arith::SelectOp::create(b, l, ge(x, c(0)), x,
                                   arith::MulFOp::create(b, l, c(a.alpha), x));
  case RnnActivation::ThresholdedRelu:
    return arith::SelectOp::create(b, l, ge(x, c(a.alpha)), x, c(0));
  case RnnActivation::ScaledTanh: {
    Value t =
        math::TanhOp::create(b, l, arith::MulFOp::create(b, l, c(a.beta), x));
    return arith::MulFOp::create(b, l, c(a.alpha), t);
  }
  case RnnActivation::HardSigmoid: {
    Value v = arith::AddFOp::create(
        b, l, arith::MulFOp::create(b, l, c(a.alpha), x), c(a.beta));
    return arith::MinimumFOp::create(
        b, l, arith::MaximumFOp::create(b, l, v, c(0)), c(1));
  }
  case RnnActivation::Elu: {
    Value em1 = arith::SubFOp::create(b, l, math::ExpOp::create(b, l, x), c(1));
    return arith::SelectOp::create(
        b, l, ge(x, c(0)), x, arith::MulFOp::create(b, l, c(a.alpha), em1));
  }
  case RnnActivation::Softsign: {
    Value d = arith::AddFOp::create(b, l, c(1), math::AbsFOp::create(b, l, x));
    return arith::DivFOp::create(b, l, x, d);
  }
  case RnnActivation::Softplus: {
    Value sp = math::Log1pOp::create(b, l, math::ExpOp::create(b, l, x));
    Value big =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, c(20));
    return arith::SelectOp::create(b, l, big, x, sp);
  }
  }
  return x;
}

//===----------------------------------------------------------------------===//
// The shared driver
//===----------------------------------------------------------------------===//

enum class Cell { Lstm, Gru, Rnn };

/// The operands (converted) and attributes of a recurrent op.
struct Recurrent {
  Cell cell;
  int64_t gates;
  Value x, w, r, bias, seqLens, h0, c0 = {},
                                    peepholes = {}; ///< null when absent
  bool seqLensUnsigned = false;
  int64_t hidden = 0, layout = 0;
  RnnDirection direction = {};
  std::optional<ArrayAttr> activations = std::nullopt;
  std::optional<ArrayRef<double>> alpha = std::nullopt, beta = std::nullopt;
  std::optional<double> clip = std::nullopt;
  bool inputForget = false, linearBeforeReset = false;
};

/// The converted value of optional operand `orig` (null if `none`).
Value optional(Value orig, Value converted) {
  return isNone(orig) ? Value() : converted;
}

Recurrent viewOf(top::LSTMOp op, top::LSTMOp::Adaptor a) {
  Recurrent v{Cell::Lstm,
              4,
              a.getInput(),
              a.getWeight(),
              a.getRecurrence(),
              optional(op.getBias(), a.getBias()),
              optional(op.getSequenceLens(), a.getSequenceLens()),
              optional(op.getInitialH(), a.getInitialH()),
              optional(op.getInitialC(), a.getInitialC()),
              optional(op.getPeepholes(), a.getPeepholes())};
  v.inputForget = op.getInputForget();
  return v;
}

Recurrent viewOf(top::GRUOp op, top::GRUOp::Adaptor a) {
  Recurrent v{Cell::Gru,
              3,
              a.getInput(),
              a.getWeight(),
              a.getRecurrence(),
              optional(op.getBias(), a.getBias()),
              optional(op.getSequenceLens(), a.getSequenceLens()),
              optional(op.getInitialH(), a.getInitialH())};
  v.linearBeforeReset = op.getLinearBeforeReset();
  return v;
}

Recurrent viewOf(top::RNNOp op, top::RNNOp::Adaptor a) {
  return {Cell::Rnn,
          1,
          a.getInput(),
          a.getWeight(),
          a.getRecurrence(),
          optional(op.getBias(), a.getBias()),
          optional(op.getSequenceLens(), a.getSequenceLens()),
          optional(op.getInitialH(), a.getInitialH())};
}

/// Builds the lowering of one recurrent op.
class RecurrentBuilder {
public:
  RecurrentBuilder(OpBuilder &b, Location loc, const Recurrent &v,
                   ArrayRef<Act> acts, int64_t S, int64_t N, int64_t I,
                   int64_t D)
      : b(b), loc(loc), v(v), acts(acts), S(S), N(N), I(I), D(D), H(v.hidden),
        GH(v.gates * v.hidden), f32(b.getF32Type()) {}

  /// Y, Y_h (and Y_c) in f32, of the result shapes.
  SmallVector<Value> build();

private:
  OpBuilder &b;
  Location loc;
  const Recurrent &v;
  ArrayRef<Act> acts;
  int64_t S, N, I, D, H, GH;
  Type f32;

  RankedTensorType type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, f32);
  }
  OpFoldResult idx(int64_t i) { return b.getIndexAttr(i); }

  /// `v` with f32 elements.
  Value toF32(Value x) {
    auto t = cast<RankedTensorType>(x.getType());
    if (t.getElementType() == f32)
      return x;
    return buildElementwise(
        b, loc, type(t.getShape()), {x},
        [&](OpBuilder &ob, Location l, ValueRange s, Type) -> Value {
          if (s[0].getType().getIntOrFloatBitWidth() < 32)
            return arith::ExtFOp::create(ob, l, f32, s[0]);
          return arith::TruncFOp::create(ob, l, f32, s[0]);
        });
  }
  Value zeros(ArrayRef<int64_t> shape) {
    Value zero = scalarConstant(b, loc, f32, 0);
    return linalg::FillOp::create(b, loc, ValueRange{zero},
                                  ValueRange{emptyTensor(b, loc, type(shape))})
        .getResult(0);
  }
  /// The rank-reduced slice of `src` with `offsets` / `sizes` (unit dims
  /// dropped), of type `result`.
  Value slice(Value src, ArrayRef<OpFoldResult> offsets,
              ArrayRef<int64_t> sizes, ArrayRef<int64_t> result) {
    SmallVector<OpFoldResult> sz, strides(sizes.size(), idx(1));
    for (int64_t s : sizes)
      sz.push_back(idx(s));
    return tensor::ExtractSliceOp::create(b, loc, type(result), src, offsets,
                                          sz, strides);
  }
  /// `src` inserted into `dest` at `offsets` / `sizes` (a contiguous block:
  /// a strided one would bufferize to a memref.copy calling the
  /// `memrefCopy` runtime function, which dispatches do not link).
  Value insert(Value src, Value dest, ArrayRef<OpFoldResult> offsets,
               ArrayRef<int64_t> sizes) {
    SmallVector<OpFoldResult> sz, strides(sizes.size(), idx(1));
    for (int64_t s : sizes)
      sz.push_back(idx(s));
    return tensor::InsertSliceOp::create(b, loc, src, dest, offsets, sz,
                                         strides);
  }
  /// `x` with its dims permuted (result dim i = `x` dim perm[i]).
  Value permute(Value x, ArrayRef<int64_t> perm) {
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    return linalg::TransposeOp::create(b, loc, x,
                                       emptyTensor(b, loc, type(shape)), perm)
        .getResult()[0];
  }
  /// [rows, cols] -> [cols, rows].
  Value transpose(Value x) {
    auto t = cast<RankedTensorType>(x.getType());
    Value init = emptyTensor(b, loc, type({t.getDimSize(1), t.getDimSize(0)}));
    return linalg::TransposeOp::create(b, loc, x, init, ArrayRef<int64_t>{1, 0})
        .getResult()[0];
  }
  /// `acc + lhs * rhs`.
  Value matmul(Value lhs, Value rhs, Value acc) {
    return linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                    ValueRange{lhs, rhs}, ValueRange{acc})
        .getResult(0);
  }
  /// `bias` ([cols], or null: zeros) broadcast to [rows, cols].
  Value broadcastRows(Value bias, int64_t rows, int64_t cols) {
    if (!bias)
      return zeros({rows, cols});
    return buildElementwise(
        b, loc, type({rows, cols}), {bias},
        [](OpBuilder &, Location, ValueRange s, Type) { return s[0]; });
  }
  Value clamp(OpBuilder &ob, Location l, Value x) {
    if (!v.clip)
      return x;
    Value lo = scalarConstant(ob, l, f32, -*v.clip);
    Value hi = scalarConstant(ob, l, f32, *v.clip);
    return arith::MinimumFOp::create(
        ob, l, arith::MaximumFOp::create(ob, l, x, lo), hi);
  }
  /// Columns [k*H, (k+1)*H) of an [N, cols] tensor.
  Value gate(Value x, int64_t k) {
    return slice(x, {idx(0), idx(k * H)}, {N, H}, {N, H});
  }
  /// A state's [N, H] block of direction `dir` in an initial/final state
  /// tensor ([D, N, H] or [N, D, H]).
  SmallVector<OpFoldResult> stateOffsets(int64_t dir) {
    if (v.layout == 0)
      return {idx(dir), idx(0), idx(0)};
    return {idx(0), idx(dir), idx(0)};
  }
  SmallVector<int64_t> stateSizes() {
    if (v.layout == 0)
      return {1, N, H};
    return {N, 1, H};
  }

  /// One step of the cell: the new (h, c) from gx = X_t W^T + Wb and
  /// rec = H_t-1 R^T + Rb (both [N, G*H]).
  std::pair<Value, Value> cell(Value gx, Value rec, Value h, Value c, Value rhT,
                               Value rbh, Value p, ArrayRef<Act> dirActs);
};

std::pair<Value, Value> RecurrentBuilder::cell(Value gx, Value rec, Value h,
                                               Value c, Value rhT, Value rbh,
                                               Value p, ArrayRef<Act> da) {
  RankedTensorType nh = type({N, H});
  auto add = [](OpBuilder &ob, Location l, Value x, Value y) -> Value {
    return arith::AddFOp::create(ob, l, x, y);
  };
  auto mul = [](OpBuilder &ob, Location l, Value x, Value y) -> Value {
    return arith::MulFOp::create(ob, l, x, y);
  };
  if (v.cell == Cell::Rnn) {
    Value hNew = buildElementwise(
        b, loc, nh, {gx, rec},
        [&](OpBuilder &ob, Location l, ValueRange s, Type) {
          return applyAct(ob, l, da[0], clamp(ob, l, add(ob, l, s[0], s[1])));
        });
    return {hNew, Value()};
  }
  if (v.cell == Cell::Lstm) {
    Value gates =
        buildElementwise(b, loc, type({N, GH}), {gx, rec},
                         [&](OpBuilder &ob, Location l, ValueRange s, Type) {
                           return add(ob, l, s[0], s[1]);
                         });
    Value gi = gate(gates, 0), go = gate(gates, 1), gf = gate(gates, 2),
          gc = gate(gates, 3);
    // Without peepholes their terms are left out (not multiplied by 0).
    SmallVector<Value> cIns{gi, gf, gc, c};
    if (p)
      cIns.append(
          {slice(p, {idx(0)}, {H}, {H}), slice(p, {idx(2 * H)}, {H}, {H})});
    bool coupled = v.inputForget;
    // gate + P (.) state, for a peephole input `pIndex` (if any).
    auto peep = [&](OpBuilder &ob, Location l, ValueRange s, Value g,
                    int64_t pIndex, Value state) -> Value {
      if (!p)
        return g;
      return add(ob, l, g, mul(ob, l, s[pIndex], state));
    };
    // Ct = ft * Ct-1 + it * ct.
    Value cNew = buildElementwise(
        b, loc, nh, cIns, [&](OpBuilder &ob, Location l, ValueRange s, Type) {
          Value cp = s[3];
          Value it =
              applyAct(ob, l, da[0], clamp(ob, l, peep(ob, l, s, s[0], 4, cp)));
          Value ft = coupled
                         ? Value(arith::SubFOp::create(
                               ob, l, scalarConstant(ob, l, f32, 1), it))
                         : applyAct(ob, l, da[0],
                                    clamp(ob, l, peep(ob, l, s, s[1], 5, cp)));
          Value ct = applyAct(ob, l, da[1], clamp(ob, l, s[2]));
          return add(ob, l, mul(ob, l, ft, cp), mul(ob, l, it, ct));
        });
    // Ht = f(go + Po * Ct) * h(Ct).
    SmallVector<Value> hIns{go, cNew};
    if (p)
      hIns.push_back(slice(p, {idx(H)}, {H}, {H}));
    Value hNew = buildElementwise(
        b, loc, nh, hIns, [&](OpBuilder &ob, Location l, ValueRange s, Type) {
          Value ot = applyAct(ob, l, da[0],
                              clamp(ob, l, peep(ob, l, s, s[0], 2, s[1])));
          return mul(ob, l, ot, applyAct(ob, l, da[2], s[1]));
        });
    return {hNew, cNew};
  }
  // GRU.
  Value z = buildElementwise(
      b, loc, nh, {gate(gx, 0), gate(rec, 0)},
      [&](OpBuilder &ob, Location l, ValueRange s, Type) {
        return applyAct(ob, l, da[0], clamp(ob, l, add(ob, l, s[0], s[1])));
      });
  Value rt = buildElementwise(
      b, loc, nh, {gate(gx, 1), gate(rec, 1)},
      [&](OpBuilder &ob, Location l, ValueRange s, Type) {
        return applyAct(ob, l, da[0], clamp(ob, l, add(ob, l, s[0], s[1])));
      });
  Value hh; // the h gate's recurrent term
  if (v.linearBeforeReset) {
    // rt (.) (Ht-1 Rh^T + Rbh).
    hh = buildElementwise(b, loc, nh, {rt, gate(rec, 2)},
                          [&](OpBuilder &ob, Location l, ValueRange s, Type) {
                            return mul(ob, l, s[0], s[1]);
                          });
  } else {
    // (rt (.) Ht-1) Rh^T + Rbh.
    Value rh = buildElementwise(b, loc, nh, {rt, h},
                                [&](OpBuilder &ob, Location l, ValueRange s,
                                    Type) { return mul(ob, l, s[0], s[1]); });
    hh = matmul(rh, rhT, broadcastRows(rbh, N, H));
  }
  Value hNew = buildElementwise(
      b, loc, nh, {gate(gx, 2), hh, z, h},
      [&](OpBuilder &ob, Location l, ValueRange s, Type) {
        Value ht = applyAct(ob, l, da[1], clamp(ob, l, add(ob, l, s[0], s[1])));
        Value one = scalarConstant(ob, l, f32, 1);
        Value keep = arith::SubFOp::create(ob, l, one, s[2]);
        return add(ob, l, mul(ob, l, keep, ht), mul(ob, l, s[2], s[3]));
      });
  return {hNew, Value()};
}

SmallVector<Value> RecurrentBuilder::build() {
  bool hasCell = v.cell == Cell::Lstm;
  Value x = toF32(v.x), w = toF32(v.w), r = toF32(v.r);
  Value bias = v.bias ? toF32(v.bias) : Value();
  Value h0 = v.h0 ? toF32(v.h0) : Value();
  Value c0 = v.c0 ? toF32(v.c0) : Value();
  Value peep = v.peepholes ? toF32(v.peepholes) : Value();

  // Sequence lengths as i64 in [0, S], shaped [N, 1] to broadcast over H.
  Type i64 = b.getI64Type();
  Value lens;
  if (v.seqLens) {
    auto lt = cast<RankedTensorType>(v.seqLens.getType());
    bool isUnsigned = v.seqLensUnsigned;
    Value flat = buildElementwise(
        b, loc, RankedTensorType::get({N}, i64), {v.seqLens},
        [&](OpBuilder &ob, Location l, ValueRange s, Type) -> Value {
          Value e = s[0];
          unsigned width = lt.getElementType().getIntOrFloatBitWidth();
          if (width < 64)
            e = isUnsigned ? Value(arith::ExtUIOp::create(ob, l, i64, e))
                           : Value(arith::ExtSIOp::create(ob, l, i64, e));
          else if (width > 64)
            e = arith::TruncIOp::create(ob, l, i64, e);
          Value sMax = arith::ConstantIntOp::create(ob, l, i64, S);
          if (isUnsigned)
            return arith::MinUIOp::create(ob, l, e, sMax);
          Value zero = arith::ConstantIntOp::create(ob, l, i64, 0);
          return arith::MaxSIOp::create(
              ob, l, arith::MinSIOp::create(ob, l, e, sMax), zero);
        });
    lens = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({N, 1}, i64), flat,
        ArrayRef<ReassociationIndices>{{0, 1}});
  }

  // The results are built in layout 0 ([S, D, N, H], [D, N, H]), where each
  // step's and direction's block is contiguous, and permuted for layout 1
  // at the end.
  Value y = emptyTensor(b, loc, type({S, D, N, H}));
  Value yh = emptyTensor(b, loc, type({D, N, H}));
  Value yc = hasCell ? emptyTensor(b, loc, type({D, N, H})) : Value();
  int64_t K = v.cell == Cell::Lstm ? 3 : v.cell == Cell::Gru ? 2 : 1;

  for (int64_t dir = 0; dir < D; ++dir) {
    bool reverse = v.direction == RnnDirection::Reverse || dir == 1;
    ArrayRef<Act> dirActs = acts.slice(dir * K, K);
    Value wT =
        transpose(slice(w, {idx(dir), idx(0), idx(0)}, {1, GH, I}, {GH, I}));
    Value rT =
        transpose(slice(r, {idx(dir), idx(0), idx(0)}, {1, GH, H}, {GH, H}));
    Value wb, rb, rbh, rhT, p;
    if (bias) {
      wb = slice(bias, {idx(dir), idx(0)}, {1, GH}, {GH});
      rb = slice(bias, {idx(dir), idx(GH)}, {1, GH}, {GH});
    }
    if (v.cell == Cell::Gru && !v.linearBeforeReset) {
      rhT = slice(rT, {idx(0), idx(2 * H)}, {H, H}, {H, H});
      if (bias)
        rbh = slice(bias, {idx(dir), idx(GH + 2 * H)}, {1, H}, {H});
    }
    if (peep)
      p = slice(peep, {idx(dir), idx(0)}, {1, 3 * H}, {3 * H});
    Value wbRows = broadcastRows(wb, N, GH);
    Value rbRows = broadcastRows(rb, N, GH);
    // Initial states copied into fresh tensors: a strided slice as a loop's
    // initial value would bufferize to a memref.copy needing the
    // `memrefCopy` runtime function.
    auto fresh = [&](Value x) {
      Value init = emptyTensor(b, loc, type({N, H}));
      return linalg::CopyOp::create(b, loc, x, init).getResult(0);
    };
    Value hInit = h0 ? fresh(slice(h0, stateOffsets(dir), stateSizes(), {N, H}))
                     : zeros({N, H});
    Value cInit = c0 ? fresh(slice(c0, stateOffsets(dir), stateSizes(), {N, H}))
                     : zeros({N, H});

    SmallVector<Value> inits{hInit, y};
    if (hasCell)
      inits.push_back(cInit);
    Value lb = arith::ConstantIndexOp::create(b, loc, 0);
    Value ub = arith::ConstantIndexOp::create(b, loc, S);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value last = arith::ConstantIndexOp::create(b, loc, S - 1);
    auto forOp = scf::ForOp::create(
        b, loc, lb, ub, one, inits,
        [&](OpBuilder &, Location, Value step, ValueRange args) {
          Value h = args[0], yAcc = args[1];
          Value c = hasCell ? args[2] : Value();
          Value t = reverse ? arith::SubIOp::create(b, loc, last, step) : step;
          Value xt = v.layout == 0
                         ? slice(x, {t, idx(0), idx(0)}, {1, N, I}, {N, I})
                         : slice(x, {idx(0), t, idx(0)}, {N, 1, I}, {N, I});
          Value gx = matmul(xt, wT, wbRows);
          Value rec = matmul(h, rT, rbRows);
          auto [hNew, cNew] = cell(gx, rec, h, c, rhT, rbh, p, dirActs);
          Value yt = hNew;
          if (lens) {
            Value ti = arith::IndexCastOp::create(b, loc, i64, t);
            // `fresh` where step t is inside the entry's sequence, else
            // `stale`.
            auto masked = [&](Value fresh, Value stale) {
              SmallVector<Value> ins{fresh, lens};
              if (stale)
                ins.push_back(stale);
              return buildElementwise(
                  b, loc, type({N, H}), ins,
                  [&](OpBuilder &ob, Location l, ValueRange s, Type) {
                    Value in = arith::CmpIOp::create(
                        ob, l, arith::CmpIPredicate::sgt, s[1], ti);
                    Value other = stale ? s[2] : scalarConstant(ob, l, f32, 0);
                    return arith::SelectOp::create(ob, l, in, s[0], other);
                  });
            };
            yt = masked(hNew, Value());
            hNew = masked(hNew, h);
            if (hasCell)
              cNew = masked(cNew, c);
          }
          // Into the iteration arguments' tensors: one-shot bufferization
          // needs a loop's yielded values equivalent to them.
          auto copyInto = [&](Value value, Value iterArg) {
            return linalg::CopyOp::create(b, loc, value, iterArg).getResult(0);
          };
          SmallVector<Value> next{copyInto(hNew, h)};
          next.push_back(
              insert(yt, yAcc, {t, idx(dir), idx(0), idx(0)}, {1, 1, N, H}));
          if (hasCell)
            next.push_back(copyInto(cNew, c));
          scf::YieldOp::create(b, loc, next);
        });
    y = forOp.getResult(1);

    // Final states: zero for an empty sequence.
    auto final = [&](Value state) -> Value {
      if (S == 0)
        return zeros({N, H});
      if (!lens)
        return state;
      return buildElementwise(
          b, loc, type({N, H}), {state, lens},
          [&](OpBuilder &ob, Location l, ValueRange s, Type) {
            Value zero64 = arith::ConstantIntOp::create(ob, l, i64, 0);
            Value ran = arith::CmpIOp::create(ob, l, arith::CmpIPredicate::sgt,
                                              s[1], zero64);
            return arith::SelectOp::create(ob, l, ran, s[0],
                                           scalarConstant(ob, l, f32, 0));
          });
    };
    yh = insert(final(forOp.getResult(0)), yh, {idx(dir), idx(0), idx(0)},
                {1, N, H});
    if (hasCell)
      yc = insert(final(forOp.getResult(2)), yc, {idx(dir), idx(0), idx(0)},
                  {1, N, H});
  }
  if (v.layout == 1) {
    y = permute(y, {2, 0, 1, 3});
    yh = permute(yh, {1, 0, 2});
    if (hasCell)
      yc = permute(yc, {1, 0, 2});
  }
  SmallVector<Value> results{y, yh};
  if (hasCell)
    results.push_back(yc);
  return results;
}

/// The pattern, for each of the three ops.
template <typename OpTy> struct RecurrentLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Recurrent v = viewOf(op, adaptor);
    v.hidden = op.getHiddenSize();
    v.layout = op.getLayout();
    v.direction = op.getDirection();
    v.activations = op.getActivations();
    v.alpha = op.getActivationAlpha();
    v.beta = op.getActivationBeta();
    if (FloatAttr clip = op.getClipAttr())
      v.clip = clip.getValueAsDouble();
    if (v.seqLens)
      v.seqLensUnsigned = isUnsignedElement(op.getSequenceLens());

    SmallVector<RankedTensorType> types;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      FailureOr<RankedTensorType> t =
          staticResultType(op, i, *this->getTypeConverter(), rewriter);
      if (failed(t))
        return failure();
      types.push_back(*t);
    }
    for (Value operand :
         {v.x, v.w, v.r, v.bias, v.seqLens, v.h0, v.c0, v.peepholes}) {
      auto t = operand ? dyn_cast<RankedTensorType>(operand.getType())
                       : RankedTensorType();
      if (operand && (!t || !t.hasStaticShape()))
        return rewriter.notifyMatchFailure(op, "an operand has a non-static "
                                               "shape");
    }
    if (!isa<FloatType>(getElementTypeOrSelf(v.x.getType())))
      return rewriter.notifyMatchFailure(op, "operand 'input' is not a float "
                                             "tensor");
    if (v.layout != 0 && v.layout != 1)
      return rewriter.notifyMatchFailure(op, "attribute 'layout' is not 0 or "
                                             "1");
    if (v.clip && !(*v.clip > 0))
      return rewriter.notifyMatchFailure(op, "attribute 'clip' is not "
                                             "positive");
    auto xt = cast<RankedTensorType>(v.x.getType());
    if (xt.getRank() != 3)
      return rewriter.notifyMatchFailure(op, "operand 'input' is not of rank "
                                             "3");
    int64_t S = xt.getDimSize(v.layout == 0 ? 0 : 1);
    int64_t N = xt.getDimSize(v.layout == 0 ? 1 : 0);
    int64_t I = xt.getDimSize(2);
    int64_t D = v.direction == RnnDirection::Bidirectional ? 2 : 1;
    int64_t H = v.hidden, GH = v.gates * v.hidden;
    // The operand shapes the driver relies on (shape inference checked them
    // for a verified model; a pattern must not read out of bounds anyway).
    auto shapeIs = [](Value val, ArrayRef<int64_t> shape) {
      return !val || cast<RankedTensorType>(val.getType()).getShape() == shape;
    };
    SmallVector<int64_t> state = v.layout == 0 ? SmallVector<int64_t>{D, N, H}
                                               : SmallVector<int64_t>{N, D, H};
    if (H <= 0 || !shapeIs(v.w, {D, GH, I}) || !shapeIs(v.r, {D, GH, H}) ||
        !shapeIs(v.bias, {D, 2 * GH}) || !shapeIs(v.seqLens, {N}) ||
        !shapeIs(v.h0, state) || !shapeIs(v.c0, state) ||
        !shapeIs(v.peepholes, {D, 3 * H}))
      return rewriter.notifyMatchFailure(op, "operand shapes do not match "
                                             "hidden_size, direction and "
                                             "layout");
    if (v.seqLens &&
        !isa<IntegerType>(getElementTypeOrSelf(v.seqLens.getType())))
      return rewriter.notifyMatchFailure(op, "operand 'sequence_lens' is not "
                                             "an integer tensor");

    // The activations of every direction, alpha and beta resolved.
    int64_t K = v.cell == Cell::Lstm ? 3 : v.cell == Cell::Gru ? 2 : 1;
    static const RnnActivation kDefaults[3][3] = {
        {RnnActivation::Sigmoid, RnnActivation::Tanh, RnnActivation::Tanh},
        {RnnActivation::Sigmoid, RnnActivation::Tanh},
        {RnnActivation::Tanh}};
    size_t count = static_cast<size_t>(K * D);
    SmallVector<Act> acts;
    for (size_t i = 0; i < count; ++i) {
      RnnActivation kind = v.activations
                               ? RnnActivation() // replaced below
                               : kDefaults[static_cast<int>(v.cell)][i % K];
      if (v.activations) {
        if (v.activations->size() != count)
          return rewriter.notifyMatchFailure(
              op, "attribute 'activations' does not have K entries per "
                  "direction");
        kind = cast<top::RnnActivationAttr>((*v.activations)[i]).getValue();
      }
      if ((v.alpha && v.alpha->size() != count) ||
          (v.beta && v.beta->size() != count))
        return rewriter.notifyMatchFailure(
            op, "attribute 'activation_alpha' or 'activation_beta' does not "
                "have one entry per activation");
      auto [alpha, beta] = defaultAlphaBeta(kind);
      if (v.alpha)
        alpha = (*v.alpha)[i];
      if (v.beta)
        beta = (*v.beta)[i];
      if (!std::isfinite(alpha) || !std::isfinite(beta))
        return rewriter.notifyMatchFailure(
            op, "an activation lacks a finite alpha or beta");
      acts.push_back({kind, alpha, beta});
    }

    SmallVector<int64_t> yShape = v.layout == 0
                                      ? SmallVector<int64_t>{S, D, N, H}
                                      : SmallVector<int64_t>{N, S, D, H};
    for (auto [index, type] : llvm::enumerate(types)) {
      size_t i = index;
      RankedTensorType t = type;
      if (t.getShape() != ArrayRef<int64_t>(i == 0 ? yShape : state) ||
          !isa<FloatType>(t.getElementType()))
        return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
          d << "result #" << i << " has type " << t << " but the operands "
            << "give the shape [" << ArrayRef<int64_t>(i == 0 ? yShape : state)
            << "]";
        });
    }

    RecurrentBuilder builder(rewriter, op.getLoc(), v, acts, S, N, I, D);
    SmallVector<Value> results = builder.build();
    // To the result element types (f32 compute, as the interpreter).
    for (auto [i, res] : llvm::enumerate(results)) {
      RankedTensorType t = types[i];
      if (t.getElementType() == rewriter.getF32Type())
        continue;
      res = buildElementwise(
          rewriter, op.getLoc(), t, {res},
          [&](OpBuilder &ob, Location l, ValueRange s, Type elem) -> Value {
            if (elem.getIntOrFloatBitWidth() < 32)
              return arith::TruncFOp::create(ob, l, elem, s[0]);
            return arith::ExtFOp::create(ob, l, elem, s[0]);
          });
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateTopToLinalgRecurrentPatterns(const TopTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<RecurrentLowering<top::LSTMOp>, RecurrentLowering<top::GRUOp>,
               RecurrentLowering<top::RNNOp>>(converter, patterns.getContext());
}

} // namespace strata::conversion
