// RUN: strata-opt %s -split-input-file --convert-top-to-linalg --verify-diagnostics | FileCheck %s

// A binary op broadcasts its operands from the right: the rank-1 operand is
// read along the last dim, the size-1 dim at index 0.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
// CHECK-NOT: arith.maximumf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]]
// CHECK: arith.subf
// CHECK: arith.cmpf olt
// CHECK: arith.select
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %0 = top.Add(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = top.Sub(%0, %c) {do_relu = true} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Unsigned integers compute as signless with the unsigned ops; the function
// signature is converted alike.
// CHECK-LABEL: func.func @max_unsigned
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.maxui
func.func @max_unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = top.Max(%a, %b) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @relu_int
// CHECK: arith.maxsi
func.func @relu_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = top.Relu(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Add'}}
  %0 = top.Add(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Float binary ops on f16 compute in f32 and round back; do_relu runs on the
// rounded value and keeps NaN and -0 (x < 0 ? 0 : x).
// CHECK-LABEL: func.func @binary_f16
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-DAG: %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-DAG: %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK: %[[M:.*]] = arith.mulf %[[XE]], %[[YE]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK: %[[TE:.*]] = arith.extf %[[T]] : f16 to f32
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[TE]]
// CHECK: %[[R:.*]] = arith.select %[[NEG]], %{{.*}}, %[[T]] : f16
// CHECK: linalg.yield %[[R]] : f16
func.func @binary_f16(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = top.Mul(%a, %b) {do_relu = true} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Max/Min on floats: NaN in either operand propagates (numpy.maximum).
// CHECK-LABEL: func.func @max_min_float
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[Y]] : f32
// CHECK: %[[S:.*]] = arith.select %[[LT]], %[[Y]], %[[X]] : f32
// CHECK: %[[YN:.*]] = arith.cmpf uno, %[[Y]], %[[Y]] : f32
// CHECK: arith.select %[[YN]], %[[Y]], %[[S]] : f32
// CHECK: ^bb0(%[[X2:.*]]: f32, %[[Y2:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.cmpf olt, %[[Y2]], %[[X2]] : f32
func.func @max_min_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.Max(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = top.Min(%0, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Signed integer division never traps: a divisor of 0 or -1 is replaced by
// 1; x / 0 = 0 and x / -1 = 0 - x (MIN / -1 wraps to MIN).
// CHECK-LABEL: func.func @div_int
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[ISZ:.*]] = arith.cmpi eq, %[[Y]], %[[ZERO]] : i32
// CHECK-DAG: %[[ISM1:.*]] = arith.cmpi eq, %[[Y]], %[[M1]] : i32
// CHECK: %[[BAD:.*]] = arith.ori %[[ISZ]], %[[ISM1]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %[[ONE]], %[[Y]] : i32
// CHECK: %[[Q:.*]] = arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK: %[[NEG:.*]] = arith.subi %[[ZERO]], %[[X]] : i32
// CHECK: %[[R:.*]] = arith.select %[[ISM1]], %[[NEG]], %[[Q]] : i32
// CHECK: arith.select %[[ISZ]], %[[ZERO]], %[[R]] : i32
// Unsigned: only the zero divisor is replaced.
// CHECK: linalg.generic
// CHECK: arith.cmpi eq
// CHECK-NOT: arith.ori
// CHECK: arith.divui
// Floats divide as IEEE.
// CHECK: linalg.generic
// CHECK: arith.divf
func.func @div_int(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xui16>, %d: tensor<4xui16>, %e: tensor<4xf64>) -> (tensor<4xi32>, tensor<4xui16>, tensor<4xf64>) {
  %0 = top.Div(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = top.Div(%c, %d) : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %2 = top.Div(%e, %e) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xui16>, tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @pow
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
func.func @pow(%a: tensor<2x3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %0 = top.Pow(%a, %b) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Relu of i1 and of unsigned integers is the identity; Abs of a signed
// integer is x < 0 ? 0 - x : x (MIN wraps); Neg is 0 - x.
// CHECK-LABEL: func.func @unary_int
// CHECK: ^bb0(%[[B:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT: linalg.yield %[[B]] : i1
// CHECK: ^bb0(%[[U:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: linalg.yield %[[U]] : i8
// CHECK: ^bb0(%[[X:.*]]: i64, %{{.*}}: i64):
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[X]], %[[Z:.*]] : i64
// CHECK: %[[N:.*]] = arith.subi %[[Z]], %[[X]] : i64
// CHECK: arith.select %[[LT]], %[[N]], %[[X]] : i64
// CHECK: ^bb0(%[[X2:.*]]: i64, %{{.*}}: i64):
// CHECK: arith.subi %{{.*}}, %[[X2]] : i64
// CHECK: ^bb0(%[[F:.*]]: bf16, %{{.*}}: bf16):
// CHECK: arith.extf %[[F]] : bf16 to f32
// CHECK: math.absf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @unary_int(%a: tensor<3xi1>, %b: tensor<3xui8>, %c: tensor<3xi64>, %d: tensor<3xbf16>) -> (tensor<3xi1>, tensor<3xui8>, tensor<3xi64>, tensor<3xbf16>) {
  %0 = top.Relu(%a) : (tensor<3xi1>) -> tensor<3xi1>
  %1 = top.Abs(%b) : (tensor<3xui8>) -> tensor<3xui8>
  %2 = top.Abs(%c) : (tensor<3xi64>) -> tensor<3xi64>
  %3 = top.Neg(%2) : (tensor<3xi64>) -> tensor<3xi64>
  %4 = top.Abs(%d) : (tensor<3xbf16>) -> tensor<3xbf16>
  return %0, %1, %3, %4 : tensor<3xi1>, tensor<3xui8>, tensor<3xi64>, tensor<3xbf16>
}

// -----

// Activations with attributes use them as constants of the compute type.
// CHECK-LABEL: func.func @activations
// LeakyRelu: x >= 0 ? x : alpha * x.
// CHECK: arith.constant 2.500000e-01 : f32
// CHECK: arith.mulf
// CHECK: arith.cmpf oge
// CHECK: arith.select
// Clip: x < lo ? lo : (hi < x ? hi : x), NaN kept.
// CHECK: linalg.generic
// CHECK-DAG: arith.constant -1.500000e+00 : f32
// CHECK-DAG: arith.constant 5.000000e-01 : f32
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: arith.cmpf olt
// CHECK: arith.select
// HardSigmoid: alpha * x + beta, clamped to [0, 1].
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.cmpf olt
// HardSwish: x * hardsigmoid(x, 1/6, 1/2).
// CHECK: linalg.generic
// CHECK: arith.constant 0.16666
// CHECK: arith.mulf
// Sigmoid: 1 / (1 + exp(-x)); SiLU: x * sigmoid(x).
// CHECK: linalg.generic
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.mulf
func.func @activations(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = top.LeakyRelu(%x) {alpha = 0.25 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = top.Clip(%x) {min = -1.5 : f64, max = 0.5 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = top.HardSigmoid(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %3 = top.HardSwish(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %4 = top.Sigmoid(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %5 = top.SiLU(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// ScalarAffine: x * scale, then + offset (two roundings, no fma).
// CHECK-LABEL: func.func @scalar_affine
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[A:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %[[A]] : f32
// CHECK: %[[B:.*]] = arith.constant -2.500000e-01 : f32
// CHECK: arith.addf %[[M]], %[[B]] : f32
// CHECK-NOT: math.fma
func.func @scalar_affine(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = top.ScalarAffine(%x) {scale = 1.5 : f64, offset = -0.25 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Gelu: 0.5 * x * erfc(-x / sqrt(2)) by default; with approximate = tanh
// x / (1 + exp(-2u)) = 0.5 * x * (1 + tanh(u)) (no cancellation near -1).
// CHECK-LABEL: func.func @gelu
// CHECK: ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK: %[[C:.*]] = arith.constant -0.70710678118654{{[0-9]*}} : f64
// CHECK: %[[Z:.*]] = arith.mulf %[[X]], %[[C]] : f64
// CHECK: %[[E:.*]] = math.erfc %[[Z]] : f64
// CHECK: %[[H:.*]] = arith.mulf %{{.*}}, %[[X]] : f64
// CHECK: arith.mulf %[[H]], %[[E]] : f64
// CHECK: ^bb0(%[[X2:.*]]: f64, %{{.*}}: f64):
// CHECK: arith.constant 4.471500e-02 : f64
// CHECK: arith.constant -1.595769
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf %[[X2]], %{{.*}} : f64
func.func @gelu(%x: tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>) {
  %0 = top.Gelu(%x) : (tensor<8xf64>) -> tensor<8xf64>
  %1 = top.Gelu(%x) {approximate = #top.gelu_approximation<tanh>} : (tensor<8xf64>) -> tensor<8xf64>
  return %0, %1 : tensor<8xf64>, tensor<8xf64>
}

// -----

// One math op per function; Rsqrt is 1 / sqrt(x); Fmod is arith.remf.
// CHECK-LABEL: func.func @math
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK-NEXT: arith.divf
// CHECK: math.erf
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.tan
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
// CHECK: arith.remf %{{.*}}, %{{.*}} : f32
func.func @math(%x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  %0 = top.Tanh(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = top.Exp(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = top.Log(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = top.Sqrt(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = top.Rsqrt(%3) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = top.Erf(%4) : (tensor<4xf32>) -> tensor<4xf32>
  %6 = top.Sin(%5) : (tensor<4xf32>) -> tensor<4xf32>
  %7 = top.Cos(%6) : (tensor<4xf32>) -> tensor<4xf32>
  %8 = top.Tan(%7) : (tensor<4xf32>) -> tensor<4xf32>
  %9 = top.Asin(%8) : (tensor<4xf32>) -> tensor<4xf32>
  %10 = top.Acos(%9) : (tensor<4xf32>) -> tensor<4xf32>
  %11 = top.Atan(%10) : (tensor<4xf32>) -> tensor<4xf32>
  %12 = top.Sinh(%11) : (tensor<4xf32>) -> tensor<4xf32>
  %13 = top.Cosh(%12) : (tensor<4xf32>) -> tensor<4xf32>
  %14 = top.Asinh(%13) : (tensor<4xf32>) -> tensor<4xf32>
  %15 = top.Acosh(%14) : (tensor<4xf32>) -> tensor<4xf32>
  %16 = top.Atanh(%15) : (tensor<4xf32>) -> tensor<4xf32>
  %17 = top.Fmod(%16, %y) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %17 : tensor<4xf32>
}

// -----

// PRelu broadcasts a per-channel slope [C, 1, 1] over NCHW.
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// CHECK-LABEL: func.func @prelu
// CHECK: linalg.generic {indexing_maps = [#[[ID4]], #[[CH]], #[[ID4]]]
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[GE:.*]] = arith.cmpf oge, %[[X]]
// CHECK: %[[M:.*]] = arith.mulf %[[S]], %[[X]] : f32
// CHECK: arith.select %[[GE]], %[[X]], %[[M]] : f32
func.func @prelu(%x: tensor<2x3x4x5xf32>, %s: tensor<3x1x1xf32>) -> tensor<2x3x4x5xf32> {
  %0 = top.PRelu(%x, %s) : (tensor<2x3x4x5xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Where broadcasts its three operands.
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[C]], #[[X]], #[[Y]], #[[O]]]
// CHECK: ^bb0(%[[CV:.*]]: i1, %[[XV:.*]]: i8, %[[YV:.*]]: i8, %{{.*}}: i8):
// CHECK: arith.select %[[CV]], %[[XV]], %[[YV]] : i8
func.func @where(%c: tensor<2x1xi1>, %x: tensor<ui8>, %y: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = top.Where(%c, %x, %y) : (tensor<2x1xi1>, tensor<ui8>, tensor<3xui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Compare: floats ordered except NotEqual (une); signed, unsigned and i1
// (unsigned) integer predicates.
// CHECK-LABEL: func.func @compare
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: arith.extf
// CHECK: arith.cmpf oge, %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i8
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf16>, %c: tensor<4xi32>, %d: tensor<4xui64>, %e: tensor<4xi1>, %f: tensor<4xi8>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = top.Compare(%a, %a) {mode = #top.compare_mode<NotEqual>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = top.Compare(%b, %b) {mode = #top.compare_mode<GreaterOrEqual>} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>
  %2 = top.Compare(%c, %c) {mode = #top.compare_mode<LessOrEqual>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %3 = top.Compare(%d, %d) {mode = #top.compare_mode<Greater>} : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xi1>
  %4 = top.Compare(%e, %e) {mode = #top.compare_mode<Less>} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %5 = top.Compare(%f, %f) {mode = #top.compare_mode<Equal>} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Float to integer saturates: NaN, and values at or past the bounds, are
// replaced by 0 before the conversion, then by 0 / MIN / MAX.
// CHECK-LABEL: func.func @cast_float_to_int
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i8):
// CHECK-DAG: %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-DAG: %[[TL:.*]] = arith.cmpf ole, %[[X]], %[[LO]] : f32
// CHECK-DAG: %[[TH:.*]] = arith.cmpf oge, %[[X]], %[[HI]] : f32
// CHECK-DAG: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[X]] : f32
// CHECK: %[[C:.*]] = arith.fptosi %[[SAFE]] : f32 to i8
// CHECK: %[[MIN:.*]] = arith.constant -128 : i8
// CHECK: %[[R:.*]] = arith.select %[[TL]], %[[MIN]], %[[C]] : i8
// CHECK: %[[MAX:.*]] = arith.constant 127 : i8
// CHECK: arith.select %[[TH]], %[[MAX]], %[[R]] : i8
// Unsigned: fptoui with bounds 0 and 2^32 (u32 max rounded to f32).
// CHECK: ^bb0(%{{.*}}: f16, %{{.*}}: i32):
// CHECK: arith.extf
// CHECK-DAG: arith.constant 0.000000e+00 : f32
// CHECK-DAG: arith.constant 4.2949673E+9 : f32
// CHECK: arith.fptoui %{{.*}} : f32 to i32
// To i1: x != 0 with NaN true.
// CHECK: arith.cmpf une
// To i4: the low bits of fmod(x, 256), 0 for NaN and Inf.
// CHECK: ^bb0(%{{.*}}: f64, %{{.*}}: i4):
// CHECK: math.absf
// CHECK: arith.cmpf olt
// CHECK: arith.remf
// CHECK: arith.fptosi %{{.*}} : f64 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i4
func.func @cast_float_to_int(%a: tensor<4xf32>, %b: tensor<4xf16>, %c: tensor<4xf64>) -> (tensor<4xi8>, tensor<4xui32>, tensor<4xi1>, tensor<4xi4>) {
  %0 = top.Cast(%a) : (tensor<4xf32>) -> tensor<4xi8>
  %1 = top.Cast(%b) : (tensor<4xf16>) -> tensor<4xui32>
  %2 = top.Cast(%a) : (tensor<4xf32>) -> tensor<4xi1>
  %3 = top.Cast(%c) : (tensor<4xf64>) -> tensor<4xi4>
  return %0, %1, %2, %3 : tensor<4xi8>, tensor<4xui32>, tensor<4xi1>, tensor<4xi4>
}

// -----

// Integer casts extend by the source's signedness (i1 as unsigned) or keep
// the low bits; to i1 is x != 0.
// CHECK-LABEL: func.func @cast_int
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.trunci %{{.*}} : i64 to i16
// CHECK: arith.cmpi ne
// CHECK: arith.extui %{{.*}} : i1 to i64
// CHECK: ^bb0(%[[S:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: linalg.yield %[[S]] : i8
func.func @cast_int(%a: tensor<4xui8>, %b: tensor<4xi8>, %c: tensor<4xi64>, %d: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi16>, tensor<4xi1>, tensor<4xsi64>, tensor<4xi8>) {
  %0 = top.Cast(%a) : (tensor<4xui8>) -> tensor<4xi32>
  %1 = top.Cast(%b) : (tensor<4xi8>) -> tensor<4xi32>
  %2 = top.Cast(%c) : (tensor<4xi64>) -> tensor<4xi16>
  %3 = top.Cast(%c) : (tensor<4xi64>) -> tensor<4xi1>
  %4 = top.Cast(%d) : (tensor<4xi1>) -> tensor<4xsi64>
  %5 = top.Cast(%a) : (tensor<4xui8>) -> tensor<4xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<4xi32>, tensor<4xi16>, tensor<4xi1>, tensor<4xsi64>, tensor<4xi8>
}

// -----

// To floats: 64-bit integers through f64 (as the interpreter; the explicit
// rounding mode stops canonicalize from folding the two roundings into one),
// narrower ones directly; f64 to f16 through f32; widening is extf.
// CHECK-LABEL: func.func @cast_to_float
// CHECK: %[[D:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.truncf %[[D]] to_nearest_even : f64 to f32
// CHECK: arith.uitofp %{{.*}} : i32 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.uitofp %{{.*}} : i1 to f64
// CHECK: %[[F:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT: arith.truncf %[[F]] : f32 to f16
// CHECK: arith.extf %{{.*}} : f16 to f64
// CHECK: %[[E:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: arith.truncf %[[E]] : f32 to f16
func.func @cast_to_float(%a: tensor<4xi64>, %b: tensor<4xui32>, %c: tensor<4xi1>, %d: tensor<4xf64>, %e: tensor<4xf16>, %f: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf64>, tensor<4xf16>, tensor<4xf64>, tensor<4xf16>) {
  %0 = top.Cast(%a) : (tensor<4xi64>) -> tensor<4xf32>
  %1 = top.Cast(%b) : (tensor<4xui32>) -> tensor<4xbf16>
  %2 = top.Cast(%c) : (tensor<4xi1>) -> tensor<4xf64>
  %3 = top.Cast(%d) : (tensor<4xf64>) -> tensor<4xf16>
  %4 = top.Cast(%e) : (tensor<4xf16>) -> tensor<4xf64>
  %5 = top.Cast(%f) : (tensor<4xbf16>) -> tensor<4xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf64>, tensor<4xf16>, tensor<4xf64>, tensor<4xf16>
}

// -----

// Bitwise ops; BitShift by the bit width or more gives 0 (shift by 0, then
// replaced).
// CHECK-LABEL: func.func @bitwise
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
// CHECK: %[[ONES:.*]] = arith.constant -1 : i16
// CHECK: arith.xori %{{.*}}, %[[ONES]] : i16
// CHECK: ^bb0(%[[X:.*]]: i16, %[[S:.*]]: i16, %{{.*}}: i16):
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i16
// CHECK-DAG: %[[W:.*]] = arith.constant 16 : i16
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[S]], %[[W]] : i16
// CHECK: %[[AMT:.*]] = arith.select %[[OK]], %[[S]], %[[Z]] : i16
// CHECK: %[[SH:.*]] = arith.shli %[[X]], %[[AMT]] : i16
// CHECK: arith.select %[[OK]], %[[SH]], %[[Z]] : i16
// CHECK: arith.shrui
func.func @bitwise(%a: tensor<4xui16>, %b: tensor<4xui16>) -> tensor<4xui16> {
  %0 = top.BitwiseAnd(%a, %b) : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %1 = top.BitwiseOr(%0, %b) : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %2 = top.BitwiseXor(%1, %b) : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %3 = top.BitwiseNot(%2) : (tensor<4xui16>) -> tensor<4xui16>
  %4 = top.BitShift(%3, %b) {direction = #top.shift_direction<LEFT>} : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %5 = top.BitShift(%4, %b) {direction = #top.shift_direction<RIGHT>} : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  return %5 : tensor<4xui16>
}

// -----

// Float8/float4 casts work on the bits: decoding builds the exact f32
// (rebiased exponent, left-aligned mantissa; subnormals by a multiply);
// encoding rounds |x| to the quantum of its binade with roundeven, then
// selects the special encodings (zero, overflow, NaN).
// CHECK-LABEL: func.func @cast_float8
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f8E4M3FN):
// CHECK: arith.extf %[[X]] : f32 to f64
// CHECK: math.roundeven
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: %[[T:.*]] = arith.trunci %{{.*}} : i64 to i8
// CHECK: %[[B:.*]] = arith.bitcast %[[T]] : i8 to f8E4M3FN
// CHECK: linalg.yield %[[B]] : f8E4M3FN
// CHECK: ^bb0(%[[Y:.*]]: f8E4M3FN, %{{.*}}: f16):
// CHECK: %[[YB:.*]] = arith.bitcast %[[Y]] : f8E4M3FN to i8
// CHECK: arith.extui %[[YB]] : i8 to i32
// CHECK: arith.uitofp
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.truncf %[[F]] : f32 to f16
// f8E8M0FNU keeps the f32 exponent, rounded by the fraction (round_mode).
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f8E8M0FNU):
// CHECK: arith.andi %{{.*}}, %c8388607_i32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E8M0FNU
// CHECK: ^bb0(%{{.*}}: f4E2M1FN, %{{.*}}: i32):
// CHECK: arith.bitcast %{{.*}} : f4E2M1FN to i4
// CHECK: arith.fptosi
func.func @cast_float8(%a: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf8E8M0FNU>, tensor<4xi32>) {
  %0 = top.Cast(%a) : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  %1 = top.Cast(%0) : (tensor<4xf8E4M3FN>) -> tensor<4xf16>
  %2 = top.Cast(%a) {round_mode = #top.round_mode<up>} : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  %3 = top.Cast(%a) : (tensor<4xf32>) -> tensor<4xf4E2M1FN>
  %4 = top.Cast(%3) : (tensor<4xf4E2M1FN>) -> tensor<4xi32>
  return %1, %2, %4 : tensor<4xf16>, tensor<4xf8E8M0FNU>, tensor<4xi32>
}

// -----

// Where selects float8/float4 values like any others.
// CHECK-LABEL: func.func @where_float4
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f4E2M1FN
func.func @where_float4(%c: tensor<4xi1>, %a: tensor<4xf4E2M1FN>) -> tensor<4xf4E2M1FN> {
  %0 = top.Where(%c, %a, %a) : (tensor<4xi1>, tensor<4xf4E2M1FN>, tensor<4xf4E2M1FN>) -> tensor<4xf4E2M1FN>
  return %0 : tensor<4xf4E2M1FN>
}

// -----

// Arithmetic on float8/float4 elements has no lowering.
func.func @add_float8(%a: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  // expected-error @+1 {{failed to legalize operation 'top.Add'}}
  %0 = top.Add(%a, %a) : (tensor<4xf8E5M2>, tensor<4xf8E5M2>) -> tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// -----

// Quantized tensors compute on their storage integers, as the interpreter
// does (wrapping i8 addition here).
// CHECK-LABEL: func.func @add_quant
// CHECK-SAME: tensor<4xi8>
// CHECK: arith.addi %{{.*}}, %{{.*}} : i8
func.func @add_quant(%a: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>> {
  %0 = top.Add(%a, %a) : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>, tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:3>>
}

// -----

// An unranked operand cannot be indexed.
func.func @unranked_operand(%a: tensor<*xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Sub'}}
  %0 = top.Sub(%a, %b) : (tensor<*xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dynamic_unary(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Exp'}}
  %0 = top.Exp(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
