//===- Int8Table.h - int8 -> int8 table lookup ------------------*- C++ -*-===//
//
// The CPU kernel of a fused activation's int8 table (docs/quantization.md,
// "Fused activations: int8 tables"): `out[i] = table[in[i] + 128]` over
// signed bytes, the 256 entries computed at compile time from the model's
// Dequant -> activation -> Quant. AVX-512 VBMI: two `vpermi2b` over 128
// entries each and a blend on the index's top bit, 64 bytes a step;
// otherwise (AVX2, portable) one load per byte. Per-channel tables
// (int8TableChannels): channel c's elements through table c, a plane at a
// time (the same lookup per plane).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_INT8TABLE_H
#define STRATA_KERNELS_INT8TABLE_H

#include <cstdint>

namespace strata::kernels {

/// out[i] = table[in[i] + 128] for i in [0, n); `out` may equal `in`.
void int8Table(const int8_t *in, int8_t *out, int64_t n, const int8_t *table);

/// The same, one byte at a time (the portable path; the reference of the
/// vector path's tests).
void int8TablePortable(const int8_t *in, int8_t *out, int64_t n,
                       const int8_t *table);

/// Per-channel tables: out[i] = tables[256 * c + in[i] + 128] for i in
/// [first, last), c = (i / inner) % channels (NCHW: inner = H * W; a
/// rank-2 matmul's columns: inner = 1); `out` may equal `in` (both indexed
/// from element 0). Planes of at least 64 elements take int8Table's vector
/// path; shorter ones a byte loop.
void int8TableChannels(const int8_t *in, int8_t *out, int64_t first,
                       int64_t last, int64_t channels, int64_t inner,
                       const int8_t *tables);

/// The same, one byte at a time (the reference of the tests).
void int8TableChannelsPortable(const int8_t *in, int8_t *out, int64_t first,
                               int64_t last, int64_t channels, int64_t inner,
                               const int8_t *tables);

} // namespace strata::kernels

#endif // STRATA_KERNELS_INT8TABLE_H
