//===- Compiler.cpp - strata._core: models, compile, run_ref, compare -----===//
//
// A Model is a Top module with its weights in its own MLIRContext, imported
// from ONNX or read from a .mlir; compile_cpu turns it into the bytes of a
// .strata artifact (lib/Target/Cpu), run_ref runs it in the reference
// interpreter. MLIR diagnostics become the message of strata.Error.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "strata/Interfaces/HostTypes.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/Pipelines/Quantize.h"
#include "strata/Support/Compare.h"
#include "strata/Target/Cpu/CpuTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>

namespace strata::python {

using ShapeMap = std::map<std::string, std::vector<int64_t>>;

/// Collects the error diagnostics emitted on a context while it lives.
class Diagnostics {
public:
  explicit Diagnostics(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &d) {
          if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
            return mlir::success();
          llvm::raw_string_ostream os(text);
          if (!text.empty())
            os << "\n";
          if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
            os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
               << loc.getColumn() << ": ";
          else if (auto loc = llvm::dyn_cast<mlir::NameLoc>(d.getLocation()))
            os << "'" << loc.getName().getValue() << "': ";
          os << d;
          for (const mlir::Diagnostic &note : d.getNotes())
            os << "\n  note: " << note;
          return mlir::success();
        }) {}

  /// Throws Error with `what`, then the diagnostics collected.
  [[noreturn]] void fail(const std::string &what) const {
    throw Error(text.empty() ? what : what + ": " + text);
  }

private:
  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

static std::unique_ptr<mlir::MLIRContext> newContext() {
  auto context = std::make_unique<mlir::MLIRContext>();
  registerAndLoadDialects(*context);
  context->printOpOnDiagnostic(false);
  return context;
}

/// A Top model with its weights; `source` remembers how to import it again
/// with other input shapes (compile's variants).
struct Model {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  TensorMap weights;
  std::string name;
  bool fromOnnx = false;
  std::string onnxPath;  // or
  std::string onnxBytes; // the serialized ModelProto
  ShapeMap importShapes;

  mlir::func::FuncOp entry() const {
    mlir::FailureOr<mlir::func::FuncOp> f = findEntryFunction(module.get());
    if (failed(f))
      throw Error("model '" + name + "' has no entry function");
    return *f;
  }
};

using Info = std::tuple<std::string, std::vector<int64_t>, std::string>;

static Info typeInfo(const std::string &name, mlir::Type type) {
  std::vector<int64_t> shape;
  mlir::Type element = type;
  if (auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(type)) {
    for (int64_t d : ranked.getShape())
      shape.push_back(mlir::ShapedType::isDynamic(d) ? -1 : d);
    element = ranked.getElementType();
  } else if (auto tensor = llvm::dyn_cast<mlir::TensorType>(type)) {
    element = tensor.getElementType();
  }
  std::optional<DType> dtype = strata::dtypeOf(element);
  std::string dtypeText;
  if (dtype) {
    dtypeText = dtypeName(*dtype);
  } else {
    llvm::raw_string_ostream os(dtypeText);
    element.print(os);
  }
  return {name, shape, dtypeText};
}

static std::vector<Info> modelInputs(const Model &m) {
  mlir::func::FuncOp f = m.entry();
  std::vector<Info> infos;
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    infos.push_back(typeInfo(inputName(f, i), f.getArgument(i).getType()));
  return infos;
}

static std::vector<Info> modelOutputs(const Model &m) {
  mlir::func::FuncOp f = m.entry();
  std::vector<Info> infos;
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    infos.push_back(typeInfo(outputName(f, i), f.getResultTypes()[i]));
  return infos;
}

/// Imports the ONNX model of `m` again into `context` with `shapes`.
static onnx_import::ImportedModel
importOnnx(const Model &m, mlir::MLIRContext &context, const ShapeMap &shapes) {
  Diagnostics diag(context);
  onnx_import::ImportOptions options;
  options.name = m.name;
  options.inputShapes = shapes;
  mlir::FailureOr<onnx_import::ImportedModel> imported =
      m.onnxPath.empty()
          ? onnx_import::importOnnxBuffer(m.onnxBytes, "", "<ModelProto>",
                                          context, options)
          : onnx_import::importOnnxFile(m.onnxPath, context, options);
  if (failed(imported))
    diag.fail("import_onnx: cannot import '" +
              (m.onnxPath.empty() ? std::string("<ModelProto>") : m.onnxPath) +
              "'");
  return std::move(*imported);
}

static Model importOnnxModel(const std::optional<std::string> &path,
                             const std::optional<nb::bytes> &bytes,
                             const std::string &name, const ShapeMap &shapes) {
  Model m;
  m.fromOnnx = true;
  if (path)
    m.onnxPath = *path;
  else if (bytes)
    m.onnxBytes.assign(static_cast<const char *>(bytes->data()), bytes->size());
  else
    throw Error("import_onnx: give a path or the bytes of a ModelProto");
  m.name = name;
  if (m.name.empty() && path) {
    m.name = llvm::sys::path::stem(*path).str();
  }
  if (m.name.empty())
    m.name = "model";
  m.importShapes = shapes;
  m.context = newContext();
  onnx_import::ImportedModel imported = importOnnx(m, *m.context, shapes);
  m.module = std::move(imported.module);
  m.weights = std::move(imported.weights);
  return m;
}

static Model loadMlirModel(const std::string &path,
                           const std::string &weights) {
  Model m;
  m.context = newContext();
  Diagnostics diag(*m.context);
  std::string error;
  if (failed(
          loadTopModel(path, weights, *m.context, m.module, m.weights, error)))
    diag.fail("load_mlir: " + error);
  m.name = llvm::sys::path::stem(path).str();
  if (llvm::StringRef(m.name).ends_with("_origin"))
    m.name.resize(m.name.size() - 7);
  return m;
}

/// A copy of `m`'s module and weights in `context` (imported again from
/// ONNX with `shapes` when given), optimized when `optimize`; Strata's
/// optimizer rewrites in place, so every use works on its own copy.
static std::pair<mlir::OwningOpRef<mlir::ModuleOp>, TensorMap>
copyModel(const Model &m, mlir::MLIRContext &context, const ShapeMap &shapes,
          bool optimize, const std::string &layout, const std::string &what) {
  Diagnostics diag(context);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  TensorMap weights;
  if (!shapes.empty()) {
    if (!m.fromOnnx)
      throw Error(what +
                  ": input_shapes needs a model imported from ONNX "
                  "(model '" +
                  m.name + "' was read from a Top module)");
    ShapeMap merged = m.importShapes;
    for (const auto &[k, v] : shapes)
      merged[k] = v;
    onnx_import::ImportedModel imported = importOnnx(m, context, merged);
    module = std::move(imported.module);
    weights = std::move(imported.weights);
  } else {
    // With the locations: they hold the tensors' names (the ONNX names a
    // calibration table and keep_float use).
    std::string text;
    llvm::raw_string_ostream os(text);
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    m.module.get().print(os, flags);
    module = parseModuleText(text, m.name, context);
    if (!module)
      diag.fail(what + ": cannot copy model '" + m.name + "'");
    weights = m.weights;
  }
  if (optimize) {
    mlir::FailureOr<TensorMap> optimized =
        optimizeTopModule(*module, weights, layout);
    if (failed(optimized))
      diag.fail(what + ": optimizing '" + m.name + "' failed");
    weights = std::move(*optimized);
  }
  return {std::move(module), std::move(weights)};
}

/// The Python spelling of the quantization settings in error messages.
static QuantizeSettingNames pythonNames() {
  QuantizeSettingNames names;
  names.mode = "quantize";
  names.calibration = "calibration";
  names.keepFloat = "keep_float";
  names.keepFloatFile = "keep_float_file";
  names.method = "calibration_method";
  names.percentile = "percentile";
  names.targetCosine = "target_cosine";
  names.tableInput = "table_input";
  return names;
}

/// Quantizes `module` in place (top-quantize); returns the new weights.
static TensorMap quantizeInPlace(mlir::ModuleOp module,
                                 const TensorMap &weights,
                                 const QuantizeSettings &settings,
                                 const std::string &what) {
  Diagnostics diag(*module.getContext());
  std::string error;
  bool usageError = false;
  mlir::FailureOr<TensorMap> quantized = quantizeTopModule(
      module, weights, settings, error, usageError, pythonNames());
  if (failed(quantized)) {
    if (usageError)
      throw Error(what + ": " + error);
    diag.fail(what + ": " + error);
  }
  return std::move(*quantized);
}

static void checkLayout(const std::string &layout, const std::string &what) {
  if (!layout.empty() && layout != "nchw" && layout != "nhwc")
    throw Error(what + ": layout '" + layout + "' must be 'nchw' or 'nhwc'");
}

/// The bytes of a .strata artifact holding one variant per entry of
/// `variants` (none: the model's own shapes), quantized first when
/// `quantize.mode` is set.
static nb::bytes compileCpu(const Model &m, std::vector<ShapeMap> variants,
                            bool optimize, const std::string &cpu,
                            unsigned optLevel, const std::string &layout,
                            const QuantizeSettings &quantize) {
  if (!cpu.empty() && !strata::cpu::isKnownCpu(cpu))
    throw Error("compile: cpu '" + cpu +
                "' is not an x86-64 CPU LLVM knows (e.g. znver4, "
                "skylake-avx512, x86-64-v3)");
  if (optLevel > 3)
    throw Error("compile: opt_level " + std::to_string(optLevel) +
                " must be 0, 1, 2 or 3");
  checkLayout(layout, "compile");
  if (!quantize.mode.empty()) {
    std::string error;
    if (!checkQuantizeSettings(quantize, error, pythonNames()))
      throw Error("compile: " + error);
    if (!optimize)
      throw Error("compile: quantize needs the optimized model (the "
                  "calibration table names its tensors); drop "
                  "optimize=False");
  }
  if (variants.empty())
    variants.push_back({});
  strata::cpu::CpuCompileOptions options;
  options.codegen.cpu = cpu;
  options.codegen.optLevel = optLevel;
  strata::cpu::CpuArtifactBuilder builder(m.name);
  for (const ShapeMap &shapes : variants) {
    auto context = newContext();
    auto [module, weights] =
        copyModel(m, *context, shapes, optimize, layout, "compile");
    if (!quantize.mode.empty())
      weights = quantizeInPlace(*module, weights, quantize, "compile");
    Diagnostics diag(*context);
    strata::cpu::VariantReport report;
    std::string error;
    if (failed(builder.addVariant(*module, weights, options, report, error)))
      diag.fail("compile: target cpu: " + error);
  }
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("strata-py", "strata", path))
    throw Error("compile: cannot create a temporary file: " + ec.message());
  std::string error;
  bool written = builder.write(std::string(path), error);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      written ? llvm::MemoryBuffer::getFile(path)
              : llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>(
                    std::make_error_code(std::errc::io_error));
  llvm::sys::fs::remove(path);
  if (!written)
    throw Error("compile: " + error);
  if (!buffer)
    throw Error("compile: cannot read the artifact back: " +
                buffer.getError().message());
  return nb::bytes((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
}

/// `strata quantize` as a function: the optimized, quantized Top model.
static Model quantizeModel(const Model &m, const std::string &layout,
                           const QuantizeSettings &settings,
                           const ShapeMap &shapes) {
  std::string error;
  if (!checkQuantizeSettings(settings, error, pythonNames()))
    throw Error("quantize: " + error);
  checkLayout(layout, "quantize");
  Model q;
  q.name = m.name;
  q.context = newContext();
  auto [module, weights] =
      copyModel(m, *q.context, shapes, true, layout, "quantize");
  q.weights = quantizeInPlace(*module, weights, settings, "quantize");
  q.module = std::move(module);
  return q;
}

/// `strata quantize --search-sensitive` as a function: the layers (with
/// `activations`, the activation tables) kept in float until the output
/// cosine on `samples` reaches `target`, then the model quantized keeping
/// them; returns (model, ranking [(name, loss)], kept, cosine).
static nb::tuple quantizeSearchModel(const Model &m, const std::string &layout,
                                     QuantizeSettings settings,
                                     const ShapeMap &shapes,
                                     const std::vector<nb::dict> &samples,
                                     double target, bool activations) {
  std::string error;
  if (!checkQuantizeSettings(settings, error, pythonNames()))
    throw Error("quantize: " + error);
  if (settings.mode != "int8")
    throw Error("quantize: search_sensitive needs quantize int8 (not " +
                settings.mode + ")");
  if (!checkSearchTarget(target, error, pythonNames()))
    throw Error("quantize: " + error);
  checkLayout(layout, "quantize");
  if (samples.empty())
    throw Error("quantize: search_sensitive needs data= (at least one "
                "sample {input name: array})");
  std::vector<TensorMap> inputs;
  for (size_t i = 0; i < samples.size(); ++i)
    inputs.push_back(
        fromDict(samples[i], "quantize: data sample " + std::to_string(i)));
  Model q;
  q.name = m.name;
  q.context = newContext();
  auto [module, weights] =
      copyModel(m, *q.context, shapes, true, layout, "quantize");
  mlir::FailureOr<SensitiveSearchResult> found;
  {
    Diagnostics diag(*q.context);
    found = searchSensitiveLayers(*module, weights, settings, inputs, target,
                                  activations, error, {}, pythonNames());
    if (failed(found))
      diag.fail("quantize: the sensitive-layer search failed: " + error);
  }
  settings.keepFloat.insert(settings.keepFloat.end(), found->keepFloat.begin(),
                            found->keepFloat.end());
  q.weights = quantizeInPlace(*module, weights, settings, "quantize");
  q.module = std::move(module);
  nb::list ranking;
  for (const auto &[name, loss] : found->ranking)
    ranking.append(nb::make_tuple(name, loss));
  nb::list kept;
  for (const std::string &name : found->keepFloat)
    kept.append(name);
  nb::object model = nb::cast(std::move(q), nb::rv_policy::move);
  return nb::make_tuple(model, ranking, kept, found->cosine);
}

/// `strata calibrate` as a function: calibrates the optimized model on
/// `samples` ({input name: array} each) and writes the table to `path`;
/// returns the number of tensors in it.
static size_t calibrateModel(const Model &m,
                             const std::vector<nb::dict> &samples,
                             const std::string &method, double percentile,
                             const std::string &layout, const std::string &path,
                             bool biasCorrection, const ShapeMap &shapes) {
  std::string error;
  if (!checkCalibrationSettings(method, percentile, error, pythonNames()))
    throw Error("calibrate: " + error);
  checkLayout(layout, "calibrate");
  if (samples.empty())
    throw Error("calibrate: give at least one sample ({input name: array})");
  std::vector<TensorMap> inputs;
  for (size_t i = 0; i < samples.size(); ++i)
    inputs.push_back(
        fromDict(samples[i], "calibrate: sample " + std::to_string(i)));
  auto context = newContext();
  auto [module, weights] =
      copyModel(m, *context, shapes, true, layout, "calibrate");
  Diagnostics diag(*context);
  auto read = [&](size_t i, TensorMap &out, std::string &) {
    out = inputs[i];
    return true;
  };
  mlir::FailureOr<calib::CalibrationTable> table =
      calibrateTopModule(*module, weights, inputs.size(), read, method,
                         percentile, error, {}, pythonNames(), biasCorrection);
  if (failed(table))
    diag.fail("calibrate: " + error);
  if (!calib::writeCalibrationTable(path, *table, error))
    throw Error("calibrate: " + error);
  return table->entries.size();
}

static nb::dict runRef(const Model &m, const nb::dict &inputs) {
  TensorMap in = fromDict(inputs, "run_ref: input");
  Diagnostics diag(*m.context);
  // The GIL stays held: the model's context is not shared across threads.
  mlir::FailureOr<TensorMap> out =
      interpretModule(m.module.get(), in, m.weights);
  if (failed(out))
    diag.fail("run_ref: running '" + m.name + "' failed");
  return toDict(*out);
}

static nb::tuple compare(nb::handle a, nb::handle b, double cosine,
                         double euclid) {
  if (!(cosine >= 0 && cosine <= 1) || !(euclid >= 0 && euclid <= 1))
    throw Error("compare: tolerance (" + std::to_string(cosine) + ", " +
                std::to_string(euclid) + ") must be in [0, 1]");
  Tensor ta = toTensor(a, "compare: a");
  Tensor tb = toTensor(b, "compare: b");
  CompareResult r = compareTensors(ta, tb, cosine, euclid);
  return nb::make_tuple(verdictName(r.verdict), r.passed(), r.cosine,
                        r.euclidean, r.maxAbsError, r.maxRelError, r.detail);
}

void registerCompiler(nb::module_ &m) {
  nb::class_<Model>(m, "Model", "A Top model and its weights.")
      .def_ro("name", &Model::name, "The model's name.")
      .def_prop_ro("inputs", &modelInputs,
                   "The inputs: (name, shape with -1 for dynamic dims, dtype).")
      .def_prop_ro(
          "outputs", &modelOutputs,
          "The outputs: (name, shape with -1 for dynamic dims, dtype).")
      .def(
          "text",
          [](const Model &self) {
            std::string text;
            llvm::raw_string_ostream os(text);
            self.module.get().print(os);
            return text;
          },
          "The Top module as MLIR text.")
      .def(
          "save",
          [](const Model &self, const std::string &dir) {
            std::string error;
            if (failed(writeTopModel(self.module.get(), self.weights, dir,
                                     self.name, error)))
              throw Error("Model.save: " + error);
          },
          nb::arg("dir"), "Writes DIR/<name>_origin.mlir and its weight npz.");
  m.def("import_onnx", &importOnnxModel, nb::arg("path").none(),
        nb::arg("data").none(), nb::arg("name"), nb::arg("input_shapes"),
        "Imports an ONNX model from a file or a serialized ModelProto.");
  m.def("load_mlir", &loadMlirModel, nb::arg("path"), nb::arg("weights"),
        "Reads a Top module and its weight npz.");
  nb::class_<QuantizeSettings>(m, "QuantizeSettings",
                               "What top-quantize is asked for.")
      .def(nb::init<>())
      .def_rw("mode", &QuantizeSettings::mode, "int8, bf16, f16 or empty.")
      .def_rw("calibration", &QuantizeSettings::calibration,
              "int8: the calibration table's path.")
      .def_rw("keep_float", &QuantizeSettings::keepFloat,
              "Tensors whose ops stay float.")
      .def_rw("symmetric", &QuantizeSettings::symmetric,
              "int8: zero-point-0 activations.")
      .def_rw("float_activations", &QuantizeSettings::floatActivations,
              "int8: fused activations in float from the int32 accumulator "
              "instead of int8 tables.")
      .def_rw("per_channel_tables", &QuantizeSettings::perChannelTables,
              "int8: each channel of an activation table's input its own "
              "scale (the table's @range rows).")
      .def_rw("keep_float_file", &QuantizeSettings::keepFloatFile,
              "A file of tensor names to keep float, one a line.")
      .def_rw("table_input", &QuantizeSettings::tableInput,
              "int8: 'int16' gives the activation tables int16 inputs "
              "(interpolated 513-entry tables, top.Table16).");
  m.def("compile_cpu", &compileCpu, nb::arg("model"), nb::arg("variants"),
        nb::arg("optimize"), nb::arg("cpu"), nb::arg("opt_level"),
        nb::arg("layout"), nb::arg("quantize"),
        "Compiles a model for this machine's CPU (quantized first when "
        "quantize.mode is set); returns the artifact's bytes.");
  m.def(
      "check_quantize_settings",
      [](const QuantizeSettings &settings) {
        std::string error;
        QuantizeSettings read = settings;
        if (!readKeepFloatFile(read, error, pythonNames()) ||
            !checkQuantizeSettings(read, error, pythonNames()))
          throw Error(error);
      },
      nb::arg("settings"),
      "Raises strata.Error naming a bad setting (mode, table, keep_float, "
      "keep_float_file).");
  m.def("quantize", &quantizeModel, nb::arg("model"), nb::arg("layout"),
        nb::arg("settings"), nb::arg("input_shapes") = ShapeMap(),
        "The optimized model (imported again with input_shapes when given) "
        "quantized by top-quantize.");
  m.def("quantize_search", &quantizeSearchModel, nb::arg("model"),
        nb::arg("layout"), nb::arg("settings"), nb::arg("input_shapes"),
        nb::arg("data"), nb::arg("target_cosine"), nb::arg("activations"),
        "The optimized model quantized by top-quantize keeping in float the "
        "layers the sensitive-layer search picks on data; returns (model, "
        "ranking [(name, cosine loss)], kept in float, output cosine).");
  m.def("calibrate", &calibrateModel, nb::arg("model"), nb::arg("samples"),
        nb::arg("method"), nb::arg("percentile"), nb::arg("layout"),
        nb::arg("path"), nb::arg("bias_correction") = false,
        nb::arg("input_shapes") = ShapeMap(),
        "Calibrates the optimized model (imported again with input_shapes "
        "when given) on samples and writes the table to path (with "
        "bias_correction, also the @mean rows); returns its number of "
        "tensors.");
  m.def("run_ref", &runRef, nb::arg("model"), nb::arg("inputs"),
        "Runs a model in the reference interpreter.");
  m.def("compare", &compare, nb::arg("a"), nb::arg("b"), nb::arg("cosine"),
        nb::arg("euclid"),
        "Compares two arrays by tpu-mlir's npz_tool rules: (verdict, passed, "
        "cosine, euclidean, max_abs, max_rel, detail).");
}

} // namespace strata::python
