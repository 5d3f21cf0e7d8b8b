//===- TransformerOps.cpp - attention, RMS norm, rotary embedding ---------===//
//
// top.Attention, top.RMSNorm, top.RotaryEmbedding. Reference semantics read
// the operands as f64, accumulate in f64 and round once to the result type.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/TransformerShapes.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Checks the element kind of an optional operand (skipped when `none`).
LogicalResult checkOptionalKind(Operation *op, StringRef what, Value value,
                                unsigned kinds) {
  if (isNone(value))
    return success();
  return checkElementKind(op, what, value, kinds);
}

} // namespace

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

namespace {
using shapes::AttentionDims;

/// The operand shapes `shapes` reads (held there).
shapes::AttentionOperands operandsOf(AttentionOp op, OperandShapes &shapes) {
  return {shapes(op.getQuery()),
          shapes(op.getKey()),
          shapes(op.getValue()),
          shapes.optional(op.getAttnMask()),
          shapes.optional(op.getPastKey()),
          shapes.optional(op.getPastValue()),
          shapes.optional(op.getNonpadKvSeqlen())};
}

/// An optional I64Attr read as signed (its getter returns unsigned values).
std::optional<int64_t> signedAttr(IntegerAttr attr) {
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

/// The sizes of `op` for the operand shapes `ctx` gives (see
/// shapes::attentionDims).
ShapeOr<AttentionDims> attentionDims(AttentionOp op, const ShapeContext &ctx) {
  OperandShapes shapes(ctx);
  return shapes::attentionDims(operandsOf(op, shapes),
                               signedAttr(op.getQNumHeadsAttr()),
                               signedAttr(op.getKvNumHeadsAttr()));
}
} // namespace

LogicalResult AttentionOp::verify() {
  if (failed(checkElementKind(*this, "query", getQuery(), kFloatElements)) ||
      failed(checkElementKind(*this, "key", getKey(), kFloatElements)) ||
      failed(checkElementKind(*this, "value", getValue(), kFloatElements)) ||
      failed(checkOptionalKind(*this, "attn_mask", getAttnMask(),
                               kFloatElements | kBoolElements)) ||
      failed(checkOptionalKind(*this, "past_key", getPastKey(),
                               kFloatElements)) ||
      failed(checkOptionalKind(*this, "past_value", getPastValue(),
                               kFloatElements)) ||
      failed(checkOptionalKind(*this, "nonpad_kv_seqlen", getNonpadKvSeqlen(),
                               kIntElements)))
    return failure();
  int64_t mode = getQkMatmulOutputMode();
  if (mode < 0 || mode > 3)
    return emitOpError() << "attribute 'qk_matmul_output_mode' = " << mode
                         << " must be in [0, 3]";
  double softcap = getSoftcap().convertToDouble();
  if (!(softcap >= 0) || !std::isfinite(softcap))
    return emitOpError() << "attribute 'softcap' = " << softcap
                         << " must be finite and >= 0";
  if (auto scale = getScale())
    if (!std::isfinite(scale->convertToDouble()))
      return emitOpError() << "attribute 'scale' = "
                           << scale->convertToDouble() << " must be finite";
  return success();
}

LogicalResult
AttentionOp::inferShapes(const ShapeContext &ctx,
                         SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  OperandShapes shapes(ctx);
  return appendShapes(*this,
                      shapes::inferAttention(operandsOf(*this, shapes),
                                             signedAttr(getQNumHeadsAttr()),
                                             signedAttr(getKvNumHeadsAttr())),
                      s);
}

/// Two matmuls (2 flops per multiply-add) plus ~5 per score (scale, bias,
/// softmax).
int64_t AttentionOp::getFlops() {
  for (Value v : getOperands())
    if (!isNone(v) && !hasStaticShape(v))
      return 0;
  ShapeOr<AttentionDims> d = attentionDims(*this, TypeShapeContext());
  if (!d)
    return 0;
  int64_t scores = d->batch * d->qHeads * d->qSeq * d->total;
  return scores * (2 * (d->headSize + d->vHeadSize) + 5);
}

namespace {
/// Flat index of element (b, head, pos, i) of a rank-3 (`B x S x H*D`) or
/// rank-4 (`B x H x S x D`) attention operand.
int64_t headIndex(bool rank3, int64_t b, int64_t h, int64_t s, int64_t i,
                  int64_t heads, int64_t seq, int64_t size) {
  return rank3 ? ((b * seq + s) * heads + h) * size + i
               : ((b * heads + h) * seq + s) * size + i;
}

/// concat(past, current) along the sequence dim as a rank-4 f64 tensor
/// `B x H x T x D`; `current` is rank 3 or 4 (see headIndex).
Tensor concatCache(const Tensor *past, const Tensor &current, bool rank3,
                   int64_t batch, int64_t heads, int64_t pastLen,
                   int64_t seq, int64_t size) {
  int64_t total = pastLen + seq;
  Tensor out(DType::F64, {batch, heads, total, size});
  double *o = out.data<double>();
  Tensor cur = current.castTo(DType::F64);
  Tensor prev = past ? past->castTo(DType::F64) : Tensor();
  const double *c = cur.data<double>(), *p = past ? prev.data<double>() : nullptr;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t t = 0; t < total; ++t)
        for (int64_t i = 0; i < size; ++i) {
          int64_t dst = ((b * heads + h) * total + t) * size + i;
          o[dst] = t < pastLen ? p[((b * heads + h) * pastLen + t) * size + i]
                               : c[headIndex(rank3, b, h, t - pastLen, i,
                                             heads, seq, size)];
        }
  return out;
}
} // namespace

LogicalResult AttentionOp::interpret(InterpreterEnv &env) {
  FailureOr<AttentionDims> dims =
      valueOrEmit(*this, attentionDims(*this, EnvShapeContext(env)));
  if (failed(dims))
    return failure();
  const AttentionDims &d = *dims;
  const double inf = std::numeric_limits<double>::infinity();
  Tensor q = env.get(getQuery()).castTo(DType::F64);
  const double *qd = q.data<double>();
  const Tensor *pastK = isNone(getPastKey()) ? nullptr : &env.get(getPastKey());
  const Tensor *pastV =
      isNone(getPastValue()) ? nullptr : &env.get(getPastValue());
  Tensor keys = concatCache(pastK, env.get(getKey()), d.rank3, d.batch,
                            d.kvHeads, d.past, d.kvSeq, d.headSize);
  Tensor values = concatCache(pastV, env.get(getValue()), d.rank3, d.batch,
                              d.kvHeads, d.past, d.kvSeq, d.vHeadSize);

  // The mask materialized at B x Hq x Sq x L as additive f64 bias.
  std::vector<double> maskBias;
  if (!isNone(getAttnMask())) {
    const Tensor &m = env.get(getAttnMask());
    Tensor full = broadcastTo(m, {d.batch, d.qHeads, d.qSeq, d.maskLen});
    maskBias.resize(full.numElements());
    for (int64_t i = 0; i < full.numElements(); ++i)
      maskBias[i] = m.dtype() == DType::Bool
                        ? (full.getAsDouble(i) != 0 ? 0.0 : -inf)
                        : full.getAsDouble(i);
  }
  std::vector<int64_t> nonpad;
  if (!isNone(getNonpadKvSeqlen())) {
    const Tensor &n = env.get(getNonpadKvSeqlen());
    for (int64_t b = 0; b < d.batch; ++b)
      nonpad.push_back(n.getAsInt(b));
  }

  double scale = getScale() ? getScale()->convertToDouble()
                            : 1.0 / std::sqrt(static_cast<double>(d.headSize));
  double softcap = getSoftcap().convertToDouble();
  int64_t mode = getQkMatmulOutputMode();
  int64_t group = d.qHeads / d.kvHeads;

  std::vector<int64_t> outShape = env.resultShape(getOutput());
  Tensor out(DType::F64, outShape);
  Tensor qk(DType::F64, {d.batch, d.qHeads, d.qSeq, d.total});
  std::vector<double> row(d.total);
  const double *kd = keys.data<double>(), *vd = values.data<double>();
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t h = 0; h < d.qHeads; ++h) {
      int64_t kvh = h / group;
      for (int64_t i = 0; i < d.qSeq; ++i) {
        double *qkRow = qk.data<double>() +
                        ((b * d.qHeads + h) * d.qSeq + i) * d.total;
        for (int64_t j = 0; j < d.total; ++j) {
          const double *kr =
              kd + ((b * d.kvHeads + kvh) * d.total + j) * d.headSize;
          const double *qr = qd + headIndex(d.rank3, b, h, i, 0, d.qHeads,
                                            d.qSeq, d.headSize);
          double s = 0;
          for (int64_t x = 0; x < d.headSize; ++x)
            s += qr[x] * kr[x];
          s *= scale;
          if (softcap > 0)
            s = softcap * std::tanh(s / softcap);
          if (mode <= 1)
            qkRow[j] = s;
          double bias = 0;
          if (!maskBias.empty())
            bias += j < d.maskLen
                        ? maskBias[((b * d.qHeads + h) * d.qSeq + i) *
                                       d.maskLen +
                                   j]
                        : -inf;
          if (getIsCausal() && j > d.past + i)
            bias = -inf;
          if (!nonpad.empty() && j >= nonpad[b])
            bias = -inf;
          row[j] = s + bias;
          if (mode == 2)
            qkRow[j] = row[j];
        }
        // Numerically stable softmax; an all -inf row gives NaN (ONNX
        // reference behaviour: exp(-inf - -inf)).
        double mx = -inf;
        for (double x : row)
          mx = std::max(mx, x);
        double sum = 0;
        for (double &x : row) {
          x = std::exp(x - mx);
          sum += x;
        }
        for (double &x : row)
          x /= sum;
        if (mode == 3)
          std::copy(row.begin(), row.end(), qkRow);
        for (int64_t x = 0; x < d.vHeadSize; ++x) {
          double acc = 0;
          for (int64_t j = 0; j < d.total; ++j)
            acc += row[j] *
                   vd[((b * d.kvHeads + kvh) * d.total + j) * d.vHeadSize + x];
          out.data<double>()[headIndex(d.rank3, b, h, i, x, d.qHeads, d.qSeq,
                                       d.vHeadSize)] = acc;
        }
      }
    }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  env.set(getPresentKey(), keys.castTo(resultDType(getPresentKey())));
  env.set(getPresentValue(), values.castTo(resultDType(getPresentValue())));
  env.set(getQkMatmulOutput(), qk.castTo(resultDType(getQkMatmulOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// RMSNormOp
//===----------------------------------------------------------------------===//

LogicalResult RMSNormOp::verify() {
  if (failed(checkElementKind(*this, "input", getInput(), kFloatElements)) ||
      failed(checkElementKind(*this, "scale", getScale(), kFloatElements)))
    return failure();
  double eps = getEpsilon().convertToDouble();
  if (!(eps >= 0) || !std::isfinite(eps))
    return emitOpError() << "attribute 'epsilon' = " << eps
                         << " must be finite and >= 0";
  return success();
}

LogicalResult RMSNormOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  return appendShape(*this,
                     shapes::inferRMSNorm(ctx.shape(getInput()),
                                          ctx.shape(getScale()), getAxis()),
                     s);
}

/// Square, sum, scale and multiply: ~4 per element.
int64_t RMSNormOp::getFlops() { return elementwiseFlops(getOutput(), 4); }

LogicalResult RMSNormOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  int64_t axis = *normalizeAxis(*this, "axis", getAxis(), in.rank());
  ArrayRef<int64_t> shape(in.shape());
  std::vector<int64_t> normalized(shape.begin() + axis, shape.end());
  int64_t rows = product(shape.take_front(axis)), len = product(normalized);
  Tensor scale = broadcastTo(env.get(getScale()), normalized);
  double eps = getEpsilon().convertToDouble();
  Tensor out(DType::F64, in.shape());
  for (int64_t r = 0; r < rows; ++r) {
    double sumSq = 0;
    for (int64_t k = 0; k < len; ++k) {
      double x = in.getAsDouble(r * len + k);
      sumSq += x * x;
    }
    double rms = std::sqrt(sumSq / static_cast<double>(std::max<int64_t>(len, 1)) + eps);
    for (int64_t k = 0; k < len; ++k)
      out.data<double>()[r * len + k] =
          in.getAsDouble(r * len + k) / rms * scale.getAsDouble(k);
  }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// RotaryEmbeddingOp
//===----------------------------------------------------------------------===//

namespace {
using shapes::RotaryDims;

/// The sizes of `op` for the operand shapes `ctx` gives (see
/// shapes::rotaryDims).
ShapeOr<RotaryDims> rotaryDims(RotaryEmbeddingOp op, const ShapeContext &ctx) {
  OperandShapes shapes(ctx);
  return shapes::rotaryDims(shapes(op.getInput()), shapes(op.getCosCache()),
                            shapes(op.getSinCache()),
                            shapes.optional(op.getPositionIds()),
                            op.getNumHeads(), op.getRotaryEmbeddingDim());
}
} // namespace

LogicalResult RotaryEmbeddingOp::verify() {
  if (failed(checkElementKind(*this, "input", getInput(), kFloatElements)) ||
      failed(checkElementKind(*this, "cos_cache", getCosCache(),
                              kFloatElements)) ||
      failed(checkElementKind(*this, "sin_cache", getSinCache(),
                              kFloatElements)) ||
      failed(checkOptionalKind(*this, "position_ids", getPositionIds(),
                               kIntElements)))
    return failure();
  if (getNumHeads() < 0)
    return emitOpError() << "attribute 'num_heads' = " << getNumHeads()
                         << " must be >= 0";
  if (getRotaryEmbeddingDim() < 0)
    return emitOpError() << "attribute 'rotary_embedding_dim' = "
                         << getRotaryEmbeddingDim() << " must be >= 0";
  return success();
}

LogicalResult
RotaryEmbeddingOp::inferShapes(const ShapeContext &ctx,
                               SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  OperandShapes shapes(ctx);
  return appendShape(
      *this,
      shapes::inferRotaryEmbedding(shapes(getInput()), shapes(getCosCache()),
                                   shapes(getSinCache()),
                                   shapes.optional(getPositionIds()),
                                   getNumHeads(), getRotaryEmbeddingDim()),
      s);
}

/// Four multiplies and two adds per rotated pair.
int64_t RotaryEmbeddingOp::getFlops() {
  for (Value v : getOperands())
    if (!isNone(v) && !hasStaticShape(v))
      return 0;
  ShapeOr<RotaryDims> d = rotaryDims(*this, TypeShapeContext());
  if (!d)
    return 0;
  return d->batch * d->heads * d->seq * (d->rotary / 2) * 6;
}

LogicalResult RotaryEmbeddingOp::interpret(InterpreterEnv &env) {
  FailureOr<RotaryDims> dims =
      valueOrEmit(*this, rotaryDims(*this, EnvShapeContext(env)));
  if (failed(dims))
    return failure();
  const RotaryDims &d = *dims;
  const Tensor &in = env.get(getInput());
  const Tensor &cos = env.get(getCosCache()), &sin = env.get(getSinCache());
  const Tensor *pos =
      isNone(getPositionIds()) ? nullptr : &env.get(getPositionIds());
  int64_t half = d.rotary / 2;
  Tensor out = in.castTo(DType::F64).clone();
  double *o = out.data<double>();
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t s = 0; s < d.seq; ++s) {
      int64_t row = b * d.seq + s;
      if (pos) {
        int64_t p = pos->getAsInt(row);
        if (p < 0 || p >= d.positions)
          return emitOpError() << "position_ids[" << b << ", " << s
                               << "] = " << p << " is out of range [0, "
                               << d.positions << ")";
        row = p;
      }
      for (int64_t h = 0; h < d.heads; ++h) {
        int64_t base =
            headIndex(d.rank3, b, h, s, 0, d.heads, d.seq, d.headSize);
        for (int64_t i = 0; i < half; ++i) {
          double c = cos.getAsDouble(row * half + i),
                 sn = sin.getAsDouble(row * half + i);
          int64_t ia = getInterleaved() ? 2 * i : i;
          int64_t ib = getInterleaved() ? 2 * i + 1 : i + half;
          double a = in.getAsDouble(base + ia), bb = in.getAsDouble(base + ib);
          o[base + ia] = a * c - bb * sn;
          o[base + ib] = a * sn + bb * c;
        }
      }
    }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// LinearAttentionOp
//===----------------------------------------------------------------------===//

namespace {
using LinearDims = shapes::LinearAttentionDims;

/// The operand shapes `shapes` reads (held there).
shapes::LinearAttentionOperands operandsOf(LinearAttentionOp op,
                                           OperandShapes &shapes) {
  return {shapes(op.getQuery()),          shapes(op.getKey()),
          shapes(op.getValue()),          shapes.optional(op.getPastState()),
          shapes.optional(op.getDecay()), shapes.optional(op.getBeta())};
}

/// The sizes of `op` for the operand shapes `ctx` gives (see
/// shapes::linearAttentionDims).
ShapeOr<LinearDims> linearDims(LinearAttentionOp op, const ShapeContext &ctx) {
  OperandShapes shapes(ctx);
  return shapes::linearAttentionDims(operandsOf(op, shapes),
                                     stringifyUpdateRule(op.getUpdateRule()).str(),
                                     op.getQNumHeads(), op.getKvNumHeads());
}
} // namespace

LogicalResult LinearAttentionOp::verify() {
  if (failed(checkElementKind(*this, "query", getQuery(), kFloatElements)) ||
      failed(checkElementKind(*this, "key", getKey(), kFloatElements)) ||
      failed(checkElementKind(*this, "value", getValue(), kFloatElements)) ||
      failed(checkOptionalKind(*this, "past_state", getPastState(),
                               kFloatElements)) ||
      failed(checkOptionalKind(*this, "decay", getDecay(), kFloatElements)) ||
      failed(checkOptionalKind(*this, "beta", getBeta(), kFloatElements)))
    return failure();
  double scale = getScale().convertToDouble();
  if (!std::isfinite(scale))
    return emitOpError() << "attribute 'scale' = " << scale
                         << " must be finite";
  return success();
}

LogicalResult
LinearAttentionOp::inferShapes(const ShapeContext &ctx,
                               SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  OperandShapes shapes(ctx);
  return appendShapes(*this,
                      shapes::inferLinearAttention(
                          operandsOf(*this, shapes),
                          stringifyUpdateRule(getUpdateRule()).str(),
                          getQNumHeads(), getKvNumHeads()),
                      s);
}

/// Per position and head: state update (~4 per state element) and the read
/// (2 per state element per query head).
int64_t LinearAttentionOp::getFlops() {
  for (Value v : getOperands())
    if (!isNone(v) && !hasStaticShape(v))
      return 0;
  ShapeOr<LinearDims> d = linearDims(*this, TypeShapeContext());
  if (!d)
    return 0;
  int64_t state = d->keySize * d->valueSize;
  return d->batch * d->seq * (4 * d->kvHeads + 2 * d->qHeads) * state;
}

LogicalResult LinearAttentionOp::interpret(InterpreterEnv &env) {
  FailureOr<LinearDims> dims =
      valueOrEmit(*this, linearDims(*this, EnvShapeContext(env)));
  if (failed(dims))
    return failure();
  const LinearDims &d = *dims;
  Tensor qt = env.get(getQuery()).castTo(DType::F64),
         kt = env.get(getKey()).castTo(DType::F64),
         vt64 = env.get(getValue()).castTo(DType::F64);
  const double *q = qt.data<double>(), *k = kt.data<double>(),
               *v = vt64.data<double>();
  int64_t dk = d.keySize, dv = d.valueSize, group = d.qHeads / d.kvHeads;
  Tensor state(DType::F64, {d.batch, d.kvHeads, dk, dv});
  double *st = state.data<double>();
  if (!isNone(getPastState())) {
    const Tensor &past = env.get(getPastState());
    for (int64_t i = 0; i < state.numElements(); ++i)
      st[i] = past.getAsDouble(i);
  }
  double scale = getScale().convertToDouble();
  if (scale == 0)
    scale = 1.0 / std::sqrt(static_cast<double>(dk));
  const Tensor *decay = d.gating ? &env.get(getDecay()) : nullptr;
  const Tensor *beta = d.delta ? &env.get(getBeta()) : nullptr;
  int64_t decayWidth = d.decayPerDim ? d.kvHeads * dk : d.kvHeads;
  Tensor out(DType::F64, {d.batch, d.seq, d.qHeads * dv});
  std::vector<double> vt(dv);
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t t = 0; t < d.seq; ++t) {
      int64_t row = b * d.seq + t;
      for (int64_t h = 0; h < d.kvHeads; ++h) {
        double *s = st + (b * d.kvHeads + h) * dk * dv;
        auto key = [&](int64_t i) {
          return k[(row * d.kvHeads + h) * dk + i];
        };
        if (decay)
          for (int64_t i = 0; i < dk; ++i) {
            double g = std::exp(decay->getAsDouble(
                row * decayWidth + (d.decayPerDim ? h * dk + i : h)));
            for (int64_t j = 0; j < dv; ++j)
              s[i * dv + j] *= g;
          }
        for (int64_t j = 0; j < dv; ++j)
          vt[j] = v[(row * d.kvHeads + h) * dv + j];
        if (beta) {
          double bt = beta->getAsDouble(row * d.betaHeads +
                                        (d.betaHeads == 1 ? 0 : h));
          for (int64_t j = 0; j < dv; ++j) {
            double retrieved = 0;
            for (int64_t i = 0; i < dk; ++i)
              retrieved += s[i * dv + j] * key(i);
            vt[j] = bt * (vt[j] - retrieved);
          }
        }
        for (int64_t i = 0; i < dk; ++i)
          for (int64_t j = 0; j < dv; ++j)
            s[i * dv + j] += key(i) * vt[j];
        for (int64_t qh = h * group; qh < (h + 1) * group; ++qh)
          for (int64_t j = 0; j < dv; ++j) {
            double acc = 0;
            for (int64_t i = 0; i < dk; ++i)
              acc += q[(row * d.qHeads + qh) * dk + i] * s[i * dv + j];
            out.data<double>()[(row * d.qHeads + qh) * dv + j] = scale * acc;
          }
      }
    }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  env.set(getPresentState(), state.castTo(resultDType(getPresentState())));
  return success();
}
