//===- OnnxTensor.h - ONNX TensorProto to host tensors ----------*- C++ -*-===//
//
// Private to lib/Frontend/Onnx. Reads the data of an initializer or a tensor
// attribute into a host Tensor (OnnxTensor.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_ONNXTENSOR_H
#define STRATA_LIB_FRONTEND_ONNX_ONNXTENSOR_H

#include "onnx.pb.h"

#include "strata/Support/Tensor.h"

#include <string>

namespace strata::onnx_import {

/// Reads a TensorProto's data (raw, typed fields or external file under
/// `modelDir`) into `out`; on failure sets `error` and returns false.
bool readTensorProto(const onnx::TensorProto &proto,
                     const std::string &modelDir, Tensor &out,
                     std::string &error);

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_ONNXTENSOR_H
