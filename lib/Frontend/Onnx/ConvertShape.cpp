//===- ConvertShape.cpp - ONNX shape and data-movement ops to Top ===//

#include "ImportContext.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace strata::onnx_import {
namespace {
const ConverterEntry kShape[] = {
    {nullptr, nullptr},
};
} // namespace

ArrayRef<ConverterEntry> shapeConverters() {
  return ArrayRef<ConverterEntry>(kShape).drop_back();
}

} // namespace strata::onnx_import
