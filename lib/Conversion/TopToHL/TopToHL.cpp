//===- TopToHL.cpp - Top ops to the NPU's HL kernels ----------------------===//
//
// convert-top-to-hl (docs/npu.md): for each Top op the npu-sim strategy
// table gives a kernel, checks the kernel's remaining conditions and writes
// the HL op with packed weights and its scale+bias tensor; otherwise the op
// stays on the CPU and the reason is recorded (strata compile
// --explain-strategy prints it).
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/HLToHW/Passes.h"
#include "strata/Conversion/TopToHL/Passes.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopTable16Op.h"
#include "strata/Dialect/Top/IR/TopTraits.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Interpreter/InterpretableOpInterface.h"
#include "strata/Interpreter/Tabulate.h"
#include "strata/Npu/NpuConfigJson.h"
#include "strata/Strategy/NpuStrategies.h"
#include "strata/Strategy/Select.h"
#include "strata/StrategyMLIR/WorkloadFromOp.h"
#include "strata/Support/IntegerRequant.h"
#include "strata/Support/IntegerTable16.h"

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

  /// The int8 epilogue of `acc`'s only user, a MultiplierShift or TFLite
  /// Requant whose per-channel values (if any) run along `channelDim`, the
  /// accumulator's output-channel dim: fills the scale+bias tensor's
  /// multiplier/shift rows and the clip.
  Reason requantEpilogue(Value acc, int64_t channels, int64_t channelDim,
                         bool relu, bool perChannelZp, Tensor &scaleBias,
                         SmallVectorImpl<NamedAttribute> &attrs,
                         top::RequantOp &requantOut) {
    if (!acc.hasOneUse())
      return "its int32 accumulator has other users than one top.Requant";
    auto requant = dyn_cast<top::RequantOp>(*acc.getUsers().begin());
    if (!requant)
      return "its int32 accumulator does not go to a top.Requant (a float "
             "epilogue)";
    // The activation unit rounds as MultiplierShift or as TFLite (gemmlowp);
    // Float-mode requantization (f64 scales) has no integer form.
    bool tflite = requant.getQuantMode() == top::RequantMode::TFLite;
    if (requant.getQuantMode() != top::RequantMode::MultiplierShift && !tflite)
      return "its top.Requant uses quant_mode " +
             stringifyRequantMode(requant.getQuantMode()).str() +
             ", the NPU's activation unit rounds by MultiplierShift or TFLite "
             "only: it has no ties-up rounding, which TosaSingleRound and "
             "TFLiteHalfUp (the TFLite importer's CONV_2D / FULLY_CONNECTED) "
             "need to be exact";
    if (!requant.getMultiplier() || !requant.getRshift())
      return "its top.Requant has no multiplier/rshift";
    std::optional<IntType> out = int8TypeOf(requant.getOutput().getType());
    // A per-axis int8 result along the channel dim (a pre-activation
    // quantized per channel for its tables): each channel's zero point in
    // a fourth scale_bias column, output_zp 0.
    auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(
        getElementTypeOrSelf(requant.getOutput().getType()));
    if (perAxis) {
      if (!perChannelZp)
        return "its top.Requant's result is per-axis int8 (only a "
               "convolution's epilogue takes per-channel zero points)";
      if (perAxis.getStorageTypeIntegralWidth() != 8 || !perAxis.isSigned())
        return "its top.Requant's per-axis result is not int8";
      if (perAxis.getQuantizedDimension() != channelDim)
        return "its top.Requant's per-axis result is quantized along dim " +
               std::to_string(perAxis.getQuantizedDimension()) +
               ", not the channel dim " + std::to_string(channelDim);
      ArrayRef<int64_t> zps = perAxis.getZeroPoints();
      if (static_cast<int64_t>(zps.size()) != channels)
        return "its top.Requant's per-axis result has " +
               std::to_string(zps.size()) + " zero points for " +
               std::to_string(channels) + " channels";
      if (relu)
        return "a ReLU on a per-axis top.Requant (the clip would differ per "
               "channel)";
      Tensor wide(DType::I32, {channels, 4});
      for (int64_t c = 0; c < channels; ++c) {
        wide.data<int32_t>()[c * 4] = scaleBias.data<int32_t>()[c * 3];
        wide.data<int32_t>()[c * 4 + 3] = static_cast<int32_t>(zps[c]);
      }
      scaleBias = std::move(wide);
      out =
          IntType{0, perAxis.getStorageTypeMin(), perAxis.getStorageTypeMax()};
    }
    // An int16 pre-activation (`--table-input int16`) whose only user is a
    // top.Table16: the convolution writes int16 for the hl.table16 folded
    // into its activation unit (convertConv writes the pair).
    if (auto q16 = dyn_cast<quant::UniformQuantizedType>(
            getElementTypeOrSelf(requant.getOutput().getType()));
        !out && q16 && q16.getStorageTypeIntegralWidth() == 16 &&
        q16.isSigned() && perChannelZp && table16User(requant)) {
      if (q16.getStorageTypeMin() != -32768 || q16.getStorageTypeMax() != 32767)
        return "its top.Requant's int16 result has a narrowed storage "
               "range (the NPU's int16 pre-activation spans int16)";
      out = IntType{q16.getZeroPoint(), -32768, 32767};
    }
    if (!out)
      return "its top.Requant's result is not per-tensor int8";
    int64_t cols = perAxis ? 4 : 3;
    ArrayRef<int64_t> m = *requant.getMultiplier(), s = *requant.getRshift();
    if ((m.size() > 1 || s.size() > 1) &&
        static_cast<int64_t>(requant.getAxis().value_or(1)) != channelDim)
      return "its per-channel top.Requant runs along dim " +
             std::to_string(requant.getAxis().value_or(1)) +
             ", not the accumulator's channel dim " +
             std::to_string(channelDim);
    for (int64_t c = 0; c < channels; ++c) {
      int64_t mc = m.size() == 1 ? m[0] : m[c],
              sc = s.size() == 1 ? s[0] : s[c];
      if (mc < 0 || mc > std::numeric_limits<int32_t>::max())
        return "requant multiplier " + std::to_string(mc) +
               " is outside [0, 2^31 - 1]";
      if (sc < 0 || sc > 63)
        return "requant shift " + std::to_string(sc) + " is outside [0, 63]";
      scaleBias.data<int32_t>()[c * cols + 1] = static_cast<int32_t>(mc);
      scaleBias.data<int32_t>()[c * cols + 2] = static_cast<int32_t>(sc);
    }
    MLIRContext *ctx = module.getContext();
    auto i64 = [&](int64_t v) {
      return IntegerAttr::get(IntegerType::get(ctx, 64), v);
    };
    // ReLU on the accumulator == clipping at the zero point after the
    // requantization: the multiplier is non-negative and both roundings are
    // monotonic with f(0) = 0.
    attrs.push_back(
        NamedAttribute(StringAttr::get(ctx, "output_zp"), i64(out->zp)));
    attrs.push_back(
        NamedAttribute(StringAttr::get(ctx, "clip_min"),
                       i64(relu ? std::max(out->lo, out->zp) : out->lo)));
    attrs.push_back(
        NamedAttribute(StringAttr::get(ctx, "clip_max"), i64(out->hi)));
    attrs.push_back(NamedAttribute(StringAttr::get(ctx, "accumulator_bits"),
                                   i64(config.accumulatorBits)));
    if (tflite)
      attrs.push_back(NamedAttribute(StringAttr::get(ctx, "rounding"),
                                     StringAttr::get(ctx, "tflite")));
    requantOut = requant;
    return "";
  }

  /// Whether `t16`'s result is what hl.table16 writes: a per-tensor int8
  /// over [-128, 127] (its verifier's condition, checked first so that a
  /// narrowed result stays on the CPU).
  static bool hasFullInt8Result(top::Table16Op t16) {
    auto q = dyn_cast<quant::UniformQuantizedType>(
        getElementTypeOrSelf(t16.getOutput().getType()));
    return q && q.getStorageTypeIntegralWidth() == 8 && q.isSigned() &&
           q.getStorageTypeMin() == -128 && q.getStorageTypeMax() == 127;
  }

  /// The top.Table16 that is the only user of `requant`'s int16 result, if
  /// hl.table16 can take it (513 entries, hasFullInt8Result).
  static top::Table16Op table16User(top::RequantOp requant) {
    if (!requant.getOutput().hasOneUse())
      return nullptr;
    auto t = dyn_cast<top::Table16Op>(*requant.getOutput().getUsers().begin());
    if (!t || int64_t(t.getTable().size()) != intq::kTable16Entries ||
        !hasFullInt8Result(t))
      return nullptr;
    return t;
  }

  /// `hl.table16` of `t16`'s entries (a new weight) on `input`.
  hl::Table16Op createTable16(OpBuilder &b, top::Table16Op t16, Value input) {
    Tensor entries(DType::I16, {intq::kTable16Entries});
    llvm::copy(t16.getTable(), entries.data<int16_t>());
    Value lut =
        weight(b, t16.getLoc(), "hl_table16", entries, b.getIntegerType(16));
    return hl::Table16Op::create(b, t16.getLoc(), t16.getOutput().getType(),
                                 input, lut);
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
                     int64_t channels, int64_t channelDim, bool relu,
                     std::optional<double> limit, OpBuilder &b,
                     SmallVectorImpl<NamedAttribute> &attrs, MacOperands &out) {
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
      // Per-channel output zero points: the NCHW convolutions' kernels.
      bool perChannelZp = isa<top::ConvOp>(op) && channelDim == 1;
      if (Reason r = requantEpilogue(acc, channels, channelDim, relu,
                                     perChannelZp, sb, attrs, requant);
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
      if (!izp.empty())
        named("input_zp", i64(izp[0]));
      if (!wzp.empty())
        named("weight_zp", i64(wzp[0]));
    }
    MacOperands mac;
    if (Reason r = macOperands(conv, conv.getOutput(), *w, packed, bias, o,
                               nhwc ? 3 : 1, relu, limit, b, attrs, mac);
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
    SmallVector<Operation *> created = {hlOp};
    // An int16 pre-activation: the hl.table16 of its top.Table16, folded
    // into the conv's activation unit by the NPU lowering (checked as a
    // pair: the conv alone does not lower).
    if (auto requant = dyn_cast<top::RequantOp>(replaced);
        requant && hl::isSignedInt16(resultType)) {
      top::Table16Op t16 = table16User(requant);
      if (nhwc || !t16) {
        hlOp->erase();
        if (nhwc)
          input.getDefiningOp()->erase();
        return "an int16 pre-activation of an NHWC convolution (its "
               "hl.table16 folds into NCHW convolutions only)";
      }
      if (!config.lut16Entries) {
        hlOp->erase();
        return "the NPU description's lut16_entries is 0 (no interpolated "
               "int16 table)";
      }
      hl::Table16Op hlT16 = createTable16(b, t16, result);
      // The pair is checked together (npuLoweringRefusal folds the
      // table into the conv).
      if (Reason r = refused({hlOp, hlT16}); !r.empty())
        return r;
      t16.getOutput().replaceAllUsesWith(hlT16.getOutput());
      erased.insert(t16); // a candidate of its own (convertTable16)
      t16.erase();
      requant.erase();
      conv.erase();
      kernel += " + hl.table16";
      return "";
    }
    if (nhwc) {
      created.insert(created.begin(), input.getDefiningOp());
      result = transpose(b, loc, result, {0, 2, 3, 1});
      created.push_back(result.getDefiningOp());
      assert(result.getType() == nhwcResultType && "NHWC result type");
      (void)nhwcResultType;
    }
    if (Reason r = refused(created); !r.empty())
      return r;
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
    if (Reason r = macOperands(mm, mm.getOutput(), *w, packed, bias, n, 1, relu,
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
    if (Reason r = refused({fc}); !r.empty())
      return r;
    replaced->getResult(0).replaceAllUsesWith(fc.getOutput());
    if (replaced != mm)
      replaced->erase();
    mm.erase();
    return "";
  }

  //===--------------------------------------------------------------------===//
  // Float ops between top.Dequant and top.Quant (the int8 form of the ops
  // `strata quantize` leaves in float)
  //===--------------------------------------------------------------------===//

  /// An elementwise op of one operand (Sigmoid, SiLU, HardSwish, ...): with
  /// int8 input and output it is a 256-entry table.
  static bool isTableCandidate(Operation *op) {
    return op->getDialect() && op->getDialect()->getNamespace() == "top" &&
           op->hasTrait<top::OpTrait::Elementwise>() &&
           op->getNumOperands() == 1 && op->getNumResults() == 1 &&
           !isa<top::QuantOp, top::DequantOp, top::CastOp, top::RequantOp>(op);
  }

  /// Ops erased by a conversion; later candidates among them are skipped.
  llvm::DenseSet<Operation *> erased;

  /// Erases the ops of a converted float chain, last first, that have no
  /// users left (the Dequant may have others).
  void eraseDeadChain(ArrayRef<Operation *> chain) {
    for (Operation *dead : llvm::reverse(chain))
      if (dead->use_empty()) {
        erased.insert(dead);
        dead->erase();
      }
  }

  /// The HL ops a conversion wrote, before it rewires the users: kept when
  /// the NPU lowering takes every one (npuLoweringRefusal, the predicate
  /// convert-hl-to-hw applies), else erased (last first; nothing uses them
  /// yet) and the reason returned, so the Top ops stay on the CPU.
  Reason refused(ArrayRef<Operation *> created) {
    for (Operation *op : created)
      if (std::optional<std::string> r = npuLoweringRefusal(op, config)) {
        for (Operation *dead : llvm::reverse(created))
          dead->erase();
        return "the NPU lowering refuses it: " + *r;
      }
    return "";
  }

  /// The table of `ops` (strata::tabulateChain: the same bits the Top
  /// model computes for each element).
  FailureOr<Tensor> tabulate(ArrayRef<Operation *> ops, int64_t entries) {
    return tabulateChain(ops, entries);
  }

  /// One table per channel, `[channels, entries]`: the Top ops run on a
  /// `[1, channels, entries]` tensor whose row c holds every int8 value,
  /// so a per-axis Dequant (along dim 1) gives row c channel c's values.
  FailureOr<Tensor> tabulatePerChannel(ArrayRef<Operation *> ops,
                                       int64_t channels, int64_t entries) {
    FailureOr<Tensor> rows = tabulateChainPerChannel(ops, channels, entries);
    if (failed(rows) || rows->dtype() != DType::I8 ||
        rows->numElements() != channels * entries)
      return failure();
    Tensor table(DType::I8, {channels, entries});
    std::memcpy(table.raw(), rows->raw(), table.byteSize());
    return table;
  }

  /// `hl.maxpool` of the int8 `input` with `mp`'s window (the result keeps
  /// input's type), or why not.
  Reason emitMaxPool(top::MaxPoolOp mp, OpBuilder &b, Value &input) {
    auto inType = cast<RankedTensorType>(mp.getInput().getType());
    auto outTy = cast<RankedTensorType>(mp.getOutput().getType());
    if (mp.getKernelShape().size() != 2 || inType.getRank() != 4 ||
        mp.getLayout() != top::Layout::NCHW || !inType.hasStaticShape() ||
        !outTy.hasStaticShape())
      return "not a static 2-d NCHW max pool";
    if (mp.getDoRelu())
      return "a fused ReLU on the max pool";
    SmallVector<int64_t> k(mp.getKernelShape()),
        st = mp.getStridesOrDefault(), dl = mp.getDilationsOrDefault(),
        pd = mp.getPadsOrDefault();
    for (int d = 0; d < 2; ++d)
      if (hl::windowOutputSize(inType.getDimSize(2 + d), pd[d], pd[2 + d], k[d],
                               st[d], dl[d]) != outTy.getDimSize(2 + d))
        return "ceil_mode output sizes (the NPU's windows floor)";
    auto pooledType = RankedTensorType::get(
        outTy.getShape(), getElementTypeOrSelf(input.getType()));
    input = hl::MaxPoolOp::create(
                b, mp.getLoc(), pooledType, input, b.getDenseI64ArrayAttr(k),
                b.getDenseI64ArrayAttr(pd), b.getDenseI64ArrayAttr(st),
                b.getDenseI64ArrayAttr(dl), b.getI64IntegerAttr(1),
                DenseI64ArrayAttr())
                .getOutput();
    return "";
  }

  /// A top.MaxPool on per-tensor int8 values (top-quantize's int8 max
  /// pool: the result keeps the input's type) to `hl.maxpool`.
  Reason convertInt8MaxPool(top::MaxPoolOp mp, std::string &kernel) {
    if (!config.supports(npu::NumberFormat::Int8))
      return "the NPU description's formats do not list int8";
    Value input = mp.getInput();
    OpBuilder b(mp);
    if (Reason r = emitMaxPool(mp, b, input); !r.empty())
      return r;
    if (Reason r = refused({input.getDefiningOp()}); !r.empty())
      return r;
    mp.getOutput().replaceAllUsesWith(input);
    mp.erase();
    kernel = "hl.maxpool";
    return "";
  }

  /// Converts a MaxPool, a nearest Resize or a chain of one-operand
  /// elementwise ops that reads `top.Dequant(x)` of an int8 `x` and whose
  /// only user chain ends in a `top.Quant` to int8: `hl.table(x)` with the
  /// chain tabulated, or `hl.maxpool(x)` / `hl.resize_nearest(x)` then the
  /// table of Dequant -> Quant (max commutes with the non-decreasing
  /// Dequant, padding never wins; a resize only moves values). Exact: the
  /// table holds what the Top ops compute for each of the 256 values.
  Reason convertBetweenQuant(Operation *first, std::string &kernel) {
    if (!config.supports(npu::NumberFormat::Int8))
      return "the NPU description's formats do not list int8";
    auto deq = first->getOperand(0).getDefiningOp<top::DequantOp>();
    // A per-axis int8 input along dim 1 (a pre-activation quantized per
    // channel): one table per channel.
    auto perAxis = deq ? dyn_cast<quant::UniformQuantizedPerAxisType>(
                             getElementTypeOrSelf(deq.getInput().getType()))
                       : quant::UniformQuantizedPerAxisType();
    auto deqType =
        deq ? dyn_cast<RankedTensorType>(deq.getInput().getType()) : nullptr;
    if (perAxis) {
      if (isa<top::MaxPoolOp, top::ResizeOp>(first))
        return "its input is a per-axis int8 tensor (per-channel tables are "
               "written for elementwise chains only)";
      if (perAxis.getStorageTypeIntegralWidth() != 8 || !perAxis.isSigned() ||
          !deqType || !deqType.hasStaticShape() || deqType.getRank() < 2 ||
          perAxis.getQuantizedDimension() != 1)
        return "its input is a per-axis tensor that is not static signed "
               "int8 quantized along dim 1";
    } else if (!deq || !int8TypeOf(deq.getInput().getType()) ||
               !isa<quant::UniformQuantizedType>(
                   getElementTypeOrSelf(deq.getInput().getType()))) {
      return "its input is not a top.Dequant of a per-tensor int8 tensor "
             "(the op runs in float)";
    }
    SmallVector<Operation *> chain = {deq};
    Operation *op = first;
    bool pool = isa<top::MaxPoolOp, top::ResizeOp>(first);
    while (true) {
      if (!op->getResult(0).hasOneUse())
        return "its float result has other users than the chain to a "
               "top.Quant";
      chain.push_back(op);
      Operation *user = *op->getResult(0).getUsers().begin();
      if (isa<top::QuantOp>(user)) {
        op = user;
        break;
      }
      if (pool || !isTableCandidate(user))
        return "its result does not go to a top.Quant through one-operand "
               "elementwise ops";
      op = user;
    }
    auto quantOp = cast<top::QuantOp>(op);
    std::optional<IntType> outType = int8TypeOf(quantOp.getOutput().getType());
    if (!outType || !isa<quant::UniformQuantizedType>(
                        getElementTypeOrSelf(quantOp.getOutput().getType())))
      return "its top.Quant is not to per-tensor int8";
    if (config.lutEntries != 256)
      return "the NPU description's lut_entries is " +
             std::to_string(config.lutEntries) + ", an int8 table needs 256";
    SmallVector<Operation *> tabulated = {deq};
    Value input = deq.getInput();
    OpBuilder b(quantOp);
    if (auto mp = dyn_cast<top::MaxPoolOp>(first)) {
      if (Reason r = emitMaxPool(mp, b, input); !r.empty())
        return r;
      kernel = "hl.maxpool + hl.table";
    } else if (auto rs = dyn_cast<top::ResizeOp>(first)) {
      if (Reason r = checkNearestResize(rs); !r.empty())
        return r;
      auto outTy = cast<RankedTensorType>(rs.getOutput().getType());
      input = hl::ResizeNearestOp::create(
                  b, rs.getLoc(),
                  RankedTensorType::get(outTy.getShape(),
                                        getElementTypeOrSelf(input.getType())),
                  input)
                  .getOutput();
      kernel = "hl.resize_nearest + hl.table";
    } else {
      tabulated.append(chain.begin() + 1, chain.end());
      kernel = "hl.table";
    }
    tabulated.push_back(quantOp);
    // The hl.maxpool / hl.resize_nearest written above (none for a table
    // alone).
    SmallVector<Operation *> created;
    if (input != deq.getInput())
      created.push_back(input.getDefiningOp());
    FailureOr<Tensor> table =
        perAxis ? tabulatePerChannel(tabulated, deqType.getDimSize(1),
                                     config.lutEntries)
                : tabulate(tabulated, config.lutEntries);
    if (failed(table)) {
      for (Operation *dead : created)
        dead->erase();
      return "its float ops could not be tabulated";
    }
    // A max pool whose output keeps its input's quantization needs no table.
    bool identity =
        !perAxis && input.getType() == quantOp.getOutput().getType();
    for (int64_t i = 0; identity && i < config.lutEntries; ++i)
      identity = table->data<int8_t>()[i] == i - config.lutEntries / 2;
    if (identity) {
      if (Reason r = refused(created); !r.empty())
        return r;
      quantOp.getOutput().replaceAllUsesWith(input);
      kernel = isa<top::MaxPoolOp>(first)  ? "hl.maxpool"
               : isa<top::ResizeOp>(first) ? "hl.resize_nearest"
                                           : "none (the identity)";
      quantOp.erase();
      eraseDeadChain(chain);
      return "";
    }
    Value lut =
        weight(b, first->getLoc(), "hl_table", *table, b.getIntegerType(8));
    auto t =
        hl::TableOp::create(b, quantOp.getLoc(), quantOp.getOutput().getType(),
                            input, lut, b.getI64IntegerAttr(config.lutEntries));
    created.push_back(t);
    if (Reason r = refused(created); !r.empty())
      return r;
    quantOp.getOutput().replaceAllUsesWith(t.getOutput());
    // The float chain is dead now (the Dequant may have other users).
    quantOp.erase();
    eraseDeadChain(chain);
    return "";
  }

  /// A top.Table16 not converted with its convolution (its int16 input
  /// comes from the CPU: a matmul's or a refused conv's Requant, a float
  /// Quant) to a standalone `hl.table16`, the `table` task on int16 input.
  Reason convertTable16(top::Table16Op t16, std::string &kernel) {
    if (!config.supports(npu::NumberFormat::Int8))
      return "the NPU description's formats do not list int8";
    if (!config.lut16Entries)
      return "the NPU description's lut16_entries is 0 (no interpolated "
             "int16 table)";
    auto inType = dyn_cast<RankedTensorType>(t16.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(t16.getOutput().getType());
    if (!inType || !outType || !inType.hasStaticShape() ||
        !outType.hasStaticShape())
      return "dynamic shapes (compile with --input-shapes)";
    if (!hl::isSignedInt16(inType) ||
        isa<quant::UniformQuantizedPerAxisType>(inType.getElementType()))
      return "its input is not a per-tensor signed int16 tensor";
    if (int64_t(t16.getTable().size()) != intq::kTable16Entries)
      return "its table does not have " +
             std::to_string(intq::kTable16Entries) + " entries";
    if (!hasFullInt8Result(t16))
      return "its result is not a per-tensor int8 tensor over [-128, 127]";
    OpBuilder b(t16);
    hl::Table16Op hlT16 = createTable16(b, t16, t16.getInput());
    if (Reason r = refused({hlT16}); !r.empty())
      return r;
    t16.getOutput().replaceAllUsesWith(hlT16.getOutput());
    erased.insert(t16);
    t16.erase();
    kernel = "hl.table16";
    return "";
  }

  /// `Quant(Concat(Dequant(x_i)...))` to int8: each input requantized by
  /// the table of its Dequant -> Quant (left out when it is the identity),
  /// then `hl.concat`. Exact: concatenation only moves the values each
  /// table maps.
  Reason convertConcat(top::ConcatOp concat, std::string &kernel) {
    if (!config.supports(npu::NumberFormat::Int8))
      return "the NPU description's formats do not list int8";
    if (!concat.getOutput().hasOneUse())
      return "its float result has other users than one top.Quant";
    auto quantOp =
        dyn_cast<top::QuantOp>(*concat.getOutput().getUsers().begin());
    if (!quantOp || !int8TypeOf(quantOp.getOutput().getType()) ||
        !isa<quant::UniformQuantizedType>(
            getElementTypeOrSelf(quantOp.getOutput().getType())))
      return "its result does not go to a top.Quant to per-tensor int8";
    auto outType = dyn_cast<RankedTensorType>(quantOp.getOutput().getType());
    if (!outType || !outType.hasStaticShape())
      return "dynamic shapes (compile with --input-shapes)";
    if (config.lutEntries != 256)
      return "the NPU description's lut_entries is " +
             std::to_string(config.lutEntries) + ", an int8 table needs 256";
    SmallVector<top::DequantOp> deqs;
    // A nearest resize between an input's Dequant and the concat (a
    // detector's upsampled feature maps) only moves the int8 values:
    // hl.resize_nearest after the input's table.
    SmallVector<top::ResizeOp> resizes;
    for (Value in : concat.getInputs()) {
      auto rs = in.getDefiningOp<top::ResizeOp>();
      if (rs &&
          (!rs.getOutput().hasOneUse() || !checkNearestResize(rs).empty()))
        return "an input is a resize that is not an NPU nearest resize "
               "used by the concat only";
      resizes.push_back(rs);
      if (rs)
        in = rs.getInput();
      auto deq = in.getDefiningOp<top::DequantOp>();
      if (!deq ||
          !isa<quant::UniformQuantizedType>(
              getElementTypeOrSelf(deq.getInput().getType())) ||
          !int8TypeOf(deq.getInput().getType()))
        return "an input is not a top.Dequant of a per-tensor int8 tensor";
      deqs.push_back(deq);
    }
    int64_t rank = outType.getRank(), axis = concat.getAxis();
    if (axis < 0)
      axis += rank;
    OpBuilder b(quantOp);
    SmallVector<Value> inputs;
    SmallVector<Operation *> created;
    for (auto [deq, rs] : llvm::zip_equal(deqs, resizes)) {
      FailureOr<Tensor> table = tabulate(
          {deq.getOperation(), quantOp.getOperation()}, config.lutEntries);
      if (failed(table)) {
        for (Operation *dead : llvm::reverse(created))
          dead->erase();
        return "its Dequant -> Quant could not be tabulated";
      }
      Value x = deq.getInput();
      auto xType = cast<RankedTensorType>(x.getType());
      auto wantType =
          RankedTensorType::get(xType.getShape(), outType.getElementType());
      bool identity = xType == wantType;
      for (int64_t i = 0; identity && i < config.lutEntries; ++i)
        identity = table->data<int8_t>()[i] == i - config.lutEntries / 2;
      if (!identity) {
        Value lut =
            weight(b, deq.getLoc(), "hl_table", *table, b.getIntegerType(8));
        x = hl::TableOp::create(b, deq.getLoc(), wantType, x, lut,
                                b.getI64IntegerAttr(config.lutEntries))
                .getOutput();
        created.push_back(x.getDefiningOp());
      }
      if (rs) {
        x = hl::ResizeNearestOp::create(
                b, rs.getLoc(),
                RankedTensorType::get(
                    cast<RankedTensorType>(rs.getOutput().getType()).getShape(),
                    outType.getElementType()),
                x)
                .getOutput();
        created.push_back(x.getDefiningOp());
      }
      inputs.push_back(x);
    }
    auto hlConcat = hl::ConcatOp::create(b, quantOp.getLoc(), outType, inputs,
                                         b.getI64IntegerAttr(axis));
    created.push_back(hlConcat);
    if (Reason r = refused(created); !r.empty())
      return r;
    quantOp.getOutput().replaceAllUsesWith(hlConcat.getOutput());
    SmallVector<Operation *> chain;
    for (top::DequantOp deq : deqs)
      if (!llvm::is_contained(chain, deq.getOperation()))
        chain.push_back(deq);
    for (top::ResizeOp rs : resizes)
      if (rs)
        chain.push_back(rs);
    chain.push_back(concat);
    chain.push_back(quantOp);
    eraseDeadChain(chain);
    kernel = llvm::any_of(resizes, [](top::ResizeOp r) { return bool(r); })
                 ? "hl.concat of hl.resize_nearest"
                 : "hl.concat";
    return "";
  }

  //===--------------------------------------------------------------------===//
  // top-quantize's int8 Add and GlobalAvgPool (docs/quantization.md,
  // "Integer Add and pools": Requant / i32 Add / i32 Reduce chains)
  //===--------------------------------------------------------------------===//

  /// The multiplier and shift of a per-tensor MultiplierShift top.Requant
  /// within the NPU's ranges.
  static std::optional<std::pair<int64_t, int64_t>>
  plainRequant(top::RequantOp r) {
    if (!r || r.getQuantMode() != top::RequantMode::MultiplierShift ||
        !r.getMultiplier() || !r.getRshift() ||
        r.getMultiplier()->size() != 1 || r.getRshift()->size() != 1)
      return std::nullopt;
    int64_t m = (*r.getMultiplier())[0], sh = (*r.getRshift())[0];
    if (m < 0 || m > std::numeric_limits<int32_t>::max() || sh < 0 || sh > 63)
      return std::nullopt;
    return std::make_pair(m, sh);
  }

  /// A per-tensor signed int8 quantized type's zero point and range.
  static std::optional<IntType> signedInt8Of(Type type) {
    if (!isa<quant::UniformQuantizedType>(getElementTypeOrSelf(type)) ||
        !isInt8Storage(type))
      return std::nullopt;
    return int8TypeOf(type);
  }

  static bool isI32(Type type) {
    return getElementTypeOrSelf(type).isSignlessInteger(32);
  }

  /// `Requant(Add(Requant(a), Requant(b)))` (int8 -> i32 -> int8, the int8
  /// Add of top-quantize, `do_relu` included) to `hl.add`: HL's add
  /// rescales both inputs with the same rounding (`left_shift` 0), adds and
  /// requantizes; the ReLU on the i32 sum is `clip_min = output_zp`.
  Reason convertInt8Add(top::AddOp add, std::string &kernel) {
    if (!config.supports(npu::NumberFormat::Int8))
      return "the NPU description's formats do not list int8";
    auto ra = add.getLhs().getDefiningOp<top::RequantOp>();
    auto rb = add.getRhs().getDefiningOp<top::RequantOp>();
    if (!ra || !rb || !isI32(add.getOutput().getType()))
      return "not the int8 Add of top-quantize (two top.Requant to i32, "
             "an i32 top.Add)";
    std::optional<IntType> ta = signedInt8Of(ra.getInput().getType()),
                           tb = signedInt8Of(rb.getInput().getType());
    auto ma = plainRequant(ra), mb = plainRequant(rb);
    if (!ta || !tb || !ma || !mb || !isI32(ra.getOutput().getType()) ||
        !isI32(rb.getOutput().getType()))
      return "an input is not a per-tensor MultiplierShift top.Requant of "
             "a signed int8 tensor to i32";
    auto outType = dyn_cast<RankedTensorType>(add.getOutput().getType());
    if (!outType || !outType.hasStaticShape())
      return "dynamic shapes (compile with --input-shapes)";
    if (cast<ShapedType>(ra.getInput().getType()).getShape() !=
            outType.getShape() ||
        cast<ShapedType>(rb.getInput().getType()).getShape() !=
            outType.getShape())
      return "its operands broadcast (the NPU add takes equal shapes)";
    if (!add.getOutput().hasOneUse())
      return "its i32 sum has other users than one top.Requant";
    auto rc = dyn_cast<top::RequantOp>(*add.getOutput().getUsers().begin());
    std::optional<IntType> tc =
        rc ? signedInt8Of(rc.getOutput().getType()) : std::nullopt;
    auto mc = plainRequant(rc);
    if (!tc || !mc)
      return "its i32 sum does not go to a per-tensor MultiplierShift "
             "top.Requant to signed int8";
    OpBuilder b(rc);
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    auto h = hl::AddOp::create(
        b, rc.getLoc(), rc.getOutput().getType(), ra.getInput(), rb.getInput(),
        i64(ta->zp), i64(ma->first), i64(ma->second), i64(tb->zp),
        i64(mb->first), i64(mb->second), i64(0), i64(mc->first),
        i64(mc->second), i64(tc->zp),
        i64(add.getDoRelu() ? std::max(tc->lo, tc->zp) : tc->lo), i64(tc->hi),
        b.getStringAttr("multiplier_shift"));
    if (Reason r = refused({h}); !r.empty())
      return r;
    rc.getOutput().replaceAllUsesWith(h.getOutput());
    eraseDeadChain({ra, rb, add, rc});
    kernel = "hl.add";
    return "";
  }

  /// `Requant(Requant(Reduce-sum over H, W of Requant(x) - zp), 1/n), s)`
  /// (the int8 GlobalAvgPool of top-quantize) to `hl.avgpool` with the
  /// whole plane as its window: HL's integer mean
  /// `round_half_away_from_zero(sum / n)` is the division Requant when it
  /// uses `intq::divisionMultiplierShift` (checked), then the same
  /// MultiplierShift requantization.
  Reason convertInt8GlobalAvgPool(top::ReduceOp red, std::string &kernel) {
    if (!config.supports(npu::NumberFormat::Int8))
      return "the NPU description's formats do not list int8";
    auto inType = dyn_cast<RankedTensorType>(red.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(red.getOutput().getType());
    if (red.getMode() != top::ReduceMode::Sum || red.getAxesValue() ||
        !inType || !outType || !inType.hasStaticShape() ||
        !outType.hasStaticShape() || inType.getRank() != 4 || !isI32(inType))
      return "not the int8 GlobalAvgPool of top-quantize (an i32 ReduceSum "
             "over H and W of a static 4-d tensor)";
    SmallVector<int64_t> axes(red.getAxes());
    for (int64_t &a : axes)
      a = a < 0 ? a + 4 : a;
    llvm::sort(axes);
    if (axes != SmallVector<int64_t>{2, 3} ||
        outType.getShape() !=
            ArrayRef<int64_t>{inType.getDimSize(0), inType.getDimSize(1), 1, 1})
      return "its ReduceSum is not over H and W with kept dims";
    auto r0 = red.getInput().getDefiningOp<top::RequantOp>();
    std::optional<IntType> tx =
        r0 ? signedInt8Of(r0.getInput().getType()) : std::nullopt;
    if (!tx || plainRequant(r0) != std::make_pair<int64_t, int64_t>(1, 0))
      return "its input is not top.Requant(x) - zp (multiplier 1, shift 0) "
             "of a per-tensor signed int8 tensor";
    int64_t n = inType.getDimSize(2) * inType.getDimSize(3);
    if (!red.getOutput().hasOneUse())
      return "its i32 sum has other users than the division top.Requant";
    auto r1 = dyn_cast<top::RequantOp>(*red.getOutput().getUsers().begin());
    auto m1 = plainRequant(r1);
    if (!m1 || *m1 != intq::divisionMultiplierShift(n, 255 * n) ||
        !isI32(r1.getOutput().getType()) || !r1.getOutput().hasOneUse())
      return "its sum is not divided by the window size with "
             "intq::divisionMultiplierShift (the integer mean of "
             "hl.avgpool)";
    auto r2 = dyn_cast<top::RequantOp>(*r1.getOutput().getUsers().begin());
    std::optional<IntType> ty =
        r2 ? signedInt8Of(r2.getOutput().getType()) : std::nullopt;
    auto m2 = plainRequant(r2);
    if (!ty || !m2)
      return "its mean does not go to a per-tensor MultiplierShift "
             "top.Requant to signed int8";
    OpBuilder b(r2);
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    auto arr = [&](ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); };
    auto h = hl::AvgPoolOp::create(
        b, r2.getLoc(), r2.getOutput().getType(), r0.getInput(),
        arr({inType.getDimSize(2), inType.getDimSize(3)}), b.getBoolAttr(false),
        i64(tx->zp), i64(m2->first), i64(m2->second), i64(ty->zp), i64(ty->lo),
        i64(ty->hi), arr({0, 0, 0, 0}), arr({1, 1}), arr({1, 1}), i64(1),
        DenseI64ArrayAttr());
    if (Reason r = refused({h}); !r.empty())
      return r;
    r2.getOutput().replaceAllUsesWith(h.getOutput());
    eraseDeadChain({r0, red, r1, r2});
    kernel = "hl.avgpool";
    return "";
  }

  /// Whether `rs` moves elements exactly as hl.resize_nearest does
  /// (`out[y, x] = in[(y*H)/OH, (x*W)/OW]` per plane): probed by running the
  /// Top op's own semantics on each plane's element indices, so every
  /// coordinate mode and rounding that agrees is accepted.
  Reason checkNearestResize(top::ResizeOp rs) {
    auto inType = cast<RankedTensorType>(rs.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(rs.getOutput().getType());
    if (rs.getMode() != top::Interpolation::Nearest || rs.getTargetValue() ||
        inType.getRank() != 4 || !inType.hasStaticShape() || !outType ||
        !outType.hasStaticShape() ||
        outType.getDimSize(0) != inType.getDimSize(0) ||
        outType.getDimSize(1) != inType.getDimSize(1))
      return "not a static 4-d nearest resize of H and W";
    int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
            h = inType.getDimSize(2), w = inType.getDimSize(3),
            oh = outType.getDimSize(2), ow = outType.getDimSize(3);
    if (h * w >= (int64_t(1) << 24))
      return "a plane too large to probe exactly";
    Tensor probe(DType::F32, {n, c, h, w});
    for (int64_t i = 0; i < probe.numElements(); ++i)
      probe.data<float>()[i] = static_cast<float>(i % (h * w));
    InterpreterEnv env;
    env.set(rs.getInput(), std::move(probe));
    env.setResultShape(rs.getOutput(), {n, c, oh, ow});
    auto iface = cast<InterpretableOpInterface>(rs.getOperation());
    if (failed(iface.interpret(env)) || !env.has(rs.getOutput()))
      return "its semantics could not be probed";
    const Tensor &got = env.get(rs.getOutput());
    if (got.numElements() != n * c * oh * ow)
      return "its semantics could not be probed";
    for (int64_t i = 0; i < got.numElements(); ++i) {
      int64_t x = i % ow, y = (i / ow) % oh;
      if (got.getAsDouble(i) !=
          static_cast<double>(((y * h) / oh) * w + (x * w) / ow))
        return "its coordinate mode / rounding picks other source pixels "
               "than the NPU's (y * H) / OH";
    }
    return "";
  }

  LogicalResult run() {
    const strategy::StrategyRegistry &registry = strategy::npuRegistry();
    strategy::SelectOptions options;
    options.target = strategy::kNpuTarget;
    SmallVector<Operation *> candidates;
    module.walk([&](Operation *op) {
      if (isa<top::ConvOp, top::MatMulOp, top::MaxPoolOp, top::ConcatOp,
              top::ResizeOp>(op) ||
          (isa<top::AddOp, top::ReduceOp>(op) &&
           isI32(op->getResult(0).getType())) ||
          isTableCandidate(op) || isa<top::Table16Op>(op))
        candidates.push_back(op);
    });
    for (Operation *op : candidates) {
      if (erased.contains(op))
        continue; // part of a chain converted with an earlier candidate
      HLDecision d;
      d.op = op->getName().getStringRef().str();
      d.location = printLoc(op->getLoc());
      if (auto t16 = dyn_cast<top::Table16Op>(op)) {
        // No strategy entry: the one NPU kernel of an int16 table.
        d.reason = convertTable16(t16, d.kernel);
        if (!d.reason.empty())
          d.kernel.clear();
        if (decisions)
          decisions->push_back(std::move(d));
        continue;
      }
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
          d.reason =
              getElementTypeOrSelf(op->getOperand(0).getType()).isF32()
                  ? "no NPU kernel's strategy condition holds (an f32 op: "
                    "the NPU computes int8 and bf16, see --quantize)"
                  : "no NPU kernel's strategy condition holds";
        else if (auto conv = dyn_cast<top::ConvOp>(op))
          d.reason = convertConv(conv, d.kernel);
        else if (auto mm = dyn_cast<top::MatMulOp>(op))
          d.reason = convertMatMul(mm, d.kernel);
        else if (auto concat = dyn_cast<top::ConcatOp>(op))
          d.reason = convertConcat(concat, d.kernel);
        else if (auto add = dyn_cast<top::AddOp>(op))
          d.reason = convertInt8Add(add, d.kernel);
        else if (auto red = dyn_cast<top::ReduceOp>(op))
          d.reason = convertInt8GlobalAvgPool(red, d.kernel);
        else if (auto mp = dyn_cast<top::MaxPoolOp>(op);
                 mp &&
                 isa<quant::UniformQuantizedType>(
                     getElementTypeOrSelf(mp.getInput().getType())) &&
                 int8TypeOf(mp.getInput().getType()) &&
                 mp.getInput().getType() ==
                     RankedTensorType::get(
                         cast<ShapedType>(mp.getInput().getType()).getShape(),
                         getElementTypeOrSelf(mp.getOutput().getType())))
          d.reason = convertInt8MaxPool(mp, d.kernel);
        else
          d.reason = convertBetweenQuant(op, d.kernel);
      }
      if (!d.reason.empty())
        d.kernel.clear(); // refused after the kernel was named
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
