//===- Quant.cpp - TOSA rescale and table to Top --------------------------===//
//
// rescale follows the TOSA spec exactly, as integer Top ops in i64:
//   v = x - input_zp                      (x zero-extended if input_unsigned)
//   v = floor((v * m + 2^(s-1) [± 2^30 if DOUBLE_ROUND and s > 31]) / 2^s)
//   y = clamp(v + output_zp, output range)  (unsigned if output_unsigned)
// Top's Requant is not used: its MultiplierShift rounds ties away from zero
// and its TFLite mode rounds twice with different ties, while TOSA rounds
// ties up (docs/tosa.md). The result stays an integer (quantized) tensor.
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
    FailureOr<SmallVector<int64_t>> mult =
        requireConstInts(op, op.getMultiplier(), "multiplier");
    FailureOr<SmallVector<int64_t>> shift =
        requireConstInts(op, op.getShift(), "shift");
    FailureOr<int64_t> izp = zeroPoint(op, op.getInputZp(), "input_zp");
    FailureOr<int64_t> ozp = zeroPoint(op, op.getOutputZp(), "output_zp");
    if (failed(mult) || failed(shift) || failed(izp) || failed(ozp))
      return failure();
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
    for (int64_t s : *shift)
      if (s < 2 || s > 62)
        return unsupported(op, "shift", "must be in [2, 62], got " + Twine(s));
    for (int64_t m : *mult)
      if (m < 0)
        return unsupported(op, "multiplier",
                           "must be non-negative, got " + Twine(m));
    bool doubleRound = op.getRoundingMode() == tosa::RoundingMode::DOUBLE_ROUND;
    // Unsigned zero points are stored in the signless type's bits.
    if (op.getInputUnsigned() && *izp < 0)
      *izp += int64_t(1) << inBits;
    if (op.getOutputUnsigned() && *ozp < 0)
      *ozp += int64_t(1) << outBits;
    Value x = a.getInput();
    if (op.getInputUnsigned())
      x = castTo(
          b, loc, x,
          IntegerType::get(b.getContext(), inBits, IntegerType::Unsigned));
    x = castTo(b, loc, x, i64);
    if (*izp)
      x = binary(b, loc, "Sub", x, scalar(b, loc, i64, double(*izp)));
    Value v = applyScale(b, loc, x, *mult, *shift, doubleRound);
    if (*ozp)
      v = binary(b, loc, "Add", v, scalar(b, loc, i64, double(*ozp)));
    // i64 -> iN keeps the low bits: an unsigned 255 is the i8 bits 0xFF.
    return saturateTo(b, loc, v, outElem, op.getOutputUnsigned());
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
  patterns.add<Rescale, Table>(patterns.getContext());
}

} // namespace strata::conversion
