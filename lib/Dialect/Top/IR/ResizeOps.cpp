//===- ResizeOps.cpp - top.Resize, top.DepthToSpace, top.SpaceToDepth -----===//

#include "OpImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// Checks that string attribute `name` is one of `allowed`.
LogicalResult checkEnumAttr(Operation *op, StringRef name, StringRef value,
                            ArrayRef<StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  std::string list;
  for (auto [i, a] : llvm::enumerate(allowed))
    list += (i ? ", \"" : "\"") + a.str() + "\"";
  return op->emitOpError() << "attribute '" << name << "' must be one of "
                           << list << ", got \"" << value << "\"";
}

/// `a * b` for a shape dim, or an error when it overflows int64.
FailureOr<int64_t> mulDim(Operation *op, int64_t a, int64_t b) {
  int64_t r;
  if (llvm::MulOverflow(a, b, r))
    return op->emitOpError() << "output dim " << a << " * " << b
                             << " overflows int64";
  return r;
}

/// The per-dim scales used for coordinate mapping: the `scales` attribute,
/// or `out / in` when `sizes` is given.
SmallVector<double> effectiveScales(ResizeOp op, ArrayRef<int64_t> in,
                                    ArrayRef<int64_t> out) {
  if (!op.getSizes() && op.getScales())
    return SmallVector<double>(*op.getScales());
  SmallVector<double> s;
  for (auto [i, o] : llvm::zip_equal(in, out))
    s.push_back(i ? static_cast<double>(o) / static_cast<double>(i) : 1.0);
  return s;
}

/// The input coordinate of output coordinate `x` (ONNX Resize).
double sourceCoord(StringRef mode, int64_t x, double scale, int64_t in,
                   int64_t out) {
  double xd = static_cast<double>(x);
  if (mode == "asymmetric")
    return xd / scale;
  if (mode == "align_corners")
    return out == 1 ? 0.0
                    : xd * static_cast<double>(in - 1) /
                          static_cast<double>(out - 1);
  if (mode == "pytorch_half_pixel" && out == 1)
    return 0.0;
  return (xd + 0.5) / scale - 0.5;
}

/// One output position of a 1-d resampling: `(1 - w) * in[i0] + w * in[i1]`.
struct Tap {
  int64_t i0, i1;
  double w;
};

Tap nearestTap(StringRef nearestMode, double x, int64_t in) {
  double r;
  if (nearestMode == "floor")
    r = std::floor(x);
  else if (nearestMode == "ceil")
    r = std::ceil(x);
  else if (nearestMode == "round_prefer_ceil")
    r = std::floor(x + 0.5);
  else
    r = std::ceil(x - 0.5);
  int64_t i = static_cast<int64_t>(std::clamp(r, 0.0, double(in - 1)));
  return {i, i, 0.0};
}

Tap linearTap(double x, int64_t in) {
  x = std::clamp(x, 0.0, static_cast<double>(in - 1));
  int64_t i0 = static_cast<int64_t>(std::floor(x));
  int64_t i1 = std::min(i0 + 1, in - 1);
  return {i0, i1, x - static_cast<double>(i0)};
}

/// Resamples dim `d` of the row-major `data` of `shape` to `taps.size()`.
std::vector<double> resampleDim(const std::vector<double> &data,
                                SmallVectorImpl<int64_t> &shape, size_t d,
                                ArrayRef<Tap> taps) {
  int64_t outer = 1, inner = 1, in = shape[d];
  int64_t out = static_cast<int64_t>(taps.size());
  for (size_t i = 0; i < d; ++i)
    outer *= shape[i];
  for (size_t i = d + 1; i < shape.size(); ++i)
    inner *= shape[i];
  std::vector<double> res(static_cast<size_t>(outer * out * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t x = 0; x < out; ++x) {
      const Tap &t = taps[x];
      const double *a = data.data() + (o * in + t.i0) * inner;
      const double *b = data.data() + (o * in + t.i1) * inner;
      double *y = res.data() + (o * out + x) * inner;
      for (int64_t i = 0; i < inner; ++i)
        y[i] = t.w == 0.0 ? a[i] : (1.0 - t.w) * a[i] + t.w * b[i];
    }
  shape[d] = out;
  return res;
}

/// Checks the rank-4 input of DepthToSpace/SpaceToDepth and the blocksize.
LogicalResult checkBlockOp(Operation *op, ArrayRef<int64_t> in, int64_t b) {
  if (in.size() != 4)
    return op->emitOpError() << "input must have rank 4 (N, C, H, W), got "
                                "shape "
                             << formatArray(in);
  if (b < 1)
    return op->emitOpError() << "attribute 'blocksize' = " << b
                             << " must be >= 1";
  return success();
}

/// Copies elements of `elem` bytes: out[i] = in[src(i)] for every flat i of
/// the `N x C x H x W` output.
template <typename SrcFn>
void permuteCopy(const Tensor &in, Tensor &out, SrcFn src) {
  size_t elem = dtypeSize(in.dtype());
  const char *ip = static_cast<const char *>(in.raw());
  char *op = static_cast<char *>(out.raw());
  int64_t n = out.dim(0), c = out.dim(1), h = out.dim(2), w = out.dim(3);
  int64_t i = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x, ++i)
          std::memcpy(op + i * elem, ip + src(b, ch, y, x) * elem, elem);
}
} // namespace

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = shapeOf(getInput());
  size_t rank = in.size();
  if (failed(checkEnumAttr(*this, "mode", getMode(), {"nearest", "linear"})) ||
      failed(checkEnumAttr(*this, "coordinate_transformation_mode",
                           getCoordinateTransformationMode(),
                           {"half_pixel", "pytorch_half_pixel",
                            "align_corners", "asymmetric"})) ||
      failed(checkEnumAttr(*this, "nearest_mode", getNearestMode(),
                           {"round_prefer_floor", "round_prefer_ceil",
                            "floor", "ceil"})))
    return failure();
  SmallVector<int64_t> out;
  if (auto sizes = getSizes()) {
    if (failed(checkArrayAttr(*this, "sizes", *sizes, rank, 0)))
      return failure();
    out.assign(sizes->begin(), sizes->end());
  } else if (auto scales = getScales()) {
    if (scales->size() != rank)
      return emitOpError() << "attribute 'scales' must have " << rank
                           << " values, got " << scales->size();
    for (auto [i, v] : llvm::enumerate(*scales)) {
      if (!(v > 0) || !std::isfinite(v))
        return emitOpError() << "attribute 'scales' value " << v
                             << " at index " << i
                             << " must be finite and > 0";
      double dim = std::floor(static_cast<double>(in[i]) * v);
      if (dim >= 9.0e18)
        return emitOpError() << "attribute 'scales' value " << v
                             << " at index " << i << " makes output dim "
                             << dim << " overflow int64";
      out.push_back(static_cast<int64_t>(dim));
    }
  } else {
    return emitOpError() << "requires attribute 'sizes' or 'scales'";
  }
  for (size_t d = 0; d < rank; ++d)
    if (in[d] == 0 && out[d] != 0)
      return emitOpError() << "cannot resize dim " << d
                           << " of size 0 to size " << out[d];
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(out);
  return success();
}

/// Linear: ~3 per resized dim per output element; nearest: none.
int64_t ResizeOp::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  if (!t.hasStaticShape() || getMode() != "linear")
    return 0;
  return 3 * t.getRank() * t.getNumElements();
}

LogicalResult ResizeOp::interpret(InterpreterEnv &env) {
  const Tensor &raw = env.get(getInput());
  std::vector<int64_t> outShape = resultShape(getOutput());
  SmallVector<int64_t> shape(raw.shape().begin(), raw.shape().end());
  SmallVector<double> scales = effectiveScales(*this, shape, outShape);
  std::vector<double> data(static_cast<size_t>(raw.numElements()));
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = raw.getAsDouble(static_cast<int64_t>(i));
  bool linear = getMode() == "linear";
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t in = shape[d], out = outShape[d];
    if (in == out && scales[d] == 1.0)
      continue; // identity in every coordinate mode
    SmallVector<Tap> taps;
    for (int64_t x = 0; x < out; ++x) {
      double src = sourceCoord(getCoordinateTransformationMode(), x,
                               scales[d], in, out);
      taps.push_back(linear ? linearTap(src, in)
                            : nearestTap(getNearestMode(), src, in));
    }
    data = resampleDim(data, shape, d, taps);
  }
  Tensor result(DType::F64, outShape);
  std::copy(data.begin(), data.end(), result.data<double>());
  env.set(getOutput(), result.castTo(resultDType(getOutput())));
  return success();
}

OpFoldResult ResizeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  if (!type || !type.hasStaticShape() || type != getOutput().getType())
    return {};
  // Same shape: identity unless a `scales` entry other than 1 shifts the
  // sampling grid.
  if (!getSizes() && getScales() &&
      llvm::any_of(*getScales(), [](double v) { return v != 1.0; }))
    return {};
  return getInput();
}

//===----------------------------------------------------------------------===//
// DepthToSpaceOp
//===----------------------------------------------------------------------===//

LogicalResult
DepthToSpaceOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = shapeOf(getInput());
  int64_t b = getBlocksize();
  if (failed(checkBlockOp(*this, in, b)) ||
      failed(checkEnumAttr(*this, "mode", getMode(), {"DCR", "CRD"})))
    return failure();
  auto bb = mulDim(*this, b, b);
  if (failed(bb))
    return failure();
  if (in[1] % *bb != 0)
    return emitOpError() << "input channels (" << in[1]
                         << ") must be divisible by blocksize^2 = " << *bb;
  auto h = mulDim(*this, in[2], b), w = mulDim(*this, in[3], b);
  if (failed(h) || failed(w))
    return failure();
  SmallVector<int64_t> out{in[0], in[1] / *bb, *h, *w};
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(out);
  return success();
}

int64_t DepthToSpaceOp::getFlops() { return 0; }

LogicalResult DepthToSpaceOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  Tensor out(in.dtype(), resultShape(getOutput()));
  int64_t b = getBlocksize(), c = out.dim(1), ci = in.dim(1), h = in.dim(2),
          w = in.dim(3);
  bool dcr = getMode() == "DCR";
  permuteCopy(in, out, [&](int64_t n, int64_t ch, int64_t y, int64_t x) {
    int64_t by = y % b, bx = x % b;
    int64_t src = dcr ? (by * b + bx) * c + ch : ch * b * b + by * b + bx;
    return ((n * ci + src) * h + y / b) * w + x / b;
  });
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

OpFoldResult DepthToSpaceOp::fold(FoldAdaptor) {
  if (getBlocksize() == 1 && getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// SpaceToDepthOp
//===----------------------------------------------------------------------===//

LogicalResult
SpaceToDepthOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = shapeOf(getInput());
  int64_t b = getBlocksize();
  if (failed(checkBlockOp(*this, in, b)))
    return failure();
  if (in[2] % b != 0 || in[3] % b != 0)
    return emitOpError() << "input spatial dims [" << in[2] << ", " << in[3]
                         << "] must be divisible by attribute 'blocksize' = "
                         << b;
  auto bb = mulDim(*this, b, b);
  if (failed(bb))
    return failure();
  auto c = mulDim(*this, in[1], *bb);
  if (failed(c))
    return failure();
  SmallVector<int64_t> out{in[0], *c, in[2] / b, in[3] / b};
  if (failed(checkedElementCount(*this, out)))
    return failure();
  s.push_back(out);
  return success();
}

int64_t SpaceToDepthOp::getFlops() { return 0; }

LogicalResult SpaceToDepthOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  Tensor out(in.dtype(), resultShape(getOutput()));
  int64_t b = getBlocksize(), ci = in.dim(1), hi = in.dim(2), wi = in.dim(3);
  permuteCopy(in, out, [&](int64_t n, int64_t ch, int64_t y, int64_t x) {
    int64_t blk = ch / ci, c = ch % ci;
    return ((n * ci + c) * hi + y * b + blk / b) * wi + x * b + blk % b;
  });
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

OpFoldResult SpaceToDepthOp::fold(FoldAdaptor) {
  if (getBlocksize() == 1 && getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}
