//===- NpuStrategies.cpp - the npu-sim target's strategy table ------------===//
//
// Priorities (higher wins): 20 the HL kernels, 0 the codegen fallback (the
// op stays on the CPU). Conditions: 2-d NCHW or NHWC convolutions (NHWC
// ones run NCHW between two transposes) and rank-2
// matmuls on int8 (`qi8`: the form `strata quantize` writes) or bf16
// inputs. What the strategy language cannot state (constant weights, a
// MultiplierShift Requant after an int8 op, depthwise channel counts) is
// checked by the conversion, which names the failing condition.
//
//===----------------------------------------------------------------------===//

#include "strata/Strategy/NpuStrategies.h"
#include "strata/Strategy/CpuStrategies.h"

#include <cstdio>
#include <cstdlib>

namespace strata::strategy {

static TensorRef in(unsigned i) { return TensorRef::operand(i); }

Error registerNpuStrategies(StrategyRegistry &r) {
  Clause npuDtype = Clause::dtypeIn(in(0), {"qi8", "i8", "bf16"});
  Implementation conv{"hl.conv2d",
                      20,
                      {Clause::rank(in(0), 4),
                       Clause::attrIn("layout", {AttrValue::string("NCHW"),
                                                 AttrValue::string("NHWC")}),
                       Clause::rank(in(1), 4), npuDtype},
                      Lowering::kernelCall("hl.conv2d", {}),
                      {},
                      ""};
  if (Error e = r.addForTarget("top.Conv", kNpuTarget, std::move(conv)))
    return e;
  Implementation fc{"hl.fully_connected",
                    20,
                    {Clause::rank(in(0), 2), Clause::rank(in(1), 2), npuDtype},
                    Lowering::kernelCall("hl.fully_connected", {}),
                    {},
                    ""};
  return r.addForTarget("top.MatMul", kNpuTarget, std::move(fc));
}

const StrategyRegistry &npuRegistry() {
  static const StrategyRegistry registry = [] {
    StrategyRegistry r;
    Error e = registerGenericStrategies(r);
    if (!e)
      e = registerNpuStrategies(r);
    if (e) {
      std::fprintf(stderr, "strata: npu strategy table: %s\n", e->c_str());
      std::abort();
    }
    return r;
  }();
  return registry;
}

} // namespace strata::strategy
