// The op reference in docs/ must match the ODS definitions; regenerate it with
// scripts/gen-docs.sh.
// RUN: mlir-tblgen -gen-op-doc -dialect=top -I %strata_src/include -I %llvm_include %strata_src/include/strata/Dialect/Top/IR/TopOps.td > %t
// RUN: tail -n +2 %strata_src/docs/TopOps.md | diff - %t
