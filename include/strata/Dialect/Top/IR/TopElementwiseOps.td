//===- TopElementwiseOps.td - binary and unary elementwise -*- tablegen -*-===//
//
// Elementwise arithmetic, activations, comparison, selection and casts.
// The C++ is split between lib/Dialect/Top/IR/ElementwiseOps.cpp (binary,
// Where, Compare, Cast, Abs, Neg, Relu) and ActivationOps.cpp (float-only
// unary functions).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_ELEMENTWISE_OPS
#define STRATA_TOP_ELEMENTWISE_OPS

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

/// Binary op with numpy broadcasting; operands and result share the element
/// type. `semantics` documents the per-element function and the element
/// types the op accepts.
class Top_BinaryOp<string mnemonic, string desc, string semantics,
                   list<Trait> traits = []>
    : Top_Op<mnemonic, !listconcat([Pure, Top_Elementwise], traits)> {
  let summary = desc # " with numpy broadcasting";
  let description = semantics # [{

    Elementwise; shapes broadcast as in numpy (dims aligned from the right,
    each pair equal or one of them 1; a rank-0 tensor broadcasts to any
    shape). Operands and result have the same element type (for quantized
    types: the same storage type).

    Attributes:
    * `do_relu` (default false): applies `max(y, 0)` to the result (NaN
      stays NaN; integer results are clamped after wrapping around).

    FLOPs: one per result element.
  }];
  let arguments = (ins Top_Tensor:$lhs, Top_Tensor:$rhs,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_AddOp : Top_BinaryOp<"Add", "Addition", [{
    `y = lhs + rhs`. Float or integer (not `i1`) elements; integers wrap
    around on overflow.
  }], [Commutative]>;

def Top_SubOp : Top_BinaryOp<"Sub", "Subtraction", [{
    `y = lhs - rhs`. Float or integer (not `i1`) elements; integers wrap
    around on overflow.
  }]>;

def Top_MulOp : Top_BinaryOp<"Mul", "Multiplication", [{
    `y = lhs * rhs`. Float or integer (not `i1`) elements; integers wrap
    around on overflow.
  }], [Commutative]>;

def Top_DivOp : Top_BinaryOp<"Div", "Division", [{
    `y = lhs / rhs`. Float or integer (not `i1`) elements.

    Floats follow IEEE 754 (`x / 0` is `±inf` or NaN). Integer division
    truncates toward zero as in C (`-7 / 2 == -3`, unlike numpy's
    `floor_divide`); the minimum value divided by `-1` wraps to the minimum
    value. Integer division by zero is an error of the reference
    interpreter.
  }]>;

def Top_MaxOp : Top_BinaryOp<"Max", "Elementwise maximum", [{
    `y = max(lhs, rhs)` like `numpy.maximum`: a NaN in either operand gives
    NaN. Float or integer (not `i1`) elements.
  }], [Commutative]> {
  let hasFolder = 1;
}

def Top_MinOp : Top_BinaryOp<"Min", "Elementwise minimum", [{
    `y = min(lhs, rhs)` like `numpy.minimum`: a NaN in either operand gives
    NaN. Float or integer (not `i1`) elements.
  }], [Commutative]> {
  let hasFolder = 1;
}

def Top_PowOp : Top_BinaryOp<"Pow", "Power", [{
    `y = lhs ^ rhs` (C `pow`: a negative base with a non-integer exponent
    gives NaN). Float elements only.
  }], [Commutative]>;

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

/// Unary op; the result has the operand's shape and element type.
/// `semantics` documents the function, the accepted element types and the
/// FLOP count.
class Top_UnaryOp<string mnemonic, string desc, string semantics,
                  list<Trait> traits = []>
    : Top_Op<mnemonic, !listconcat([Pure, Top_Elementwise], traits)> {
  let summary = desc;
  let description = semantics # [{

    Elementwise; the result has the operand's shape and element type.
    Float results are computed in f32 (f64 for f64) and rounded to the
    element type.
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_ReluOp : Top_UnaryOp<"Relu", "Rectified linear unit", [{
    `y = max(x, 0)`; NaN stays NaN. Any element type. FLOPs: 1 per element.
  }]> {
  let hasFolder = 1;
}

def Top_AbsOp : Top_UnaryOp<"Abs", "Absolute value", [{
    `y = |x|`. Float or integer (not `i1`) elements; the minimum signed
    integer wraps to itself. FLOPs: 1 per element.
  }]> {
  let hasFolder = 1;
}

def Top_NegOp : Top_UnaryOp<"Neg", "Negation", [{
    `y = -x`. Float or integer (not `i1`) elements; integers wrap around.
    FLOPs: 1 per element.
  }]> {
  let hasFolder = 1;
}

/// A unary op that only accepts float element types (f16, bf16, f32, f64).
class Top_FloatUnaryOp<string mnemonic, string desc, string semantics>
    : Top_UnaryOp<mnemonic, desc, semantics # [{

    Float element types only.
  }], [Commutative]>;

def Top_LeakyReluOp : Top_FloatUnaryOp<"LeakyRelu", "Leaky rectified linear unit", [{
    `y = x >= 0 ? x : alpha * x` (ONNX LeakyRelu).

    Attributes:
    * `alpha` (F64, default 0.01): the slope for negative inputs.

    FLOPs: 2 per element.
  }]> {
  let arguments = (ins Top_Tensor:$input,
                   DefaultValuedAttr<F64Attr, "0.01">:$alpha);
}

def Top_ClipOp : Top_FloatUnaryOp<"Clip", "Clamp to a range", [{
    `y = min(max(x, min), max)` (ONNX Clip); NaN stays NaN.

    Attributes:
    * `min` (F64): the lower bound.
    * `max` (F64): the upper bound; the verifier requires `min <= max`
      (neither may be NaN).

    FLOPs: 2 per element.
  }]> {
  let arguments = (ins Top_Tensor:$input, F64Attr:$min, F64Attr:$max);
}

def Top_SigmoidOp : Top_FloatUnaryOp<"Sigmoid", "Logistic sigmoid", [{
    `y = 1 / (1 + exp(-x))`. FLOPs: 4 per element.
  }]>;

def Top_TanhOp : Top_FloatUnaryOp<"Tanh", "Hyperbolic tangent", [{
    `y = tanh(x)`. FLOPs: 1 per element.
  }]>;

def Top_GeluOp : Top_FloatUnaryOp<"Gelu", "Gaussian error linear unit", [{
    With `approximate = "none"`: `y = 0.5 * x * (1 + erf(x / sqrt(2)))`.
    With `approximate = "tanh"`:
    `y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`
    (ONNX Gelu-20).

    Attributes:
    * `approximate` (`#top.gelu_approximation`, default `none`): `none` or
      `tanh`.

    FLOPs: 5 per element ("none") or 9 ("tanh").
  }]> {
  let arguments = (ins Top_Tensor:$input,
                   Top_DefaultEnum<Top_GeluApproximationAttr, "None">:$approximate);
}

def Top_SiLUOp : Top_FloatUnaryOp<"SiLU", "Sigmoid linear unit (swish)", [{
    `y = x * sigmoid(x) = x / (1 + exp(-x))`. FLOPs: 5 per element.
  }]>;

def Top_HardSigmoidOp : Top_FloatUnaryOp<"HardSigmoid", "Piecewise-linear sigmoid", [{
    `y = max(0, min(1, alpha * x + beta))` (ONNX HardSigmoid).

    Attributes:
    * `alpha` (F64, default 0.2): the slope.
    * `beta` (F64, default 0.5): the offset.

    FLOPs: 4 per element.
  }]> {
  let arguments = (ins Top_Tensor:$input,
                   DefaultValuedAttr<F64Attr, "0.2">:$alpha,
                   DefaultValuedAttr<F64Attr, "0.5">:$beta);
}

def Top_HardSwishOp : Top_FloatUnaryOp<"HardSwish", "Piecewise-linear swish", [{
    `y = x * max(0, min(1, x / 6 + 0.5))` (ONNX HardSwish). FLOPs: 5 per
    element.
  }]>;

def Top_ScalarAffineOp : Top_FloatUnaryOp<"ScalarAffine", "Scalar multiply then add", [{
    `y = x * scale + offset`, rounded to the element type after the
    multiply and again after the add (a float `top.Mul` then `top.Add` by
    one-element constants, never a fused multiply-add). `strata quantize`
    writes it between the Dequant and the Quant of an int8 activation
    table when it folds such a Mul / Add (PP-LCNetV3's learnable affine
    block) into the table.

    Attributes:
    * `scale` (F64): the factor.
    * `offset` (F64): the addend.

    FLOPs: 2 per element.
  }]> {
  let arguments = (ins Top_Tensor:$input, F64Attr:$scale, F64Attr:$offset);
}

def Top_ExpOp : Top_FloatUnaryOp<"Exp", "Exponential", [{
    `y = exp(x)`. FLOPs: 1 per element.
  }]>;

def Top_LogOp : Top_FloatUnaryOp<"Log", "Natural logarithm", [{
    `y = ln(x)`: `-inf` at 0, NaN for negative inputs. FLOPs: 1 per element.
  }]>;

def Top_SqrtOp : Top_FloatUnaryOp<"Sqrt", "Square root", [{
    `y = sqrt(x)`: NaN for negative inputs. FLOPs: 1 per element.
  }]>;

def Top_RsqrtOp : Top_FloatUnaryOp<"Rsqrt", "Reciprocal square root", [{
    `y = 1 / sqrt(x)`: `+inf` at 0, NaN for negative inputs. FLOPs: 2 per
    element.
  }]>;

def Top_ErfOp : Top_FloatUnaryOp<"Erf", "Gauss error function", [{
    `y = erf(x)`. FLOPs: 1 per element.
  }]>;

def Top_PReluOp : Top_Op<"PRelu", [Pure, Top_Elementwise]> {
  let summary = "Parametric rectified linear unit";
  let description = [{
    `y = x >= 0 ? x : slope * x` (ONNX PRelu). `slope` broadcasts to the
    shape of `input` numpy-style (unidirectionally: dims aligned from the
    right, each slope dim equal to the input's or 1), so a per-channel
    slope of an NCHW input has shape `[C, 1, 1]`. The result has the
    input's shape and element type; `input` and `slope` have the same float
    element type.

    FLOPs: 2 per element.
  }];
  let arguments = (ins Top_Tensor:$input, Top_Tensor:$slope);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Selection, comparison, conversion
//===----------------------------------------------------------------------===//

def Top_WhereOp : Top_Op<"Where", [Pure, Top_Elementwise]> {
  let summary = "Elementwise selection with numpy broadcasting";
  let description = [{
    `y = cond ? x : y` (ONNX Where, `numpy.where`). `cond` has element type
    `i1`; `x`, `y` and the result share an element type (any type). The
    three shapes broadcast together numpy-style.

    FLOPs: one per result element.
  }];
  let arguments = (ins Top_Tensor:$cond, Top_Tensor:$x, Top_Tensor:$y);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_CompareOp : Top_Op<"Compare", [Pure, Top_Elementwise]> {
  let summary = "Elementwise comparison with numpy broadcasting";
  let description = [{
    Compares `lhs` with `rhs` elementwise after numpy broadcasting; the
    result has element type `i1`. The operands have the same element type
    (float, integer or `i1`). Comparisons with NaN are false except
    "NotEqual", which is true (IEEE).

    Attributes:
    * `mode` (`#top.compare_mode`): `Equal`, `Greater`, `GreaterOrEqual`,
      `Less`, `LessOrEqual` or `NotEqual`.

    FLOPs: one per result element.
  }];
  let arguments = (ins Top_Tensor:$lhs, Top_Tensor:$rhs, Top_CompareModeAttr:$mode);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

def Top_CastOp : Top_Op<"Cast", [Pure, Top_Elementwise]> {
  let summary = "Element type conversion";
  let description = [{
    Converts each element to the result's element type; the shape is
    unchanged. Semantics (like `numpy.astype` wherever numpy is defined):
    * float to integer truncates toward zero; out-of-range values saturate
      to the type's minimum/maximum and NaN becomes 0;
    * integer to integer keeps the low bits (wraps around);
    * anything to `i1` is `x != 0` (NaN is true); `i1` to anything is 0 or 1;
    * to a float type rounds to nearest even (via f64, so 64-bit integers
      beyond 2^53 may round twice);
    * to a 4- or 2-bit integer (`i4`, `ui4`, `i2`, `ui2`; signless is
      signed) keeps the low bits (wraps around), from a float after
      truncating toward zero (NaN and Inf give 0) — the ONNX / ml_dtypes
      behaviour;
    * to a float8 type (`f8E4M3FN`, `f8E4M3FNUZ`, `f8E5M2`, `f8E5M2FNUZ`):
      NaN stays NaN; with `saturate` (the default) values beyond the largest
      finite value and infinities become +-max, without it they become Inf
      (`f8E5M2`) or NaN (the FN/FNUZ types, which have no Inf). The FNUZ
      types have no -0 (it becomes +0);
    * to `f4E2M1FN` (no Inf, no NaN) always saturates to +-6; NaN becomes
      a zero (as ml_dtypes does);
    * to `f8E8M0FNU` (unsigned powers of two, 0xFF is NaN): the value is
      rounded to f32, its sign dropped, its exponent kept and rounded by the
      f32 fraction per `round_mode` ("up", the default, "down" or
      "nearest"), as ONNX Cast-25; NaN and Inf give NaN, past 2^127
      `saturate` keeps 2^127, otherwise NaN.
    `saturate` only affects float8 results and `round_mode` only
    `f8E8M0FNU` results (ONNX Cast's attributes).

    Casting to the operand's own type folds away.

    FLOPs: one per element.
  }];
  let arguments = (ins Top_Tensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$saturate,
                       Top_DefaultEnum<Top_RoundModeAttr, "Up">:$round_mode);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // STRATA_TOP_ELEMENTWISE_OPS
