//===- TopMathOps.td - math, bitwise and signal ops --------*- tablegen -*-===//
//
// Trigonometric and hyperbolic functions, float remainder, integer bitwise
// ops, determinants, local response normalization, window functions, the
// mel filter bank and discrete Fourier transforms. The C++ is in
// lib/Dialect/Top/IR/MathOps.cpp (elementwise), SignalOps.cpp (windows, mel
// matrix, DFT, STFT) and LinalgOps.cpp (Det, LRN).
//
// Needs Top_FloatUnaryOp from TopElementwiseOps.td (included before).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_MATH_OPS
#define STRATA_TOP_MATH_OPS

//===----------------------------------------------------------------------===//
// Trigonometric and hyperbolic functions
//===----------------------------------------------------------------------===//

def Top_SinOp : Top_FloatUnaryOp<"Sin", "Sine", [{
    `y = sin(x)` (radians). FLOPs: 1 per element.
  }]>;
def Top_CosOp : Top_FloatUnaryOp<"Cos", "Cosine", [{
    `y = cos(x)` (radians). FLOPs: 1 per element.
  }]>;
def Top_TanOp : Top_FloatUnaryOp<"Tan", "Tangent", [{
    `y = tan(x)` (radians). FLOPs: 1 per element.
  }]>;
def Top_AsinOp : Top_FloatUnaryOp<"Asin", "Arcsine", [{
    `y = asin(x)` in `[-pi/2, pi/2]`; NaN outside `[-1, 1]`. FLOPs: 1 per
    element.
  }]>;
def Top_AcosOp : Top_FloatUnaryOp<"Acos", "Arccosine", [{
    `y = acos(x)` in `[0, pi]`; NaN outside `[-1, 1]`. FLOPs: 1 per element.
  }]>;
def Top_AtanOp : Top_FloatUnaryOp<"Atan", "Arctangent", [{
    `y = atan(x)` in `(-pi/2, pi/2)`. FLOPs: 1 per element.
  }]>;
def Top_SinhOp : Top_FloatUnaryOp<"Sinh", "Hyperbolic sine", [{
    `y = sinh(x)`. FLOPs: 1 per element.
  }]>;
def Top_CoshOp : Top_FloatUnaryOp<"Cosh", "Hyperbolic cosine", [{
    `y = cosh(x)`. FLOPs: 1 per element.
  }]>;
def Top_AsinhOp : Top_FloatUnaryOp<"Asinh", "Inverse hyperbolic sine", [{
    `y = asinh(x)`. FLOPs: 1 per element.
  }]>;
def Top_AcoshOp : Top_FloatUnaryOp<"Acosh", "Inverse hyperbolic cosine", [{
    `y = acosh(x)`; NaN for `x < 1`. FLOPs: 1 per element.
  }]>;
def Top_AtanhOp : Top_FloatUnaryOp<"Atanh", "Inverse hyperbolic tangent", [{
    `y = atanh(x)`; `±inf` at `±1`, NaN outside `[-1, 1]`. FLOPs: 1 per
    element.
  }]>;

//===----------------------------------------------------------------------===//
// Float remainder
//===----------------------------------------------------------------------===//

def Top_FmodOp : Top_Op<"Fmod", [Pure, Top_Elementwise]> {
  let summary = "Float remainder with the sign of the dividend";
  let description = [{
    `y = fmod(lhs, rhs)` as C `fmod` / `numpy.fmod` (ONNX Mod with
    `fmod = 1`): `lhs - trunc(lhs / rhs) * rhs` computed exactly; the result
    has the sign of `lhs`; NaN if `rhs` is 0 or `lhs` is infinite. Float
    elements only, computed in f64 and rounded to the element type (exact,
    since the remainder is representable in the operands' type). Shapes
    broadcast as in numpy; operands and result share the element type.

    FLOPs: one per result element.
  }];
  let arguments = (ins Top_Tensor:$lhs, Top_Tensor:$rhs);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Bitwise ops
//===----------------------------------------------------------------------===//

/// Integer-only binary op with numpy broadcasting.
class Top_BitwiseBinaryOp<string mnemonic, string desc, string semantics,
                          list<Trait> traits = []>
    : Top_Op<mnemonic, !listconcat([Pure, Top_Elementwise], traits)> {
  let summary = desc;
  let description = semantics # [{

    Integer elements (signed or unsigned, 8 to 64 bits; not `i1`) on their
    two's complement bit patterns. Shapes broadcast as in numpy; operands
    and result share the element type.

    FLOPs: one per result element.
  }];
  let arguments = (ins Top_Tensor:$lhs, Top_Tensor:$rhs);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_BitwiseAndOp : Top_BitwiseBinaryOp<"BitwiseAnd", "Bitwise and", [{
    `y = lhs & rhs` (`numpy.bitwise_and`).
  }], [Commutative]>;
def Top_BitwiseOrOp : Top_BitwiseBinaryOp<"BitwiseOr", "Bitwise or", [{
    `y = lhs | rhs` (`numpy.bitwise_or`).
  }], [Commutative]>;
def Top_BitwiseXorOp : Top_BitwiseBinaryOp<"BitwiseXor", "Bitwise exclusive or", [{
    `y = lhs ^ rhs` (`numpy.bitwise_xor`).
  }], [Commutative]>;

def Top_BitShiftOp : Top_BitwiseBinaryOp<"BitShift", "Logical bit shift", [{
    `y = lhs << rhs` (`direction = "LEFT"`) or `y = lhs >> rhs`
    (`direction = "RIGHT"`) on unsigned integers (ONNX BitShift). Bits
    shifted out are lost; a shift by at least the bit width gives 0.

    Attributes:
    * `direction` (`#top.shift_direction`): `LEFT` or `RIGHT`. Unsigned
      element types only.
  }]> {
  let arguments = (ins Top_Tensor:$lhs, Top_Tensor:$rhs,
                   Top_ShiftDirectionAttr:$direction);
}

def Top_BitwiseNotOp : Top_UnaryOp<"BitwiseNot", "Bitwise complement", [{
    `y = ~x` (`numpy.invert`). Integer elements (not `i1`). FLOPs: 1 per
    element.
  }]>;

//===----------------------------------------------------------------------===//
// Linear algebra and normalization
//===----------------------------------------------------------------------===//

def Top_DetOp : Top_Op<"Det", [Pure]> {
  let summary = "Determinant of square matrices";
  let description = [{
    `input` has shape `[*, M, M]` (rank >= 2, float elements); the result
    has shape `[*]` and holds the determinant of each trailing `M x M`
    matrix (ONNX Det, `numpy.linalg.det`). Computed in f64 by LU
    decomposition with partial pivoting and rounded to the element type; the
    determinant of a `0 x 0` matrix is 1.

    FLOPs: `2/3 * M^3` per matrix (rounded up).
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_LRNOp : Top_Op<"LRN", [Pure]> {
  let summary = "Local response normalization across channels";
  let description = [{
    ONNX LRN on `input` `N x C x D1..Dr` (rank >= 3, float elements):
    `y[n, c, ...] = x[n, c, ...] / (bias + alpha / size * sum(x[n, i, ...]^2))^beta`
    where `i` runs over `[c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]`
    clipped to `[0, C)`. Computed in f32 (f64 for f64). The result has the
    input's shape and element type.

    Attributes:
    * `size` (I64, >= 1): the number of channels summed.
    * `alpha` (F64, default 0.0001), `beta` (F64, default 0.75), `bias`
      (F64, default 1.0).

    FLOPs: `size + 4` per element.
  }];
  let arguments = (ins Top_Tensor:$input, I64Attr:$size,
                   DefaultValuedAttr<F64Attr, "0.0001">:$alpha,
                   DefaultValuedAttr<F64Attr, "0.75">:$beta,
                   DefaultValuedAttr<F64Attr, "1.0">:$bias);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Signal processing
//===----------------------------------------------------------------------===//

def Top_WindowOp : Top_Op<"Window", [Pure]> {
  let summary = "Hann, Hamming or Blackman window";
  let description = [{
    A 1-d window of `size` samples (ONNX HannWindow, HammingWindow,
    BlackmanWindow). With `N = size` if `periodic`, else `size - 1`, sample
    `n` is
    * hann: `0.5 - 0.5 * cos(2 pi n / N)`
    * hamming: `25/46 - 21/46 * cos(2 pi n / N)`
    * blackman: `0.42 - 0.5 * cos(2 pi n / N) + 0.08 * cos(4 pi n / N)`

    computed in f64 and converted to the result's element type (float or
    integer; integers truncate). A symmetric window of size 1 is `[1]`.
    No operands: the op folds to a constant.

    Attributes:
    * `kind` (`#top.window_kind`): `hann`, `hamming` or `blackman`.
    * `size` (I64, >= 0): the number of samples (the result shape `[size]`).
    * `periodic` (bool, default true).

    FLOPs: 4 per sample.
  }];
  let arguments = (ins Top_WindowKindAttr:$kind, I64Attr:$size,
                   DefaultValuedAttr<BoolAttr, "true">:$periodic);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_MelWeightMatrixOp : Top_Op<"MelWeightMatrix", [Pure]> {
  let summary = "Triangular mel filter bank";
  let description = [{
    The `[dft_length / 2 + 1, num_mel_bins]` matrix that maps a onesided
    magnitude spectrum to mel bins (ONNX MelWeightMatrix). Mel frequency is
    `2595 * log10(1 + hz / 700)`. `num_mel_bins + 2` points spaced evenly in
    mel from `lower_edge_hertz` to `upper_edge_hertz` are mapped back to hz
    and then to spectrum bins `floor((dft_length + 1) * hz / sample_rate)`;
    mel bin `i` is a triangle rising from point `i` to point `i + 1` and
    falling to point `i + 2` (a flat peak of 1 if the two lower points map to
    the same bin). Computed in f64 and converted to the result's element
    type. With constant operands the op folds to a constant.

    Operands: `lower_edge_hertz`, `upper_edge_hertz`: float tensors of one
    element; the reference interpreter requires `0 <= lower <= upper < inf`
    and every corner point to map to a bin `<= dft_length / 2`.

    Attributes:
    * `num_mel_bins`, `dft_length`, `sample_rate` (I64, each in
      `[1, 2^24]`).

    FLOPs: one per result element.
  }];
  let arguments = (ins Top_Tensor:$lower_edge_hertz,
                   Top_Tensor:$upper_edge_hertz, I64Attr:$num_mel_bins,
                   I64Attr:$dft_length, I64Attr:$sample_rate);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_DFTOp : Top_Op<"DFT", [Pure]> {
  let summary = "Discrete Fourier transform along one axis";
  let description = [{
    ONNX DFT. `input` is `[batch, D1, .., Dk, 1]` (real) or
    `[batch, D1, .., Dk, 2]` (complex: real and imaginary parts) with float
    elements; the transform runs along `axis` (`0 <= axis <= rank - 2`;
    ONNX allows the batch dim). The signal along `axis` is zero-padded or truncated to
    `dft_length` samples, then
    `Y[k] = sum_n X[n] * exp(-+2 pi i k n / L)` (`+` and a factor `1/L` if
    `inverse`). The result has the input's element type and shape except:
    * forward (`inverse = false`): `L' = onesided ? L/2 + 1 : L` on `axis`
      (onesided keeps the bins `0 .. L/2`) and a last dim of 2;
    * inverse, not onesided: `L` on `axis`, last dim 2;
    * inverse and onesided (inverse real FFT, `numpy.fft.irfft`): the input
      holds bins `0 .. L/2` of a Hermitian spectrum (zero-padded or
      truncated to `L/2 + 1` bins; the rest is their conjugate mirror); the
      result is the real signal: `L` on `axis`, last dim 1.

    Computed in f64 (radix-2 FFT when `L` is a power of two, else the direct
    sum) and rounded.

    Attributes:
    * `axis` (I64): the transformed dim, in `[0, rank - 2]`.
    * `dft_length` (I64, >= 1): `L`.
    * `inverse`, `onesided` (bool, default false).

    FLOPs: `8 * L * L'` per transformed signal (the direct sum).
  }];
  let arguments = (ins Top_Tensor:$input, I64Attr:$axis, I64Attr:$dft_length,
                   DefaultValuedAttr<BoolAttr, "false">:$inverse,
                   DefaultValuedAttr<BoolAttr, "false">:$onesided);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_STFTOp : Top_Op<"STFT", [Pure]> {
  let summary = "Short-time Fourier transform";
  let description = [{
    ONNX STFT. `signal` is `[batch, length, 1]` (real) or
    `[batch, length, 2]` (complex) with float elements; `window` is a 1-d
    tensor of `frame_length` samples of the same element type, or `none`
    (a rectangular window). Frame `f` takes samples
    `f * frame_step .. f * frame_step + frame_length - 1`, multiplies them by
    the window and takes their DFT. The result is
    `[batch, frames, bins, 2]` with `frames = (length - frame_length) /
    frame_step + 1` and `bins = onesided ? frame_length / 2 + 1 :
    frame_length` (onesided keeps the bins `0 .. frame_length/2`, also for a
    complex signal as the ONNX reference does); computed in f64 and rounded
    to the element type.

    Attributes:
    * `frame_step` (I64, >= 1), `frame_length` (I64, >= 1, <= length).
    * `onesided` (bool, default true).

    FLOPs: `8 * frame_length * bins` per frame.
  }];
  let arguments = (ins Top_Tensor:$signal, Top_TensorOrNone:$window,
                   I64Attr:$frame_step, I64Attr:$frame_length,
                   DefaultValuedAttr<BoolAttr, "true">:$onesided);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

#endif // STRATA_TOP_MATH_OPS
