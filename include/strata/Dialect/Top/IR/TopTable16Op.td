//===- TopTable16Op.td - top.Table16 ------------------------*- tablegen -*-===//
//
// top.Table16 has its own tablegen target (TopTable16Op.h.inc), registered
// by TopDialect::initialize next to the TopOps.td ops: a change to it does
// not regenerate TopOps.h.inc, which nearly every file includes.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_TABLE16_OP
#define STRATA_TOP_TABLE16_OP

include "strata/Dialect/Top/IR/TopBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Top_Table16Op : Top_Op<"Table16", [Pure]> {
  let summary = "int16 -> int8 interpolated lookup table (an activation)";
  let description = [{
    A fused activation on an int16 pre-activation (`strata quantize
    --table-input int16`): each element `x` (the input's int16 storage
    value) becomes

    `u = x + 32768; i = u >> 7; f = u & 127;`
    `v = table[i] * 128 + (table[i + 1] - table[i]) * f;`
    `y = clamp(round_half_away_from_zero(v / 2^14), qmin, qmax)`

    i.e. TOSA's int16 TABLE (513 entries, 7-bit interpolation, a result
    with 7 fractional bits) and a rounding right shift by 14
    (strata/Support/IntegerTable16.h). `qmin`/`qmax` are the result's
    storage range. The entries hold the activation's output in the
    result's quantization with 7 fractional bits, zero point included;
    top-quantize computes them from the activation's float ops (entry `i`
    at the input value `(i * 128 - 32768 - zp_in) * scale_in`;
    docs/quantization.md, "Int16 table inputs").

    The input is a per-tensor `!quant.uniform<i16:...>` (or `i16`) tensor,
    the result a per-tensor `!quant.uniform<i8:...>` (or `i8`) tensor of
    the same shape; `table` has 513 values.

    ```mlir
    %y = top.Table16(%x) {table = array<i16: ...>}
        : (tensor<1x8x4x4x!quant.uniform<i16:f32, 1.0e-4:-120>>) -> tensor<1x8x4x4x!quant.uniform<i8:f32, 0.05:-3>>
    ```
  }];
  let arguments = (ins Top_Tensor:$input, DenseI16ArrayAttr:$table);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
}

#endif // STRATA_TOP_TABLE16_OP
