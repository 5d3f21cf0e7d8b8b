//===- GeometryOps.cpp - GridSample, AffineGrid, Col2Im, RoiAlign, DeformConv ===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/GeometryShapes.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// Every element of `t` as a double.
std::vector<double> toDoubles(const Tensor &t) {
  std::vector<double> v(static_cast<size_t>(t.numElements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = t.getAsDouble(static_cast<int64_t>(i));
  return v;
}

/// `data` (f64) as a tensor of `shape` cast to the element type of `result`.
Tensor fromDoubles(const std::vector<double> &data,
                   std::vector<int64_t> shape, mlir::Value result) {
  Tensor t(DType::F64, std::move(shape));
  std::copy(data.begin(), data.end(), t.data<double>());
  return t.castTo(resultDType(result));
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// The Keys cubic convolution weights of the 4 samples around a point at
/// fraction `t` in [0, 1) past the second one (a = -0.75, as ONNX).
void cubicWeights(double t, double w[4]) {
  const double a = -0.75;
  auto near = [&](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [&](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

/// Reflects `x` at `lo` and `hi` until it lies in [lo, hi].
double reflect(double x, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0)
    return lo;
  if (x >= lo && x <= hi)
    return x;
  bool below = x < lo;
  double dx = below ? lo - x : x - hi;
  double r = std::fmod(dx, range);
  bool even = std::fmod(dx, 2 * range) < range;
  if (below)
    return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

/// The bilinear weights and flat offsets of the (up to 4) pixels around
/// `(y, x)` of an `h x w` plane; pixels outside the plane are skipped (zero
/// padding). Returns the number of taps written.
int bilinearZeroTaps(double y, double x, int64_t h, int64_t w,
                     int64_t offsets[4], double weights[4]) {
  if (!std::isfinite(y) || !std::isfinite(x) || y <= -1 || x <= -1 ||
      y >= static_cast<double>(h) || x >= static_cast<double>(w))
    return 0;
  double fy = std::floor(y), fx = std::floor(x);
  int64_t y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
  double ly = y - fy, lx = x - fx;
  int n = 0;
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      int64_t yy = y0 + dy, xx = x0 + dx;
      double wt = (dy ? ly : 1 - ly) * (dx ? lx : 1 - lx);
      if (yy < 0 || yy >= h || xx < 0 || xx >= w || wt == 0.0)
        continue;
      offsets[n] = yy * w + xx;
      weights[n] = wt;
      ++n;
    }
  return n;
}

} // namespace

//===----------------------------------------------------------------------===//
// GridSampleOp
//===----------------------------------------------------------------------===//

LogicalResult
GridSampleOp::inferShapes(const ShapeContext &ctx,
                          SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(checkElementKind(*this, "operand 'input'", getInput(),
                              kFloatElements)) ||
      failed(
          checkElementKind(*this, "operand 'grid'", getGrid(), kFloatElements)))
    return failure();
  return appendShape(
      *this,
      shapes::inferGridSample(ctx.shape(getInput()), ctx.shape(getGrid()),
                              stringifyInterpolation(getMode()).str(),
                              stringifyGridPadding(getPaddingMode()).str()),
      s);
}

/// Per output element: 2 flops per tap of the N-d kernel.
int64_t GridSampleOp::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  if (!t.hasStaticShape() || getMode() == Interpolation::Nearest)
    return 0;
  int64_t r = t.getRank() - 2, taps = 1;
  for (int64_t d = 0; d < r; ++d)
    taps *= getMode() == Interpolation::Cubic ? 4 : 2;
  return 2 * taps * t.getNumElements();
}

namespace {
/// The samples of one grid point along one dim: input indices (-1: a zero
/// from zero padding) and their weights.
struct AxisTaps {
  SmallVector<int64_t, 4> index;
  SmallVector<double, 4> weight;
};

/// GridSample's taps along a dim of size `len` for the normalized grid
/// coordinate `norm`; false if the coordinate is not finite.
bool gridSampleTaps(double norm, int64_t len, Interpolation mode,
                    GridPadding pad, bool align, AxisTaps &t) {
  double dl = static_cast<double>(len);
  double x = align ? (norm + 1) / 2 * (dl - 1) : ((norm + 1) * dl - 1) / 2;
  if (!std::isfinite(x))
    return false;
  double lo = align ? 0.0 : -0.5, hi = align ? dl - 1 : dl - 0.5;
  if (mode == Interpolation::Nearest)
    x = std::nearbyint(x); // half to even
  if (x < lo || x > hi) {
    if (pad == GridPadding::Border)
      x = std::clamp(x, 0.0, dl - 1);
    else if (pad == GridPadding::Reflection)
      x = reflect(x, lo, hi);
    else // zeros: samples beyond 2 pixels are all zero; keep indices small
      x = std::clamp(x, -4.0, dl + 4.0);
  }
  t.index.clear();
  t.weight.clear();
  auto add = [&](int64_t i, double w) {
    if (pad == GridPadding::Border)
      i = std::clamp<int64_t>(i, 0, len - 1);
    else if (pad == GridPadding::Reflection)
      i = std::clamp<int64_t>(
          static_cast<int64_t>(reflect(static_cast<double>(i), lo, hi)), 0,
          len - 1);
    else if (i < 0 || i >= len)
      i = -1;
    t.index.push_back(i);
    t.weight.push_back(w);
  };
  double f = std::floor(x);
  int64_t x0 = static_cast<int64_t>(f);
  if (mode == Interpolation::Nearest) {
    add(x0, 1.0);
  } else if (mode == Interpolation::Linear) {
    add(x0, 1 - (x - f));
    add(x0 + 1, x - f);
  } else {
    double w[4];
    cubicWeights(x - f, w);
    for (int k = 0; k < 4; ++k)
      add(x0 - 1 + k, w[k]);
  }
  return true;
}

/// The weighted sum over every combination of per-dim taps of the
/// row-major `src` of shape `dims`.
double sumTaps(const double *src, ArrayRef<int64_t> dims,
               ArrayRef<AxisTaps> taps) {
  size_t r = dims.size();
  SmallVector<size_t> k(r, 0); // odometer over the taps of each dim
  double sum = 0.0;
  while (true) {
    double w = 1.0;
    int64_t off = 0;
    bool zero = false;
    for (size_t d = 0; d < r; ++d) {
      int64_t i = taps[d].index[k[d]];
      zero |= i < 0;
      w *= taps[d].weight[k[d]];
      off = off * dims[d] + std::max<int64_t>(i, 0);
    }
    if (!zero && w != 0.0)
      sum += w * src[off];
    size_t d = r;
    while (d > 0 && ++k[d - 1] == taps[d - 1].index.size())
      k[--d] = 0;
    if (d == 0)
      return sum;
  }
}
} // namespace

LogicalResult GridSampleOp::interpret(InterpreterEnv &env) {
  const Tensor &inT = env.get(getInput());
  std::vector<double> in = toDoubles(inT), grid = toDoubles(env.get(getGrid()));
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  int64_t n = inT.dim(0), c = inT.dim(1), r = inT.rank() - 2;
  SmallVector<int64_t> dims(inT.shape().begin() + 2, inT.shape().end());
  int64_t plane = product(dims);
  int64_t points = product(ArrayRef(outShape).drop_front(2));
  std::vector<double> out(static_cast<size_t>(n * c * points), 0.0);
  SmallVector<AxisTaps> taps(r);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t p = 0; p < points; ++p) {
      const double *g = grid.data() + (b * points + p) * r;
      bool finite = true;
      for (int64_t d = 0; d < r && finite; ++d) // the grid lists x first
        finite = gridSampleTaps(g[r - 1 - d], dims[d], getMode(),
                                getPaddingMode(), getAlignCorners(), taps[d]);
      for (int64_t ch = 0; ch < c; ++ch)
        out[(b * c + ch) * points + p] =
            finite ? sumTaps(in.data() + (b * c + ch) * plane, dims, taps)
                   : std::numeric_limits<double>::quiet_NaN();
    }
  env.set(getOutput(), fromDoubles(out, outShape, getOutput()));
  return success();
}

//===----------------------------------------------------------------------===//
// AffineGridOp
//===----------------------------------------------------------------------===//

LogicalResult
AffineGridOp::inferShapes(const ShapeContext &ctx,
                          SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(checkElementKind(*this, "operand 'theta'", getTheta(),
                              kFloatElements)))
    return failure();
  return appendShape(
      *this, shapes::inferAffineGrid(ctx.shape(getTheta()), getSize()), s);
}

/// Per output element: a dot product of length r + 1.
int64_t AffineGridOp::getFlops() {
  int64_t terms = static_cast<int64_t>(getSize().size()) - 1; // r + 1
  return elementwiseFlops(getOutput(), 2 * terms);
}

LogicalResult AffineGridOp::interpret(InterpreterEnv &env) {
  std::vector<double> theta = toDoubles(env.get(getTheta()));
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  ArrayRef<int64_t> size = getSize();
  int64_t n = size[0], r = static_cast<int64_t>(size.size()) - 2;
  SmallVector<int64_t> dims(size.begin() + 2, size.end());
  int64_t points = product(dims);
  bool align = getAlignCorners();
  auto normalized = [&](int64_t i, int64_t len) {
    double di = static_cast<double>(i), dl = static_cast<double>(len);
    if (align)
      return len == 1 ? -1.0 : -1 + 2 * di / (dl - 1);
    return -1 + (2 * di + 1) / dl;
  };
  std::vector<double> out(static_cast<size_t>(n * points * r));
  SmallVector<double> base(r + 1);
  for (int64_t p = 0; p < points; ++p) {
    // base = [x, y, (z,) 1]: x along the last dim.
    int64_t rem = p;
    for (int64_t d = r - 1; d >= 0; --d) {
      base[r - 1 - d] = normalized(rem % dims[d], dims[d]);
      rem /= dims[d];
    }
    base[r] = 1.0;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < r; ++i) {
        double v = 0.0;
        for (int64_t j = 0; j <= r; ++j)
          v += theta[(b * r + i) * (r + 1) + j] * base[j];
        out[(b * points + p) * r + i] = v;
      }
  }
  env.set(getOutput(), fromDoubles(out, outShape, getOutput()));
  return success();
}

//===----------------------------------------------------------------------===//
// Col2ImOp
//===----------------------------------------------------------------------===//

/// Col2Im's attributes as its shape function takes them.
static shapes::Col2ImAttrs col2imAttrs(Col2ImOp op) {
  return {op.getImageShape(), op.getBlockShape(), optionalInts(op.getStrides()),
          optionalInts(op.getPads()), optionalInts(op.getDilations())};
}

LogicalResult Col2ImOp::inferShapes(const ShapeContext &ctx,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(
      *this, shapes::inferCol2Im(ctx.shape(getInput()), col2imAttrs(*this)), s);
}

/// One add per input element.
int64_t Col2ImOp::getFlops() {
  auto t = cast<ShapedType>(getInput().getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

LogicalResult Col2ImOp::interpret(InterpreterEnv &env) {
  const Tensor &inT = env.get(getInput());
  std::vector<double> in = toDoubles(inT);
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  shapes::Col2ImGeometry g = *shapes::col2imGeometry(col2imAttrs(*this));
  int64_t r = static_cast<int64_t>(g.image.size());
  int64_t kn = product(g.block), ln = product(g.blocks),
          plane = product(g.image);
  int64_t nc = outShape[0] * outShape[1];
  std::vector<double> out(static_cast<size_t>(nc * plane), 0.0);
  SmallVector<int64_t> kIdx(r), lIdx(r);
  for (int64_t k = 0; k < kn; ++k) {
    int64_t krem = k;
    for (int64_t d = r - 1; d >= 0; --d) {
      kIdx[d] = krem % g.block[d];
      krem /= g.block[d];
    }
    for (int64_t l = 0; l < ln; ++l) {
      int64_t rem = l;
      for (int64_t d = r - 1; d >= 0; --d) {
        lIdx[d] = rem % g.blocks[d];
        rem /= g.blocks[d];
      }
      int64_t off = 0;
      bool inside = true;
      for (int64_t d = 0; d < r && inside; ++d) {
        int64_t pos = lIdx[d] * g.strides[d] - g.pads[d] +
                      kIdx[d] * g.dilations[d];
        inside = pos >= 0 && pos < g.image[d];
        off = off * g.image[d] + pos;
      }
      if (!inside)
        continue;
      for (int64_t i = 0; i < nc; ++i)
        out[i * plane + off] += in[(i * kn + k) * ln + l];
    }
  }
  env.set(getOutput(), fromDoubles(out, outShape, getOutput()));
  return success();
}

//===----------------------------------------------------------------------===//
// RoiAlignOp
//===----------------------------------------------------------------------===//

LogicalResult
RoiAlignOp::inferShapes(const ShapeContext &ctx,
                        SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(checkElementKind(*this, "operand 'input'", getInput(),
                              kFloatElements)) ||
      failed(checkElementKind(*this, "operand 'rois'", getRois(),
                              kFloatElements)) ||
      failed(checkElementKind(*this, "operand 'batch_indices'",
                              getBatchIndices(), kIntElements)))
    return failure();
  // I64Attr getters are unsigned: read them as the signed values written.
  shapes::RoiAlignAttrs attrs{
      stringifyRoiCoordinateMode(getCoordinateTransformationMode()).str(),
      stringifyRoiPoolMode(getMode()).str(),
                              static_cast<int64_t>(getOutputHeight()),
                              static_cast<int64_t>(getOutputWidth()),
                              static_cast<int64_t>(getSamplingRatio()),
                              getSpatialScale().convertToDouble()};
  return appendShape(*this,
                     shapes::inferRoiAlign(ctx.shape(getInput()),
                                           ctx.shape(getRois()),
                                           ctx.shape(getBatchIndices()), attrs),
                     s);
}

/// About 4 multiply-adds per sample and a few samples per output; counted as
/// 8 per output element times the sampling grid when it is fixed.
int64_t RoiAlignOp::getFlops() {
  int64_t sr = static_cast<int64_t>(getSamplingRatio());
  int64_t grid = sr > 0 && sr < 1024 ? sr * sr : 4;
  return elementwiseFlops(getOutput(), 8 * grid);
}

LogicalResult RoiAlignOp::interpret(InterpreterEnv &env) {
  const Tensor &inT = env.get(getInput());
  std::vector<double> in = toDoubles(inT), rois = toDoubles(env.get(getRois()));
  const Tensor &batch = env.get(getBatchIndices());
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  int64_t n = inT.dim(0), c = inT.dim(1), h = inT.dim(2), w = inT.dim(3);
  int64_t numRois = outShape[0], oh = outShape[2], ow = outShape[3];
  double scale = getSpatialScale().convertToDouble();
  bool halfPixel =
      getCoordinateTransformationMode() == RoiCoordinateMode::HalfPixel;
  bool avg = getMode() == RoiPoolMode::Avg;
  std::vector<double> out(static_cast<size_t>(numRois * c * oh * ow), 0.0);
  for (int64_t roi = 0; roi < numRois; ++roi) {
    int64_t b = batch.getAsInt(roi);
    if (b < 0 || b >= n)
      return emitOpError() << "batch_indices[" << roi << "] = " << b
                           << " is out of range [0, " << n << ")";
    const double *box = rois.data() + roi * 4;
    double shift = halfPixel ? 0.5 : 0.0;
    double x1 = box[0] * scale - shift, y1 = box[1] * scale - shift;
    double x2 = box[2] * scale - shift, y2 = box[3] * scale - shift;
    double rw = x2 - x1, rh = y2 - y1;
    if (!halfPixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    double binH = rh / static_cast<double>(oh),
           binW = rw / static_cast<double>(ow);
    if (!std::isfinite(binH) || !std::isfinite(binW))
      return emitOpError() << "roi " << roi << " is not finite";
    int64_t gridH = static_cast<int64_t>(getSamplingRatio()), gridW = gridH;
    if (gridH == 0) {
      double gh = std::ceil(binH), gw = std::ceil(binW);
      if (gh > 4096 || gw > 4096)
        return emitOpError() << "roi " << roi << " needs a " << gh << " x "
                             << gw
                             << " sampling grid per bin (limit 4096); set "
                                "'sampling_ratio'";
      gridH = std::max<int64_t>(static_cast<int64_t>(gh), 0);
      gridW = std::max<int64_t>(static_cast<int64_t>(gw), 0);
    }
    double count = static_cast<double>(std::max<int64_t>(gridH * gridW, 1));
    for (int64_t ph = 0; ph < oh; ++ph)
      for (int64_t pw = 0; pw < ow; ++pw) {
        // The bilinear taps of every sample of this bin.
        struct Sample {
          int64_t pos[4];
          double wt[4];
        };
        SmallVector<Sample> samples;
        for (int64_t iy = 0; iy < gridH; ++iy)
          for (int64_t ix = 0; ix < gridW; ++ix) {
            double y = y1 + ph * binH + (iy + 0.5) * binH / gridH;
            double x = x1 + pw * binW + (ix + 0.5) * binW / gridW;
            Sample sm{{0, 0, 0, 0}, {0, 0, 0, 0}};
            if (!(y < -1.0 || y > h || x < -1.0 || x > w)) {
              y = std::max(y, 0.0);
              x = std::max(x, 0.0);
              int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x);
              int64_t yh, xh;
              if (yl >= h - 1) {
                yh = yl = h - 1;
                y = static_cast<double>(yl);
              } else {
                yh = yl + 1;
              }
              if (xl >= w - 1) {
                xh = xl = w - 1;
                x = static_cast<double>(xl);
              } else {
                xh = xl + 1;
              }
              double ly = y - yl, lx = x - xl, hy = 1 - ly, hx = 1 - lx;
              sm = Sample{{yl * w + xl, yl * w + xh, yh * w + xl, yh * w + xh},
                          {hy * hx, hy * lx, ly * hx, ly * lx}};
            }
            samples.push_back(sm);
          }
        for (int64_t ch = 0; ch < c; ++ch) {
          const double *plane = in.data() + (b * c + ch) * h * w;
          double acc = 0.0;
          bool first = true;
          for (const Sample &sm : samples) {
            if (avg) {
              for (int k = 0; k < 4; ++k)
                acc += sm.wt[k] * plane[sm.pos[k]];
              continue;
            }
            double m = sm.wt[0] * plane[sm.pos[0]];
            for (int k = 1; k < 4; ++k)
              m = std::max(m, sm.wt[k] * plane[sm.pos[k]]);
            acc = first ? m : std::max(acc, m);
            first = false;
          }
          out[((roi * c + ch) * oh + ph) * ow + pw] = avg ? acc / count : acc;
        }
      }
  }
  env.set(getOutput(), fromDoubles(out, outShape, getOutput()));
  return success();
}

//===----------------------------------------------------------------------===//
// DeformConvOp
//===----------------------------------------------------------------------===//

/// DeformConv's attributes as its shape function takes them.
static shapes::DeformConvAttrs deformConvAttrs(DeformConvOp op) {
  return {optionalInts(op.getStrides()), optionalInts(op.getPads()),
          optionalInts(op.getDilations()), static_cast<int64_t>(op.getGroup()),
          static_cast<int64_t>(op.getOffsetGroup())};
}

LogicalResult
DeformConvOp::inferShapes(const ShapeContext &ctx,
                          SmallVectorImpl<SmallVector<int64_t>> &s) {
  for (auto [what, v] :
       {std::pair<StringRef, Value>{"operand 'input'", getInput()},
        {"operand 'filter'", getFilter()},
        {"operand 'offset'", getOffset()},
        {"operand 'mask'", getMask()},
        {"operand 'bias'", getBias()}})
    if (!isNone(v) && failed(checkElementKind(*this, what, v, kFloatElements)))
      return failure();
  OptionalShape mask(ctx, getMask()), bias(ctx, getBias());
  return appendShape(*this,
                     shapes::inferDeformConv(ctx.shape(getInput()),
                                             ctx.shape(getFilter()),
                                             ctx.shape(getOffset()), mask, bias,
                                             deformConvAttrs(*this)),
                     s);
}

/// Per output element and tap of each input channel of its group: a
/// bilinear sample (~8) and a multiply-add (2).
int64_t DeformConvOp::getFlops() {
  auto w = dyn_cast<ShapedType>(getFilter().getType());
  if (!w || !w.hasStaticShape())
    return 0;
  return elementwiseFlops(getOutput(), 10 * w.getNumElements() / w.getDimSize(0));
}

LogicalResult DeformConvOp::interpret(InterpreterEnv &env) {
  const Tensor &inT = env.get(getInput());
  std::vector<double> in = toDoubles(inT),
                      wt = toDoubles(env.get(getFilter())),
                      off = toDoubles(env.get(getOffset()));
  std::vector<double> mask, bias;
  if (!isNone(getMask()))
    mask = toDoubles(env.get(getMask()));
  if (!isNone(getBias()))
    bias = toDoubles(env.get(getBias()));
  const Tensor &wT = env.get(getFilter());
  shapes::DeformConvGeometry g = *shapes::deformConvGeometry(
      inT.shape(), wT.shape(), deformConvAttrs(*this));
  int64_t n = inT.dim(0), c = inT.dim(1), h = inT.dim(2), w = inT.dim(3);
  int64_t m = wT.dim(0), cpg = wT.dim(1), kh = wT.dim(2), kw = wT.dim(3);
  int64_t group = getGroup(), og = getOffsetGroup();
  int64_t mpg = m / group, cpog = c / og, taps = kh * kw;
  int64_t oh = g.oh, ow = g.ow, opix = oh * ow;
  std::vector<double> out(static_cast<size_t>(n * m * opix), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t ci = 0; ci < c; ++ci) {
          int64_t ogi = ci / cpog, gi = ci / cpg;
          const double *plane = in.data() + (b * c + ci) * h * w;
          for (int64_t a = 0; a < kh; ++a)
            for (int64_t e = 0; e < kw; ++e) {
              int64_t t = a * kw + e;
              int64_t pix = i * ow + j;
              double dy = off[((b * og + ogi) * taps * 2 + t * 2) * opix + pix];
              double dx =
                  off[((b * og + ogi) * taps * 2 + t * 2 + 1) * opix + pix];
              double y = static_cast<double>(i * g.strides[0] - g.pads[0] +
                                             a * g.dilations[0]) + dy;
              double x = static_cast<double>(j * g.strides[1] - g.pads[1] +
                                             e * g.dilations[1]) + dx;
              int64_t offs[4];
              double ws[4];
              int nt = bilinearZeroTaps(y, x, h, w, offs, ws);
              double v = 0.0;
              for (int k = 0; k < nt; ++k)
                v += ws[k] * plane[offs[k]];
              if (!mask.empty())
                v *= mask[((b * og + ogi) * taps + t) * opix + pix];
              for (int64_t oc = gi * mpg; oc < (gi + 1) * mpg; ++oc)
                out[(b * m + oc) * opix + pix] +=
                    v * wt[((oc * cpg) + ci % cpg) * taps + t];
            }
        }
  if (!bias.empty())
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oc = 0; oc < m; ++oc)
        for (int64_t p = 0; p < opix; ++p)
          out[(b * m + oc) * opix + p] += bias[oc];
  env.set(getOutput(), fromDoubles(out, env.resultShape(getOutput()), getOutput()));
  return success();
}
