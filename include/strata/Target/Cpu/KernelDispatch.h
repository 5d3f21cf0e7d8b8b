//===- KernelDispatch.h - dispatches that call a runtime kernel -*- C++ -*-===//
//
// When the strategy picked a kernel-call implementation for an outlined op
// and the runtime has that kernel (strata/Kernels/KernelAbi.h), the artifact
// gets a Kernel dispatch instead of generated code. This plans it: the
// kernel's params (the strategy's kernel params evaluated on the static
// shapes, then the kernel's own and the epilogue from the op's fused
// relu/activation), its four bindings, and which constant operand it packs.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TARGET_CPU_KERNELDISPATCH_H
#define STRATA_TARGET_CPU_KERNELDISPATCH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::cpu {

struct KernelDispatchPlan {
  std::string kernel;
  std::string implementation; ///< the strategy's implementation name
  std::vector<int64_t> params;
  /// Per kernel binding: the dispatch function's argument number, or
  /// kResult (its result), or kNoBias (absent bias: bind the result).
  std::vector<int> bindings;
  static constexpr int kResult = -1, kNoBias = -2;
  int64_t workgroupCount = 1;

  /// How the weight operand (binding 1) is pre-packed when it is a
  /// constant: the param to set to 1, and the matrix to pack.
  enum class Pack {
    None,
    MatmulB,
    ConvFilter,
    WinogradFilter,
    Int8,
    Bf16MatmulB,
    Bf16ConvFilter
  };
  Pack pack = Pack::None;
  int64_t packedFlagParam = -1;

  /// Pack::Int8 (the int8 kernels; the weight must be a constant): what
  /// the blob holds (kernels::Int8WeightKind) and the requant multipliers
  /// and shifts it carries (1 value or one per channel; empty for an
  /// int32 output).
  int int8WeightKind = 0;
  std::vector<int64_t> requantMultiplier, requantShift;
  /// Whether a residual Add is fused into the epilogue (the dispatch
  /// function is the kernel's op followed by a top.Add of its result and an
  /// argument, bound as binding 4), and the argument the result may be
  /// written in place of (the residual when no other binding reads it;
  /// -1: none).
  bool residualFused = false;
  int inPlaceOperand = -1;

  /// Further constant weights packed as GEMM A operands (kernels::packA of
  /// the row-major rows x cols weight; the inverted-residual kernel's two
  /// 1x1 filters): binding index and shape. The weight must be a constant.
  struct GemmAPack {
    int binding;
    int64_t rows, cols;
  };
  std::vector<GemmAPack> gemmAPacks;
};

/// The attribute fuseInvertedResiduals puts on the dispatch functions it
/// makes (expansion, depthwise and projection convolutions, then the
/// optional residual Add).
constexpr const char *kInvertedResidualAttr = "strata.inverted_residual";

/// The kernel name, implementation and strategy params the strategy chose
/// for `op` (nullopt, `why` set when it is not a runtime kernel call or a
/// param is not static).
std::optional<KernelDispatchPlan> strategyKernelPlan(mlir::Operation *op,
                                                     std::string &why);

/// Fuses MobileNetV2-style inverted-residual blocks: three calls in `main`
/// of kernel dispatches — a 1x1 convolution (conv2d_1x1_gemm_f32), a 3x3
/// depthwise convolution of its result (stride 1 or 2, dilation 1) and a
/// 1x1 convolution of that (with its residual Add if fuseResidualAdds fused
/// one), each result read only by the next, every filter a constant —
/// become one call of the conv2d_inverted_residual_f32 kernel when the
/// expanded tensor is over kInvertedResidualMinBytes. Returns how many.
unsigned fuseInvertedResiduals(mlir::ModuleOp module, mlir::func::FuncOp main);
/// Below this many bytes of expanded tensor (E x H x W floats per image)
/// the three kernels stay separate: the tensor stays in the L2 cache
/// anyway and the separate kernels were measured faster.
constexpr int64_t kInvertedResidualMinBytes = int64_t(1) << 20;

/// The plan of a dispatch function fuseInvertedResiduals made.
std::optional<KernelDispatchPlan> planInvertedResidual(mlir::func::FuncOp fn,
                                                       std::string &why);

/// The plan for the dispatch function `fn` (one outlined Top op, or one
/// followed by the residual Add fuseResidualAdds merged into it), or
/// nullopt with `why` set when it stays generated code: no kernel was
/// picked, the runtime lacks the kernel, or the op has a form the kernel
/// does not take (e.g. a broadcast the matmul kernel cannot express).
std::optional<KernelDispatchPlan> planKernelDispatch(mlir::func::FuncOp fn,
                                                     std::string &why);

/// Fuses residual Adds into the kernel dispatch they follow: each call in
/// `main` of a GEMM or convolution kernel dispatch (without an activation)
/// whose only user is a dispatch of one f32 top.Add (optionally with
/// do_relu) of that result and another value of the same shape becomes one
/// call, placed where the Add was, of a dispatch function holding both ops;
/// its plan binds the other value as the kernel's residual (and the Add's
/// relu as the activation). Returns how many Adds were fused.
unsigned fuseResidualAdds(mlir::ModuleOp module, mlir::func::FuncOp main);

/// What the packed weight of `plan` depends on (matmul: N, K, transpose_b;
/// convolution: O, C, KH, KW, G and the flag packedWeightFlag gives): plans
/// with equal keys share one packed copy of a weight, e.g. across variants
/// that differ only in the batch.
std::vector<int64_t> packedWeightKey(const KernelDispatchPlan &plan);

/// Packs the constant weight of `plan` (the weight operand's row-major f32
/// `data`) into the kernel's layout.
/// The value the kernel's packed-weight flag param takes when the weight is
/// packed at compile time: 1, or 2 for a GEMM convolution whose shape takes
/// the transposed form (filter as B panels, kernels::ConvGemmForm) or an
/// int8 im2col convolution whose filter is packed tap-major
/// (kernels::int8ConvTapMajor).
int64_t packedWeightFlag(const KernelDispatchPlan &plan);

std::vector<float> packKernelWeight(const KernelDispatchPlan &plan,
                                    const float *data);

/// Whether the strategy's params of `plan` are the `want` its kernel takes
/// (`why` says so otherwise).
bool strategyParamsAre(const KernelDispatchPlan &plan, size_t want,
                       std::string &why);

/// The f32 kernels' epilogue params (has_bias, activation, p0, p1) of a
/// Conv / MatMul's do_relu / relu_limit / activation; nullopt with `why`
/// when the kernels lack the activation.
std::optional<std::vector<int64_t>>
fusedEpilogueParams(mlir::Operation *op, bool hasBias, std::string &why);

/// Whether every call of `fn` passes a top.Weight as argument `argument`
/// (a weight a kernel packs at compile time).
bool constantAtCallSites(mlir::func::FuncOp fn, int argument);

/// The plan of a dispatch whose MatMul got the bf16 kernel
/// (planKernelDispatch calls it with the strategy's params in `plan`).
std::optional<KernelDispatchPlan>
planBf16KernelDispatch(mlir::func::FuncOp fn, mlir::Operation *op,
                       KernelDispatchPlan plan, std::string &why);

/// Packs the constant bf16 weight of a Pack::Bf16MatmulB or
/// Pack::Bf16ConvFilter plan.
std::vector<uint16_t> packBf16KernelWeight(const KernelDispatchPlan &plan,
                                           const uint16_t *data);

/// Whether the outliner moves `op` (a Conv / MatMul the strategy gave an
/// int8 kernel) and its only user, a top.Requant, into one dispatch: the
/// Requant then runs fused in the kernel's epilogue. Returns the Requant.
mlir::Operation *fusableInt8Requant(mlir::Operation *op);

/// When `last` is the final top.Requant of an int8 Add (Requant, Requant,
/// i32 Add, Requant) or GlobalAvgPool (Requant, i32 Reduce, Requant,
/// Requant), or the final top.Quant of an int8 table (Dequant, one-operand
/// float ops, Quant) as top-quantize writes them, the chain's ops in block order
/// (each result but the last used only by the next op of the chain): the
/// outliner makes them one dispatch. Otherwise empty.
llvm::SmallVector<mlir::Operation *> fusableInt8Chain(mlir::Operation *last);

/// The plan of an outlined int8 table chain (Dequant, one-operand float
/// ops, Quant on per-tensor int8; a fused activation as top-quantize
/// writes it) as the `table_i8` kernel with the table computed now through
/// the interpreter, or nullopt.
std::optional<KernelDispatchPlan> planInt8TableDispatch(mlir::func::FuncOp fn,
                                                        std::string &why);
/// The plan of an outlined int8 Add chain (Requant, Requant, i32 Add,
/// Requant; fusableInt8Chain) as the `add_requant_i8` kernel, or nullopt
/// (`why` set when the chain has a form the kernel does not take).
std::optional<KernelDispatchPlan> planInt8AddDispatch(mlir::func::FuncOp fn,
                                                      std::string &why);
/// The plan of a dispatch whose op got an int8 kernel (planKernelDispatch
/// calls it with the strategy's params already in `plan`).
std::optional<KernelDispatchPlan>
planInt8KernelDispatch(mlir::func::FuncOp fn, mlir::Operation *op,
                       KernelDispatchPlan plan, std::string &why);

/// The plan of a dispatch whose MaxPool got `maxpool2d_nchw_i8` /
/// `maxpool2d_nchw_u8` (the strategy's params in `plan`): an 8-bit input
/// and result of one quantization, no relu, a shape the kernel takes
/// (kernels::checkInt8MaxPool2dShape); else nullopt with `why`.
std::optional<KernelDispatchPlan>
planInt8MaxPoolDispatch(mlir::func::FuncOp fn, mlir::Operation *op,
                        KernelDispatchPlan plan, std::string &why);

/// Packs the constant int8 weight of a Pack::Int8 plan
/// (kernels::int8PackWeight).
std::vector<uint8_t> packInt8KernelWeight(const KernelDispatchPlan &plan,
                                          const int8_t *data);

} // namespace strata::cpu

#endif // STRATA_TARGET_CPU_KERNELDISPATCH_H
