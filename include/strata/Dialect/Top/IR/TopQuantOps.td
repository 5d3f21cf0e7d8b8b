//===- TopQuantOps.td - quantize, dequantize, requantize ---*- tablegen -*-===//

#ifndef STRATA_TOP_QUANT_OPS
#define STRATA_TOP_QUANT_OPS

#endif // STRATA_TOP_QUANT_OPS
