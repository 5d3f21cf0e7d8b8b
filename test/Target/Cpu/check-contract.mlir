// RUN: strata-opt %s -split-input-file --strata-cpu-check-contract=stage=linalg --verify-diagnostics
// RUN: not strata-opt %s -split-input-file --strata-cpu-check-contract=stage=llvm 2>&1 | FileCheck %s --check-prefix=LLVM
// RUN: not strata-opt %s --strata-cpu-check-contract=stage=tosa 2>&1 | FileCheck %s --check-prefix=STAGE

// After convert-top-to-linalg, linalg/tensor/arith/func are legal; a Top
// op left over is named.
func.func @ok(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @left(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'top.Relu' is left after the lowering to linalg}}
  %0 = top.Relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// After the LLVM conversions only llvm ops may remain.
// LLVM: 'func.func' is left after the lowering to llvm
// STAGE: stage 'tosa' must be 'linalg' or 'llvm'
