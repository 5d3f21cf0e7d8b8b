// RUN: strata-opt %s -split-input-file --convert-top-to-linalg --verify-diagnostics | FileCheck %s

// A float mean accumulates in f64 over the reduced dim (a reduction loop in
// place), divides by the count, rounds to f32; keepdims expands back.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_mean_f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%{{.*}} : tensor<2x4xf64>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.constant 3.000000e+00 : f64
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
func.func @reduce_mean_f32(%a: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = top.Reduce(%a) {axes = array<i64: -2>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// Empty axes reduce every dim; an unsigned min starts at the type's highest
// value and compares unsigned, in the element's own width.
// CHECK-LABEL: func.func @reduce_min_ui8
// CHECK: %[[HI:.*]] = arith.constant -1 : i8
// CHECK: linalg.fill ins(%[[HI]] : i8)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: arith.minui %{{.*}}, %{{.*}} : i8
// CHECK-NOT: linalg.generic
// CHECK: return %{{.*}} : tensor<i8>
func.func @reduce_min_ui8(%a: tensor<2x3xui8>) -> tensor<ui8> {
  %0 = top.Reduce(%a) {keepdims = false, mode = #top.reduce_mode<ReduceMin>} : (tensor<2x3xui8>) -> tensor<ui8>
  return %0 : tensor<ui8>
}

// -----

// An integer mean sums in i64 and divides with truncation.
// CHECK-LABEL: func.func @reduce_mean_i32
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.addi %{{.*}} : i64
// CHECK: arith.constant 3 : i64
// CHECK: arith.divsi
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @reduce_mean_i32(%a: tensor<2x3xi32>) -> tensor<2xi32> {
  %0 = top.Reduce(%a) {axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<ReduceMean>} : (tensor<2x3xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Bool max: in i64 (0/1), then != 0. Float max propagates NaN, starts at -inf,
// f16 compares in f32.
// CHECK-LABEL: func.func @reduce_max_bool_f16
// CHECK: arith.extui %{{.*}} : i1 to i64
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK: arith.cmpi ne, %{{.*}} : i64
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.maximumf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @reduce_max_bool_f16(%a: tensor<2x3xi1>, %b: tensor<2x3xf16>) -> (tensor<2xi1>, tensor<3xf16>) {
  %0 = top.Reduce(%a) {axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<ReduceMax>} : (tensor<2x3xi1>) -> tensor<2xi1>
  %1 = top.Reduce(%b) {axes = array<i64: 0>, keepdims = false, mode = #top.reduce_mode<ReduceMax>} : (tensor<2x3xf16>) -> tensor<3xf16>
  return %0, %1 : tensor<2xi1>, tensor<3xf16>
}

// -----

// A reduction of zero elements: the init value alone (no division for an
// integer mean over zero elements).
// CHECK-LABEL: func.func @reduce_empty_mean_i8
// CHECK-NOT: arith.divsi
// CHECK: return
func.func @reduce_empty_mean_i8(%a: tensor<0x2xi8>) -> tensor<1x2xi8> {
  %0 = top.Reduce(%a) {axes = array<i64: 0>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<0x2xi8>) -> tensor<1x2xi8>
  return %0 : tensor<1x2xi8>
}

// -----

func.func @reduce_runtime_axes(%a: tensor<2x3xf32>, %axes: tensor<1xi64>) -> tensor<2x1xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Reduce'}}
  %0 = top.Reduce(%a, %axes) {keepdims = true, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @reduce_dynamic(%a: tensor<?x3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Reduce'}}
  %0 = top.Reduce(%a) {axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<ReduceSum>} : (tensor<?x3xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// ArgMax: best value (starting at position 0) and best index, NaN largest,
// ties to the last index with select_last_index.
// CHECK-DAG: #[[AT0:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-LABEL: func.func @argmax
// CHECK: %[[FIRST:.*]] = linalg.generic {indexing_maps = [#[[AT0]], #{{.*}}], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<2x5xf16>) outs(%{{.*}} : tensor<2xf16>)
// CHECK: %[[IDX:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<2xi64>)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<2x5xf16>) outs(%[[FIRST]], %[[IDX]] : tensor<2xf16>, tensor<2xi64>)
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: linalg.index 1
// CHECK: tensor.expand_shape %[[R]]#1 {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
func.func @argmax(%a: tensor<2x5xf16>) -> tensor<2x1xi64> {
  %0 = top.ArgMax(%a) {axis = 1 : i64, keepdims = true, select_last_index = true} : (tensor<2x5xf16>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// CHECK-LABEL: func.func @argmax_unsigned
// CHECK: arith.cmpi ugt
func.func @argmax_unsigned(%a: tensor<4xui16>) -> tensor<i64> {
  %0 = top.ArgMax(%a) {axis = 0 : i64, keepdims = false} : (tensor<4xui16>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @argmax_dynamic(%a: tensor<?x3xf32>) -> tensor<?xi64> {
  // expected-error @+1 {{failed to legalize operation 'top.ArgMax'}}
  %0 = top.ArgMax(%a) {axis = 1 : i64, keepdims = false} : (tensor<?x3xf32>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// Softmax: max (NaN-ignoring), sum of exp(x - max), then exp(x - max) / sum,
// all in f64.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maxnumf {{.*}} : f64
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %[[MAX]] :
// CHECK: math.exp {{.*}} : f64
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %[[MAX]], %[[SUM]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @softmax(%a: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = top.Softmax(%a) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// LogSoftmax takes the log of the sum once per slice; axis 0 reduces d0.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @log_softmax
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: math.log %{{.*}} : f64
// CHECK: linalg.generic
// CHECK-NOT: math.exp
// CHECK: arith.subf
// CHECK: arith.subf
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @log_softmax(%a: tensor<2x5xf16>) -> tensor<2x5xf16> {
  %0 = top.LogSoftmax(%a) {axis = 0 : i64} : (tensor<2x5xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

func.func @softmax_int(%a: tensor<2x5xi32>) -> tensor<2x5xi32> {
  // expected-error @+1 {{failed to legalize operation 'top.Softmax'}}
  %0 = top.Softmax(%a) : (tensor<2x5xi32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

// LayerNorm over dims 1..2: mean, sum of squared deviations, 1/sqrt(var+eps),
// then (x - mean) * rstd * scale with scale reshaped to the normalized shape;
// no bias.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[NORM:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[SCALE:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: arith.constant 1.200000e+01 : f64
// CHECK: arith.mulf
// CHECK: arith.constant 1.000000e-03 : f64
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[NORM]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK-NOT: arith.addf
// CHECK: arith.truncf
func.func @layer_norm(%a: tensor<2x3x4xf32>, %s: tensor<12xf32>) -> tensor<2x3x4xf32> {
  %n = top.None() : () -> none
  %0 = top.LayerNorm(%a, %s, %n) {axis = 1 : i64, epsilon = 1.0e-3} : (tensor<2x3x4xf32>, tensor<12xf32>, none) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @layer_norm_int(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.LayerNorm'}}
  %0 = top.LayerNorm(%a, %n, %n) : (tensor<2x3xi32>, none, none) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// GroupNorm splits C = 6 into 3 groups of 2; statistics per (n, group).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[NG:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[GC:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func.func @group_norm
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] output_shape [2, 3, 2, 5] : tensor<2x6x5xf32> into tensor<2x3x2x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[NG]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] :
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[NG]], #[[NG]], #[[GC]], #[[GC]], #[[ID]]]
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2], [3]] : tensor<2x3x2x5xf32> into tensor<2x6x5xf32>
func.func @group_norm(%a: tensor<2x6x5xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x5xf32> {
  %0 = top.GroupNorm(%a, %s, %b) {num_groups = 3 : i64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// -----

// Channels last: the channel dim splits at the end.
// CHECK-LABEL: func.func @group_norm_nhwc
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [2, 5, 2, 3] : tensor<2x5x6xf32> into tensor<2x5x2x3xf32>
// CHECK: iterator_types = ["parallel", "reduction", "parallel", "reduction"]
func.func @group_norm_nhwc(%a: tensor<2x5x6xf32>) -> tensor<2x5x6xf32> {
  %n = top.None() : () -> none
  %0 = top.GroupNorm(%a, %n, %n) {num_groups = 2 : i64, layout = #top.layout<NHWC>} : (tensor<2x5x6xf32>, none, none) -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// -----

func.func @group_norm_dynamic(%a: tensor<?x6x5xf32>) -> tensor<?x6x5xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.GroupNorm'}}
  %0 = top.GroupNorm(%a, %n, %n) {num_groups = 3 : i64} : (tensor<?x6x5xf32>, none, none) -> tensor<?x6x5xf32>
  return %0 : tensor<?x6x5xf32>
}

// -----

// BatchNorm folds the parameters per channel (a = 1/sqrt(var+eps) without
// scale, b = 0 - mean * a without bias), then x * a + b along dim 1.
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[AB:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>) outs(%{{.*}}, %{{.*}} : tensor<3xf64>, tensor<3xf64>)
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[C]], #[[C]], #{{.*}}], {{.*}} ins(%{{.*}}, %[[AB]]#0, %[[AB]]#1 :
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf
func.func @batch_norm(%a: tensor<2x3x5xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %n = top.None() : () -> none
  %0 = top.BatchNorm(%a, %m, %v, %n, %n) : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, none, none) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// NHWC: the channel is the last dim; parameters of any shape with C elements.
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @batch_norm_nhwc
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1x3xf32> into tensor<3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[C]], #[[C]], #{{.*}}]
func.func @batch_norm_nhwc(%a: tensor<2x5x3xf32>, %m: tensor<1x3xf32>, %v: tensor<3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x5x3xf32> {
  %0 = top.BatchNorm(%a, %m, %v, %s, %b) {layout = #top.layout<NHWC>} : (tensor<2x5x3xf32>, tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

func.func @batch_norm_int(%a: tensor<2x3xi8>, %m: tensor<3xf32>) -> tensor<2x3xi8> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.BatchNorm'}}
  %0 = top.BatchNorm(%a, %m, %m, %n, %n) : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xf32>, none, none) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// RMSNorm: sum of squares, sqrt(mean + eps), x / rms * scale; the 1x4 scale
// broadcasts over d1 (index 0).
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-LABEL: func.func @rms_norm
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[S]], #{{.*}}]
// CHECK: arith.divf
// CHECK: arith.mulf
func.func @rms_norm(%a: tensor<2x3x4xf32>, %s: tensor<1x4xf32>) -> tensor<2x3x4xf32> {
  %0 = top.RMSNorm(%a, %s) {axis = -2 : i64} : (tensor<2x3x4xf32>, tensor<1x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @rms_norm_dynamic(%a: tensor<2x?xf32>, %s: tensor<1xf32>) -> tensor<2x?xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.RMSNorm'}}
  %0 = top.RMSNorm(%a, %s) : (tensor<2x?xf32>, tensor<1xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// Cumulative sum: output j adds the inputs at q <= j in q order (f32 for
// f16), a reduction loop q after the output dims.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cumsum
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[Q:.*]] = linalg.index 2
// CHECK: %[[T:.*]] = arith.cmpi ule, %[[Q]], %[[J]]
// CHECK: %[[S:.*]] = arith.addf
// CHECK: arith.select %[[T]], %[[S]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cumsum(%a: tensor<2x5xf16>) -> tensor<2x5xf16> {
  %0 = top.Cumulative(%a) {axis = -1 : i64} : (tensor<2x5xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

// Exclusive reverse product: reverse the input, scan forward with q < j,
// reverse the result.
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1) -> (-d0 + 3, d1)>
// CHECK-LABEL: func.func @cumprod_reverse_exclusive
// CHECK: linalg.generic {indexing_maps = [#[[REV]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.constant 1 : i32
// CHECK: arith.cmpi ult
// CHECK: arith.muli
// CHECK: linalg.generic {indexing_maps = [#[[REV]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @cumprod_reverse_exclusive(%a: tensor<4x2xi32>) -> tensor<4x2xi32> {
  %0 = top.Cumulative(%a) {axis = 0 : i64, mode = #top.cumulative_mode<prod>, exclusive = true, reverse = true} : (tensor<4x2xi32>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// A run-time axis: normalized (negative from the back), clamped to
// [0, rank), then one scan per axis under scf.index_switch.
// CHECK-LABEL: func.func @cumsum_runtime_axis
// CHECK: %[[A:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi32>
// CHECK: arith.extsi %[[A]] : i32 to i64
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[I:.*]] = arith.index_cast
// CHECK: %[[R:.*]] = scf.index_switch %[[I]] -> tensor<4x2xi32>
// CHECK: case 0 {
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.index 0
// CHECK: scf.yield
// CHECK: default {
// CHECK: linalg.index 1
// CHECK: scf.yield
// CHECK: return %[[R]]
func.func @cumsum_runtime_axis(%a: tensor<4x2xi32>, %ax: tensor<1xi32>) -> tensor<4x2xi32> {
  %0 = top.Cumulative(%a, %ax) {axis = 0 : i64} : (tensor<4x2xi32>, tensor<1xi32>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

func.func @cumsum_dynamic(%a: tensor<?x2xi32>) -> tensor<?x2xi32> {
  // expected-error @+1 {{failed to legalize operation 'top.Cumulative'}}
  %0 = top.Cumulative(%a) {axis = 0 : i64} : (tensor<?x2xi32>) -> tensor<?x2xi32>
  return %0 : tensor<?x2xi32>
}

// -----

// TopK sorted: rank = number of elements ordered before (value, NaN largest,
// then lower index); gather the element of rank j.
// CHECK-DAG: #[[P:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @topk
// CHECK: %[[RANK:.*]] = linalg.generic {indexing_maps = [#[[P]], #[[Q]], #[[P]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.extui
// CHECK: arith.addi
// CHECK: %[[G:.*]]:2 = linalg.generic {indexing_maps = [#[[Q]], #[[Q]], #[[P]], #[[P]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[RANK]] : tensor<3x4xf32>, tensor<3x4xi64>) outs(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK: arith.cmpi eq
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @topk(%a: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %v, %i = top.TopK(%a) {k = 2 : i64, axis = -1 : i64} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// Unsorted smallest: a slot per selected element (selected ones before it).
// CHECK-LABEL: func.func @topk_unsorted_smallest
// CHECK: %[[RANK:.*]] = linalg.generic
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK: %[[SLOT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x3xi64>)
// CHECK: arith.cmpi slt
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[SLOT]] : tensor<4x3xi8>, tensor<4x3xi64>, tensor<4x3xi64>)
func.func @topk_unsorted_smallest(%a: tensor<4x3xui8>) -> (tensor<2x3xui8>, tensor<2x3xi64>) {
  %v, %i = top.TopK(%a) {k = 2 : i64, axis = 0 : i64, largest = false, sorted = false} : (tensor<4x3xui8>) -> (tensor<2x3xui8>, tensor<2x3xi64>)
  return %v, %i : tensor<2x3xui8>, tensor<2x3xi64>
}

// -----

func.func @topk_runtime_k(%a: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>) {
  // expected-error @+1 {{failed to legalize operation 'top.TopK'}}
  %v, %i = top.TopK(%a, %k) {k = 0 : i64, axis = -1 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return %v, %i : tensor<3x?xf32>, tensor<3x?xi64>
}

// -----

// RotaryEmbedding, rank 3 with 2 heads: split the hidden dim, one generic
// reading the pair partner (d < 2 ? d + 2 : d - 2) and the cos/sin row of
// the clamped position id with tensor.extract, rotating in f64.
// CHECK-LABEL: func.func @rotary
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 3, 2, 4] : tensor<1x3x8xf32> into tensor<1x3x2x4xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] :
// CHECK: %[[P:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1x3xi32>
// CHECK: arith.extsi %[[P]] : i32 to i64
// CHECK: arith.maxsi
// CHECK: arith.constant 4 : i64
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}} : tensor<5x2xf32>
// CHECK: tensor.extract %[[X]][
// CHECK: arith.subf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0], [1], [2, 3]] : tensor<1x3x2x4xf32> into tensor<1x3x8xf32>
func.func @rotary(%x: tensor<1x3x8xf32>, %c: tensor<5x2xf32>, %p: tensor<1x3xi32>) -> tensor<1x3x8xf32> {
  %0 = top.RotaryEmbedding(%x, %c, %c, %p) {num_heads = 2 : i64} : (tensor<1x3x8xf32>, tensor<5x2xf32>, tensor<5x2xf32>, tensor<1x3xi32>) -> tensor<1x3x8xf32>
  return %0 : tensor<1x3x8xf32>
}

// -----

func.func @rotary_dynamic(%x: tensor<1x?x2x4xf32>, %c: tensor<1x?x2xf32>) -> tensor<1x?x2x4xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.RotaryEmbedding'}}
  %0 = top.RotaryEmbedding(%x, %c, %c, %n) : (tensor<1x?x2x4xf32>, tensor<1x?x2xf32>, tensor<1x?x2xf32>, none) -> tensor<1x?x2x4xf32>
  return %0 : tensor<1x?x2x4xf32>
}
