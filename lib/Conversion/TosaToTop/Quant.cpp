//===- Quant.cpp - TOSA rescale and table to Top --------------------------===//
//
// rescale is one top.Requant in TOSA's rounding (quant_mode
// "TosaSingleRound" / "TosaDoubleRound", the channel on the last dim):
//   v = x - input_zp                      (x zero-extended if input_unsigned)
//   v = floor((v * m + 2^(s-1) [± 2^30 if DOUBLE_ROUND and s > 31]) / 2^s)
//   y = clamp(v + output_zp, output range)  (unsigned if output_unsigned)
// TOSA 1.0 tensors are plain integers (no scales), so the Requant's sides
// are plain integer types: unsigned sides are `uiN` (Casts keep the bits),
// a non-zero input zero point is subtracted in i32 before it, a non-zero
// output zero point added after it (Requant to i32, + zp in i64, saturated)
// — exact, and no float op appears.
//
// apply_scale (on tensors) is the same Requant, to i32.
//
// table: i8 is a gather from the 256 entries at x + 128; i16 interpolates
// the 513 entries into an i32 result as the spec does.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"

namespace strata::conversion {

using namespace mlir;
using namespace tosa_to_top;

namespace {

/// The constant multipliers and shifts of rescale / apply_scale, checked as
/// the spec requires (shift in [2, 62], multiplier >= 0).
struct ScaleParams {
  SmallVector<int64_t> mult, shift;
};
FailureOr<ScaleParams> scaleParams(Operation *op, Value multiplier,
                                   Value shift) {
  FailureOr<SmallVector<int64_t>> m =
      requireConstInts(op, multiplier, "multiplier");
  FailureOr<SmallVector<int64_t>> s = requireConstInts(op, shift, "shift");
  if (failed(m) || failed(s))
    return failure();
  for (int64_t v : *s)
    if (v < 2 || v > 62)
      return unsupported(op, "shift", "must be in [2, 62], got " + Twine(v));
  for (int64_t v : *m)
    if (v < 0)
      return unsupported(op, "multiplier",
                         "must be non-negative, got " + Twine(v));
  return ScaleParams{*m, *s};
}

struct Rescale : TosaPattern<tosa::RescaleOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::RescaleOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Type i64 = b.getI64Type();
    Type inElem = tensorType(a.getInput()).getElementType();
    Type outElem = op.getType().getElementType();
    if (!isa<IntegerType>(inElem) || !isa<IntegerType>(outElem))
      return unsupported(op, "element type",
                         "input and output must be integers");
    unsigned inBits = inElem.getIntOrFloatBitWidth();
    unsigned outBits = outElem.getIntOrFloatBitWidth();
    FailureOr<ScaleParams> params =
        scaleParams(op, op.getMultiplier(), op.getShift());
    FailureOr<int64_t> izp = zeroPoint(op, op.getInputZp(), "input_zp");
    FailureOr<int64_t> ozp = zeroPoint(op, op.getOutputZp(), "output_zp");
    if (failed(params) || failed(izp) || failed(ozp))
      return failure();
    SmallVector<int64_t> *mult = &params->mult, *shift = &params->shift;
    if (mult->empty() || mult->size() != shift->size())
      return unsupported(op, "multiplier",
                         Twine(mult->size()) + " values for " +
                             Twine(shift->size()) + " shifts");
    RankedTensorType rt = tensorType(op->getResult(0));
    int64_t channels = rt.getRank() ? rt.getShape().back() : 1;
    if (op.getPerChannel() ? (int64_t)mult->size() != channels
                           : mult->size() != 1)
      return unsupported(op, "multiplier",
                         Twine(mult->size()) + " values, expected " +
                             Twine(op.getPerChannel() ? channels : 1) +
                             (op.getPerChannel() ? " (per_channel)" : ""));
    // apply_scale_16 has no double rounding; INEXACT_ROUND is
    // implementation-defined in the spec: computed as SINGLE_ROUND.
    bool doubleRound = op.getScale32() &&
                       op.getRoundingMode() == tosa::RoundingMode::DOUBLE_ROUND;
    // Unsigned zero points are stored in the signless type's bits.
    if (op.getInputUnsigned() && *izp < 0)
      *izp += int64_t(1) << inBits;
    if (op.getOutputUnsigned() && *ozp < 0)
      *ozp += int64_t(1) << outBits;
    MLIRContext *ctx = b.getContext();
    Value x = a.getInput();
    if (op.getInputUnsigned())
      x = castTo(b, loc, x,
                 IntegerType::get(ctx, inBits, IntegerType::Unsigned));
    if (*izp)
      x = binary(b, loc, "Sub", castTo(b, loc, x, b.getI32Type()),
                 scalar(b, loc, b.getI32Type(), double(*izp)));
    // The Requant's result: the output type itself when it needs no zero
    // point (uiN when unsigned), else i32 (TOSA requires apply_scale's result
    // to fit in int32) to which the zero point is added.
    Type direct =
        op.getOutputUnsigned()
            ? Type(IntegerType::get(ctx, outBits, IntegerType::Unsigned))
            : outElem;
    Type requantElem = *ozp ? b.getI32Type() : direct;
    auto mode = doubleRound ? top::RequantMode::TosaDoubleRound
                            : top::RequantMode::TosaSingleRound;
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr("multiplier", b.getDenseI64ArrayAttr(*mult)),
        b.getNamedAttr("rshift", b.getDenseI64ArrayAttr(*shift)),
        b.getNamedAttr("quant_mode", top::RequantModeAttr::get(ctx, mode))};
    if (mult->size() > 1)
      attrs.push_back(
          b.getNamedAttr("axis", b.getI64IntegerAttr(rt.getRank() - 1)));
    Value v =
        makeTop(b, loc, "Requant", withElement(rt, requantElem), {x}, attrs);
    if (!*ozp)
      return castTo(b, loc, v, outElem);
    v = binary(b, loc, "Add", castTo(b, loc, v, i64),
               scalar(b, loc, i64, double(*ozp)));
    // i64 -> iN keeps the low bits: an unsigned 255 is the i8 bits 0xFF.
    return saturateTo(b, loc, v, outElem, op.getOutputUnsigned());
  }
};

/// apply_scale on tensors (elementwise, constant multiplier and shift): one
/// top.Requant to i32 when they are single values and the input fits it,
/// else the same rounding decomposed into i64 Top ops per element.
struct ApplyScale : TosaPattern<tosa::ApplyScaleOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ApplyScaleOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    if (!isa<RankedTensorType>(op.getType()))
      return unsupported(op, "value",
                         "must be a tensor (scalar apply_scale belongs to "
                         "MLIR's own lowering, not a model)");
    FailureOr<ScaleParams> params =
        scaleParams(op, op.getMultiplier(), op.getShift());
    if (failed(params))
      return failure();
    if (op.getRoundingMode() == tosa::RoundingMode::INEXACT_ROUND)
      return unsupported(op, "rounding_mode",
                         "INEXACT_ROUND is not handled (MLIR's lowering "
                         "refuses it too)");
    bool doubleRound = op.getRoundingMode() == tosa::RoundingMode::DOUBLE_ROUND;
    RankedTensorType rt = tensorType(op.getOutput());
    Type inElem = tensorType(a.getValue()).getElementType();
    auto splat = [](ArrayRef<int64_t> v) {
      return llvm::all_equal(v) ? SmallVector<int64_t>{v.front()}
                                : SmallVector<int64_t>(v);
    };
    SmallVector<int64_t> m = splat(params->mult), s = splat(params->shift);
    if (m.size() == 1 && s.size() == 1 &&
        inElem.getIntOrFloatBitWidth() <= 32) {
      auto mode = doubleRound ? top::RequantMode::TosaDoubleRound
                              : top::RequantMode::TosaSingleRound;
      Value r = makeTop(
          b, loc, "Requant", withElement(rt, b.getI32Type()), {a.getValue()},
          {b.getNamedAttr("multiplier", b.getDenseI64ArrayAttr(m)),
           b.getNamedAttr("rshift", b.getDenseI64ArrayAttr(s)),
           b.getNamedAttr("quant_mode",
                          top::RequantModeAttr::get(b.getContext(), mode))});
      return castTo(b, loc, r, rt.getElementType());
    }
    int64_t n = rt.getNumElements();
    for (auto [name, v] :
         {std::pair<StringRef, ArrayRef<int64_t>>{"multiplier", m},
          {"shift", s}})
      if (v.size() != 1 && static_cast<int64_t>(v.size()) != n)
        return unsupported(op, name,
                           Twine(v.size()) + " values for " + Twine(n) +
                               " elements");
    Value x = castTo(b, loc, a.getValue(), b.getI64Type());
    Value v = applyScale(b, loc, x, m, s, doubleRound, rt.getShape());
    return saturateTo(b, loc, v, rt.getElementType());
  }
};

struct Table : TosaPattern<tosa::TableOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::TableOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    Type i32 = b.getI32Type();
    RankedTensorType xt = tensorType(a.getInput1());
    unsigned bits = xt.getElementType().getIntOrFloatBitWidth();
    int64_t entries = tensorType(a.getTable()).getDimSize(0);
    auto gather = [&](Value idx, Type elem) {
      return makeTop(b, loc, "Gather", withElement(xt, elem),
                     {a.getTable(), idx},
                     {b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
    };
    Value x = castTo(b, loc, a.getInput1(), i32);
    if (bits == 8) {
      if (entries != 256)
        return unsupported(
            op, "table", "an i8 table has 256 entries, got " + Twine(entries));
      return gather(binary(b, loc, "Add", x, scalar(b, loc, i32, 128)),
                    op.getType().getElementType());
    }
    if (bits != 16 || entries != 513)
      return unsupported(op, "table",
                         "expected i8 input with 256 entries or i16 with 513, "
                         "got i" +
                             Twine(bits) + " with " + Twine(entries));
    Value idx = binary(b, loc, "Add", x, scalar(b, loc, i32, 32768));
    Value hi = binary(b, loc, "Div", idx, scalar(b, loc, i32, 128));
    Value frac = binary(b, loc, "Sub", idx,
                        binary(b, loc, "Mul", hi, scalar(b, loc, i32, 128)));
    Type tableElem = tensorType(a.getTable()).getElementType();
    Value base = castTo(b, loc, gather(hi, tableElem), i32);
    Value next = castTo(
        b, loc,
        gather(binary(b, loc, "Add", hi, scalar(b, loc, i32, 1)), tableElem),
        i32);
    Value r = binary(
        b, loc, "Add", binary(b, loc, "Mul", base, scalar(b, loc, i32, 128)),
        binary(b, loc, "Mul", binary(b, loc, "Sub", next, base), frac));
    return castTo(b, loc, r, op.getType().getElementType());
  }
};

} // namespace

void populateTosaToTopQuantPatterns(RewritePatternSet &patterns) {
  patterns.add<Rescale, ApplyScale, Table>(patterns.getContext());
}

} // namespace strata::conversion
