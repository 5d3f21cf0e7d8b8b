//===- HLOps.cpp - HL dialect registration and verifiers ------------------===//

#include "strata/Dialect/HL/IR/HLOps.h"
#include "strata/Support/IntegerTable16.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;
using namespace strata::hl;

#include "strata/Dialect/HL/IR/HLOpsDialect.cpp.inc"

void HLDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/HL/IR/HLOps.cpp.inc"
      >();
}

namespace strata::hl {

Format formatOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (auto q = dyn_cast<quant::QuantizedType>(type))
    return q.getStorageTypeIntegralWidth() == 8 ? Format::Int8 : Format::Other;
  if (auto i = dyn_cast<IntegerType>(type))
    return i.getWidth() == 8 ? Format::Int8 : Format::Other;
  if (type.isBF16())
    return Format::BF16;
  return Format::Other;
}

bool isSignedInt16(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (auto q = dyn_cast<quant::QuantizedType>(type))
    return q.getStorageTypeIntegralWidth() == 16 && q.isSigned();
  if (auto i = dyn_cast<IntegerType>(type))
    return i.getWidth() == 16 && !i.isUnsigned();
  return false;
}

std::pair<int64_t, int64_t> storageRange(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (auto q = dyn_cast<quant::QuantizedType>(type))
    return {q.getStorageTypeMin(), q.getStorageTypeMax()};
  if (auto i = dyn_cast<IntegerType>(type)) {
    if (i.isUnsigned())
      return {0, (int64_t(1) << i.getWidth()) - 1};
    return {-(int64_t(1) << (i.getWidth() - 1)),
            (int64_t(1) << (i.getWidth() - 1)) - 1};
  }
  return {0, 0};
}

int64_t windowOutputSize(int64_t in, int64_t padBegin, int64_t padEnd,
                         int64_t kernel, int64_t stride, int64_t dilation) {
  int64_t span = in + padBegin + padEnd - dilation * (kernel - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

int64_t segmentedSize(int64_t in, int64_t padBegin, int64_t padEnd, int64_t s) {
  return (in + padBegin + padEnd + s - 1) / s;
}

} // namespace strata::hl

namespace {

/// The `rounding` attribute: "multiplier_shift" or "tflite" (whose
/// multipliers are Q0.31 values, at most 2^31 - 1).
LogicalResult verifyRounding(Operation *op, StringRef rounding,
                             ArrayRef<int64_t> multipliers) {
  if (rounding != "multiplier_shift" && rounding != "tflite")
    return op->emitOpError("rounding '")
           << rounding << "' must be multiplier_shift or tflite";
  if (rounding == "tflite")
    for (int64_t m : multipliers)
      if (m < 0 || m > std::numeric_limits<int32_t>::max())
        return op->emitOpError("tflite rounding: multiplier ")
               << m << " must be a Q0.31 value in [0, 2^31 - 1]";
  return success();
}

std::string ints(ArrayRef<int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Checks that every listed value has a static shape.
LogicalResult requireStatic(Operation *op) {
  for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return op->emitOpError("needs static shapes; ")
             << v.getType() << " is not";
  return success();
}

/// The format every data operand and the result share; an error otherwise.
FailureOr<Format> commonFormat(Operation *op, ValueRange data) {
  Format f = formatOf(op->getResult(0).getType());
  if (f == Format::Other)
    return op->emitOpError("computes in int8 or bf16; its result is ")
           << op->getResult(0).getType();
  for (Value v : data)
    if (formatOf(v.getType()) != f)
      return op->emitOpError("operand ")
             << v.getType() << " is not in the result's number format ("
             << (f == Format::Int8 ? "int8" : "bf16") << ")";
  return f;
}

/// The format of a convolution (`hl.conv2d`, `hl.depthwise_conv2d`): the
/// common format of its input, weights and result, or int8 with an int16
/// result (the pre-activation of an hl.table16, the only user the NPU
/// lowering folds it with), not written segmented.
FailureOr<Format> convFormat(Operation *op, Value input, Value weights,
                             bool segmentedOutput) {
  if (!isSignedInt16(op->getResult(0).getType()))
    return commonFormat(op, {input, weights});
  if (formatOf(input.getType()) != Format::Int8 ||
      formatOf(weights.getType()) != Format::Int8)
    return op->emitOpError("an int16 result needs int8 input and weights, "
                           "got ")
           << input.getType() << " and " << weights.getType();
  if (segmentedOutput)
    return op->emitOpError("an int16 result is not written segmented");
  return Format::Int8;
}

/// The integer epilogue: zero points, clip bounds, accumulator width.
template <typename OpT> LogicalResult verifyIntEpilogue(OpT op, Format f) {
  if (f == Format::BF16)
    return success();
  if (op.getRelu())
    return op.emitOpError("'relu' is for bf16; an int8 op clips with "
                          "clip_min = output_zp");
  auto [lo, hi] = storageRange(op.getOutput().getType());
  if (op.getClipMin() > op.getClipMax() || op.getClipMin() < lo ||
      op.getClipMax() > hi)
    return op.emitOpError("clip [")
           << op.getClipMin() << ", " << op.getClipMax()
           << "] must be an ordered range within the output's [" << lo << ", "
           << hi << "]";
  if (op.getOutputZp() < lo || op.getOutputZp() > hi)
    return op.emitOpError("output_zp ")
           << op.getOutputZp() << " is outside the output's range";
  if (op.getAccumulatorBits() < 16 || op.getAccumulatorBits() > 64)
    return op.emitOpError("accumulator_bits ")
           << op.getAccumulatorBits() << " must be in 16..64";
  return verifyRounding(op, op.getRounding(), {});
}

/// The per-channel scale+bias operand: `C x 3` i32 with shifts in [0, 63]
/// when constant (int8), `C` f32 (bf16). `zeroPoints`: `C x 4` is allowed
/// too, the fourth column each channel's output zero point (added to
/// output_zp), when the result is not written segmented.
LogicalResult verifyScaleBias(Operation *op, Value sb, int64_t channels,
                              Format f, bool zeroPoints = false,
                              bool segmentedOutput = false) {
  auto type = cast<RankedTensorType>(sb.getType());
  if (f == Format::Int8) {
    bool four = zeroPoints && type.getShape() == ArrayRef<int64_t>{channels, 4};
    if (!type.getElementType().isSignlessInteger(32) ||
        (type.getShape() != ArrayRef<int64_t>{channels, 3} && !four))
      return op->emitOpError("scale_bias must be ")
             << channels << "x3 i32 (rows bias, multiplier, shift)"
             << (zeroPoints ? " or " + std::to_string(channels) +
                                  "x4 (and the output zero point)"
                            : std::string())
             << ", got " << type;
    if (four && segmentedOutput)
      return op->emitOpError("scale_bias ")
             << type
             << " has per-channel output zero points: segment_output pads "
                "with one zero point and cannot be used with them";
  } else if (!type.getElementType().isF32() ||
             type.getShape() != ArrayRef<int64_t>{channels}) {
    return op->emitOpError("bf16: scale_bias must be the ")
           << channels << " f32 biases, got " << type;
  }
  return success();
}

/// pad / stride / dilation / segments of a window op with kernel `k`;
/// `in` is the input's shape, `out` the output shape it must have.
LogicalResult verifyWindow(Operation *op, ArrayRef<int64_t> pad,
                           ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation,
                           int64_t segments,
                           std::optional<ArrayRef<int64_t>> segmentOutput,
                           ArrayRef<int64_t> k, ArrayRef<int64_t> in,
                           int64_t outChannels) {
  if (pad.size() != 4 || llvm::any_of(pad, [](int64_t p) { return p < 0; }))
    return op->emitOpError("pad ")
           << ints(pad) << " must be 4 non-negative values [top, left, "
           << "bottom, right]";
  for (auto [name, v] :
       {std::pair<const char *, ArrayRef<int64_t>>{"stride", stride},
        {"dilation", dilation}})
    if (v.size() != 2 || llvm::any_of(v, [](int64_t x) { return x < 1; }))
      return op->emitOpError()
             << name << " " << ints(v) << " must be 2 positive values [h, w]";
  if (k.size() != 2 || k[0] < 1 || k[1] < 1)
    return op->emitOpError("kernel ") << ints(k) << " must be 2 positive sizes";
  if (in.size() != 4 && in.size() != 5)
    return op->emitOpError("input must be N x C x H x W (or segmented N x C "
                           "x s*s x Hs x Ws), got ")
           << ints(in);
  int64_t n = in[0], c = in[1], h, w;
  if (segments > 1) {
    if (in.size() != 5 || in[2] != segments * segments)
      return op->emitOpError("segments = ")
             << segments << " needs the N x C x " << segments * segments
             << " x Hs x Ws input of hl.segmentation, got " << ints(in);
    if (stride[0] != segments || stride[1] != segments)
      return op->emitOpError("segments = ")
             << segments << " needs stride [" << segments << ", " << segments
             << "], got " << ints(stride);
    if (llvm::any_of(pad, [](int64_t p) { return p != 0; }))
      return op->emitOpError("segments > 1: the padding belongs to "
                             "hl.segmentation; pad must be zeros, got ")
             << ints(pad);
    // The phase extent bounds the output: output y reads up to phase row
    // y + (dh*(kh-1))/s.
    h = in[3] - (dilation[0] * (k[0] - 1)) / segments;
    w = in[4] - (dilation[1] * (k[1] - 1)) / segments;
  } else {
    if (segments != 1)
      return op->emitOpError("segments ") << segments << " must be >= 1";
    if (in.size() != 4)
      return op->emitOpError("input must be N x C x H x W, got ") << ints(in);
    h = windowOutputSize(in[2], pad[0], pad[2], k[0], stride[0], dilation[0]);
    w = windowOutputSize(in[3], pad[1], pad[3], k[1], stride[1], dilation[1]);
  }
  if (h < 1 || w < 1)
    return op->emitOpError("the window ")
           << ints(k) << " does not fit the input " << ints(in);
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  if (segmentOutput) {
    ArrayRef<int64_t> so = *segmentOutput;
    if (so.size() != 5 || so[0] < 2 ||
        llvm::any_of(so.drop_front(), [](int64_t p) { return p < 0; }))
      return op->emitOpError("segment_output ")
             << ints(so) << " must be [stride >= 2, top, left, bottom, "
             << "right]";
    SmallVector<int64_t> want = {n, outChannels, so[0] * so[0],
                                 segmentedSize(h, so[1], so[3], so[0]),
                                 segmentedSize(w, so[2], so[4], so[0])};
    if (out != ArrayRef<int64_t>(want))
      return op->emitOpError("result shape ")
             << ints(out) << " must be the segmented " << ints(want);
    return success();
  }
  SmallVector<int64_t> want = {n, outChannels, h, w};
  if (segments > 1) {
    // The phases may hold more rows than the output needs.
    if (out.size() != 4 || out[0] != n || out[1] != outChannels || out[2] > h ||
        out[3] > w)
      return op->emitOpError("result shape ")
             << ints(out) << " must be N x " << outChannels
             << " x H x W with H, W at most " << h << ", " << w;
    return success();
  }
  if (out != ArrayRef<int64_t>(want))
    return op->emitOpError("result shape ")
           << ints(out) << " must be " << ints(want) << " for input "
           << ints(in) << ", kernel " << ints(k) << ", pad " << ints(pad)
           << ", stride " << ints(stride) << ", dilation " << ints(dilation);
  (void)c;
  return success();
}

} // namespace

LogicalResult Conv2DOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  FailureOr<Format> f = convFormat(*this, getInput(), getWeights(),
                                   getSegmentOutput().has_value());
  if (failed(f))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), wt = shapeOf(getWeights()),
                    out = shapeOf(getOutput());
  if (out.size() < 2)
    return emitOpError("result must be NCHW");
  int64_t o = out[1], g = getGroups(), c = in.size() >= 2 ? in[1] : 0;
  if (g < 1 || c % g != 0 || o % g != 0)
    return emitOpError("groups ") << g << " must divide the input channels "
                                  << c << " and output channels " << o;
  if (wt.size() != 5 || wt[4] < 1 || wt[0] != (o + wt[4] - 1) / wt[4] ||
      wt[1] != c / g)
    return emitOpError("weights ")
           << ints(wt) << " must be packed (O/B) x C/groups x KH x KW x B "
           << "for O = " << o << ", C/groups = " << c / g;
  if (failed(verifyScaleBias(*this, getScaleBias(), o, *f, true,
                             getSegmentOutput().has_value())) ||
      failed(verifyIntEpilogue(*this, *f)))
    return failure();
  return verifyWindow(*this, getPad(), getStride(), getDilation(),
                      getSegments(), getSegmentOutput(), {wt[2], wt[3]}, in, o);
}

LogicalResult DepthwiseConv2DOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  FailureOr<Format> f = convFormat(*this, getInput(), getWeights(),
                                   getSegmentOutput().has_value());
  if (failed(f))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), wt = shapeOf(getWeights());
  if (in.size() < 2)
    return emitOpError("input must be NCHW");
  int64_t c = in[1];
  if (wt.size() != 4 || wt[3] < 1 || wt[0] != (c + wt[3] - 1) / wt[3])
    return emitOpError("weights ")
           << ints(wt) << " must be packed (C/B) x KH x KW x B for C = " << c;
  if (failed(verifyScaleBias(*this, getScaleBias(), c, *f, true,
                             getSegmentOutput().has_value())) ||
      failed(verifyIntEpilogue(*this, *f)))
    return failure();
  return verifyWindow(*this, getPad(), getStride(), getDilation(),
                      getSegments(), getSegmentOutput(), {wt[1], wt[2]}, in, c);
}

LogicalResult FullyConnectedOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  FailureOr<Format> f = commonFormat(*this, {getInput(), getWeights()});
  if (failed(f))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), wt = shapeOf(getWeights()),
                    out = shapeOf(getOutput());
  if (in.size() != 2 || out.size() != 2 || out[0] != in[0])
    return emitOpError("input must be N x I and the result N x O, got ")
           << ints(in) << " -> " << ints(out);
  int64_t o = out[1];
  if (wt.size() != 3 || wt[2] < 1 || wt[0] != (o + wt[2] - 1) / wt[2] ||
      wt[1] != in[1])
    return emitOpError("weights ")
           << ints(wt) << " must be packed (O/B) x I x B for O = " << o
           << ", I = " << in[1];
  if (failed(verifyScaleBias(*this, getScaleBias(), o, *f)))
    return failure();
  return verifyIntEpilogue(*this, *f);
}

LogicalResult MatMulOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  FailureOr<Format> f = commonFormat(*this, {getLhs(), getRhs()});
  if (failed(f))
    return failure();
  ArrayRef<int64_t> a = shapeOf(getLhs()), b = shapeOf(getRhs()),
                    out = shapeOf(getOutput());
  size_t r = a.size();
  if (r < 2 || b.size() != r || out.size() != r ||
      a.drop_back(2) != b.drop_back(2) || a.drop_back(2) != out.drop_back(2) ||
      a[r - 1] != b[r - 2] || out[r - 2] != a[r - 2] || out[r - 1] != b[r - 1])
    return emitOpError("operands must be [B..] x M x K and [B..] x K x N "
                       "with the result [B..] x M x N, got ")
           << ints(a) << ", " << ints(b) << " -> " << ints(out);
  if (failed(verifyScaleBias(*this, getScaleBias(), b[r - 1], *f)))
    return failure();
  return verifyIntEpilogue(*this, *f);
}

namespace {
template <typename OpT> LogicalResult verifyBinary(OpT op) {
  if (failed(requireStatic(op)))
    return failure();
  FailureOr<Format> f = commonFormat(op, {op.getLhs(), op.getRhs()});
  if (failed(f))
    return failure();
  if (shapeOf(op.getLhs()) != shapeOf(op.getOutput()) ||
      shapeOf(op.getRhs()) != shapeOf(op.getOutput()))
    return op.emitOpError("operands and result must have one shape, got ")
           << ints(shapeOf(op.getLhs())) << ", " << ints(shapeOf(op.getRhs()))
           << " -> " << ints(shapeOf(op.getOutput()));
  if (*f == Format::BF16)
    return success();
  for (auto [name, s] :
       {std::pair<const char *, int64_t>{"lhs_shift", op.getLhsShift()},
        {"rhs_shift", op.getRhsShift()},
        {"output_shift", op.getOutputShift()}})
    if (s < 0 || s > 63)
      return op.emitOpError() << name << " " << s << " must be in [0, 63]";
  if (failed(verifyRounding(op, op.getRounding(),
                            {op.getLhsMultiplier(), op.getRhsMultiplier(),
                             op.getOutputMultiplier()})))
    return failure();
  if (op.getLeftShift() < 0 || op.getLeftShift() > 31)
    return op.emitOpError("left_shift ")
           << op.getLeftShift() << " must be in [0, 31]";
  auto [lo, hi] = storageRange(op.getOutput().getType());
  if (op.getClipMin() > op.getClipMax() || op.getClipMin() < lo ||
      op.getClipMax() > hi)
    return op.emitOpError("clip [")
           << op.getClipMin() << ", " << op.getClipMax()
           << "] must be an ordered range within the output's [" << lo << ", "
           << hi << "]";
  return success();
}
} // namespace

LogicalResult AddOp::verify() { return verifyBinary(*this); }
LogicalResult SubOp::verify() { return verifyBinary(*this); }
LogicalResult MulOp::verify() { return verifyBinary(*this); }
LogicalResult MinOp::verify() { return verifyBinary(*this); }
LogicalResult MaxOp::verify() { return verifyBinary(*this); }

LogicalResult ActivationOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  FailureOr<Format> f = commonFormat(*this, {getInput()});
  if (failed(f))
    return failure();
  if (shapeOf(getInput()) != shapeOf(getOutput()))
    return emitOpError("input and result must have one shape");
  if (*f == Format::Int8) {
    if (getShift() < 0 || getShift() > 63)
      return emitOpError("shift ") << getShift() << " must be in [0, 63]";
    if (failed(verifyRounding(*this, getRounding(), {getMultiplier()})))
      return failure();
    auto [lo, hi] = storageRange(getOutput().getType());
    if (getClipMin() > getClipMax() || getClipMin() < lo || getClipMax() > hi)
      return emitOpError("clip [")
             << getClipMin() << ", " << getClipMax()
             << "] must be an ordered range within the output's [" << lo << ", "
             << hi << "]";
  }
  return success();
}

LogicalResult TableOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  if (formatOf(getInput().getType()) != Format::Int8 ||
      formatOf(getOutput().getType()) != Format::Int8)
    return emitOpError("input and result must be int8");
  if (shapeOf(getInput()) != shapeOf(getOutput()))
    return emitOpError("input and result must have one shape");
  int64_t entries = getLutEntries();
  if (entries != 256)
    return emitOpError("lut_entries ")
           << entries << ": an int8 input indexes a table of 256 entries";
  auto table = cast<RankedTensorType>(getTable().getType());
  if (formatOf(table) != Format::Int8 || table.getRank() < 1 ||
      table.getRank() > 2 || table.getShape().back() != entries)
    return emitOpError("table must be ")
           << entries << " int8 entries (or C x " << entries
           << ", one table per channel), got " << table;
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (table.getRank() == 2 && (in.size() < 2 || in[1] != table.getDimSize(0)))
    return emitOpError("a per-channel table ")
           << table << " needs " << table.getDimSize(0)
           << " channels in the input's dim 1, the input is " << ints(in);
  return success();
}

LogicalResult Table16Op::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  if (!isSignedInt16(getInput().getType()))
    return emitOpError("input must be signed int16, got ")
           << getInput().getType();
  if (formatOf(getOutput().getType()) != Format::Int8 ||
      storageRange(getOutput().getType()) !=
          std::pair<int64_t, int64_t>(-128, 127))
    return emitOpError("result must be signed int8 over [-128, 127], got ")
           << getOutput().getType();
  if (shapeOf(getInput()) != shapeOf(getOutput()))
    return emitOpError("input and result must have one shape");
  auto table = cast<RankedTensorType>(getTable().getType());
  if (!table.getElementType().isSignlessInteger(16) || table.getRank() != 1 ||
      table.getDimSize(0) != intq::kTable16Entries)
    return emitOpError("table must be ")
           << intq::kTable16Entries << " i16 entries, got " << table;
  return success();
}

LogicalResult MaxPoolOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  if (failed(commonFormat(*this, {getInput()})))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  return verifyWindow(*this, getPad(), getStride(), getDilation(),
                      getSegments(), getSegmentOutput(), getKernel(), in,
                      in.size() >= 2 ? in[1] : 0);
}

LogicalResult AvgPoolOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  FailureOr<Format> f = commonFormat(*this, {getInput()});
  if (failed(f))
    return failure();
  if (*f == Format::Int8 && (getShift() < 0 || getShift() > 63))
    return emitOpError("shift ") << getShift() << " must be in [0, 63]";
  ArrayRef<int64_t> in = shapeOf(getInput());
  return verifyWindow(*this, getPad(), getStride(), getDilation(),
                      getSegments(), getSegmentOutput(), getKernel(), in,
                      in.size() >= 2 ? in[1] : 0);
}

LogicalResult ReduceMeanOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  FailureOr<Format> f = commonFormat(*this, {getInput()});
  if (failed(f))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getOutput());
  if (in.size() != out.size())
    return emitOpError("keeps the reduced dims: the result must have rank ")
           << in.size();
  SmallVector<bool> reduced(in.size(), false);
  for (int64_t a : getAxes()) {
    if (a < 0 || a >= static_cast<int64_t>(in.size()) || reduced[a])
      return emitOpError("axes ")
             << ints(getAxes()) << " must be distinct dims of the rank-"
             << in.size() << " input";
    reduced[a] = true;
  }
  for (size_t d = 0; d < in.size(); ++d)
    if (out[d] != (reduced[d] ? 1 : in[d]))
      return emitOpError("result shape ")
             << ints(out) << " must be the input " << ints(in)
             << " with the axes " << ints(getAxes()) << " reduced to 1";
  if (*f == Format::Int8 && (getShift() < 0 || getShift() > 63))
    return emitOpError("shift ") << getShift() << " must be in [0, 63]";
  return success();
}

LogicalResult GatherOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), idx = shapeOf(getIndices()),
                    out = shapeOf(getOutput());
  int64_t axis = getAxis(), rank = in.size();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is outside the rank " << rank;
  if (idx.size() != 1 || !isa<IntegerType>(getElementTypeOrSelf(getIndices())))
    return emitOpError("indices must be a 1-d integer tensor, got ")
           << getIndices().getType();
  SmallVector<int64_t> want(in);
  want[axis] = idx[0];
  if (out != ArrayRef<int64_t>(want))
    return emitOpError("result shape ")
           << ints(out) << " must be " << ints(want);
  if (getElementTypeOrSelf(getInput()) != getElementTypeOrSelf(getOutput()))
    return emitOpError("input and result must have one element type");
  return success();
}

LogicalResult ResizeNearestOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getOutput());
  if (in.size() != 4 || out.size() != 4 || in[0] != out[0] || in[1] != out[1] ||
      out[2] < 1 || out[3] < 1)
    return emitOpError("resizes N x C x H x W to N x C x OH x OW, got ")
           << ints(in) << " -> " << ints(out);
  if (getElementTypeOrSelf(getInput()) != getElementTypeOrSelf(getOutput()))
    return emitOpError("input and result must have one element type");
  return success();
}

LogicalResult DepthToSpaceOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getOutput());
  int64_t b = getBlock();
  if (b < 1)
    return emitOpError("block ") << b << " must be positive";
  if (getMode() != "DCR" && getMode() != "CRD")
    return emitOpError("mode '") << getMode() << "' must be DCR or CRD";
  if (in.size() != 4 || in[1] % (b * b) != 0)
    return emitOpError("input must be N x C*")
           << b * b << " x H x W, got " << ints(in);
  SmallVector<int64_t> want = {in[0], in[1] / (b * b), in[2] * b, in[3] * b};
  if (out != ArrayRef<int64_t>(want))
    return emitOpError("result shape ")
           << ints(out) << " must be " << ints(want);
  if (getElementTypeOrSelf(getInput()) != getElementTypeOrSelf(getOutput()))
    return emitOpError("input and result must have one element type");
  return success();
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> perm = getPerm(), in = shapeOf(getInput()),
                    out = shapeOf(getOutput());
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[p])
      return emitOpError("perm ") << ints(perm) << " is not a permutation";
    seen[p] = true;
  }
  if (perm.size() != in.size() || out.size() != in.size())
    return emitOpError("perm ") << ints(perm) << " must have the rank "
                                << in.size() << " of the input and result";
  for (size_t i = 0; i < perm.size(); ++i)
    if (out[i] != in[perm[i]])
      return emitOpError("result shape ")
             << ints(out) << " is not the input " << ints(in) << " permuted by "
             << ints(perm);
  if (getElementTypeOrSelf(getInput()) != getElementTypeOrSelf(getOutput()))
    return emitOpError("input and result must have one element type");
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  // The identity, and transpose(transpose(x, p), q) == x when q inverts p.
  ArrayRef<int64_t> perm = getPerm();
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  if (identity)
    return getInput();
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> p = inner.getPerm();
    bool inverse = p.size() == perm.size();
    for (size_t i = 0; inverse && i < perm.size(); ++i)
      inverse = p[perm[i]] == static_cast<int64_t>(i);
    if (inverse && inner.getInput().getType() == getType())
      return inner.getInput();
  }
  return {};
}

LogicalResult SegmentationOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getOutput()),
                    pad = getPad();
  int64_t s = getStride();
  if (s < 2)
    return emitOpError("stride ") << s << " must be >= 2";
  if (pad.size() != 4 || llvm::any_of(pad, [](int64_t p) { return p < 0; }))
    return emitOpError("pad ") << ints(pad) << " must be 4 non-negative values";
  if (in.size() != 4)
    return emitOpError("input must be N x C x H x W, got ") << ints(in);
  SmallVector<int64_t> want = {in[0], in[1], s * s,
                               segmentedSize(in[2], pad[0], pad[2], s),
                               segmentedSize(in[3], pad[1], pad[3], s)};
  if (out != ArrayRef<int64_t>(want))
    return emitOpError("result shape ")
           << ints(out) << " must be " << ints(want);
  if (getElementTypeOrSelf(getInput()) != getElementTypeOrSelf(getOutput()))
    return emitOpError("input and result must have one element type");
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  ArrayRef<int64_t> out = shapeOf(getOutput());
  int64_t axis = getAxis(), rank = out.size();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is outside the rank " << rank;
  int64_t sum = 0;
  for (Value v : getInputs()) {
    ArrayRef<int64_t> s = shapeOf(v);
    if (static_cast<int64_t>(s.size()) != rank)
      return emitOpError("inputs must have the result's rank");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && s[d] != out[d])
        return emitOpError("input ") << ints(s) << " differs from the result "
                                     << ints(out) << " outside the axis";
    sum += s[axis];
    if (getElementTypeOrSelf(v) != getElementTypeOrSelf(getOutput()))
      return emitOpError("inputs must have the result's element type (one "
                         "quantization)");
  }
  if (sum != out[axis])
    return emitOpError("the inputs' extents along the axis sum to ")
           << sum << ", the result has " << out[axis];
  return success();
}

LogicalResult ConvertOp::verify() {
  if (shapeOf(getInput()) != shapeOf(getOutput()))
    return emitOpError("input and result must have one shape");
  Type a = getElementTypeOrSelf(getInput()),
       b = getElementTypeOrSelf(getOutput());
  auto kind = [](Type t) {
    return formatOf(t) == Format::Int8 ? 0 : t.isBF16() ? 1 : t.isF32() ? 2 : 3;
  };
  int ka = kind(a), kb = kind(b);
  if (ka == 3 || kb == 3 || (ka == 0 && kb == 0) || ka == kb)
    return emitOpError("converts between int8, bf16 and f32 (two different "
                       "ones), got ")
           << a << " -> " << b;
  if (!(getScale().convertToDouble() > 0))
    return emitOpError("scale ")
           << getScale().convertToDouble() << " must be positive";
  return success();
}

#define GET_OP_CLASSES
#include "strata/Dialect/HL/IR/HLOps.cpp.inc"
