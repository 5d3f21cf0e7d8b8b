//===- HLInterpret.cpp - the reference semantics of the HL ops ------------===//
//
// Each HL op's InterpretableOpInterface: the NPU's golden model. The integer
// arithmetic is the shared numeric contract of docs/npu.md (accumulators of
// `accumulator_bits` in two's complement, strata::intq's requantization);
// the npu-sim simulator must agree with it bit for bit.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/HL/IR/HLOps.h"
#include "strata/Interfaces/HostTypes.h"
#include "strata/Support/IntegerRequant.h"
#include "strata/Support/IntegerTable16.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::hl;

namespace {

std::vector<int64_t> asInts(const Tensor &t) {
  Tensor w = t.castTo(DType::I64);
  const int64_t *p = w.data<int64_t>();
  return std::vector<int64_t>(p, p + w.numElements());
}

std::vector<float> asFloats(const Tensor &t) {
  Tensor w = t.castTo(DType::F32);
  const float *p = w.data<float>();
  return std::vector<float>(p, p + w.numElements());
}

DType resultType(Value v) { return dtypeOfValue(v).value_or(DType::F32); }

/// The result tensor of `v` holding `values` (already in its range).
Tensor fromInts(Value v, std::vector<int64_t> shape,
                const std::vector<int64_t> &values) {
  Tensor t(DType::I64, std::move(shape));
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t.castTo(resultType(v));
}

/// The result tensor of `v` holding `values`, rounded to its float type
/// (bf16: nearest even).
Tensor fromFloats(Value v, std::vector<int64_t> shape,
                  const std::vector<float> &values) {
  Tensor t(DType::F32, std::move(shape));
  std::copy(values.begin(), values.end(), t.data<float>());
  return t.castTo(resultType(v));
}

std::vector<int64_t> shapeOf(Value v) {
  auto s = cast<RankedTensorType>(v.getType()).getShape();
  return std::vector<int64_t>(s.begin(), s.end());
}

/// `acc` as an `bits`-wide two's complement value.
int64_t wrapAccumulator(uint64_t acc, int64_t bits) {
  if (bits >= 64)
    return static_cast<int64_t>(acc);
  uint64_t m = uint64_t(1) << bits;
  acc &= m - 1;
  return acc >= m / 2 ? static_cast<int64_t>(acc) - static_cast<int64_t>(m)
                      : static_cast<int64_t>(acc);
}

/// `hl.segmentation` of an `N x C x H x W` tensor into `N x C x s*s x Hs x
/// Ws`, padding with `padValue`.
template <typename T>
std::vector<T> segment(const std::vector<T> &in, ArrayRef<int64_t> shape,
                       int64_t s, ArrayRef<int64_t> pad, T padValue,
                       std::vector<int64_t> &outShape) {
  int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  int64_t hs = segmentedSize(h, pad[0], pad[2], s),
          ws = segmentedSize(w, pad[1], pad[3], s);
  outShape = {n, c, s * s, hs, ws};
  std::vector<T> out(static_cast<size_t>(n * c * s * s * hs * ws), padValue);
  for (int64_t b = 0; b < n * c; ++b)
    for (int64_t a = 0; a < s; ++a)
      for (int64_t bb = 0; bb < s; ++bb)
        for (int64_t u = 0; u < hs; ++u) {
          int64_t y = s * u + a - pad[0];
          if (y < 0 || y >= h)
            continue;
          for (int64_t v = 0; v < ws; ++v) {
            int64_t x = s * v + bb - pad[1];
            if (x < 0 || x >= w)
              continue;
            out[(((b * s * s) + a * s + bb) * hs + u) * ws + v] =
                in[(b * h + y) * w + x];
          }
        }
  return out;
}

/// Reads the taps of a window op's input, plain (with padding) or
/// segmented (`segments > 1`, the phases of hl.segmentation).
struct Window {
  std::vector<int64_t> in;
  int64_t n, c, h, w, s = 1, hs = 0, ws = 0;
  int64_t kh, kw;
  ArrayRef<int64_t> pad, stride, dilation;
  int64_t outH, outW;

  /// Flat index of tap (kh, kw) of output (y, x) of image plane `nc`
  /// (= n * C + c), or -1 for padding.
  int64_t index(int64_t nc, int64_t y, int64_t x, int64_t i, int64_t j) const {
    if (s > 1) {
      int64_t oy = i * dilation[0], ox = j * dilation[1];
      int64_t u = y + oy / s, v = x + ox / s;
      if (u >= hs || v >= ws)
        return -1;
      return ((nc * s * s + (oy % s) * s + ox % s) * hs + u) * ws + v;
    }
    int64_t iy = y * stride[0] + i * dilation[0] - pad[0];
    int64_t ix = x * stride[1] + j * dilation[1] - pad[1];
    if (iy < 0 || iy >= h || ix < 0 || ix >= w)
      return -1;
    return (nc * h + iy) * w + ix;
  }
};

/// The window of `op` over `input` with kernel `k`; the output extent is
/// the plain (unsegmented) one.
template <typename OpT>
Window makeWindow(OpT op, Value input, int64_t kh, int64_t kw, Value output) {
  Window win;
  win.in = shapeOf(input);
  win.n = win.in[0];
  win.c = win.in[1];
  win.kh = kh;
  win.kw = kw;
  win.pad = op.getPad();
  win.stride = op.getStride();
  win.dilation = op.getDilation();
  win.s = op.getSegments();
  if (win.s > 1) {
    win.hs = win.in[3];
    win.ws = win.in[4];
    win.h = win.w = 0;
  } else {
    win.h = win.in[2];
    win.w = win.in[3];
  }
  if (op.getSegmentOutput() && win.s > 1) {
    // A segmented input: HL's bound over the phases (as the verifier's).
    win.outH = win.hs - (win.dilation[0] * (kh - 1)) / win.s;
    win.outW = win.ws - (win.dilation[1] * (kw - 1)) / win.s;
  } else if (op.getSegmentOutput()) {
    win.outH = windowOutputSize(win.h, win.pad[0], win.pad[2], kh,
                                win.stride[0], win.dilation[0]);
    win.outW = windowOutputSize(win.w, win.pad[1], win.pad[3], kw,
                                win.stride[1], win.dilation[1]);
  } else {
    std::vector<int64_t> out = shapeOf(output);
    win.outH = out[2];
    win.outW = out[3];
  }
  return win;
}

/// Stores the plain `N x C x outH x outW` result of a window op, segmented
/// when the op writes its output for a strided consumer.
template <typename OpT, typename T>
void storeWindowResult(OpT op, InterpreterEnv &env, const Window &win,
                       int64_t channels, std::vector<T> values, T padValue,
                       bool isFloat) {
  std::vector<int64_t> shape = {win.n, channels, win.outH, win.outW};
  if (auto so = op.getSegmentOutput()) {
    std::vector<int64_t> segShape;
    values =
        segment(values, shape, (*so)[0], so->drop_front(), padValue, segShape);
    shape = segShape;
  }
  if constexpr (std::is_same_v<T, float>)
    env.set(op.getOutput(), fromFloats(op.getOutput(), shape, values));
  else
    env.set(op.getOutput(), fromInts(op.getOutput(), shape, values));
  (void)isFloat;
}

/// The bf16 MAC kernels' epilogue on the f32 sum: relu, then relu_limit.
template <typename OpT> float reluF32(OpT op, float acc) {
  if (!op.getRelu())
    return acc;
  acc = std::max(acc, 0.0f);
  if (auto limit = op.getReluLimit())
    acc = std::min(acc, static_cast<float>(limit->convertToDouble()));
  return acc;
}

/// `requantMultiplierShift`, or `requantTFLite` for `rounding = "tflite"`.
int64_t requantBy(StringRef rounding, int64_t x, int64_t multiplier,
                  int64_t shift, int64_t zp, int64_t lo, int64_t hi) {
  if (rounding == "tflite")
    return intq::requantTFLite(x, multiplier, shift, zp, lo, hi);
  return intq::requantMultiplierShift(x, multiplier, shift, zp, lo, hi);
}

/// The MAC kernels' epilogue on one accumulator.
template <typename OpT>
int64_t requantize(OpT op, int64_t acc, int64_t multiplier, int64_t shift,
                   int64_t zpOffset = 0) {
  return requantBy(
      op.getRounding(),
      wrapAccumulator(static_cast<uint64_t>(acc), op.getAccumulatorBits()),
      multiplier, shift, op.getOutputZp() + zpOffset, op.getClipMin(),
      op.getClipMax());
}

/// Adds `(x - zp) * w` of tap (i, j) of input plane `nc` to the
/// accumulators `acc` of every output pixel (outH x outW) whose tap is
/// inside the input; padding adds nothing. `mac(a, x, w)` is one step.
/// Called for the taps in the order ic, kh, kw, so every output element
/// sums its products in that order.
template <typename Acc, typename In, typename W, typename Mac>
void accumulateTap(const Window &win, const In *x, int64_t nc, int64_t i,
                   int64_t j, W w, Acc *acc, Mac mac) {
  int64_t outH = win.outH, outW = win.outW;
  if (win.s > 1) {
    int64_t s = win.s, oy = i * win.dilation[0], ox = j * win.dilation[1];
    const In *plane =
        x + (nc * s * s + (oy % s) * s + ox % s) * win.hs * win.ws;
    int64_t dy = oy / s, dx = ox / s;
    int64_t xEnd = std::min(outW, win.ws - dx);
    for (int64_t y = 0; y < outH && y + dy < win.hs; ++y) {
      const In *row = plane + (y + dy) * win.ws + dx;
      Acc *a = acc + y * outW;
      for (int64_t xo = 0; xo < xEnd; ++xo)
        mac(a[xo], row[xo], w);
    }
    return;
  }
  int64_t sh = win.stride[0], sw = win.stride[1];
  int64_t off = j * win.dilation[1] - win.pad[1];
  // Output columns whose input column x*sw + off lies in [0, W).
  int64_t xLo = off < 0 ? (-off + sw - 1) / sw : 0;
  int64_t xHi = win.w - off <= 0 ? 0 : (win.w - off + sw - 1) / sw;
  xHi = std::min(xHi, outW);
  const In *plane = x + nc * win.h * win.w;
  for (int64_t y = 0; y < outH; ++y) {
    int64_t iy = y * sh + i * win.dilation[0] - win.pad[0];
    if (iy < 0 || iy >= win.h)
      continue;
    const In *row = plane + iy * win.w;
    Acc *a = acc + y * outW;
    for (int64_t xo = xLo; xo < xHi; ++xo)
      mac(a[xo], row[xo * sw + off], w);
  }
}

/// Convolution (conv2d and depthwise, which is groups = C with weights
/// `(C/B) x 1 x KH x KW x B` seen the same way).
template <typename OpT>
LogicalResult interpretConv(OpT op, InterpreterEnv &env, int64_t groups,
                            int64_t kh, int64_t kw, int64_t block,
                            int64_t outChannels) {
  Window win = makeWindow(op, op.getInput(), kh, kw, op.getOutput());
  int64_t cg = win.c / groups, og = outChannels / groups;
  int64_t plane = win.outH * win.outW;
  // Packed weight element (o, ic, i, j): ((o/B * cg + ic) * KH + i) * KW + j)
  // * B + o % B.
  auto wIndex = [&](int64_t o, int64_t ic, int64_t i, int64_t j) {
    return (((o / block * cg + ic) * kh + i) * kw + j) * block + o % block;
  };
  bool isFloat = formatOf(op.getOutput().getType()) == Format::BF16;
  if (isFloat) {
    std::vector<float> x = asFloats(env.get(op.getInput())),
                       w = asFloats(env.get(op.getWeights())),
                       bias = asFloats(env.get(op.getScaleBias()));
    std::vector<float> out(static_cast<size_t>(win.n * outChannels * plane));
    for (int64_t b = 0; b < win.n; ++b)
      for (int64_t o = 0; o < outChannels; ++o) {
        float *acc = out.data() + (b * outChannels + o) * plane;
        std::fill(acc, acc + plane, bias[o]);
        for (int64_t ic = 0; ic < cg; ++ic) {
          int64_t nc = b * win.c + (o / og) * cg + ic;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j)
              accumulateTap(win, x.data(), nc, i, j, w[wIndex(o, ic, i, j)],
                            acc, [](float &a, float xv, float wv) {
                              float p = xv * wv;
                              a = a + p;
                            });
        }
        for (int64_t p = 0; p < plane; ++p)
          acc[p] = reluF32(op, acc[p]);
      }
    storeWindowResult(op, env, win, outChannels, std::move(out), 0.0f, true);
    return success();
  }
  std::vector<int64_t> x = asInts(env.get(op.getInput())),
                       w = asInts(env.get(op.getWeights())),
                       sb = asInts(env.get(op.getScaleBias()));
  int64_t izp = op.getInputZp(), wzp = op.getWeightZp();
  // Rows (bias, multiplier, shift[, output zero point offset]).
  int64_t cols = shapeOf(op.getScaleBias())[1];
  std::vector<int64_t> out(static_cast<size_t>(win.n * outChannels * plane));
  std::vector<uint64_t> acc(static_cast<size_t>(plane));
  for (int64_t b = 0; b < win.n; ++b)
    for (int64_t o = 0; o < outChannels; ++o) {
      const int64_t *row = sb.data() + o * cols;
      std::fill(acc.begin(), acc.end(), static_cast<uint64_t>(row[0]));
      for (int64_t ic = 0; ic < cg; ++ic) {
        int64_t nc = b * win.c + (o / og) * cg + ic;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j)
            accumulateTap(win, x.data(), nc, i, j, w[wIndex(o, ic, i, j)] - wzp,
                          acc.data(),
                          [izp](uint64_t &a, int64_t xv, int64_t wv) {
                            a += static_cast<uint64_t>((xv - izp) * wv);
                          });
      }
      int64_t *dst = out.data() + (b * outChannels + o) * plane;
      for (int64_t p = 0; p < plane; ++p)
        dst[p] = requantize(op, static_cast<int64_t>(acc[p]), row[1], row[2],
                            cols == 4 ? row[3] : 0);
    }
  storeWindowResult(op, env, win, outChannels, std::move(out), op.getOutputZp(),
                    false);
  return success();
}

/// `out[b, m, n] = epilogue(bias[n] + sum_k a[b, m, k] * w(k, n))` for
/// fully_connected and matmul; `rhs(b, k, n)` gives the flat index of the
/// right operand's element.
template <typename OpT, typename Index>
LogicalResult interpretGemm(OpT op, InterpreterEnv &env, Value lhs, Value rhs,
                            int64_t batch, int64_t m, int64_t k, int64_t n,
                            Index rhsIndex) {
  std::vector<int64_t> shape = shapeOf(op.getOutput());
  if (formatOf(op.getOutput().getType()) == Format::BF16) {
    std::vector<float> a = asFloats(env.get(lhs)), w = asFloats(env.get(rhs)),
                       bias = asFloats(env.get(op.getScaleBias()));
    std::vector<float> out(static_cast<size_t>(batch * m * n));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float acc = bias[j];
          for (int64_t kk = 0; kk < k; ++kk) {
            float p = a[(b * m + i) * k + kk] * w[rhsIndex(b, kk, j)];
            acc = acc + p;
          }
          out[(b * m + i) * n + j] = reluF32(op, acc);
        }
    env.set(op.getOutput(), fromFloats(op.getOutput(), shape, out));
    return success();
  }
  std::vector<int64_t> a = asInts(env.get(lhs)), w = asInts(env.get(rhs)),
                       sb = asInts(env.get(op.getScaleBias()));
  int64_t izp = op.getInputZp(), wzp = op.getWeightZp();
  std::vector<int64_t> out(static_cast<size_t>(batch * m * n));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        uint64_t acc = static_cast<uint64_t>(sb[j * 3]);
        for (int64_t kk = 0; kk < k; ++kk)
          acc += static_cast<uint64_t>((a[(b * m + i) * k + kk] - izp) *
                                       (w[rhsIndex(b, kk, j)] - wzp));
        out[(b * m + i) * n + j] = requantize(op, static_cast<int64_t>(acc),
                                              sb[j * 3 + 1], sb[j * 3 + 2]);
      }
  env.set(op.getOutput(), fromInts(op.getOutput(), shape, out));
  return success();
}

constexpr int64_t kWide = std::numeric_limits<int64_t>::max();

/// The elementwise binary ops; `combine` joins the rescaled operands.
template <typename OpT, typename IntFn, typename FloatFn>
LogicalResult interpretBinary(OpT op, InterpreterEnv &env, bool rescale,
                              IntFn combine, FloatFn combineFloat) {
  std::vector<int64_t> shape = shapeOf(op.getOutput());
  if (formatOf(op.getOutput().getType()) == Format::BF16) {
    std::vector<float> a = asFloats(env.get(op.getLhs())),
                       b = asFloats(env.get(op.getRhs())), out(a.size());
    for (size_t i = 0; i < a.size(); ++i)
      out[i] = combineFloat(a[i], b[i]);
    env.set(op.getOutput(), fromFloats(op.getOutput(), shape, out));
    return success();
  }
  std::vector<int64_t> a = asInts(env.get(op.getLhs())),
                       b = asInts(env.get(op.getRhs())), out(a.size());
  bool tflite = op.getRounding() == "tflite";
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t l = a[i] - op.getLhsZp(), r = b[i] - op.getRhsZp();
    // The rescaled inputs are unclamped (tflite: int32, as TFLite's ADD).
    int64_t lo = tflite ? std::numeric_limits<int32_t>::min() : -kWide,
            hi = tflite ? std::numeric_limits<int32_t>::max() : kWide;
    if (rescale) {
      l = requantBy(op.getRounding(), l * (int64_t(1) << op.getLeftShift()),
                    op.getLhsMultiplier(), op.getLhsShift(), 0, lo, hi);
      r = requantBy(op.getRounding(), r * (int64_t(1) << op.getLeftShift()),
                    op.getRhsMultiplier(), op.getRhsShift(), 0, lo, hi);
    }
    out[i] = requantBy(op.getRounding(), combine(l, r),
                       op.getOutputMultiplier(), op.getOutputShift(),
                       op.getOutputZp(), op.getClipMin(), op.getClipMax());
  }
  env.set(op.getOutput(), fromInts(op.getOutput(), shape, out));
  return success();
}

/// Moves elements: `out[i] = in[source(i)]` on raw bytes.
template <typename Fn>
Tensor gatherBytes(const Tensor &in, std::vector<int64_t> outShape, Fn source) {
  Tensor out(in.dtype(), std::move(outShape));
  size_t es = dtypeSize(in.dtype());
  const char *src = static_cast<const char *>(in.raw());
  char *dst = static_cast<char *>(out.raw());
  for (int64_t i = 0; i < out.numElements(); ++i)
    std::memcpy(dst + i * es, src + source(i) * es, es);
  return out;
}

} // namespace

LogicalResult Conv2DOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> wt = shapeOf(getWeights());
  return interpretConv(*this, env, getGroups(), wt[2], wt[3], wt[4],
                       shapeOf(getOutput())[1]);
}

LogicalResult DepthwiseConv2DOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> wt = shapeOf(getWeights()), in = shapeOf(getInput());
  return interpretConv(*this, env, in[1], wt[1], wt[2], wt[3], in[1]);
}

LogicalResult FullyConnectedOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> in = shapeOf(getInput()), wt = shapeOf(getWeights());
  int64_t block = wt[2], k = in[1];
  return interpretGemm(*this, env, getInput(), getWeights(), 1, in[0], k,
                       shapeOf(getOutput())[1],
                       [&](int64_t, int64_t kk, int64_t o) {
                         return (o / block * k + kk) * block + o % block;
                       });
}

LogicalResult MatMulOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> a = shapeOf(getLhs()), b = shapeOf(getRhs());
  size_t r = a.size();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < r; ++i)
    batch *= a[i];
  int64_t m = a[r - 2], k = a[r - 1], n = b[r - 1];
  return interpretGemm(
      *this, env, getLhs(), getRhs(), batch, m, k, n,
      [&](int64_t bb, int64_t kk, int64_t j) { return (bb * k + kk) * n + j; });
}

LogicalResult AddOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, true, [](int64_t a, int64_t b) { return a + b; },
      [](float a, float b) { return a + b; });
}
LogicalResult SubOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, true, [](int64_t a, int64_t b) { return a - b; },
      [](float a, float b) { return a - b; });
}
LogicalResult MulOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, false, [](int64_t a, int64_t b) { return a * b; },
      [](float a, float b) { return a * b; });
}
LogicalResult MinOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, true, [](int64_t a, int64_t b) { return std::min(a, b); },
      [](float a, float b) { return std::min(a, b); });
}
LogicalResult MaxOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, true, [](int64_t a, int64_t b) { return std::max(a, b); },
      [](float a, float b) { return std::max(a, b); });
}

LogicalResult ActivationOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> shape = shapeOf(getOutput());
  if (formatOf(getOutput().getType()) == Format::BF16) {
    std::vector<float> x = asFloats(env.get(getInput()));
    for (float &v : x)
      v = std::clamp(v, static_cast<float>(getClipMin()),
                     static_cast<float>(getClipMax()));
    env.set(getOutput(), fromFloats(getOutput(), shape, x));
    return success();
  }
  std::vector<int64_t> x = asInts(env.get(getInput()));
  for (int64_t &v : x)
    v = requantBy(getRounding(), v - getInputZp(), getMultiplier(), getShift(),
                  getOutputZp(), getClipMin(), getClipMax());
  env.set(getOutput(), fromInts(getOutput(), shape, x));
  return success();
}

LogicalResult TableOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> x = asInts(env.get(getInput())),
                       table = asInts(env.get(getTable()));
  int64_t lo = storageRange(getInput().getType()).first;
  auto [inLo, inHi] = storageRange(getInput().getType());
  // A per-channel table: row c for the elements of channel c (dim 1).
  std::vector<int64_t> in = shapeOf(getInput()), tShape = shapeOf(getTable());
  int64_t entries = tShape.back();
  int64_t channels = tShape.size() == 2 ? in[1] : 1, inner = 1;
  for (size_t d = 2; d < in.size() && channels > 1; ++d)
    inner *= in[d];
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t &v = x[i];
    if (v < inLo || v > inHi)
      return emitOpError("input value ") << v << " is outside the table";
    int64_t c = channels > 1 ? (static_cast<int64_t>(i) / inner) % channels : 0;
    v = table[c * entries + v - lo];
  }
  env.set(getOutput(), fromInts(getOutput(), shapeOf(getOutput()), x));
  return success();
}

LogicalResult Table16Op::interpret(InterpreterEnv &env) {
  std::vector<int64_t> x = asInts(env.get(getInput())),
                       entries = asInts(env.get(getTable()));
  if (static_cast<int64_t>(entries.size()) != intq::kTable16Entries)
    return emitOpError("table holds ")
           << entries.size() << " entries, not " << intq::kTable16Entries;
  std::vector<int16_t> table(entries.begin(), entries.end());
  for (int64_t &v : x) {
    if (v < -32768 || v > 32767)
      return emitOpError("input value ") << v << " is outside int16";
    v = intq::table16Lookup(table.data(), static_cast<int16_t>(v), -128, 127);
  }
  env.set(getOutput(), fromInts(getOutput(), shapeOf(getOutput()), x));
  return success();
}

LogicalResult MaxPoolOp::interpret(InterpreterEnv &env) {
  ArrayRef<int64_t> k = getKernel();
  Window win = makeWindow(*this, getInput(), k[0], k[1], getOutput());
  int64_t plane = win.outH * win.outW;
  bool isFloat = formatOf(getOutput().getType()) == Format::BF16;
  auto run = [&](auto x, auto lowest) {
    using T = decltype(lowest);
    std::vector<T> out(static_cast<size_t>(win.n * win.c * plane), lowest);
    for (int64_t nc = 0; nc < win.n * win.c; ++nc)
      for (int64_t y = 0; y < win.outH; ++y)
        for (int64_t xo = 0; xo < win.outW; ++xo) {
          T best = lowest;
          for (int64_t i = 0; i < win.kh; ++i)
            for (int64_t j = 0; j < win.kw; ++j) {
              int64_t idx = win.index(nc, y, xo, i, j);
              if (idx >= 0)
                best = std::max(best, x[idx]);
            }
          out[nc * plane + y * win.outW + xo] = best;
        }
    storeWindowResult(*this, env, win, win.c, std::move(out), lowest, isFloat);
  };
  if (isFloat)
    run(asFloats(env.get(getInput())), -std::numeric_limits<float>::infinity());
  else
    run(asInts(env.get(getInput())), storageRange(getOutput().getType()).first);
  return success();
}

LogicalResult AvgPoolOp::interpret(InterpreterEnv &env) {
  ArrayRef<int64_t> k = getKernel();
  Window win = makeWindow(*this, getInput(), k[0], k[1], getOutput());
  int64_t plane = win.outH * win.outW;
  bool isFloat = formatOf(getOutput().getType()) == Format::BF16;
  // Segmented input: every tap is counted (its padding was applied by
  // hl.segmentation).
  bool includePad = getCountIncludePad() || win.s > 1;
  if (isFloat) {
    std::vector<float> x = asFloats(env.get(getInput()));
    std::vector<float> out(static_cast<size_t>(win.n * win.c * plane));
    for (int64_t nc = 0; nc < win.n * win.c; ++nc)
      for (int64_t y = 0; y < win.outH; ++y)
        for (int64_t xo = 0; xo < win.outW; ++xo) {
          float sum = 0;
          int64_t count = 0;
          for (int64_t i = 0; i < win.kh; ++i)
            for (int64_t j = 0; j < win.kw; ++j) {
              int64_t idx = win.index(nc, y, xo, i, j);
              if (idx >= 0) {
                sum = sum + x[idx];
                ++count;
              }
            }
          if (includePad)
            count = win.kh * win.kw;
          out[nc * plane + y * win.outW + xo] =
              count ? sum / static_cast<float>(count) : 0.0f;
        }
    storeWindowResult(*this, env, win, win.c, std::move(out), 0.0f, true);
    return success();
  }
  std::vector<int64_t> x = asInts(env.get(getInput()));
  std::vector<int64_t> out(static_cast<size_t>(win.n * win.c * plane));
  for (int64_t nc = 0; nc < win.n * win.c; ++nc)
    for (int64_t y = 0; y < win.outH; ++y)
      for (int64_t xo = 0; xo < win.outW; ++xo) {
        int64_t sum = 0, count = 0;
        for (int64_t i = 0; i < win.kh; ++i)
          for (int64_t j = 0; j < win.kw; ++j) {
            int64_t idx = win.index(nc, y, xo, i, j);
            if (idx >= 0) {
              sum += x[idx] - getInputZp();
              ++count;
            }
          }
        if (includePad)
          count = win.kh * win.kw;
        int64_t mean = 0;
        if (count) {
          int64_t q = (std::llabs(sum) + count / 2) / count;
          mean = sum < 0 ? -q : q;
        }
        out[nc * plane + y * win.outW + xo] = intq::requantMultiplierShift(
            mean, getMultiplier(), getShift(), getOutputZp(), getClipMin(),
            getClipMax());
      }
  storeWindowResult(*this, env, win, win.c, std::move(out), getOutputZp(),
                    false);
  return success();
}

LogicalResult ReduceMeanOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> in = shapeOf(getInput()), out = shapeOf(getOutput());
  std::vector<int64_t> inStrides(in.size(), 1);
  for (size_t d = in.size(); d-- > 1;)
    inStrides[d - 1] = inStrides[d] * in[d];
  int64_t outCount = 1, n = 1;
  for (size_t d = 0; d < in.size(); ++d) {
    outCount *= out[d];
    n *= in[d] / out[d];
  }
  // The flat input index of reduced element `r` of output element `o`.
  auto source = [&](int64_t o, int64_t r) {
    int64_t idx = 0;
    for (size_t d = in.size(); d-- > 0;) {
      int64_t coord = out[d] == 1 && in[d] != 1 ? r % in[d] : o % out[d];
      if (out[d] == 1 && in[d] != 1)
        r /= in[d];
      o /= out[d];
      idx += coord * inStrides[d];
    }
    return idx;
  };
  if (formatOf(getOutput().getType()) == Format::BF16) {
    std::vector<float> x = asFloats(env.get(getInput())), y(outCount);
    for (int64_t o = 0; o < outCount; ++o) {
      float sum = 0;
      for (int64_t r = 0; r < n; ++r)
        sum = sum + x[source(o, r)];
      y[o] = sum / static_cast<float>(n);
    }
    env.set(getOutput(), fromFloats(getOutput(), out, y));
    return success();
  }
  std::vector<int64_t> x = asInts(env.get(getInput())), y(outCount);
  for (int64_t o = 0; o < outCount; ++o) {
    int64_t sum = 0;
    for (int64_t r = 0; r < n; ++r)
      sum += x[source(o, r)] - getInputZp();
    int64_t q = (std::llabs(sum) + n / 2) / n;
    y[o] = intq::requantMultiplierShift(sum < 0 ? -q : q, getMultiplier(),
                                        getShift(), getOutputZp(), getClipMin(),
                                        getClipMax());
  }
  env.set(getOutput(), fromInts(getOutput(), out, y));
  return success();
}

LogicalResult GatherOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> idx = asInts(env.get(getIndices()));
  int64_t axis = getAxis(), extent = in.dim(axis), inner = 1;
  for (int64_t d = axis + 1; d < in.rank(); ++d)
    inner *= in.dim(d);
  for (int64_t &i : idx) {
    if (i < -extent || i >= extent)
      return emitOpError("index ")
             << i << " is outside the axis of size " << extent;
    if (i < 0)
      i += extent;
  }
  int64_t count = static_cast<int64_t>(idx.size());
  env.set(getOutput(), gatherBytes(in, shapeOf(getOutput()), [&](int64_t o) {
            int64_t j = o % inner, rest = o / inner;
            int64_t k = rest % count, outer = rest / count;
            return (outer * extent + idx[k]) * inner + j;
          }));
  return success();
}

LogicalResult ResizeNearestOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> out = shapeOf(getOutput());
  int64_t h = in.dim(2), w = in.dim(3), oh = out[2], ow = out[3];
  env.set(getOutput(), gatherBytes(in, out, [&](int64_t o) {
            int64_t x = o % ow, y = (o / ow) % oh, nc = o / (ow * oh);
            return (nc * h + (y * h) / oh) * w + (x * w) / ow;
          }));
  return success();
}

LogicalResult DepthToSpaceOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> out = shapeOf(getOutput());
  int64_t b = getBlock(), c = out[1], oh = out[2], ow = out[3];
  int64_t h = in.dim(2), w = in.dim(3);
  bool dcr = getMode() == "DCR";
  env.set(getOutput(), gatherBytes(in, out, [&](int64_t o) {
            int64_t x = o % ow, y = (o / ow) % oh, ch = (o / (ow * oh)) % c,
                    n = o / (ow * oh * c);
            int64_t i = y % b, j = x % b;
            int64_t src = dcr ? (i * b + j) * c + ch : ch * b * b + i * b + j;
            return ((n * c * b * b + src) * h + y / b) * w + x / b;
          }));
  return success();
}

LogicalResult TransposeOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> outShape = shapeOf(getOutput());
  std::vector<int64_t> inStrides = in.strides();
  ArrayRef<int64_t> perm = getPerm();
  size_t r = outShape.size();
  env.set(getOutput(), gatherBytes(in, outShape, [&](int64_t i) {
            int64_t src = 0;
            for (size_t d = r; d-- > 0;) {
              src += (i % outShape[d]) * inStrides[perm[d]];
              i /= outShape[d];
            }
            return src;
          }));
  return success();
}

LogicalResult SegmentationOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> outShape;
  if (isFloat(in.dtype())) {
    std::vector<float> seg =
        segment(asFloats(in), in.shape(), getStride(), getPad(),
                static_cast<float>(getPadValue()), outShape);
    env.set(getOutput(), fromFloats(getOutput(), outShape, seg));
  } else {
    std::vector<int64_t> seg = segment(asInts(in), in.shape(), getStride(),
                                       getPad(), getPadValue(), outShape);
    env.set(getOutput(), fromInts(getOutput(), outShape, seg));
  }
  return success();
}

LogicalResult ConcatOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> outShape = shapeOf(getOutput());
  int64_t axis = getAxis(), outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= outShape[d];
  for (size_t d = axis + 1; d < outShape.size(); ++d)
    inner *= outShape[d];
  const Tensor &first = env.get(getInputs().front());
  Tensor out(first.dtype(), outShape);
  size_t es = dtypeSize(first.dtype());
  char *dst = static_cast<char *>(out.raw());
  int64_t offset = 0;
  for (Value v : getInputs()) {
    const Tensor &t = env.get(v);
    int64_t extent = t.dim(axis);
    const char *src = static_cast<const char *>(t.raw());
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + ((o * outShape[axis] + offset) * inner) * es,
                  src + (o * extent * inner) * es, extent * inner * es);
    offset += extent;
  }
  env.set(getOutput(), std::move(out));
  return success();
}

LogicalResult ConvertOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  std::vector<int64_t> shape = shapeOf(getOutput());
  double scale = getScale().convertToDouble();
  int64_t zp = getZp();
  if (formatOf(getInput().getType()) == Format::Int8) {
    std::vector<int64_t> q = asInts(in);
    std::vector<float> out(q.size());
    for (size_t i = 0; i < q.size(); ++i)
      out[i] = static_cast<float>(static_cast<double>(q[i] - zp) * scale);
    env.set(getOutput(), fromFloats(getOutput(), shape, out));
    return success();
  }
  std::vector<float> x = asFloats(in);
  if (formatOf(getOutput().getType()) == Format::Int8) {
    auto [lo, hi] = storageRange(getOutput().getType());
    std::vector<int64_t> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      out[i] =
          intq::quantizeScaled(static_cast<double>(x[i]) / scale, zp, lo, hi);
    }
    env.set(getOutput(), fromInts(getOutput(), shape, out));
    return success();
  }
  env.set(getOutput(), fromFloats(getOutput(), shape, x));
  return success();
}
