//===- RecurrentOps.cpp - LSTM, GRU and RNN ops ---------------------------===//
//
// top.LSTM, top.GRU, top.RNN. The three share operand checking, shape
// inference (shapes::inferRecurrent) and a sequence driver (layout,
// directions, sequence lengths, initial and final states); each supplies only
// its cell. Reference semantics compute in f32.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/RecurrentShapes.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// The gate activations, as the op attributes name them.
using ActKind = RnnActivation;

struct ActInfo {
  const char *name;
  ActKind kind;
  /// ONNX default alpha / beta; NaN if the function needs an explicit value,
  /// 0 if it takes none.
  double alpha, beta;
};

constexpr double kNeeded = std::numeric_limits<double>::quiet_NaN();

const ActInfo kActivations[] = {
    {"Relu", ActKind::Relu, 0, 0},
    {"Tanh", ActKind::Tanh, 0, 0},
    {"Sigmoid", ActKind::Sigmoid, 0, 0},
    {"Affine", ActKind::Affine, kNeeded, kNeeded},
    {"LeakyRelu", ActKind::LeakyRelu, 0.01, 0},
    {"ThresholdedRelu", ActKind::ThresholdedRelu, 1.0, 0},
    {"ScaledTanh", ActKind::ScaledTanh, kNeeded, kNeeded},
    {"HardSigmoid", ActKind::HardSigmoid, 0.2, 0.5},
    {"Elu", ActKind::Elu, 1.0, 0},
    {"Softsign", ActKind::Softsign, 0, 0},
    {"Softplus", ActKind::Softplus, 0, 0},
};

const ActInfo &findActivation(ActKind kind) {
  for (const ActInfo &a : kActivations)
    if (kind == a.kind)
      return a;
  llvm_unreachable("every RnnActivation has an entry in kActivations");
}

/// One resolved activation function.
struct Activation {
  ActKind kind;
  float alpha, beta;

  float operator()(float x) const {
    switch (kind) {
    case ActKind::Relu:
      return std::max(x, 0.0f);
    case ActKind::Tanh:
      return std::tanh(x);
    case ActKind::Sigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case ActKind::Affine:
      return alpha * x + beta;
    case ActKind::LeakyRelu:
      return x >= 0 ? x : alpha * x;
    case ActKind::ThresholdedRelu:
      return x >= alpha ? x : 0.0f;
    case ActKind::ScaledTanh:
      return alpha * std::tanh(beta * x);
    case ActKind::HardSigmoid:
      return std::min(std::max(alpha * x + beta, 0.0f), 1.0f);
    case ActKind::Elu:
      return x >= 0 ? x : alpha * (std::exp(x) - 1.0f);
    case ActKind::Softsign:
      return x / (1.0f + std::fabs(x));
    case ActKind::Softplus:
      return x > 20.0f ? x : std::log1p(std::exp(x));
    }
    return x;
  }
};

//===----------------------------------------------------------------------===//
// What the three ops have in common
//===----------------------------------------------------------------------===//

/// The operands and attributes of a recurrent op, whichever of the three.
struct RecurrentView {
  Operation *op;
  int64_t gates;                      ///< G: 4 LSTM, 3 GRU, 1 RNN
  ArrayRef<ActKind> defaultActs;     ///< activations of one direction
  Value input, weight, recurrence, bias, seqLens, initialH;
  Value initialC, peepholes;          ///< LSTM only (null otherwise)
  int64_t hiddenSize;
  RnnDirection direction;
  std::optional<ArrayAttr> activations;
  std::optional<ArrayRef<double>> alpha, beta;
  std::optional<double> clip;
  int64_t layout;
  unsigned numResults;
};

const ActKind kLstmActs[] = {ActKind::Sigmoid, ActKind::Tanh, ActKind::Tanh};
const ActKind kGruActs[] = {ActKind::Sigmoid, ActKind::Tanh};
const ActKind kRnnActs[] = {ActKind::Tanh};

std::optional<double> clipOf(FloatAttr attr) {
  if (!attr)
    return std::nullopt;
  return attr.getValueAsDouble();
}

RecurrentView viewOf(LSTMOp op) {
  return {op,
          4,
          kLstmActs,
          op.getInput(),
          op.getWeight(),
          op.getRecurrence(),
          op.getBias(),
          op.getSequenceLens(),
          op.getInitialH(),
          op.getInitialC(),
          op.getPeepholes(),
          static_cast<int64_t>(op.getHiddenSize()),
          op.getDirection(),
          op.getActivations(),
          op.getActivationAlpha(),
          op.getActivationBeta(),
          clipOf(op.getClipAttr()),
          static_cast<int64_t>(op.getLayout()),
          3};
}

RecurrentView viewOf(GRUOp op) {
  return {op,
          3,
          kGruActs,
          op.getInput(),
          op.getWeight(),
          op.getRecurrence(),
          op.getBias(),
          op.getSequenceLens(),
          op.getInitialH(),
          Value(),
          Value(),
          static_cast<int64_t>(op.getHiddenSize()),
          op.getDirection(),
          op.getActivations(),
          op.getActivationAlpha(),
          op.getActivationBeta(),
          clipOf(op.getClipAttr()),
          static_cast<int64_t>(op.getLayout()),
          2};
}

RecurrentView viewOf(RNNOp op) {
  return {op,
          1,
          kRnnActs,
          op.getInput(),
          op.getWeight(),
          op.getRecurrence(),
          op.getBias(),
          op.getSequenceLens(),
          op.getInitialH(),
          Value(),
          Value(),
          static_cast<int64_t>(op.getHiddenSize()),
          op.getDirection(),
          op.getActivations(),
          op.getActivationAlpha(),
          op.getActivationBeta(),
          clipOf(op.getClipAttr()),
          static_cast<int64_t>(op.getLayout()),
          2};
}

/// The activations of every direction (K per direction, forward first),
/// with alpha and beta resolved; checks the three activation attributes.
FailureOr<SmallVector<Activation>> resolveActivations(const RecurrentView &v,
                                                      int64_t dirs) {
  size_t perDir = v.defaultActs.size();
  size_t count = perDir * static_cast<size_t>(dirs);
  SmallVector<ActKind> names;
  if (v.activations) {
    for (Attribute a : *v.activations)
      names.push_back(cast<RnnActivationAttr>(a).getValue());
    if (names.size() != count)
      return v.op->emitOpError()
             << "attribute 'activations' has " << names.size()
             << " entries, expected " << count << " (" << perDir
             << " per direction, " << dirs << " direction"
             << (dirs == 1 ? "" : "s") << ")";
  } else {
    for (int64_t d = 0; d < dirs; ++d)
      names.append(v.defaultActs.begin(), v.defaultActs.end());
  }
  for (auto [attrName, values] :
       {std::pair<StringRef, std::optional<ArrayRef<double>>>{
            "activation_alpha", v.alpha},
        {"activation_beta", v.beta}})
    if (values && values->size() != count)
      return v.op->emitOpError()
             << "attribute '" << attrName << "' has " << values->size()
             << " entries, expected one per activation (" << count << ")";

  SmallVector<Activation> acts;
  for (size_t i = 0; i < count; ++i) {
    const ActInfo *info = &findActivation(names[i]);
    double alpha = v.alpha ? (*v.alpha)[i] : info->alpha;
    double beta = v.beta ? (*v.beta)[i] : info->beta;
    if (std::isnan(alpha) || std::isnan(beta))
      return v.op->emitOpError()
             << "activation " << i << " (" << info->name
             << ") needs explicit 'activation_alpha' and 'activation_beta'";
    if (!std::isfinite(alpha) || !std::isfinite(beta))
      return v.op->emitOpError()
             << "activation " << i << " (" << info->name
             << ") has a non-finite alpha (" << alpha << ") or beta (" << beta
             << ")";
    acts.push_back({info->kind, static_cast<float>(alpha),
                    static_cast<float>(beta)});
  }
  return acts;
}

using shapes::RecurrentDims;

/// The attributes the shape function reads.
shapes::RecurrentAttrs attrsOf(const RecurrentView &v) {
  return {v.gates, v.hiddenSize, stringifyRnnDirection(v.direction).str(), v.layout, v.numResults};
}

/// The operand shapes `shapes` reads (held there).
shapes::RecurrentOperands operandsOf(const RecurrentView &v,
                                     OperandShapes &shapes) {
  return {shapes(v.input),
          shapes(v.weight),
          shapes(v.recurrence),
          shapes.optional(v.bias),
          shapes.optional(v.seqLens),
          shapes.optional(v.initialH),
          shapes.optional(v.initialC),
          shapes.optional(v.peepholes)};
}

/// Checks what the shape function does not: 'clip', the activations (for
/// `dirs` directions) and the element types.
LogicalResult checkRecurrentOp(const RecurrentView &v, int64_t dirs) {
  Operation *op = v.op;
  if (v.clip && !(*v.clip > 0))
    return op->emitOpError() << "attribute 'clip' = " << *v.clip
                             << " must be positive";
  if (failed(resolveActivations(v, dirs)))
    return failure();
  if (failed(checkElementKind(op, "operand 'input'", v.input,
                              kFloatElements)))
    return failure();
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"weight", v.weight},
        {"recurrence", v.recurrence},
        {"bias", v.bias},
        {"initial_h", v.initialH},
        {"initial_c", v.initialC},
        {"peepholes", v.peepholes}})
    if (value && !isNone(value) &&
        failed(checkSameElementType(op, "operand 'input'", v.input,
                                    ("operand '" + name + "'").str(), value)))
      return failure();
  if (!isNone(v.seqLens) &&
      failed(checkElementKind(op, "operand 'sequence_lens'", v.seqLens,
                              kIntElements)))
    return failure();
  return success();
}

LogicalResult inferRecurrent(const RecurrentView &v, const ShapeContext &ctx,
                             SmallVectorImpl<SmallVector<int64_t>> &s) {
  shapes::RecurrentAttrs attrs = attrsOf(v);
  ShapeOr<int64_t> dirs = shapes::checkRecurrentAttrs(attrs);
  if (!dirs)
    return v.op->emitOpError() << dirs.error();
  if (failed(checkRecurrentOp(v, *dirs)))
    return failure();
  OperandShapes shapes(ctx);
  return appendShapes(v.op,
                      shapes::inferRecurrent(operandsOf(v, shapes), attrs), s);
}

/// Per step and direction: the input and recurrence products (2 flops per
/// multiply-accumulate) plus about 8 elementwise operations per gate value.
int64_t recurrentFlops(const RecurrentView &v) {
  if (!hasStaticShape(v.input))
    return 0;
  SmallVector<int64_t> in = shapeOf(v.input);
  if (in.size() != 3)
    return 0;
  int64_t dirs = v.direction == RnnDirection::Bidirectional ? 2 : 1;
  int64_t gh = v.gates * v.hiddenSize;
  int64_t perStep = in[1] * gh * (2 * (in[2] + v.hiddenSize) + 8);
  return dirs * in[0] * perStep;
}

//===----------------------------------------------------------------------===//
// Reference semantics
//===----------------------------------------------------------------------===//

/// The weights of one direction, rearranged for the driver and the cells.
struct DirectionParams {
  std::vector<float> recurrenceT; ///< [H, G*H]: R^T
  std::vector<float> rb;          ///< [G*H]: recurrence bias
  std::vector<float> peepholes;   ///< [3*H] (LSTM; zeros if absent)
  ArrayRef<Activation> acts;      ///< this direction's activations
  float clip;                     ///< +inf without clip
  float clamp(float x) const { return std::min(std::max(x, -clip), clip); }
};

/// Computes one step of a batch for one direction: reads `gx` (N x G*H, the
/// input product plus its bias) and the previous states, writes the new
/// ones (all N entries; the driver keeps those of finished sequences).
using CellFn = std::function<void(const DirectionParams &p, int64_t batch,
                                  int64_t hidden, const float *gx,
                                  const float *hPrev, const float *cPrev,
                                  float *hNew, float *cNew)>;

/// Row-major transpose of a `rows x cols` block.
std::vector<float> transposed(const float *src, int64_t rows, int64_t cols) {
  std::vector<float> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[c * rows + r] = src[r * cols + c];
  return out;
}

/// `Tensor` as f32 (`none` or null: an empty tensor).
Tensor f32Of(InterpreterEnv &env, Value v) {
  if (!v || isNone(v))
    return Tensor();
  return env.get(v).castTo(DType::F32);
}

/// Runs the directions over the sequence with `cell` and sets the results
/// (Y, Y_h and, with `hasCell`, Y_c).
LogicalResult runRecurrent(const RecurrentView &v, InterpreterEnv &env,
                           bool hasCell, const CellFn &cell) {
  Operation *op = v.op;
  EnvShapeContext ctx(env);
  OperandShapes shapes(ctx);
  FailureOr<RecurrentDims> dimsOr =
      valueOrEmit(op, shapes::recurrentDims(operandsOf(v, shapes), attrsOf(v)));
  if (failed(dimsOr))
    return failure();
  RecurrentDims d = *dimsOr;
  auto actsOr = resolveActivations(v, d.dirs);
  if (failed(actsOr))
    return failure();
  SmallVector<Activation> acts = std::move(*actsOr);
  int64_t S = d.seq, N = d.batch, I = d.inputSize, H = d.hidden;
  int64_t GH = d.gates * H;
  int64_t K = static_cast<int64_t>(v.defaultActs.size());

  // The input as [S, N, I].
  Tensor xT = f32Of(env, v.input);
  std::vector<float> x(static_cast<size_t>(S * N * I));
  for (int64_t t = 0; t < S; ++t)
    for (int64_t n = 0; n < N; ++n) {
      int64_t src = v.layout == 0 ? (t * N + n) * I : (n * S + t) * I;
      std::copy_n(xT.data<float>() + src, I, x.data() + (t * N + n) * I);
    }

  std::vector<int64_t> lens(static_cast<size_t>(N), S);
  if (!isNone(v.seqLens)) {
    const Tensor &l = env.get(v.seqLens);
    for (int64_t n = 0; n < N; ++n) {
      lens[n] = l.getAsInt(n);
      if (lens[n] < 0 || lens[n] > S)
        return op->emitOpError()
               << "sequence_lens[" << n << "] = " << lens[n]
               << " is out of range [0, " << S << "]";
    }
  }

  Tensor w = f32Of(env, v.weight), r = f32Of(env, v.recurrence);
  Tensor b = f32Of(env, v.bias), p = f32Of(env, v.peepholes);
  Tensor h0 = f32Of(env, v.initialH), c0 = f32Of(env, v.initialC);
  // Index of state (dir, n) in [D, N, H] or [N, D, H].
  auto stateOffset = [&](int64_t dir, int64_t n) {
    return (v.layout == 0 ? dir * N + n : n * d.dirs + dir) * H;
  };

  Tensor y(DType::F32, env.resultShape(op->getResult(0)));
  Tensor yh(DType::F32, env.resultShape(op->getResult(1)));
  Tensor yc = hasCell ? Tensor(DType::F32, env.resultShape(op->getResult(2)))
                      : Tensor();
  std::vector<float> gx(static_cast<size_t>(S * N * GH));
  std::vector<float> h(N * H), c(N * H), hNew(N * H), cNew(N * H);

  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    bool reverse = v.direction == RnnDirection::Reverse || dir == 1;
    DirectionParams params;
    params.recurrenceT = transposed(r.data<float>() + dir * GH * H, GH, H);
    params.rb.assign(GH, 0.0f);
    params.peepholes.assign(3 * H, 0.0f);
    params.acts = ArrayRef<Activation>(acts).slice(dir * K, K);
    params.clip = v.clip ? static_cast<float>(*v.clip)
                         : std::numeric_limits<float>::infinity();
    if (b.numElements()) {
      const float *bd = b.data<float>() + dir * 2 * GH;
      std::copy_n(bd + GH, GH, params.rb.begin());
    }
    if (p.numElements())
      std::copy_n(p.data<float>() + dir * 3 * H, 3 * H,
                  params.peepholes.begin());

    // gx = X W^T + Wb for every step at once.
    std::vector<float> wT = transposed(w.data<float>() + dir * GH * I, GH, I);
    gemmF32(S * N, GH, I, x.data(), I, wT.data(), GH, gx.data(), GH,
            /*accumulate=*/false);
    if (b.numElements()) {
      const float *wb = b.data<float>() + dir * 2 * GH;
      for (int64_t row = 0; row < S * N; ++row)
        for (int64_t j = 0; j < GH; ++j)
          gx[row * GH + j] += wb[j];
    }

    std::fill(h.begin(), h.end(), 0.0f);
    std::fill(c.begin(), c.end(), 0.0f);
    for (int64_t n = 0; n < N; ++n) {
      if (h0.numElements())
        std::copy_n(h0.data<float>() + stateOffset(dir, n), H, &h[n * H]);
      if (c0.numElements())
        std::copy_n(c0.data<float>() + stateOffset(dir, n), H, &c[n * H]);
    }

    for (int64_t step = 0; step < S; ++step) {
      int64_t t = reverse ? S - 1 - step : step;
      cell(params, N, H, gx.data() + t * N * GH, h.data(), c.data(),
           hNew.data(), cNew.data());
      for (int64_t n = 0; n < N; ++n) {
        int64_t yOff = v.layout == 0 ? ((t * d.dirs + dir) * N + n) * H
                                     : ((n * S + t) * d.dirs + dir) * H;
        // Step t is inside sequence n in both directions: the reverse
        // direction starts at its last valid step.
        if (t >= lens[n])
          continue; // Y stays zero; the states carry over.
        std::copy_n(hNew.data() + n * H, H, h.data() + n * H);
        std::copy_n(cNew.data() + n * H, H, c.data() + n * H);
        std::copy_n(h.data() + n * H, H, y.data<float>() + yOff);
      }
    }
    for (int64_t n = 0; n < N; ++n) {
      // An empty sequence has zero final states (as ONNX Runtime), not the
      // initial ones.
      if (lens[n] == 0)
        continue;
      std::copy_n(h.data() + n * H, H, yh.data<float>() + stateOffset(dir, n));
      if (hasCell)
        std::copy_n(c.data() + n * H, H,
                    yc.data<float>() + stateOffset(dir, n));
    }
  }
  env.set(op->getResult(0), y.castTo(resultDType(op->getResult(0))));
  env.set(op->getResult(1), yh.castTo(resultDType(op->getResult(1))));
  if (hasCell)
    env.set(op->getResult(2), yc.castTo(resultDType(op->getResult(2))));
  return success();
}

/// `rec` (N x G*H) = hPrev R^T + Rb.
void recurrence(const DirectionParams &p, int64_t batch, int64_t hidden,
                const float *hPrev, float *rec) {
  int64_t gh = static_cast<int64_t>(p.rb.size());
  for (int64_t n = 0; n < batch; ++n)
    std::copy(p.rb.begin(), p.rb.end(), rec + n * gh);
  gemmF32(batch, gh, hidden, hPrev, hidden, p.recurrenceT.data(), gh, rec, gh,
          /*accumulate=*/true);
}

} // namespace

//===----------------------------------------------------------------------===//
// LSTMOp
//===----------------------------------------------------------------------===//

LogicalResult LSTMOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  return inferRecurrent(viewOf(*this), ctx, s);
}
int64_t LSTMOp::getFlops() { return recurrentFlops(viewOf(*this)); }

LogicalResult LSTMOp::interpret(InterpreterEnv &env) {
  bool coupled = getInputForget();
  auto cell = [coupled](const DirectionParams &p, int64_t batch, int64_t H,
                        const float *gx, const float *hPrev,
                        const float *cPrev, float *hNew, float *cNew) {
    std::vector<float> gates(static_cast<size_t>(batch * 4 * H));
    recurrence(p, batch, H, hPrev, gates.data());
    for (int64_t i = 0; i < batch * 4 * H; ++i)
      gates[i] += gx[i];
    const Activation &f = p.acts[0], &g = p.acts[1], &h = p.acts[2];
    const float *pi = p.peepholes.data(), *po = pi + H, *pf = pi + 2 * H;
    for (int64_t n = 0; n < batch; ++n) {
      const float *gi = gates.data() + n * 4 * H;
      const float *go = gi + H, *gf = gi + 2 * H, *gc = gi + 3 * H;
      for (int64_t j = 0; j < H; ++j) {
        float cp = cPrev[n * H + j];
        float it = f(p.clamp(gi[j] + pi[j] * cp));
        float ft = coupled ? 1.0f - it : f(p.clamp(gf[j] + pf[j] * cp));
        float ct = g(p.clamp(gc[j]));
        float cNext = ft * cp + it * ct;
        float ot = f(p.clamp(go[j] + po[j] * cNext));
        cNew[n * H + j] = cNext;
        hNew[n * H + j] = ot * h(cNext);
      }
    }
  };
  return runRecurrent(viewOf(*this), env, /*hasCell=*/true, cell);
}

//===----------------------------------------------------------------------===//
// GRUOp
//===----------------------------------------------------------------------===//

LogicalResult GRUOp::inferShapes(const ShapeContext &ctx,
                                 SmallVectorImpl<SmallVector<int64_t>> &s) {
  return inferRecurrent(viewOf(*this), ctx, s);
}
int64_t GRUOp::getFlops() { return recurrentFlops(viewOf(*this)); }

LogicalResult GRUOp::interpret(InterpreterEnv &env) {
  bool linearBeforeReset = getLinearBeforeReset();
  auto cell = [linearBeforeReset](const DirectionParams &p, int64_t batch,
                                  int64_t H, const float *gx,
                                  const float *hPrev, const float *,
                                  float *hNew, float *) {
    int64_t gh = 3 * H;
    // Ht-1 R^T + Rb for all three gates (only z and r are used without
    // linear_before_reset).
    std::vector<float> rec(static_cast<size_t>(batch * gh));
    recurrence(p, batch, H, hPrev, rec.data());
    const Activation &f = p.acts[0], &g = p.acts[1];
    std::vector<float> z(batch * H), rh(batch * H);
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t j = 0; j < H; ++j) {
        const float *gxn = gx + n * gh, *recn = rec.data() + n * gh;
        z[n * H + j] = f(p.clamp(gxn[j] + recn[j]));
        float rt = f(p.clamp(gxn[H + j] + recn[H + j]));
        rh[n * H + j] = linearBeforeReset ? rt * recn[2 * H + j]
                                          : rt * hPrev[n * H + j];
      }
    if (!linearBeforeReset) {
      // (rt (.) Ht-1) Rh^T + Rbh: the h block of R^T is columns 2H..3H.
      std::vector<float> lin(batch * H);
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < H; ++j)
          lin[n * H + j] = p.rb[2 * H + j];
      gemmF32(batch, H, H, rh.data(), H, p.recurrenceT.data() + 2 * H, gh,
              lin.data(), H, /*accumulate=*/true);
      rh = std::move(lin);
    }
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t j = 0; j < H; ++j) {
        float ht = g(p.clamp(gx[n * gh + 2 * H + j] + rh[n * H + j]));
        float zt = z[n * H + j];
        hNew[n * H + j] = (1.0f - zt) * ht + zt * hPrev[n * H + j];
      }
  };
  return runRecurrent(viewOf(*this), env, /*hasCell=*/false, cell);
}

//===----------------------------------------------------------------------===//
// RNNOp
//===----------------------------------------------------------------------===//

LogicalResult RNNOp::inferShapes(const ShapeContext &ctx,
                                 SmallVectorImpl<SmallVector<int64_t>> &s) {
  return inferRecurrent(viewOf(*this), ctx, s);
}
int64_t RNNOp::getFlops() { return recurrentFlops(viewOf(*this)); }

LogicalResult RNNOp::interpret(InterpreterEnv &env) {
  auto cell = [](const DirectionParams &p, int64_t batch, int64_t H,
                 const float *gx, const float *hPrev, const float *,
                 float *hNew, float *) {
    recurrence(p, batch, H, hPrev, hNew);
    for (int64_t i = 0; i < batch * H; ++i)
      hNew[i] = p.acts[0](p.clamp(gx[i] + hNew[i]));
  };
  return runRecurrent(viewOf(*this), env, /*hasCell=*/false, cell);
}
