//===- ConvOps.cpp - top.Conv, top.Deconv ---------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ConvShapes.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <type_traits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// Geometry of an N-d convolution or pooling window, attributes defaulted.
struct WindowGeometry {
  int64_t rank; // number of spatial dims
  SmallVector<int64_t> kernel, strides, dilations, pads;
  SmallVector<int64_t> inSpatial, outSpatial;
};

/// Row-major coordinates of every flat index of `shape`: result[i*rank + d].
SmallVector<int64_t> coordinateTable(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  size_t rank = shape.size();
  SmallVector<int64_t> table(n * rank);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i;
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      table[i * rank + d] = rem % shape[d];
      rem /= shape[d];
    }
  }
  return table;
}

/// Flattened col[(c*Kn + k) * P + p] of one image's channels [c0, c0+cs).
void im2col(const float *in, int64_t c0, int64_t cs, const WindowGeometry &g,
            ArrayRef<int64_t> kTable, ArrayRef<int64_t> pTable, float *col) {
  // Row by row of the output's last spatial dim: the outer dims decide once
  // per row whether the window row is inside the image, and the last dim's
  // in-bounds range [lo, hi) is computed, not tested per element.
  int64_t r = g.rank;
  assert(r >= 1 && "a convolution has at least one spatial dim");
  int64_t kn = static_cast<int64_t>(kTable.size()) / r;
  int64_t pn = static_cast<int64_t>(pTable.size()) / r;
  int64_t outW = g.outSpatial[r - 1], inW = g.inSpatial[r - 1];
  int64_t sW = g.strides[r - 1];
  int64_t rows = outW == 0 ? 0 : pn / outW;
  int64_t inPlane = 1;
  for (int64_t d : g.inSpatial)
    inPlane *= d;
  SmallVector<int64_t> inStride(r, 1);
  for (int64_t d = r - 2; d >= 0; --d)
    inStride[d] = inStride[d + 1] * g.inSpatial[d + 1];
  for (int64_t c = 0; c < cs; ++c) {
    const float *plane = in + (c0 + c) * inPlane;
    for (int64_t k = 0; k < kn; ++k) {
      float *dst = col + (c * kn + k) * pn;
      // Output columns ow with 0 <= ow * sW + xoff < inW.
      int64_t xoff = kTable[k * r + r - 1] * g.dilations[r - 1] - g.pads[r - 1];
      int64_t lo = xoff >= 0 ? 0 : (-xoff + sW - 1) / sW;
      int64_t hi = xoff >= inW ? 0 : (inW - xoff + sW - 1) / sW;
      lo = std::min(lo, outW);
      hi = std::clamp(hi, lo, outW);
      for (int64_t row = 0; row < rows; ++row) {
        float *drow = dst + row * outW;
        const int64_t *pos = &pTable[row * outW * r];
        int64_t off = 0;
        bool inside = true;
        for (int64_t d = 0; d + 1 < r && inside; ++d) {
          int64_t x = pos[d] * g.strides[d] + kTable[k * r + d] * g.dilations[d] -
                      g.pads[d];
          inside = x >= 0 && x < g.inSpatial[d];
          off += x * inStride[d];
        }
        if (!inside) {
          std::fill(drow, drow + outW, 0.f);
          continue;
        }
        std::fill(drow, drow + lo, 0.f);
        // In bounds from lo on (a pointer before `plane` would be UB).
        const float *src = plane + off + lo * sW + xoff;
        if (sW == 1)
          std::copy(src, src + (hi - lo), drow + lo);
        else
          for (int64_t ow = lo; ow < hi; ++ow)
            drow[ow] = src[(ow - lo) * sW];
        std::fill(drow + hi, drow + outW, 0.f);
      }
    }
  }
}

/// The values of an optional window attribute, or `n` times `fill` (its
/// default) when it is absent.
SmallVector<int64_t> valuesOr(std::optional<ArrayRef<int64_t>> attr, size_t n,
                              int64_t fill) {
  if (attr)
    return SmallVector<int64_t>(*attr);
  return SmallVector<int64_t>(n, fill);
}
} // namespace

SmallVector<int64_t> ConvOp::getStridesOrDefault() {
  return valuesOr(getStrides(), getKernelShape().size(), 1);
}
SmallVector<int64_t> ConvOp::getDilationsOrDefault() {
  return valuesOr(getDilations(), getKernelShape().size(), 1);
}
SmallVector<int64_t> ConvOp::getPadsOrDefault() {
  return valuesOr(getPads(), 2 * getKernelShape().size(), 0);
}

LogicalResult ConvOp::verify() { return verifyEpilogue(*this); }

LogicalResult ConvOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  bool channelsLast = getLayout() == Layout::NHWC;
  SmallVector<int64_t> strides = getStridesOrDefault(),
                       dilations = getDilationsOrDefault(),
                       pads = getPadsOrDefault();
  shapes::ConvAttrs attrs;
  attrs.window = {getKernelShape(), strides, dilations, pads};
  attrs.group = getGroup();
  attrs.inputZp = optionalInts(getInputZp());
  attrs.weightZp = optionalInts(getWeightZp());
  attrs.channelsLast = channelsLast;
  OptionalShape bias(ctx, getBias());
  return appendShape(*this,
                     shapes::inferConv(ctx.shape(getInput()),
                                       ctx.shape(getFilter()), bias, attrs),
                     s);
}

int64_t ConvOp::getFlops() {
  auto outType = cast<ShapedType>(getOutput().getType());
  if (!outType.hasStaticShape() || !hasStaticShape(getFilter()))
    return 0;
  SmallVector<int64_t> w = shapeOf(getFilter());
  int64_t perOut = 1;
  for (size_t i = 1; i < w.size(); ++i)
    perOut *= w[i];
  return outType.getNumElements() * (2 * perOut + (isNone(getBias()) ? 0 : 1));
}

/// Direct N-d convolution in the compute type `T` with accumulator `Acc`
/// (f64 and integer paths; f32 uses im2col + gemm below).
template <typename T, typename Acc>
static void convDirect(const Tensor &in, const Tensor &w, const Tensor *bias,
                       const WindowGeometry &g, int64_t group,
                       ArrayRef<int64_t> izp, ArrayRef<int64_t> wzp,
                       Tensor &out) {
  int64_t n = in.dim(0), c = in.dim(1), o = w.dim(0), cg = c / group,
          og = o / group, r = g.rank;
  SmallVector<int64_t> kTable = coordinateTable(g.kernel);
  SmallVector<int64_t> pTable = coordinateTable(g.outSpatial);
  int64_t kn = static_cast<int64_t>(kTable.size()) / r;
  int64_t pn = static_cast<int64_t>(pTable.size()) / r;
  int64_t inPlane = 1;
  for (int64_t d : g.inSpatial)
    inPlane *= d;
  SmallVector<int64_t> inStride(r, 1);
  for (int64_t d = r - 2; d >= 0; --d)
    inStride[d] = inStride[d + 1] * g.inSpatial[d + 1];
  const T *ip = in.data<T>(), *wp = w.data<T>();
  T *op = out.data<T>();
  auto zpAt = [](ArrayRef<int64_t> zp, int64_t ch) -> Acc {
    if (zp.empty())
      return 0;
    return static_cast<Acc>(zp.size() == 1 ? zp[0] : zp[ch]);
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < o; ++oc) {
      int64_t gi = oc / og;
      for (int64_t p = 0; p < pn; ++p) {
        Acc acc = bias ? static_cast<Acc>(bias->data<T>()[oc]) : Acc(0);
        for (int64_t ci = 0; ci < cg; ++ci) {
          int64_t ch = gi * cg + ci;
          const T *plane = ip + (b * c + ch) * inPlane;
          const T *wk = wp + (oc * cg + ci) * kn;
          Acc iz = zpAt(izp, ch), wz = zpAt(wzp, ch);
          for (int64_t k = 0; k < kn; ++k) {
            int64_t off = 0;
            bool inside = true;
            for (int64_t d = 0; d < r && inside; ++d) {
              int64_t x = pTable[p * r + d] * g.strides[d] +
                          kTable[k * r + d] * g.dilations[d] - g.pads[d];
              inside = x >= 0 && x < g.inSpatial[d];
              off += x * inStride[d];
            }
            // Padding holds the zero point, so it contributes nothing.
            if (inside)
              acc += (static_cast<Acc>(plane[off]) - iz) *
                     (static_cast<Acc>(wk[k]) - wz);
          }
        }
        op[(b * o + oc) * pn + p] = static_cast<T>(acc);
      }
    }
}

LogicalResult ConvOp::interpret(InterpreterEnv &env) {
  // NHWC runs as NCHW between two transposes (the filter OHWI as OIHW).
  bool channelsLast = getLayout() == Layout::NHWC;
  Tensor in = toCompute(toChannelsFirst(env.get(getInput()), channelsLast));
  Tensor w = toCompute(toChannelsFirst(env.get(getFilter()), channelsLast));
  std::optional<Tensor> bias;
  if (!isNone(getBias()))
    bias = toCompute(env.get(getBias())).castTo(in.dtype());
  if (w.dtype() != in.dtype())
    w = w.castTo(in.dtype());

  WindowGeometry g;
  g.rank = in.rank() - 2;
  g.kernel.assign(getKernelShape().begin(), getKernelShape().end());
  g.strides = getStridesOrDefault();
  g.dilations = getDilationsOrDefault();
  g.pads = getPadsOrDefault();
  g.inSpatial.assign(in.shape().begin() + 2, in.shape().end());
  SmallVector<int64_t> outDims =
      toChannelsFirst(env.resultShape(getOutput()), channelsLast);
  std::vector<int64_t> outShape(outDims.begin(), outDims.end());
  g.outSpatial.assign(outShape.begin() + 2, outShape.end());
  int64_t group = getGroup();
  SmallVector<int64_t> izp, wzp;
  if (auto a = getInputZp())
    izp.assign(a->begin(), a->end());
  if (auto a = getWeightZp())
    wzp.assign(a->begin(), a->end());

  Tensor out(in.dtype(), outShape);
  if (in.dtype() == DType::F32) {
    int64_t n = in.dim(0), c = in.dim(1), o = w.dim(0), cg = c / group,
            og = o / group;
    SmallVector<int64_t> kTable = coordinateTable(g.kernel);
    SmallVector<int64_t> pTable = coordinateTable(g.outSpatial);
    int64_t kn = static_cast<int64_t>(kTable.size()) / g.rank;
    int64_t pn = static_cast<int64_t>(pTable.size()) / g.rank;
    int64_t inImage = in.numElements() / std::max<int64_t>(n, 1);
    // A 1x1 window with stride 1 and no padding reads the image as is.
    bool pointwise =
        kn == 1 && llvm::all_of(g.pads, [](int64_t p) { return p == 0; }) &&
        llvm::all_of(g.strides, [](int64_t s) { return s == 1; });
    std::vector<float> col(pointwise ? 0 : static_cast<size_t>(cg * kn * pn));
    for (int64_t b = 0; b < n; ++b)
      for (int64_t gi = 0; gi < group; ++gi) {
        const float *src = in.data<float>() + b * inImage + gi * cg * pn;
        if (!pointwise) {
          im2col(in.data<float>() + b * inImage, gi * cg, cg, g, kTable,
                 pTable, col.data());
          src = col.data();
        }
        float *dst = out.data<float>() + (b * o + gi * og) * pn;
        gemmF32(og, pn, cg * kn, w.data<float>() + gi * og * cg * kn, cg * kn,
                src, pn, dst, pn, /*accumulate=*/false);
        if (bias)
          for (int64_t oc = 0; oc < og; ++oc) {
            float bv = bias->data<float>()[gi * og + oc];
            for (int64_t p = 0; p < pn; ++p)
              dst[oc * pn + p] += bv;
          }
      }
  } else if (in.dtype() == DType::F64) {
    convDirect<double, double>(in, w, bias ? &*bias : nullptr, g, group, izp,
                               wzp, out);
  } else {
    convDirect<int64_t, int64_t>(in, w, bias ? &*bias : nullptr, g, group, izp,
                                 wzp, out);
  }
  applyEpilogue(*this, out);
  env.set(getOutput(), fromChannelsFirst(out, channelsLast)
                           .castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// DeconvOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> DeconvOp::getStridesOrDefault() {
  return valuesOr(getStrides(), getKernelShape().size(), 1);
}
SmallVector<int64_t> DeconvOp::getDilationsOrDefault() {
  return valuesOr(getDilations(), getKernelShape().size(), 1);
}
SmallVector<int64_t> DeconvOp::getPadsOrDefault() {
  return valuesOr(getPads(), 2 * getKernelShape().size(), 0);
}
SmallVector<int64_t> DeconvOp::getOutputPaddingOrDefault() {
  return valuesOr(getOutputPadding(), getKernelShape().size(), 0);
}

LogicalResult DeconvOp::verify() { return verifyEpilogue(*this); }

LogicalResult DeconvOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  bool channelsLast = getLayout() == Layout::NHWC;
  SmallVector<int64_t> strides = getStridesOrDefault(),
                       dilations = getDilationsOrDefault(),
                       pads = getPadsOrDefault(),
                       outputPadding = getOutputPaddingOrDefault();
  shapes::DeconvAttrs attrs;
  attrs.window = {getKernelShape(), strides, dilations, pads};
  attrs.outputPadding = outputPadding;
  attrs.group = getGroup();
  attrs.channelsLast = channelsLast;
  OptionalShape bias(ctx, getBias());
  return appendShape(*this,
                     shapes::inferDeconv(ctx.shape(getInput()),
                                         ctx.shape(getFilter()), bias, attrs),
                     s);
}

int64_t DeconvOp::getFlops() {
  if (!hasStaticShape(getInput()) || !hasStaticShape(getFilter()))
    return 0;
  SmallVector<int64_t> in = shapeOf(getInput()), w = shapeOf(getFilter());
  // Every input element meets O/group x K filter taps.
  int64_t perIn = 1;
  for (size_t i = 1; i < w.size(); ++i)
    perIn *= w[i];
  int64_t n = 1;
  for (int64_t d : in)
    n *= d;
  auto outType = cast<ShapedType>(getOutput().getType());
  int64_t biasFlops = !isNone(getBias()) && outType.hasStaticShape()
                          ? outType.getNumElements()
                          : 0;
  return 2 * n * perIn + biasFlops;
}

namespace {
/// For every (kernel tap k, input position p), the flat output spatial
/// offset it scatters to, or -1 when it falls into the padding.
SmallVector<int64_t> deconvScatterTable(const WindowGeometry &g) {
  SmallVector<int64_t> kTable = coordinateTable(g.kernel);
  SmallVector<int64_t> pTable = coordinateTable(g.inSpatial);
  int64_t r = g.rank;
  int64_t kn = static_cast<int64_t>(kTable.size()) / r;
  int64_t pn = static_cast<int64_t>(pTable.size()) / r;
  SmallVector<int64_t> table(kn * pn);
  for (int64_t k = 0; k < kn; ++k)
    for (int64_t p = 0; p < pn; ++p) {
      int64_t off = 0;
      for (int64_t d = 0; d < r && off >= 0; ++d) {
        int64_t y = pTable[p * r + d] * g.strides[d] +
                    kTable[k * r + d] * g.dilations[d] - g.pads[d];
        off = (y < 0 || y >= g.outSpatial[d]) ? -1
                                              : off * g.outSpatial[d] + y;
      }
      table[k * pn + p] = off;
    }
  return table;
}

/// One (image, group) of a transposed convolution: col = W^T * X with
/// W `cg x (og*kn)` and X `cg x pn`, then scatter-add col into `out`
/// (`og x outPlane`).
template <typename T>
void deconvGroup(const T *x, const T *w, int64_t cg, int64_t og, int64_t kn,
                 int64_t pn, ArrayRef<int64_t> scatter, int64_t outPlane,
                 std::vector<T> &col, std::vector<T> &wt, T *out) {
  int64_t rows = og * kn;
  if constexpr (std::is_same_v<T, float>) {
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t rw = 0; rw < rows; ++rw)
        wt[rw * cg + ci] = w[ci * rows + rw];
    gemmF32(rows, pn, cg, wt.data(), cg, x, pn, col.data(), pn,
            /*accumulate=*/false);
  } else {
    std::fill(col.begin(), col.end(), T(0));
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t rw = 0; rw < rows; ++rw) {
        T a = w[ci * rows + rw];
        const T *xr = x + ci * pn;
        T *cr = col.data() + rw * pn;
        for (int64_t p = 0; p < pn; ++p)
          cr[p] += a * xr[p];
      }
  }
  for (int64_t oc = 0; oc < og; ++oc)
    for (int64_t k = 0; k < kn; ++k) {
      const T *src = col.data() + (oc * kn + k) * pn;
      const int64_t *offs = scatter.data() + k * pn;
      T *dst = out + oc * outPlane;
      for (int64_t p = 0; p < pn; ++p)
        if (offs[p] >= 0)
          dst[offs[p]] += src[p];
    }
}

template <typename T>
void deconvCompute(const Tensor &in, const Tensor &w, const Tensor *bias,
                   const WindowGeometry &g, int64_t group, Tensor &out) {
  int64_t n = in.dim(0), c = in.dim(1), o = out.dim(1), cg = c / group,
          og = o / group;
  int64_t kn = 1, pn = 1, outPlane = 1;
  for (int64_t d = 0; d < g.rank; ++d) {
    kn *= g.kernel[d];
    pn *= g.inSpatial[d];
    outPlane *= g.outSpatial[d];
  }
  SmallVector<int64_t> scatter = deconvScatterTable(g);
  std::vector<T> col(static_cast<size_t>(og * kn * pn));
  std::vector<T> wt(std::is_same_v<T, float> ? og * kn * cg : 0);
  const T *ip = in.data<T>(), *wp = w.data<T>();
  T *op = out.data<T>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi)
      deconvGroup<T>(ip + (b * c + gi * cg) * pn, wp + gi * cg * og * kn, cg,
                     og, kn, pn, scatter, outPlane, col, wt,
                     op + (b * o + gi * og) * outPlane);
  if (!bias)
    return;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < o; ++oc) {
      T bv = bias->data<T>()[oc];
      T *dst = op + (b * o + oc) * outPlane;
      for (int64_t p = 0; p < outPlane; ++p)
        dst[p] += bv;
    }
}
} // namespace

LogicalResult DeconvOp::interpret(InterpreterEnv &env) {
  bool channelsLast = getLayout() == Layout::NHWC;
  Tensor in = toCompute(toChannelsFirst(env.get(getInput()), channelsLast));
  Tensor w = toCompute(toChannelsFirst(env.get(getFilter()), channelsLast))
                 .castTo(in.dtype());
  std::optional<Tensor> bias;
  if (!isNone(getBias()))
    bias = toCompute(env.get(getBias())).castTo(in.dtype());
  WindowGeometry g;
  g.rank = in.rank() - 2;
  g.kernel.assign(getKernelShape().begin(), getKernelShape().end());
  g.strides = getStridesOrDefault();
  g.dilations = getDilationsOrDefault();
  g.pads = getPadsOrDefault();
  g.inSpatial.assign(in.shape().begin() + 2, in.shape().end());
  SmallVector<int64_t> outDims =
      toChannelsFirst(env.resultShape(getOutput()), channelsLast);
  std::vector<int64_t> outShape(outDims.begin(), outDims.end());
  g.outSpatial.assign(outShape.begin() + 2, outShape.end());
  Tensor out(in.dtype(), outShape);
  const Tensor *b = bias ? &*bias : nullptr;
  if (in.dtype() == DType::F32)
    deconvCompute<float>(in, w, b, g, getGroup(), out);
  else if (in.dtype() == DType::F64)
    deconvCompute<double>(in, w, b, g, getGroup(), out);
  else
    deconvCompute<int64_t>(in, w, b, g, getGroup(), out);
  applyEpilogue(*this, out);
  env.set(getOutput(), fromChannelsFirst(out, channelsLast)
                           .castTo(resultDType(getOutput())));
  return success();
}

/// The input and the filter are in the op's layout (OIHW or OHWI filters).
unsigned ConvOp::getNumLayoutOperands() { return 2; }
unsigned DeconvOp::getNumLayoutOperands() { return 2; }
