//===- ControlFlow.cpp - top.If, top.Loop, top.Scan to scf ----------------===//
//
// The region ops become scf ops on tensors: top.If -> scf.if, top.Loop ->
// scf.while, top.Scan -> scf.for with tensor.extract_slice /
// tensor.insert_slice over the scanned axes. The Top ops of a body are not
// converted here: the body is moved into the new op (scf.if's regions, or an
// scf.execute_region inside the loop, which canonicalization inlines) and
// the same conversion converts its ops afterwards; top.Yield becomes
// scf.yield with the converted values. Values a body reads from above stay
// as they are (the CPU outliner passes them to the dispatch function).
//
// Everything must have a static shape: the values a body yields, the carried
// values and states, and the scan outputs (for top.Loop that needs a trip
// count known at compile time, see LoopLowering). docs/codegen-control-flow.md
// describes the choices.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace strata::conversion {
namespace {

/// The converted type of `v` if it is a static ranked tensor, else null.
RankedTensorType staticConverted(const TypeConverter &converter, Value v) {
  auto t =
      dyn_cast_or_null<RankedTensorType>(converter.convertType(v.getType()));
  if (!t || !t.hasStaticShape())
    return nullptr;
  return t;
}

/// The single element of a one-element tensor `v` (any rank).
Value extractScalar(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<Value> zeros(t.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, v, zeros);
}

/// `value` copied into `iterArg`'s tensor: a loop's yielded value must be
/// equivalent to its iteration argument for one-shot bufferization (without
/// `allow-return-allocs-from-loops`), which a fresh tensor from the body is
/// not.
Value copyInto(OpBuilder &b, Location loc, Value value, Value iterArg) {
  return linalg::CopyOp::create(b, loc, value, iterArg).getResult(0);
}

/// `value` copied into a new tensor: a loop's initial value. One-shot
/// bufferization would otherwise copy a read-only or strided buffer with
/// memref.copy, which needs the `memrefCopy` runtime function for
/// non-identity layouts.
Value freshCopy(OpBuilder &b, Location loc, Value value) {
  auto t = cast<RankedTensorType>(value.getType());
  return linalg::CopyOp::create(b, loc, value, emptyTensor(b, loc, t))
      .getResult(0);
}

/// Moves the single block of `body` (whose argument types
/// convertBodyTypes converted) into a new scf.execute_region (returning
/// `types`) at the rewriter's insertion point, its arguments replaced by
/// `args`; the body's top.Yield becomes the region's scf.yield
/// (YieldLowering).
scf::ExecuteRegionOp inlineBody(ConversionPatternRewriter &rewriter,
                                Location loc, Region &body, TypeRange types,
                                ValueRange args) {
  auto exec = scf::ExecuteRegionOp::create(rewriter, loc, types);
  OpBuilder::InsertionGuard guard(rewriter);
  Block *dest = rewriter.createBlock(&exec.getRegion());
  rewriter.mergeBlocks(&body.front(), dest, args);
  return exec;
}

/// Converts the argument types of `body`'s block (`ui8` -> `i8`, ...) so
/// that the converted loop values can replace them; the framework casts for
/// the body's not yet converted users.
LogicalResult convertBodyTypes(ConversionPatternRewriter &rewriter,
                               Operation *op, Region &body,
                               const TypeConverter &converter) {
  if (failed(rewriter.convertRegionTypes(&body, converter)))
    return rewriter.notifyMatchFailure(op, "the body's argument types do not "
                                           "convert");
  return success();
}

/// Checks that each value `yields[i]` has the converted static type
/// `expected[i]`; otherwise a match failure naming `what`.
LogicalResult checkYieldTypes(ConversionPatternRewriter &rewriter,
                              Operation *op, const TypeConverter &converter,
                              StringRef what, ValueRange yields,
                              TypeRange expected) {
  for (auto [index, value, wanted] : llvm::enumerate(yields, expected)) {
    size_t i = index;
    Value v = value;
    Type want = wanted;
    RankedTensorType got = staticConverted(converter, v);
    if (got != want)
      return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
        d << what << " value #" << i << " has type " << v.getType()
          << "; code generation needs the static type " << want;
      });
  }
  return success();
}

//===----------------------------------------------------------------------===//
// top.Yield
//===----------------------------------------------------------------------===//

/// top.Yield -> scf.yield once its region has moved into scf.if or
/// scf.execute_region (by the patterns below).
struct YieldLowering : OpConversionPattern<top::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<scf::IfOp, scf::ExecuteRegionOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(
          op, "its region op was not converted (see that op's failure)");
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// top.If
//===----------------------------------------------------------------------===//

/// top.If -> scf.if on the extracted i1; both regions move over as they are.
struct IfLowering : OpConversionPattern<top::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    SmallVector<Type> types;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      FailureOr<RankedTensorType> t =
          staticResultType(op, i, converter, rewriter);
      if (failed(t))
        return failure();
      types.push_back(*t);
    }
    if (!staticConverted(converter, op.getCond()))
      return rewriter.notifyMatchFailure(op, "operand 'cond' has a dynamic "
                                             "shape");
    for (auto [what, region] :
         {std::pair<StringRef, Region *>{"the then region yields",
                                         &op.getThenRegion()},
          {"the else region yields", &op.getElseRegion()}})
      if (failed(checkYieldTypes(rewriter, op, converter, what,
                                 region->front().getTerminator()->getOperands(),
                                 types)))
        return failure();

    Location loc = op.getLoc();
    Value cond = extractScalar(rewriter, loc, adaptor.getCond());
    auto ifOp = scf::IfOp::create(rewriter, loc, types, cond,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenRegion(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseRegion(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// top.Loop
//===----------------------------------------------------------------------===//

/// The value of a one-element integer or i1 tensor defined by a constant
/// (e.g. `arith.constant dense<5> : tensor<i64>`), if it is one.
std::optional<int64_t> constantScalar(Value v) {
  DenseElementsAttr attr;
  if (!v || isNone(v) || !matchPattern(v, m_Constant(&attr)) ||
      attr.getNumElements() != 1)
    return std::nullopt;
  if (attr.getElementType().isInteger(1))
    return *attr.getValues<bool>().begin() ? 1 : 0;
  if (!attr.getElementType().isInteger())
    return std::nullopt;
  return (*attr.getValues<APInt>().begin()).getSExtValue();
}

/// top.Loop -> scf.while carrying (iteration : i64, cond : i1, carried...,
/// scan buffers...). The before region tests `iteration < max_trip_count &&
/// cond`; the after region runs the body in an scf.execute_region and
/// inserts each scan slice at row `iteration` of its buffer.
///
/// Scan outputs need a static result shape, which only a compile-time trip
/// count gives: `max_trip_count` a constant T, `cond` absent or a constant,
/// and the body yielding its own `cond` argument (or a constant true) so it
/// cannot stop early; the result's leading dim must then be max(T, 0) (0 if
/// `cond` is a constant false).
struct LoopLowering : OpConversionPattern<top::LoopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::LoopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    Location loc = op.getLoc();
    size_t numCarried = op.getInitial().size();
    unsigned numScan = op.getNumScanOutputs();
    Block &body = op.getBody().front();
    OperandRange yields = body.getTerminator()->getOperands();

    // Carried values: static, and the same type on every iteration.
    SmallVector<Type> carriedTypes;
    for (size_t k = 0; k < numCarried; ++k) {
      RankedTensorType t = staticConverted(converter, op.getInitial()[k]);
      if (!t)
        return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
          d << "carried value #" << k << " has the non-static type "
            << op.getInitial()[k].getType();
        });
      FailureOr<RankedTensorType> r =
          staticResultType(op, k, converter, rewriter);
      if (failed(r))
        return failure();
      if (*r != t)
        return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
          d << "result #" << k << " has type " << *r
            << " but its carried value has type " << t;
        });
      carriedTypes.push_back(t);
    }
    if (failed(checkYieldTypes(rewriter, op, converter,
                               "the body yields carried",
                               yields.slice(1, numCarried), carriedTypes)))
      return failure();
    RankedTensorType yieldCondType = staticConverted(converter, yields[0]);
    if (!yieldCondType)
      return rewriter.notifyMatchFailure(op, "the body's yielded cond has a "
                                             "dynamic shape");
    for (auto [name, v] :
         {std::pair<StringRef, Value>{"max_trip_count", op.getMaxTripCount()},
          {"cond", op.getCond()}})
      if (!isNone(v) && !staticConverted(converter, v)) {
        StringRef operand = name;
        return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
          d << "operand '" << operand << "' has a dynamic shape";
        });
      }

    // Scan outputs: static buffers, which need a compile-time trip count, or
    // (`strata.scan_bound` = B, set by the CPU outliner for a run-time trip
    // count) buffers of B rows: the loop then stops after B + 1 iterations
    // at most and writes no row past B; the caller reads the iteration count
    // from a carried counter and reports a count over B.
    SmallVector<RankedTensorType> scanTypes, sliceTypes;
    std::optional<int64_t> scanBound;
    if (auto b = op->getAttrOfType<IntegerAttr>(kScanBoundAttr))
      scanBound = b.getInt();
    if (numScan) {
      std::optional<int64_t> trips = scanBound;
      std::optional<int64_t> m = constantScalar(op.getMaxTripCount());
      std::optional<int64_t> c = constantScalar(op.getCond());
      bool condFree = isNone(op.getCond()) || c;
      Value yc = yields[0];
      bool neverStops =
          yc == body.getArgument(1) || constantScalar(yc).value_or(0) == 1;
      if (scanBound)
        ; // the bound's rows
      else if (condFree && c && *c == 0)
        trips = 0;
      else if (condFree && m && (*m <= 0 || neverStops))
        trips = std::max<int64_t>(*m, 0);
      if (!trips)
        return rewriter.notifyMatchFailure(
            op, "scan outputs need a trip count known at compile time "
                "(constant 'max_trip_count', constant or absent 'cond', and "
                "a body that yields its 'cond' argument unchanged)");
      for (unsigned s = 0; s < numScan; ++s) {
        FailureOr<RankedTensorType> r =
            staticResultType(op, numCarried + s, converter, rewriter);
        if (failed(r))
          return failure();
        if (r->getDimSize(0) != *trips)
          return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
            d << "scan output #" << s << " has type " << *r << " but the loop "
              << "runs " << *trips << " times";
          });
        scanTypes.push_back(*r);
        sliceTypes.push_back(RankedTensorType::get(r->getShape().drop_front(),
                                                   r->getElementType()));
      }
      if (failed(checkYieldTypes(
              rewriter, op, converter, "the body yields scan",
              yields.drop_front(1 + numCarried),
              SmallVector<Type>(sliceTypes.begin(), sliceTypes.end()))))
        return failure();
    }

    if (failed(convertBodyTypes(rewriter, op, op.getBody(), converter)))
      return failure();

    // Initial values of (iteration, cond, carried..., buffers...).
    Type i64 = rewriter.getI64Type(), i1 = rewriter.getI1Type();
    Value maxTrips =
        isNone(op.getMaxTripCount())
            ? arith::ConstantIntOp::create(rewriter, loc, i64, INT64_MAX)
                  .getResult()
            : extractScalar(rewriter, loc, adaptor.getMaxTripCount());
    Value cond0 =
        isNone(op.getCond())
            ? arith::ConstantIntOp::create(rewriter, loc, i1, 1).getResult()
            : extractScalar(rewriter, loc, adaptor.getCond());
    SmallVector<Value> inits{
        arith::ConstantIntOp::create(rewriter, loc, i64, 0), cond0};
    for (auto [v, t] : llvm::zip(adaptor.getInitial(), carriedTypes))
      inits.push_back(freshCopy(rewriter, loc, v));
    for (RankedTensorType t : scanTypes)
      inits.push_back(emptyTensor(rewriter, loc, t));
    SmallVector<Type> types = llvm::to_vector(ValueRange(inits).getTypes());

    SmallVector<Type> execTypes{yieldCondType};
    llvm::append_range(execTypes, carriedTypes);
    llvm::append_range(execTypes, sliceTypes);

    auto whileOp = scf::WhileOp::create(
        rewriter, loc, types, inits,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value more = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                             args[0], maxTrips);
          Value go = arith::AndIOp::create(b, l, more, args[1]);
          if (scanBound)
            go = arith::AndIOp::create(
                b, l, go,
                arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::sle, args[0],
                    arith::ConstantIntOp::create(b, l, i64, *scanBound)));
          scf::ConditionOp::create(b, l, go, args);
        },
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value iter = tensor::FromElementsOp::create(
              b, l, RankedTensorType::get({}, i64), args[0]);
          Value yes = arith::ConstantOp::create(
              b, l,
              DenseElementsAttr::get(RankedTensorType::get({}, i1), true));
          SmallVector<Value> bodyArgs{iter, yes};
          llvm::append_range(bodyArgs, args.slice(2, numCarried));
          auto exec =
              inlineBody(rewriter, l, op.getBody(), execTypes, bodyArgs);
          SmallVector<Value> next{
              arith::AddIOp::create(b, l, args[0],
                                    arith::ConstantIntOp::create(b, l, i64, 1)),
              extractScalar(b, l, exec.getResult(0))};
          // Scan rows first, then the carried copies: a scan value may be a
          // carried argument the copies overwrite.
          SmallVector<Value> rows;
          Value row =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          for (unsigned s = 0; s < numScan; ++s) {
            RankedTensorType t = scanTypes[s];
            SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0));
            offsets[0] = row;
            SmallVector<OpFoldResult> sizes,
                strides(t.getRank(), b.getIndexAttr(1));
            sizes.push_back(b.getIndexAttr(1));
            for (int64_t d : t.getShape().drop_front())
              sizes.push_back(b.getIndexAttr(d));
            Value slice = exec.getResult(1 + numCarried + s);
            Value into = args[2 + numCarried + s];
            if (!scanBound) {
              rows.push_back(tensor::InsertSliceOp::create(
                  b, l, slice, into, offsets, sizes, strides));
              continue;
            }
            // Row `iteration` only while it is inside the bound.
            Value inside = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, args[0],
                arith::ConstantIntOp::create(b, l, i64, *scanBound));
            auto ifOp = scf::IfOp::create(
                b, l, inside,
                [&](OpBuilder &tb, Location tl) {
                  scf::YieldOp::create(
                      tb, tl,
                      tensor::InsertSliceOp::create(tb, tl, slice, into,
                                                    offsets, sizes, strides)
                          .getResult());
                },
                [&](OpBuilder &eb, Location el) {
                  scf::YieldOp::create(eb, el, into);
                });
            rows.push_back(ifOp.getResult(0));
          }
          for (size_t k = 0; k < numCarried; ++k)
            next.push_back(copyInto(b, l, exec.getResult(1 + k), args[2 + k]));
          llvm::append_range(next, rows);
          scf::YieldOp::create(b, l, next);
        });
    rewriter.replaceOp(op, whileOp.getResults().drop_front(2));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// top.Scan
//===----------------------------------------------------------------------===//

/// An optional per-input/per-output list attribute with its default (0).
SmallVector<int64_t> listOrZeros(std::optional<ArrayRef<int64_t>> list,
                                 size_t n) {
  if (list)
    return SmallVector<int64_t>(list->begin(), list->end());
  return SmallVector<int64_t>(n, 0);
}

/// top.Scan -> scf.for over the scan length carrying (states..., outputs...):
/// each step extracts the slices of the scan inputs (index `t`, or
/// `length - 1 - t` in reverse), runs the body in an scf.execute_region and
/// inserts each output slice along its axis (reversed likewise).
struct ScanLowering : OpConversionPattern<top::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    Location loc = op.getLoc();
    size_t numStates = op.getNumStates();
    int64_t numScanIn = op.getNumScanInputs();
    size_t numScanOut = op->getNumResults() - numStates;
    Block &body = op.getBody().front();
    OperandRange yields = body.getTerminator()->getOperands();

    SmallVector<Type> resultTypes;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      FailureOr<RankedTensorType> t =
          staticResultType(op, i, converter, rewriter);
      if (failed(t))
        return failure();
      resultTypes.push_back(*t);
    }
    for (size_t k = 0; k < numStates; ++k)
      if (staticConverted(converter, op.getInputs()[k]) != resultTypes[k])
        return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
          d << "state #" << k << " has type " << op.getInputs()[k].getType()
            << "; code generation needs the static type " << resultTypes[k];
        });

    // Scan inputs: static, with the slice types the body takes.
    SmallVector<int64_t> inAxes = listOrZeros(op.getScanInputAxes(), numScanIn);
    SmallVector<int64_t> inDirs =
        listOrZeros(op.getScanInputDirections(), numScanIn);
    int64_t length = -1;
    SmallVector<RankedTensorType> inTypes, inSliceTypes;
    for (int64_t j = 0; j < numScanIn; ++j) {
      RankedTensorType t =
          staticConverted(converter, op.getInputs()[numStates + j]);
      if (!t)
        return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
          d << "scan input #" << j << " has the non-static type "
            << op.getInputs()[numStates + j].getType();
        });
      int64_t a = inAxes[j] < 0 ? inAxes[j] + t.getRank() : inAxes[j];
      inAxes[j] = a;
      if (length < 0)
        length = t.getDimSize(a);
      SmallVector<int64_t> slice(t.getShape());
      slice.erase(slice.begin() + a);
      inTypes.push_back(t);
      inSliceTypes.push_back(RankedTensorType::get(slice, t.getElementType()));
    }

    SmallVector<int64_t> outAxes =
        listOrZeros(op.getScanOutputAxes(), numScanOut);
    SmallVector<int64_t> outDirs =
        listOrZeros(op.getScanOutputDirections(), numScanOut);
    SmallVector<Type> execTypes(resultTypes.begin(),
                                resultTypes.begin() + numStates);
    for (size_t s = 0; s < numScanOut; ++s) {
      auto t = cast<RankedTensorType>(resultTypes[numStates + s]);
      int64_t a = outAxes[s] < 0 ? outAxes[s] + t.getRank() : outAxes[s];
      outAxes[s] = a;
      if (t.getDimSize(a) != length)
        return rewriter.notifyMatchFailure(op, [&](Diagnostic &d) {
          d << "scan output #" << s << " has type " << t << " but the scan "
            << "length is " << length;
        });
      SmallVector<int64_t> slice(t.getShape());
      slice.erase(slice.begin() + a);
      execTypes.push_back(RankedTensorType::get(slice, t.getElementType()));
    }
    if (failed(checkYieldTypes(rewriter, op, converter, "the body yields",
                               yields, execTypes)))
      return failure();

    if (failed(convertBodyTypes(rewriter, op, op.getBody(), converter)))
      return failure();

    SmallVector<Value> inits;
    for (Value v : adaptor.getInputs().take_front(numStates))
      inits.push_back(freshCopy(rewriter, loc, v));
    // Scan outputs are stacked along a leading dim (contiguous blocks; a
    // strided insert would bufferize to a memref.copy calling `memrefCopy`,
    // which dispatches do not link) and transposed to their axis after the
    // loop.
    SmallVector<RankedTensorType> stackTypes;
    for (size_t s = 0; s < numScanOut; ++s) {
      auto slice = cast<RankedTensorType>(execTypes[numStates + s]);
      SmallVector<int64_t> shape{length};
      llvm::append_range(shape, slice.getShape());
      stackTypes.push_back(
          RankedTensorType::get(shape, slice.getElementType()));
      inits.push_back(emptyTensor(rewriter, loc, stackTypes.back()));
    }
    ValueRange scanIns = adaptor.getInputs().drop_front(numStates);

    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, length);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value last = arith::ConstantIndexOp::create(rewriter, loc, length - 1);
    auto forOp = scf::ForOp::create(
        rewriter, loc, lb, ub, step, inits,
        [&](OpBuilder &b, Location l, Value t, ValueRange args) {
          Value reversed = arith::SubIOp::create(b, l, last, t);
          // One slice (dim `axis` at `index`) of a tensor of type `full`.
          auto sliceAt = [&](RankedTensorType full, int64_t axis, Value index) {
            SmallVector<OpFoldResult> offsets(full.getRank(),
                                              b.getIndexAttr(0));
            SmallVector<OpFoldResult> sizes,
                strides(full.getRank(), b.getIndexAttr(1));
            offsets[axis] = index;
            for (int64_t d = 0; d < full.getRank(); ++d)
              sizes.push_back(
                  b.getIndexAttr(d == axis ? 1 : full.getDimSize(d)));
            return std::make_tuple(offsets, sizes, strides);
          };
          SmallVector<Value> bodyArgs(args.take_front(numStates));
          for (int64_t j = 0; j < numScanIn; ++j) {
            auto [offsets, sizes, strides] =
                sliceAt(inTypes[j], inAxes[j], inDirs[j] ? reversed : t);
            bodyArgs.push_back(tensor::ExtractSliceOp::create(
                b, l, inSliceTypes[j], scanIns[j], offsets, sizes, strides));
          }
          auto exec =
              inlineBody(rewriter, l, op.getBody(), execTypes, bodyArgs);
          // Output rows first, then the state copies: an output may be a
          // state argument the copies overwrite.
          SmallVector<Value> rows;
          for (size_t s = 0; s < numScanOut; ++s) {
            auto [offsets, sizes, strides] =
                sliceAt(stackTypes[s], 0, outDirs[s] ? reversed : t);
            rows.push_back(tensor::InsertSliceOp::create(
                b, l, exec.getResult(numStates + s), args[numStates + s],
                offsets, sizes, strides));
          }
          SmallVector<Value> next;
          for (size_t k = 0; k < numStates; ++k)
            next.push_back(copyInto(b, l, exec.getResult(k), args[k]));
          llvm::append_range(next, rows);
          scf::YieldOp::create(b, l, next);
        });
    SmallVector<Value> results(forOp.getResults());
    for (size_t s = 0; s < numScanOut; ++s) {
      int64_t a = outAxes[s];
      if (a == 0)
        continue;
      // Result dim i is stacked dim perm[i]: the stacked dim 0 goes to `a`.
      SmallVector<int64_t> perm;
      for (int64_t i = 0; i < stackTypes[s].getRank(); ++i)
        perm.push_back(i == a ? 0 : i < a ? i + 1 : i);
      auto full = cast<RankedTensorType>(resultTypes[numStates + s]);
      results[numStates + s] =
          linalg::TransposeOp::create(rewriter, loc, results[numStates + s],
                                      emptyTensor(rewriter, loc, full), perm)
              .getResult()[0];
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateTopToLinalgControlFlowPatterns(const TopTypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<YieldLowering, IfLowering, LoopLowering, ScanLowering>(
      converter, patterns.getContext());
}

} // namespace strata::conversion
