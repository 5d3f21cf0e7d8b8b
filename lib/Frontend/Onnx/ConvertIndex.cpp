//===- ConvertIndex.cpp - ONNX gather/scatter, top-k, cumsum, one-hot, range ops to Top ===//

#include "ImportContext.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace strata::onnx_import {
namespace {
const ConverterEntry kIndex[] = {
    {nullptr, nullptr},
};
} // namespace

ArrayRef<ConverterEntry> indexConverters() {
  return ArrayRef<ConverterEntry>(kIndex).drop_back();
}

} // namespace strata::onnx_import
