// RUN: strata-opt %s --split-input-file --verify-diagnostics
// Every verifier error of the control-flow ops (If, Loop, Scan, Yield), one case per split.
func.func @if_cond_type(%c: tensor<i32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{operand 'cond' must be a tensor of i1, got 'tensor<i32>'}}
  %r = top.If %c : tensor<i32> -> (tensor<4xf32>) then {
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @if_cond_elements(%c: tensor<2xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{operand 'cond' must have one element, got shape [2]}}
  %r = top.If %c : tensor<2xi1> -> (tensor<4xf32>) then {
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @if_yield_count(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{the else region yields 2 values but 1 are expected}}
  %r = top.If %c : tensor<i1> -> (tensor<4xf32>) then {
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @if_not_yield(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{the then region must end in top.Yield}}
  %r = top.If %c : tensor<i1> -> (tensor<4xf32>) then {
    func.return
  } else {
    top.Yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @if_yield_unranked(%c: tensor<i1>, %x: tensor<4xf32>, %u: tensor<*xf32>) {
  // expected-error @+1 {{the then region yields value #0 of unranked type 'tensor<*xf32>'; yielded values must be ranked}}
  %r = top.If %c : tensor<i1> -> (tensor<4xf32>) then {
    top.Yield %u : tensor<*xf32>
  } else {
    top.Yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @if_yield_element(%c: tensor<i1>, %x: tensor<4xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{the else region yields value #0 of element type 'i32' but 'f32' is expected}}
  %r = top.If %c : tensor<i1> -> (tensor<4xf32>) then {
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %i : tensor<4xi32>
  }
  return
}

// -----

func.func @if_branch_ranks(%c: tensor<i1>, %x: tensor<4xf32>, %m: tensor<2x2xf32>) {
  // expected-error @+1 {{the branches yield value #0 with different ranks (1 and 2)}}
  %r = top.If %c : tensor<i1> -> (tensor<4xf32>) then {
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %m : tensor<2x2xf32>
  }
  return
}

// -----

func.func @if_result_rank(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has rank 2 but 1 is expected}}
  %r = top.If %c : tensor<i1> -> (tensor<4x1xf32>) then {
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @if_result_shape(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has shape [5] but the operands and attributes give [4]}}
  %r = top.If %c : tensor<i1> -> (tensor<5xf32>) then {
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @loop_trip_type(%m: tensor<i32>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{operand 'max_trip_count' must be a tensor of i64, got 'tensor<i32>'}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i32>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %yi : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_trip_elements(%m: tensor<2xi64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{operand 'max_trip_count' must have one element, got shape [2]}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<2xi64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %yi : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_cond_type(%m: tensor<i64>, %c: tensor<f32>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{operand 'cond' must be a tensor of i1, got 'tensor<f32>'}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<f32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %yi : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_body_args(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{the body takes 2 arguments but 3 (iteration, cond, carried...) are expected}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>):
    top.Yield %ci, %y0, %y0 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_iter_type(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{body argument #0 (iteration) has type 'tensor<1xi64>' but 'tensor<i64>' is expected}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<1xi64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %yi : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_cond_arg_type(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{body argument #1 (cond) has type 'tensor<1xi1>' but 'tensor<i1>' is expected}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<1xi1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %yi : tensor<1xi1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_carried_arg_type(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{body argument #2 has type 'tensor<?xf32>' but carried value #0 has type 'tensor<3xf32>'}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<?xf32>):
    top.Yield %ci, %y0, %y0 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_yield_count(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{the body yields 2 values but 3 are expected}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi : tensor<i1>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_yield_cond(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{the body's yielded cond must be a tensor of i1, got 'tensor<3xf32>'}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %yi, %yi, %yi : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_yield_carried_element(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>, %n: tensor<3xi32>) {
  // expected-error @+1 {{the body yields value #1 of element type 'i32' but 'f32' is expected}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %n, %yi : tensor<i1>, tensor<3xi32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_yield_carried_rank(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>, %n: tensor<1x3xf32>) {
  // expected-error @+1 {{the body yields carried value #0 with rank 2 but its initial value has rank 1}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %n, %yi : tensor<i1>, tensor<1x3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_scan_unranked(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>, %u: tensor<*xf32>) {
  // expected-error @+1 {{the body yields scan value #0 of unranked type 'tensor<*xf32>'; yielded values must be ranked}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %u : tensor<i1>, tensor<3xf32>, tensor<*xf32>
  }
  return
}

// -----

func.func @loop_scan_result_rank(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{result #1 has rank 1 but 2 is expected}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %yi : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_result_count(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{has 1 results but 2 carried values}}
  %r = top.Loop(%m, %c, %y0, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>):
    top.Yield %ci, %a, %b : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_carried_result_shape(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has shape [4] but the operands and attributes give [3]}}
  %r:2 = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<4xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %yi : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @scan_num_inputs(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{attribute 'num_scan_inputs' = 3 must be in [1, 2] (the number of operands)}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 3 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_in_axes_len(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{attribute 'scan_input_axes' has 2 entries but 1 are expected}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 0, 1>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_in_dirs(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{attribute 'scan_input_directions' = [2] must hold only 0 (forward) or 1 (reverse)}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64, scan_input_directions = array<i64: 2>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_out_axes_len(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{attribute 'scan_output_axes' has 0 entries but 1 are expected}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64, scan_output_axes = array<i64>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_out_dirs(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{attribute 'scan_output_directions' = [-1] must hold only 0 (forward) or 1 (reverse)}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64, scan_output_directions = array<i64: -1>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_body_args(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{the body takes 1 arguments but 2 (states, then scan slices) are expected}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>):
    top.Yield %a, %a : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_state_arg(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{body argument #0 has type 'tensor<?xf32>' but state #0 has type 'tensor<2xf32>'}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<?xf32>, %xi: tensor<2xf32>):
    top.Yield %s0, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_slice_arg(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{body argument #1 has type 'tensor<3xf32>' but a slice of scan input #0 along axis 0 has type 'tensor<2xf32>'}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<3xf32>):
    top.Yield %a, %a : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_in_axis_range(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{attribute 'scan_input_axes' = 2 is out of range for rank 2}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 2>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_yield_count(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{the body yields 1 values but 2 are expected}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a : tensor<2xf32>
  }
  return
}

// -----

func.func @scan_state_element(%s0: tensor<2xf32>, %x: tensor<3x2xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{the body yields value #0 of element type 'i32' but 'f32' is expected}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %i, %xi : tensor<2xi32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_state_rank(%s0: tensor<2xf32>, %x: tensor<3x2xf32>, %m: tensor<1x2xf32>) {
  // expected-error @+1 {{the body yields state #0 with rank 2 but its initial value has rank 1}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %m, %xi : tensor<1x2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_out_unranked(%s0: tensor<2xf32>, %x: tensor<3x2xf32>, %u: tensor<*xf32>) {
  // expected-error @+1 {{the body yields scan value #0 of unranked type 'tensor<*xf32>'; yielded values must be ranked}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %u : tensor<2xf32>, tensor<*xf32>
  }
  return
}

// -----

func.func @scan_out_axis_range(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{attribute 'scan_output_axes' = 2 is out of range for rank 2}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64, scan_output_axes = array<i64: 2>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_result_rank(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{result #1 has rank 1 but 2 is expected}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_results_lt_states(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{has 1 results but 2 states}}
  %r = top.Scan(%s0, %s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>) {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a : tensor<2xf32>
  }
  return
}

// -----

func.func @scan_lengths(%x: tensor<3x2xf32>, %z: tensor<4x2xf32>) {
  // expected-error @+1 {{scan input #1 has 4 slices along axis 0 but scan input #0 has 3}}
  %r:1 = top.Scan(%x, %z) {num_scan_inputs = 2 : i64} : (tensor<3x2xf32>, tensor<4x2xf32>) -> (tensor<3x2xf32>) {
  ^bb0(%xi: tensor<2xf32>, %zi: tensor<2xf32>):
    top.Yield %xi : tensor<2xf32>
  }
  return
}

// -----

func.func @scan_result_shape(%s0: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{result #1 has shape [4, 2] but the operands and attributes give [3, 2]}}
  %r:2 = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %xi: tensor<2xf32>):
    top.Yield %a, %xi : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @yield_parent(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'top.If, top.Loop, top.Scan'}}
  top.Yield %x : tensor<4xf32>
  return
}
