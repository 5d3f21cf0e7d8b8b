//===- ConvertNN.cpp - ONNX normalization, softmax, resize, deconvolution, quantization ops to Top ===//

#include "ImportContext.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace strata::onnx_import {
namespace {
const ConverterEntry kNN[] = {
    {nullptr, nullptr},
};
} // namespace

ArrayRef<ConverterEntry> nnConverters() {
  return ArrayRef<ConverterEntry>(kNN).drop_back();
}

} // namespace strata::onnx_import
