//===- ConverterRegistry.cpp - a node to its converter --------------------===//
//
// The converters of every Convert*.cpp table by domain and op type, the
// schema versions and arities of the default domain's ops (generated from
// the pinned onnx package), and GraphImporter::convertNode: it picks a
// node's converter (or model-local function), selects the op's schema
// version from the model's opset, checks the node's input and output
// counts against it and runs the converter (runConverter).
//
//===----------------------------------------------------------------------===//

#include "ConverterRegistry.h"
#include "GraphImporter.h"
#include "NodeContext.h"

#include "strata/Interfaces/NodeOrigin.h"

#include "llvm/ADT/StringSet.h"

#include <algorithm>

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

/// One attribute of one schema version, with its AttributeProto type.
struct OpAttribute {
  const char *op;
  int since;
  const char *name;
  int type;
};
#define ONNX_OP(NAME, ...)
#define ONNX_ATTR(NAME, SINCE, ATTR, TYPE) {NAME, SINCE, ATTR, TYPE},
const OpAttribute kOpAttributes[] = {
#include "OnnxOpVersions.inc"
};
#undef ONNX_ATTR
#undef ONNX_OP

/// The attributes (name to AttributeProto type) of each schema version, by
/// "OpType/since"; a version with no attributes has no entry.
const llvm::StringMap<llvm::StringMap<int>> &attributeSchemas() {
  static const llvm::StringMap<llvm::StringMap<int>> schemas = [] {
    llvm::StringMap<llvm::StringMap<int>> m;
    for (const OpAttribute &a : kOpAttributes)
      m[std::string(a.op) + "/" + std::to_string(a.since)][a.name] = a.type;
    return m;
  }();
  return schemas;
}

const char *attributeTypeName(int type) {
  if (onnx::AttributeProto_AttributeType_IsValid(type))
    return onnx::AttributeProto_AttributeType_Name(
               static_cast<onnx::AttributeProto_AttributeType>(type))
        .c_str();
  return "INVALID";
}

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
             elementwiseActivationConverters(),
             mathConverters(),
             nnConverters(),
             nnConvConverters(),
             nnPoolConverters(),
             nnNormConverters(),
             nnResizeConverters(),
             shapeConverters(),
             shapeSliceConverters(),
             shapeReduceConverters(),
             selectConverters(),
             selectDataDependentConverters(),
             quantConverters(),
             quantIntegerConverters(),
             recurrentConverters(),
             geometryConverters(),
             transformerConverters(),
             controlFlowConverters(),
             typeConverters(),
             sequenceConverters(),
             einsumConverters(),
             tfidfConverters(),
             causalConvConverters(),
             trainingConverters(),
         })
      for (const ConverterEntry &e : table)
        r[e.opType] = e.convert;
    return r;
  }();
  return registry;
}

/// The com.microsoft tables as one.
ArrayRef<ConverterEntry> contribConverters() {
  static std::vector<ConverterEntry> all = [] {
    std::vector<ConverterEntry> r;
    for (auto table : {contribFusedConverters(), contribNormConverters(),
                       contribAttentionConverters(), contribQuantConverters()})
      r.insert(r.end(), table.begin(), table.end());
    return r;
  }();
  return all;
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
    {"com.microsoft", contribConverters},
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

} // namespace

bool isDefaultDomain(const std::string &d) {
  return d.empty() || d == "ai.onnx";
}

bool isExtraDomain(const std::string &d) {
  return extraDomainRegistry().count(d) != 0;
}

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

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const auto &e : converterRegistry())
    ops.push_back(e.getKey().str());
  std::sort(ops.begin(), ops.end());
  return ops;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

Location GraphImporter::nodeLoc(const onnx::NodeProto &node) {
  std::string name = node.output_size() && !node.output(0).empty()
                         ? node.output(0)
                         : node.name();
  return nodeLocation(&ctx, name, node.name(), node.op_type());
}

InFlightDiagnostic GraphImporter::nodeError(const onnx::NodeProto &node,
                                            int64_t opset) {
  return emitError(nodeLoc(node)) << nodePrefix(node, opset);
}

int64_t maxSupportedOpset() { return STRATA_ONNX_MAX_OPSET; }

/// Why `node`'s attributes are invalid for schema version `since` of its op
/// (0: only the duplicate check, for functions and other domains); empty if
/// they are valid. ONNX Runtime refuses an unknown attribute, or one of
/// another type than the schema's, the same way.
static std::string attributeError(const onnx::NodeProto &node,
                                  int64_t since) {
  llvm::StringSet<> seen;
  for (const onnx::AttributeProto &a : node.attribute())
    if (!seen.insert(a.name()).second)
      return "attribute '" + a.name() + "' is given more than once";
  if (since == 0)
    return "";
  std::string version = node.op_type() + "-" + std::to_string(since);
  auto schema = attributeSchemas().find(node.op_type() + "/" +
                                        std::to_string(since));
  for (const onnx::AttributeProto &a : node.attribute()) {
    if (schema == attributeSchemas().end() ||
        !schema->second.count(a.name()))
      return "attribute '" + a.name() + "' is not an attribute of " + version;
    int type = schema->second.lookup(a.name());
    // UNDEFINED: a model older than IR version 2, typed by its field.
    if (a.type() != onnx::AttributeProto::UNDEFINED && a.type() != type)
      return "attribute '" + a.name() + "' has type " +
             attributeTypeName(a.type()) + "; " + version + " takes " +
             attributeTypeName(type);
  }
  return "";
}

LogicalResult GraphImporter::convertNode(const onnx::NodeProto &node,
                                         int64_t opset) {
  if (std::string e = attributeError(node, /*since=*/0); !e.empty())
    return nodeError(node, opset) << e;
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
  // ONNX Runtime's version-1 ops of the default domain, where ONNX has none
  // at this opset.
  if (since == 0)
    for (const ConverterEntry &e : ortDefaultDomainConverters())
      if (node.op_type() == e.opType)
        return runConverter(node, opset, 1, e.convert);
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
  if (std::string e = attributeError(node, since); !e.empty())
    return nodeError(node, opset) << e;
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

} // namespace strata::onnx_import
