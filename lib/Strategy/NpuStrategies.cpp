//===- NpuStrategies.cpp - the npu-sim target's strategy table ------------===//
//
// Priorities (higher wins): 25 depthwise convolution, 20 the other HL
// kernels, 0 the codegen fallback (the op stays on the CPU). MaxPool (f32
// between Dequant and Quant, or int8 as top-quantize writes it) and the
// one-operand activations (f32 between Dequant and Quant) have exact int8
// kernels (hl.maxpool, hl.table). Conditions:
// 2-d NCHW or NHWC convolutions (NHWC ones run NCHW between two transposes) and
// rank-2 matmuls on int8 (`qi8`: the form `strata quantize` writes) or bf16
// inputs. What the strategy language cannot state (constant weights, a
// MultiplierShift Requant after an int8 op, depthwise channel counts) is
// checked by the conversion, which names the failing condition.
//
//===----------------------------------------------------------------------===//

#include "strata/Strategy/NpuStrategies.h"
#include "strata/Strategy/CpuStrategies.h"

#include <cstdio>
#include <cstdlib>
#include <tuple>

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
  // Depthwise: one input channel per group (filter dim C/group == 1) and
  // more than one channel, so group == C (the conversion also needs O == C;
  // with a channel multiplier it writes a grouped hl.conv2d).
  for (auto [name, layout, channelDim] :
       {std::tuple<const char *, const char *, int64_t>{"hl.depthwise_conv2d",
                                                        "NCHW", 1},
        {"hl.depthwise_conv2d.nhwc", "NHWC", 3}}) {
    Implementation dw{name,
                      25,
                      {Clause::rank(in(0), 4),
                       Clause::attrEq("layout", AttrValue::string(layout)),
                       Clause::rank(in(1), 4),
                       Clause::dim(in(1), channelDim, Clause::Cmp::Eq, 1),
                       Clause::dim(in(0), channelDim, Clause::Cmp::Ne, 1),
                       npuDtype},
                      Lowering::kernelCall("hl.depthwise_conv2d", {}),
                      {},
                      ""};
    if (Error e = r.addForTarget("top.Conv", kNpuTarget, std::move(dw)))
      return e;
  }
  // Ops `strata quantize` leaves in float between Dequant and Quant: the
  // conversion checks that Dequant / Quant of int8 surround them.
  Clause f32 = Clause::dtypeIn(in(0), {"f32"});
  // top-quantize's int8 MaxPool (on qi8 values, the result keeps the input
  // type) converts directly.
  Implementation maxPool{"hl.maxpool",
                         20,
                         {Clause::rank(in(0), 4),
                          Clause::attrEq("layout", AttrValue::string("NCHW")),
                          Clause::dtypeIn(in(0), {"f32", "qi8"})},
                         Lowering::kernelCall("hl.maxpool", {}),
                         {},
                         ""};
  if (Error e = r.addForTarget("top.MaxPool", kNpuTarget, std::move(maxPool)))
    return e;
  // The enum case as the workload spells it (WorkloadFromOp).
  Implementation resize{"hl.resize_nearest",
                        20,
                        {Clause::rank(in(0), 4),
                         Clause::attrEq("mode", AttrValue::string("nearest")),
                         f32},
                        Lowering::kernelCall("hl.resize_nearest", {}),
                        {},
                        ""};
  if (Error e = r.addForTarget("top.Resize", kNpuTarget, std::move(resize)))
    return e;
  Implementation concat{
      "hl.concat", 20, {f32}, Lowering::kernelCall("hl.concat", {}), {}, ""};
  if (Error e = r.addForTarget("top.Concat", kNpuTarget, std::move(concat)))
    return e;
  for (const char *op :
       {"top.Relu", "top.Sigmoid", "top.SiLU", "top.HardSwish",
        "top.HardSigmoid", "top.LeakyRelu", "top.Clip", "top.Tanh", "top.Gelu",
        "top.Elu", "top.Softplus", "top.Exp", "top.Abs", "top.Neg", "top.Sqrt",
        "top.Log", "top.Erf", "top.Sin", "top.Cos"}) {
    Implementation table{
        "hl.table", 20, {f32}, Lowering::kernelCall("hl.table", {}), {}, ""};
    if (Error e = r.addForTarget(op, kNpuTarget, std::move(table)))
      return e;
  }
  // top-quantize's int8 Add and GlobalAvgPool: i32 Add / ReduceSum between
  // top.Requants (the conversion checks the chain).
  Implementation add{"hl.add",
                     20,
                     {Clause::dtypeIn(in(0), {"i32"})},
                     Lowering::kernelCall("hl.add", {}),
                     {},
                     ""};
  if (Error e = r.addForTarget("top.Add", kNpuTarget, std::move(add)))
    return e;
  Implementation gap{"hl.avgpool",
                     20,
                     {Clause::rank(in(0), 4), Clause::dtypeIn(in(0), {"i32"})},
                     Lowering::kernelCall("hl.avgpool", {}),
                     {},
                     ""};
  if (Error e = r.addForTarget("top.Reduce", kNpuTarget, std::move(gap)))
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
