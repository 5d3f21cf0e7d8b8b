//===- Graph.cpp - TpuLang graph, tensors and compile ---------------------===//

#include "Graph.h"

#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Support/Npz.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

using namespace mlir;

namespace strata::tpulang {
namespace detail {

namespace {
std::unique_ptr<Graph> currentGraph;
uint64_t graphCounter = 0;
/// Names of tensors created while no graph exists.
int64_t unboundCounter = 0;

/// Collects the diagnostics emitted while it is alive.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return success();
          if (!text.empty())
            text += "; ";
          text += diag.str();
          for (const Diagnostic &note : diag.getNotes())
            text += " (" + note.str() + ")";
          return success();
        }) {}
  const std::string &str() const { return text; }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

Graph::Graph() {
  registerAndLoadDialects(context);
  id = ++graphCounter;
  OpBuilder b(&context);
  module = ModuleOp::create(b, UnknownLoc::get(&context));
  b.setInsertionPointToEnd(module->getBody());
  func = func::FuncOp::create(b, UnknownLoc::get(&context), "main",
                              b.getFunctionType({}, {}));
  func.addEntryBlock();
}

OpBuilder Graph::opBuilder() {
  OpBuilder b(&context);
  b.setInsertionPointToEnd(&body());
  return b;
}

OpBuilder Graph::headerBuilder() {
  OpBuilder b(&context);
  if (lastHeader)
    b.setInsertionPointAfter(lastHeader);
  else
    b.setInsertionPointToStart(&body());
  return b;
}

std::string Graph::freshName(const std::string &prefix) {
  int64_t &n = nameCounters[prefix];
  std::string candidate;
  do
    candidate = prefix + "_" + std::to_string(n++);
  while (names.count(candidate));
  return candidate;
}

uint64_t freshScopeId() { return ++graphCounter; }

Graph &graph(const std::string &op) {
  if (!currentGraph)
    throw Error(op + ": no graph; call strata::tpulang::init(\"CPU\") first");
  return *currentGraph;
}

Msg &Msg::operator<<(const IntList &v) {
  os << fmt(v);
  return *this;
}

Msg &Msg::operator<<(const FloatList &v) {
  os << "[";
  for (size_t i = 0; i < v.size(); ++i)
    os << (i ? ", " : "") << v[i];
  os << "]";
  return *this;
}

std::string fmt(const IntList &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string fmt(const IntOrList &v) {
  if (auto *i = std::get_if<int64_t>(&v))
    return std::to_string(*i);
  return fmt(std::get<IntList>(v));
}

DType parseDType(const std::string &op, const std::string &param,
                 const std::string &dtype) {
  if (auto t = dtypeFromName(dtype))
    return *t;
  (Msg() << op << ": parameter '" << param << "' has unknown dtype '" << dtype
         << "' (expected float32, float16, bfloat16, float64, int8, uint8, "
            "int16, uint16, int32, uint32, int64, uint64 or bool)")
      .raise();
}

Type plainElementType(Graph &g, const std::string &dtype) {
  return top::elementTypeOf(*dtypeFromName(dtype), &g.context);
}

Type mlirTypeOf(Graph &g, TensorImpl &t, const std::string &op) {
  Type elem = top::elementTypeOf(t.hostType, &g.context);
  if (t.scale) {
    if (!isSignedInt(t.hostType) && !isUnsignedInt(t.hostType))
      (Msg() << op << ": tensor '" << t.name << "' has a scale but dtype "
             << t.dtype << "; quantized tensors need an integer dtype")
          .raise();
    bool isSigned = isSignedInt(t.hostType);
    unsigned bits = static_cast<unsigned>(dtypeSize(t.hostType) * 8);
    Type storage = IntegerType::get(&g.context, bits);
    Type expressed = Float32Type::get(&g.context);
    unsigned flags = isSigned ? quant::QuantizationFlags::Signed : 0;
    int64_t qmin =
        quant::QuantizedType::getDefaultMinimumForInteger(isSigned, bits);
    int64_t qmax =
        quant::QuantizedType::getDefaultMaximumForInteger(isSigned, bits);
    IntList zps;
    if (t.zeroPoint) {
      if (auto *z = std::get_if<int64_t>(&*t.zeroPoint))
        zps = {*z};
      else
        zps = std::get<IntList>(*t.zeroPoint);
    }
    if (auto *s = std::get_if<double>(&*t.scale)) {
      if (zps.size() > 1)
        (Msg() << op << ": tensor '" << t.name
               << "' has one scale but zero points " << zps)
            .raise();
      return RankedTensorType::get(
          t.shape, quant::UniformQuantizedType::get(
                       flags, storage, expressed, *s,
                       zps.empty() ? 0 : zps[0], qmin, qmax));
    }
    const FloatList &scales = std::get<FloatList>(*t.scale);
    int64_t axis = t.quantAxis;
    if (static_cast<int64_t>(t.shape.size()) <= axis ||
        t.shape[axis] != static_cast<int64_t>(scales.size()))
      (Msg() << op << ": tensor '" << t.name << "' has " << scales.size()
             << " per-channel scales but shape " << t.shape
             << " (one scale per index of dim " << axis << " is needed"
             << (axis == 0 ? ", the output channels of a convolution weight"
                           : "")
             << ")")
          .raise();
    if (zps.empty())
      zps.assign(scales.size(), 0);
    else if (zps.size() == 1)
      zps.assign(scales.size(), zps[0]);
    if (zps.size() != scales.size())
      (Msg() << op << ": tensor '" << t.name << "' has " << scales.size()
             << " scales but " << zps.size() << " zero points")
          .raise();
    return RankedTensorType::get(t.shape,
                                 quant::UniformQuantizedPerAxisType::get(
                                     flags, storage, expressed, scales, zps,
                                     static_cast<int32_t>(axis), qmin, qmax));
  }
  return RankedTensorType::get(t.shape, elem);
}

void setQuantAxis(const std::string &op, const std::string &param,
                  const Tensor &tensor, int64_t axis) {
  const std::shared_ptr<TensorImpl> &t = Access::impl(tensor);
  if (t->quantAxis == axis)
    return;
  bool placed = t->graphId != 0 || t->produced;
  if (placed && t->scale && std::holds_alternative<FloatList>(*t->scale))
    (Msg() << op << ": parameter '" << param << "' ('" << t->name
           << "') is already in the graph quantized per channel along dim "
           << t->quantAxis << "; as '" << param << "' its scales run along dim "
           << axis)
        .raise();
  if (!placed)
    t->quantAxis = axis;
}

Value valueOf(const std::string &op, const Tensor &tensor) {
  Graph &g = graph(op);
  const std::shared_ptr<TensorImpl> &t = Access::impl(tensor);
  if (t->graphId == g.currentId())
    return t->value;
  if (g.compositeId && t->graphId == g.id)
    (Msg() << op << ": tensor '" << t->name
           << "' is defined outside composite '" << g.compositeName
           << "'; pass it to the body through 'inputs'")
        .raise();
  if (g.finishedComposites.count(t->graphId))
    (Msg() << op << ": tensor '" << t->name
           << "' was created inside a composite body and cannot be used "
              "outside it")
        .raise();
  if (t->graphId != 0 || t->produced)
    (Msg() << op << ": tensor '" << t->name
           << "' belongs to a graph that was released by deinit()/init()")
        .raise();
  if (g.names.count(t->name))
    (Msg() << op << ": tensor name '" << t->name
           << "' is already used by another tensor of the graph")
        .raise();
  Type type = mlirTypeOf(g, *t, op);
  auto loc = NameLoc::get(StringAttr::get(&g.context, t->name));
  OpBuilder b = g.headerBuilder();
  Operation *created;
  if (t->ttype == "coeff") {
    strata::Tensor data;
    if (t->data)
      data = *t->data;
    else
      data = strata::Tensor(t->hostType, t->shape);
    created = top::WeightOp::create(b, loc, type, b.getStringAttr(t->name))
                  .getOperation();
    g.weights[t->name] = data;
  } else {
    if (g.compositeId)
      (Msg() << op << ": graph input '" << t->name
             << "' is used inside composite '" << g.compositeName
             << "'; pass it to the body through 'inputs'")
          .raise();
    BlockArgument arg = g.body().addArgument(type, loc);
    created = top::InputOp::create(b, loc, type, arg).getOperation();
    g.inputs.push_back(t);
  }
  g.lastHeader = created;
  g.names.insert(t->name);
  t->graphId = g.currentId();
  t->value = created->getResult(0);
  return t->value;
}

Value valueOrNone(const std::string &op, const std::optional<Tensor> &t) {
  if (t)
    return valueOf(op, *t);
  Graph &g = graph(op);
  if (!g.none) {
    OpBuilder b = g.headerBuilder();
    auto none = top::NoneOp::create(b, UnknownLoc::get(&g.context),
                                    b.getNoneType());
    g.lastHeader = none.getOperation();
    g.none = none.getOutput();
  }
  return g.none;
}

std::string outputName(Graph &g, const std::string &op,
                       const std::optional<std::string> &name) {
  if (!name)
    return g.freshName(op);
  if (name->empty())
    (Msg() << op << ": parameter 'out_name' must not be empty").raise();
  if (g.names.count(*name))
    (Msg() << op << ": parameter 'out_name' = '" << *name
           << "' is already the name of another tensor of the graph")
        .raise();
  return *name;
}

std::vector<Tensor> finishOp(const std::string &op, Operation *created,
                             llvm::ArrayRef<Type> elementTypes,
                             llvm::ArrayRef<std::string> dtypes,
                             const std::string &name) {
  Graph &g = graph(op);
  DiagnosticCapture diags(&g.context);
  auto fail = [&](const std::string &fallback) {
    std::string msg = diags.str().empty() ? fallback : diags.str();
    created->erase();
    throw Error(op + ": " + msg);
  };
  auto iface = dyn_cast<top::ShapeInferenceOpInterface>(created);
  if (!iface)
    fail("op " + created->getName().getStringRef().str() +
         " has no shape inference");
  llvm::SmallVector<llvm::SmallVector<int64_t>> shapes;
  if (failed(iface.inferShapesFromTypes(shapes)))
    fail("shape inference failed");
  if (shapes.size() != created->getNumResults())
    fail("shape inference returned the wrong number of shapes");
  std::vector<Tensor> results;
  for (auto [i, result] : llvm::enumerate(created->getResults())) {
    result.setType(RankedTensorType::get(shapes[i], elementTypes[i]));
  }
  if (failed(mlir::verify(created)))
    fail("verification failed");
  g.names.insert(name);
  for (auto [i, result] : llvm::enumerate(created->getResults())) {
    auto impl = std::make_shared<TensorImpl>();
    impl->shape.assign(shapes[i].begin(), shapes[i].end());
    impl->dtype = dtypes[i];
    impl->hostType = *dtypeFromName(dtypes[i]);
    impl->name = created->getNumResults() == 1
                     ? name
                     : name + "_" + std::to_string(i);
    impl->produced = true;
    impl->graphId = g.currentId();
    impl->value = result;
    if (auto q = dyn_cast<quant::UniformQuantizedType>(elementTypes[i])) {
      impl->scale = q.getScale();
      impl->zeroPoint = q.getZeroPoint();
    } else if (auto q = dyn_cast<quant::UniformQuantizedPerAxisType>(
                   elementTypes[i])) {
      impl->scale = FloatList(q.getScales().begin(), q.getScales().end());
      impl->zeroPoint =
          IntList(q.getZeroPoints().begin(), q.getZeroPoints().end());
      impl->quantAxis = q.getQuantizedDimension();
    }
    if (created->getNumResults() > 1)
      g.names.insert(impl->name);
    results.push_back(Access::make(std::move(impl)));
  }
  return results;
}

/// Builds the module compile() writes: a clone of the graph whose function
/// takes `inputs` and returns `outputs`, dead ops removed, verified.
static OwningOpRef<ModuleOp> buildModule(const std::string &op,
                                         const std::vector<Tensor> &inputs,
                                         const std::vector<Tensor> &outputs,
                                         const std::string &modelName,
                                         const std::string &weightFile) {
  Graph &g = graph(op);
  if (outputs.empty())
    (Msg() << op << ": parameter 'outputs' must not be empty").raise();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto &t = Access::impl(inputs[i]);
    if (t->produced || t->ttype != "neuron")
      (Msg() << op << ": parameter 'inputs' entry " << i << " ('" << t->name
             << "') is not a graph input (it is "
             << (t->produced ? "an op result" : "a coeff tensor") << ")")
          .raise();
    for (size_t j = 0; j < i; ++j)
      if (inputs[j] == inputs[i])
        (Msg() << op << ": parameter 'inputs' lists '" << t->name
               << "' twice")
            .raise();
  }
  // Materialize everything first (unused inputs get an argument too).
  std::vector<Value> inValues, outValues;
  for (const Tensor &t : inputs)
    inValues.push_back(valueOf(op, t));
  for (const Tensor &t : outputs)
    outValues.push_back(valueOf(op, t));

  IRMapping mapping;
  OwningOpRef<ModuleOp> module(
      llvm::cast<ModuleOp>(g.module->getOperation()->clone(mapping)));
  MLIRContext *ctx = &g.context;
  Builder b(ctx);
  module.get()->setAttr(top::kModelNameAttr, b.getStringAttr(modelName));
  module.get()->setAttr(top::kWeightFileAttr, b.getStringAttr(weightFile));
  auto func = *module->getOps<func::FuncOp>().begin();
  Block *oldBody = &func.getBody().front();

  // The return, then dead-code removal.
  llvm::SmallVector<Value> results;
  for (Value v : outValues)
    results.push_back(mapping.lookup(v));
  OpBuilder ob(ctx);
  ob.setInsertionPointToEnd(oldBody);
  func::ReturnOp::create(ob, UnknownLoc::get(ctx), results);
  for (Operation &o : llvm::make_early_inc_range(llvm::reverse(*oldBody)))
    if (!isa<func::ReturnOp>(o) && o.use_empty())
      o.erase();

  // New arguments in the order of `inputs`.
  auto positionOf = [&](const std::shared_ptr<TensorImpl> &impl) {
    return std::find_if(inputs.begin(), inputs.end(), [&](const Tensor &t) {
      return Access::impl(t) == impl;
    });
  };
  for (auto [i, impl] : llvm::enumerate(g.inputs))
    if (positionOf(impl) == inputs.end() &&
        !oldBody->getArgument(i).use_empty())
      (Msg() << op << ": graph input '" << impl->name
             << "' is used by the outputs but not listed in 'inputs'")
          .raise();
  Block *newBody = new Block();
  llvm::SmallVector<Type> inTypes, outTypes;
  for (Value v : inValues) {
    auto arg = llvm::cast<BlockArgument>(v.getDefiningOp()->getOperand(0));
    inTypes.push_back(arg.getType());
    newBody->addArgument(arg.getType(), arg.getLoc());
  }
  for (auto [i, impl] : llvm::enumerate(g.inputs)) {
    auto pos = positionOf(impl);
    if (pos != inputs.end())
      oldBody->getArgument(i).replaceAllUsesWith(
          newBody->getArgument(pos - inputs.begin()));
  }
  newBody->getOperations().splice(newBody->end(), oldBody->getOperations());
  func.getBody().push_back(newBody);
  oldBody->erase();
  for (Value v : results)
    outTypes.push_back(v.getType());
  func.setType(FunctionType::get(ctx, inTypes, outTypes));
  for (size_t i = 0; i < inputs.size(); ++i)
    func.setArgAttr(i, top::kModelNameAttr,
                    b.getStringAttr(Access::impl(inputs[i])->name));
  for (size_t i = 0; i < outputs.size(); ++i)
    func.setResultAttr(i, top::kModelNameAttr,
                       b.getStringAttr(Access::impl(outputs[i])->name));

  DiagnosticCapture diags(ctx);
  if (failed(mlir::verify(*module)))
    (Msg() << op << ": the generated module does not verify: " << diags.str())
        .raise();
  return module;
}

} // namespace detail

using namespace detail;

//===----------------------------------------------------------------------===//
// init / deinit
//===----------------------------------------------------------------------===//

void init(const std::string &platform) {
  std::string lower = platform;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower != "cpu")
    (Msg() << "init: parameter 'platform' = '" << platform
           << "' is not supported (Strata supports \"CPU\")")
        .raise();
  currentGraph = std::make_unique<Graph>();
}

void deinit() { currentGraph.reset(); }

//===----------------------------------------------------------------------===//
// TensorData and Tensor
//===----------------------------------------------------------------------===//

template <typename T>
static strata::Tensor fromVector(DType type, const std::vector<T> &values) {
  strata::Tensor t(type, {static_cast<int64_t>(values.size())});
  if (!values.empty())
    std::memcpy(t.raw(), values.data(), values.size() * sizeof(T));
  return t;
}

TensorData::TensorData(const std::vector<float> &v)
    : value(fromVector(DType::F32, v)) {}
TensorData::TensorData(const std::vector<double> &v)
    : value(fromVector(DType::F64, v)) {}
TensorData::TensorData(const std::vector<int8_t> &v)
    : value(fromVector(DType::I8, v)) {}
TensorData::TensorData(const std::vector<uint8_t> &v)
    : value(fromVector(DType::U8, v)) {}
TensorData::TensorData(const std::vector<int16_t> &v)
    : value(fromVector(DType::I16, v)) {}
TensorData::TensorData(const std::vector<uint16_t> &v)
    : value(fromVector(DType::U16, v)) {}
TensorData::TensorData(const std::vector<int32_t> &v)
    : value(fromVector(DType::I32, v)) {}
TensorData::TensorData(const std::vector<uint32_t> &v)
    : value(fromVector(DType::U32, v)) {}
TensorData::TensorData(const std::vector<int64_t> &v)
    : value(fromVector(DType::I64, v)) {}
TensorData::TensorData(strata::Tensor tensor) : value(std::move(tensor)) {}

Tensor::Tensor(std::shared_ptr<TensorImpl> impl) : impl(std::move(impl)) {}

Tensor::Tensor(IntList shape, std::string dtype,
               std::optional<std::string> name, std::optional<TensorData> data,
               std::string ttype, std::optional<FloatOrList> scale,
               std::optional<IntOrList> zero_point)
    : impl(std::make_shared<TensorImpl>()) {
  const std::string op = "Tensor";
  for (int64_t d : shape)
    if (d < 0)
      (Msg() << op << ": parameter 'shape' " << shape
             << " has a negative dim")
          .raise();
  if (!checkedNumElements(shape))
    (Msg() << op << ": parameter 'shape' " << shape << " is too large")
        .raise();
  impl->hostType = parseDType(op, "dtype", dtype);
  if (ttype != "neuron" && ttype != "coeff")
    (Msg() << op << ": parameter 'ttype' = '" << ttype
           << "' must be \"neuron\" or \"coeff\"")
        .raise();
  if (name && name->empty())
    (Msg() << op << ": parameter 'name' must not be empty").raise();
  impl->shape = std::move(shape);
  impl->dtype = std::move(dtype);
  impl->ttype = std::move(ttype);
  if (name)
    impl->name = *name;
  else if (currentGraph)
    impl->name = currentGraph->freshName(impl->ttype == "coeff" ? "coeff"
                                                                : "input");
  else
    impl->name = "tensor_" + std::to_string(unboundCounter++);
  if (data) {
    const strata::Tensor &d = data->tensor();
    int64_t want = *checkedNumElements(impl->shape);
    if (d.numElements() != want)
      (Msg() << op << ": parameter 'data' has " << d.numElements()
             << " elements but shape " << impl->shape << " needs " << want)
          .raise();
    impl->data = d.castTo(impl->hostType).reshaped(impl->shape);
    if (impl->data->raw() == d.raw())
      impl->data = impl->data->clone();
  }
  quantization(std::move(scale), std::move(zero_point));
}

const IntList &Tensor::shape() const { return impl->shape; }
const std::string &Tensor::dtype() const { return impl->dtype; }
const std::string &Tensor::name() const { return impl->name; }
const std::string &Tensor::ttype() const { return impl->ttype; }
const std::optional<strata::Tensor> &Tensor::data() const { return impl->data; }
bool Tensor::is_quantized() const { return impl->scale.has_value(); }
const std::optional<FloatOrList> &Tensor::scale() const { return impl->scale; }
const std::optional<IntOrList> &Tensor::zero_point() const {
  return impl->zeroPoint;
}

void Tensor::quantization(std::optional<FloatOrList> scale,
                          std::optional<IntOrList> zero_point) {
  const std::string op = "quantization";
  // TPU-MLIR's TpuLang keeps the magnitude of a scale (a sign is dropped).
  if (scale) {
    if (auto *s = std::get_if<double>(&*scale))
      *s = std::fabs(*s);
    else
      for (double &s : std::get<FloatList>(*scale))
        s = std::fabs(s);
  }
  bool changes = (scale && scale != impl->scale) ||
                 (zero_point && zero_point != impl->zeroPoint);
  if (!changes)
    return;
  if (scale && impl->scale && scale != impl->scale)
    (Msg() << op << ": tensor '" << impl->name
           << "' already has a different scale")
        .raise();
  if (zero_point && impl->zeroPoint && zero_point != impl->zeroPoint)
    (Msg() << op << ": tensor '" << impl->name
           << "' already has a different zero_point "
           << fmt(*impl->zeroPoint) << " (new: " << fmt(*zero_point) << ")")
        .raise();
  if (impl->graphId != 0 || impl->produced)
    if (scale || impl->scale)
      (Msg() << op << ": tensor '" << impl->name
             << "' is already used in the graph; its scale cannot change")
          .raise();
  if (scale) {
    if (!isSignedInt(impl->hostType) && !isUnsignedInt(impl->hostType))
      (Msg() << op << ": parameter 'scale' needs an integer dtype, tensor '"
             << impl->name << "' is " << impl->dtype)
          .raise();
    auto check = [&](double s) {
      if (!(s > 0) || !std::isfinite(s))
        (Msg() << op << ": parameter 'scale' value " << s
               << " must be non-zero and finite (tensor '" << impl->name
               << "')")
            .raise();
    };
    if (auto *s = std::get_if<double>(&*scale))
      check(*s);
    else
      for (double s : std::get<FloatList>(*scale))
        check(s);
    impl->scale = scale;
  }
  if (zero_point)
    impl->zeroPoint = zero_point;
}

//===----------------------------------------------------------------------===//
// compile
//===----------------------------------------------------------------------===//

std::string module_text(const std::vector<Tensor> &inputs,
                        const std::vector<Tensor> &outputs) {
  OwningOpRef<ModuleOp> module = buildModule(
      "module_text", inputs, outputs, "main", "main_TOP_F32_all_weight.npz");
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.enableDebugInfo(true, false);
  module->print(os, flags);
  return text;
}

void compile(const std::string &name, const std::vector<Tensor> &inputs,
             const std::vector<Tensor> &outputs, bool, 
             const std::optional<std::string> &, const std::string &mode,
             bool, bool, bool, int) {
  const std::string op = "compile";
  static const char *modes[] = {"f32", "f16", "bf16", "int8", "all", "none"};
  if (std::find(std::begin(modes), std::end(modes), mode) == std::end(modes))
    (Msg() << op << ": parameter 'mode' = '" << mode
           << "' must be one of f32, f16, bf16, int8, all, none")
        .raise();
  std::string stem = llvm::sys::path::filename(name).str();
  if (stem.empty() || stem == "." || stem == "..")
    (Msg() << op << ": parameter 'name' = '" << name
           << "' must end in a model name")
        .raise();
  std::string weightFile = stem + "_TOP_F32_all_weight.npz";
  OwningOpRef<ModuleOp> module =
      buildModule(op, inputs, outputs, stem, weightFile);

  TensorMap weights;
  Graph &g = graph(op);
  module->walk([&](top::WeightOp w) {
    weights.set(w.getName().str(), g.weights.at(w.getName().str()));
  });
  llvm::SmallString<256> dir(name);
  llvm::sys::path::remove_filename(dir);
  llvm::SmallString<256> npzPath(dir), mlirPath(dir);
  llvm::sys::path::append(npzPath, weightFile);
  llvm::sys::path::append(mlirPath, stem + "_origin.mlir");
  std::string error;
  if (!writeNpz(std::string(npzPath), weights, error))
    (Msg() << op << ": cannot write weight file '" << npzPath.str().str()
           << "': " << error)
        .raise();
  if (failed(writeModuleFile(*module, std::string(mlirPath), error)))
    (Msg() << op << ": " << error).raise();
}

} // namespace strata::tpulang
