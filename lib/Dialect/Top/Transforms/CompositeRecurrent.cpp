//===- CompositeRecurrent.cpp - LSTM / GRU composite converters -----------===//
//
// Keras-style recurrent layers written op by op become top.LSTM / top.GRU:
//
//   lstm(x, kernel, recurrent_kernel, [bias], [h0, c0])  -> (y, [h, c])
//   lstm_cell(x, h, c, kernel, recurrent_kernel, [bias]) -> (h', c')
//   gru(x, kernel, recurrent_kernel, [bias], [h0])       -> (y, [h])
//
// Keras stores `kernel` as [I, G*H] and `recurrent_kernel` as [H, G*H] with
// the LSTM gates in the order i, f, c, o; top.LSTM wants [1, G*H, I] in the
// order i, o, f, c. The reordering is built from Split / Concat / Permute /
// Reshape ops, which constant folding removes when the weights are
// constants. Keras GRU gates (z, r, h) already match top.GRU's order.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/Transforms/CompositeRegistry.h"

#include "strata/Dialect/Top/IR/TopUtils.h"

using namespace mlir;

namespace strata::top {
namespace {
using Problem = std::optional<std::string>;

/// Shape as "[2, 3]".
std::string shapeStr(ArrayRef<int64_t> shape) { return formatArray(shape); }

/// Argument `i` as a static float tensor, else null.
RankedTensorType floatArg(func::FuncOp fn, unsigned i) {
  auto t = rankedFloatTensor(fn.getArgumentTypes()[i]);
  return t && t.hasStaticShape() ? t : RankedTensorType();
}

/// Checks that argument `i` (called `what`) is a float tensor of `shape`.
Problem expectShape(func::FuncOp fn, unsigned i, StringRef what,
                    ArrayRef<int64_t> shape) {
  RankedTensorType t = floatArg(fn, i);
  if (!t)
    return "input " + std::to_string(i) + " (" + what.str() +
           ") must be a ranked float tensor of static shape";
  if (t.getShape() != shape)
    return "input " + std::to_string(i) + " (" + what.str() + ") must be " +
           shapeStr(shape) + ", is " + shapeStr(t.getShape());
  return std::nullopt;
}

/// Maps a Keras activation name to top.LSTM / top.GRU's.
std::optional<RnnActivation> activationOf(StringRef keras) {
  return llvm::StringSwitch<std::optional<RnnActivation>>(keras)
      .Case("sigmoid", RnnActivation::Sigmoid)
      .Case("tanh", RnnActivation::Tanh)
      .Case("relu", RnnActivation::Relu)
      .Default(std::nullopt);
}

/// `acts` as the `activations` attribute of top.LSTM / top.GRU.
ArrayAttr activationsAttr(OpBuilder &b, ArrayRef<RnnActivation> acts) {
  SmallVector<Attribute> attrs;
  for (RnnActivation a : acts)
    attrs.push_back(RnnActivationAttr::get(b.getContext(), a));
  return b.getArrayAttr(attrs);
}

/// The activations list [recurrent_activation, activation x (gates - 2)]
/// from the converter attributes (Keras defaults sigmoid / tanh).
FailureOr<SmallVector<RnnActivation>> activations(DictionaryAttr attrs,
                                                unsigned count,
                                                std::string &problem) {
  std::string recurrent =
      stringAttr(attrs, "recurrent_activation").value_or("sigmoid");
  std::string act = stringAttr(attrs, "activation").value_or("tanh");
  SmallVector<std::string> given = {recurrent, act};
  SmallVector<RnnActivation> names;
  for (auto [i, name] : llvm::enumerate(given)) {
    std::optional<RnnActivation> mapped = activationOf(name);
    if (!mapped) {
      problem = std::string("attribute '") +
                (i == 0 ? "recurrent_activation" : "activation") + "' = \"" +
                name + "\" is not one of sigmoid, tanh, relu";
      return failure();
    }
    names.push_back(*mapped);
  }
  while (names.size() < count)
    names.push_back(names[1]);
  return names;
}

/// Small op builders on top of createFused; each returns null on failure
/// (the diagnostic was emitted).
struct Ops {
  OpBuilder &b;
  Location loc;
  Type elem;

  Value reshape(Value v, ArrayRef<int64_t> shape) {
    if (!v)
      return {};
    auto op = createFused<ReshapeOp>(
        b, loc, 1, elem, v,
        {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
    return succeeded(op) ? op->getOutput() : Value();
  }
  Value transpose2d(Value v) {
    if (!v)
      return {};
    auto op = createFused<PermuteOp>(
        b, loc, 1, elem, v,
        {b.getNamedAttr("order", b.getDenseI64ArrayAttr({1, 0}))});
    return succeeded(op) ? op->getOutput() : Value();
  }
  /// Splits `v` along `axis` into `gates` equal blocks and concatenates
  /// them in `order` (block `order[k]` goes to position k).
  Value reorderGates(Value v, int64_t axis, ArrayRef<int64_t> order) {
    if (!v)
      return {};
    int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(axis);
    int64_t gates = order.size();
    SmallVector<int64_t> split(gates, size / gates);
    auto parts = createFused<SplitOp>(
        b, loc, gates, elem, v,
        {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
         b.getNamedAttr("split", b.getDenseI64ArrayAttr(split))});
    if (failed(parts))
      return {};
    SmallVector<Value> ordered;
    for (int64_t k : order)
      ordered.push_back((*parts)->getResult(k));
    auto cat = createFused<ConcatOp>(
        b, loc, 1, elem, ordered,
        {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
    return succeeded(cat) ? cat->getOutput() : Value();
  }
  Value concat(ValueRange values, int64_t axis) {
    if (llvm::any_of(values, [](Value v) { return !v; }))
      return {};
    auto cat = createFused<ConcatOp>(
        b, loc, 1, elem, values,
        {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
    return succeeded(cat) ? cat->getOutput() : Value();
  }
  Value zeros(ArrayRef<int64_t> shape, StringRef name) {
    std::optional<DType> dtype = dtypeOf(elem);
    if (!dtype)
      return {};
    Tensor data(*dtype, std::vector<int64_t>(shape.begin(), shape.end()));
    return createFusedConstant(b, loc, name, data,
                               RankedTensorType::get(shape, elem));
  }
};

/// The layer output's shape: [S, N, H] (time major) or [N, S, H].
SmallVector<int64_t> sequenceShape(bool timeMajor, int64_t steps,
                                   int64_t batch, int64_t hidden) {
  if (timeMajor)
    return {steps, batch, hidden};
  return {batch, steps, hidden};
}

/// Keras [I, G*H] kernel -> [1, G*H, I] in the fused op's gate order.
Value fusedWeight(Ops &ops, Value kernel, ArrayRef<int64_t> order) {
  auto t = cast<RankedTensorType>(kernel.getType());
  Value w = order.empty() ? kernel : ops.reorderGates(kernel, 1, order);
  return ops.reshape(ops.transpose2d(w), {1, t.getDimSize(1), t.getDimSize(0)});
}

/// Checks shared by the recurrent converters: one element type, no
/// go_backwards, supported activations (`count` per direction).
Problem checkRecurrentCommon(func::FuncOp fn, DictionaryAttr attrs,
                             unsigned count) {
  Type elem = cast<RankedTensorType>(fn.getArgumentTypes()[0]).getElementType();
  for (Type t : fn.getArgumentTypes())
    if (cast<RankedTensorType>(t).getElementType() != elem)
      return std::string("all inputs must have the element type of input 0");
  if (numberAttr(attrs, "go_backwards").value_or(0) != 0)
    return std::string("attribute 'go_backwards' is not supported");
  std::string problem;
  if (failed(activations(attrs, count, problem)))
    return problem;
  return std::nullopt;
}

/// Keras LSTM gates i, f, c, o -> top.LSTM's i, o, f, c.
constexpr int64_t kLstmOrder[] = {0, 3, 1, 2};

//===----------------------------------------------------------------------===//
// lstm / lstm_cell
//===----------------------------------------------------------------------===//

/// The converter attributes of the Keras recurrent layers.
const ConverterAttr kRecurrentAttrs[] = {
    {"activation", AttrKind::String},   {"recurrent_activation", AttrKind::String},
    {"time_major", AttrKind::Number},   {"return_sequences", AttrKind::Number},
    {"go_backwards", AttrKind::Number}, {"reset_after", AttrKind::Number}};

struct KerasLSTM : CompositeConverter {
  /// True for the one-step cell (h, c in and out).
  explicit KerasLSTM(bool cell) : cell(cell) {}
  bool cell;
  ArrayRef<ConverterAttr> attributes() const override {
    return kRecurrentAttrs;
  }

  // Argument positions.
  unsigned xArg() const { return 0; }
  unsigned kernelArg() const { return cell ? 3 : 1; }
  unsigned recurrentArg() const { return cell ? 4 : 2; }
  unsigned biasArg() const { return cell ? 5 : 3; }

  Problem verify(func::FuncOp fn, DictionaryAttr attrs) const override {
    unsigned in = fn.getNumArguments(), out = fn.getNumResults();
    if (cell ? (in != 5 && in != 6) : (in != 3 && in != 4 && in != 6))
      return "takes " + std::to_string(in) + " inputs, expected " +
             (cell ? "5 or 6 (x, h, c, kernel, recurrent_kernel, [bias])"
                   : "3, 4 or 6 (x, kernel, recurrent_kernel, [bias, "
                     "[h0, c0]])");
    if (cell ? out != 2 : (out != 1 && out != 3))
      return "returns " + std::to_string(out) + " results, expected " +
             (cell ? "2 (h, c)" : "1 or 3 (output, [h, c])");
    RankedTensorType x = floatArg(fn, xArg());
    int64_t xRank = cell ? 2 : 3;
    if (!x || x.getRank() != xRank)
      return "input 0 (x) must be a float tensor of static shape and rank " +
             std::to_string(xRank);
    RankedTensorType kernel = floatArg(fn, kernelArg());
    if (!kernel || kernel.getRank() != 2 || kernel.getDimSize(1) % 4 != 0 ||
        kernel.getDimSize(1) == 0)
      return "input " + std::to_string(kernelArg()) +
             " (kernel) must be a float tensor [input_size, 4 * units]";
    int64_t inputSize = x.getShape().back();
    int64_t hidden = kernel.getDimSize(1) / 4;
    bool timeMajor = !cell && numberAttr(attrs, "time_major").value_or(0) != 0;
    int64_t batch = cell ? x.getDimSize(0) : x.getDimSize(timeMajor ? 1 : 0);
    if (Problem p =
            expectShape(fn, kernelArg(), "kernel", {inputSize, 4 * hidden}))
      return p;
    if (Problem p = expectShape(fn, recurrentArg(), "recurrent_kernel",
                                {hidden, 4 * hidden}))
      return p;
    if (in > biasArg())
      if (Problem p = expectShape(fn, biasArg(), "bias", {4 * hidden}))
        return p;
    SmallVector<std::pair<unsigned, StringRef>> states;
    if (cell)
      states = {{1, "h"}, {2, "c"}};
    else if (in == 6)
      states = {{4, "h0"}, {5, "c0"}};
    for (auto [i, what] : states)
      if (Problem p = expectShape(fn, i, what, {batch, hidden}))
        return p;
    return checkRecurrentCommon(fn, attrs, 3);
  }

  FailureOr<SmallVector<Value>> build(OpBuilder &b, Location loc,
                                      ValueRange in,
                                      DictionaryAttr attrs) const override {
    auto x = cast<RankedTensorType>(in[xArg()].getType());
    Ops ops{b, loc, x.getElementType()};
    int64_t hidden =
        cast<RankedTensorType>(in[kernelArg()].getType()).getDimSize(1) / 4;
    bool timeMajor = !cell && numberAttr(attrs, "time_major").value_or(0) != 0;
    bool returnSequences =
        cell || numberAttr(attrs, "return_sequences").value_or(1) != 0;
    int64_t batch = cell ? x.getDimSize(0) : x.getDimSize(timeMajor ? 1 : 0);
    int64_t layout = timeMajor ? 0 : 1;
    // States [N, H] -> [1, N, H] (layout 0) or [N, 1, H] (layout 1).
    SmallVector<int64_t> stateShape =
        layout == 0 ? SmallVector<int64_t>{1, batch, hidden}
                    : SmallVector<int64_t>{batch, 1, hidden};

    Value input =
        cell ? ops.reshape(in[0], {batch, 1, x.getDimSize(1)}) : in[0];
    Value weight = fusedWeight(ops, in[kernelArg()], kLstmOrder);
    Value recurrence = fusedWeight(ops, in[recurrentArg()], kLstmOrder);
    Value none = createNone(b, loc);
    Value bias = none;
    if (in.size() > biasArg()) {
      Value wb = ops.reorderGates(in[biasArg()], 0, kLstmOrder);
      Value rb = ops.zeros({4 * hidden}, "lstm_zero_bias");
      bias = ops.reshape(ops.concat({wb, rb}, 0), {1, 8 * hidden});
    }
    Value h0 = none, c0 = none;
    if (cell) {
      h0 = ops.reshape(in[1], stateShape);
      c0 = ops.reshape(in[2], stateShape);
    } else if (in.size() == 6) {
      h0 = ops.reshape(in[4], stateShape);
      c0 = ops.reshape(in[5], stateShape);
    }
    if (!input || !weight || !recurrence || !bias || !h0 || !c0)
      return failure();
    std::string problem;
    SmallVector<RnnActivation> acts = *activations(attrs, 3, problem);
    auto lstm = createFused<LSTMOp>(
        b, loc, 3, x.getElementType(),
        {input, weight, recurrence, bias, none, h0, c0, none},
        {b.getNamedAttr("hidden_size", b.getI64IntegerAttr(hidden)),
         b.getNamedAttr("activations", activationsAttr(b, acts)),
         b.getNamedAttr("layout", b.getI64IntegerAttr(layout))});
    if (failed(lstm))
      return failure();
    Value h = ops.reshape((*lstm)->getResult(1), {batch, hidden});
    Value c = ops.reshape((*lstm)->getResult(2), {batch, hidden});
    if (!h || !c)
      return failure();
    if (cell)
      return SmallVector<Value>{h, c};
    int64_t steps = x.getDimSize(timeMajor ? 0 : 1);
    Value y = returnSequences
                  ? ops.reshape((*lstm)->getResult(0),
                                sequenceShape(timeMajor, steps, batch, hidden))
                  : h;
    if (!y)
      return failure();
    // The pass uses as many of these as the function has results.
    return SmallVector<Value>{y, h, c};
  }
};

//===----------------------------------------------------------------------===//
// gru
//===----------------------------------------------------------------------===//

struct KerasGRU : CompositeConverter {
  ArrayRef<ConverterAttr> attributes() const override {
    return kRecurrentAttrs;
  }
  Problem verify(func::FuncOp fn, DictionaryAttr attrs) const override {
    unsigned in = fn.getNumArguments(), out = fn.getNumResults();
    if (in < 3 || in > 5)
      return "takes " + std::to_string(in) +
             " inputs, expected 3 to 5 (x, kernel, recurrent_kernel, [bias, "
             "[h0]])";
    if (out != 1 && out != 2)
      return "returns " + std::to_string(out) +
             " results, expected 1 or 2 (output, [h])";
    RankedTensorType x = floatArg(fn, 0);
    if (!x || x.getRank() != 3)
      return std::string(
          "input 0 (x) must be a float tensor of static shape and rank 3");
    RankedTensorType kernel = floatArg(fn, 1);
    if (!kernel || kernel.getRank() != 2 || kernel.getDimSize(1) % 3 != 0 ||
        kernel.getDimSize(1) == 0)
      return std::string(
          "input 1 (kernel) must be a float tensor [input_size, 3 * units]");
    int64_t hidden = kernel.getDimSize(1) / 3;
    bool timeMajor = numberAttr(attrs, "time_major").value_or(0) != 0;
    int64_t batch = x.getDimSize(timeMajor ? 1 : 0);
    if (Problem p = expectShape(fn, 1, "kernel", {x.getDimSize(2), 3 * hidden}))
      return p;
    if (Problem p =
            expectShape(fn, 2, "recurrent_kernel", {hidden, 3 * hidden}))
      return p;
    bool resetAfter = numberAttr(attrs, "reset_after").value_or(1) != 0;
    if (in > 3) {
      SmallVector<int64_t> biasShape =
          resetAfter ? SmallVector<int64_t>{2, 3 * hidden}
                     : SmallVector<int64_t>{3 * hidden};
      if (Problem p = expectShape(fn, 3, "bias", biasShape))
        return p;
    }
    if (in > 4)
      if (Problem p = expectShape(fn, 4, "h0", {batch, hidden}))
        return p;
    return checkRecurrentCommon(fn, attrs, 2);
  }

  FailureOr<SmallVector<Value>> build(OpBuilder &b, Location loc,
                                      ValueRange in,
                                      DictionaryAttr attrs) const override {
    auto x = cast<RankedTensorType>(in[0].getType());
    Ops ops{b, loc, x.getElementType()};
    int64_t hidden = cast<RankedTensorType>(in[1].getType()).getDimSize(1) / 3;
    bool timeMajor = numberAttr(attrs, "time_major").value_or(0) != 0;
    bool returnSequences =
        numberAttr(attrs, "return_sequences").value_or(1) != 0;
    bool resetAfter = numberAttr(attrs, "reset_after").value_or(1) != 0;
    int64_t batch = x.getDimSize(timeMajor ? 1 : 0);
    int64_t steps = x.getDimSize(timeMajor ? 0 : 1);
    int64_t layout = timeMajor ? 0 : 1;

    Value weight = fusedWeight(ops, in[1], {});
    Value recurrence = fusedWeight(ops, in[2], {});
    Value none = createNone(b, loc);
    Value bias = none;
    if (in.size() > 3)
      bias = resetAfter
                 ? ops.reshape(in[3], {1, 6 * hidden})
                 : ops.reshape(ops.concat({in[3], ops.zeros({3 * hidden},
                                                             "gru_zero_bias")},
                                          0),
                               {1, 6 * hidden});
    Value h0 = none;
    if (in.size() > 4)
      h0 = ops.reshape(in[4], layout == 0
                                  ? SmallVector<int64_t>{1, batch, hidden}
                                  : SmallVector<int64_t>{batch, 1, hidden});
    if (!weight || !recurrence || !bias || !h0)
      return failure();
    std::string problem;
    SmallVector<RnnActivation> acts = *activations(attrs, 2, problem);
    auto gru = createFused<GRUOp>(
        b, loc, 2, x.getElementType(),
        {in[0], weight, recurrence, bias, none, h0},
        {b.getNamedAttr("hidden_size", b.getI64IntegerAttr(hidden)),
         b.getNamedAttr("activations", activationsAttr(b, acts)),
         b.getNamedAttr("linear_before_reset", b.getBoolAttr(resetAfter)),
         b.getNamedAttr("layout", b.getI64IntegerAttr(layout))});
    if (failed(gru))
      return failure();
    Value h = ops.reshape((*gru)->getResult(1), {batch, hidden});
    Value y = returnSequences
                  ? ops.reshape((*gru)->getResult(0),
                                sequenceShape(timeMajor, steps, batch, hidden))
                  : h;
    if (!y || !h)
      return failure();
    return SmallVector<Value>{y, h};
  }
};
} // namespace

void registerRecurrentCompositeConverters(CompositeRegistry &registry) {
  registry.add("lstm", std::make_shared<KerasLSTM>(/*cell=*/false));
  registry.add("keras_lstm", std::make_shared<KerasLSTM>(/*cell=*/false));
  registry.add("lstm_cell", std::make_shared<KerasLSTM>(/*cell=*/true));
  registry.add("gru", std::make_shared<KerasGRU>());
  registry.add("keras_gru", std::make_shared<KerasGRU>());
}

} // namespace strata::top
