// strata compile --target npu-sim: the NPU description, --emit hl, the
// explanation and the report (docs/npu.md).
// RUN: rm -rf %t && mkdir -p %t
// RUN: strata compile %s --target npu-sim --emit hl --no-optimize -o %t/out --explain-strategy --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=HL < %t/out/compile-npu.mlir
// RUN: strata compile %s --target npu-sim --no-optimize -o %t/x.strata --report --explain-strategy | FileCheck %s --check-prefix=ARTIFACT
// RUN: strata compile %s --target npu-sim --no-optimize --emit hw -o - | FileCheck %s --check-prefix=HW
// RUN: echo '{"slices": 0}' > %t/zero.json
// RUN: not strata compile %s --target npu-sim --npu-config %t/zero.json --emit hl -o %t/x 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: echo '{"slice": 2}' > %t/typo.json
// RUN: not strata compile %s --target npu-sim --npu-config %t/typo.json --emit hl -o %t/x 2>&1 | FileCheck %s --check-prefix=TYPO
// RUN: echo '{"slices": "two"}' > %t/type.json
// RUN: not strata compile %s --target npu-sim --npu-config %t/type.json --emit hl -o %t/x 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: echo '{"macs_per_slice": 100}' > %t/modes.json
// RUN: not strata compile %s --target npu-sim --npu-config %t/modes.json --emit hl -o %t/x 2>&1 | FileCheck %s --check-prefix=MODES
// RUN: not strata compile %s --target npu-sim --npu-config %t/missing.json --emit hl -o %t/x 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not strata compile %s --target top --npu-config %t/zero.json -o %t/x 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not strata compile %s --target npu-sim --emit hx -o %t/x 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not strata compile %s --target cpu --no-segmentation -o %t/x 2>&1 | FileCheck %s --check-prefix=NOSEG
// RUN: echo '{"formats": ["bf16"]}' > %t/bf16only.json
// RUN: strata compile %s --target npu-sim --npu-config %t/bf16only.json --emit hl --no-optimize -o %t/b --explain-strategy | FileCheck %s --check-prefix=FORMATS

// CHECK: npu-sim: 1 of 2 candidate op(s) run on the NPU
// CHECK: top.Conv 'conv': hl.conv2d
// CHECK: top.Conv 'float_conv': stays on the CPU: no NPU kernel's strategy condition holds
// CHECK: dtype(operand 0) in {qi8, i8, bf16}
// CHECK: NPU kernels: hl.conv2d x1
// CHECK: CPU ops: top.Conv x1
// CHECK: transposes left: 0
// HL: hl.conv2d
// ARTIFACT: top.Conv 'conv': hl.conv2d
// ARTIFACT: hl.conv2d: npu-sim program 'npu_0_y'
// ARTIFACT: npu-sim artifact (strata-npu): 1 npu-sim dispatch(es), 1 CPU dispatch(es)
// HW: npuhw.program @npu_0_y
// HW: npuhw.slice_task {{.*}}kernel = "conv2d"
// HW-NOT: hl.conv2d
// ZERO: zero.json: npu config: field 'slices' is 0, expected 1..64
// TYPO: typo.json: npu config: unknown field 'slice'
// TYPE: type.json: npu config: field 'slices' is "two", expected an integer
// MODES: modes.json: npu config: field 'vector_modes' is 64x4 (mode '64x4'), expected pixels * channels == macs_per_slice
// MISSING: --npu-config '{{.*}}missing.json' cannot be read
// TARGET: --npu-config needs --target npu-sim
// NOSEG: strata compile: --no-segmentation needs --target npu-sim
// EMIT: --emit 'hx' is not available; the stages are 'hl' and 'hw'
// FORMATS: top.Conv 'conv': stays on the CPU: the NPU description's formats do not list int8

func.func @main(%arg0: tensor<1x2x4x4xi8>, %arg1: tensor<1x2x4x4xf32>) -> (tensor<1x3x4x4xi8>, tensor<1x3x4x4xf32>) {
  %x = top.Input(%arg0) : (tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xi8> loc("x")
  %xf = top.Input(%arg1) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("xf")
  %w = top.Weight() {name = "w", value = dense<1> : tensor<3x2x1x1xi8>} : () -> tensor<3x2x1x1xi8>
  %n = top.None() : () -> none
  %acc = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<3x2x1x1xi8>, none) -> tensor<1x3x4x4xi32> loc("conv")
  %y = top.Requant(%acc) {multiplier = array<i64: 3>, rshift = array<i64: 1>} : (tensor<1x3x4x4xi32>) -> tensor<1x3x4x4xi8> loc("y")
  %wf = top.Weight() {name = "wf", value = dense<0.5> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %z = top.Conv(%xf, %wf, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32> loc("float_conv")
  return %y, %z : tensor<1x3x4x4xi8>, tensor<1x3x4x4xf32>
}
