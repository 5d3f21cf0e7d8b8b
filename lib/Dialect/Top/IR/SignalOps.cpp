//===- SignalOps.cpp - windows, mel filter bank, DFT and STFT -------------===//
//
// All signal ops compute in f64 and round to the result's element type.
// Complex tensors are real tensors whose last dim holds (real, imaginary).
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/SignalShapes.h"

#include <cmath>
#include <complex>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

using Complex = std::complex<double>;

namespace {
/// Result element types of the constant-producing ops: float or integer.
LogicalResult checkNumericResult(Operation *op) {
  return checkElementKind(op, "result", op->getResult(0),
                          kFloatElements | kIntElements);
}

/// Float operand `value` named `what` and a result of the same element type.
LogicalResult checkFloatInOut(Operation *op, StringRef what, Value value) {
  if (failed(checkElementKind(op, what, value, kFloatElements)))
    return failure();
  return checkSameElementType(op, what, value, "result", op->getResult(0));
}

bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/// In-place iterative radix-2 FFT of `x` (size a power of two); `sign` is
/// -1 for the forward and +1 for the (unnormalized) inverse transform.
void fftRadix2(std::vector<Complex> &x, int sign) {
  size_t n = x.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j)
      std::swap(x[i], x[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    for (size_t k = 0; k < len / 2; ++k) {
      double angle = sign * 2.0 * M_PI * static_cast<double>(k) /
                     static_cast<double>(len);
      Complex w(std::cos(angle), std::sin(angle));
      for (size_t i = 0; i < n; i += len) {
        Complex u = x[i + k], v = x[i + k + len / 2] * w;
        x[i + k] = u + v;
        x[i + k + len / 2] = u - v;
      }
    }
  }
}

/// The unnormalized DFT of `x` (its size is the transform length), with
/// `sign` as in fftRadix2: radix-2 for powers of two, else the direct sum
/// with exact twiddle indices `(k * n) mod L`.
std::vector<Complex> dft(std::vector<Complex> x, int sign) {
  size_t len = x.size();
  if (isPowerOfTwo(static_cast<int64_t>(len))) {
    fftRadix2(x, sign);
    return x;
  }
  std::vector<Complex> twiddle(len), out(len);
  for (size_t i = 0; i < len; ++i) {
    double angle = sign * 2.0 * M_PI * static_cast<double>(i) /
                   static_cast<double>(len);
    twiddle[i] = Complex(std::cos(angle), std::sin(angle));
  }
  for (size_t k = 0; k < len; ++k) {
    Complex sum = 0;
    for (size_t n = 0; n < len; ++n)
      sum += x[n] * twiddle[(k * n) % len];
    out[k] = sum;
  }
  return out;
}

/// Reads the complex sample at flat element offset `offset` of a tensor
/// whose last dim (`channels`, 1 or 2) holds the real and imaginary parts.
Complex readComplex(const Tensor &t, int64_t offset, int64_t channels) {
  const double *p = t.data<double>() + offset;
  return Complex(p[0], channels == 2 ? p[1] : 0.0);
}

} // namespace

//===----------------------------------------------------------------------===//
// Window
//===----------------------------------------------------------------------===//

LogicalResult WindowOp::verify() {
  return checkNumericResult(*this);
}

LogicalResult WindowOp::inferShapes(const ShapeContext &,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this, shapes::inferWindow(getSize()), s);
}

int64_t WindowOp::getFlops() { return elementwiseFlops(getOutput(), 4); }

LogicalResult WindowOp::interpret(InterpreterEnv &env) {
  int64_t size = getSize();
  double period = static_cast<double>(getPeriodic() ? size : size - 1);
  WindowKind kind = getKind();
  Tensor out(DType::F64, env.resultShape(getOutput()));
  for (int64_t n = 0; n < size; ++n) {
    double phase = period > 0 ? 2.0 * M_PI * static_cast<double>(n) / period
                              : 0.0;
    double v;
    if (kind == WindowKind::Hann)
      v = 0.5 - 0.5 * std::cos(phase);
    else if (kind == WindowKind::Hamming)
      v = 25.0 / 46.0 - 21.0 / 46.0 * std::cos(phase);
    else
      v = 0.42 - 0.5 * std::cos(phase) + 0.08 * std::cos(2.0 * phase);
    // A symmetric window of one sample has no period; it is [1].
    out.data<double>()[n] = period > 0 ? v : 1.0;
  }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// MelWeightMatrix
//===----------------------------------------------------------------------===//

/// The `num_mel_bins + 2` triangle corner points as spectrum bins for band
/// edges `lowHz`, `highHz`.
static std::vector<int64_t> melCornerBins(MelWeightMatrixOp op, double lowHz,
                                          double highHz) {
  auto toMel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  int64_t count = int64_t(op.getNumMelBins()) + 2;
  int64_t length = op.getDftLength(), rate = op.getSampleRate();
  double lo = toMel(lowHz), hi = toMel(highHz);
  // The ONNX reference spaces the points by (hi - lo) / (num_mel_bins + 2).
  double step = (hi - lo) / static_cast<double>(count);
  std::vector<int64_t> bins(count);
  for (int64_t i = 0; i < count; ++i) {
    double hz = 700.0 * (std::pow(10.0, (lo + i * step) / 2595.0) - 1.0);
    bins[i] = static_cast<int64_t>(std::floor(
        static_cast<double>(length + 1) * hz / static_cast<double>(rate)));
  }
  return bins;
}

LogicalResult MelWeightMatrixOp::verify() {
  if (failed(checkNumericResult(*this)))
    return failure();
  if (failed(checkElementKind(*this, "operand 'lower_edge_hertz'",
                              getLowerEdgeHertz(), kFloatElements)))
    return failure();
  return checkElementKind(*this, "operand 'upper_edge_hertz'",
                          getUpperEdgeHertz(), kFloatElements);
}

LogicalResult
MelWeightMatrixOp::inferShapes(const ShapeContext &ctx,
                               SmallVectorImpl<SmallVector<int64_t>> &s) {
  shapes::MelWeightMatrixAttrs attrs;
  attrs.numMelBins = getNumMelBins();
  attrs.dftLength = getDftLength();
  attrs.sampleRate = getSampleRate();
  return appendShape(
      *this,
      shapes::inferMelWeightMatrix(attrs, ctx.shape(getLowerEdgeHertz()),
                                   ctx.shape(getUpperEdgeHertz())),
      s);
}

int64_t MelWeightMatrixOp::getFlops() {
  return elementwiseFlops(getOutput(), 1);
}

LogicalResult MelWeightMatrixOp::interpret(InterpreterEnv &env) {
  double lo = env.get(getLowerEdgeHertz()).getAsDouble(0);
  double hi = env.get(getUpperEdgeHertz()).getAsDouble(0);
  if (!(lo >= 0 && lo <= hi && std::isfinite(hi)))
    return emitOpError() << "operands 'lower_edge_hertz' = " << lo
                         << " and 'upper_edge_hertz' = " << hi
                         << " must satisfy 0 <= lower <= upper < inf";
  int64_t mels = getNumMelBins(), length = getDftLength(), last = length / 2;
  std::vector<int64_t> bins = melCornerBins(*this, lo, hi);
  for (int64_t b : bins)
    if (b < 0 || b > last)
      return emitOpError() << "operand 'upper_edge_hertz' = " << hi
                           << " maps to spectrum bin " << b
                           << ", past the last bin " << last
                           << " of dft_length " << length;
  Tensor out(DType::F64, env.resultShape(getOutput()));
  double *p = out.data<double>();
  std::fill(p, p + out.numElements(), 0.0);
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = bins[i], center = bins[i + 1], right = bins[i + 2];
    if (center == left)
      p[center * mels + i] = 1.0;
    else
      for (int64_t j = left; j <= center; ++j)
        p[j * mels + i] = double(j - left) / double(center - left);
    for (int64_t j = center; j < right; ++j)
      p[j * mels + i] = double(right - j) / double(right - center);
  }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// DFT
//===----------------------------------------------------------------------===//

LogicalResult DFTOp::verify() {
  return checkFloatInOut(*this, "operand 'input'", getInput());
}

LogicalResult DFTOp::inferShapes(const ShapeContext &ctx,
                                 SmallVectorImpl<SmallVector<int64_t>> &s) {
  shapes::DFTAttrs attrs;
  attrs.axis = getAxis();
  attrs.dftLength = getDftLength();
  attrs.inverse = getInverse();
  attrs.onesided = getOnesided();
  return appendShape(*this, shapes::inferDFT(ctx.shape(getInput()), attrs), s);
}

int64_t DFTOp::getFlops() {
  if (!hasStaticShape(getOutput()))
    return 0;
  SmallVector<int64_t> out = shapeOf(getOutput());
  int64_t bins = out[getAxis()];
  int64_t signals = elementwiseFlops(getOutput(), 1) / out.back() / bins;
  double flops = 8.0 * double(signals) * double(bins) * double(getDftLength());
  return flops > 9e18 ? 0 : static_cast<int64_t>(flops);
}

LogicalResult DFTOp::interpret(InterpreterEnv &env) {
  Tensor in = env.get(getInput()).castTo(DType::F64);
  std::vector<int64_t> inShape = in.shape();
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  int64_t axis = getAxis(), len = getDftLength();
  int64_t inChannels = inShape.back(), outChannels = outShape.back();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= inShape[d];
  for (size_t d = axis + 1; d + 1 < inShape.size(); ++d)
    inner *= inShape[d];
  int64_t inN = inShape[axis], outN = outShape[axis];
  bool inverse = getInverse(), realInverse = inverse && getOnesided();
  // Inverse real transforms read bins 0..L/2 of a Hermitian spectrum.
  int64_t read = std::min(inN, realInverse ? len / 2 + 1 : len);
  double scale = inverse ? 1.0 / static_cast<double>(len) : 1.0;
  Tensor out(DType::F64, outShape);
  std::vector<Complex> signal(len);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::fill(signal.begin(), signal.end(), Complex(0));
      for (int64_t n = 0; n < read; ++n)
        signal[n] = readComplex(in, ((o * inN + n) * inner + i) * inChannels,
                                inChannels);
      if (realInverse)
        for (int64_t k = len / 2 + 1; k < len; ++k)
          signal[k] = std::conj(signal[len - k]);
      std::vector<Complex> spectrum = dft(signal, inverse ? 1 : -1);
      for (int64_t k = 0; k < outN; ++k) {
        double *p = out.data<double>() +
                    ((o * outN + k) * inner + i) * outChannels;
        p[0] = spectrum[k].real() * scale;
        if (outChannels == 2)
          p[1] = spectrum[k].imag() * scale;
      }
    }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// STFT
//===----------------------------------------------------------------------===//

LogicalResult STFTOp::verify() {
  if (failed(checkFloatInOut(*this, "operand 'signal'", getSignal())))
    return failure();
  if (isNone(getWindow()))
    return success();
  return checkSameElementType(*this, "operand 'signal'", getSignal(),
                              "operand 'window'", getWindow());
}

LogicalResult STFTOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  shapes::STFTAttrs attrs;
  attrs.frameStep = getFrameStep();
  attrs.frameLength = getFrameLength();
  attrs.onesided = getOnesided();
  SmallVector<int64_t> window;
  std::optional<Ints> windowShape;
  if (!isNone(getWindow())) {
    window = ctx.shape(getWindow());
    windowShape = Ints(window);
  }
  return appendShape(
      *this, shapes::inferSTFT(ctx.shape(getSignal()), windowShape, attrs), s);
}

int64_t STFTOp::getFlops() {
  if (!hasStaticShape(getOutput()))
    return 0;
  double flops = 8.0 * double(elementwiseFlops(getOutput(), 1) / 2) *
                 double(getFrameLength());
  return flops > 9e18 ? 0 : static_cast<int64_t>(flops);
}

LogicalResult STFTOp::interpret(InterpreterEnv &env) {
  Tensor in = env.get(getSignal()).castTo(DType::F64);
  int64_t batch = in.dim(0), length = in.dim(1), channels = in.dim(2);
  int64_t frameLength = getFrameLength(), step = getFrameStep();
  std::vector<int64_t> outShape = env.resultShape(getOutput());
  int64_t frames = outShape[1], bins = outShape[2];
  std::vector<double> window(frameLength, 1.0);
  if (!isNone(getWindow())) {
    Tensor w = env.get(getWindow()).castTo(DType::F64);
    std::copy(w.data<double>(), w.data<double>() + frameLength, window.begin());
  }
  Tensor out(DType::F64, outShape);
  std::vector<Complex> frame(frameLength);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t n = 0; n < frameLength; ++n)
        frame[n] = window[n] *
                   readComplex(in, (b * length + f * step + n) * channels,
                               channels);
      std::vector<Complex> spectrum = dft(frame, -1);
      for (int64_t k = 0; k < bins; ++k) {
        double *p = out.data<double>() + ((b * frames + f) * bins + k) * 2;
        p[0] = spectrum[k].real();
        p[1] = spectrum[k].imag();
      }
    }
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}
