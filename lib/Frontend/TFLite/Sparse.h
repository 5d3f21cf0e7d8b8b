//===- Sparse.h - TFLite sparse constant tensors to dense --------*- C++
//-*-===//

#ifndef STRATA_LIB_FRONTEND_TFLITE_SPARSE_H
#define STRATA_LIB_FRONTEND_TFLITE_SPARSE_H

#include "schema_generated.h"

#include "strata/Support/Tensor.h"

#include <string>
#include <vector>

namespace strata::tflite_import {

/// Expands the `size` bytes of stored values at `data`, laid out by `sp`,
/// into `out` (zero-filled, of `shape` and `dtype`). Returns an error message
/// naming what is inconsistent, or "" on success.
std::string densify(const tflite::SparsityParameters &sp,
                    const std::vector<int64_t> &shape, DType dtype,
                    const uint8_t *data, uint64_t size, Tensor &out);

} // namespace strata::tflite_import

#endif // STRATA_LIB_FRONTEND_TFLITE_SPARSE_H
