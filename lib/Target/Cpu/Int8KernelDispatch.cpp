//===- Int8KernelDispatch.cpp - plan the int8 kernel dispatches -----------===//
//
// A quantized Conv / MatMul (int8 or uint8 input, int8 weights, int32
// accumulator; docs/quantization.md) that the strategy gave an int8 kernel
// becomes one kernel dispatch, together with the top.Requant that reads
// its accumulator when the kernel's epilogue computes it exactly
// (MultiplierShift, TosaSingleRound or TFLiteHalfUp, per tensor or per
// output channel, to an 8-bit type);
// otherwise the kernel writes the int32 accumulator. The weight must be a
// constant: it is packed at compile time with the requant arrays.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/KernelDispatch.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopTable16Op.h"
#include "strata/Dialect/Top/IR/TopTraits.h"
#include "strata/Interpreter/Tabulate.h"
#include "strata/Kernels/Int8Gemm.h"
#include "strata/Kernels/Int8Pool.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Strategy/CpuStrategies.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <cstring>

namespace strata::cpu {

using namespace mlir;
namespace kn = strata::kernels;
namespace kabi = strata::kernels::kabi;

namespace {

/// An 8-bit integer operand: plain i8 / ui8 or a per-tensor (or per-axis,
/// for weights) quantized type with 8-bit storage.
struct ByteType {
  bool isUnsigned = false;
};

std::optional<ByteType> byteType(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  Type e = t.getElementType();
  if (auto q = dyn_cast<quant::QuantizedType>(e)) {
    if (q.getStorageTypeIntegralWidth() != 8)
      return std::nullopt;
    return ByteType{!q.isSigned()};
  }
  if (auto i = dyn_cast<IntegerType>(e); i && i.getWidth() == 8)
    return ByteType{i.isUnsigned()};
  return std::nullopt;
}

/// Whether `v` is an int32 accumulator with zero point 0.
bool isInt32Accumulator(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return false;
  Type e = t.getElementType();
  if (auto q = dyn_cast<quant::UniformQuantizedType>(e))
    return q.getStorageTypeIntegralWidth() == 32 && q.getZeroPoint() == 0;
  if (auto q = dyn_cast<quant::UniformQuantizedPerAxisType>(e))
    return q.getStorageTypeIntegralWidth() == 32 &&
           llvm::all_of(q.getZeroPoints(), [](int64_t z) { return z == 0; });
  auto i = dyn_cast<IntegerType>(e);
  return i && i.getWidth() == 32 && !i.isUnsigned();
}

int64_t channelsOf(Operation *op) {
  auto t = cast<RankedTensorType>(op->getResult(0).getType());
  return isa<top::ConvOp>(op) ? t.getDimSize(1) : t.getShape().back();
}

/// The op-level form of an int8 Conv / MatMul: its input's signedness and
/// zero point and its relu, or nullopt with `why`.
struct OpForm {
  bool isUnsigned = false;
  int64_t inZp = 0;
  bool relu = false;
};

std::optional<OpForm> opForm(Operation *op, std::string &why) {
  OpForm f;
  auto in = byteType(op->getOperand(0));
  auto w = byteType(op->getOperand(1));
  if (!in || !w || w->isUnsigned) {
    why = "its input is not 8-bit or its weight not signed 8-bit";
    return std::nullopt;
  }
  f.isUnsigned = in->isUnsigned;
  if (!isInt32Accumulator(op->getResult(0))) {
    why = "its result is not an int32 accumulator with zero point 0";
    return std::nullopt;
  }
  Value bias = op->getOperand(2);
  if (!isa<NoneType>(bias.getType())) {
    auto bt = dyn_cast<RankedTensorType>(bias.getType());
    if (!bt || !bt.hasStaticShape() || !bt.getElementType().isInteger(32) ||
        bt.getNumElements() != channelsOf(op)) {
      why = "its bias is not an i32 tensor of one value per output channel";
      return std::nullopt;
    }
  }
  bool doRelu = false;
  double reluLimit = -1;
  bool hasActivation = false;
  if (auto conv = dyn_cast<top::ConvOp>(op)) {
    if (conv.getLayout() != top::Layout::NCHW) {
      why = "it is not NCHW";
      return std::nullopt;
    }
    if (auto wz = conv.getWeightZp();
        wz && llvm::any_of(*wz, [](int64_t z) { return z != 0; })) {
      why = "it has a weight zero point";
      return std::nullopt;
    }
    if (auto iz = conv.getInputZp(); iz && !iz->empty()) {
      if (llvm::any_of(*iz, [&](int64_t z) { return z != (*iz)[0]; })) {
        why = "its input zero point differs per channel";
        return std::nullopt;
      }
      f.inZp = (*iz)[0];
    }
    doRelu = conv.getDoRelu();
    reluLimit = conv.getReluLimit().convertToDouble();
    hasActivation = conv.getActivation().has_value();
  } else if (auto mm = dyn_cast<top::MatMulOp>(op)) {
    doRelu = mm.getDoRelu();
    reluLimit = mm.getReluLimit().convertToDouble();
    hasActivation = mm.getActivation().has_value();
  } else {
    why = "the int8 kernels take Conv and MatMul only";
    return std::nullopt;
  }
  if (f.inZp < (f.isUnsigned ? 0 : -128) ||
      f.inZp > (f.isUnsigned ? 255 : 127)) {
    why = "its input zero point " + std::to_string(f.inZp) +
          " is outside the input type";
    return std::nullopt;
  }
  if (hasActivation || (doRelu && reluLimit >= 0)) {
    why = "its integer epilogue is not a plain relu";
    return std::nullopt;
  }
  f.relu = doRelu;
  return f;
}

/// The fused Requant's part of the epilogue params and its arrays.
struct RequantForm {
  int64_t outKind = 0, zp = 0, qmin = 0, qmax = 0;
  kn::Int8Rounding rounding = kn::Int8Rounding::HalfAwayFromZero;
  std::vector<int64_t> multiplier, shift;
};

std::optional<RequantForm> requantForm(top::RequantOp rq, Operation *op,
                                       std::string &why) {
  // The kernels' epilogue rounds as MultiplierShift, TosaSingleRound or
  // TFLiteHalfUp (the TFLite importer's); TFLite (gemmlowp) and
  // TosaDoubleRound stay on the generated code.
  top::RequantMode mode = rq.getQuantMode();
  if ((mode != top::RequantMode::MultiplierShift &&
       mode != top::RequantMode::TosaSingleRound &&
       mode != top::RequantMode::TFLiteHalfUp) ||
      !rq.getMultiplier() || !rq.getRshift()) {
    why = "its Requant is not MultiplierShift, TosaSingleRound or "
          "TFLiteHalfUp";
    return std::nullopt;
  }
  RequantForm f;
  if (mode == top::RequantMode::TosaSingleRound)
    f.rounding = kn::Int8Rounding::HalfUp;
  else if (mode == top::RequantMode::TFLiteHalfUp)
    f.rounding = kn::Int8Rounding::TFLiteHalfUp;
  f.multiplier.assign(rq.getMultiplier()->begin(), rq.getMultiplier()->end());
  f.shift.assign(rq.getRshift()->begin(), rq.getRshift()->end());
  int64_t channels = channelsOf(op);
  auto rt = cast<RankedTensorType>(rq.getOutput().getType());
  bool perChannel = f.multiplier.size() > 1 || f.shift.size() > 1;
  // Per-channel Requant values follow dim 1 (the kernels' output channel):
  // an `axis` elsewhere (TFLite/TOSA NHWC) stays on the generated code. The
  // matmul's channel is its last dim, so only a rank-2 matmul qualifies.
  std::optional<int64_t> axis = rq.getAxis();
  if (perChannel && axis && *axis != 1) {
    why = "its Requant's channel axis is not dim 1";
    return std::nullopt;
  }
  if (perChannel && (rt.getRank() < 2 || rt.getDimSize(1) != channels ||
                     (isa<top::MatMulOp>(op) && rt.getRank() != 2))) {
    why = "its Requant's channels are not the kernel's output channels";
    return std::nullopt;
  }
  if (f.multiplier.empty() || f.shift.empty() ||
      (f.multiplier.size() != 1 && int64_t(f.multiplier.size()) != channels) ||
      (f.shift.size() != 1 && int64_t(f.shift.size()) != channels)) {
    why = "its Requant's multiplier/rshift lengths do not fit";
    return std::nullopt;
  }
  // Both arrays one value per channel, so the packed blob is uniform.
  if (perChannel) {
    if (f.multiplier.size() == 1)
      f.multiplier.assign(size_t(channels), f.multiplier[0]);
    if (f.shift.size() == 1)
      f.shift.assign(size_t(channels), f.shift[0]);
  }
  for (size_t i = 0; i < f.multiplier.size(); ++i)
    if (f.multiplier[i] < INT32_MIN || f.multiplier[i] > INT32_MAX ||
        f.shift[i] < 0 || f.shift[i] > 63) {
      why = "a Requant multiplier is outside int32 or a shift outside "
            "[0, 63]";
      return std::nullopt;
    }
  Type e = rt.getElementType();
  if (auto q = dyn_cast<quant::UniformQuantizedType>(e)) {
    if (q.getStorageTypeIntegralWidth() != 8) {
      why = "its Requant's result is not 8-bit";
      return std::nullopt;
    }
    f.outKind = q.isSigned() ? 1 : 2;
    f.zp = q.getZeroPoint();
    f.qmin = q.getStorageTypeMin();
    f.qmax = q.getStorageTypeMax();
  } else if (auto q = dyn_cast<quant::UniformQuantizedPerAxisType>(e)) {
    // A per-channel result type (an int8 activation table's input, one
    // scale per channel): the kernels' epilogue takes one zero point.
    ArrayRef<int64_t> zps = q.getZeroPoints();
    if (q.getStorageTypeIntegralWidth() != 8 ||
        q.getQuantizedDimension() != 1 || rt.getRank() < 2 ||
        int64_t(zps.size()) != channels ||
        (isa<top::MatMulOp>(op) && rt.getRank() != 2)) {
      why = "its Requant's per-channel result is not 8-bit on the kernel's "
            "output channels (dim 1)";
      return std::nullopt;
    }
    if (llvm::any_of(zps, [&](int64_t z) { return z != zps[0]; })) {
      why = "its Requant's result zero point differs per channel";
      return std::nullopt;
    }
    f.outKind = q.isSigned() ? 1 : 2;
    f.zp = zps[0];
    f.qmin = q.getStorageTypeMin();
    f.qmax = q.getStorageTypeMax();
  } else if (auto i = dyn_cast<IntegerType>(e); i && i.getWidth() == 8) {
    f.outKind = i.isUnsigned() ? 2 : 1;
    f.qmin = i.isUnsigned() ? 0 : -128;
    f.qmax = i.isUnsigned() ? 255 : 127;
  } else {
    why = "its Requant's result is not a per-tensor 8-bit type";
    return std::nullopt;
  }
  if (f.zp < INT32_MIN || f.zp > INT32_MAX) {
    why = "its Requant's zero point is outside int32";
    return std::nullopt;
  }
  return f;
}

/// Whether `op`'s strategy implementation calls an int8 kernel.
bool hasInt8Kernel(Operation *op) {
  auto name = op->getAttrOfType<StringAttr>("strata.impl");
  if (!name)
    return false;
  std::optional<strategy::Implementation> impl =
      strategy::builtinRegistry()
          .lookup(op->getName().getStringRef().str(), "cpu")
          .find(name.getValue().str());
  return impl && impl->lowering.kind == strategy::Lowering::Kind::Kernel &&
         kabi::isInt8Kernel(impl->lowering.kernel);
}

int argumentOf(func::FuncOp fn, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &fn.front() ? int(arg.getArgNumber()) : -1;
}

} // namespace

bool constantAtCallSites(func::FuncOp fn, int argument) {
  bool constant = false;
  if (auto module = fn->getParentOfType<ModuleOp>())
    if (auto uses = SymbolTable::getSymbolUses(fn, module))
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto call = dyn_cast<func::CallOp>(use.getUser());
        if (!call ||
            !call.getOperand(unsigned(argument)).getDefiningOp<top::WeightOp>())
          return false;
        constant = true;
      }
  return constant;
}

Operation *fusableInt8Requant(Operation *op) {
  if (!isa<top::ConvOp, top::MatMulOp>(op) || op->getNumResults() != 1 ||
      !hasInt8Kernel(op) || !op->getResult(0).hasOneUse() ||
      !op->getOperand(1).getDefiningOp<top::WeightOp>())
    return nullptr;
  auto rq = dyn_cast<top::RequantOp>(*op->getResult(0).getUsers().begin());
  std::string why;
  if (!rq || rq->getBlock() != op->getBlock() || !opForm(op, why) ||
      !requantForm(rq, op, why))
    return nullptr;
  return rq;
}

/// Whether `v` is a static tensor of per-tensor quantized signed 8-bit
/// values.
static bool isPerTensorI8(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  auto q = t ? dyn_cast<quant::UniformQuantizedType>(t.getElementType())
             : quant::UniformQuantizedType();
  return t && t.hasStaticShape() && q && q.isSigned() &&
         q.getStorageTypeIntegralWidth() == 8;
}

/// Whether `v` is a static tensor of signed 8-bit values quantized per
/// channel on dim 1 (an int8 activation table's per-channel input).
static bool isPerChannelI8(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  auto q = t ? dyn_cast<quant::UniformQuantizedPerAxisType>(t.getElementType())
             : quant::UniformQuantizedPerAxisType();
  return t && t.hasStaticShape() && t.getRank() >= 2 && q && q.isSigned() &&
         q.getStorageTypeIntegralWidth() == 8 &&
         q.getQuantizedDimension() == 1 &&
         int64_t(q.getScales().size()) == t.getDimSize(1);
}

/// A fused activation's int8 table as top-quantize writes it: Quant(ops(
/// Dequant(x))) with x per-tensor or per-channel (dim 1) int8, the result
/// per-tensor int8 and ops one or more
/// one-operand elementwise float ops, each result used only by the next;
/// the chain in block order, or empty.
static SmallVector<Operation *> int8TableChain(top::QuantOp quant) {
  if (!isPerTensorI8(quant.getOutput()))
    return {};
  SmallVector<Operation *> chain = {quant};
  Value v = quant.getInput();
  while (true) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != quant->getBlock() || !v.hasOneUse() ||
        def->getNumResults() != 1 || def->getNumOperands() != 1)
      return {};
    chain.push_back(def);
    if (auto deq = dyn_cast<top::DequantOp>(def)) {
      if (chain.size() < 3 ||
          !(isPerTensorI8(deq.getInput()) || isPerChannelI8(deq.getInput())))
        return {};
      break;
    }
    if (!def->hasTrait<top::OpTrait::Elementwise>() ||
        isa<top::QuantOp, top::CastOp, top::RequantOp>(def))
      return {};
    v = def->getOperand(0);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// The Requant i32 -> per-tensor int16 (MultiplierShift) read only by
/// `table` in its block, or null: the table16_i8 kernel requantizes the
/// int8 conv's int32 result itself.
static top::RequantOp table16Requant(top::Table16Op table) {
  auto rq = table.getInput().getDefiningOp<top::RequantOp>();
  if (!rq || rq->getBlock() != table->getBlock() ||
      !table.getInput().hasOneUse() ||
      rq.getQuantMode() != top::RequantMode::MultiplierShift ||
      !rq.getMultiplier() || !rq.getRshift() || rq.getAxis())
    return nullptr;
  auto in = dyn_cast<RankedTensorType>(rq.getInput().getType());
  auto out = dyn_cast<RankedTensorType>(rq.getOutput().getType());
  auto q = out ? dyn_cast<quant::UniformQuantizedType>(out.getElementType())
               : quant::UniformQuantizedType();
  if (!in || !in.hasStaticShape() || !in.getElementType().isInteger(32) || !q ||
      !q.isSigned() || q.getStorageTypeIntegralWidth() != 16 ||
      q.getStorageTypeMin() != -32768 || q.getStorageTypeMax() != 32767)
    return nullptr;
  size_t n = rq.getMultiplier()->size();
  if (n != rq.getRshift()->size() ||
      (n != 1 && (in.getRank() < 2 || int64_t(n) != in.getDimSize(1))))
    return nullptr;
  return rq;
}

SmallVector<Operation *> fusableInt8Chain(Operation *last) {
  if (auto quant = dyn_cast<top::QuantOp>(last))
    return int8TableChain(quant);
  if (auto table = dyn_cast<top::Table16Op>(last)) {
    if (top::RequantOp rq = table16Requant(table))
      return {rq, table};
    return {table};
  }
  auto rq = dyn_cast<top::RequantOp>(last);
  if (!rq)
    return {};
  Block *block = last->getBlock();
  // The op defining `v`, when it is in the block, not a kernel dispatch's
  // op, and `v` is its only result with `user` its only user.
  auto single = [&](Value v) -> Operation * {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || def->getNumResults() != 1 ||
        !v.hasOneUse())
      return nullptr;
    return def;
  };
  auto isI32 = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.hasStaticShape() && t.getElementType().isInteger(32);
  };
  Operation *mid = single(rq.getInput());
  if (!mid || !isI32(mid->getResult(0)))
    return {};
  if (auto add = dyn_cast<top::AddOp>(mid)) {
    auto a = dyn_cast_or_null<top::RequantOp>(single(add.getLhs()));
    auto b = dyn_cast_or_null<top::RequantOp>(single(add.getRhs()));
    if (!a || !b || a == b || add.getLhs().getType() != add.getRhs().getType())
      return {};
    SmallVector<Operation *> chain = {a, b};
    if (b->isBeforeInBlock(a))
      std::swap(chain[0], chain[1]);
    chain.append({add, last});
    return chain;
  }
  // GlobalAvgPool: Requant (x - zp), Reduce (sum), Requant (mean), last.
  auto mean = dyn_cast<top::RequantOp>(mid);
  if (!mean)
    return {};
  auto sum = dyn_cast_or_null<top::ReduceOp>(single(mean.getInput()));
  if (!sum || sum.getMode() != top::ReduceMode::Sum || !isI32(sum.getOutput()))
    return {};
  auto centred = dyn_cast_or_null<top::RequantOp>(single(sum.getInput()));
  if (!centred)
    return {};
  return {centred, sum, mean, last};
}

namespace {

/// A per-tensor MultiplierShift Requant's multiplier and shift (in int32 and
/// [0, 63]), or false with `why`.
bool perTensorRequant(top::RequantOp rq, int64_t &m, int64_t &s,
                      std::string &why) {
  if (rq.getQuantMode() != top::RequantMode::MultiplierShift ||
      !rq.getMultiplier() || !rq.getRshift() ||
      rq.getMultiplier()->size() != 1 || rq.getRshift()->size() != 1) {
    why = "a Requant of the chain is not a per-tensor MultiplierShift";
    return false;
  }
  m = (*rq.getMultiplier())[0];
  s = (*rq.getRshift())[0];
  if (m < INT32_MIN || m > INT32_MAX || s < 0 || s > 63) {
    why = "a Requant multiplier is outside int32 or a shift outside [0, 63]";
    return false;
  }
  return true;
}

/// An 8-bit per-tensor value's signedness, zero point and storage range.
struct ByteValue {
  bool isUnsigned = false;
  int64_t zp = 0, qmin = 0, qmax = 0;
};

std::optional<ByteValue> byteValue(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  Type e = t.getElementType();
  if (auto q = dyn_cast<quant::UniformQuantizedType>(e)) {
    if (q.getStorageTypeIntegralWidth() != 8)
      return std::nullopt;
    return ByteValue{!q.isSigned(), q.getZeroPoint(), q.getStorageTypeMin(),
                     q.getStorageTypeMax()};
  }
  if (auto i = dyn_cast<IntegerType>(e); i && i.getWidth() == 8)
    return i.isUnsigned() ? ByteValue{true, 0, 0, 255}
                          : ByteValue{false, 0, -128, 127};
  return std::nullopt;
}

bool isPlainI32(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  auto i = t ? dyn_cast<IntegerType>(t.getElementType()) : IntegerType();
  return i && i.getWidth() == 32 && !i.isUnsigned();
}

} // namespace

std::optional<KernelDispatchPlan> planInt8AddDispatch(func::FuncOp fn,
                                                      std::string &why) {
  Block &body = fn.front();
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret || ret.getNumOperands() != 1)
    return std::nullopt;
  auto last = ret.getOperand(0).getDefiningOp<top::RequantOp>();
  if (!last)
    return std::nullopt;
  SmallVector<Operation *> chain = fusableInt8Chain(last);
  if (chain.size() != 4 || !isa<top::AddOp>(chain[2]) ||
      std::distance(body.begin(), body.end()) != 5)
    return std::nullopt;
  auto add = cast<top::AddOp>(chain[2]);
  KernelDispatchPlan plan;
  plan.kernel = kabi::kAddRequantI8;
  plan.implementation = "int8_add_chain";
  auto resultType = cast<RankedTensorType>(last.getOutput().getType());
  if (!resultType.hasStaticShape() ||
      add.getLhs().getType() != add.getRhs().getType() ||
      cast<RankedTensorType>(add.getLhs().getType()).getShape() !=
          resultType.getShape()) {
    why = "the int8 Add broadcasts";
    return std::nullopt;
  }
  plan.params.push_back(resultType.getNumElements());
  std::vector<int> args;
  for (Value side : {add.getLhs(), add.getRhs()}) {
    auto rq = side.getDefiningOp<top::RequantOp>();
    std::optional<ByteValue> in = byteValue(rq.getInput());
    int64_t m, s;
    if (!in || !isPlainI32(rq.getOutput())) {
      why = "an input of the int8 Add is not a per-tensor 8-bit value "
            "rescaled to i32";
      return std::nullopt;
    }
    if (!perTensorRequant(rq, m, s, why))
      return std::nullopt;
    int arg = argumentOf(fn, rq.getInput());
    if (arg < 0) {
      why = "an input of the int8 Add is not an argument of the dispatch";
      return std::nullopt;
    }
    if (in->zp < (in->isUnsigned ? 0 : -128) ||
        in->zp > (in->isUnsigned ? 255 : 127)) {
      why = "an input zero point of the int8 Add is outside its type";
      return std::nullopt;
    }
    args.push_back(arg);
    plan.params.insert(plan.params.end(), {in->isUnsigned, in->zp, m, s});
  }
  std::optional<ByteValue> out = byteValue(last.getOutput());
  int64_t m, s;
  if (!out || !isPlainI32(last.getInput())) {
    why = "the int8 Add's result is not a per-tensor 8-bit value";
    return std::nullopt;
  }
  if (!perTensorRequant(last, m, s, why))
    return std::nullopt;
  if (out->zp < INT32_MIN || out->zp > INT32_MAX) {
    why = "the int8 Add's result zero point is outside int32";
    return std::nullopt;
  }
  plan.params.insert(plan.params.end(),
                     {int64_t(add.getDoRelu()), out->isUnsigned ? 2 : 1, m, s,
                      out->zp, out->qmin, out->qmax});
  plan.bindings = {args[0], args[1], KernelDispatchPlan::kResult};
  // The result may take an input's bytes (the kernel reads both before it
  // writes each vector).
  if (args[0] != args[1])
    plan.inPlaceOperand = args[0];
  plan.workgroupCount = kabi::suggestedOpWorkgroups(plan.params[0] / 4);
  return plan;
}

/// An outlined top.Table16 (after the Requant of an int32 accumulator to
/// int16, or alone on an int16 argument) as the table16_i8 kernel.
static std::optional<KernelDispatchPlan>
planTable16Dispatch(func::FuncOp fn, top::Table16Op table, std::string &why) {
  Block &body = fn.front();
  top::RequantOp rq = table16Requant(table);
  if (std::distance(body.begin(), body.end()) != (rq ? 3 : 2))
    return std::nullopt;
  Value in = rq ? rq.getInput() : table.getInput();
  int arg = argumentOf(fn, in);
  if (arg < 0) {
    why = "the int16 table's input is not an argument of the dispatch";
    return std::nullopt;
  }
  auto inType = cast<RankedTensorType>(in.getType());
  auto outType = dyn_cast<RankedTensorType>(table.getOutput().getType());
  auto outQ =
      outType ? dyn_cast<quant::UniformQuantizedType>(outType.getElementType())
              : quant::UniformQuantizedType();
  if (!outType || !outType.hasStaticShape() || !inType.hasStaticShape() ||
      !outQ) {
    why = "the int16 table's result is not a static per-tensor int8 tensor";
    return std::nullopt;
  }
  int64_t zp = 0;
  if (!rq) {
    // Plain int16 storage or a per-tensor !quant.uniform<i16>: the table
    // reads the storage values.
    Type elem = inType.getElementType();
    auto q = dyn_cast<quant::UniformQuantizedType>(elem);
    if (!(elem.isInteger(16) ||
          (q && q.isSigned() && q.getStorageTypeIntegralWidth() == 16))) {
      why = "the int16 table's input is not per-tensor int16";
      return std::nullopt;
    }
  } else {
    zp = cast<quant::UniformQuantizedType>(
             cast<RankedTensorType>(rq.getOutput().getType()).getElementType())
             .getZeroPoint();
  }
  KernelDispatchPlan plan;
  plan.implementation = "int16_table";
  plan.kernel = kabi::kTable16I8;
  int64_t count = outType.getNumElements();
  int64_t channels = 1, inner = count;
  if (rq && rq.getMultiplier()->size() > 1) {
    channels = inType.getDimSize(1);
    inner = 1;
    for (int64_t d = 2; d < inType.getRank(); ++d)
      inner *= inType.getDimSize(d);
  }
  plan.params = {count,
                 channels,
                 inner,
                 rq ? 1 : 0,
                 zp,
                 outQ.getStorageTypeMin(),
                 outQ.getStorageTypeMax()};
  ArrayRef<int16_t> entries = table.getTable();
  for (int64_t word = 0; word < kabi::kTable16I8TableParams; ++word) {
    int16_t four[4] = {0, 0, 0, 0};
    for (int64_t k = 0; k < 4; ++k)
      if (4 * word + k < int64_t(entries.size()))
        four[k] = entries[size_t(4 * word + k)];
    int64_t packed;
    std::memcpy(&packed, four, sizeof(packed));
    plan.params.push_back(packed);
  }
  if (rq) {
    ArrayRef<int64_t> mult = *rq.getMultiplier(), shift = *rq.getRshift();
    for (int64_t c = 0; c < channels; ++c)
      if (mult[size_t(c)] < INT32_MIN || mult[size_t(c)] > INT32_MAX ||
          shift[size_t(c)] < 0 || shift[size_t(c)] > 63) {
        why = "a Requant multiplier is outside int32 or a shift outside "
              "[0, 63]";
        return std::nullopt;
      }
    plan.params.insert(plan.params.end(), mult.begin(), mult.end());
    plan.params.insert(plan.params.end(), shift.begin(), shift.end());
  }
  plan.bindings = {arg, KernelDispatchPlan::kResult};
  plan.workgroupCount = kabi::suggestedOpWorkgroups(count / 16);
  return plan;
}

std::optional<KernelDispatchPlan> planInt8TableDispatch(func::FuncOp fn,
                                                        std::string &why) {
  Block &body = fn.front();
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret || ret.getNumOperands() != 1)
    return std::nullopt;
  if (auto table = ret.getOperand(0).getDefiningOp<top::Table16Op>())
    return planTable16Dispatch(fn, table, why);
  auto last = ret.getOperand(0).getDefiningOp<top::QuantOp>();
  if (!last)
    return std::nullopt;
  SmallVector<Operation *> chain = int8TableChain(last);
  if (chain.empty() ||
      std::distance(body.begin(), body.end()) !=
          static_cast<std::ptrdiff_t>(chain.size()) + 1)
    return std::nullopt;
  auto deq = cast<top::DequantOp>(chain.front());
  int arg = argumentOf(fn, deq.getInput());
  if (arg < 0) {
    why = "the int8 table's input is not an argument of the dispatch";
    return std::nullopt;
  }
  auto inType = cast<RankedTensorType>(deq.getInput().getType());
  auto outType = cast<RankedTensorType>(last.getOutput().getType());
  if (inType.getShape() != outType.getShape()) {
    why = "the int8 table's ops change the shape";
    return std::nullopt;
  }
  KernelDispatchPlan plan;
  plan.implementation = "int8_table_chain";
  plan.params.push_back(outType.getNumElements());
  FailureOr<Tensor> table = failure();
  if (isPerChannelI8(deq.getInput())) {
    // One table per channel (dim 1), channel c's plane through table c.
    int64_t channels = inType.getDimSize(1);
    int64_t inner = 1;
    for (int64_t d = 2; d < inType.getRank(); ++d)
      inner *= inType.getDimSize(d);
    table = tabulateChainPerChannel(chain, channels, 256);
    plan.kernel = kabi::kTableChannelsI8;
    plan.params.insert(plan.params.end(), {channels, inner});
  } else {
    table = tabulateChain(chain, 256);
    plan.kernel = kabi::kTableI8;
  }
  if (failed(table)) {
    why = "the int8 table's float ops could not be tabulated";
    return std::nullopt;
  }
  for (int64_t word = 0; word < table->numElements() / 8; ++word) {
    int64_t packed;
    std::memcpy(&packed, table->data<int8_t>() + 8 * word, sizeof(packed));
    plan.params.push_back(packed);
  }
  plan.bindings = {arg, KernelDispatchPlan::kResult};
  plan.inPlaceOperand = arg;
  plan.workgroupCount = kabi::suggestedOpWorkgroups(plan.params[0] / 16);
  return plan;
}

std::optional<KernelDispatchPlan>
planInt8KernelDispatch(func::FuncOp fn, Operation *op, KernelDispatchPlan plan,
                       std::string &why) {
  std::optional<OpForm> form = opForm(op, why);
  if (!form)
    return std::nullopt;
  // The Requant fused into this dispatch, if any.
  top::RequantOp rq;
  for (Operation *user : op->getResult(0).getUsers())
    if (auto r = dyn_cast<top::RequantOp>(user);
        r && r->getBlock() == &fn.front())
      rq = r;
  std::optional<RequantForm> requant;
  if (rq) {
    requant = requantForm(rq, op, why);
    if (!requant)
      return std::nullopt;
  }
  int input = argumentOf(fn, op->getOperand(0));
  int weight = argumentOf(fn, op->getOperand(1));
  if (input < 0 || weight < 0) {
    why = "its input and weight are not arguments of the dispatch";
    return std::nullopt;
  }
  // The weight must be a constant at the call site: it is packed.
  if (!constantAtCallSites(fn, weight)) {
    why = "its int8 weight is not a constant (the int8 kernels read it "
          "packed at compile time)";
    return std::nullopt;
  }
  int bias = KernelDispatchPlan::kNoBias;
  if (!isa<NoneType>(op->getOperand(2).getType())) {
    bias = argumentOf(fn, op->getOperand(2));
    if (bias < 0) {
      why = "its bias is not an argument of the dispatch";
      return std::nullopt;
    }
  }

  if (plan.kernel == kabi::kMatmulGemmI8) {
    if (plan.params.size() != size_t(kabi::kMatmulStrategyParams) ||
        plan.params[0] != 1) {
      why = "the int8 matmul takes the strategy's 5 params with B = 1";
      return std::nullopt;
    }
    auto a = cast<RankedTensorType>(op->getOperand(0).getType());
    auto b = cast<RankedTensorType>(op->getOperand(1).getType());
    if (a.getRank() < 2 || b.getRank() != 2) {
      why = "its input has rank 1 or its weight is not rank 2";
      return std::nullopt;
    }
    plan.params.insert(plan.params.end(), {0, 0}); // a_batched, b_batched
    plan.int8WeightKind = int(kn::Int8WeightKind::MatmulB);
  } else {
    bool is1x1 = plan.kernel == kabi::kConv1x1I8;
    size_t want = size_t(is1x1 ? kabi::kConv1x1StrategyParams
                               : kabi::kConvStrategyParams);
    if (!strategyParamsAre(plan, want, why))
      return std::nullopt;
    kn::Conv2dShape s =
        kabi::convShapeFromParams(plan.kernel, plan.params.data());
    std::string bad = kn::checkConv2dShape(s);
    if (!bad.empty()) {
      why = bad;
      return std::nullopt;
    }
    bool depthwise = plan.kernel == kabi::kConvDepthwiseI8;
    if (depthwise && s.c != s.g) {
      why = "G is not C (depthwise)";
      return std::nullopt;
    }
    plan.int8WeightKind = int(depthwise ? kn::Int8WeightKind::Depthwise
                                        : kn::Int8WeightKind::ConvFilter);
  }
  plan.packedFlagParam = int64_t(plan.params.size());
  plan.params.push_back(0); // weight_packed, set when packed (always)
  plan.pack = KernelDispatchPlan::Pack::Int8;
  int64_t outKind = 0, zp = 0, qmin = 0, qmax = 0, rounding = 0;
  if (requant) {
    rounding = int64_t(requant->rounding);
    outKind = requant->outKind;
    zp = requant->zp;
    qmin = requant->qmin;
    qmax = requant->qmax;
    plan.requantMultiplier = requant->multiplier;
    plan.requantShift = requant->shift;
  }
  plan.params.insert(plan.params.end(),
                     {bias >= 0, form->isUnsigned, form->inZp, form->relu,
                      outKind, zp, qmin, qmax, rounding});
  plan.bindings = {input, weight, bias, KernelDispatchPlan::kResult};
  plan.workgroupCount = kabi::suggestedWorkgroups(
      plan.kernel, plan.params.data(), int64_t(plan.params.size()));
  return plan;
}

std::optional<KernelDispatchPlan>
planInt8MaxPoolDispatch(func::FuncOp fn, Operation *op, KernelDispatchPlan plan,
                        std::string &why) {
  auto pool = dyn_cast<top::MaxPoolOp>(op);
  if (!pool || pool.getDoRelu()) {
    why = "the int8 max pool takes a MaxPool without relu";
    return std::nullopt;
  }
  std::optional<ByteType> in = byteType(pool.getInput());
  std::optional<ByteType> out = byteType(pool.getOutput());
  bool wantUnsigned = plan.kernel == kabi::kMaxPoolU8;
  if (!in || !out || in->isUnsigned != wantUnsigned ||
      getElementTypeOrSelf(pool.getInput().getType()) !=
          getElementTypeOrSelf(pool.getOutput().getType())) {
    why = "its input and result are not 8-bit values of one quantization "
          "(the kernel's result is the max of the input bytes)";
    return std::nullopt;
  }
  int arg = argumentOf(fn, pool.getInput());
  if (arg < 0) {
    why = "its input is not an argument of the dispatch";
    return std::nullopt;
  }
  if (plan.params.size() != 16) {
    why = "the int8 max pool takes the strategy's 16 geometry params";
    return std::nullopt;
  }
  kn::Pool2dShape s = kabi::poolShapeFromParams(plan.params.data());
  std::string bad = kn::checkInt8MaxPool2dShape(s);
  if (!bad.empty()) {
    why = bad;
    return std::nullopt;
  }
  plan.params.insert(plan.params.end(), {0, 0}); // no clamp
  plan.bindings = {arg, KernelDispatchPlan::kResult};
  plan.workgroupCount = kabi::suggestedOpWorkgroups(s.n * s.c * s.h * s.w);
  return plan;
}

std::vector<uint8_t> packInt8KernelWeight(const KernelDispatchPlan &plan,
                                          const int8_t *data) {
  const std::vector<int64_t> &p = plan.params;
  auto kind = kn::Int8WeightKind(plan.int8WeightKind);
  kn::Conv2dShape s;
  int64_t k = 0, n = 0;
  bool transposed = false;
  if (kind == kn::Int8WeightKind::MatmulB) {
    n = p[2];
    k = p[3];
    transposed = p[4] != 0;
  } else {
    s = kabi::convShapeFromParams(plan.kernel, p.data());
  }
  kn::Int8PackedLayout l = kn::int8PackedLayout(kind, s, k, n);
  std::vector<uint8_t> out(l.totalBytes);
  bool requant = !plan.requantMultiplier.empty();
  kn::int8PackWeight(kind, s, k, n, transposed, data,
                     requant ? plan.requantMultiplier.data() : nullptr,
                     requant ? plan.requantShift.data() : nullptr,
                     int64_t(plan.requantMultiplier.size()), out.data(),
                     packedWeightFlag(plan) == 2);
  return out;
}

} // namespace strata::cpu
