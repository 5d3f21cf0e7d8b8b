//===- InterpreterTest.cpp - the interpreter leaves the IR as it was ------===//
//
// The golden model must not change the model it checks: running a module
// (twice, with inputs of different shapes) and then printing it gives the
// same bytes as printing it without running it. The results are checked
// against values computed here by hand.
//
//===----------------------------------------------------------------------===//

#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/ModelIO.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace strata;

namespace {

/// A dynamic batch, unranked intermediates (whose rank `top-shape-infer`
/// would fill in) and a reshape through a flat dynamic shape.
constexpr const char *kModel = R"mlir(
module attributes {top.name = "dyn"} {
  func.func @main(%x: tensor<?x4xf32> {top.name = "x"}) -> (tensor<?x4xf32> {top.name = "y"}, tensor<*xf32> {top.name = "z"}) {
    %w = top.Weight() {name = "w", value = dense<[1.0, -2.0, 3.0, -4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
    %a = top.Add(%x, %w) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    %r = top.Relu(%a) : (tensor<?x4xf32>) -> tensor<*xf32>
    %f = top.Reshape(%r) {shape = array<i64: -1>} : (tensor<*xf32>) -> tensor<?xf32>
    %y = top.Reshape(%f) {shape = array<i64: -1, 4>} : (tensor<?xf32>) -> tensor<?x4xf32>
    %z = top.Mul(%r, %r) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
    return %y, %z : tensor<?x4xf32>, tensor<*xf32>
  }
}
)mlir";

std::string print(mlir::ModuleOp module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  return s;
}

Tensor iota(int64_t rows) {
  Tensor t(DType::F32, {rows, 4});
  for (int64_t i = 0; i < rows * 4; ++i)
    t.data<float>()[i] = static_cast<float>(i) - 5.0f;
  return t;
}

TEST(Interpreter, RunningLeavesTheModuleUnchanged) {
  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModel, &context);
  ASSERT_TRUE(module);
  std::string before = print(*module);

  for (int64_t rows : {3, 5}) {
    TensorMap inputs;
    inputs.set("x", iota(rows));
    auto out = interpretModule(*module, inputs, TensorMap());
    ASSERT_TRUE(succeeded(out));
    const Tensor *y = out->find("y");
    const Tensor *z = out->find("z");
    ASSERT_TRUE(y && z);
    ASSERT_EQ(y->shape(), (std::vector<int64_t>{rows, 4}));
    ASSERT_EQ(z->shape(), (std::vector<int64_t>{rows, 4}));
    const float w[4] = {1, -2, 3, -4};
    for (int64_t i = 0; i < rows * 4; ++i) {
      float relu = std::max(static_cast<float>(i) - 5.0f + w[i % 4], 0.0f);
      EXPECT_EQ(y->data<float>()[i], relu) << "y[" << i << "]";
      EXPECT_EQ(z->data<float>()[i], relu * relu) << "z[" << i << "]";
    }
    EXPECT_EQ(print(*module), before) << "after a run with " << rows << " rows";
  }
}

TEST(Interpreter, WrongInputShapeIsAnErrorAndChangesNothing) {
  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModel, &context);
  ASSERT_TRUE(module);
  std::string before = print(*module);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler capture(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  TensorMap inputs;
  inputs.set("x", Tensor(DType::F32, {2, 5}));
  EXPECT_TRUE(failed(interpretModule(*module, inputs, TensorMap())));
  EXPECT_NE(diagnostics.find("input 'x' has shape [2, 5]"), std::string::npos)
      << diagnostics;
  EXPECT_EQ(print(*module), before);
}

} // namespace
