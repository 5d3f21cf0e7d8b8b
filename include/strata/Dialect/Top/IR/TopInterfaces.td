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

#endif // STRATA_TOP_INTERFACES
