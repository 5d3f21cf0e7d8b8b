//===- TransformerOps.cpp - attention, RMS norm, rotary embedding ---------===//
//
// top.Attention, top.RMSNorm, top.RotaryEmbedding. Reference semantics read
// the operands as f64, accumulate in f64 and round once to the result type.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"

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

/// Checks that `shape` broadcasts (numpy rules) to `target` without growing
/// it: rank at most target's, every dim 1 or equal to target's.
bool broadcastsInto(ArrayRef<int64_t> shape, ArrayRef<int64_t> target) {
  if (shape.size() > target.size())
    return false;
  size_t off = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && shape[i] != target[off + i])
      return false;
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

namespace {
/// The sizes of one attention problem (see the op description).
struct AttentionDims {
  bool rank3 = false;
  int64_t batch = 0, qHeads = 0, kvHeads = 0, qSeq = 0, kvSeq = 0, past = 0,
          total = 0, headSize = 0, vHeadSize = 0, maskLen = 0;
};

/// Splits a rank-3 `B x S x hidden` operand into `heads` heads, or emits an
/// error naming the operand and the attribute.
FailureOr<int64_t> headSizeOf(AttentionOp op, StringRef operand,
                              ArrayRef<int64_t> shape, int64_t heads,
                              StringRef attr) {
  if (shape[2] % heads != 0)
    return op.emitOpError() << operand << " hidden size " << shape[2]
                            << " is not divisible by attribute '" << attr
                            << "' = " << heads;
  return shape[2] / heads;
}

/// Validates the operand shapes and attributes; every error names the
/// operand or attribute and the value.
FailureOr<AttentionDims> attentionDims(AttentionOp op) {
  SmallVector<int64_t> q = shapeOf(op.getQuery()), k = shapeOf(op.getKey()),
                       v = shapeOf(op.getValue());
  if (q.size() != 3 && q.size() != 4)
    return op.emitOpError() << "query must have rank 3 or 4, got shape "
                            << formatArray(q);
  if (k.size() != q.size() || v.size() != q.size())
    return op.emitOpError()
           << "query, key and value must have the same rank, got shapes "
           << formatArray(q) << ", " << formatArray(k) << " and "
           << formatArray(v);
  AttentionDims d;
  d.rank3 = q.size() == 3;
  d.batch = q[0];
  if (k[0] != d.batch || v[0] != d.batch)
    return op.emitOpError() << "query, key and value must have the same "
                               "batch size, got shapes "
                            << formatArray(q) << ", " << formatArray(k)
                            << " and " << formatArray(v);
  // The I64Attr getters return unsigned values; read them as signed.
  std::optional<int64_t> qAttr, kvAttr;
  if (auto a = op.getQNumHeadsAttr())
    qAttr = a.getInt();
  if (auto a = op.getKvNumHeadsAttr())
    kvAttr = a.getInt();
  if (d.rank3) {
    if (!qAttr || !kvAttr)
      return op.emitOpError() << "attributes 'q_num_heads' and "
                                 "'kv_num_heads' are required for rank-3 "
                                 "query, key and value";
    d.qHeads = *qAttr;
    d.kvHeads = *kvAttr;
    if (d.qHeads < 1 || d.kvHeads < 1)
      return op.emitOpError() << "attributes 'q_num_heads' = " << d.qHeads
                              << " and 'kv_num_heads' = " << d.kvHeads
                              << " must be >= 1";
    d.qSeq = q[1];
    d.kvSeq = k[1];
    if (v[1] != d.kvSeq)
      return op.emitOpError() << "key and value must have the same sequence "
                                 "length, got shapes "
                              << formatArray(k) << " and " << formatArray(v);
    auto qh = headSizeOf(op, "query", q, d.qHeads, "q_num_heads");
    if (failed(qh))
      return failure();
    auto kh = headSizeOf(op, "key", k, d.kvHeads, "kv_num_heads");
    if (failed(kh))
      return failure();
    auto vh = headSizeOf(op, "value", v, d.kvHeads, "kv_num_heads");
    if (failed(vh))
      return failure();
    if (*kh != *qh)
      return op.emitOpError() << "key head size " << *kh
                              << " must equal query head size " << *qh;
    d.headSize = *qh;
    d.vHeadSize = *vh;
  } else {
    d.qHeads = q[1];
    d.kvHeads = k[1];
    d.qSeq = q[2];
    d.kvSeq = k[2];
    d.headSize = q[3];
    d.vHeadSize = v[3];
    if (qAttr && *qAttr != d.qHeads)
      return op.emitOpError() << "attribute 'q_num_heads' = " << *qAttr
                              << " does not match query heads " << d.qHeads;
    if (kvAttr && *kvAttr != d.kvHeads)
      return op.emitOpError() << "attribute 'kv_num_heads' = " << *kvAttr
                              << " does not match key heads " << d.kvHeads;
    if (v[1] != d.kvHeads || v[2] != d.kvSeq || k[3] != d.headSize)
      return op.emitOpError()
             << "key must be [B, Hkv, Skv, " << d.headSize
             << "] and value [B, Hkv, Skv, Dv] with the same Hkv and Skv, got "
                "shapes "
             << formatArray(k) << " and " << formatArray(v);
  }
  if (d.kvHeads < 1 || d.qHeads % d.kvHeads != 0)
    return op.emitOpError() << "key/value heads " << d.kvHeads
                            << " must be >= 1 and divide query heads "
                            << d.qHeads;

  bool hasPastK = !isNone(op.getPastKey()), hasPastV = !isNone(op.getPastValue());
  if (hasPastK != hasPastV)
    return op.emitOpError()
           << "past_key and past_value must be given together";
  if (hasPastK) {
    SmallVector<int64_t> pk = shapeOf(op.getPastKey()),
                         pv = shapeOf(op.getPastValue());
    if (pk.size() != 4 || pv.size() != 4 || pk[0] != d.batch ||
        pk[1] != d.kvHeads || pk[3] != d.headSize || pv[0] != d.batch ||
        pv[1] != d.kvHeads || pv[2] != pk[2] || pv[3] != d.vHeadSize)
      return op.emitOpError()
             << "past_key must be [" << d.batch << ", " << d.kvHeads
             << ", P, " << d.headSize << "] and past_value [" << d.batch
             << ", " << d.kvHeads << ", P, " << d.vHeadSize << "], got "
             << formatArray(pk) << " and " << formatArray(pv);
    d.past = pk[2];
  }
  if (__builtin_add_overflow(d.past, d.kvSeq, &d.total))
    return op.emitOpError() << "total sequence length overflows int64";

  d.maskLen = d.total;
  if (!isNone(op.getAttnMask())) {
    SmallVector<int64_t> m = shapeOf(op.getAttnMask());
    if (m.empty() || m.size() > 4 || m.back() > d.total ||
        !broadcastsInto(m, {d.batch, d.qHeads, d.qSeq, m.back()}))
      return op.emitOpError()
             << "attn_mask shape " << formatArray(m)
             << " must broadcast to [" << d.batch << ", " << d.qHeads << ", "
             << d.qSeq << ", L] with L <= total sequence length " << d.total;
    d.maskLen = m.back();
  }
  if (!isNone(op.getNonpadKvSeqlen())) {
    SmallVector<int64_t> n = shapeOf(op.getNonpadKvSeqlen());
    if (n.size() != 1 || n[0] != d.batch)
      return op.emitOpError() << "nonpad_kv_seqlen must have shape ["
                              << d.batch << "], got " << formatArray(n);
  }
  // The result sizes must fit int64.
  SmallVector<SmallVector<int64_t, 4>> shapes = {
      {d.batch, d.qHeads, d.qSeq, d.total},
      {d.batch, d.qHeads, d.qSeq, d.vHeadSize},
      {d.batch, d.kvHeads, d.total, d.headSize},
      {d.batch, d.kvHeads, d.total, d.vHeadSize}};
  for (const auto &shape : shapes)
    if (failed(checkedElementCount(op, shape)))
      return failure();
  return d;
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
AttentionOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  auto d = attentionDims(*this);
  if (failed(d))
    return failure();
  if (d->rank3)
    s.push_back({d->batch, d->qSeq, d->qHeads * d->vHeadSize});
  else
    s.push_back({d->batch, d->qHeads, d->qSeq, d->vHeadSize});
  s.push_back({d->batch, d->kvHeads, d->total, d->headSize});
  s.push_back({d->batch, d->kvHeads, d->total, d->vHeadSize});
  s.push_back({d->batch, d->qHeads, d->qSeq, d->total});
  return success();
}

/// Two matmuls (2 flops per multiply-add) plus ~5 per score (scale, bias,
/// softmax).
int64_t AttentionOp::getFlops() {
  for (Value v : getOperands())
    if (!isNone(v) && !hasStaticShape(v))
      return 0;
  auto d = attentionDims(*this);
  if (failed(d))
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
  AttentionDims d = *attentionDims(*this);
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

LogicalResult RMSNormOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  SmallVector<int64_t> in = ctx.shape(getInput());
  auto axis = normalizeAxis(*this, "axis", getAxis(), in.size());
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = ArrayRef<int64_t>(in).drop_front(*axis);
  SmallVector<int64_t> scale = ctx.shape(getScale());
  if (!broadcastsInto(scale, normalized))
    return emitOpError() << "scale shape " << formatArray(scale)
                         << " does not broadcast to the normalized shape "
                         << formatArray(normalized);
  s.push_back(in);
  return success();
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
/// The sizes of a rotary embedding (see the op description).
struct RotaryDims {
  bool rank3 = false;
  int64_t batch = 0, heads = 0, seq = 0, headSize = 0, rotary = 0,
          positions = 0;
};

FailureOr<RotaryDims> rotaryDims(RotaryEmbeddingOp op) {
  SmallVector<int64_t> in = shapeOf(op.getInput());
  RotaryDims d;
  int64_t numHeads = op.getNumHeads();
  if (in.size() == 4) {
    d.batch = in[0];
    d.heads = in[1];
    d.seq = in[2];
    d.headSize = in[3];
    if (numHeads != 0 && numHeads != d.heads)
      return op.emitOpError() << "attribute 'num_heads' = " << numHeads
                              << " does not match input heads " << d.heads;
  } else if (in.size() == 3) {
    if (numHeads < 1 || in[2] % numHeads != 0)
      return op.emitOpError() << "attribute 'num_heads' = " << numHeads
                              << " must be >= 1 and divide the hidden size "
                              << in[2] << " of a rank-3 input";
    d.rank3 = true;
    d.batch = in[0];
    d.seq = in[1];
    d.heads = numHeads;
    d.headSize = in[2] / numHeads;
  } else {
    return op.emitOpError() << "input must have rank 3 or 4, got shape "
                            << formatArray(in);
  }
  int64_t r = op.getRotaryEmbeddingDim();
  d.rotary = r == 0 ? d.headSize : r;
  if (r < 0 || d.rotary > d.headSize || d.rotary % 2 != 0)
    return op.emitOpError() << "attribute 'rotary_embedding_dim' = " << r
                            << " must be 0 or even, positive and <= head size "
                            << d.headSize;
  SmallVector<int64_t> cos = shapeOf(op.getCosCache()),
                       sin = shapeOf(op.getSinCache());
  if (cos != sin)
    return op.emitOpError() << "cos_cache and sin_cache must have the same "
                               "shape, got "
                            << formatArray(cos) << " and " << formatArray(sin);
  int64_t half = d.rotary / 2;
  if (!isNone(op.getPositionIds())) {
    SmallVector<int64_t> pos = shapeOf(op.getPositionIds());
    if (pos.size() != 2 || pos[0] != d.batch || pos[1] != d.seq)
      return op.emitOpError() << "position_ids must have shape [" << d.batch
                              << ", " << d.seq << "], got "
                              << formatArray(pos);
    if (cos.size() != 2 || cos[1] != half)
      return op.emitOpError() << "cos_cache must have shape [max_position, "
                              << half << "] with position_ids, got "
                              << formatArray(cos);
    d.positions = cos[0];
  } else if (cos.size() != 3 || cos[0] != d.batch || cos[1] != d.seq ||
             cos[2] != half) {
    return op.emitOpError() << "cos_cache must have shape [" << d.batch
                            << ", " << d.seq << ", " << half
                            << "] without position_ids, got "
                            << formatArray(cos);
  }
  return d;
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
RotaryEmbeddingOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()) || failed(rotaryDims(*this)))
    return failure();
  s.push_back(ctx.shape(getInput()));
  return success();
}

/// Four multiplies and two adds per rotated pair.
int64_t RotaryEmbeddingOp::getFlops() {
  for (Value v : getOperands())
    if (!isNone(v) && !hasStaticShape(v))
      return 0;
  auto d = rotaryDims(*this);
  if (failed(d))
    return 0;
  return d->batch * d->heads * d->seq * (d->rotary / 2) * 6;
}

LogicalResult RotaryEmbeddingOp::interpret(InterpreterEnv &env) {
  RotaryDims d = *rotaryDims(*this);
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
/// The sizes of a linear attention (see the op description).
struct LinearDims {
  int64_t batch = 0, seq = 0, qHeads = 0, kvHeads = 0, keySize = 0,
          valueSize = 0, betaHeads = 0;
  /// Gates per key dim (decay `B x T x Hkv*Dk`) rather than per head.
  bool decayPerDim = false;
  bool gating = false, delta = false;
};

FailureOr<LinearDims> linearDims(LinearAttentionOp op) {
  LinearDims d;
  StringRef rule = op.getUpdateRule();
  if (rule != "linear" && rule != "gated" && rule != "delta" &&
      rule != "gated_delta")
    return op.emitOpError() << "attribute 'update_rule' = '" << rule
                            << "' must be 'linear', 'gated', 'delta' or "
                               "'gated_delta'";
  d.gating = rule == "gated" || rule == "gated_delta";
  d.delta = rule == "delta" || rule == "gated_delta";
  d.qHeads = op.getQNumHeads();
  d.kvHeads = op.getKvNumHeads();
  if (d.qHeads < 1 || d.kvHeads < 1 || d.qHeads % d.kvHeads != 0)
    return op.emitOpError() << "attributes 'q_num_heads' = " << d.qHeads
                            << " and 'kv_num_heads' = " << d.kvHeads
                            << " must be >= 1, kv_num_heads dividing "
                               "q_num_heads";
  SmallVector<int64_t> q = shapeOf(op.getQuery()), k = shapeOf(op.getKey()),
                       v = shapeOf(op.getValue());
  if (q.size() != 3 || k.size() != 3 || v.size() != 3 || k[0] != q[0] ||
      v[0] != q[0] || k[1] != q[1] || v[1] != q[1])
    return op.emitOpError() << "query, key and value must be rank 3 "
                               "[B, T, heads*size] with the same B and T, "
                               "got shapes "
                            << formatArray(q) << ", " << formatArray(k)
                            << " and " << formatArray(v);
  d.batch = q[0];
  d.seq = q[1];
  if (q[2] % d.qHeads != 0 || v[2] % d.kvHeads != 0 ||
      k[2] != q[2] / d.qHeads * d.kvHeads)
    return op.emitOpError()
           << "query hidden size " << q[2] << " must split into q_num_heads = "
           << d.qHeads << " heads of size Dk, key hidden size " << k[2]
           << " must be kv_num_heads * Dk and value hidden size " << v[2]
           << " a multiple of kv_num_heads = " << d.kvHeads;
  d.keySize = q[2] / d.qHeads;
  d.valueSize = v[2] / d.kvHeads;
  SmallVector<int64_t> stateShape = {d.batch, d.kvHeads, d.keySize,
                                     d.valueSize};
  if (!isNone(op.getPastState()) && shapeOf(op.getPastState()) != stateShape)
    return op.emitOpError() << "past_state must have shape "
                            << formatArray(stateShape) << ", got "
                            << formatArray(shapeOf(op.getPastState()));
  if (isNone(op.getDecay()) == d.gating)
    return op.emitOpError() << "decay must be given exactly when "
                               "'update_rule' gates (got '"
                            << rule << "')";
  if (isNone(op.getBeta()) == d.delta)
    return op.emitOpError() << "beta must be given exactly when "
                               "'update_rule' uses the delta rule (got '"
                            << rule << "')";
  if (d.gating) {
    SmallVector<int64_t> g = shapeOf(op.getDecay());
    if (g.size() != 3 || g[0] != d.batch || g[1] != d.seq ||
        (g[2] != d.kvHeads && g[2] != d.kvHeads * d.keySize))
      return op.emitOpError() << "decay must have shape [" << d.batch << ", "
                              << d.seq << ", " << d.kvHeads << "] or ["
                              << d.batch << ", " << d.seq << ", "
                              << d.kvHeads * d.keySize << "], got "
                              << formatArray(g);
    d.decayPerDim = g[2] != d.kvHeads;
  }
  if (d.delta) {
    SmallVector<int64_t> b = shapeOf(op.getBeta());
    if (b.size() != 3 || b[0] != d.batch || b[1] != d.seq ||
        (b[2] != d.kvHeads && b[2] != 1))
      return op.emitOpError() << "beta must have shape [" << d.batch << ", "
                              << d.seq << ", " << d.kvHeads << "] or ["
                              << d.batch << ", " << d.seq << ", 1], got "
                              << formatArray(b);
    d.betaHeads = b[2];
  }
  return d;
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
LinearAttentionOp::inferShapes(const ShapeContext &ctx, SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verify()))
    return failure();
  auto d = linearDims(*this);
  if (failed(d))
    return failure();
  s.push_back({d->batch, d->seq, d->qHeads * d->valueSize});
  s.push_back({d->batch, d->kvHeads, d->keySize, d->valueSize});
  return success();
}

/// Per position and head: state update (~4 per state element) and the read
/// (2 per state element per query head).
int64_t LinearAttentionOp::getFlops() {
  for (Value v : getOperands())
    if (!isNone(v) && !hasStaticShape(v))
      return 0;
  auto d = linearDims(*this);
  if (failed(d))
    return 0;
  int64_t state = d->keySize * d->valueSize;
  return d->batch * d->seq * (4 * d->kvHeads + 2 * d->qHeads) * state;
}

LogicalResult LinearAttentionOp::interpret(InterpreterEnv &env) {
  LinearDims d = *linearDims(*this);
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
