//===- ConvertControlFlow.cpp - ONNX If, Loop, Scan to Top ===//

#include "ImportContext.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace strata::onnx_import {
namespace {
const ConverterEntry kControlFlow[] = {
    {nullptr, nullptr},
};
} // namespace

ArrayRef<ConverterEntry> controlFlowConverters() {
  return ArrayRef<ConverterEntry>(kControlFlow).drop_back();
}

} // namespace strata::onnx_import
