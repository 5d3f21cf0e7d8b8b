// RUN: strata-opt %s --top-convert-layout=target=nchw --split-input-file | FileCheck %s
// RUN: strata-opt %s --top-convert-layout=target=nchw --top-sink-transposes --top-fold-constants --canonicalize --split-input-file | FileCheck %s --check-prefix=OPT
// RUN: strata-opt %s --top-convert-layout=target=nhwc --split-input-file | FileCheck %s --check-prefix=NHWC
// RUN: strata-opt %s --top-optimize=layout=nchw --split-input-file | FileCheck %s --check-prefix=PIPE
// RUN: not strata-opt %s --top-convert-layout=target=xyz --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option 'target' = "xyz" must be "nchw" or "nhwc"

// An NHWC conv with a constant OHWI filter becomes an NCHW conv between
// Permutes; the filter's Permute folds into a new OIHW weight.
// CHECK-LABEL: func @conv
// CHECK: %[[X:.*]] = top.Permute(%arg0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
// CHECK: %[[W:.*]] = top.Permute(%{{.*}}) {order = array<i64: 0, 3, 1, 2>} : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
// CHECK: %[[C:.*]] = top.Conv(%[[X]], %[[W]], %{{.*}}) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
// CHECK: %[[Y:.*]] = top.Permute(%[[C]]) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
// CHECK: return %[[Y]]
// OPT-LABEL: func @conv
// OPT-COUNT-2: top.Permute
// OPT-NOT: top.Permute
// NHWC-LABEL: func @conv
// NHWC-NOT: top.Permute
func.func @conv(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %w = top.Weight() {name = "w", value = dense<0.5> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32>
  %n = top.None() : () -> none
  %0 = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, layout = #top.layout<NHWC>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

// Conv -> Relu -> MaxPool, all channels last; after conversion the Permutes between
// the ops cancel and only the two at the graph boundary stay.
// OPT-LABEL: func @chain
// OPT: top.Permute(%arg0) {order = array<i64: 0, 3, 1, 2>}
// OPT: top.Conv
// OPT: top.Relu
// OPT: top.MaxPool
// OPT-NOT: layout
// OPT: top.Permute(%{{.*}}) {order = array<i64: 0, 2, 3, 1>}
// OPT-NOT: top.Permute
// NHWC-LABEL: func @chain
// NHWC-NOT: top.Permute
// The pipeline also fuses the Relu into the Conv.
// PIPE-LABEL: func @chain
// PIPE: top.Permute(%arg0)
// PIPE-NOT: top.Permute
// PIPE: top.Conv({{.*}}do_relu = true
// PIPE-NEXT: top.MaxPool
// PIPE-NEXT: top.Permute
// PIPE-NEXT: return
func.func @chain(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x4x4x4xf32> {
  %w = top.Weight() {name = "w", value = dense<0.5> : tensor<4x1x1x3xf32>} : () -> tensor<4x1x1x3xf32>
  %n = top.None() : () -> none
  %0 = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 1, 1>, layout = #top.layout<NHWC>} : (tensor<1x8x8x3xf32>, tensor<4x1x1x3xf32>, none) -> tensor<1x8x8x4xf32>
  %1 = top.Relu(%0) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %2 = top.MaxPool(%1) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = #top.layout<NHWC>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  return %2 : tensor<1x4x4x4xf32>
}

// -----

// NCHW ops are left alone for target=nchw and wrapped for target=nhwc.
// CHECK-LABEL: func @already_nchw
// CHECK-NOT: top.Permute
// NHWC-LABEL: func @already_nchw
// NHWC: %[[X:.*]] = top.Permute(%arg0) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// NHWC: %[[B:.*]] = top.BatchNorm(%[[X]], {{.*}}layout = #top.layout<NHWC>{{.*}} -> tensor<1x8x8x3xf32>
// NHWC: top.Permute(%[[B]]) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
func.func @already_nchw(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %m = top.Weight() {name = "m", value = dense<0.5> : tensor<3xf32>} : () -> tensor<3xf32>
  %n = top.None() : () -> none
  %0 = top.BatchNorm(%arg0, %m, %m, %n, %n) : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, none, none) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Unranked operands: the rank comes from the ranked filter (Conv) or from
// kernel_shape (MaxPool, all unranked); the Permutes around them stay
// unranked until shape inference.
// CHECK-LABEL: func @unranked
// NHWC-LABEL: func @unranked
// NHWC: %[[X:.*]] = top.Permute(%arg0) {order = array<i64: 0, 2, 3, 1>} : (tensor<*xf32>) -> tensor<*xf32>
// NHWC: %[[W:.*]] = top.Permute(%{{.*}}) {order = array<i64: 0, 2, 3, 1>} : (tensor<8x3x5x5xf32>) -> tensor<8x5x5x3xf32>
// NHWC: %[[C:.*]] = top.Conv(%[[X]], %[[W]], {{.*}}layout = #top.layout<NHWC>{{.*}} -> tensor<*xf32>
// NHWC: %[[P:.*]] = top.Permute(%[[C]]) {order = array<i64: 0, 3, 1, 2>} : (tensor<*xf32>) -> tensor<*xf32>
// NHWC: %[[Q:.*]] = top.Permute(%[[P]]) {order = array<i64: 0, 2, 3, 1>} : (tensor<*xf32>) -> tensor<*xf32>
// NHWC: top.MaxPool(%[[Q]]) {{.*}}layout = #top.layout<NHWC>{{.*}} -> tensor<*xf32>
func.func @unranked(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  %w = top.Weight() {name = "w", value = dense<0.5> : tensor<8x3x5x5xf32>} : () -> tensor<8x3x5x5xf32>
  %n = top.None() : () -> none
  %0 = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 5, 5>} : (tensor<*xf32>, tensor<8x3x5x5xf32>, none) -> tensor<*xf32>
  %1 = top.MaxPool(%0) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<*xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}
