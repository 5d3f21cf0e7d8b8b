//===- NpuHWConvert.cpp - npuhw ops <-> the NPU program struct ------------===//
//
// The one mapping between the dialect and include/strata/NpuSim/NpuProgram.h:
// the verifier, the serializer (ops -> bytes) and the disassembler (bytes ->
// ops) all go through it, so a round trip is the identity.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/NpuHW/IR/NpuHW.h"

#include "strata/Npu/NpuConfigJson.h"

#include "llvm/Support/JSON.h"

#include <cmath>

using namespace mlir;
using namespace strata;
using namespace strata::npuhw;

//===----------------------------------------------------------------------===//
// The configuration: a dictionary with the JSON schema's keys
//===----------------------------------------------------------------------===//

namespace {
std::optional<llvm::json::Value> toJson(Attribute a) {
  if (auto i = dyn_cast<IntegerAttr>(a))
    return llvm::json::Value(i.getInt());
  if (auto f = dyn_cast<FloatAttr>(a))
    return llvm::json::Value(f.getValueAsDouble());
  if (auto s = dyn_cast<StringAttr>(a))
    return llvm::json::Value(s.str());
  if (auto arr = dyn_cast<ArrayAttr>(a)) {
    llvm::json::Array out;
    for (Attribute e : arr) {
      std::optional<llvm::json::Value> v = toJson(e);
      if (!v)
        return std::nullopt;
      out.push_back(std::move(*v));
    }
    return llvm::json::Value(std::move(out));
  }
  if (auto d = dyn_cast<DictionaryAttr>(a)) {
    llvm::json::Object out;
    for (NamedAttribute n : d) {
      std::optional<llvm::json::Value> v = toJson(n.getValue());
      if (!v)
        return std::nullopt;
      out[n.getName().str()] = std::move(*v);
    }
    return llvm::json::Value(std::move(out));
  }
  return std::nullopt;
}

Attribute fromJson(MLIRContext *ctx, const llvm::json::Value &v) {
  Builder b(ctx);
  if (std::optional<int64_t> i = v.getAsInteger())
    return b.getI64IntegerAttr(*i);
  if (std::optional<double> d = v.getAsNumber())
    return b.getF64FloatAttr(*d);
  if (std::optional<llvm::StringRef> s = v.getAsString())
    return b.getStringAttr(*s);
  if (const llvm::json::Array *arr = v.getAsArray()) {
    SmallVector<Attribute> out;
    for (const llvm::json::Value &e : *arr)
      out.push_back(fromJson(ctx, e));
    return b.getArrayAttr(out);
  }
  SmallVector<NamedAttribute> out;
  if (const llvm::json::Object *obj = v.getAsObject())
    for (const auto &kv : *obj)
      out.push_back(b.getNamedAttr(kv.first.str(), fromJson(ctx, kv.second)));
  return b.getDictionaryAttr(out);
}
} // namespace

llvm::Expected<npu::NpuConfig> npuhw::configFromAttr(DictionaryAttr attr) {
  std::optional<llvm::json::Value> json = toJson(attr);
  if (!json)
    return llvm::createStringError(
        "config: a value is neither an integer, a float, a string, an array "
        "nor a dictionary");
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *json;
  return npu::parseNpuConfigJson(text, "config");
}

DictionaryAttr npuhw::configToAttr(MLIRContext *ctx,
                                   const npu::NpuConfig &config) {
  llvm::Expected<llvm::json::Value> v =
      llvm::json::parse(npu::printNpuConfigJson(config));
  if (!v) {
    llvm::consumeError(v.takeError());
    return DictionaryAttr::get(ctx);
  }
  return cast<DictionaryAttr>(fromJson(ctx, *v));
}

//===----------------------------------------------------------------------===//
// Ops -> tasks
//===----------------------------------------------------------------------===//

namespace {
std::optional<std::string> operandOf(OperandAttr a, const char *field,
                                     npusim::Operand &out) {
  if (!a)
    return std::nullopt;
  if (a.getAddress() < 0)
    return std::string("field '") + field + "' has address " +
           std::to_string(a.getAddress()) + ", expected >= 0";
  if (a.getDims().empty())
    return std::string("field '") + field + "' has no dims";
  out.address = static_cast<uint64_t>(a.getAddress());
  out.dims.assign(a.getDims().begin(), a.getDims().end());
  out.strides.assign(a.getStrides().begin(), a.getStrides().end());
  return std::nullopt;
}

std::vector<int64_t> vec(ArrayRef<int64_t> a) { return {a.begin(), a.end()}; }

template <typename DmaOp>
std::optional<std::string> dmaOf(DmaOp op, npusim::Task &task) {
  npusim::Dma &d = task.dma;
  if (op.getDramOffset() < 0 || op.getLramAddress() < 0)
    return std::string("field '") +
           (op.getDramOffset() < 0 ? "dram_offset" : "lram_address") +
           "' is negative";
  if (op.getElementBytes() < 0 || op.getElementBytes() > 255)
    return "field 'element_bytes' is " + std::to_string(op.getElementBytes()) +
           ", expected 1, 2, 4 or 8";
  d.binding = op.getBinding();
  d.dramOffset = static_cast<uint64_t>(op.getDramOffset());
  d.lramAddress = static_cast<uint64_t>(op.getLramAddress());
  d.elementBytes = static_cast<uint8_t>(op.getElementBytes());
  d.counts = vec(op.getCounts());
  d.dramStrides = vec(op.getDramStrides());
  d.lramStrides = vec(op.getLramStrides());
  if (op.getName())
    task.name = op.getName()->str();
  return std::nullopt;
}

std::optional<std::string> sliceOf(SliceTaskOp op, npusim::Task &task) {
  npusim::SliceTask &s = task.slice;
  std::optional<npusim::KernelKind> k =
      npusim::parseKernel(op.getKernel().str());
  if (!k)
    return "field 'kernel' is '" + op.getKernel().str() +
           "', not a kernel (docs/npu-sim.md lists them)";
  std::optional<npusim::Format> f = npusim::parseFormat(op.getFormat().str());
  std::optional<npusim::Format> of =
      npusim::parseFormat(op.getOutputFormat().str());
  if (!f || !of)
    return std::string("field '") + (!f ? "format" : "output_format") +
           "' is '" + (!f ? op.getFormat() : op.getOutputFormat()).str() +
           "', expected int8, int16, bf16 or int32";
  std::optional<npusim::Rounding> r =
      npusim::parseRounding(op.getRounding().str());
  if (!r)
    return "field 'rounding' is '" + op.getRounding().str() +
           "', expected multiplier_shift or tflite";
  s.kernel = *k;
  s.format = *f;
  s.outputFormat = *of;
  s.rounding = *r;
  s.slice = op.getSlice();
  s.vectorMode = op.getVectorMode();
  struct {
    OperandAttr attr;
    const char *field;
    npusim::Operand *out;
  } operands[] = {{op.getInputAttr(), "input", &s.input},
                  {op.getInput2Attr(), "input2", &s.input2},
                  {op.getWeightsAttr(), "weights", &s.weights},
                  {op.getScaleBiasAttr(), "scale_bias", &s.scaleBias},
                  {op.getPartialAttr(), "partial", &s.partial},
                  {op.getLutAttr(), "lut", &s.lut},
                  {op.getOutputAttr(), "output", &s.output}};
  for (auto &o : operands)
    if (std::optional<std::string> err = operandOf(o.attr, o.field, *o.out))
      return err;
  s.stride = vec(op.getStride());
  s.dilation = vec(op.getDilation());
  s.pad = vec(op.getPad());
  s.kernelSize = vec(op.getKernelSize());
  s.groups = op.getGroups();
  s.inputZp = op.getInputZp();
  s.input2Zp = op.getInput2Zp();
  s.weightZp = op.getWeightZp();
  s.outputZp = op.getOutputZp();
  s.clipMin = op.getClipMin();
  s.clipMax = op.getClipMax();
  s.multiplier = op.getMultiplier();
  s.shift = op.getShift();
  s.inputMultiplier = op.getInputMultiplier();
  s.inputShift = op.getInputShift();
  s.input2Multiplier = op.getInput2Multiplier();
  s.input2Shift = op.getInput2Shift();
  s.leftShift = op.getLeftShift();
  s.floatScale = op.getFloatScale().convertToFloat();
  if (op.getClipMinF())
    s.clipMinF = op.getClipMinF()->convertToFloat();
  if (op.getClipMaxF())
    s.clipMaxF = op.getClipMaxF()->convertToFloat();
  s.perm = vec(op.getPerm());
  s.reduceAxes = op.getReduceAxes();
  s.block = op.getBlock();
  s.crd = op.getCrd();
  s.halfPixel = op.getHalfPixel();
  s.countIncludePad = op.getCountIncludePad();
  s.scale = op.getScale().convertToDouble();
  if (op.getName())
    task.name = op.getName()->str();
  return std::nullopt;
}
} // namespace

std::optional<std::string> npuhw::toNpuTask(Operation *op, npusim::Task &task) {
  task = npusim::Task();
  if (auto d = dyn_cast<DmaLoadOp>(op)) {
    task.kind = npusim::TaskKind::DmaLoad;
    return dmaOf(d, task);
  }
  if (auto d = dyn_cast<DmaStoreOp>(op)) {
    task.kind = npusim::TaskKind::DmaStore;
    return dmaOf(d, task);
  }
  if (auto s = dyn_cast<SliceTaskOp>(op)) {
    task.kind = npusim::TaskKind::Slice;
    return sliceOf(s, task);
  }
  if (isa<WaitOp>(op)) {
    task.kind = npusim::TaskKind::Wait;
    return std::nullopt;
  }
  return "'" + op->getName().getStringRef().str() +
         "' is not an NPU task (dma_load, dma_store, slice_task, wait)";
}

LogicalResult npuhw::toNpuProgram(ProgramOp program, npusim::Program &out) {
  if (failed(mlir::verify(program)))
    return failure();
  out = npusim::Program();
  out.name = program.getSymName().str();
  llvm::Expected<npu::NpuConfig> config = configFromAttr(program.getConfig());
  if (!config)
    return program.emitOpError() << llvm::toString(config.takeError());
  out.config = *config;
  for (Attribute a : program.getBindings()) {
    auto b = cast<BindingAttr>(a);
    out.bindings.push_back({b.getName().str(),
                            static_cast<uint64_t>(b.getSize()),
                            b.getWritable()});
  }
  for (Operation &seg : program.getBody().front()) {
    npusim::Segment &segment = out.segments.emplace_back();
    for (Operation &op : cast<SegmentOp>(seg).getBody().front()) {
      npusim::Task &task = segment.tasks.emplace_back();
      if (std::optional<std::string> err = toNpuTask(&op, task))
        return op.emitOpError() << *err;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Tasks -> ops
//===----------------------------------------------------------------------===//

namespace {
OperandAttr operandAttr(MLIRContext *ctx, const npusim::Operand &o) {
  if (!o.present())
    return nullptr;
  return OperandAttr::get(ctx, static_cast<int64_t>(o.address), o.dims,
                          o.strides);
}

template <typename DmaOp>
void buildDma(OpBuilder &b, Location loc, const npusim::Task &t) {
  const npusim::Dma &d = t.dma;
  auto op =
      DmaOp::create(b, loc, d.binding, static_cast<int64_t>(d.dramOffset),
                    static_cast<int64_t>(d.lramAddress), d.elementBytes,
                    d.counts, d.dramStrides, d.lramStrides,
                    t.name.empty() ? StringAttr() : b.getStringAttr(t.name));
  (void)op;
}

void buildSlice(OpBuilder &b, Location loc, const npusim::Task &t) {
  const npusim::SliceTask &s = t.slice;
  MLIRContext *ctx = b.getContext();
  OperationState state(loc, SliceTaskOp::getOperationName());
  state.addAttribute("kernel", b.getStringAttr(npusim::kernelName(s.kernel)));
  Operation *op = b.create(state);
  auto set = [&](StringRef name, Attribute a) {
    if (a)
      op->setAttr(name, a);
  };
  auto i64 = [&](StringRef name, int64_t v, int64_t dflt) {
    if (v != dflt)
      op->setAttr(name, b.getI64IntegerAttr(v));
  };
  auto i32 = [&](StringRef name, int64_t v) {
    if (v != 0)
      op->setAttr(name, b.getI32IntegerAttr(static_cast<int32_t>(v)));
  };
  auto arr = [&](StringRef name, const std::vector<int64_t> &v,
                 std::vector<int64_t> dflt) {
    if (v != dflt)
      op->setAttr(name, b.getDenseI64ArrayAttr(v));
  };
  auto str = [&](StringRef name, const char *v, const char *dflt) {
    if (StringRef(v) != dflt)
      op->setAttr(name, b.getStringAttr(v));
  };
  auto flag = [&](StringRef name, bool v) {
    if (v)
      op->setAttr(name, b.getBoolAttr(true));
  };
  i32("slice", s.slice);
  str("format", npusim::formatName(s.format), "int8");
  str("output_format", npusim::formatName(s.outputFormat), "int8");
  i32("vector_mode", s.vectorMode);
  set("input", operandAttr(ctx, s.input));
  set("input2", operandAttr(ctx, s.input2));
  set("weights", operandAttr(ctx, s.weights));
  set("scale_bias", operandAttr(ctx, s.scaleBias));
  set("partial", operandAttr(ctx, s.partial));
  set("lut", operandAttr(ctx, s.lut));
  set("output", operandAttr(ctx, s.output));
  arr("stride", s.stride, {1, 1});
  arr("dilation", s.dilation, {1, 1});
  arr("pad", s.pad, {0, 0, 0, 0});
  arr("kernel_size", s.kernelSize, {1, 1});
  i64("groups", s.groups, 1);
  i64("input_zp", s.inputZp, 0);
  i64("input2_zp", s.input2Zp, 0);
  i64("weight_zp", s.weightZp, 0);
  i64("output_zp", s.outputZp, 0);
  i64("clip_min", s.clipMin, -128);
  i64("clip_max", s.clipMax, 127);
  str("rounding", npusim::roundingName(s.rounding), "multiplier_shift");
  i64("multiplier", s.multiplier, 0);
  i64("shift", s.shift, 0);
  i64("input_multiplier", s.inputMultiplier, 0);
  i64("input_shift", s.inputShift, 0);
  i64("input2_multiplier", s.input2Multiplier, 0);
  i64("input2_shift", s.input2Shift, 0);
  i64("left_shift", s.leftShift, 0);
  if (s.floatScale != 1.0f || std::signbit(s.floatScale))
    op->setAttr("float_scale", b.getF32FloatAttr(s.floatScale));
  if (!(std::isinf(s.clipMinF) && s.clipMinF < 0))
    op->setAttr("clip_min_f", b.getF32FloatAttr(s.clipMinF));
  if (!(std::isinf(s.clipMaxF) && s.clipMaxF > 0))
    op->setAttr("clip_max_f", b.getF32FloatAttr(s.clipMaxF));
  arr("perm", s.perm, {});
  i32("reduce_axes", s.reduceAxes);
  i64("block", s.block, 1);
  flag("crd", s.crd);
  flag("half_pixel", s.halfPixel);
  flag("count_include_pad", s.countIncludePad);
  if (s.scale != 0.0 || std::signbit(s.scale))
    op->setAttr("scale", b.getF64FloatAttr(s.scale));
  if (!t.name.empty())
    op->setAttr("name", b.getStringAttr(t.name));
}
} // namespace

ProgramOp npuhw::buildProgram(OpBuilder &b, Location loc,
                              const npusim::Program &program) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Attribute> bindings;
  for (const npusim::Binding &bd : program.bindings)
    bindings.push_back(BindingAttr::get(
        ctx, bd.name, static_cast<int64_t>(bd.size), bd.writable));
  auto prog = ProgramOp::create(
      b, loc, b.getStringAttr(program.name.empty() ? "program" : program.name),
      configToAttr(ctx, program.config), b.getArrayAttr(bindings));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&prog.getBody().emplaceBlock());
  for (const npusim::Segment &seg : program.segments) {
    auto segment = SegmentOp::create(b, loc);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&segment.getBody().emplaceBlock());
    for (const npusim::Task &t : seg.tasks) {
      switch (t.kind) {
      case npusim::TaskKind::DmaLoad:
        buildDma<DmaLoadOp>(b, loc, t);
        break;
      case npusim::TaskKind::DmaStore:
        buildDma<DmaStoreOp>(b, loc, t);
        break;
      case npusim::TaskKind::Slice:
        buildSlice(b, loc, t);
        break;
      case npusim::TaskKind::Wait:
        WaitOp::create(b, loc);
        break;
      }
    }
  }
  return prog;
}
