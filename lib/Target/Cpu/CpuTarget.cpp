//===- CpuTarget.cpp - compile Top models into a CPU artifact -------------===//
//
// One variant:
//   1. top-select-strategy (target cpu) records each op's implementation;
//   2. strata-cpu-outline-dispatches turns the entry function into a list of
//      calls, one dispatch function per op;
//   3. the dispatch functions move to their own module, which
//      strata-cpu-lower-dispatches lowers to the LLVM dialect and CodeGen
//      turns into a shared object;
//   4. the entry function becomes the variant's buffers (inputs, outputs,
//      constants, arena tensors placed by the memory plan, views sharing
//      their operand's bytes) and dispatch list.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/CpuTarget.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Passes.h"
#include "strata/Interfaces/HostTypes.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Kernels/Gemm.h"
#include "strata/Strategy/Implementation.h"
#include "strata/StrategyMLIR/Passes.h"
#include "strata/Target/Cpu/KernelDispatch.h"
#include "strata/Target/Cpu/Passes.h"
#include "strata/Target/Cpu/RuntimeShapes.h"
#include "strata/Target/MemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace strata::cpu {

using namespace mlir;
namespace af = strata::artifact;

/// The artifact's element type for a tensor's element type.
static std::optional<af::DType> artifactDType(Type elem) {
  std::optional<DType> d = dtypeOf(elem);
  if (!d)
    return std::nullopt;
  switch (*d) {
  case DType::Bool:
    return af::DType::Bool;
  case DType::I8:
    return af::DType::I8;
  case DType::I16:
    return af::DType::I16;
  case DType::I32:
    return af::DType::I32;
  case DType::I64:
    return af::DType::I64;
  case DType::U8:
    return af::DType::U8;
  case DType::U16:
    return af::DType::U16;
  case DType::U32:
    return af::DType::U32;
  case DType::U64:
    return af::DType::U64;
  case DType::F16:
    return af::DType::F16;
  case DType::BF16:
    return af::DType::BF16;
  case DType::F32:
    return af::DType::F32;
  case DType::F64:
    return af::DType::F64;
  // The narrow types: one byte per element, as the code generator computes
  // them (convert-top-to-linalg) and the interpreter stores them.
  case DType::I4:
    return af::DType::I4;
  case DType::U4:
    return af::DType::U4;
  case DType::I2:
    return af::DType::I2;
  case DType::U2:
    return af::DType::U2;
  case DType::F8E4M3FN:
    return af::DType::F8E4M3FN;
  case DType::F8E4M3FNUZ:
    return af::DType::F8E4M3FNUZ;
  case DType::F8E5M2:
    return af::DType::F8E5M2;
  case DType::F8E5M2FNUZ:
    return af::DType::F8E5M2FNUZ;
  case DType::F4E2M1FN:
    return af::DType::F4E2M1FN;
  case DType::F8E8M0FNU:
    return af::DType::F8E8M0FNU;
  }
  return std::nullopt;
}

/// Value bits of a 4- or 2-bit dtype stored one per byte; 0 for the others.
static unsigned subByteBits(DType d) {
  switch (d) {
  case DType::I4:
  case DType::U4:
  case DType::F4E2M1FN:
    return 4;
  case DType::I2:
  case DType::U2:
    return 2;
  default:
    return 0;
  }
}

static uint64_t dtypeBytes(af::DType d) {
  switch (d) {
  case af::DType::F64:
  case af::DType::I64:
  case af::DType::U64:
    return 8;
  case af::DType::F32:
  case af::DType::I32:
  case af::DType::U32:
    return 4;
  case af::DType::F16:
  case af::DType::BF16:
  case af::DType::I16:
  case af::DType::U16:
    return 2;
  default:
    return 1;
  }
}

namespace {

/// A tensor of the entry function as the artifact sees it.
struct TensorInfo {
  af::DType dtype;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};

/// Where a value's bytes live.
struct Placement {
  af::BufferKind kind = af::BufferKind::Arena;
  uint32_t index = 0;  ///< input/output number
  uint64_t offset = 0; ///< constant offset (arena: added to the plan's)
  int root = -1;       ///< arena tensors: the planned tensor
};

} // namespace

/// `v`'s dtype, shape and bytes; `bound` replaces the shape of a value whose
/// shape is decided at run time (its static upper bound).
static FailureOr<TensorInfo>
tensorInfo(Value v, std::string &error,
           std::optional<ArrayRef<int64_t>> bound = std::nullopt) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (t && bound)
    t = RankedTensorType::get(*bound, t.getElementType());
  std::string where;
  llvm::raw_string_ostream os(where);
  if (Operation *def = v.getDefiningOp())
    os << "'" << def->getName() << "' at " << def->getLoc();
  else
    os << "an argument of the entry function";
  if (!t || !t.hasStaticShape()) {
    error = "a value of " + where + " has type " +
            (t ? "with a dynamic shape"
               : std::string("that is not a "
                             "ranked tensor"));
    return failure();
  }
  std::optional<af::DType> d = artifactDType(t.getElementType());
  if (!d) {
    std::string ty;
    llvm::raw_string_ostream tos(ty);
    tos << t.getElementType();
    error = "a value of " + where + " has element type " + ty +
            ", which the CPU target does not support yet";
    return failure();
  }
  TensorInfo info{*d, std::vector<int64_t>(t.getShape()), dtypeBytes(*d)};
  for (int64_t dim : t.getShape())
    if (__builtin_mul_overflow(info.bytes, static_cast<uint64_t>(dim),
                               &info.bytes)) {
      error = "a value of " + where + " has a byte size over 2^64";
      return failure();
    }
  return info;
}

CpuArtifactBuilder::CpuArtifactBuilder(std::string modelName)
    : writer(std::move(modelName)) {}

/// Checks that a variant's signature matches the first one's and widens
/// differing dims to -1.
static bool mergeSignature(std::vector<af::TensorSpec> &sig,
                           const std::vector<af::TensorSpec> &next,
                           const char *side, std::string &error) {
  if (sig.size() != next.size()) {
    error = std::string("variants differ in their number of ") + side + "s";
    return false;
  }
  for (size_t i = 0; i < sig.size(); ++i) {
    if (sig[i].name != next[i].name || sig[i].dtype != next[i].dtype ||
        sig[i].shape.size() != next[i].shape.size()) {
      error = std::string("variants differ in ") + side + " " +
              std::to_string(i) + " ('" + sig[i].name + "' vs '" +
              next[i].name + "'): name, element type and rank must agree";
      return false;
    }
    for (size_t d = 0; d < sig[i].shape.size(); ++d)
      if (sig[i].shape[d] != next[i].shape[d])
        sig[i].shape[d] = -1;
  }
  return true;
}

/// The Kernel dispatch of `plan`: its bindings, params and workgroups; a
/// constant weight packed into a new 64-byte-aligned constant.
FailureOr<af::DispatchSpec> CpuArtifactBuilder::kernelDispatchSpec(
    const KernelDispatchPlan &plan, ArrayRef<Value> operands, Value result,
    llvm::function_ref<FailureOr<uint32_t>(Value)> bufferFor,
    af::VariantSpec &variant, const TensorMap &weights, VariantReport &report,
    std::string &error) {
  af::DispatchSpec spec;
  spec.kind = af::DispatchKind::Kernel;
  spec.symbol = plan.kernel;
  spec.params = plan.params;
  spec.workgroupCount = plan.workgroupCount;
  bool packed = false;
  for (auto [i, b] : llvm::enumerate(plan.bindings)) {
    Value v = b >= 0 ? operands[b] : result;
    auto w = v.getDefiningOp<top::WeightOp>();
    int binding = int(i);
    auto gemmA = llvm::find_if(
        plan.gemmAPacks, [&](const auto &g) { return g.binding == binding; });
    if (gemmA != plan.gemmAPacks.end()) {
      // A constant filter packed as a GEMM A operand.
      if (!w) {
        error = "kernel " + plan.kernel + " needs a constant at binding " +
                std::to_string(i);
        return failure();
      }
      std::string name = w.getName().str();
      std::vector<int64_t> shape = {gemmA->rows, gemmA->cols};
      auto key = std::make_tuple(name, -1, shape);
      auto it = packedOffsets.find(key);
      if (it == packedOffsets.end()) {
        std::optional<Tensor> value = top::weightValue(w);
        const Tensor *t = value ? &*value : weights.find(name);
        if (!t || t->dtype() != DType::F32 ||
            t->byteSize() != uint64_t(gemmA->rows * gemmA->cols * 4)) {
          error = "weight '" + name + "' has no f32 data of " +
                  std::to_string(gemmA->rows) + " x " +
                  std::to_string(gemmA->cols) + " to pack";
          return failure();
        }
        std::vector<float> data(
            kernels::packedABytes(gemmA->rows, gemmA->cols) / sizeof(float));
        kernels::packA(t->data<float>(), gemmA->cols, false, gemmA->rows,
                       gemmA->cols, data.data());
        uint64_t bytes = data.size() * sizeof(float);
        uint64_t off = writer.addData(data.data(), bytes);
        constantTotal += bytes;
        report.packedWeightBytes += bytes;
        it = packedOffsets.emplace(key, std::make_pair(off, bytes)).first;
      }
      auto [off, bytes] = it->second;
      spec.bindings.push_back(variant.buffers.size());
      variant.buffers.push_back({af::BufferKind::Constant,
                                 0,
                                 off,
                                 bytes,
                                 af::DType::F32,
                                 {int64_t(bytes / sizeof(float))}});
      packed = true;
      continue;
    }
    if (i == 1 && w && plan.pack != KernelDispatchPlan::Pack::None) {
      std::string name = w.getName().str();
      auto key = std::make_tuple(name, int(plan.pack), packedWeightKey(plan));
      auto it = packedOffsets.find(key);
      if (it == packedOffsets.end()) {
        std::optional<Tensor> value = top::weightValue(w);
        const Tensor *t = value ? &*value : weights.find(name);
        bool int8 = plan.pack == KernelDispatchPlan::Pack::Int8;
        bool bf16 = plan.pack == KernelDispatchPlan::Pack::Bf16MatmulB ||
                    plan.pack == KernelDispatchPlan::Pack::Bf16ConvFilter;
        DType want = int8 ? DType::I8 : bf16 ? DType::BF16 : DType::F32;
        if (!t || t->dtype() != want) {
          error = "weight '" + name + "' has no " +
                  (int8   ? "int8"
                   : bf16 ? "bf16"
                          : "f32") +
                  " data to pack";
          return failure();
        }
        std::vector<float> data;
        std::vector<uint8_t> bytesInt8;
        std::vector<uint16_t> halves;
        if (int8)
          bytesInt8 = packInt8KernelWeight(plan, t->data<int8_t>());
        else if (bf16)
          halves = packBf16KernelWeight(plan, t->data<uint16_t>());
        else
          data = packKernelWeight(plan, t->data<float>());
        uint64_t bytes = int8   ? bytesInt8.size()
                         : bf16 ? halves.size() * 2
                                : data.size() * sizeof(float);
        const void *src = int8   ? static_cast<const void *>(bytesInt8.data())
                          : bf16 ? static_cast<const void *>(halves.data())
                                 : static_cast<const void *>(data.data());
        uint64_t off = writer.addData(src, bytes);
        constantTotal += bytes;
        report.packedWeightBytes += bytes;
        it = packedOffsets.emplace(key, std::make_pair(off, bytes)).first;
      }
      auto [off, bytes] = it->second;
      spec.bindings.push_back(variant.buffers.size());
      bool bytesBlob = plan.pack == KernelDispatchPlan::Pack::Int8 ||
                       plan.pack == KernelDispatchPlan::Pack::Bf16MatmulB ||
                       plan.pack == KernelDispatchPlan::Pack::Bf16ConvFilter;
      variant.buffers.push_back(
          {af::BufferKind::Constant,
           0,
           off,
           bytes,
           bytesBlob ? af::DType::U8 : af::DType::F32,
           {int64_t(bytesBlob ? bytes : bytes / sizeof(float))}});
      spec.params[plan.packedFlagParam] = packedWeightFlag(plan);
      packed = true;
      continue;
    }
    FailureOr<uint32_t> id = bufferFor(v);
    if (failed(id))
      return failure();
    spec.bindings.push_back(*id);
  }
  report.kernelDispatchNotes.push_back(
      plan.implementation + ": kernel " + plan.kernel + ", " +
      std::to_string(plan.workgroupCount) + " workgroup(s)" +
      (plan.residualFused ? ", residual Add fused" : "") +
      (packed ? ", weight packed at compile time" : ""));
  return spec;
}

/// A Loop whose trip count is a constant M and whose condition stays true
/// (absent, or a constant true the body yields back unchanged) runs M times
/// (0 when M <= 0 or the condition is a constant false): its scan outputs
/// get that leading dim. Shape inference sees types only; the weights'
/// values are known here.
static void refineConstantTripLoops(ModuleOp module, const TensorMap &weights) {
  auto constant = [&](Value v) -> std::optional<Tensor> {
    auto w = v.getDefiningOp<top::WeightOp>();
    if (!w)
      return std::nullopt;
    if (std::optional<Tensor> t = top::weightValue(w))
      return t;
    if (const Tensor *t = weights.find(w.getName().str()))
      return *t;
    return std::nullopt;
  };
  module.walk([&](top::LoopOp loop) {
    // The one-element trip count and condition carry their value inline, so
    // the outliner keeps them as constants inside the Loop's dispatch (the
    // Loop lowering needs a compile-time trip count for scan outputs).
    for (Value v : {loop.getMaxTripCount(), loop.getCond()}) {
      auto w = v ? v.getDefiningOp<top::WeightOp>() : top::WeightOp();
      if (!w || top::weightValue(w))
        continue;
      const Tensor *t = weights.find(w.getName().str());
      auto type = dyn_cast<RankedTensorType>(w.getType());
      if (t && type && t->numElements() == 1 && type.hasStaticShape())
        w.setValueAttr(top::elementsFromTensor(*t, type));
    }
    if (top::isNone(loop.getMaxTripCount()))
      return;
    std::optional<Tensor> m = constant(loop.getMaxTripCount());
    if (!m || m->numElements() != 1)
      return;
    int64_t trips = std::max<int64_t>(m->getAsInt(0), 0);
    if (!top::isNone(loop.getCond())) {
      std::optional<Tensor> c = constant(loop.getCond());
      if (!c || c->numElements() != 1)
        return;
      if (c->getAsInt(0) == 0)
        trips = 0;
    }
    Block &body = loop.getBody().front();
    Operation *yield = body.getTerminator();
    if (trips > 0 &&
        (body.getNumArguments() < 2 || yield->getNumOperands() < 1 ||
         yield->getOperand(0) != body.getArgument(1)))
      return;
    size_t numCarried = loop.getInitial().size();
    for (size_t k = numCarried; k < loop->getNumResults(); ++k) {
      auto result = dyn_cast<RankedTensorType>(loop->getResult(k).getType());
      auto slice =
          dyn_cast<RankedTensorType>(yield->getOperand(1 + k).getType());
      if (!result || !slice || !slice.hasStaticShape() ||
          result.getRank() != slice.getRank() + 1)
        continue;
      SmallVector<int64_t> shape{trips};
      shape.append(slice.getShape().begin(), slice.getShape().end());
      loop->getResult(k).setType(
          RankedTensorType::get(shape, result.getElementType()));
    }
  });
}

LogicalResult CpuArtifactBuilder::addVariant(ModuleOp module,
                                             const TensorMap &weights,
                                             const CpuCompileOptions &options,
                                             VariantReport &report,
                                             std::string &error) {
  MLIRContext *ctx = module.getContext();
  prepareContextForCpuLowering(ctx);
  // 1-2: strategy and outlining.
  refineConstantTripLoops(module, weights);
  {
    PassManager pm(ctx);
    // Shapes written as unknown (`tensor<*xf32>`) become static where the
    // inputs' shapes decide them.
    pm.addNestedPass<func::FuncOp>(top::createTopShapeInfer());
    strategy::TopSelectStrategyOptions so;
    so.target = "cpu";
    so.tuningLog = options.tuningLog;
    so.explain = options.explainStrategy;
    pm.addPass(strategy::createTopSelectStrategy(so));
    CpuOutlineDispatchesOptions oo;
    oo.maxRangeElements = options.maxRangeElements;
    oo.maxScanLength = options.maxScanLength;
    pm.addPass(createCpuOutlineDispatches(oo));
    if (failed(pm.run(module))) {
      error = "selecting implementations and outlining dispatches failed";
      return failure();
    }
  }
  func::FuncOp main = *findEntryFunction(module);

  // Dispatches whose results' shapes are decided at run time call a runtime
  // kernel (RuntimeShapes.h); their results are placed by their bounds.
  std::map<std::string, RuntimeShapeKernelPlan> shapePlans;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn->hasAttr(kResultBoundsAttr))
      continue;
    FailureOr<RuntimeShapeKernelPlan> plan = planRuntimeShapeKernel(
        fn,
        [](Type t) -> std::optional<int64_t> {
          if (std::optional<af::DType> d = artifactDType(t))
            return int64_t(*d);
          return std::nullopt;
        },
        error);
    if (failed(plan))
      return failure();
    shapePlans.emplace(fn.getSymName().str(), std::move(*plan));
  }
  // The bound of each call result whose shape is decided at run time, and
  // the dims decided at run time; for a Loop's scan outputs (generated
  // code), the call result holding their dims.
  llvm::DenseMap<Value, std::vector<int64_t>> runtimeBounds;
  llvm::DenseMap<Value, SmallVector<int64_t>> runtimeDimsOf;
  llvm::DenseMap<Value, Value> dimsResultOf, dimsOperandOf;
  main.walk([&](func::CallOp call) {
    auto fn = module.lookupSymbol<func::FuncOp>(call.getCallee());
    auto marks =
        fn ? fn->getAttrOfType<ArrayAttr>(kRuntimeShapeResultsAttr) : nullptr;
    for (Attribute a : marks ? marks.getValue() : ArrayRef<Attribute>()) {
      // (result, where its dims are: -1 the kernel's dims tensor, >= 0 that
      // result, -2 - k the dims of operand k; the dims decided at run time)
      ArrayRef<int64_t> m = cast<DenseI64ArrayAttr>(a).asArrayRef();
      Value r = call.getResult(m[0]);
      runtimeBounds[r] = cast<RankedTensorType>(r.getType()).getShape().vec();
      runtimeDimsOf[r].assign(m.begin() + 2, m.end());
      if (m[1] >= 0)
        dimsResultOf[r] = call.getResult(m[1]);
      else if (m[1] <= -2)
        dimsOperandOf[r] = call.getOperand(-2 - m[1]);
    }
  });
  auto boundOf = [&](Value v) -> std::optional<ArrayRef<int64_t>> {
    auto it = runtimeBounds.find(v);
    if (it == runtimeBounds.end())
      return std::nullopt;
    return ArrayRef<int64_t>(it->second);
  };

  // The signature.
  std::vector<af::TensorSpec> ins, outs;
  af::VariantSpec variant;
  for (unsigned i = 0; i < main.getNumArguments(); ++i) {
    FailureOr<TensorInfo> info = tensorInfo(main.getArgument(i), error);
    if (failed(info))
      return failure();
    ins.push_back({inputName(main, i), info->dtype, info->shape, std::nullopt});
    variant.inputShapes.push_back(info->shape);
  }
  Operation *ret = main.getBody().front().getTerminator();
  for (unsigned i = 0; i < ret->getNumOperands(); ++i) {
    Value v = ret->getOperand(i);
    FailureOr<TensorInfo> info = tensorInfo(v, error, boundOf(v));
    if (failed(info))
      return failure();
    // A dim decided at run time is -1 in the signature and the variant.
    std::vector<int64_t> shape = info->shape;
    for (int64_t d : runtimeDimsOf.lookup(v))
      shape[d] = -1;
    outs.push_back({outputName(main, i), info->dtype, shape, std::nullopt});
    variant.outputShapes.push_back(shape);
  }
  if (!haveSignature) {
    inputs = ins;
    outputs = outs;
    haveSignature = true;
  } else if (!mergeSignature(inputs, ins, "input", error) ||
             !mergeSignature(outputs, outs, "output", error)) {
    return failure();
  }
  report.inputShapes = variant.inputShapes;

  // 3: lower the dispatch functions in their own module. A dispatch whose
  // results are all empty has nothing to compute and is dropped.
  auto isEmptyDispatch = [](func::FuncOp fn) {
    return llvm::all_of(fn.getResultTypes(), [](Type t) {
      auto r = dyn_cast<RankedTensorType>(t);
      return r && r.hasStaticShape() && r.getNumElements() == 0;
    });
  };
  // Dispatches whose op the strategy gave a kernel the runtime has call it
  // instead of generated code.
  std::map<std::string, KernelDispatchPlan> kernelPlans;
  report.residualAddsFused = fuseResidualAdds(module, main);
  report.invertedResidualsFused = fuseInvertedResiduals(module, main);
  for (auto fn : module.getOps<func::FuncOp>()) {
    // A consumer computed over a run-time shape's bound shares its dims
    // through the generated code's marks: no kernel for it.
    if (!fn->hasAttr(kDispatchAttr) || isEmptyDispatch(fn) ||
        shapePlans.count(fn.getSymName().str()) ||
        fn->hasAttr(kRuntimeShapeResultsAttr))
      continue;
    std::string why;
    if (std::optional<KernelDispatchPlan> plan = planKernelDispatch(fn, why))
      kernelPlans.emplace(fn.getSymName().str(), std::move(*plan));
    else if (!why.empty())
      fn.walk([&](Operation *op) {
        if (auto impl = op->getAttrOfType<StringAttr>("strata.impl"))
          report.kernelFallbackReasons.emplace(impl.getValue().str(), why);
      });
  }
  // Dispatches another device runs (options.foreignDispatch).
  std::map<std::string, ForeignDispatch> foreignPlans;
  if (options.foreignDispatch)
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kDispatchAttr) || isEmptyDispatch(fn))
        continue;
      FailureOr<std::optional<ForeignDispatch>> f = options.foreignDispatch(fn);
      if (failed(f)) {
        error = "preparing the dispatch '" + fn.getSymName().str() +
                "' for its device failed";
        return failure();
      }
      if (*f)
        foreignPlans.emplace(fn.getSymName().str(), std::move(**f));
    }
  OwningOpRef<ModuleOp> device = ModuleOp::create(module.getLoc());
  {
    OpBuilder b = OpBuilder::atBlockEnd(device->getBody());
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(kDispatchAttr) && !isEmptyDispatch(fn) &&
          !kernelPlans.count(fn.getSymName().str()) &&
          !shapePlans.count(fn.getSymName().str()) &&
          !foreignPlans.count(fn.getSymName().str()))
        b.clone(*fn);
    PassManager pm(ctx);
    buildCpuDispatchLoweringPipeline(pm);
    if (failed(pm.run(*device))) {
      error = "lowering the dispatches to LLVM failed";
      return failure();
    }
  }
  if (!options.dumpLLVMDialect.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.dumpLLVMDialect, ec);
    if (ec) {
      error = "cannot write '" + options.dumpLLVMDialect + "': " + ec.message();
      return failure();
    }
    device->print(os);
  }
  // Workgroup counts of the dispatches strata-cpu-distribute-workgroups
  // split.
  // and the operands each dispatch may write its result over.
  llvm::StringMap<int64_t> workgroupCounts;
  llvm::StringMap<SmallVector<int64_t>> inPlaceOperands;
  for (auto fn : device->getOps<LLVM::LLVMFuncOp>()) {
    std::string symbol = ("strata_" + fn.getName()).str();
    if (auto count = fn->getAttrOfType<IntegerAttr>(kWorkgroupCountAttr))
      workgroupCounts[symbol] = count.getInt();
    if (auto ops = fn->getAttrOfType<ArrayAttr>(kInPlaceOperandsAttr))
      for (auto i : ops.getAsRange<IntegerAttr>())
        inPlaceOperands[symbol].push_back(i.getInt());
  }
  FailureOr<std::string> so = emitSharedObject(*device, options.codegen, error);
  if (failed(so))
    return failure();
  report.codeBytes = so->size();

  // 4: buffers, memory plan, dispatch list.
  llvm::DenseMap<Value, Placement> place;
  llvm::DenseMap<Value, TensorInfo> infos;
  std::vector<plan::Lifetime> lifetimes;
  std::vector<Value> roots; // per planned tensor
  auto infoOf = [&](Value v) -> FailureOr<TensorInfo> {
    auto it = infos.find(v);
    if (it != infos.end())
      return it->second;
    FailureOr<TensorInfo> info = tensorInfo(v, error, boundOf(v));
    if (succeeded(info))
      infos[v] = *info;
    return info;
  };
  // Which return operand each call result becomes (the first one).
  llvm::DenseMap<Value, unsigned> outputOf;
  for (unsigned i = 0; i < ret->getNumOperands(); ++i) {
    Value v = ret->getOperand(i);
    if (isa_and_nonnull<func::CallOp, tensor::EmptyOp>(v.getDefiningOp()) &&
        !outputOf.count(v))
      outputOf[v] = i;
  }

  // Concatenations without copies: an npu-sim dispatch running only an
  // hl.concat (marked npu.program) whose inputs lie one after the other in
  // its result (every dim before the axis is 1) and are each the result
  // of an earlier call, read once by it and none a model output nor its
  // result: each producer writes its result straight into the
  // concatenation's bytes (at the input's offset) and the concat runs no
  // dispatch (docs/npu.md, "HL -> HW", hl.concat).
  llvm::DenseMap<Value, std::pair<Value, uint64_t>> slabOf;
  llvm::DenseSet<Operation *> inPlaceConcats;
  for (Operation &op : main.getBody().front()) {
    auto call = dyn_cast<func::CallOp>(op);
    auto callee =
        call ? module.lookupSymbol<func::FuncOp>(call.getCallee()) : nullptr;
    if (!options.concatInPlace || !callee || call.getNumResults() != 1 ||
        outputOf.count(call.getResult(0)) || boundOf(call.getResult(0)))
      continue;
    Block &body = callee.getBody().front();
    Operation *concat = nullptr;
    for (Operation &inner : body.without_terminator())
      if (inner.getName().getStringRef() == "hl.concat" &&
          inner.hasAttr("npu.program"))
        concat = &inner;
    auto type = dyn_cast<RankedTensorType>(call.getResult(0).getType());
    auto axis = concat ? concat->getAttrOfType<IntegerAttr>("axis") : nullptr;
    if (!concat || !axis || !type || !type.hasStaticShape() ||
        std::distance(body.begin(), body.end()) != 2 ||
        body.getTerminator()->getOperand(0) != concat->getResult(0) ||
        concat->getNumOperands() != call.getNumOperands())
      continue;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis.getInt(); ++d)
      outer *= type.getDimSize(d);
    bool ok = outer == 1;
    for (unsigned k = 0; ok && k < call.getNumOperands(); ++k) {
      Value v = call.getOperand(k);
      auto arg = dyn_cast<BlockArgument>(concat->getOperand(k));
      ok = arg && arg.getOwner() == &body && arg.getArgNumber() == k &&
           isa_and_nonnull<func::CallOp>(v.getDefiningOp()) &&
           !inPlaceConcats.count(v.getDefiningOp()) && !outputOf.count(v) &&
           !slabOf.count(v) && !boundOf(v) &&
           llvm::count(call.getOperands(), v) == 1;
    }
    if (!ok)
      continue;
    uint64_t offset = 0;
    for (Value v : call.getOperands()) {
      FailureOr<TensorInfo> info = infoOf(v);
      if (failed(info))
        return failure();
      slabOf[v] = {call.getResult(0), offset};
      offset += info->bytes;
    }
    inPlaceConcats.insert(call);
  }

  struct PendingDispatch {
    std::string symbol;
    std::vector<Value> operands, results;
    const KernelDispatchPlan *kernel = nullptr;
    const RuntimeShapeKernelPlan *shapeKernel = nullptr;
    std::string origin; ///< the op, for run-time shape errors
    /// Per result: the planned tensor of its dims (-1: static shape).
    std::vector<int> dimsTensor;
    const ForeignDispatch *foreign = nullptr;
  };
  auto kernelPlanOf = [&](Operation *op) -> const KernelDispatchPlan * {
    auto call = dyn_cast_or_null<func::CallOp>(op);
    auto it =
        call ? kernelPlans.find(call.getCallee().str()) : kernelPlans.end();
    return it == kernelPlans.end() ? nullptr : &it->second;
  };
  // Weights only kernels read, each as the operand it packs: only the
  // packed form goes into the artifact.
  auto packedOnly = [&](top::WeightOp w) {
    return !w->use_empty() && llvm::all_of(w->getUses(), [&](OpOperand &use) {
      const KernelDispatchPlan *plan = kernelPlanOf(use.getOwner());
      // (Not when another binding reads the same value: MatMul(w, w).)
      if (!plan)
        return false;
      int arg = int(use.getOperandNumber());
      if (llvm::count(plan->bindings, arg) != 1)
        return false;
      if (llvm::any_of(plan->gemmAPacks, [&](const auto &g) {
            return plan->bindings[g.binding] == arg;
          }))
        return true;
      return plan->pack != KernelDispatchPlan::Pack::None &&
             arg == plan->bindings[1];
    });
  };
  std::vector<PendingDispatch> pending;
  std::vector<std::string> symbols;
  std::vector<int> dimsTensors; // planned tensors holding run-time dims
  auto originOf = [](func::CallOp call) {
    std::string s;
    llvm::raw_string_ostream os(s);
    auto fn = call.getCallee();
    os << fn.substr(fn.find('_', sizeof("dispatch_") - 1) + 1) << " ";
    Location loc = call.getLoc();
    if (auto fused = dyn_cast<FusedLoc>(loc);
        fused && !fused.getLocations().empty())
      loc = fused.getLocations().front();
    if (auto name = dyn_cast<NameLoc>(loc))
      os << "'" << name.getName().getValue() << "'";
    else
      os << loc;
    return s;
  };
  // In-place candidates: (result tensor, operand tensor, step); taken when
  // the operand's life ends at that step.
  std::vector<std::tuple<int, int, uint32_t>> inPlace;
  uint32_t step = 0;
  auto touch = [&](Value v) {
    auto it = place.find(v);
    if (it != place.end() && it->second.root >= 0)
      lifetimes[it->second.root].last =
          std::max(lifetimes[it->second.root].last, step);
  };
  // A result written at `step`: into its output buffer when it is one, else
  // an arena tensor to plan.
  auto placeResult = [&](Value r) -> LogicalResult {
    FailureOr<TensorInfo> info = infoOf(r);
    if (failed(info))
      return failure();
    auto out = outputOf.find(r);
    if (out != outputOf.end()) {
      place[r] = {af::BufferKind::Output, out->second, 0, -1};
      return success();
    }
    // An input of a concatenation without copies: its bytes in the
    // concatenation's tensor (planned from its first producer's step).
    if (auto slab = slabOf.find(r); slab != slabOf.end()) {
      auto [concat, offset] = slab->second;
      if (!place.count(concat)) {
        FailureOr<TensorInfo> whole = infoOf(concat);
        if (failed(whole))
          return failure();
        place[concat] = {af::BufferKind::Arena, 0, 0,
                         static_cast<int>(lifetimes.size())};
        lifetimes.push_back({whole->bytes, step, step});
        roots.push_back(concat);
      }
      Placement p = place.lookup(concat);
      p.offset = offset;
      place[r] = p;
      return success();
    }
    place[r] = {af::BufferKind::Arena, 0, 0,
                static_cast<int>(lifetimes.size())};
    lifetimes.push_back({info->bytes, step, step});
    roots.push_back(r);
    return success();
  };
  for (unsigned i = 0; i < main.getNumArguments(); ++i)
    place[main.getArgument(i)] = {af::BufferKind::Input, i, 0, -1};
  for (Operation &op : main.getBody().front()) {
    if (auto in = dyn_cast<top::InputOp>(op)) {
      Placement p = place.lookup(in.getInput()); // copy: [] may rehash
      place[in.getOutput()] = p;
      continue;
    }
    if (isa<top::NoneOp, func::ReturnOp>(op))
      continue;
    // An empty result of an outlined op: no bytes, no dispatch.
    if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      if (failed(placeResult(empty.getResult())))
        return failure();
      continue;
    }
    if (auto w = dyn_cast<top::WeightOp>(op)) {
      std::string name = w.getName().str();
      if (packedOnly(w)) {
        place[w.getOutput()] = {af::BufferKind::Constant, 0, 0, -1};
        continue;
      }
      auto it = constantOffsets.find(name);
      if (it == constantOffsets.end()) {
        std::optional<Tensor> value = top::weightValue(w);
        const Tensor *t = value ? &*value : weights.find(name);
        if (!t) {
          error = "weight '" + name + "' has no data in the weight file";
          return failure();
        }
        FailureOr<TensorInfo> info = infoOf(w.getOutput());
        if (failed(info))
          return failure();
        if (t->byteSize() != info->bytes) {
          error = "weight '" + name + "' has " + std::to_string(t->byteSize()) +
                  " bytes of data, its type " + std::to_string(info->bytes);
          return failure();
        }
        // Inside the artifact a 4/2-bit value's byte holds it zero-extended
        // (docs/artifact.md); the host tensor sign-extends the signed ones.
        uint64_t off;
        if (unsigned bits = subByteBits(t->dtype())) {
          std::vector<uint8_t> masked(t->data<uint8_t>(),
                                      t->data<uint8_t>() + t->byteSize());
          for (uint8_t &b : masked)
            b &= uint8_t((1u << bits) - 1);
          off = writer.addData(masked.data(), masked.size());
        } else {
          off = writer.addData(t->raw(), t->byteSize());
        }
        it = constantOffsets.emplace(name, off).first;
        constantTotal += t->byteSize();
      }
      place[w.getOutput()] = {af::BufferKind::Constant, 0, it->second, -1};
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      // A concatenation its producers wrote in place: no dispatch.
      if (inPlaceConcats.count(call)) {
        for (Value v : call.getOperands())
          touch(v);
        ++report.views;
        continue;
      }
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      bool empty = callee && isEmptyDispatch(callee);
      PendingDispatch d;
      d.kernel = kernelPlanOf(call);
      if (auto f = foreignPlans.find(call.getCallee().str());
          f != foreignPlans.end())
        d.foreign = &f->second;
      d.symbol = d.kernel    ? d.kernel->kernel
                 : d.foreign ? d.foreign->symbol
                             : ("strata_" + call.getCallee()).str();
      if (auto it = shapePlans.find(call.getCallee().str());
          it != shapePlans.end()) {
        d.shapeKernel = &it->second;
        d.symbol = it->second.kernel;
      }
      d.origin = originOf(call);
      bool native = !d.kernel && !d.foreign && !d.shapeKernel;
      if (native)
        symbols.push_back(d.symbol);
      for (Value v : call.getOperands()) {
        touch(v);
        d.operands.push_back(v);
      }
      for (Value r : call.getResults()) {
        if (failed(placeResult(r)))
          return failure();
        d.results.push_back(r);
        // The dims of a run-time shape: an i64 [rank] arena tensor, live to
        // the end (a copy of the value to a second output reads them too).
        d.dimsTensor.push_back(-1);
        if (auto bound = boundOf(r); bound && d.shapeKernel) {
          d.dimsTensor.back() = lifetimes.size();
          dimsTensors.push_back(lifetimes.size());
          lifetimes.push_back({uint64_t(bound->size()) * 8, step, step});
          roots.push_back(Value());
        }
      }
      // The dims result of a Loop's scan output: live to the end too.
      for (Value r : d.results)
        if (Value dims = dimsResultOf.lookup(r))
          dimsTensors.push_back(place.lookup(dims).root);
      if (empty) {
        ++report.emptyDispatches;
        if (native)
          symbols.pop_back();
        continue;
      }
      SmallVector<int64_t> candidates;
      if (d.kernel && d.kernel->inPlaceOperand >= 0)
        candidates.push_back(d.kernel->inPlaceOperand);
      else if (auto it = inPlaceOperands.find(d.symbol);
               it != inPlaceOperands.end())
        candidates = it->second;
      if (!candidates.empty() && call.getNumResults() == 1) {
        int result = place.lookup(call.getResult(0)).root;
        for (int64_t k : candidates) {
          if (result < 0 || k < 0 || k >= call.getNumOperands())
            break;
          Value v = call.getOperand(k);
          Placement p = place.lookup(v);
          // An arena tensor of the same bytes that no other operand of the
          // call reads (through a view) under another value (not a slab of
          // a concatenation, nor written into one).
          if (p.kind != af::BufferKind::Arena || p.root < 0 ||
              slabOf.count(v) || slabOf.count(call.getResult(0)) ||
              lifetimes[p.root].size != lifetimes[result].size ||
              llvm::any_of(
                  call.getOperands(),
                  [&](Value o) {
                    return o != v && place.lookup(o).root == p.root;
                  }))
            continue;
          inPlace.push_back({result, p.root, step});
          break;
        }
      }
      pending.push_back(std::move(d));
      ++step;
      continue;
    }
    // A view: the operand's bytes under another shape.
    if (op.getNumOperands() >= 1 && op.getNumResults() == 1 &&
        isa<top::ReshapeOp, top::SqueezeOp, top::UnsqueezeOp>(op)) {
      auto it = place.find(op.getOperand(0));
      if (it == place.end() || (it->second.kind != af::BufferKind::Arena &&
                                it->second.kind != af::BufferKind::Constant)) {
        error = "internal: a view of a value without arena or constant bytes";
        return failure();
      }
      Placement p = it->second; // copy: [] may rehash
      place[op.getResult(0)] = p;
      ++report.views;
      continue;
    }
    error = "internal: unexpected '" + op.getName().getStringRef().str() +
            "' in the outlined entry function";
    return failure();
  }
  // (A view shares its root's placement, so `touch` on the view already
  // extended the root's lifetime to the view's uses.)

  // Outputs that are not a call result written in place: copies.
  std::vector<std::pair<Value, unsigned>> copies;
  for (unsigned i = 0; i < ret->getNumOperands(); ++i) {
    Value v = ret->getOperand(i);
    auto it = outputOf.find(v);
    if (it != outputOf.end() && it->second == i)
      continue;
    copies.push_back({v, i});
    touch(v);
  }
  step += copies.size();

  for (auto [result, operand, at] : inPlace)
    if (lifetimes[operand].last == at)
      lifetimes[result].inPlaceOf = operand;
  for (int t : dimsTensors)
    lifetimes[t].last = step;

  plan::ArenaPlan arena;
  if (!plan::planArena(lifetimes, 64, arena, error))
    return failure();
  variant.arenaSize = arena.arenaSize;
  report.arenaSize = arena.arenaSize;
  report.tensorBytes = arena.totalSize;
  report.inPlace = arena.inPlace;

  // Buffers: one per (value, placement); values sharing bytes and shape
  // share a buffer entry.
  std::map<std::tuple<int, uint32_t, uint64_t, std::vector<int64_t>, int>,
           uint32_t>
      bufferIds;
  // A value with a run-time shape has a buffer entry of its own: the
  // runtime shape names it, and another value placed at the same bytes
  // later must not share it.
  llvm::DenseMap<Value, uint32_t> runtimeShapedBuffers;
  auto bufferFor = [&](Value v) -> FailureOr<uint32_t> {
    FailureOr<TensorInfo> info = infoOf(v);
    if (failed(info))
      return failure();
    Placement p = place.lookup(v);
    if (boundOf(v)) {
      auto [it, isNew] =
          runtimeShapedBuffers.try_emplace(v, variant.buffers.size());
      if (isNew)
        variant.buffers.push_back(
            {p.kind, p.index,
             p.root >= 0 ? arena.offsets[p.root] + p.offset : p.offset,
             info->bytes, info->dtype, info->shape});
      return it->second;
    }
    uint64_t offset = p.root >= 0 ? arena.offsets[p.root] + p.offset : p.offset;
    auto key = std::make_tuple(static_cast<int>(p.kind), p.index, offset,
                               info->shape, static_cast<int>(info->dtype));
    auto it = bufferIds.find(key);
    if (it != bufferIds.end())
      return it->second;
    uint32_t id = variant.buffers.size();
    variant.buffers.push_back(
        {p.kind, p.index, offset, info->bytes, info->dtype, info->shape});
    bufferIds.emplace(key, id);
    return id;
  };

  uint32_t exe =
      writer.addExecutable("cpu_variant_" + std::to_string(variantCount), "cpu",
                           "elf-x86_64", *so, symbols);
  // The dims buffer of each value with a run-time shape.
  llvm::DenseMap<Value, uint32_t> dimsBuffers;
  for (PendingDispatch &d : pending) {
    if (d.shapeKernel) {
      af::DispatchSpec spec;
      spec.kind = af::DispatchKind::Kernel;
      spec.symbol = d.symbol;
      spec.params = d.shapeKernel->params;
      uint32_t at = variant.dispatches.size();
      for (const RuntimeShapeKernelPlan::Binding &b : d.shapeKernel->bindings) {
        if (b.kind == RuntimeShapeKernelPlan::Binding::Dims) {
          Value r = d.results[b.index];
          auto [it, isNew] = dimsBuffers.try_emplace(r, variant.buffers.size());
          if (isNew) {
            int64_t rank = d.shapeKernel->bounds[b.index].size();
            variant.buffers.push_back({af::BufferKind::Arena,
                                       0,
                                       arena.offsets[d.dimsTensor[b.index]],
                                       uint64_t(rank) * 8,
                                       af::DType::I64,
                                       {rank}});
          }
          spec.bindings.push_back(it->second);
          continue;
        }
        Value v = b.kind == RuntimeShapeKernelPlan::Binding::Operand
                      ? d.operands[b.index]
                      : d.results[b.index];
        FailureOr<uint32_t> id = bufferFor(v);
        if (failed(id))
          return failure();
        spec.bindings.push_back(*id);
      }
      for (Value r : d.results)
        if (boundOf(r))
          variant.runtimeShapes.push_back(
              {*bufferFor(r), dimsBuffers.lookup(r), at, d.origin});
      report.kernelDispatchNotes.push_back(d.origin + ": kernel " + d.symbol +
                                           " (run-time shape)");
      variant.dispatches.push_back(std::move(spec));
      continue;
    }
    if (d.kernel) {
      FailureOr<af::DispatchSpec> spec =
          kernelDispatchSpec(*d.kernel, d.operands, d.results.front(),
                             bufferFor, variant, weights, report, error);
      if (failed(spec))
        return failure();
      variant.dispatches.push_back(std::move(*spec));
      continue;
    }
    if (d.foreign) {
      af::DispatchSpec spec;
      spec.device = d.foreign->device;
      spec.executable = writer.addExecutable(d.foreign->name, d.foreign->device,
                                             d.foreign->format, d.foreign->code,
                                             {d.foreign->symbol});
      spec.symbol = d.foreign->symbol;
      for (Value v : llvm::concat<Value>(d.operands, d.results)) {
        FailureOr<uint32_t> id = bufferFor(v);
        if (failed(id))
          return failure();
        spec.bindings.push_back(*id);
      }
      ++report.foreignDispatches[d.foreign->device];
      if (!d.foreign->note.empty())
        report.kernelDispatchNotes.push_back(d.foreign->note);
      variant.dispatches.push_back(std::move(spec));
      continue;
    }
    af::DispatchSpec spec;
    spec.executable = exe;
    spec.symbol = d.symbol;
    spec.workgroupCount = workgroupCounts.lookup(d.symbol);
    if (spec.workgroupCount < 1)
      spec.workgroupCount = 1;
    report.splitDispatches += spec.workgroupCount > 1;
    for (Value v : llvm::concat<Value>(d.operands, d.results)) {
      FailureOr<uint32_t> id = bufferFor(v);
      if (failed(id))
        return failure();
      spec.bindings.push_back(*id);
    }
    // A Loop's scan outputs of run-time length: their dims are results too;
    // an elementwise op on a value of run-time shape shares its dims.
    for (Value r : d.results) {
      if (Value dims = dimsResultOf.lookup(r))
        dimsBuffers[r] = *bufferFor(dims);
      else if (Value from = dimsOperandOf.lookup(r))
        dimsBuffers[r] = dimsBuffers.lookup(from);
      else
        continue;
      variant.runtimeShapes.push_back({*bufferFor(r), dimsBuffers[r],
                                       uint32_t(variant.dispatches.size()),
                                       d.origin});
    }
    variant.dispatches.push_back(std::move(spec));
  }
  for (auto &[v, i] : copies) {
    FailureOr<uint32_t> src = bufferFor(v);
    if (failed(src))
      return failure();
    FailureOr<TensorInfo> info = infoOf(v);
    uint32_t dst = variant.buffers.size();
    variant.buffers.push_back(
        {af::BufferKind::Output, i, 0, info->bytes, info->dtype, info->shape});
    af::DispatchSpec spec;
    spec.kind = af::DispatchKind::Kernel;
    spec.symbol = "copy";
    spec.bindings = {*src, dst};
    spec.params = {static_cast<int64_t>(info->bytes)};
    // A copy of a value with a run-time shape has its dims.
    if (boundOf(v))
      variant.runtimeShapes.push_back({dst, dimsBuffers.lookup(v),
                                       uint32_t(variant.dispatches.size()),
                                       "a copy of a run-time shape"});
    variant.dispatches.push_back(std::move(spec));
  }
  // Every output has a buffer, even one no dispatch writes (empty).
  for (auto &[v, i] : outputOf)
    if (failed(bufferFor(v)))
      return failure();
  report.dispatches = pending.size();
  report.copies = copies.size();

  // Strategy choices the runtime has no kernel for yet.
  main.walk([&](func::CallOp call) {
    auto fn = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!fn)
      return;
    if (const KernelDispatchPlan *plan = kernelPlanOf(call)) {
      ++report.kernelDispatches[plan->kernel];
      return;
    }
    fn.walk([&](Operation *op) {
      if (auto impl = op->getAttrOfType<StringAttr>("strata.impl"))
        if (impl.getValue() != strategy::kCodegenImplName)
          ++report.kernelsNotAvailable[impl.getValue().str()];
    });
  });

  writer.addVariant(std::move(variant));
  ++variantCount;
  return success();
}

bool CpuArtifactBuilder::write(const std::string &path, std::string &error) {
  for (const af::TensorSpec &s : inputs)
    writer.addInput(s);
  for (const af::TensorSpec &s : outputs)
    writer.addOutput(s);
  inputs.clear();
  outputs.clear();
  return writer.writeFile(path, error);
}

} // namespace strata::cpu
