//===- SegmentStrided.cpp - strided HL kernels over segmented inputs ------===//
//
// hl-segment-strided (docs/npu.md): the NPU's address generators walk an
// input at stride 1, so a strided convolution, depthwise convolution or max
// pool reads the `s^2` phases of its padded input (hl.segmentation) and
// walks each at stride 1. When the input's producer is an HL window op used
// only here, the producer writes its result already segmented.
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/HLToHW/Passes.h"
#include "strata/Conversion/TopToHL/Passes.h"

#include "mlir/IR/Builders.h"

namespace strata::conversion {
#define GEN_PASS_DEF_HLSEGMENTSTRIDED
#include "strata/Conversion/TopToHL/Passes.h.inc"
} // namespace strata::conversion

using namespace mlir;
using namespace strata;
using namespace strata::hl;

namespace {

/// The value padding must hold in the phases: the input zero point for the
/// MAC kernels (it adds nothing), the lowest int8 value for max pool (it
/// never wins); none for a bf16 max pool (no finite value is safe).
std::optional<int64_t> padValueFor(Operation *op) {
  Type in = op->getOperand(0).getType();
  if (auto pool = dyn_cast<MaxPoolOp>(op)) {
    if (formatOf(in) != Format::Int8)
      return std::nullopt;
    return storageRange(in).first;
  }
  if (formatOf(in) == Format::BF16)
    return 0;
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return conv.getInputZp();
  return cast<DepthwiseConv2DOp>(op).getInputZp();
}

/// Producers that can write their result segmented.
bool canWriteSegmented(Operation *op) {
  if (!isa_and_nonnull<Conv2DOp, DepthwiseConv2DOp, MaxPoolOp, AvgPoolOp>(op))
    return false;
  if (op->hasAttr("segment_output"))
    return false;
  // Per-channel output zero points (a C x 4 scale_bias): no one pad value.
  if (isa<Conv2DOp, DepthwiseConv2DOp>(op) &&
      cast<ShapedType>(op->getOperand(2).getType()).getShape().back() == 4)
    return false;
  // A producer reading a segmented input writes a segmented output too when
  // its output size is HL's bound over the phases (rows up to Hs -
  // (dh*(kh-1))/s), which the segmented result's shape is computed from.
  int64_t s = op->getAttrOfType<IntegerAttr>("segments").getInt();
  if (s == 1)
    return true;
  auto in = cast<ShapedType>(op->getOperand(0).getType()).getShape();
  auto out = cast<ShapedType>(op->getResult(0).getType()).getShape();
  SmallVector<int64_t> k;
  if (auto pool = dyn_cast<MaxPoolOp>(op))
    llvm::append_range(k, pool.getKernel());
  else if (auto pool = dyn_cast<AvgPoolOp>(op))
    llvm::append_range(k, pool.getKernel());
  else {
    // Packed weights: conv [O/B, I, KH, KW, B], depthwise [C/B, KH, KW, B].
    auto w = cast<ShapedType>(op->getOperand(1).getType()).getShape();
    size_t d = isa<Conv2DOp>(op) ? 2 : 1;
    k = {w[d], w[d + 1]};
  }
  auto dil = op->getAttrOfType<DenseI64ArrayAttr>("dilation").asArrayRef();
  return in.size() == 5 && out.size() == 4 &&
         out[2] == in[3] - dil[0] * (k[0] - 1) / s &&
         out[3] == in[4] - dil[1] * (k[1] - 1) / s;
}

/// The value the producer pads its segmented output with.
std::optional<int64_t> producerPadValue(Operation *op) {
  if (formatOf(op->getResult(0).getType()) == Format::BF16)
    return 0;
  if (auto a = op->getAttrOfType<IntegerAttr>("output_zp"))
    return a.getInt();
  return std::nullopt; // maxpool: its output has its input's zero point
}

struct HLSegmentStridedPass
    : public conversion::impl::HLSegmentStridedBase<HLSegmentStridedPass> {
  using HLSegmentStridedBase::HLSegmentStridedBase;
  HLSegmentStridedPass(const conversion::HLSegmentStridedOptions &o,
                       const npu::NpuConfig &c)
      : HLSegmentStridedBase(o), config(c) {}

  npu::NpuConfig config = npu::defaultNpuConfig();

  void runOnOperation() override {
    SmallVector<Operation *> strided;
    getOperation().walk([&](Operation *op) {
      if (!isa<Conv2DOp, DepthwiseConv2DOp, MaxPoolOp>(op))
        return;
      auto stride = op->getAttrOfType<DenseI64ArrayAttr>("stride");
      if (stride[0] >= 2 && stride[0] == stride[1] &&
          op->getAttrOfType<IntegerAttr>("segments").getInt() == 1)
        strided.push_back(op);
    });
    for (Operation *op : strided) {
      std::optional<int64_t> padValue = padValueFor(op);
      if (!padValue)
        continue;
      int64_t s = op->getAttrOfType<DenseI64ArrayAttr>("stride")[0];
      ArrayRef<int64_t> pad = op->getAttrOfType<DenseI64ArrayAttr>("pad");
      Value input = op->getOperand(0);
      auto inType = cast<RankedTensorType>(input.getType());
      ArrayRef<int64_t> in = inType.getShape();
      auto segType = RankedTensorType::get(
          {in[0], in[1], s * s, segmentedSize(in[2], pad[0], pad[2], s),
           segmentedSize(in[3], pad[1], pad[3], s)},
          inType.getElementType());
      OpBuilder b(op);
      MLIRContext *ctx = op->getContext();
      Operation *producer = input.getDefiningOp();
      Value segmented;
      Operation *segmentation = nullptr;
      bool fused = fuse && canWriteSegmented(producer) && input.hasOneUse() &&
                   producerPadValue(producer) == padValue;
      if (fused) {
        SmallVector<int64_t> so = {s, pad[0], pad[1], pad[2], pad[3]};
        producer->setAttr("segment_output", DenseI64ArrayAttr::get(ctx, so));
        producer->getResult(0).setType(segType);
        segmented = producer->getResult(0);
      } else {
        segmentation = SegmentationOp::create(
            b, op->getLoc(), segType, input, b.getI64IntegerAttr(s),
            DenseI64ArrayAttr::get(ctx, pad), b.getI64IntegerAttr(*padValue));
        segmented = segmentation->getResult(0);
      }
      DenseI64ArrayAttr oldPad = op->getAttrOfType<DenseI64ArrayAttr>("pad");
      op->setOperand(0, segmented);
      op->setAttr("segments", b.getI64IntegerAttr(s));
      op->setAttr("pad", DenseI64ArrayAttr::get(ctx, {0, 0, 0, 0}));
      // Keep the rewrite only when the NPU lowers every op it touched.
      if (!conversion::npuLoweringRefusal(op, config) &&
          !conversion::npuLoweringRefusal(fused ? producer : segmentation,
                                          config))
        continue;
      op->setOperand(0, input);
      op->setAttr("segments", b.getI64IntegerAttr(1));
      op->setAttr("pad", oldPad);
      if (fused) {
        producer->removeAttr("segment_output");
        producer->getResult(0).setType(inType);
      } else {
        segmentation->erase();
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass>
conversion::createHLSegmentStrided(const HLSegmentStridedOptions &options,
                                   const npu::NpuConfig &config) {
  return std::make_unique<HLSegmentStridedPass>(options, config);
}
