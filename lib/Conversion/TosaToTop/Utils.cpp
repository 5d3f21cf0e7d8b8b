//===- Utils.cpp - helpers shared by the TOSA to Top patterns -------------===//

#include "Utils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

namespace strata::conversion::tosa_to_top {

using namespace mlir;

Value makeTop(OpBuilder &b, Location loc, StringRef name, Type type,
              ValueRange operands, ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc, ("top." + name).str());
  state.addOperands(operands);
  state.addTypes(type);
  state.addAttributes(attrs);
  return b.create(state)->getResult(0);
}

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

RankedTensorType withElement(RankedTensorType t, Type elem) {
  return RankedTensorType::get(t.getShape(), elem);
}

Value weight(OpBuilder &b, Location loc, ElementsAttr value) {
  OperationState state(loc, "top.Weight");
  state.addTypes(value.getType());
  state.addAttribute("name", b.getStringAttr("tosa_const"));
  state.addAttribute("value", value);
  return b.create(state)->getResult(0);
}

Value intConst(OpBuilder &b, Location loc, RankedTensorType type,
               ArrayRef<int64_t> values) {
  Type elem = type.getElementType();
  if (auto f = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> data;
    for (int64_t v : values) {
      APFloat x(static_cast<double>(v));
      bool lost;
      x.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      data.push_back(x);
    }
    return weight(b, loc, DenseElementsAttr::get(type, data));
  }
  unsigned width = elem.getIntOrFloatBitWidth();
  SmallVector<APInt> data;
  for (int64_t v : values)
    data.push_back(APInt(width, static_cast<uint64_t>(v), /*isSigned=*/true,
                         /*implicitTrunc=*/true));
  return weight(b, loc, DenseElementsAttr::get(type, data));
}

Value scalar(OpBuilder &b, Location loc, Type elem, double value) {
  auto type = RankedTensorType::get({}, elem);
  if (auto f = dyn_cast<FloatType>(elem)) {
    APFloat x(value);
    bool lost;
    x.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return weight(b, loc, DenseElementsAttr::get(type, ArrayRef<APFloat>{x}));
  }
  return intConst(b, loc, type, {static_cast<int64_t>(value)});
}

Value castTo(OpBuilder &b, Location loc, Value v, Type elem) {
  RankedTensorType t = tensorType(v);
  if (t.getElementType() == elem)
    return v;
  return makeTop(b, loc, "Cast", withElement(t, elem), v);
}

SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> c) {
  size_t rank = std::max(a.size(), c.size());
  SmallVector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < c.size() ? c[c.size() - 1 - i] : 1;
    out[rank - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

Value binary(OpBuilder &b, Location loc, StringRef name, Value a, Value c) {
  RankedTensorType ta = tensorType(a), tc = tensorType(c);
  auto type = RankedTensorType::get(
      broadcastShape(ta.getShape(), tc.getShape()), ta.getElementType());
  return makeTop(b, loc, name, type, {a, c});
}

Value compare(OpBuilder &b, Location loc, Value a, Value c,
              top::CompareMode mode) {
  RankedTensorType ta = tensorType(a), tc = tensorType(c);
  auto type = RankedTensorType::get(
      broadcastShape(ta.getShape(), tc.getShape()), b.getI1Type());
  return makeTop(b, loc, "Compare", type, {a, c},
                 {b.getNamedAttr(
                     "mode", top::CompareModeAttr::get(b.getContext(), mode))});
}

Value where(OpBuilder &b, Location loc, Value cond, Value x, Value y) {
  SmallVector<int64_t> shape = broadcastShape(
      broadcastShape(tensorType(cond).getShape(), tensorType(x).getShape()),
      tensorType(y).getShape());
  return makeTop(b, loc, "Where",
                 RankedTensorType::get(shape, tensorType(x).getElementType()),
                 {cond, x, y});
}

Value floorDiv(OpBuilder &b, Location loc, Value t, Value d) {
  Type i64 = b.getI64Type();
  // For t < 0: (t - d + 1) / d truncates to floor(t / d).
  Value adjusted = binary(b, loc, "Add", binary(b, loc, "Sub", t, d),
                          scalar(b, loc, i64, 1));
  Value negative =
      compare(b, loc, t, scalar(b, loc, i64, 0), top::CompareMode::Less);
  return where(b, loc, negative, binary(b, loc, "Div", adjusted, d),
               binary(b, loc, "Div", t, d));
}

Value applyScale(OpBuilder &b, Location loc, Value x,
                 ArrayRef<int64_t> multipliers, ArrayRef<int64_t> shifts,
                 bool doubleRound, ArrayRef<int64_t> constShape) {
  Type i64 = b.getI64Type();
  size_t n = std::max(multipliers.size(), shifts.size());
  SmallVector<int64_t> shape;
  if (!constShape.empty())
    shape.assign(constShape.begin(), constShape.end());
  else
    shape.push_back(static_cast<int64_t>(n));
  auto type = RankedTensorType::get(shape, i64);
  SmallVector<int64_t> m, round, pow2, dbl;
  bool anyDouble = false;
  for (size_t i = 0; i < n; ++i) {
    int64_t mi = multipliers[multipliers.size() == 1 ? 0 : i];
    int64_t si = shifts[shifts.size() == 1 ? 0 : i];
    m.push_back(mi);
    pow2.push_back(int64_t(1) << si);
    round.push_back(si > 0 ? int64_t(1) << (si - 1) : 0);
    int64_t d = doubleRound && si > 31 ? int64_t(1) << 30 : 0;
    anyDouble |= d != 0;
    dbl.push_back(d);
  }
  Value prod = binary(b, loc, "Mul", x, intConst(b, loc, type, m));
  Value r = intConst(b, loc, type, round);
  if (anyDouble) {
    Value d = intConst(b, loc, type, dbl);
    Value nonNeg = compare(b, loc, x, scalar(b, loc, i64, 0),
                           top::CompareMode::GreaterOrEqual);
    r = binary(b, loc, "Add", r,
               where(b, loc, nonNeg, d, makeTop(b, loc, "Neg", type, d)));
  }
  return floorDiv(b, loc, binary(b, loc, "Add", prod, r),
                  intConst(b, loc, type, pow2));
}

Value clampInt(OpBuilder &b, Location loc, Value v, int64_t lo, int64_t hi) {
  Type elem = tensorType(v).getElementType();
  Value lower = binary(b, loc, "Max", v,
                       intConst(b, loc, RankedTensorType::get({}, elem), {lo}));
  return binary(b, loc, "Min", lower,
                intConst(b, loc, RankedTensorType::get({}, elem), {hi}));
}

Value saturateTo(OpBuilder &b, Location loc, Value v, Type elem,
                 bool asUnsigned) {
  unsigned bits = elem.getIntOrFloatBitWidth();
  int64_t lo = asUnsigned ? 0 : -(int64_t(1) << (bits - 1));
  int64_t hi =
      asUnsigned ? (int64_t(1) << bits) - 1 : (int64_t(1) << (bits - 1)) - 1;
  return castTo(b, loc, clampInt(b, loc, v, lo, hi), elem);
}

static ElementsAttr constAttr(Value v) {
  if (!v)
    return {};
  Operation *def = v.getDefiningOp();
  if (!def)
    return {};
  if (auto c = dyn_cast<tosa::ConstOp>(def))
    return c.getValues();
  if (auto c = dyn_cast<tosa::ConstShapeOp>(def))
    return c.getValues();
  if (auto w = dyn_cast<top::WeightOp>(def))
    if (auto value = w.getValueAttr())
      return value;
  return {};
}

/// Deepest chain of shape ops evaluated (a longer one is not constant to
/// us; bounds the recursion on hostile input).
constexpr unsigned kMaxShapeDepth = 64;

static FailureOr<SmallVector<int64_t>> constIntsAt(Value v, unsigned depth);

/// The value of a TOSA shape op whose operands are constant: the static dim
/// of `dim`, the shape arithmetic (elementwise on equal-length shapes), and
/// concat_shape / slice_shape.
static FailureOr<SmallVector<int64_t>> evalShapeOp(Operation *def,
                                                   unsigned depth) {
  auto operand = [&](unsigned i) {
    return constIntsAt(def->getOperand(i), depth + 1);
  };
  if (auto dim = dyn_cast<tosa::DimOp>(def)) {
    auto t = dyn_cast<RankedTensorType>(dim.getInput1().getType());
    int64_t axis = dim.getAxis();
    if (!t || axis < 0 || axis >= t.getRank() || t.isDynamicDim(axis))
      return failure();
    return SmallVector<int64_t>{t.getDimSize(axis)};
  }
  if (isa<tosa::ConcatShapeOp>(def)) {
    SmallVector<int64_t> out;
    for (unsigned i = 0; i < def->getNumOperands(); ++i) {
      FailureOr<SmallVector<int64_t>> part = operand(i);
      if (failed(part))
        return failure();
      out.append(part->begin(), part->end());
    }
    return out;
  }
  if (isa<tosa::SliceShapeOp>(def)) {
    FailureOr<SmallVector<int64_t>> in = operand(0), start = operand(1),
                                    size = operand(2);
    if (failed(in) || failed(start) || failed(size) || start->size() != 1 ||
        size->size() != 1)
      return failure();
    int64_t s = (*start)[0], n = (*size)[0];
    if (s < 0 || n < 0 || s + n > static_cast<int64_t>(in->size()))
      return failure();
    return SmallVector<int64_t>(in->begin() + s, in->begin() + s + n);
  }
  using Fn = std::optional<int64_t> (*)(int64_t, int64_t);
  auto log2 = [](int64_t x, bool ceil) -> std::optional<int64_t> {
    if (x <= 0)
      return std::nullopt;
    int64_t k = 63 - llvm::countl_zero(static_cast<uint64_t>(x));
    return ceil && (int64_t(1) << k) != x ? k + 1 : k;
  };
  Fn fn = nullptr;
  bool unary = false;
  if (isa<tosa::AddShapeOp>(def))
    fn = [](int64_t a, int64_t b) -> std::optional<int64_t> { return a + b; };
  else if (isa<tosa::SubShapeOp>(def))
    fn = [](int64_t a, int64_t b) -> std::optional<int64_t> { return a - b; };
  else if (isa<tosa::MulShapeOp>(def))
    fn = [](int64_t a, int64_t b) -> std::optional<int64_t> { return a * b; };
  else if (isa<tosa::MaxShapeOp>(def))
    fn = [](int64_t a, int64_t b) -> std::optional<int64_t> {
      return std::max(a, b);
    };
  else if (isa<tosa::MinShapeOp>(def))
    fn = [](int64_t a, int64_t b) -> std::optional<int64_t> {
      return std::min(a, b);
    };
  else if (isa<tosa::DivFloorShapeOp, tosa::DivCeilShapeOp, tosa::ModShapeOp>(
               def)) {
    if (isa<tosa::DivFloorShapeOp>(def))
      fn = [](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b <= 0 || a < 0)
          return std::nullopt;
        return a / b;
      };
    else if (isa<tosa::DivCeilShapeOp>(def))
      fn = [](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b <= 0 || a < 0)
          return std::nullopt;
        return (a + b - 1) / b;
      };
    else
      fn = [](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b <= 0 || a < 0)
          return std::nullopt;
        return a % b;
      };
  } else if (isa<tosa::Exp2ShapeOp>(def)) {
    unary = true;
    fn = [](int64_t a, int64_t) -> std::optional<int64_t> {
      if (a < 0 || a > 62)
        return std::nullopt;
      return int64_t(1) << a;
    };
  } else if (isa<tosa::Log2CeilShapeOp, tosa::Log2FloorShapeOp>(def)) {
    bool ceil = isa<tosa::Log2CeilShapeOp>(def);
    FailureOr<SmallVector<int64_t>> in = operand(0);
    if (failed(in))
      return failure();
    SmallVector<int64_t> out;
    for (int64_t x : *in) {
      std::optional<int64_t> r = log2(x, ceil);
      if (!r)
        return failure();
      out.push_back(*r);
    }
    return out;
  }
  if (!fn)
    return failure();
  FailureOr<SmallVector<int64_t>> a = operand(0);
  FailureOr<SmallVector<int64_t>> b = unary ? a : operand(1);
  if (failed(a) || failed(b) || a->size() != b->size())
    return failure();
  SmallVector<int64_t> out;
  for (size_t i = 0; i < a->size(); ++i) {
    std::optional<int64_t> r = fn((*a)[i], (*b)[i]);
    if (!r)
      return failure();
    out.push_back(*r);
  }
  return out;
}

FailureOr<SmallVector<int64_t>> constInts(Value v) { return constIntsAt(v, 0); }

static FailureOr<SmallVector<int64_t>> constIntsAt(Value v, unsigned depth) {
  if (depth > kMaxShapeDepth)
    return failure();
  if (Operation *def = v ? v.getDefiningOp() : nullptr)
    if (def->hasTrait<OpTrait::tosa::TosaShapeOperator>() &&
        !isa<tosa::ConstShapeOp>(def))
      return evalShapeOp(def, depth);
  ElementsAttr attr = constAttr(v);
  if (!attr)
    return failure();
  SmallVector<int64_t> out;
  Type elem = attr.getElementType();
  if (elem.isIntOrIndex()) {
    bool isUnsigned = elem.isUnsignedInteger() || elem.isInteger(1);
    for (APInt x : attr.getValues<APInt>())
      out.push_back(isUnsigned ? static_cast<int64_t>(x.getZExtValue())
                               : x.getSExtValue());
    return out;
  }
  if (isa<FloatType>(elem)) {
    for (APFloat x : attr.getValues<APFloat>()) {
      double d = x.convertToDouble();
      if (d != static_cast<double>(static_cast<int64_t>(d)))
        return failure();
      out.push_back(static_cast<int64_t>(d));
    }
    return out;
  }
  return failure();
}

FailureOr<SmallVector<double>> constFloats(Value v) {
  ElementsAttr attr = constAttr(v);
  if (!attr)
    return failure();
  SmallVector<double> out;
  Type elem = attr.getElementType();
  if (isa<FloatType>(elem)) {
    for (APFloat x : attr.getValues<APFloat>()) {
      bool lost;
      x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      out.push_back(x.convertToDouble());
    }
    return out;
  }
  FailureOr<SmallVector<int64_t>> ints = constInts(v);
  if (failed(ints))
    return failure();
  for (int64_t x : *ints)
    out.push_back(static_cast<double>(x));
  return out;
}

LogicalResult unsupported(Operation *op, StringRef field, const Twine &what) {
  return op->emitError() << "'" << op->getName() << "' " << field << ": "
                         << what;
}

FailureOr<SmallVector<int64_t>> requireConstInts(Operation *op, Value v,
                                                 StringRef field) {
  FailureOr<SmallVector<int64_t>> values = constInts(v);
  if (failed(values)) {
    (void)unsupported(op, field,
                      "must be a constant (tosa.const or tosa.const_shape)");
    return failure();
  }
  return values;
}

FailureOr<int64_t> zeroPoint(Operation *op, Value v, StringRef field) {
  FailureOr<SmallVector<double>> values = constFloats(v);
  if (failed(values) || values->size() != 1) {
    (void)unsupported(op, field, "must be a constant with one value");
    return failure();
  }
  double zp = (*values)[0];
  if (isa<FloatType>(tensorType(v).getElementType())) {
    if (zp != 0)
      return unsupported(op, field,
                         "a float zero point must be 0, got " +
                             Twine(std::to_string(zp)));
    return int64_t(0);
  }
  return static_cast<int64_t>(zp);
}

LogicalResult checkElementType(Operation *op, Type t) {
  auto shaped = dyn_cast<ShapedType>(t);
  if (!shaped)
    return success();
  if (!isa<RankedTensorType>(t))
    return unsupported(op, "type", "unranked tensors are not handled");
  Type elem = shaped.getElementType();
  if (auto i = dyn_cast<IntegerType>(elem)) {
    unsigned w = i.getWidth();
    if (w == 1 || w == 4 || w == 8 || w == 16 || w == 32 || w == 64)
      return success();
  } else if (isa<FloatType>(elem)) {
    if (elem.isF32() || elem.isF16() || elem.isBF16() || elem.isF64() ||
        isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType,
            Float8E8M0FNUType>(elem))
      return success();
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << elem;
  return unsupported(op, "element type",
                     "'" + s + "' has no Top equivalent (Top has no " + s +
                         " tensors)");
}

} // namespace strata::conversion::tosa_to_top
