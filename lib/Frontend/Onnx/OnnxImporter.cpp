//===- OnnxImporter.cpp - ONNX model to Top dialect -----------------------===//
//
// The model and graph reader: the entry points of OnnxImporter.h (protobuf
// parsing), the model's checks before any IR is built (opsets, initializer
// and graph input names, input shapes and frozen inputs), the topological
// order of the nodes (undefined inputs, duplicate outputs, cycles) and
// GraphImporter::run, which converts the nodes in that order and builds
// the function's results. GraphImporter.h says where the rest of the
// importer is.
//
//===----------------------------------------------------------------------===//

#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "GraphImporter.h"
#include "TypeChecks.h"

#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Frontend/FinishImport.h"
#include "strata/Interfaces/StaticSizeLimit.h"
#include "strata/Support/InputFile.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>

#include <deque>

using namespace mlir;

namespace strata::onnx_import {

LogicalResult GraphImporter::checkModel(int64_t &opset) {
  opset = 0;
  Location loc = NameLoc::get(StringAttr::get(&ctx, "model"));
  if (!model.has_graph())
    return emitError(loc) << "the model has no graph (is this an ONNX model?)";
  std::string otherDomains;
  bool importsDefault = false;
  for (const auto &imp : model.opset_import()) {
    if (isDefaultDomain(imp.domain())) {
      // '' and 'ai.onnx' name one domain: two versions of it contradict.
      if (importsDefault && imp.version() != opset)
        return emitError(loc) << "the model imports the default domain twice, "
                                 "at opsets "
                              << opset << " and " << imp.version()
                              << " ('' and 'ai.onnx' are the same domain)";
      opset = imp.version();
      importsDefault = true;
    } else if (isExtraDomain(imp.domain()))
      extraOpsets[imp.domain()] = imp.version();
    else
      otherDomains += (otherDomains.empty() ? "" : ", ") + imp.domain();
  }
  if (importsDefault && opset < 1)
    return emitError(loc) << "default-domain opset " << opset
                          << " is invalid (opsets start at 1)";
  if (opset > maxSupportedOpset())
    return emitError(loc) << "default-domain opset " << opset
                          << " is newer than Strata supports (opsets 1 to "
                          << maxSupportedOpset() << ")";
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
  if (g.sparse_initializer_size())
    return emitError(NameLoc::get(
               StringAttr::get(&ctx, g.sparse_initializer(0).values().name())))
           << "sparse initializer '" << g.sparse_initializer(0).values().name()
           << "' is not supported (Strata imports dense initializers only; "
              "the model has "
           << g.sparse_initializer_size() << " sparse ones)";
  for (const auto &in : g.input())
    if (failed(checkDeclaredDims(in, "graph input")))
      return failure();
  for (const auto &out : g.output())
    if (failed(checkDeclaredDims(out, "graph output")))
      return failure();
  for (const auto &info : g.value_info())
    if (failed(checkDeclaredDims(info, "value_info")))
      return failure();
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
      // Overriding a dim the model fixes is allowed (the graph may accept
      // it) but is said, since the model's author chose that size.
      if (tt.has_shape())
        for (int i = 0; i < tt.shape().dim_size(); ++i)
          if (tt.shape().dim(i).has_dim_value() &&
              tt.shape().dim(i).dim_value() != shape[i])
            emitWarning(loc) << "--input-shapes sets dim " << i << " of '"
                             << in.name() << "' to " << shape[i]
                             << "; the model declares it static, "
                             << tt.shape().dim(i).dim_value();
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
    if (failed(checkDeclaredType(out, "graph output", /*shapeIsHint=*/true)))
      return failure();
  for (const auto &info : model.graph().value_info())
    if (failed(checkDeclaredType(info, "value_info", /*shapeIsHint=*/true)))
      return failure();
  for (const auto &in : model.graph().input())
    if (initializers.count(in.name()) &&
        failed(checkDeclaredType(in, "initializer (listed as graph input)",
                                 /*shapeIsHint=*/false)))
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
  FailureOr<TensorMap> used = frontend::finishImportedModule(
      *module, func.getBody().front(), weights, options.name);
  if (failed(used))
    return failure();
  ImportedModel result;
  result.module = std::move(module);
  result.weights = std::move(*used);
  return result;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// Protobuf's default nesting limit, which ONNX Runtime keeps too.
constexpr int kNestingLimit = 100;
/// The limit of the second parse that tells a too-deep model from a corrupt
/// one (small enough for the parser's recursion to stay on the stack).
constexpr int kNestingDiagnosisLimit = 1000;

/// Parses `bytes` as a whole ModelProto, nesting at most `limit` messages.
static bool parseModel(llvm::StringRef bytes, int limit,
                       onnx::ModelProto &model) {
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  in.SetRecursionLimit(limit);
  return model.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

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
  if (!parseModel(bytes, kNestingLimit, model)) {
    // Protobuf fails the same way on messages nested deeper than its limit;
    // an intact model that parses with a higher one is only too deep.
    onnx::ModelProto deeper;
    if (parseModel(bytes, kNestingDiagnosisLimit, deeper))
      return emitError(loc) << "'" << what << "' nests messages (graphs in "
                            << "node attributes) deeper than protobuf's limit "
                            << "of " << kNestingLimit
                            << " levels: nesting too deep to import";
    return emitError(loc) << "'" << what
                          << "' is not a valid ONNX model (protobuf parsing "
                             "failed: truncated or corrupt file)";
  }
  context.loadDialect<top::TopDialect, func::FuncDialect>();
  GraphImporter importer(context, model, modelDir, options);
  FailureOr<ImportedModel> imported = importer.run();
  if (succeeded(imported) &&
      failed(checkStaticSizeLimit(imported->module->getOperation())))
    return failure();
  return imported;
}

FailureOr<ImportedModel> importOnnxFile(const std::string &path,
                                        MLIRContext &context,
                                        const ImportOptions &options) {
  Location loc = NameLoc::get(StringAttr::get(&context, path));
  InputFile file;
  std::string error;
  if (!file.open(path, "ONNX model", error))
    return emitError(loc) << error;
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  ImportOptions opts = options;
  if (opts.name.empty())
    opts.name = llvm::sys::path::stem(path).str();
  return importOnnxBuffer(llvm::StringRef(file.text().data(), file.size()),
                          std::string(dir), path, context, opts);
}

} // namespace strata::onnx_import
