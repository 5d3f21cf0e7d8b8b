//===- StridedCopiesToLinalg.cpp - strided memref.copy as linalg.copy -----===//
//
// finalize-memref-to-llvm lowers a copy between non-contiguous memrefs to a
// call of the C runner utilities' `memrefCopy`, which a dispatch shared
// object cannot resolve; linalg.copy lowers to loops instead.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUSTRIDEDCOPIESTOLINALG
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

/// Whether `t` is a memref that finalize-memref-to-llvm copies with memcpy.
bool isContiguous(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && memref::isStaticShapeAndContiguousRowMajor(m);
}

struct StridedCopiesToLinalgPass
    : impl::CpuStridedCopiesToLinalgBase<StridedCopiesToLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) {
      Type src = op.getSource().getType(), dst = op.getTarget().getType();
      if (isa<MemRefType>(src) && isa<MemRefType>(dst) &&
          !(isContiguous(src) && isContiguous(dst)))
        copies.push_back(op);
    });
    for (memref::CopyOp op : copies) {
      OpBuilder b(op);
      linalg::CopyOp::create(b, op.getLoc(), op.getSource(), op.getTarget());
      op.erase();
    }
  }
};

} // namespace
} // namespace strata::cpu
