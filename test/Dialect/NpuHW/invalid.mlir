// RUN: strata-opt %s -split-input-file -verify-diagnostics

npuhw.program @p attributes {config = {}, bindings = []} {
  npuhw.segment {
    // expected-error @below {{task 0 (slice_task add): field 'output' reaches past LRAM: address 524280, dims [16], strides [1] end beyond 524288 bytes}}
    npuhw.slice_task {kernel = "add", multiplier = 1,
      input = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      input2 = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      output = #npuhw.operand<address = 524280, dims = [16], strides = [1]>}
  }
}

// -----

npuhw.program @p attributes {config = {lram_bytes = 8192 : i64}, bindings = []} {
  npuhw.segment {
    // expected-error @below {{task 0 (slice_task add): field 'output' reaches past LRAM: address 8180, dims [16], strides [1] end beyond 8192 bytes}}
    npuhw.slice_task {kernel = "add", multiplier = 1,
      input = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      input2 = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      output = #npuhw.operand<address = 8180, dims = [16], strides = [1]>}
  }
}

// -----

npuhw.program @p attributes {config = {}, bindings = []} {
  npuhw.segment {
    // expected-error @below {{task 0: field 'kernel' is 'conv3d', not a kernel}}
    npuhw.slice_task {kernel = "conv3d"}
  }
}

// -----

// expected-error @below {{field 'lram_byte'}}
npuhw.program @p attributes {config = {lram_byte = 4096 : i64}, bindings = []} {
}

// -----

// expected-error @below {{field 'slices' is 0}}
npuhw.program @p attributes {config = {slices = 0 : i64}, bindings = []} {
}

// -----

npuhw.program @p attributes {config = {}, bindings = [#npuhw.binding<name = "x", size = 16, writable = false>]} {
  npuhw.segment {
    // expected-error @below {{task 0 (dma_load): field 'binding' is 1, the program declares 1 bindings}}
    npuhw.dma_load {binding = 1 : i32, lram_address = 0 : i64, counts = array<i64: 16>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
  }
}

// -----

npuhw.program @p attributes {config = {}, bindings = [#npuhw.binding<name = "x", size = 16, writable = false>]} {
  npuhw.segment {
    npuhw.wait
    // expected-error @below {{task 1 (dma_store): field 'binding' is 0 ('x'), which is read-only}}
    npuhw.dma_store {binding = 0 : i32, lram_address = 0 : i64, counts = array<i64: 16>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
  }
}

// -----

npuhw.program @p attributes {config = {}, bindings = [#npuhw.binding<name = "x", size = 16, writable = false>]} {
  npuhw.segment {
    // expected-error @below {{task 0 (dma_load): field 'dram_offset' is 8 with counts [16] and strides [1]: reaches past binding 0 ('x', 16 bytes)}}
    npuhw.dma_load {binding = 0 : i32, dram_offset = 8 : i64, lram_address = 0 : i64, counts = array<i64: 16>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
  }
}

// -----

npuhw.program @p attributes {config = {}, bindings = []} {
  npuhw.segment {
    // expected-error @below {{task 0 (slice_task conv2d): field 'weights' dims are [1, 3, 3, 3, 4], expected [2, 3, 3, 3, 4]}}
    npuhw.slice_task {kernel = "conv2d",
      input = #npuhw.operand<address = 0, dims = [1, 3, 5, 5], strides = [75, 25, 5, 1]>,
      weights = #npuhw.operand<address = 128, dims = [1, 3, 3, 3, 4], strides = [108, 36, 12, 4, 1]>,
      scale_bias = #npuhw.operand<address = 256, dims = [5, 3], strides = [12, 4]>,
      output = #npuhw.operand<address = 512, dims = [1, 5, 3, 3], strides = [45, 9, 3, 1]>}
  }
}

// -----

npuhw.program @p attributes {config = {}, bindings = []} {
  npuhw.segment {
    // expected-error @below {{task 0 (slice_task conv2d): field 'output' has 4 rows, more than the padded input allows (5 rows, pad [0, 0, 0, 0])}}
    npuhw.slice_task {kernel = "conv2d",
      input = #npuhw.operand<address = 0, dims = [1, 3, 5, 5], strides = [75, 25, 5, 1]>,
      weights = #npuhw.operand<address = 128, dims = [1, 3, 3, 3, 4], strides = [108, 36, 12, 4, 1]>,
      scale_bias = #npuhw.operand<address = 256, dims = [4, 3], strides = [12, 4]>,
      output = #npuhw.operand<address = 512, dims = [1, 4, 4, 3], strides = [48, 12, 3, 1]>}
  }
}

// -----

npuhw.program @p attributes {config = {}, bindings = []} {
  npuhw.segment {
    // expected-error @below {{task 0 (slice_task max): field 'slice' is 2, expected 0..1}}
    npuhw.slice_task {kernel = "max", slice = 2 : i32, multiplier = 1,
      input = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      input2 = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      output = #npuhw.operand<address = 64, dims = [16], strides = [1]>}
  }
}

// -----

npuhw.program @p attributes {config = {}, bindings = []} {
  npuhw.segment {
    // expected-error @below {{task 0 (slice_task table): field 'format' is bf16, the lookup table maps int8 only}}
    npuhw.slice_task {kernel = "table", format = "bf16", output_format = "bf16",
      input = #npuhw.operand<address = 0, dims = [16], strides = [2]>,
      lut = #npuhw.operand<address = 64, dims = [256], strides = [1]>,
      output = #npuhw.operand<address = 512, dims = [16], strides = [2]>}
  }
}

// -----

// A load into bytes a slice task reads, with no wait between them: a race.
npuhw.program @p attributes {config = {}, bindings = [#npuhw.binding<name = "x", size = 16, writable = false>]} {
  npuhw.segment {
    npuhw.dma_load {binding = 0 : i32, lram_address = 0 : i64, counts = array<i64: 16>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
    // expected-error @below {{task 1 (slice_task add) races with task 0 (dma_load) on another queue: both touch LRAM bytes [0, 16), one writing, with no wait between them}}
    npuhw.slice_task {kernel = "add", multiplier = 1,
      input = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      input2 = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      output = #npuhw.operand<address = 64, dims = [16], strides = [1]>}
  }
}

// -----

// The same with a wait, or on disjoint bytes (double buffering), verifies.
npuhw.program @p attributes {config = {}, bindings = [#npuhw.binding<name = "x", size = 16, writable = false>]} {
  npuhw.segment {
    npuhw.dma_load {binding = 0 : i32, lram_address = 0 : i64, counts = array<i64: 16>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
    npuhw.wait
    npuhw.dma_load {binding = 0 : i32, lram_address = 128 : i64, counts = array<i64: 16>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
    npuhw.slice_task {kernel = "add", multiplier = 1,
      input = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      input2 = #npuhw.operand<address = 0, dims = [16], strides = [1]>,
      output = #npuhw.operand<address = 64, dims = [16], strides = [1]>}
  }
}
