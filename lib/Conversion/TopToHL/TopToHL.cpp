//===- TopToHL.cpp - Top ops to the NPU's HL kernels ----------------------===//
//
// convert-top-to-hl (docs/npu.md): for each Top op the npu-sim strategy
// table gives a kernel, checks the kernel's remaining conditions and writes
// the HL op with packed weights and its scale+bias tensor; otherwise the op
// stays on the CPU and the reason is recorded (strata compile
// --explain-strategy prints it).
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/TopToHL/Passes.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Npu/NpuConfigJson.h"
#include "strata/Strategy/NpuStrategies.h"
#include "strata/Strategy/Select.h"
#include "strata/StrategyMLIR/WorkloadFromOp.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <limits>

namespace strata::conversion {
#define GEN_PASS_DEF_CONVERTTOPTOHL
#include "strata/Conversion/TopToHL/Passes.h.inc"
} // namespace strata::conversion

using namespace mlir;
using namespace strata;
using namespace strata::conversion;

namespace {

/// Why a candidate stays on the CPU (empty: it converts).
using Reason = std::string;

std::string printLoc(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto named = dyn_cast<NameLoc>(loc))
    os << named.getName().getValue();
  else
    os << loc;
  return s;
}

/// The int8 quantization of a value's type: zero point and storage range.
struct IntType {
  int64_t zp = 0, lo = -128, hi = 127;
};
std::optional<IntType> int8TypeOf(Type type) {
  Type e = getElementTypeOrSelf(type);
  if (auto q = dyn_cast<quant::UniformQuantizedType>(e)) {
    if (q.getStorageTypeIntegralWidth() != 8)
      return std::nullopt;
    return IntType{q.getZeroPoint(), q.getStorageTypeMin(),
                   q.getStorageTypeMax()};
  }
  if (auto i = dyn_cast<IntegerType>(e); i && i.getWidth() == 8)
    return i.isUnsigned() ? IntType{0, 0, 255} : IntType{0, -128, 127};
  return std::nullopt;
}

bool isInt8Storage(Type type) {
  Type e = getElementTypeOrSelf(type);
  if (auto q = dyn_cast<quant::QuantizedType>(e))
    return q.getStorageTypeIntegralWidth() == 8 && q.isSigned();
  return e.isSignlessInteger(8) || e.isSignedInteger(8);
}

/// Copies element `src` of `from` to element `dst` of `to` (same dtype).
void copyElement(const Tensor &from, int64_t src, Tensor &to, int64_t dst) {
  size_t es = dtypeSize(from.dtype());
  std::memcpy(static_cast<char *>(to.raw()) + dst * es,
              static_cast<const char *>(from.raw()) + src * es, es);
}

/// Packs `O x R` weights (each output channel's R elements contiguous in
/// the layout `R` spells) into `(O/B) x R x B`, zero-filled past O.
Tensor packBlocks(const Tensor &w, int64_t o, int64_t r, int64_t block,
                  std::vector<int64_t> innerShape,
                  llvm::function_ref<int64_t(int64_t, int64_t)> source) {
  std::vector<int64_t> shape = {(o + block - 1) / block};
  shape.insert(shape.end(), innerShape.begin(), innerShape.end());
  shape.push_back(block);
  Tensor packed(w.dtype(), shape);
  std::memset(packed.raw(), 0, packed.byteSize());
  for (int64_t oc = 0; oc < o; ++oc)
    for (int64_t i = 0; i < r; ++i)
      copyElement(w, source(oc, i), packed,
                  ((oc / block) * r + i) * block + oc % block);
  return packed;
}

struct Converter {
  ModuleOp module;
  const npu::NpuConfig &config;
  std::vector<HLDecision> *decisions;
  top::WeightNamer namer;

  Converter(ModuleOp m, const npu::NpuConfig &c, std::vector<HLDecision> *d)
      : module(m), config(c), decisions(d), namer(m) {}

  Value weight(OpBuilder &b, Location loc, StringRef base, const Tensor &t,
               Type element) {
    auto type = RankedTensorType::get(t.shape(), element);
    return top::createWeight(b, loc, namer, base, t, type).getOutput();
  }

  /// `type` with its dims permuted: dim i of the result is dim perm[i].
  static Type permuted(Type type, ArrayRef<int64_t> perm) {
    auto t = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    return RankedTensorType::get(shape, t.getElementType());
  }

  static Value transpose(OpBuilder &b, Location loc, Value v,
                         ArrayRef<int64_t> perm) {
    return hl::TransposeOp::create(b, loc, permuted(v.getType(), perm), v,
                                   b.getDenseI64ArrayAttr(perm))
        .getOutput();
  }

  /// The int8 epilogue of `acc`'s only user, a MultiplierShift Requant:
  /// fills the scale+bias tensor's multiplier/shift rows and the clip.
  Reason requantEpilogue(Value acc, int64_t channels, bool relu,
                         Tensor &scaleBias,
                         SmallVectorImpl<NamedAttribute> &attrs,
                         top::RequantOp &requantOut) {
    if (!acc.hasOneUse())
      return "its int32 accumulator has other users than one top.Requant";
    auto requant = dyn_cast<top::RequantOp>(*acc.getUsers().begin());
    if (!requant)
      return "its int32 accumulator does not go to a top.Requant (a float "
             "epilogue)";
    if (requant.getQuantMode() != top::RequantMode::MultiplierShift)
      return "its top.Requant uses quant_mode " +
             top::stringifyRequantMode(requant.getQuantMode()).str() +
             ", the NPU's activation unit does MultiplierShift";
    if (!requant.getMultiplier() || !requant.getRshift())
      return "its top.Requant has no multiplier/rshift";
    std::optional<IntType> out = int8TypeOf(requant.getOutput().getType());
    if (!out)
      return "its top.Requant's result is not per-tensor int8";
    ArrayRef<int64_t> m = *requant.getMultiplier(), s = *requant.getRshift();
    for (int64_t c = 0; c < channels; ++c) {
      int64_t mc = m.size() == 1 ? m[0] : m[c],
              sc = s.size() == 1 ? s[0] : s[c];
      if (mc < 0 || mc > std::numeric_limits<int32_t>::max())
        return "requant multiplier " + std::to_string(mc) +
               " is outside [0, 2^31 - 1]";
      if (sc < 0 || sc > 63)
        return "requant shift " + std::to_string(sc) + " is outside [0, 63]";
      scaleBias.data<int32_t>()[c * 3 + 1] = static_cast<int32_t>(mc);
      scaleBias.data<int32_t>()[c * 3 + 2] = static_cast<int32_t>(sc);
    }
    MLIRContext *ctx = module.getContext();
    auto i64 = [&](int64_t v) {
      return IntegerAttr::get(IntegerType::get(ctx, 64), v);
    };
    // ReLU on the accumulator == clipping at the zero point after the
    // requantization: the multiplier is non-negative and the rounding is
    // monotonic with round(0) = 0.
    attrs.push_back(
        NamedAttribute(StringAttr::get(ctx, "output_zp"), i64(out->zp)));
    attrs.push_back(
        NamedAttribute(StringAttr::get(ctx, "clip_min"),
                       i64(relu ? std::max(out->lo, out->zp) : out->lo)));
    attrs.push_back(
        NamedAttribute(StringAttr::get(ctx, "clip_max"), i64(out->hi)));
    attrs.push_back(NamedAttribute(StringAttr::get(ctx, "accumulator_bits"),
                                   i64(config.accumulatorBits)));
    requantOut = requant;
    return "";
  }

  /// What a MAC kernel replacing `op` (a Conv or MatMul) reads and where
  /// it goes: its packed weights and scale+bias constants, its location,
  /// result type and the op whose result it replaces (the Requant after an
  /// int8 op).
  struct MacOperands {
    Value weights, scaleBias;
    std::optional<Location> loc;
    Type resultType;
    Operation *replaced = nullptr;
  };

  /// Builds the MacOperands of `op` (accumulator `acc`, `channels` output
  /// channels, `packed` weights of the filter `w`) in int8 (with the
  /// MultiplierShift Requant after it) or bf16, adding the epilogue's
  /// attributes to `attrs`; a reason when the kernel does not apply.
  Reason macOperands(Operation *op, Value acc, const Tensor &w,
                     const Tensor &packed, const std::optional<Tensor> &bias,
                     int64_t channels, bool relu, std::optional<double> limit,
                     OpBuilder &b, SmallVectorImpl<NamedAttribute> &attrs,
                     MacOperands &out) {
    MLIRContext *ctx = op->getContext();
    Type accElement = getElementTypeOrSelf(acc.getType());
    out = {Value(), Value(), op->getLoc(), acc.getType(), op};
    if (isInt8Storage(op->getOperand(0).getType())) {
      if (w.dtype() != DType::I8)
        return "its weights are not int8";
      if (!accElement.isSignlessInteger(32))
        return "its accumulator is not i32";
      if (bias && bias->dtype() != DType::I32)
        return "its bias is not int32";
      if (limit)
        return "a capped ReLU (relu_limit) on the int32 accumulator";
      Tensor sb(DType::I32, {channels, 3});
      for (int64_t oc = 0; oc < channels; ++oc)
        sb.data<int32_t>()[oc * 3] = bias ? bias->data<int32_t>()[oc] : 0;
      top::RequantOp requant;
      if (Reason r = requantEpilogue(acc, channels, relu, sb, attrs, requant);
          !r.empty())
        return r;
      b.setInsertionPoint(requant);
      out.loc = requant.getLoc();
      out.resultType = requant.getOutput().getType();
      out.replaced = requant;
      out.weights =
          weight(b, op->getLoc(), "hl_weights", packed, b.getIntegerType(8));
      out.scaleBias =
          weight(b, op->getLoc(), "hl_scale_bias", sb, b.getIntegerType(32));
      return "";
    }
    if (!getElementTypeOrSelf(op->getOperand(0).getType()).isBF16())
      return "its input is neither int8 nor bf16";
    if (w.dtype() != DType::BF16 || !accElement.isBF16())
      return "bf16 input without bf16 weights and result";
    if (relu)
      attrs.push_back(NamedAttribute(StringAttr::get(ctx, "relu"),
                                     BoolAttr::get(ctx, true)));
    if (limit)
      attrs.push_back(
          NamedAttribute(StringAttr::get(ctx, "relu_limit"),
                         FloatAttr::get(Float64Type::get(ctx), *limit)));
    Tensor sb(DType::F32, {channels});
    for (int64_t oc = 0; oc < channels; ++oc)
      sb.data<float>()[oc] =
          bias ? static_cast<float>(bias->getAsDouble(oc)) : 0.0f;
    out.weights = weight(b, *out.loc, "hl_weights", packed, b.getBF16Type());
    out.scaleBias = weight(b, *out.loc, "hl_bias", sb, b.getF32Type());
    return "";
  }

  /// Checks the fused activation: none, or a plain ReLU.
  template <typename OpT>
  Reason epilogueOf(OpT op, bool &relu, std::optional<double> &limit) {
    if (op.getActivation())
      return "its fused activation '" +
             top::stringifyEpilogueActivation(*op.getActivation()).str() +
             "' has no NPU epilogue (it stays a float op on the CPU)";
    relu = op.getDoRelu();
    if (relu && op.getReluLimit().convertToDouble() >= 0)
      limit = op.getReluLimit().convertToDouble();
    return "";
  }

  Reason convertConv(top::ConvOp conv, std::string &kernel) {
    bool int8 = isInt8Storage(conv.getInput().getType());
    bool bf16 = getElementTypeOrSelf(conv.getInput().getType()).isBF16();
    if ((int8 && !config.supports(npu::NumberFormat::Int8)) ||
        (bf16 && !config.supports(npu::NumberFormat::BF16)))
      return std::string("the NPU description's formats do not list ") +
             (int8 ? "int8" : "bf16");
    if (conv.getKernelShape().size() != 2)
      return "not a 2-d convolution";
    std::optional<Tensor> w = top::constantValue(conv.getFilter());
    if (!w)
      return "its filter is not a constant weight";
    std::optional<Tensor> bias;
    if (!top::isNone(conv.getBias())) {
      bias = top::constantValue(conv.getBias());
      if (!bias)
        return "its bias is not a constant weight";
    }
    auto inType = cast<RankedTensorType>(conv.getInput().getType());
    auto outType = cast<RankedTensorType>(conv.getOutput().getType());
    if (!inType.hasStaticShape() || !outType.hasStaticShape())
      return "dynamic shapes (compile with --input-shapes)";
    // An NHWC conv (TFLite / TOSA order; filter OHWI) runs NCHW between a
    // pair of transposes, which hl-cancel-transposes removes between
    // neighbouring HL ops.
    bool nhwc = conv.getLayout() == top::Layout::NHWC;
    int64_t c = inType.getDimSize(nhwc ? 3 : 1), o = w->dim(0),
            g = conv.getGroup();
    int64_t kh = w->dim(nhwc ? 1 : 2), kw = w->dim(nhwc ? 2 : 3),
            block = config.weightChannelBlock;
    bool relu = false;
    std::optional<double> limit;
    if (Reason r = epilogueOf(conv, relu, limit); !r.empty())
      return r;
    MLIRContext *ctx = conv.getContext();
    SmallVector<NamedAttribute> attrs;
    auto i64 = [&](int64_t v) {
      return IntegerAttr::get(IntegerType::get(ctx, 64), v);
    };
    auto named = [&](StringRef n, Attribute a) {
      attrs.push_back(NamedAttribute(StringAttr::get(ctx, n), a));
    };
    SmallVector<int64_t> pads = conv.getPadsOrDefault();
    // Top: [top, left, bottom, right] (ONNX order) = HL's order.
    named("pad", DenseI64ArrayAttr::get(ctx, pads));
    named("stride", DenseI64ArrayAttr::get(ctx, conv.getStridesOrDefault()));
    named("dilation",
          DenseI64ArrayAttr::get(ctx, conv.getDilationsOrDefault()));
    bool depthwise = g == c && g == o && g > 1;
    if (!depthwise && g != 1)
      named("groups", i64(g));

    OpBuilder b(conv);
    int64_t cg = c / g;
    // Element `i` (in (ic, kh, kw) order) of output channel `oc`'s filter.
    auto filterIndex = [&](int64_t oc, int64_t i) {
      if (!nhwc)
        return oc * cg * kh * kw + i;
      int64_t ic = i / (kh * kw), k = i % (kh * kw);
      return (oc * kh * kw + k) * cg + ic;
    };
    Tensor packed =
        depthwise
            ? packBlocks(*w, o, kh * kw, block, {kh, kw}, filterIndex)
            : packBlocks(*w, o, cg * kh * kw, block, {cg, kh, kw}, filterIndex);
    if (int8) {
      ArrayRef<int64_t> izp, wzp;
      if (auto a = conv.getInputZp())
        izp = *a;
      if (auto a = conv.getWeightZp())
        wzp = *a;
      if (izp.size() > 1 || wzp.size() > 1)
        return "per-channel zero points (the NPU takes one per tensor)";
      if (nhwc && conv.getOutput().hasOneUse())
        if (auto rq =
                dyn_cast<top::RequantOp>(*conv.getOutput().getUsers().begin());
            rq && rq.getMultiplier() && rq.getMultiplier()->size() > 1)
          return "a per-channel top.Requant of an NHWC accumulator (Top's "
                 "requant channel is dim 1)";
      if (!izp.empty())
        named("input_zp", i64(izp[0]));
      if (!wzp.empty())
        named("weight_zp", i64(wzp[0]));
    }
    MacOperands mac;
    if (Reason r = macOperands(conv, conv.getOutput(), *w, packed, bias, o,
                               relu, limit, b, attrs, mac);
        !r.empty())
      return r;
    Location loc = *mac.loc;
    Type resultType = mac.resultType;
    Operation *replaced = mac.replaced;
    Value weights = mac.weights, scaleBias = mac.scaleBias;
    Value input = conv.getInput();
    Type nhwcResultType = resultType;
    if (nhwc) {
      input = transpose(b, loc, input, {0, 3, 1, 2});
      resultType = permuted(resultType, {0, 3, 1, 2});
    }
    Operation *hlOp;
    if (depthwise) {
      hlOp = hl::DepthwiseConv2DOp::create(
          b, loc, TypeRange{resultType}, ValueRange{input, weights, scaleBias},
          attrs);
      kernel = "hl.depthwise_conv2d";
    } else {
      hlOp = hl::Conv2DOp::create(b, loc, TypeRange{resultType},
                                  ValueRange{input, weights, scaleBias}, attrs);
      kernel = "hl.conv2d";
    }
    Value result = hlOp->getResult(0);
    if (nhwc) {
      result = transpose(b, loc, result, {0, 2, 3, 1});
      assert(result.getType() == nhwcResultType && "NHWC result type");
      (void)nhwcResultType;
    }
    replaced->getResult(0).replaceAllUsesWith(result);
    if (replaced != conv)
      replaced->erase();
    conv.erase();
    return "";
  }

  Reason convertMatMul(top::MatMulOp mm, std::string &kernel) {
    auto inType = cast<RankedTensorType>(mm.getInput().getType());
    auto outType = cast<RankedTensorType>(mm.getOutput().getType());
    bool int8 = isInt8Storage(inType);
    bool bf16 = inType.getElementType().isBF16();
    if ((int8 && !config.supports(npu::NumberFormat::Int8)) ||
        (bf16 && !config.supports(npu::NumberFormat::BF16)))
      return std::string("the NPU description's formats do not list ") +
             (int8 ? "int8" : "bf16");
    std::optional<Tensor> w = top::constantValue(mm.getRight());
    if (!w)
      return "its right operand is not a constant weight (hl.matmul of two "
             "activations is not converted yet)";
    if (!inType.hasStaticShape() || !outType.hasStaticShape() ||
        outType.getRank() != 2)
      return "not a static rank-2 product";
    std::optional<Tensor> bias;
    if (!top::isNone(mm.getBias())) {
      bias = top::constantValue(mm.getBias());
      if (!bias)
        return "its bias is not a constant weight";
      if (bias->numElements() != outType.getDimSize(1))
        return "its bias is not one value per output column";
    }
    bool relu = false;
    std::optional<double> limit;
    if (Reason r = epilogueOf(mm, relu, limit); !r.empty())
      return r;
    int64_t k = inType.getDimSize(1), n = outType.getDimSize(1);
    bool rt = mm.getRightTranspose();
    Tensor packed = packBlocks(
        *w, n, k, config.weightChannelBlock, {k},
        [&](int64_t oc, int64_t i) { return rt ? oc * k + i : i * n + oc; });
    SmallVector<NamedAttribute> attrs;
    OpBuilder b(mm);
    MacOperands mac;
    if (Reason r = macOperands(mm, mm.getOutput(), *w, packed, bias, n, relu,
                               limit, b, attrs, mac);
        !r.empty())
      return r;
    Location loc = *mac.loc;
    Type resultType = mac.resultType;
    Operation *replaced = mac.replaced;
    Value weights = mac.weights, scaleBias = mac.scaleBias;
    auto fc = hl::FullyConnectedOp::create(
        b, loc, TypeRange{resultType},
        ValueRange{mm.getInput(), weights, scaleBias}, attrs);
    kernel = "hl.fully_connected";
    replaced->getResult(0).replaceAllUsesWith(fc.getOutput());
    if (replaced != mm)
      replaced->erase();
    mm.erase();
    return "";
  }

  LogicalResult run() {
    const strategy::StrategyRegistry &registry = strategy::npuRegistry();
    strategy::SelectOptions options;
    options.target = strategy::kNpuTarget;
    SmallVector<Operation *> candidates;
    module.walk([&](Operation *op) {
      if (isa<top::ConvOp, top::MatMulOp>(op))
        candidates.push_back(op);
    });
    for (Operation *op : candidates) {
      HLDecision d;
      d.op = op->getName().getStringRef().str();
      d.location = printLoc(op->getLoc());
      ShapeOr<strategy::Workload> w = strategy::workloadFromOp(op);
      if (!w) {
        d.reason = "the strategy cannot read it: " + w.error();
      } else {
        d.strategy = strategy::explain(registry, *w, options);
        ShapeOr<strategy::Selection> sel =
            strategy::select(registry, *w, options);
        if (!sel || !sel->decided())
          d.reason = "the strategy decides only at run time (dynamic shape)";
        else if (sel->winner() == strategy::kCodegenImplName)
          d.reason = "no NPU kernel's strategy condition holds";
        else if (auto conv = dyn_cast<top::ConvOp>(op))
          d.reason = convertConv(conv, d.kernel);
        else
          d.reason = convertMatMul(cast<top::MatMulOp>(op), d.kernel);
      }
      if (decisions)
        decisions->push_back(std::move(d));
    }
    // The replaced weights are dead now.
    SmallVector<Operation *> dead;
    module.walk([&](top::WeightOp w) {
      if (w->use_empty())
        dead.push_back(w);
    });
    for (Operation *op : dead)
      op->erase();
    return success();
  }
};

struct ConvertTopToHLPass
    : public conversion::impl::ConvertTopToHLBase<ConvertTopToHLPass> {
  using ConvertTopToHLBase::ConvertTopToHLBase;
  ConvertTopToHLPass(const npu::NpuConfig &c, std::vector<HLDecision> *d)
      : given(c), decisions(d) {}

  void runOnOperation() override {
    npu::NpuConfig config = given.value_or(npu::defaultNpuConfig());
    if (!npuConfig.empty()) {
      auto file = llvm::MemoryBuffer::getFile(npuConfig, /*IsText=*/true);
      if (!file) {
        getOperation().emitError()
            << "npu-config '" << npuConfig
            << "' cannot be read: " << file.getError().message();
        return signalPassFailure();
      }
      llvm::Expected<npu::NpuConfig> parsed =
          npu::parseNpuConfigJson((*file)->getBuffer(), npuConfig);
      if (!parsed) {
        getOperation().emitError() << llvm::toString(parsed.takeError());
        return signalPassFailure();
      }
      config = *parsed;
    }
    if (failed(Converter(getOperation(), config, decisions).run()))
      signalPassFailure();
  }

  std::optional<npu::NpuConfig> given;
  std::vector<HLDecision> *decisions = nullptr;
};

} // namespace

LogicalResult conversion::convertTopToHL(ModuleOp module,
                                         const npu::NpuConfig &config,
                                         std::vector<HLDecision> *decisions) {
  return Converter(module, config, decisions).run();
}

std::unique_ptr<Pass>
conversion::createConvertTopToHLPass(const npu::NpuConfig &config,
                                     std::vector<HLDecision> *decisions) {
  return std::make_unique<ConvertTopToHLPass>(config, decisions);
}
