//===- TopInterfaces.td - Top op interfaces ----------------*- tablegen -*-===//

#ifndef STRATA_TOP_INTERFACES
#define STRATA_TOP_INTERFACES

include "mlir/IR/OpBase.td"

def Top_FlopsOpInterface : OpInterface<"FlopsOpInterface"> {
  let cppNamespace = "::strata::top";
  let description = [{
    The number of floating-point (or integer) operations one execution of the
    op performs: a multiply-accumulate counts as two.
  }];
  let methods = [
    InterfaceMethod<"Returns the op's FLOP count.", "int64_t", "getFlops">,
  ];
}

def Top_LayoutSensitiveOpInterface
    : OpInterface<"LayoutSensitiveOpInterface"> {
  let cppNamespace = "::strata::top";
  let description = [{
    Ops with a `layout` attribute: `NCHW` (channels first, the default) or
    `NHWC` (channels last), for any number of spatial dims. The op's first
    `getNumLayoutOperands()` operands (the input; convolutions also the
    filter, OIHW or OHWI) and its result are in that layout; bias and
    per-channel parameters are layout-free.
  }];
  let methods = [
    InterfaceMethod<"The number of leading operands in the op's layout.",
      "unsigned", "getNumLayoutOperands", (ins), "",
      [{ return 1; }]>,
    InterfaceMethod<"The op's layout attribute (`NCHW` or `NHWC`).",
      "::strata::top::Layout", "getLayout">,
  ];
  let extraSharedClassDeclaration = [{
    /// True for channels last (`NHWC`).
    bool isChannelsLast() {
      return $_op.getLayout() == ::strata::top::Layout::NHWC;
    }
    /// The spatial dims of a tensor of `rank` in the op's layout:
    /// 2 .. rank-1 channels first, 1 .. rank-2 channels last.
    ::llvm::SmallVector<int64_t> getSpatialDims(int64_t rank) {
      ::llvm::SmallVector<int64_t> dims;
      int64_t first = isChannelsLast() ? 1 : 2;
      for (int64_t d = first; d < first + rank - 2; ++d)
        dims.push_back(d);
      return dims;
    }
  }];
}

#endif // STRATA_TOP_INTERFACES
