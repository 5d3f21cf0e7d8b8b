//===- FuseComposites.cpp - composite functions to fused ops --------------===//
//
// A function marked `strata.implements = "<name>"` (or TensorFlow's
// `tf._implements`) whose name has a converter in the CompositeRegistry gets
// its body replaced by the fused op(s) the converter builds, once the
// converter accepted its signature; `top-inline-functions` then puts the
// fused op at every call site. A composite that does not verify is left as
// it is, with a warning naming the function and the failed check. An ONNX
// model-local function is fused only when the fused op computes what its
// body does on seeded inputs (CompositeEquivalence.cpp); a converter
// attribute of the wrong kind is an error.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/Transforms/CompositeRegistry.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"

namespace strata::top {
#define GEN_PASS_DEF_TOPFUSECOMPOSITES
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata::top;

namespace {
/// The interface a composite implements and its converter attributes.
struct CompositeMark {
  std::string name;
  DictionaryAttr attrs;
};

/// Adds the entries of `dict` (except `skip`) to `out`; later entries win.
void mergeAttrs(DictionaryAttr dict, StringRef skip,
                SmallVectorImpl<NamedAttribute> &out) {
  if (!dict)
    return;
  for (NamedAttribute a : dict) {
    if (a.getName().getValue() == skip)
      continue;
    llvm::erase_if(out, [&](NamedAttribute &o) {
      return o.getName() == a.getName();
    });
    out.push_back(a);
  }
}

/// Reads the mark: `strata.implements` (a string) or `tf._implements` (a
/// string, or a dictionary whose `name` entry is the name and whose other
/// entries are converter attributes). Attributes also come from
/// `strata.onnx_attributes` (bound ONNX function attributes) and
/// `strata.composite_attributes`.
std::optional<CompositeMark> readMark(func::FuncOp fn) {
  CompositeMark mark;
  SmallVector<NamedAttribute> attrs;
  // A mark of the wrong form is not a composite; say so rather than
  // silently ignoring what was meant as one.
  auto malformed = [&](StringRef attr, Attribute value, StringRef expected) {
    fn.emitWarning() << "composite '" << fn.getSymName() << "': attribute '"
                     << attr << "' must be " << expected << ", got " << value
                     << "; left unfused";
    return std::nullopt;
  };
  if (Attribute given = fn->getAttr("strata.implements")) {
    auto s = dyn_cast<StringAttr>(given);
    if (!s)
      return malformed("strata.implements", given, "a string");
    mark.name = s.str();
  } else if (Attribute tf = fn->getAttr("tf._implements")) {
    if (auto s = dyn_cast<StringAttr>(tf)) {
      mark.name = s.str();
    } else if (auto d = dyn_cast<DictionaryAttr>(tf)) {
      auto name = d.getAs<StringAttr>("name");
      if (!name)
        return malformed("tf._implements", tf,
                         "a string or a dictionary with a string 'name'");
      mark.name = name.str();
      mergeAttrs(d, "name", attrs);
    } else {
      return malformed("tf._implements", tf,
                       "a string or a dictionary with a string 'name'");
    }
  } else {
    return std::nullopt;
  }
  mergeAttrs(fn->getAttrOfType<DictionaryAttr>("strata.onnx_attributes"), "",
             attrs);
  mergeAttrs(fn->getAttrOfType<DictionaryAttr>("strata.composite_attributes"),
             "", attrs);
  mark.attrs = DictionaryAttr::get(fn.getContext(), attrs);
  return mark;
}

/// Builds the fused body in a new block; on success it replaces the old
/// body. Returns the failure message otherwise (the IR is unchanged).
std::optional<std::string> fuse(func::FuncOp fn, const CompositeMark &mark,
                                const CompositeConverter &converter) {
  MLIRContext *ctx = fn.getContext();
  Region &body = fn.getBody();
  auto *block = new Block();
  body.push_back(block);
  FunctionType type = fn.getFunctionType();
  for (Type t : type.getInputs())
    block->addArgument(t, fn.getLoc());

  std::string firstError;
  FailureOr<SmallVector<Value>> results = failure();
  {
    // Diagnostics of the fused ops become the warning's text.
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
        firstError = diag.str();
      return success();
    });
    OpBuilder builder(ctx);
    builder.setInsertionPointToStart(block);
    Location loc = fn.getLoc();
    results = converter.build(builder, loc, block->getArguments(), mark.attrs);
  }
  std::string problem;
  if (failed(results)) {
    problem = firstError.empty()
                  ? "the fused op could not be built"
                  : "the fused op does not verify: " + firstError;
  } else if (results->size() < type.getNumResults()) {
    problem = "the fused op gives " + std::to_string(results->size()) +
              " results, the function " +
              std::to_string(type.getNumResults());
  } else {
    // A converter may give more values than the function returns (an LSTM
    // layer's final states); the leading ones are the function's results.
    results->resize(type.getNumResults());
    for (auto [i, v] : llvm::enumerate(*results)) {
      if (v.getType() == type.getResult(i))
        continue;
      llvm::raw_string_ostream os(problem);
      os << "fused result " << i << " has type " << v.getType()
         << ", the function returns " << type.getResult(i);
      break;
    }
  }
  if (!problem.empty()) {
    block->dropAllDefinedValueUses();
    block->erase();
    return problem;
  }
  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(block);
  func::ReturnOp::create(builder, fn.getLoc(), *results);
  while (&body.front() != block) {
    body.front().dropAllDefinedValueUses();
    body.front().erase();
  }
  return std::nullopt;
}

/// True for a function whose name is not a promise: an ONNX model-local
/// function (the importer records its ONNX name), whose body is its meaning.
bool nameIsOnlyAHint(func::FuncOp fn) {
  return fn->hasAttr("strata.onnx_name");
}

/// Fuses `fn` when its body computes what the fused op does: a copy of the
/// original (renamed, beside it so its calls resolve) is run against the
/// fused function on seeded inputs, and restored if they differ.
std::optional<std::string> fuseIfEquivalent(func::FuncOp fn,
                                            const CompositeMark &mark,
                                            const CompositeConverter &converter) {
  OpBuilder builder(fn);
  builder.setInsertionPointAfter(fn);
  auto original = cast<func::FuncOp>(builder.clone(*fn));
  original.setSymName((fn.getSymName() + ".strata_original").str());
  std::optional<std::string> problem = fuse(fn, mark, converter);
  if (!problem) {
    problem = checkFusedMatchesBody(original, fn);
    if (problem) // put the original body back
      fn.getBody().takeBody(original.getBody());
  }
  original.erase();
  return problem;
}

struct TopFuseCompositesPass
    : public strata::top::impl::TopFuseCompositesBase<TopFuseCompositesPass> {
  void runOnOperation() override {
    const CompositeRegistry &registry = CompositeRegistry::global();
    // Collected first: checking a fusion adds a function beside it.
    auto functions = llvm::to_vector(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      std::optional<CompositeMark> mark = readMark(fn);
      if (!mark || fn->hasAttr("strata.fused"))
        continue;
      const CompositeConverter *converter = registry.lookup(mark->name);
      if (!converter)
        continue; // unknown interface: inlined as written
      // A malformed attribute is an error: fusing with the default value
      // would silently compute something else.
      if (std::optional<std::string> bad =
              checkAttributeKinds(mark->attrs, converter->attributes())) {
        fn.emitError() << "composite '" << fn.getSymName() << "' ("
                       << mark->name << "): " << *bad;
        return signalPassFailure();
      }
      std::optional<std::string> problem = converter->verify(fn, mark->attrs);
      if (!problem)
        problem = nameIsOnlyAHint(fn) ? fuseIfEquivalent(fn, *mark, *converter)
                                      : fuse(fn, *mark, *converter);
      if (problem)
        fn.emitWarning() << "composite '" << fn.getSymName() << "' ("
                         << mark->name << "): " << *problem
                         << "; left unfused";
      else
        fn->setAttr("strata.fused", UnitAttr::get(fn.getContext()));
    }
  }
};
} // namespace
