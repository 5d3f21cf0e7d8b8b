//===- OnnxImporter.cpp - ONNX model to Top dialect -----------------------===//

#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "ConverterRegistry.h"
#include "NodeContext.h"
#include "OnnxTensor.h"
#include "TypeChecks.h"
#include "ValueTable.h"

#include "strata/Dialect/Top/IR/TopDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <deque>

using namespace mlir;

namespace strata::onnx_import {

namespace {
struct OpVersions {
  const char *name;
  std::initializer_list<int> since;
};
#define ONNX_OP(NAME, ...) {NAME, __VA_ARGS__},
const OpVersions kOpVersions[] = {
#include "OnnxOpVersions.inc"
};
#undef ONNX_OP

/// Input and output counts of one schema version.
struct OpArity {
  const char *name;
  int since;
  int minInputs, maxInputs, maxOutputs;
  /// Bit i: input i is required (a single, non-optional formal input).
  uint64_t requiredInputs;
};
#define ONNX_OP(NAME, ...)
#define ONNX_ARITY(NAME, SINCE, MININ, MAXIN, MAXOUT, REQUIRED)              \
  {NAME, SINCE, MININ, MAXIN, MAXOUT, REQUIRED},
const OpArity kOpArity[] = {
#include "OnnxOpVersions.inc"
};
#undef ONNX_ARITY
#undef ONNX_OP

const OpArity *findArity(llvm::StringRef opType, int64_t since) {
  for (const OpArity &a : kOpArity)
    if (a.since == since && opType == a.name)
      return &a;
  return nullptr;
}

/// The schema version of `opType` selected by `opset`, or 0 if the op does
/// not exist at that opset (or is unknown).
int64_t selectVersion(llvm::StringRef opType, int64_t opset) {
  for (const OpVersions &v : kOpVersions) {
    if (opType != v.name)
      continue;
    int64_t best = 0;
    for (int s : v.since)
      if (s <= opset)
        best = std::max<int64_t>(best, s);
    return best;
  }
  return 0;
}

llvm::StringMap<ConvertFn> &converterRegistry() {
  static llvm::StringMap<ConvertFn> registry = [] {
    llvm::StringMap<ConvertFn> r;
    for (auto table : {
             coreConverters(),
             elementwiseConverters(),
             shapeConverters(),
             nnConverters(),
             indexConverters(),
             controlFlowConverters(),
             mathConverters(),
             sequenceConverters(),
             recurrentConverters(),
             typeConverters(),
             geometryConverters(),
             transformerConverters(),
             trainingConverters(),
             selectConverters(),
             einsumConverters(),
             qlinearConverters(),
             causalConvConverters(),
             tfidfConverters(),
         })
      for (const ConverterEntry &e : table)
        r[e.opType] = e.convert;
    return r;
  }();
  return registry;
}

/// The domains besides the default one that Strata imports, with their
/// converters.
struct ExtraDomain {
  const char *name;
  llvm::ArrayRef<ConverterEntry> (*converters)();
};
const ExtraDomain kExtraDomains[] = {
    {"ai.onnx.preview", previewConverters},
    {"ai.onnx.preview.training", trainingOptimizerConverters},
    {"ai.onnx.ml", mlConverters},
};

/// Converters by domain, then op type, for the domains of kExtraDomains.
llvm::StringMap<llvm::StringMap<ConvertFn>> &extraDomainRegistry() {
  static llvm::StringMap<llvm::StringMap<ConvertFn>> registry = [] {
    llvm::StringMap<llvm::StringMap<ConvertFn>> r;
    for (const ExtraDomain &d : kExtraDomains)
      for (const ConverterEntry &e : d.converters())
        r[d.name][e.opType] = e.convert;
    return r;
  }();
  return registry;
}

/// "the default ONNX domain, 'ai.onnx.preview', ..." for error messages.
std::string supportedDomains() {
  std::string s = "the default ONNX domain";
  for (const ExtraDomain &d : kExtraDomains)
    s += std::string(", '") + d.name + "'";
  return s;
}

bool isDefaultDomain(const std::string &d) {
  return d.empty() || d == "ai.onnx";
}

/// "node 'name' (OpType, opset N): ", or the node's first output when it
/// has no name; every node error starts with it.
std::string nodePrefix(const onnx::NodeProto &node, int64_t opset) {
  std::string who;
  if (!node.name().empty())
    who = "node '" + node.name() + "'";
  else if (node.output_size() && !node.output(0).empty())
    who = "node with output '" + node.output(0) + "'";
  else
    who = "unnamed node";
  if (extraDomainRegistry().count(node.domain()))
    return who + " (" + node.op_type() + " of " + node.domain() + "): ";
  return who + " (" + node.op_type() + ", opset " + std::to_string(opset) +
         "): ";
}
} // namespace

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const auto &e : converterRegistry())
    ops.push_back(e.getKey().str());
  std::sort(ops.begin(), ops.end());
  return ops;
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, const onnx::ModelProto &model,
                std::string modelDir, const ImportOptions &options)
      : ctx(ctx), model(model), modelDir(std::move(modelDir)),
        options(options), builder(&ctx) {}

  FailureOr<ImportedModel> run();

  MLIRContext &ctx;
  const onnx::ModelProto &model;
  std::string modelDir;
  const ImportOptions &options;
  OpBuilder builder;
  llvm::StringMap<Value> values;
  /// Names holding sequences and optionals (disjoint from `values`).
  llvm::StringMap<OnnxValue> lists;
  /// Initializers not yet materialized as top.Weight.
  llvm::StringMap<const onnx::TensorProto *> initializers;
  TensorMap weights;
  llvm::StringSet<> weightNames;
  Value noneValue;
  unsigned constCounter = 0;
  ModuleOp moduleOp;
  /// Instantiated model-local functions by (function, attribute binding,
  /// argument types); symbol names already used.
  llvm::StringMap<func::FuncOp> functionInstances;
  llvm::StringSet<> functionSymbols;
  unsigned functionDepth = 0;
  /// The model's opsets of the domains in kExtraDomains it imports.
  llvm::StringMap<int64_t> extraOpsets;

  /// The value of an ONNX name (materializing an initializer); null if
  /// undefined.
  Value lookup(const std::string &name);
  /// Registers `data` under a unique weight name and creates its op.
  Value createWeight(const Tensor &data, llvm::StringRef name, Location loc);
  /// The data of a constant value (a top.Weight result), or nullptr.
  const Tensor *constantData(Value v);
  /// Converts subgraph `g` into the single block of `region`: its inputs
  /// become block arguments of `argTypes`, its nodes are converted with the
  /// names of the enclosing scopes visible, and its outputs are yielded with
  /// top.Yield. The enclosing scope's names are restored afterwards.
  /// With `region` null, converts the nodes of `g` at the current insertion
  /// point, its inputs bound to `inlinedInputs` (of types `argTypes`), and
  /// returns its outputs in `inlinedOutputs` instead.
  LogicalResult convertSubgraph(const onnx::GraphProto &g, Region *region,
                                ArrayRef<Type> argTypes, int64_t opset,
                                Location loc,
                                SmallVectorImpl<Value> *inlinedOutputs = nullptr,
                                ArrayRef<Value> inlinedInputs = {},
                                ArrayRef<OnnxValue> anyInputs = {},
                                std::vector<OnnxValue> *anyOutputs = nullptr);
  /// Runs `convert` on `node` and checks it defined every output.
  LogicalResult runConverter(const onnx::NodeProto &node, int64_t opset,
                             int64_t since, ConvertFn convert);

private:
  LogicalResult checkModel(int64_t &opset);
  LogicalResult createSignature(func::FuncOp &func);
  LogicalResult checkFrozenInput(const onnx::ValueInfoProto &in,
                                 const Tensor &value, Location loc);
  std::vector<std::string> frozenNames;
  LogicalResult orderNodes(const onnx::GraphProto &g,
                           std::vector<const onnx::NodeProto *> &order,
                           int64_t opset);
  LogicalResult convertNode(const onnx::NodeProto &node, int64_t opset);
  const onnx::FunctionProto *findFunction(const onnx::NodeProto &node);
  LogicalResult convertFunctionCall(const onnx::NodeProto &node,
                                    const onnx::FunctionProto &f,
                                    int64_t opset);
  FailureOr<func::FuncOp>
  instantiateFunction(const onnx::NodeProto &node, const onnx::FunctionProto &f,
                      ArrayRef<Type> argTypes, ArrayRef<bool> present,
                      int64_t opset);
  LogicalResult checkDeclaredType(const onnx::ValueInfoProto &info,
                                  llvm::StringRef where);
  Location nodeLoc(const onnx::NodeProto &node);
  InFlightDiagnostic nodeError(const onnx::NodeProto &node, int64_t opset);
};

Location GraphImporter::nodeLoc(const onnx::NodeProto &node) {
  std::string name = node.output_size() && !node.output(0).empty()
                         ? node.output(0)
                         : node.name();
  return NameLoc::get(StringAttr::get(&ctx, name));
}

InFlightDiagnostic GraphImporter::nodeError(const onnx::NodeProto &node,
                                            int64_t opset) {
  return emitError(nodeLoc(node)) << nodePrefix(node, opset);
}

Value GraphImporter::lookup(const std::string &name) {
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  auto init = initializers.find(name);
  if (init == initializers.end())
    return {};
  Tensor data;
  std::string error;
  Location loc = NameLoc::get(StringAttr::get(&ctx, name));
  if (!readTensorProto(*init->second, modelDir, data, error)) {
    emitError(loc) << "initializer '" << name << "': " << error;
    return {};
  }
  Value v = createWeight(data, name, loc);
  values[name] = v;
  return v;
}

Value GraphImporter::createWeight(const Tensor &data, llvm::StringRef name,
                                  Location loc) {
  std::string unique = name.str();
  while (weightNames.contains(unique))
    unique = name.str() + "_" + std::to_string(constCounter++);
  weightNames.insert(unique);
  weights.set(unique, data);
  auto type = RankedTensorType::get(data.shape(),
                                    top::elementTypeOf(data.dtype(), &ctx));
  return top::WeightOp::create(builder, loc, type, unique).getOutput();
}

const Tensor *GraphImporter::constantData(Value v) {
  auto w = v.getDefiningOp<top::WeightOp>();
  return w ? weights.find(w.getName().str()) : nullptr;
}

LogicalResult GraphImporter::checkModel(int64_t &opset) {
  opset = 0;
  Location loc = NameLoc::get(StringAttr::get(&ctx, "model"));
  if (!model.has_graph())
    return emitError(loc) << "the model has no graph (is this an ONNX model?)";
  std::string otherDomains;
  bool importsDefault = false;
  for (const auto &imp : model.opset_import()) {
    if (isDefaultDomain(imp.domain())) {
      opset = imp.version();
      importsDefault = true;
    } else if (extraDomainRegistry().count(imp.domain()))
      extraOpsets[imp.domain()] = imp.version();
    else
      otherDomains += (otherDomains.empty() ? "" : ", ") + imp.domain();
  }
  if (importsDefault && opset < 1)
    return emitError(loc) << "default-domain opset " << opset
                          << " is invalid (opsets start at 1)";
  if (opset == 0 && model.opset_import_size() == 0)
    opset = 1; // ONNX: a missing opset_import means opset 1
  if (opset == 0 && extraOpsets.empty())
    return emitError(loc) << "the model imports no default-domain opset, "
                             "only unsupported domains: "
                          << otherDomains;
  if (!model.has_graph())
    return emitError(loc) << "the model has no graph";
  return success();
}

LogicalResult GraphImporter::createSignature(func::FuncOp &func) {
  const onnx::GraphProto &g = model.graph();
  for (const auto &init : g.initializer()) {
    if (init.name().empty())
      return emitError(UnknownLoc::get(&ctx)) << "an initializer has no name";
    if (!initializers.try_emplace(init.name(), &init).second)
      return emitError(NameLoc::get(StringAttr::get(&ctx, init.name())))
             << "initializer '" << init.name() << "' is defined more than once";
  }
  llvm::StringSet<> inputNames;
  for (const auto &in : g.input()) {
    Location loc = NameLoc::get(StringAttr::get(&ctx, in.name()));
    if (in.name().empty())
      return emitError(loc) << "a graph input has no name";
    if (!inputNames.insert(in.name()).second)
      return emitError(loc) << "graph input '" << in.name()
                            << "' is listed more than once";
  }
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  std::vector<onnx::ValueInfoProto> tensorInputs;
  std::vector<ListInput> listInputs;
  if (failed(expandListInputs(g, options, initializers, &ctx, tensorInputs,
                              listInputs)))
    return failure();
  for (const auto &in : tensorInputs) {
    if (initializers.count(in.name()))
      continue; // old-style: initializers listed as inputs
    Location loc = NameLoc::get(StringAttr::get(&ctx, in.name()));
    if (const Tensor *frozen = options.frozenInputs.find(in.name())) {
      if (failed(checkFrozenInput(in, *frozen, loc)))
        return failure();
      frozenNames.push_back(in.name());
      continue;
    }
    if (!in.type().has_tensor_type())
      return emitError(loc) << "graph input '" << in.name()
                            << "' is not a tensor, sequence or optional (maps "
                               "and sparse tensors are not supported)";
    const auto &tt = in.type().tensor_type();
    Type elem = elementTypeFromOnnx(tt.elem_type(), &ctx);
    if (!elem)
      return emitError(loc) << "graph input '" << in.name()
                            << "' has unsupported element type "
                            << onnxTypeName(tt.elem_type());
    SmallVector<int64_t> shape;
    auto fixed = options.inputShapes.find(in.name());
    if (fixed != options.inputShapes.end()) {
      if (tt.has_shape() &&
          tt.shape().dim_size() != static_cast<int>(fixed->second.size()))
        return emitError(loc) << "--input-shapes gives " << in.name()
                              << " rank " << fixed->second.size()
                              << " but the model says rank "
                              << tt.shape().dim_size();
      shape.assign(fixed->second.begin(), fixed->second.end());
    } else if (!tt.has_shape()) {
      return emitError(loc) << "graph input '" << in.name()
                            << "' has no shape; give one with --input-shapes "
                            << in.name() << ":D0xD1x...";
    } else {
      for (const auto &d : tt.shape().dim()) {
        if (d.has_dim_value() && d.dim_value() >= 0)
          shape.push_back(d.dim_value());
        else
          shape.push_back(ShapedType::kDynamic);
      }
    }
    for (int64_t d : shape)
      if (ShapedType::isDynamic(d))
        return emitError(loc)
               << "graph input '" << in.name() << "' has symbolic or unknown "
               << "dims " << top::formatArray(shape)
               << "; fix them with --input-shapes " << in.name()
               << ":D0xD1x...";
    if (!shapeFits(shape))
      return emitError(loc) << "graph input '" << in.name() << "' has shape "
                            << top::formatArray(shape)
                            << ", whose element count overflows";
    argTypes.push_back(RankedTensorType::get(shape, elem));
    argNames.push_back(in.name());
  }
  for (const auto &[name, _] : options.inputShapes)
    if (!llvm::is_contained(argNames, name))
      return emitError(UnknownLoc::get(&ctx))
             << "--input-shapes names '" << name
             << "', which is not a graph input";
  for (const auto &[name, _] : options.frozenInputs)
    if (!llvm::is_contained(frozenNames, name))
      return emitError(UnknownLoc::get(&ctx))
             << "--freeze-inputs names '" << name
             << "', which is not a graph input";

  func = func::FuncOp::create(builder, UnknownLoc::get(&ctx), "main",
                              builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "top.name", builder.getStringAttr(name));
    Location loc = NameLoc::get(StringAttr::get(&ctx, name));
    Value arg = entry->getArgument(i);
    values[name] =
        top::InputOp::create(builder, loc, arg.getType(), arg).getOutput();
  }
  noneValue = top::NoneOp::create(builder, UnknownLoc::get(&ctx),
                                  builder.getNoneType())
                  .getOutput();
  for (const std::string &name : frozenNames)
    values[name] =
        createWeight(*options.frozenInputs.find(name), name,
                     NameLoc::get(StringAttr::get(&ctx, name)));
  bindListInputs(listInputs, values, lists);
  return success();
}

LogicalResult GraphImporter::checkFrozenInput(const onnx::ValueInfoProto &in,
                                              const Tensor &value,
                                              Location loc) {
  if (!in.type().has_tensor_type())
    return emitError(loc) << "frozen input '" << in.name()
                          << "' is not a tensor";
  const auto &tt = in.type().tensor_type();
  Type elem = elementTypeFromOnnx(tt.elem_type(), &ctx);
  if (elem != top::elementTypeOf(value.dtype(), &ctx))
    return emitError(loc) << "frozen input '" << in.name() << "' has dtype "
                          << dtypeName(value.dtype()) << " but the model says "
                          << onnxTypeName(tt.elem_type());
  if (!shapeFits(value.shape()))
    return emitError(loc) << "frozen input '" << in.name() << "' has shape "
                          << shapeToString(value.shape())
                          << ", whose element count overflows";
  if (tt.has_shape()) {
    bool ok = tt.shape().dim_size() == value.rank();
    for (int i = 0; ok && i < tt.shape().dim_size(); ++i)
      ok = !tt.shape().dim(i).has_dim_value() ||
           tt.shape().dim(i).dim_value() == value.dim(i);
    if (!ok)
      return emitError(loc) << "frozen input '" << in.name() << "' has shape "
                            << shapeToString(value.shape())
                            << ", which the model's input type does not allow";
  }
  return success();
}

/// Adds to `names` the outer-scope names that the subgraphs of `node` use
/// (names their nodes read that no enclosing subgraph defines), so that the
/// node is ordered after their producers.
static void collectImplicitInputs(const onnx::NodeProto &node,
                                  std::vector<std::string> &names) {
  for (const auto &a : node.attribute()) {
    std::vector<const onnx::GraphProto *> graphs;
    if (a.has_g())
      graphs.push_back(&a.g());
    for (const auto &g : a.graphs())
      graphs.push_back(&g);
    for (const onnx::GraphProto *g : graphs) {
      llvm::StringSet<> defined;
      for (const auto &in : g->input())
        defined.insert(in.name());
      for (const auto &init : g->initializer())
        defined.insert(init.name());
      for (const auto &n : g->node())
        for (const std::string &out : n.output())
          defined.insert(out);
      std::vector<std::string> used;
      for (const auto &n : g->node()) {
        for (const std::string &in : n.input())
          used.push_back(in);
        collectImplicitInputs(n, used);
      }
      for (const auto &out : g->output())
        used.push_back(out.name());
      for (std::string &u : used)
        if (!u.empty() && !defined.contains(u))
          names.push_back(std::move(u));
    }
  }
}

LogicalResult
GraphImporter::orderNodes(const onnx::GraphProto &g,
                          std::vector<const onnx::NodeProto *> &order,
                          int64_t opset) {
  llvm::StringMap<int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string &out : g.node(i).output()) {
      if (out.empty())
        continue;
      if (producer.count(out) || values.count(out) || initializers.count(out) ||
          lists.count(out))
        return nodeError(g.node(i), opset)
               << "output '" << out << "' is defined more than once";
      producer[out] = i;
    }
  // Kahn's algorithm; ties keep the file's order.
  std::vector<int> pending(g.node_size(), 0);
  std::vector<std::vector<int>> users(g.node_size());
  for (int i = 0; i < g.node_size(); ++i) {
    std::vector<std::string> inputs(g.node(i).input().begin(),
                                    g.node(i).input().end());
    collectImplicitInputs(g.node(i), inputs);
    for (const std::string &in : inputs) {
      if (in.empty() || values.count(in) || initializers.count(in) ||
          lists.count(in))
        continue;
      auto p = producer.find(in);
      if (p == producer.end())
        return nodeError(g.node(i), opset)
               << "input '" << in
               << "' is not a graph input, an initializer, or any node's "
                  "output";
      ++pending[i];
      users[p->second].push_back(i);
    }
  }
  std::deque<int> ready;
  for (int i = 0; i < g.node_size(); ++i)
    if (pending[i] == 0)
      ready.push_back(i);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(&g.node(i));
    for (int u : users[i])
      if (--pending[u] == 0)
        ready.push_back(u);
  }
  if (order.size() != static_cast<size_t>(g.node_size()))
    for (int i = 0; i < g.node_size(); ++i)
      if (pending[i] > 0)
        return nodeError(g.node(i), opset)
               << "the graph has a cycle through this node";
  return success();
}

LogicalResult GraphImporter::convertNode(const onnx::NodeProto &node,
                                         int64_t opset) {
  if (const onnx::FunctionProto *f = findFunction(node))
    return convertFunctionCall(node, *f, opset);
  auto domain = extraDomainRegistry().find(node.domain());
  if (domain != extraDomainRegistry().end()) {
    auto version = extraOpsets.find(node.domain());
    if (version == extraOpsets.end())
      return nodeError(node, opset) << "the model does not import domain '"
                                    << node.domain() << "'";
    auto it = domain->second.find(node.op_type());
    if (it == domain->second.end())
      return nodeError(node, opset)
             << "op type '" << node.op_type() << "' of domain '"
             << node.domain() << "' is not supported by Strata's importer";
    return runConverter(node, opset, version->second, it->second);
  }
  if (!isDefaultDomain(node.domain()))
    return nodeError(node, opset) << "unknown domain '" << node.domain()
                                  << "' (supported: " << supportedDomains()
                                  << ")";
  if (opset == 0)
    return nodeError(node, opset)
           << "the model imports no default-domain opset";
  int64_t since = selectVersion(node.op_type(), opset);
  if (since == 0)
    return nodeError(node, opset)
           << "op type '" << node.op_type()
           << "' does not exist in the default domain at this opset";
  // Converters implement the schemas of opset 7 and later. An older opset
  // is accepted for the ops whose schema did not change up to opset 7.
  if (opset < 7 && since != selectVersion(node.op_type(), 7))
    return nodeError(node, opset)
           << "op type '" << node.op_type() << "' version " << since
           << " differs from its opset-7 schema (version "
           << selectVersion(node.op_type(), 7)
           << "); Strata imports opset 1-6 models only for ops whose schema "
              "is the same at opset 7";
  if (const OpArity *a = findArity(node.op_type(), since)) {
    int n = node.input_size();
    if (n < a->minInputs || n > a->maxInputs)
      return nodeError(node, opset)
             << "has " << n << " inputs; " << node.op_type() << "-" << since
             << " takes "
             << (a->maxInputs == INT32_MAX ? std::to_string(a->minInputs) +
                                                 " or more"
                 : a->minInputs == a->maxInputs
                     ? std::to_string(a->minInputs)
                     : std::to_string(a->minInputs) + " to " +
                           std::to_string(a->maxInputs));
    for (int i = 0; i < std::min(n, 64); ++i)
      if ((a->requiredInputs >> i & 1) && node.input(i).empty())
        return nodeError(node, opset)
               << "input " << i << " is required but its name is empty";
    if (node.output_size() > a->maxOutputs)
      return nodeError(node, opset)
             << "has " << node.output_size() << " outputs; " << node.op_type()
             << "-" << since << " has at most " << a->maxOutputs;
  }
  auto it = converterRegistry().find(node.op_type());
  if (it == converterRegistry().end())
    return nodeError(node, opset)
           << "op type '" << node.op_type() << "' (version " << since
           << ") is not supported by Strata's importer";
  return runConverter(node, opset, since, it->second);
}

LogicalResult GraphImporter::runConverter(const onnx::NodeProto &node,
                                          int64_t opset, int64_t since,
                                          ConvertFn convert) {
  for (const std::string &in : node.input())
    if (!in.empty() && !lists.count(in) && !lookup(in))
      return failure(); // initializer error already reported
  NodeContext nc(*this, node, opset, since);
  if (failed(routeListInputs(nc, convert)) || failed(convert(nc)))
    return failure();
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty() && !values.count(node.output(i)) &&
        !lists.count(node.output(i)))
      return nodeError(node, opset)
             << "converter produced no value for output '" << node.output(i)
             << "'";
  return success();
}

LogicalResult
GraphImporter::convertSubgraph(const onnx::GraphProto &g, Region *region,
                               ArrayRef<Type> argTypes, int64_t opset,
                               Location loc,
                               SmallVectorImpl<Value> *inlinedOutputs,
                               ArrayRef<Value> inlinedInputs,
                               ArrayRef<OnnxValue> anyInputs,
                               std::vector<OnnxValue> *anyOutputs) {
  if (g.input_size() != static_cast<int>(argTypes.size()))
    return emitError(loc) << "subgraph '" << g.name() << "' has "
                          << g.input_size() << " inputs but " << argTypes.size()
                          << " are expected";
  Block *block = nullptr;
  if (region) {
    block = new Block();
    region->push_back(block);
  }
  // A scope: the subgraph's names shadow nothing outside it once restored.
  llvm::StringMap<Value> outerValues = values;
  llvm::StringMap<const onnx::TensorProto *> outerInitializers = initializers;
  llvm::StringMap<OnnxValue> outerLists = lists;
  llvm::scope_exit restore([&] {
    values = std::move(outerValues);
    initializers = std::move(outerInitializers);
    lists = std::move(outerLists);
  });
  OpBuilder::InsertionGuard guard(builder);
  if (block)
    builder.setInsertionPointToStart(block);
  for (auto [i, in] : llvm::enumerate(g.input())) {
    if (!block && !anyInputs.empty()) {
      if (!in.name().empty())
        bindName(values, lists, in.name(), anyInputs[i]);
      continue;
    }
    Value arg = block ? block->addArgument(argTypes[i],
                                           NameLoc::get(StringAttr::get(
                                               &ctx, in.name())))
                      : inlinedInputs[i];
    if (!in.name().empty())
      bindName(values, lists, in.name(), OnnxValue::of(arg));
  }
  for (const auto &init : g.initializer()) {
    values.erase(init.name());
    lists.erase(init.name());
    initializers[init.name()] = &init;
  }
  std::vector<const onnx::NodeProto *> order;
  if (failed(orderNodes(g, order, opset)))
    return failure();
  for (const onnx::NodeProto *node : order)
    if (failed(convertNode(*node, opset)))
      return failure();
  SmallVector<Value> outputs;
  if (anyOutputs)
    anyOutputs->clear();
  for (const auto &out : g.output()) {
    if (auto l = lists.find(out.name()); l != lists.end() && anyOutputs) {
      anyOutputs->push_back(l->second);
      flattenLeaves(l->second, outputs);
      continue;
    } else if (l != lists.end()) {
      return emitError(NameLoc::get(StringAttr::get(&ctx, out.name())))
             << "subgraph '" << g.name() << "' output '" << out.name()
             << "' is " << describe(l->second)
             << "; only If and unrolled Loop subgraphs may yield sequences "
                "and optionals";
    }
    Value v = lookup(out.name());
    if (!v)
      return emitError(NameLoc::get(StringAttr::get(&ctx, out.name())))
             << "subgraph '" << g.name() << "' output '" << out.name()
             << "' is never defined";
    outputs.push_back(v);
    if (anyOutputs)
      anyOutputs->push_back(OnnxValue::of(v));
  }
  if (!block) {
    inlinedOutputs->assign(outputs.begin(), outputs.end());
    return success();
  }
  top::YieldOp::create(builder, loc, outputs);
  return success();
}

/// A value's type as the graph computes it must agree with a static type the
/// model declares for it (graph output, value_info, or an initializer also
/// listed as a graph input): a contradiction means a corrupt model.
LogicalResult
GraphImporter::checkDeclaredType(const onnx::ValueInfoProto &info,
                                 llvm::StringRef where) {
  if (!info.type().has_tensor_type())
    return success();
  auto it = values.find(info.name());
  if (it == values.end())
    return success();
  auto actual = dyn_cast<RankedTensorType>(it->second.getType());
  if (!actual)
    return success();
  const auto &tt = info.type().tensor_type();
  Location loc = NameLoc::get(StringAttr::get(&ctx, info.name()));
  Type elem = elementTypeFromOnnx(tt.elem_type(), &ctx);
  if (elem && !isa<quant::QuantizedType>(actual.getElementType()) &&
      elem != actual.getElementType())
    return emitError(loc) << where << " '" << info.name()
                          << "' is declared as "
                          << onnxTypeName(tt.elem_type())
                          << " but the graph computes " << actual;
  if (!tt.has_shape())
    return success();
  bool ok = tt.shape().dim_size() == actual.getRank();
  for (int i = 0; ok && i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    ok = !d.has_dim_value() || d.dim_value() < 0 ||
         actual.isDynamicDim(i) || d.dim_value() == actual.getDimSize(i);
  }
  if (ok)
    return success();
  std::string declared = "[";
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    declared += (i ? ", " : "") + (d.has_dim_value()
                                       ? std::to_string(d.dim_value())
                                       : d.dim_param().empty() ? std::string("?")
                                                               : d.dim_param());
  }
  declared += "]";
  return emitError(loc) << where << " '" << info.name()
                        << "' is declared with shape " << declared
                        << " but the graph computes " << actual;
}

FailureOr<ImportedModel> GraphImporter::run() {
  int64_t opset;
  if (failed(checkModel(opset)))
    return failure();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&ctx));
  moduleOp = *module;
  builder.setInsertionPointToEnd(module->getBody());
  func::FuncOp func;
  if (failed(createSignature(func)))
    return failure();
  std::vector<const onnx::NodeProto *> order;
  if (failed(orderNodes(model.graph(), order, opset)))
    return failure();
  for (const onnx::NodeProto *node : order)
    if (failed(convertNode(*node, opset)))
      return failure();

  // Outputs.
  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  SmallVector<NamedAttribute> listOutputs;
  llvm::StringSet<> outputNames;
  for (const auto &out : model.graph().output()) {
    if (!outputNames.insert(out.name()).second)
      return emitError(NameLoc::get(StringAttr::get(&ctx, out.name())))
             << "graph output '" << out.name() << "' is listed more than once";
    if (auto l = lists.find(out.name()); l != lists.end()) {
      flattenListOutput(out.name(), l->second, results, resultNames,
                        listOutputs, builder);
      continue;
    }
    resultNames.push_back(out.name());
    Value v = lookup(out.name());
    if (!v)
      return emitError(NameLoc::get(StringAttr::get(&ctx, out.name())))
             << "graph output '" << out.name() << "' is never defined";
    results.push_back(v);
  }
  for (const auto &out : model.graph().output())
    if (failed(checkDeclaredType(out, "graph output")))
      return failure();
  for (const auto &info : model.graph().value_info())
    if (failed(checkDeclaredType(info, "value_info")))
      return failure();
  for (const auto &in : model.graph().input())
    if (initializers.count(in.name()) &&
        failed(checkDeclaredType(in, "initializer (listed as graph input)")))
      return failure();
  func::ReturnOp::create(builder, UnknownLoc::get(&ctx), results);
  func.setType(builder.getFunctionType(func.getArgumentTypes(),
                                       ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(resultNames))
    func.setResultAttr(i, "top.name", builder.getStringAttr(out));
  if (!listOutputs.empty())
    func->setAttr("strata.list_outputs", builder.getDictionaryAttr(listOutputs));

  // Drop ops nobody uses (unused initializers, folded-away producers), in
  // reverse order so chains disappear in one sweep.
  Block &body = func.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (!op.hasTrait<OpTrait::IsTerminator>() && !isa<top::InputOp>(op) &&
        op.use_empty() && isPure(&op))
      op.erase();
  TensorMap used;
  module->walk([&](top::WeightOp w) {
    used.set(w.getName().str(), *weights.find(w.getName().str()));
  });

  std::string name = options.name;
  (*module)->setAttr(top::kModelNameAttr, builder.getStringAttr(name));
  (*module)->setAttr(top::kWeightFileAttr,
                     builder.getStringAttr(name + "_TOP_F32_all_weight.npz"));
  if (failed(verify(*module)))
    return failure();
  ImportedModel result;
  result.module = std::move(module);
  result.weights = std::move(used);
  return result;
}

//===----------------------------------------------------------------------===//
// Model-local functions
//===----------------------------------------------------------------------===//
//
// A node whose (domain, op type) names a FunctionProto of the model becomes a
// `func.call` of a private `func.func` holding the function's body, converted
// with its attributes bound for this call site (one instantiation per
// distinct binding and argument types). The function carries
// `strata.implements = "<domain>.<name>"` so that composite fusion can
// replace a known one by a fused op; `top-inline-functions` inlines the rest.

const onnx::FunctionProto *
GraphImporter::findFunction(const onnx::NodeProto &node) {
  for (const auto &f : model.functions())
    if (f.name() == node.op_type() &&
        (f.domain() == node.domain() ||
         (isDefaultDomain(f.domain()) && isDefaultDomain(node.domain()))))
      return &f;
  return nullptr;
}

/// An ONNX attribute as an MLIR attribute (null for graphs, tensors, ...).
static Attribute attributeToMlir(const onnx::AttributeProto &a, Builder &b) {
  switch (a.type()) {
  case onnx::AttributeProto::INT:
    return b.getI64IntegerAttr(a.i());
  case onnx::AttributeProto::FLOAT:
    return b.getF32FloatAttr(a.f());
  case onnx::AttributeProto::STRING:
    return b.getStringAttr(a.s());
  case onnx::AttributeProto::INTS:
    return b.getDenseI64ArrayAttr(
        SmallVector<int64_t>(a.ints().begin(), a.ints().end()));
  case onnx::AttributeProto::FLOATS:
    return b.getDenseF32ArrayAttr(
        SmallVector<float>(a.floats().begin(), a.floats().end()));
  default:
    return {};
  }
}

LogicalResult GraphImporter::convertFunctionCall(const onnx::NodeProto &node,
                                                 const onnx::FunctionProto &f,
                                                 int64_t opset) {
  if (node.input_size() > f.input_size())
    return nodeError(node, opset)
           << "calls function '" << f.domain() << "." << f.name() << "' with "
           << node.input_size() << " inputs but it takes " << f.input_size();
  if (node.output_size() > f.output_size())
    return nodeError(node, opset)
           << "expects " << node.output_size() << " outputs from function '"
           << f.domain() << "." << f.name() << "', which has "
           << f.output_size();
  SmallVector<Value> operands;
  SmallVector<Type> argTypes;
  SmallVector<bool> present;
  for (int i = 0; i < f.input_size(); ++i) {
    bool has = i < node.input_size() && !node.input(i).empty();
    present.push_back(has);
    if (!has)
      continue;
    if (lists.count(node.input(i)))
      return nodeError(node, opset)
             << "input '" << node.input(i)
             << "' is a sequence or optional; model-local functions take "
                "tensors only";
    Value v = lookup(node.input(i));
    if (!v)
      return failure();
    operands.push_back(v);
    argTypes.push_back(v.getType());
  }
  auto callee = instantiateFunction(node, f, argTypes, present, opset);
  if (failed(callee))
    return failure();
  auto call = func::CallOp::create(builder, nodeLoc(node), *callee, operands);
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      values[node.output(i)] = call.getResult(i);
  return success();
}

FailureOr<func::FuncOp> GraphImporter::instantiateFunction(
    const onnx::NodeProto &node, const onnx::FunctionProto &f,
    ArrayRef<Type> argTypes, ArrayRef<bool> present, int64_t opset) {
  std::string qualified =
      f.domain().empty() ? f.name() : f.domain() + "." + f.name();
  // Attribute binding: the function's defaults, then the call site's.
  llvm::StringMap<const onnx::AttributeProto *> bound;
  for (const auto &a : f.attribute_proto())
    bound[a.name()] = &a;
  for (const auto &a : node.attribute()) {
    if (!llvm::is_contained(f.attribute(), a.name()) && !bound.count(a.name()))
      return nodeError(node, opset) << "function '" << qualified
                                    << "' has no attribute '" << a.name()
                                    << "'";
    bound[a.name()] = &a;
  }
  std::string key = qualified;
  std::vector<std::string> boundNames;
  for (const auto &entry : bound)
    boundNames.push_back(entry.getKey().str());
  std::sort(boundNames.begin(), boundNames.end());
  for (const std::string &n : boundNames) {
    onnx::AttributeProto a = *bound[n];
    a.set_name(n);
    key += "|" + n + "=" + a.SerializeAsString();
  }
  {
    llvm::raw_string_ostream os(key);
    for (auto [i, p] : llvm::enumerate(present))
      os << (p ? "|in" : "|absent");
    for (Type t : argTypes)
      os << "|" << t;
  }
  if (func::FuncOp existing = functionInstances.lookup(key))
    return existing;
  if (functionDepth >= 32)
    return nodeError(node, opset) << "function '" << qualified
                                  << "' nests calls more than 32 deep "
                                     "(recursive functions are not supported)";

  // The body as a graph, attribute references resolved; absent optional
  // inputs become empty names.
  onnx::GraphProto g;
  g.set_name(qualified);
  for (auto [i, in] : llvm::enumerate(f.input()))
    if (present[i])
      g.add_input()->set_name(in);
  for (const std::string &out : f.output())
    g.add_output()->set_name(out);
  llvm::StringSet<> absent;
  for (auto [i, in] : llvm::enumerate(f.input()))
    if (!present[i])
      absent.insert(in);
  for (const auto &n : f.node()) {
    onnx::NodeProto *copy = g.add_node();
    *copy = n;
    for (std::string &in : *copy->mutable_input())
      if (absent.contains(in))
        in.clear();
    copy->clear_attribute();
    for (const auto &a : n.attribute()) {
      if (a.ref_attr_name().empty()) {
        *copy->add_attribute() = a;
        continue;
      }
      auto it = bound.find(a.ref_attr_name());
      if (it == bound.end())
        continue; // unbound: the attribute is absent
      onnx::AttributeProto *resolved = copy->add_attribute();
      *resolved = *it->second;
      resolved->set_name(a.name());
    }
  }
  int64_t bodyOpset = opset;
  for (const auto &imp : f.opset_import())
    if (isDefaultDomain(imp.domain()))
      bodyOpset = imp.version();

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(moduleOp.getBody());
  std::string symbol = qualified;
  for (unsigned n = 1; functionSymbols.contains(symbol); ++n)
    symbol = qualified + "_" + std::to_string(n);
  functionSymbols.insert(symbol);
  Location loc = NameLoc::get(StringAttr::get(&ctx, qualified));
  auto fn = func::FuncOp::create(builder, loc, symbol,
                                 builder.getFunctionType(argTypes, {}));
  fn.setPrivate();
  fn->setAttr("strata.implements", builder.getStringAttr(qualified));
  fn->setAttr("strata.onnx_domain", builder.getStringAttr(f.domain()));
  fn->setAttr("strata.onnx_name", builder.getStringAttr(f.name()));
  SmallVector<NamedAttribute> attrs;
  for (const std::string &n : boundNames)
    if (Attribute a = attributeToMlir(*bound[n], builder))
      attrs.push_back(builder.getNamedAttr(n, a));
  fn->setAttr("strata.onnx_attributes", builder.getDictionaryAttr(attrs));
  Block *entry = fn.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  // The body sees only its own names (functions are isolated).
  llvm::StringMap<Value> outerValues = std::move(values);
  llvm::StringMap<const onnx::TensorProto *> outerInitializers =
      std::move(initializers);
  llvm::StringMap<OnnxValue> outerLists = std::move(lists);
  Value outerNone = noneValue;
  values.clear();
  initializers.clear();
  lists.clear();
  noneValue = top::NoneOp::create(builder, loc, builder.getNoneType());
  llvm::scope_exit restore([&] {
    values = std::move(outerValues);
    initializers = std::move(outerInitializers);
    lists = std::move(outerLists);
    noneValue = outerNone;
  });
  for (auto [i, in] : llvm::enumerate(g.input()))
    values[in.name()] = entry->getArgument(i);
  std::vector<const onnx::NodeProto *> order;
  if (failed(orderNodes(g, order, bodyOpset))) {
    fn.erase();
    return failure();
  }
  ++functionDepth;
  for (const onnx::NodeProto *n : order)
    if (failed(convertNode(*n, bodyOpset))) {
      --functionDepth;
      fn.erase();
      return failure();
    }
  --functionDepth;
  SmallVector<Value> results;
  for (const std::string &out : f.output()) {
    Value v = lookup(out);
    if (!v) {
      fn.erase();
      return nodeError(node, opset)
             << "function '" << qualified << "' "
             << (lists.count(out) ? "returns a sequence or optional as '"
                                  : "never defines its output '")
             << out << "'" << (lists.count(out) ? " (not supported)" : "");
    }
    results.push_back(v);
  }
  func::ReturnOp::create(builder, loc, results);
  fn.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  if (noneValue.use_empty())
    noneValue.getDefiningOp()->erase();
  functionInstances[key] = fn;
  return fn;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
                         int64_t opset, int64_t since)
    : importer(importer), proto(node), modelOpset(opset), since(since),
      location(UnknownLoc::get(&importer.ctx)) {
  std::string name = node.output_size() && !node.output(0).empty()
                         ? node.output(0)
                         : node.name();
  location = NameLoc::get(StringAttr::get(&importer.ctx, name));
}

OpBuilder &NodeContext::builder() { return importer.builder; }
const std::string &NodeContext::modelDir() const { return importer.modelDir; }
MLIRContext *NodeContext::context() { return &importer.ctx; }

InFlightDiagnostic NodeContext::error() {
  return emitError(location) << nodePrefix(proto, modelOpset);
}

bool NodeContext::hasInput(size_t i) const {
  return i < static_cast<size_t>(proto.input_size()) && !proto.input(i).empty();
}

Value NodeContext::input(size_t i) {
  if (!hasInput(i))
    return importer.noneValue;
  return importer.lookup(proto.input(i));
}

const Tensor *NodeContext::constantInput(size_t i) {
  return hasInput(i) ? importer.constantData(input(i)) : nullptr;
}

std::optional<std::vector<int64_t>> NodeContext::constantInts(size_t i) {
  const Tensor *t = constantInput(i);
  if (!t || isFloat(t->dtype()))
    return std::nullopt;
  std::vector<int64_t> v(t->numElements());
  for (int64_t k = 0; k < t->numElements(); ++k)
    v[k] = t->getAsInt(k);
  return v;
}

Type NodeContext::inputElementType(size_t i) {
  auto t = dyn_cast<ShapedType>(input(i).getType());
  return t ? t.getElementType() : Type();
}

std::optional<std::vector<int64_t>> NodeContext::inputShape(size_t i) {
  if (!hasInput(i) || !top::hasStaticShape(input(i)))
    return std::nullopt;
  auto s = top::shapeOf(input(i));
  return std::vector<int64_t>(s.begin(), s.end());
}

const OnnxValue *NodeContext::listInput(size_t i) {
  if (!hasInput(i))
    return nullptr;
  auto it = importer.lists.find(proto.input(i));
  return it == importer.lists.end() ? nullptr : &it->second;
}

OnnxValue NodeContext::anyInput(size_t i) {
  const OnnxValue *l = listInput(i);
  return l ? *l : OnnxValue::of(input(i));
}

const Tensor *NodeContext::constantValue(Value v) {
  return importer.constantData(v);
}

FailureOr<std::vector<int64_t>> NodeContext::requireShape(size_t i) {
  if (!hasInput(i))
    return error() << "input " << i << " is required";
  std::optional<std::vector<int64_t>> s = inputShape(i);
  if (!s)
    return error() << "input " << i << " ('" << proto.input(i)
                   << "') needs a static shape";
  return *s;
}

FailureOr<int64_t> NodeContext::requireRank(size_t i) {
  // A ranked input with `?` dims (e.g. from a runtime shape operand) will do.
  if (hasInput(i))
    if (auto t = dyn_cast<RankedTensorType>(input(i).getType()))
      return t.getRank();
  auto s = requireShape(i);
  if (failed(s))
    return failure();
  return static_cast<int64_t>(s->size());
}

const onnx::AttributeProto *NodeContext::attr(llvm::StringRef name) const {
  for (const auto &a : proto.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

FailureOr<std::optional<int64_t>> NodeContext::attrIntOpt(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::optional<int64_t>();
  if (a->type() != onnx::AttributeProto::INT)
    return error() << "attribute '" << name << "' must be an int";
  return std::optional<int64_t>(a->i());
}

FailureOr<int64_t> NodeContext::attrInt(llvm::StringRef name, int64_t dflt) {
  auto v = attrIntOpt(name);
  if (failed(v))
    return failure();
  return v->value_or(dflt);
}

FailureOr<float> NodeContext::attrFloat(llvm::StringRef name, float dflt) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return dflt;
  if (a->type() != onnx::AttributeProto::FLOAT)
    return error() << "attribute '" << name << "' must be a float";
  return a->f();
}

FailureOr<std::string> NodeContext::attrString(llvm::StringRef name,
                                               llvm::StringRef dflt) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return dflt.str();
  if (a->type() != onnx::AttributeProto::STRING)
    return error() << "attribute '" << name << "' must be a string";
  return a->s();
}

FailureOr<std::optional<std::vector<int64_t>>>
NodeContext::attrInts(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::optional<std::vector<int64_t>>();
  if (a->type() != onnx::AttributeProto::INTS)
    return error() << "attribute '" << name << "' must be a list of ints";
  return std::optional<std::vector<int64_t>>(
      std::vector<int64_t>(a->ints().begin(), a->ints().end()));
}

FailureOr<std::optional<std::vector<float>>>
NodeContext::attrFloats(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::optional<std::vector<float>>();
  if (a->type() != onnx::AttributeProto::FLOATS)
    return error() << "attribute '" << name << "' must be a list of floats";
  return std::optional<std::vector<float>>(
      std::vector<float>(a->floats().begin(), a->floats().end()));
}

FailureOr<int64_t> NodeContext::normalizeAxis(llvm::StringRef what,
                                              int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return error() << what << " " << axis << " is out of range for rank "
                   << rank;
  return axis < 0 ? axis + rank : axis;
}

Value NodeContext::constant(const Tensor &data, llvm::StringRef hint) {
  std::string base = (hint.empty() ? proto.name() : proto.name() + "_" + hint.str());
  if (base.empty() || base == "_" + hint.str())
    base = (proto.output_size() ? proto.output(0) : "const") + "_" + hint.str();
  return importer.createWeight(data, base, location);
}

Value NodeContext::none() { return importer.noneValue; }

FailureOr<const onnx::GraphProto *>
NodeContext::attrGraph(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return error() << "attribute '" << name << "' (a graph) is required";
  if (a->type() != onnx::AttributeProto::GRAPH || !a->has_g())
    return error() << "attribute '" << name << "' must be a graph";
  return &a->g();
}

LogicalResult NodeContext::convertSubgraph(const onnx::GraphProto &graph,
                                           Region &region,
                                           ArrayRef<Type> argTypes) {
  return importer.convertSubgraph(graph, &region, argTypes, modelOpset,
                                  location);
}

LogicalResult NodeContext::inlineSubgraph(const onnx::GraphProto &graph,
                                          SmallVectorImpl<Value> &outputs) {
  return importer.convertSubgraph(graph, nullptr, {}, modelOpset, location,
                                  &outputs);
}

LogicalResult NodeContext::inlineSubgraph(const onnx::GraphProto &graph,
                                          ArrayRef<Value> inputs,
                                          SmallVectorImpl<Value> &outputs) {
  SmallVector<Type> types;
  for (Value v : inputs)
    types.push_back(v.getType());
  return importer.convertSubgraph(graph, nullptr, types, modelOpset, location,
                                  &outputs, inputs);
}

LogicalResult NodeContext::inlineSubgraph(const onnx::GraphProto &graph,
                                          ArrayRef<OnnxValue> inputs,
                                          std::vector<OnnxValue> &outputs) {
  SmallVector<Type> types(inputs.size(), NoneType::get(context()));
  SmallVector<Value> tensors;
  return importer.convertSubgraph(graph, nullptr, types, modelOpset, location,
                                  &tensors, {}, inputs, &outputs);
}

LogicalResult NodeContext::convertSubgraph(const onnx::GraphProto &graph,
                                           Region &region,
                                           ArrayRef<Type> argTypes,
                                           std::vector<OnnxValue> &outputs) {
  return importer.convertSubgraph(graph, &region, argTypes, modelOpset,
                                  location, nullptr, {}, {}, &outputs);
}

FailureOr<SmallVector<Value>> NodeContext::finish(Operation *op) {
  return finishOp(op);
}

bool NodeContext::hasOutput(size_t i) const {
  return i < static_cast<size_t>(proto.output_size()) &&
         !proto.output(i).empty();
}

void NodeContext::setOutput(size_t i, Value v) {
  if (hasOutput(i))
    setOutput(i, OnnxValue::of(v));
}

void NodeContext::setOutput(size_t i, OnnxValue v) {
  if (hasOutput(i))
    bindName(importer.values, importer.lists, proto.output(i), std::move(v));
}

//===----------------------------------------------------------------------===//
// ValueBuilder
//===----------------------------------------------------------------------===//

FailureOr<Value> ValueBuilder::convert(FailureOr<Value> v, Type to) {
  if (failed(v) || elem(*v) == to)
    return v;
  return c.create<top::CastOp>(to, *v, c.builder().getBoolAttr(true));
}

FailureOr<Value> ValueBuilder::clip(FailureOr<Value> v, double lo, double hi) {
  if (failed(v))
    return failure();
  OpBuilder &b = c.builder();
  return c.create<top::ClipOp>(elem(*v), *v, b.getF64FloatAttr(lo),
                               b.getF64FloatAttr(hi));
}

FailureOr<Value> ValueBuilder::reshape(FailureOr<Value> v,
                                       ArrayRef<int64_t> shape) {
  if (failed(v))
    return failure();
  return c.create<top::ReshapeOp>(elem(*v), *v,
                                  c.builder().getDenseI64ArrayAttr(shape));
}

Value ValueBuilder::scalar(Type type, double v) {
  Tensor t(top::dtypeOf(type).value_or(DType::F32), {});
  t.setFromDouble(0, v);
  return c.constant(t, "scalar");
}

FailureOr<Value> ValueBuilder::roundHalfEven(FailureOr<Value> v) {
  if (failed(v))
    return failure();
  Type t = elem(*v);
  double magic = t.isF64() ? 6755399441055744.0 : 12582912.0;
  return op<top::SubOp>(op<top::AddOp>(v, scalar(t, magic)), scalar(t, magic));
}

/// Elementwise Top ops, whose shape inference handles `?` dims.
static bool isElementwise(Operation *op) {
  using namespace top;
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, CompareOp,
             WhereOp, CastOp, ReluOp, AbsOp, NegOp, LeakyReluOp, ClipOp,
             SigmoidOp, TanhOp, GeluOp, SiLUOp, HardSigmoidOp, HardSwishOp,
             ExpOp, LogOp, SqrtOp, RsqrtOp, ErfOp, SinOp, CosOp, TanOp, AsinOp,
             AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp,
             BitwiseNotOp>(op);
}

FailureOr<SmallVector<Value>> NodeContext::finishOp(Operation *op) {
  bool operandsStatic = llvm::all_of(op->getOperands(), [](Value v) {
    return top::isNone(v) || top::hasStaticShape(v);
  });
  // The name outlives the op, which is erased on failure.
  OperationName name = op->getName();
  if (operandsStatic) {
    if (failed(top::inferAndSetResultTypes(op))) {
      op->erase();
      return error() << "the converted " << name
                     << " is invalid (see the error above)";
    }
  } else if (isElementwise(op) &&
             llvm::all_of(op->getOperands(), [](Value v) {
               return isa<RankedTensorType>(v.getType());
             })) {
    // Ranked operands with `?` dims (runtime shape operands, data-dependent
    // results): elementwise ops still give a ranked result (broadcasting
    // keeps `?` where it cannot decide), which e.g. a Loop body must yield.
    // If inference cannot tell, the result stays unranked, as before.
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    (void)top::inferAndSetResultTypes(op);
  }
  if (failed(mlir::verify(op))) {
    op->erase();
    return error() << "the converted " << name << " is invalid";
  }
  for (Value r : op->getResults()) {
    auto t = dyn_cast<RankedTensorType>(r.getType());
    if (!t)
      continue;
    SmallVector<int64_t> dims;
    for (int64_t d : t.getShape())
      dims.push_back(ShapedType::isDynamic(d) ? 0 : d);
    if (!shapeFits(dims)) {
      op->erase();
      return error() << "the converted " << name << " would have shape "
                     << top::formatArray(t.getShape())
                     << ", whose element count overflows";
    }
  }
  // Constant folding: every tensor operand is a weight.
  // Ops with regions may read outer values the folder cannot see.
  bool allConstant = op->getNumOperands() > 0 && operandsStatic &&
                     op->getNumRegions() == 0 &&
                     llvm::all_of(op->getOperands(), [&](Value v) {
                       return top::isNone(v) || importer.constantData(v);
                     });
  SmallVector<Value> results(op->getResults());
  if (!allConstant)
    return results;
  auto iface = dyn_cast<top::InterpretableOpInterface>(op);
  if (!iface)
    return results;
  int64_t total = 0;
  for (Value r : results) // data-dependent (`?`) dims are bounded by inputs
    if (auto t = cast<ShapedType>(r.getType()); t.hasStaticShape())
      total += t.getNumElements();
  if (total > (int64_t(1) << 24))
    return results;
  top::InterpreterEnv env;
  for (Value v : op->getOperands())
    if (!top::isNone(v))
      env.set(v, *importer.constantData(v));
  if (failed(iface.interpret(env)))
    return error() << "evaluating constant " << op->getName() << " failed";
  SmallVector<Value> folded;
  for (auto [i, r] : llvm::enumerate(results))
    folded.push_back(constant(env.get(r), "folded" + std::to_string(i)));
  op->erase();
  return folded;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

FailureOr<ImportedModel> importOnnxBuffer(llvm::StringRef bytes,
                                          const std::string &modelDir,
                                          llvm::StringRef what,
                                          MLIRContext &context,
                                          const ImportOptions &options) {
  Location loc = NameLoc::get(StringAttr::get(&context, what));
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    return emitError(loc) << "'" << what
                          << "' is larger than 2 GiB; store its weights as "
                             "external data";
  if (bytes.empty())
    return emitError(loc) << "'" << what << "' is empty, not an ONNX model";
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return emitError(loc) << "'" << what
                          << "' is not a valid ONNX model (protobuf parsing "
                             "failed: truncated or corrupt file)";
  context.loadDialect<top::TopDialect, func::FuncDialect>();
  GraphImporter importer(context, model, modelDir, options);
  return importer.run();
}

FailureOr<ImportedModel> importOnnxFile(const std::string &path,
                                        MLIRContext &context,
                                        const ImportOptions &options) {
  Location loc = NameLoc::get(StringAttr::get(&context, path));
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return emitError(loc) << "cannot read '" << path
                          << "': " << buf.getError().message();
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  ImportOptions opts = options;
  if (opts.name.empty())
    opts.name = llvm::sys::path::stem(path).str();
  return importOnnxBuffer((*buf)->getBuffer(), std::string(dir), path, context,
                          opts);
}

} // namespace strata::onnx_import
