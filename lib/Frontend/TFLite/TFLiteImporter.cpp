//===- TFLiteImporter.cpp - TFLite FlatBuffer to Top ----------------------===//
//
// The model reader: the FlatBuffers verifier first, then the model checks
// (subgraph 0, tensor types, shapes, buffers and their sizes, quantization
// parameters, operator codes, tensor indices), the entry function, the
// operators in order through the converter tables, and the results. The
// OpContext methods (the converters' API) are here too.
//
//===----------------------------------------------------------------------===//

#include "strata/Frontend/TFLite/TFLiteImporter.h"
#include "Importer.h"
#include "Sparse.h"

#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Frontend/FinishImport.h"
#include "strata/Interfaces/StaticSizeLimit.h"
#include "strata/Interpreter/Executor.h"
#include "strata/Interpreter/InterpreterEnv.h"
#include "strata/Support/InputFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>

namespace strata::tflite_import {

//===----------------------------------------------------------------------===//
// Host helpers
//===----------------------------------------------------------------------===//

std::vector<int64_t> toVec(ArrayRef<int64_t> a) { return {a.begin(), a.end()}; }

Tensor permuteTensor(const Tensor &t, ArrayRef<int64_t> order) {
  std::vector<int64_t> shape;
  for (int64_t o : order)
    shape.push_back(t.dim(o));
  Tensor r(t.dtype(), shape);
  std::vector<int64_t> inStrides = t.strides();
  size_t es = dtypeSize(t.dtype());
  int64_t rank = shape.size();
  std::vector<int64_t> idx(rank, 0);
  const char *src = static_cast<const char *>(t.raw());
  char *dst = static_cast<char *>(r.raw());
  for (int64_t i = 0; i < r.numElements(); ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d)
      off += idx[d] * inStrides[order[d]];
    std::memcpy(dst + i * es, src + off * es, es);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  return r;
}

std::pair<int64_t, int64_t> samePadding(tflite::Padding p, int64_t in,
                                        int64_t k, int64_t stride,
                                        int64_t dilation) {
  if (p != tflite::Padding_SAME)
    return {0, 0};
  int64_t eff = (k - 1) * dilation + 1;
  int64_t out = (in + stride - 1) / stride;
  int64_t total = std::max<int64_t>((out - 1) * stride + eff - in, 0);
  return {total / 2, total - total / 2};
}

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

Value Importer::createWeight(const Tensor &data, llvm::StringRef name,
                             Location loc, Type elem) {
  std::string unique = name.str();
  while (weightNames.contains(unique))
    unique = name.str() + "_" + std::to_string(weightCounter++);
  weightNames.insert(unique);
  weights.set(unique, data);
  if (!elem)
    elem = top::elementTypeOf(data.dtype(), &ctx);
  auto type = RankedTensorType::get(data.shape(), elem);
  return top::WeightOp::create(builder, loc, type, unique).getOutput();
}

const Tensor *Importer::constantData(Value v) const {
  auto w = v.getDefiningOp<top::WeightOp>();
  return w ? weights.find(w.getName().str()) : nullptr;
}

//===----------------------------------------------------------------------===//
// OpContext
//===----------------------------------------------------------------------===//

static std::string outputName(Importer &imp, const tflite::Operator *op,
                              int64_t index) {
  if (op && op->outputs() && op->outputs()->size() > 0) {
    int32_t t = op->outputs()->Get(0);
    if (t >= 0 && static_cast<size_t>(t) < imp.tensors.size() &&
        !imp.tensors[t].name.empty())
      return imp.tensors[t].name;
  }
  return "op" + std::to_string(index);
}

OpContext::OpContext(Importer &imp, const tflite::Operator *op, int64_t index,
                     tflite::BuiltinOperator code)
    : imp(imp), oper(op), index(index), opCode(code),
      location(
          NameLoc::get(StringAttr::get(&imp.ctx, outputName(imp, op, index)))) {
}

OpBuilder &OpContext::builder() { return imp.builder; }
MLIRContext *OpContext::context() { return &imp.ctx; }

std::string OpContext::describe() const {
  return "operator " + std::to_string(index) + " (" + opName() + ")";
}

InFlightDiagnostic OpContext::error() {
  auto d = emitError(location);
  d << describe() << ": ";
  return d;
}

size_t OpContext::numInputs() const {
  return oper->inputs() ? oper->inputs()->size() : 0;
}
size_t OpContext::numOutputs() const {
  return oper->outputs() ? oper->outputs()->size() : 0;
}
bool OpContext::hasInput(size_t i) const {
  return i < numInputs() && oper->inputs()->Get(i) >= 0;
}
const TensorInfo &OpContext::in(size_t i) const {
  return imp.tensors[oper->inputs()->Get(i)];
}
const TensorInfo &OpContext::out(size_t i) const {
  return imp.tensors[oper->outputs()->Get(i)];
}

Type OpContext::quantType(const TensorInfo &t) {
  const QParams &p = *t.quant;
  bool isSigned = isSignedInt(t.dtype);
  unsigned bits = intBitWidth(t.dtype);
  auto storage = IntegerType::get(context(), bits);
  unsigned flags = isSigned ? quant::QuantizationFlags::Signed : 0;
  int64_t qmin = isSigned ? -(int64_t(1) << (bits - 1)) : 0;
  int64_t qmax =
      isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  Type f32 = Float32Type::get(context());
  if (!p.perAxis())
    return quant::UniformQuantizedType::get(flags, storage, f32, p.scales[0],
                                            p.zps[0], qmin, qmax);
  return quant::UniformQuantizedPerAxisType::get(flags, storage, f32, p.scales,
                                                 p.zps, p.axis, qmin, qmax);
}

Type OpContext::valueType(const TensorInfo &t) {
  if (t.quant)
    return quantType(t);
  return top::elementTypeOf(t.dtype, context());
}

FailureOr<Value> OpContext::input(size_t i) {
  if (!hasInput(i))
    return error() << "input " << i << " is required";
  int32_t idx = oper->inputs()->Get(i);
  if (Value v = imp.values[idx])
    return v;
  const TensorInfo &t = imp.tensors[idx];
  if (!t.data)
    return error() << "input " << i << " reads tensor '" << t.name
                   << "' (index " << idx << ") before any operator writes it";
  Value w = imp.createWeight(*t.data, t.name.empty() ? "const" : t.name,
                             NameLoc::get(StringAttr::get(context(), t.name)),
                             valueType(t));
  imp.values[idx] = w;
  return w;
}

const Tensor *OpContext::constant(size_t i) const {
  if (!hasInput(i))
    return nullptr;
  int32_t idx = oper->inputs()->Get(i);
  if (imp.tensors[idx].data)
    return imp.tensors[idx].data;
  if (Value v = imp.values[idx])
    return imp.constantData(v);
  return nullptr;
}

FailureOr<std::vector<int64_t>> OpContext::constantInts(size_t i,
                                                        llvm::StringRef what) {
  const Tensor *t = constant(i);
  if (!t)
    return error() << "input " << i << " (" << what << ") must be a constant";
  if (!isSignedInt(t->dtype()) && !isUnsignedInt(t->dtype()))
    return error() << "input " << i << " (" << what << ") has type "
                   << dtypeName(t->dtype()) << ", expected an integer type";
  std::vector<int64_t> r;
  for (int64_t k = 0; k < t->numElements(); ++k)
    r.push_back(t->getAsInt(k));
  return r;
}

/// (q - zp) * scale on the host.
static Tensor dequantizeHost(const Tensor &x, const QParams &p) {
  Tensor y(DType::F32, x.shape());
  int64_t inner = 1, dim = 1;
  if (p.perAxis()) {
    dim = x.dim(p.axis);
    for (int64_t i = p.axis + 1; i < x.rank(); ++i)
      inner *= x.dim(i);
  }
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t ch = p.perAxis() ? (i / inner) % dim : 0;
    y.setFromDouble(i, double(x.getAsInt(i) - p.zps[ch]) * p.scales[ch]);
  }
  return y;
}

FailureOr<Value> OpContext::floatInput(size_t i) {
  if (!hasInput(i))
    return error() << "input " << i << " is required";
  const TensorInfo &t = in(i);
  if (t.data && (t.quant || t.dtype == DType::F16)) {
    Tensor f = t.quant ? dequantizeHost(*t.data, *t.quant)
                       : t.data->castTo(DType::F32);
    return weight(f, "dequant");
  }
  auto v = input(i);
  if (failed(v))
    return failure();
  Type elem = cast<ShapedType>(v->getType()).getElementType();
  if (isa<quant::QuantizedType>(elem))
    return create<DequantOp>(Float32Type::get(context()), *v);
  if (elem.isF32())
    return v;
  if (isa<FloatType>(elem))
    return create<CastOp>(Float32Type::get(context()), *v);
  return error() << "input " << i << " ('" << t.name << "') has type "
                 << dtypeName(t.dtype) << ", expected a float or quantized "
                 << "tensor";
}

FailureOr<Value> OpContext::dataInput(size_t i) {
  if (hasInput(i) && !in(i).quant && !isFloat(in(i).dtype))
    return input(i);
  return floatInput(i);
}

Value OpContext::weight(const Tensor &data, llvm::StringRef hint) {
  std::string base = outputName(imp, oper, index) + "_" + hint.str();
  return imp.createWeight(data, base, location);
}

Value OpContext::none() { return imp.noneValue; }

Value OpContext::scalarF32(double v) {
  Tensor t(DType::F32, {});
  t.setFromDouble(0, v);
  return weight(t, "scalar");
}

FailureOr<SmallVector<Value>> OpContext::finishOp(Operation *op) {
  bool operandsStatic = llvm::all_of(op->getOperands(), [](Value v) {
    return top::isNone(v) || top::hasStaticShape(v);
  });
  OperationName name = op->getName();
  if (!operandsStatic || failed(top::inferAndSetResultTypes(op))) {
    op->erase();
    return error() << "the converted " << name
                   << " is invalid (see the error above)";
  }
  if (failed(mlir::verify(op))) {
    op->erase();
    return error() << "the converted " << name << " is invalid";
  }
  SmallVector<Value> results(op->getResults());
  bool allConstant =
      op->getNumOperands() > 0 && llvm::all_of(op->getOperands(), [&](Value v) {
        return top::isNone(v) || imp.constantData(v);
      });
  auto iface = dyn_cast<top::InterpretableOpInterface>(op);
  if (!allConstant || !iface)
    return results;
  int64_t total = 0;
  for (Value r : results)
    total += cast<ShapedType>(r.getType()).getNumElements();
  if (total > (int64_t(1) << 24))
    return results;
  top::InterpreterEnv env;
  for (Value v : op->getOperands())
    if (!top::isNone(v))
      env.set(v, *imp.constantData(v));
  if (failed(interpretOp(op, env)))
    return error() << "evaluating constant " << name << " failed";
  SmallVector<Value> folded;
  for (auto [i, r] : llvm::enumerate(results))
    folded.push_back(imp.createWeight(
        env.get(r), outputName(imp, oper, index) + "_folded", location,
        cast<ShapedType>(r.getType()).getElementType()));
  op->erase();
  return folded;
}

LogicalResult OpContext::setOutput(size_t i, Value v) {
  if (i >= numOutputs())
    return error() << "has " << numOutputs() << " outputs, the converter "
                   << "writes output " << i;
  const TensorInfo &t = out(i);
  auto shape = top::shapeOf(v);
  // A declared rank-0 shape on a non-scalar is how converters of dynamic
  // models leave shapes unknown; any other mismatch is an error.
  if (!t.dynamic && shape != ArrayRef<int64_t>(t.shape) && !t.shape.empty())
    return error() << "output " << i << " '" << t.name << "' is declared with "
                   << "shape " << top::formatArray(t.shape)
                   << " but the operator computes " << top::formatArray(shape);
  // Each output keeps its tensor's name (run-ref --dump-all keys): a
  // single-result op this converter made for output i is renamed.
  if (Operation *def = v.getDefiningOp();
      def && i > 0 && def->getNumResults() == 1 && def->getLoc() == location)
    def->setLoc(NameLoc::get(StringAttr::get(context(), t.name)));
  // Later converters read shapes from the TensorInfo: a dynamic tensor
  // takes the computed one.
  imp.tensors[oper->outputs()->Get(i)].shape = toVec(shape);
  imp.values[oper->outputs()->Get(i)] = v;
  return success();
}

LogicalResult OpContext::setFloatOutput(size_t i, FailureOr<Value> v) {
  if (failed(v))
    return failure();
  const TensorInfo &t = out(i);
  if (t.quant) {
    auto q = create<QuantOp>(quantType(t), *v);
    if (failed(q))
      return failure();
    return setOutput(i, *q);
  }
  Type want = top::elementTypeOf(t.dtype, context());
  if (want != cast<ShapedType>(v->getType()).getElementType()) {
    if (!isa<FloatType>(want))
      return error() << "output " << i << " '" << t.name << "' has type "
                     << dtypeName(t.dtype) << ", expected a float type";
    auto c = create<CastOp>(want, *v);
    if (failed(c))
      return failure();
    return setOutput(i, *c);
  }
  return setOutput(i, *v);
}

FailureOr<Value>
OpContext::fusedActivation(FailureOr<Value> v,
                           tflite::ActivationFunctionType act) {
  if (failed(v))
    return failure();
  Type f = cast<ShapedType>(v->getType()).getElementType();
  OpBuilder &b = builder();
  switch (act) {
  case tflite::ActivationFunctionType_NONE:
    return v;
  case tflite::ActivationFunctionType_RELU:
    return create<ReluOp>(f, *v);
  case tflite::ActivationFunctionType_RELU6:
    return create<ClipOp>(f, *v, b.getF64FloatAttr(0), b.getF64FloatAttr(6));
  case tflite::ActivationFunctionType_RELU_N1_TO_1:
    return create<ClipOp>(f, *v, b.getF64FloatAttr(-1), b.getF64FloatAttr(1));
  case tflite::ActivationFunctionType_TANH:
    return create<TanhOp>(f, *v);
  default:
    return error() << "fused activation function "
                   << tflite::EnumNameActivationFunctionType(act) << " ("
                   << int(act) << ") is not supported";
  }
}

//===----------------------------------------------------------------------===//
// Model reader
//===----------------------------------------------------------------------===//

namespace {

std::optional<DType> dtypeOfTFLite(tflite::TensorType t) {
  switch (t) {
  case tflite::TensorType_FLOAT32:
    return DType::F32;
  case tflite::TensorType_FLOAT16:
    return DType::F16;
  case tflite::TensorType_FLOAT64:
    return DType::F64;
  case tflite::TensorType_INT8:
    return DType::I8;
  case tflite::TensorType_UINT8:
    return DType::U8;
  case tflite::TensorType_INT16:
    return DType::I16;
  case tflite::TensorType_UINT16:
    return DType::U16;
  case tflite::TensorType_INT32:
    return DType::I32;
  case tflite::TensorType_UINT32:
    return DType::U32;
  case tflite::TensorType_INT64:
    return DType::I64;
  case tflite::TensorType_BOOL:
    return DType::Bool;
  default:
    return std::nullopt;
  }
}

llvm::DenseMap<int, Converter> &converterTable() {
  static llvm::DenseMap<int, Converter> table = [] {
    llvm::DenseMap<int, Converter> t;
    for (auto list :
         {nnConverters(), elementwiseConverters(), shapeConverters(),
          quantConverters(), variableConverters(), controlFlowConverters()})
      for (const ConverterEntry &e : list)
        t[int(e.code)] = e.fn;
    return t;
  }();
  return table;
}

class ModelReader {
public:
  ModelReader(Importer &imp, Location loc) : imp(imp), loc(loc) {}
  FailureOr<ImportedModel> run(const std::string &name);

private:
  LogicalResult readTensors();
  LogicalResult readTensor(size_t i, const tflite::Tensor *t);
  /// Converts the operators of imp.graph in order.
  LogicalResult runOps();
  /// Converts subgraph `index` (a CALL_ONCE initializer) into the current
  /// function, with its own tensors.
  LogicalResult runSubgraph(int64_t index);
  /// Runs `fn` with subgraph `index` current (its tensors read), then
  /// restores the caller's subgraph; `what` prefixes the errors.
  LogicalResult inSubgraph(int64_t index, llvm::StringRef what,
                           llvm::function_ref<LogicalResult()> fn);
  /// Converts subgraph `index` with its inputs bound to `inputs`; returns
  /// its outputs (Importer::callSubgraph).
  FailureOr<SmallVector<Value>> callSubgraph(int64_t index, ValueRange inputs,
                                             llvm::StringRef what);
  FailureOr<tflite::BuiltinOperator> opCode(size_t opIndex,
                                            const tflite::Operator *op);

  Importer &imp;
  Location loc;
  int depth = 0;
};

LogicalResult ModelReader::readTensor(size_t i, const tflite::Tensor *t) {
  TensorInfo &info = imp.tensors[i];
  info.t = t;
  info.name = t->name() ? t->name()->str() : "";
  if (info.name.empty())
    info.name = "tensor" + std::to_string(i);
  auto err = [&]() {
    auto d = emitError(loc);
    d << "tensor " << i << " '" << info.name << "': ";
    return d;
  };
  if (t->type() == tflite::TensorType_RESOURCE) {
    info.resource = true; // a variable handle: VAR_HANDLE defines it
    return success();
  }
  if (t->shape_signature())
    for (int32_t d : *t->shape_signature())
      info.dynamic |= d < 0;
  auto dt = dtypeOfTFLite(t->type());
  if (!dt)
    return err() << "type " << tflite::EnumNameTensorType(t->type()) << " ("
                 << int(t->type()) << ") is not supported";
  info.dtype = *dt;
  if (t->shape())
    for (int32_t d : *t->shape()) {
      if (d < 0)
        return err() << "shape has negative dim " << d;
      info.shape.push_back(d);
    }
  auto count = checkedNumElements(info.shape);
  if (!count)
    return err() << "shape " << top::formatArray(info.shape) << " overflows";
  // Quantization parameters.
  const tflite::QuantizationParameters *q = t->quantization();
  if (q && q->scale() && q->scale()->size() > 0 &&
      (info.dtype == DType::I8 || info.dtype == DType::U8 ||
       info.dtype == DType::I16)) {
    QParams p;
    for (float s : *q->scale()) {
      if (!(s > 0) || !std::isfinite(s))
        return err() << "quantization scale " << s
                     << " is not positive and finite";
      p.scales.push_back(s);
    }
    size_t n = p.scales.size();
    if (q->zero_point() && q->zero_point()->size() > 0) {
      if (q->zero_point()->size() != n)
        return err() << "has " << n << " quantization scales but "
                     << q->zero_point()->size() << " zero points";
      for (int64_t z : *q->zero_point()) {
        int64_t lo = info.dtype == DType::U8   ? 0
                     : info.dtype == DType::I8 ? -128
                                               : -32768;
        int64_t hi = info.dtype == DType::U8   ? 255
                     : info.dtype == DType::I8 ? 127
                                               : 32767;
        if (z < lo || z > hi)
          return err() << "zero point " << z << " is out of the range of "
                       << dtypeName(info.dtype);
        p.zps.push_back(z);
      }
    } else {
      p.zps.assign(n, 0);
    }
    if (n > 1) {
      int64_t axis = q->quantized_dimension();
      if (axis < 0 || axis >= (int64_t)info.shape.size() ||
          info.shape[axis] != (int64_t)n)
        return err() << "has " << n << " quantization scales on dimension "
                     << axis << " of shape " << top::formatArray(info.shape);
      p.axis = axis;
    }
    info.quant = std::move(p);
  }
  // Buffer.
  uint32_t b = t->buffer();
  auto buffers = imp.model->buffers();
  size_t numBuffers = buffers ? buffers->size() : 0;
  if (b >= numBuffers) {
    if (b == 0)
      return success(); // no buffers at all: an activation
    return err() << "buffer index " << b << " is out of range (the model "
                 << "has " << numBuffers << " buffers)";
  }
  const tflite::Buffer *buf = buffers->Get(b);
  const uint8_t *data = nullptr;
  uint64_t size = 0;
  if (buf->offset() > 1) {
    if (buf->offset() > imp.bytes.size() ||
        buf->size() > imp.bytes.size() - buf->offset())
      return err() << "buffer " << b << " (offset " << buf->offset()
                   << ", size " << buf->size() << ") lies outside the "
                   << imp.bytes.size() << "-byte file";
    data = imp.bytes.data() + buf->offset();
    size = buf->size();
  } else if (buf->data()) {
    data = buf->data()->data();
    size = buf->data()->size();
  }
  if (size == 0) {
    if (t->sparsity())
      return err() << "a sparse tensor must be a constant (it has no data)";
    return success();
  }
  if (t->sparsity()) {
    if (*count > (int64_t(1) << 28))
      return err() << "sparse tensor of shape " << top::formatArray(info.shape)
                   << " is too large to expand";
    Tensor &host = imp.constData.emplace_back(info.dtype, info.shape);
    std::string e =
        densify(*t->sparsity(), info.shape, info.dtype, data, size, host);
    if (!e.empty())
      return err() << "sparse data: " << e;
    info.data = &host;
    return success();
  }
  uint64_t need = uint64_t(*count) * dtypeSize(info.dtype);
  if (size != need)
    return err() << "buffer " << b << " has " << size << " bytes, shape "
                 << top::formatArray(info.shape) << " of "
                 << tflite::EnumNameTensorType(t->type()) << " needs " << need;
  Tensor &host = imp.constData.emplace_back(info.dtype, info.shape);
  std::memcpy(host.raw(), data, size);
  if (info.dtype == DType::Bool)
    for (int64_t k = 0; k < *count; ++k)
      static_cast<uint8_t *>(host.raw())[k] = data[k] != 0;
  info.data = &host;
  return success();
}

LogicalResult ModelReader::readTensors() {
  auto ts = imp.graph->tensors();
  size_t n = ts ? ts->size() : 0;
  imp.tensors.resize(n);
  imp.values.assign(n, Value());
  for (size_t i = 0; i < n; ++i)
    if (failed(readTensor(i, ts->Get(i))))
      return failure();
  return success();
}

FailureOr<tflite::BuiltinOperator>
ModelReader::opCode(size_t opIndex, const tflite::Operator *op) {
  auto codes = imp.model->operator_codes();
  uint32_t ci = op->opcode_index();
  if (!codes || ci >= codes->size())
    return emitError(loc) << "operator " << opIndex << ": opcode index " << ci
                          << " is out of range (the model has "
                          << (codes ? codes->size() : 0) << " operator codes)";
  const tflite::OperatorCode *c = codes->Get(ci);
  int32_t code = std::max<int32_t>(c->deprecated_builtin_code(),
                                   int32_t(c->builtin_code()));
  if (code == tflite::BuiltinOperator_CUSTOM)
    return emitError(loc) << "operator " << opIndex << ": custom op '"
                          << (c->custom_code() ? c->custom_code()->str()
                                               : std::string("?"))
                          << "' is not supported";
  if (code < tflite::BuiltinOperator_MIN || code > tflite::BuiltinOperator_MAX)
    return emitError(loc) << "operator " << opIndex << ": unknown builtin "
                          << "operator code " << code;
  return tflite::BuiltinOperator(code);
}

LogicalResult ModelReader::runOps() {
  size_t numTensors = imp.tensors.size();
  auto ops = imp.graph->operators();
  size_t numOps = ops ? ops->size() : 0;
  for (size_t i = 0; i < numOps; ++i) {
    const tflite::Operator *op = ops->Get(i);
    auto code = opCode(i, op);
    if (failed(code))
      return failure();
    const char *opName = tflite::EnumNameBuiltinOperator(*code);
    for (auto [what, list] : {std::pair{"input", op->inputs()},
                              std::pair{"output", op->outputs()}}) {
      if (!list)
        continue;
      for (int32_t t : *list) {
        if (t == -1 && llvm::StringRef(what) == "input")
          continue; // an optional input left out
        if (t < 0 || static_cast<size_t>(t) >= numTensors)
          return emitError(loc) << "operator " << i << " (" << opName
                                << "): " << what << " tensor index " << t
                                << " is out of range (the subgraph has "
                                << numTensors << " tensors)";
      }
    }
    bool noOutputs = *code == tflite::BuiltinOperator_ASSIGN_VARIABLE ||
                     *code == tflite::BuiltinOperator_CALL_ONCE;
    if (!noOutputs && (!op->outputs() || op->outputs()->size() == 0))
      return emitError(loc)
             << "operator " << i << " (" << opName << "): has no outputs";
    auto it = converterTable().find(int(*code));
    if (it == converterTable().end())
      return emitError(loc)
             << "operator " << i << " (" << opName << "): builtin operator "
             << opName << " is not supported";
    OpContext c(imp, op, i, *code);
    if (failed(it->second(c)))
      return failure();
    for (size_t k = 0; k < c.numOutputs(); ++k)
      if (!imp.values[op->outputs()->Get(k)] &&
          !imp.tensors[op->outputs()->Get(k)].resource)
        return c.error() << "output " << k << " was not converted";
  }
  return success();
}

LogicalResult ModelReader::inSubgraph(int64_t index, llvm::StringRef what,
                                      llvm::function_ref<LogicalResult()> fn) {
  auto graphs = imp.model->subgraphs();
  auto err = [&]() {
    InFlightDiagnostic d = emitError(loc);
    if (!what.empty())
      d << what << ": ";
    return d;
  };
  if (index <= 0 || index >= (int64_t)graphs->size())
    return err() << "subgraph index " << index
                 << " is out of range (the model has " << graphs->size()
                 << " subgraphs; 0 is the main one)";
  if (++depth > 8) { // initializers calling initializers, nested IF/WHILE
    --depth;
    return err() << "subgraphs nest deeper than 8 levels";
  }
  const tflite::SubGraph *saved = imp.graph;
  std::vector<TensorInfo> savedTensors = std::move(imp.tensors);
  std::vector<Value> savedValues = std::move(imp.values);
  imp.tensors.clear();
  imp.values.clear();
  imp.graph = graphs->Get(index);
  LogicalResult r = succeeded(readTensors()) ? fn() : failure();
  imp.graph = saved;
  imp.tensors = std::move(savedTensors);
  imp.values = std::move(savedValues);
  --depth;
  return r;
}

LogicalResult ModelReader::runSubgraph(int64_t index) {
  return inSubgraph(index, "", [&] { return runOps(); });
}

FailureOr<SmallVector<Value>> ModelReader::callSubgraph(int64_t index,
                                                        ValueRange inputs,
                                                        llvm::StringRef what) {
  SmallVector<Value> results;
  auto run = [&]() -> LogicalResult {
    size_t numTensors = imp.tensors.size();
    auto tensorsOf = [&](auto *list) {
      std::vector<int32_t> v;
      if (list)
        v.assign(list->begin(), list->end());
      return v;
    };
    std::vector<int32_t> ins = tensorsOf(imp.graph->inputs()),
                         outs = tensorsOf(imp.graph->outputs());
    if (ins.size() != inputs.size())
      return emitError(loc) << what << ": subgraph " << index << " has "
                            << ins.size() << " inputs, given " << inputs.size();
    for (int32_t t : llvm::concat<int32_t>(ins, outs))
      if (t < 0 || static_cast<size_t>(t) >= numTensors)
        return emitError(loc)
               << what << ": subgraph " << index
               << " input/output tensor index " << t << " is out of range";
    OpContext sig(imp, nullptr, -1, tflite::BuiltinOperator_ADD);
    for (auto [t, v] : llvm::zip(ins, inputs)) {
      Type want = RankedTensorType::get(imp.tensors[t].shape,
                                        sig.valueType(imp.tensors[t]));
      if (v.getType() != want)
        return emitError(loc) << what << ": subgraph " << index << " input '"
                              << imp.tensors[t].name << "' is " << want
                              << ", given " << v.getType();
      imp.values[t] = v;
    }
    if (failed(runOps()))
      return failure();
    for (int32_t t : outs) {
      Value v = imp.values[t];
      TensorInfo &info = imp.tensors[t];
      if (!v && info.data)
        v = imp.createWeight(*info.data, info.name,
                             NameLoc::get(StringAttr::get(&imp.ctx, info.name)),
                             sig.valueType(info));
      if (!v)
        return emitError(loc) << what << ": subgraph " << index << " output '"
                              << info.name << "' is never written";
      results.push_back(v);
    }
    return success();
  };
  if (failed(inSubgraph(index, what, run)))
    return failure();
  return results;
}

FailureOr<ImportedModel> ModelReader::run(const std::string &name) {
  const tflite::Model *model = imp.model;
  if (model->version() != 3)
    return emitError(loc) << "schema version " << model->version()
                          << " is not supported (TFLite files are version 3)";
  if (!model->subgraphs() || model->subgraphs()->size() == 0)
    return emitError(loc) << "the model has no subgraph";
  imp.graph = model->subgraphs()->Get(0);
  if (failed(readTensors()))
    return failure();
  size_t numTensors = imp.tensors.size();
  auto checkIndex = [&](int32_t t, llvm::StringRef what) -> LogicalResult {
    if (t < 0 || static_cast<size_t>(t) >= numTensors)
      return emitError(loc) << what << " tensor index " << t
                            << " is out of range (the subgraph has "
                            << numTensors << " tensors)";
    return success();
  };
  MLIRContext &ctx = imp.ctx;
  OpBuilder &builder = imp.builder;
  auto module = OwningOpRef<ModuleOp>(ModuleOp::create(loc));
  builder.setInsertionPointToEnd(module->getBody());

  // Signature.
  SmallVector<Type> argTypes;
  std::vector<int32_t> inputs, outputs;
  if (imp.graph->inputs())
    inputs.assign(imp.graph->inputs()->begin(), imp.graph->inputs()->end());
  if (imp.graph->outputs())
    outputs.assign(imp.graph->outputs()->begin(), imp.graph->outputs()->end());
  if (outputs.empty())
    return emitError(loc) << "the subgraph has no outputs";
  OpContext sig(imp, nullptr, -1, tflite::BuiltinOperator_ADD);
  for (int32_t t : inputs) {
    if (failed(checkIndex(t, "subgraph input")))
      return failure();
    TensorInfo &info = imp.tensors[t];
    if (auto it = imp.inputShapes.find(info.name);
        it != imp.inputShapes.end()) {
      if (it->second.size() != info.shape.size())
        return emitError(loc)
               << "--input-shapes gives '" << info.name << "' rank "
               << it->second.size() << ", the model rank " << info.shape.size();
      info.shape = it->second;
    }
    argTypes.push_back(RankedTensorType::get(imp.tensors[t].shape,
                                             sig.valueType(imp.tensors[t])));
  }
  for (int32_t t : outputs)
    if (failed(checkIndex(t, "subgraph output")))
      return failure();
  for (auto &[n, shape] : imp.inputShapes)
    if (llvm::none_of(inputs,
                      [&](int32_t t) { return imp.tensors[t].name == n; }))
      return emitError(loc) << "--input-shapes names '" << n
                            << "', which is not an input of the model";
  auto func = func::FuncOp::create(builder, UnknownLoc::get(&ctx), "main",
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  imp.noneValue =
      top::NoneOp::create(builder, UnknownLoc::get(&ctx), builder.getNoneType())
          .getOutput();
  for (auto [i, t] : llvm::enumerate(inputs)) {
    const std::string &n = imp.tensors[t].name;
    func.setArgAttr(i, "top.name", builder.getStringAttr(n));
    Value arg = body->getArgument(i);
    imp.values[t] =
        top::InputOp::create(builder, NameLoc::get(StringAttr::get(&ctx, n)),
                             arg.getType(), arg)
            .getOutput();
  }

  imp.runSubgraph = [this](int64_t k) { return runSubgraph(k); };
  imp.callSubgraph = [this](int64_t k, ValueRange in, llvm::StringRef what) {
    return callSubgraph(k, in, what);
  };
  if (failed(runOps()))
    return failure();

  // Results.
  SmallVector<Value> results;
  for (int32_t t : outputs) {
    Value v = imp.values[t];
    if (!v && imp.tensors[t].data) {
      TensorInfo &info = imp.tensors[t];
      v = imp.createWeight(*info.data, info.name,
                           NameLoc::get(StringAttr::get(&ctx, info.name)),
                           sig.valueType(info));
    }
    if (!v)
      return emitError(loc) << "subgraph output '" << imp.tensors[t].name
                            << "' (tensor " << t << ") is never written";
    results.push_back(v);
  }
  func::ReturnOp::create(builder, UnknownLoc::get(&ctx), results);
  func.setType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, t] : llvm::enumerate(outputs))
    func.setResultAttr(i, "top.name",
                       builder.getStringAttr(imp.tensors[t].name));
  FailureOr<TensorMap> used =
      frontend::finishImportedModule(*module, *body, imp.weights, name);
  if (failed(used))
    return failure();
  ImportedModel result;
  result.module = std::move(module);
  result.weights = std::move(*used);
  return result;
}

} // namespace

bool isTFLiteBuffer(ArrayRef<uint8_t> bytes) {
  return bytes.size() >= 8 && flatbuffers::BufferHasIdentifier(
                                  bytes.data(), tflite::ModelIdentifier());
}

FailureOr<ImportedModel> importTFLiteBuffer(ArrayRef<uint8_t> bytes,
                                            llvm::StringRef what,
                                            MLIRContext &context,
                                            const std::string &name,
                                            const ShapeMap &inputShapes) {
  Location loc = NameLoc::get(StringAttr::get(&context, what));
  if (bytes.empty())
    return emitError(loc) << "'" << what << "' is empty, not a TFLite model";
  if (bytes.size() >= (uint64_t(1) << 31))
    return emitError(loc) << "'" << what << "' is 2 GiB or larger: "
                          << "FlatBuffers cannot address it";
  if (!isTFLiteBuffer(bytes))
    return emitError(loc) << "'" << what << "' is not a TFLite model (no "
                          << "'TFL3' file identifier)";
  // The verifier bounds-checks every offset, vector and string, and the
  // nesting depth and table count, before anything is read.
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 64;
  opts.max_tables = 10000000;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), opts);
  if (!tflite::VerifyModelBuffer(verifier))
    return emitError(loc) << "'" << what << "' is not a valid TFLite model "
                          << "(FlatBuffers verification failed: truncated or "
                          << "corrupt file)";
  context
      .loadDialect<top::TopDialect, func::FuncDialect, quant::QuantDialect>();
  Importer imp(context, bytes, tflite::GetModel(bytes.data()));
  imp.inputShapes = inputShapes;
  ModelReader reader(imp, loc);
  FailureOr<ImportedModel> imported = reader.run(name);
  if (succeeded(imported) &&
      failed(checkStaticSizeLimit(imported->module->getOperation())))
    return failure();
  return imported;
}

FailureOr<ImportedModel> importTFLiteFile(const std::string &path,
                                          MLIRContext &context,
                                          const std::string &name,
                                          const ShapeMap &inputShapes) {
  Location loc = NameLoc::get(StringAttr::get(&context, path));
  InputFile file;
  std::string error;
  if (!file.open(path, "TFLite model", error))
    return emitError(loc) << error;
  std::string n = name.empty() ? llvm::sys::path::stem(path).str() : name;
  return importTFLiteBuffer(ArrayRef<uint8_t>(file.data(), file.size()), path,
                            context, n, inputShapes);
}

std::vector<std::string> supportedTFLiteOps() {
  std::vector<std::string> names;
  for (auto &[code, fn] : converterTable())
    names.push_back(tflite::EnumNameBuiltinOperator(
        static_cast<tflite::BuiltinOperator>(code)));
  llvm::sort(names);
  return names;
}

} // namespace strata::tflite_import
