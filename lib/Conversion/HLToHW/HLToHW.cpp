//===- HLToHW.cpp - convert-hl-to-hw: one NPU program per HL kernel -------===//
//
// For every HL kernel with a lowering (LowerKernels.cpp), writes its
// npuhw.program at the end of the module and names it on the op
// (`npu.program = @sym`). The compile driver turns each named op into an
// npu-sim dispatch; strata-opt prints the listing (docs/npu.md, "HL -> HW").
//
//===----------------------------------------------------------------------===//

#include "LowerExtra.h"
#include "strata/Conversion/HLToHW/Passes.h"
#include "strata/Npu/NpuConfigJson.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MemoryBuffer.h"

namespace strata::conversion {
#define GEN_PASS_DEF_CONVERTHLTOHW
#include "strata/Conversion/HLToHW/Passes.h.inc"
} // namespace strata::conversion

using namespace mlir;
using namespace strata;
using namespace strata::conversion;

namespace {

struct ConvertHLToHWPass
    : public conversion::impl::ConvertHLToHWBase<ConvertHLToHWPass> {
  using ConvertHLToHWBase::ConvertHLToHWBase;
  ConvertHLToHWPass(const npu::NpuConfig &c, const HLToHWOptions &o)
      : given(c) {
    doubleBuffer = o.doubleBuffer;
    lramReuse = o.lramReuse;
    fuseDispatches = o.fuseDispatches;
    prefetchWeights = o.prefetchWeights;
    foldTables = o.foldTables;
  }

  /// Multi-op dispatches: the hl.table folded into `op`'s activation unit,
  /// if any. An int8 hl.conv2d / hl.depthwise_conv2d (plain or over a
  /// segmented input; its result not segmented) whose only user is a
  /// signed int8 hl.table of the same block.
  static hl::TableOp foldableTable(Operation *op) {
    if (!isa<hl::Conv2DOp, hl::DepthwiseConv2DOp>(op))
      return nullptr;
    return tableAfter(op);
  }

  /// The signed int8 hl.table of the same block that is the only user of
  /// `op`'s result (not segmented), if any: what a conv's or its fused
  /// add's dispatch can apply.
  static hl::TableOp tableAfter(Operation *op) {
    if (op->hasAttr("segment_output") || !op->getResult(0).hasOneUse() ||
        hl::formatOf(op->getResult(0).getType()) != hl::Format::Int8)
      return nullptr;
    auto table = dyn_cast<hl::TableOp>(*op->getResult(0).getUsers().begin());
    if (!table || table->getBlock() != op->getBlock() ||
        hl::storageRange(table.getInput().getType()).first != -128 ||
        hl::storageRange(table.getOutput().getType()).first != -128)
      return nullptr;
    return table;
  }

  /// The hl.table16 of the same block that is the only user of a
  /// convolution's int16 result: folded into the convolution's activation
  /// unit (the only way such a convolution reaches the NPU).
  static hl::Table16Op foldableTable16(Operation *op) {
    if (!isa<hl::Conv2DOp, hl::DepthwiseConv2DOp>(op) ||
        !hl::isSignedInt16(op->getResult(0).getType()) ||
        !op->getResult(0).hasOneUse())
      return nullptr;
    auto table = dyn_cast<hl::Table16Op>(*op->getResult(0).getUsers().begin());
    if (!table || table->getBlock() != op->getBlock() ||
        llvm::is_contained(op->getOperands(), table.getTable()))
      return nullptr;
    return table;
  }

  /// The table a conv -> conv chain folds into `op`'s activation unit: its
  /// hl.table16 (always folded), or its hl.table with `foldTables`.
  static Operation *chainTable(Operation *op, bool foldTables) {
    if (hl::Table16Op t16 = foldableTable16(op))
      return t16;
    return foldTables ? foldableTable(op).getOperation() : nullptr;
  }

  /// Multi-op dispatches: the table folded into an int8 elementwise op's
  /// program (hl.add/sub/mul/min/max/activation), if any: one 256-entry
  /// table read by no operand of the op, which reads distinct values (the
  /// dispatch binds each once: the op's operands, the table, its result).
  static hl::TableOp foldableElementwiseTable(Operation *op) {
    if (!isa<hl::AddOp, hl::SubOp, hl::MulOp, hl::MinOp, hl::MaxOp,
             hl::ActivationOp>(op) ||
        extra::handles(op))
      return nullptr;
    hl::TableOp table = tableAfter(op);
    if (!table || cast<ShapedType>(table.getTable().getType()).getRank() != 1 ||
        llvm::is_contained(op->getOperands(), table.getTable()) ||
        (op->getNumOperands() == 2 && op->getOperand(0) == op->getOperand(1)))
      return nullptr;
    return table;
  }

  /// Multi-op dispatches: the hl.add fused into `op`'s program, if any.
  /// An int8 hl.conv2d (plain operands and result) whose only user is an
  /// hl.add of the same block that reads no other of the conv's operands
  /// (the dispatch binds the conv's operands, the add's other operand, the
  /// add's result).
  static hl::AddOp fusableAdd(Operation *op) {
    if (!isa<hl::Conv2DOp>(op) || extra::handles(op) ||
        op->hasAttr("segment_output") || !op->getResult(0).hasOneUse())
      return nullptr;
    auto add = dyn_cast<hl::AddOp>(*op->getResult(0).getUsers().begin());
    if (!add || add->getBlock() != op->getBlock() ||
        add->hasAttr("segment_output") || extra::handles(add) ||
        add.getLhs() == add.getRhs())
      return nullptr;
    Value other =
        add.getLhs() == op->getResult(0) ? add.getRhs() : add.getLhs();
    if (llvm::is_contained(op->getOperands(), other))
      return nullptr;
    return add;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    npu::NpuConfig config = given.value_or(npu::defaultNpuConfig());
    if (!npuConfig.empty()) {
      auto file = llvm::MemoryBuffer::getFile(npuConfig, /*IsText=*/true);
      if (!file) {
        module.emitError() << "npu-config '" << npuConfig
                           << "' cannot be read: " << file.getError().message();
        return signalPassFailure();
      }
      llvm::Expected<npu::NpuConfig> parsed =
          npu::parseNpuConfigJson((*file)->getBuffer(), npuConfig);
      if (!parsed) {
        module.emitError() << llvm::toString(parsed.takeError());
        return signalPassFailure();
      }
      config = *parsed;
    }
    HLToHWOptions options;
    options.doubleBuffer = doubleBuffer;
    options.lramReuse = lramReuse;
    options.fuseDispatches = fuseDispatches;
    options.prefetchWeights = prefetchWeights;
    options.foldTables = foldTables;

    SmallVector<Operation *> kernels;
    module.walk([&](Operation *op) {
      if (hasNpuLowering(op))
        kernels.push_back(op);
    });
    SymbolTable symbols(module);
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    int64_t index = 0;
    bool failed = false;
    // LRAM reuse: the output the previous kernel left resident, if any.
    std::optional<int64_t> resident;
    // Whether `b` reads `a`'s result as its input.
    // (Only the MAC kernels keep or read resident tensors.)
    auto feeds = [](Operation *a, Operation *b) {
      return isa<hl::Conv2DOp, hl::DepthwiseConv2DOp, hl::FullyConnectedOp>(
                 a) &&
             isa<hl::Conv2DOp, hl::DepthwiseConv2DOp, hl::FullyConnectedOp>(
                 b) &&
             a->getBlock() == b->getBlock() &&
             b->getOperand(0) == a->getResult(0);
    };
    // The value the previous NPU dispatch left resident (its `resident`).
    Value residentValue;
    auto isMac = [](Operation *op) {
      return isa<hl::Conv2DOp, hl::DepthwiseConv2DOp, hl::FullyConnectedOp>(op);
    };
    // The adds and tables lowered with their convolution, and the LRAM
    // address each pair leaves its result at (LRAM reuse). A pair's
    // dispatch runs at its add's (table's) place.
    llvm::DenseMap<Operation *, std::optional<int64_t>> grouped;
    for (size_t i = 0; i < kernels.size(); ++i) {
      Operation *op = kernels[i];
      if (auto it = grouped.find(op); it != grouped.end()) {
        resident = it->second;
        residentValue = op->getResult(0);
        continue;
      }
      HLToHWOptions opOptions = options;
      if (options.lramReuse) {
        opOptions.keepOutputResident =
            i + 1 < kernels.size() && feeds(op, kernels[i + 1]);
        if (resident && isMac(op) && op->getOperand(0) == residentValue)
          opOptions.residentInput = resident;
      }
      std::string base = "npu_" + std::to_string(index++);
      if (auto named = dyn_cast<NameLoc>(op->getLoc()))
        base += "_" + named.getName().str();
      std::string name = base;
      for (int n = 1; symbols.lookup(name); ++n)
        name = base + "_" + std::to_string(n);
      npusim::Program program;
      LayerPlan plan;
      // A conv -> conv chain (LowerChain.cpp): one program at the
      // consumer's place, the producer outlined with it. Either may apply
      // its folded table (the producer's: the consumer reads the table's
      // result; the consumer's: the program hangs on its table).
      Operation *producerTable = chainTable(op, foldTables);
      size_t nextIndex = i + 1 + (producerTable ? 1 : 0);
      Operation *next =
          nextIndex < kernels.size() &&
                  (!producerTable || kernels[i + 1] == producerTable)
              ? kernels[nextIndex]
              : nullptr;
      Operation *mid = producerTable ? producerTable : op;
      Operation *consumerTable = next ? chainTable(next, foldTables) : nullptr;
      // A consumer's table runs right after it (no kernel between them
      // runs before the dispatch at the table's place).
      if (consumerTable && (nextIndex + 1 >= kernels.size() ||
                            kernels[nextIndex + 1] != consumerTable))
        next = nullptr;
      Operation *last = consumerTable ? consumerTable : next;
      // The dispatch binds each outside value once: the tables and the
      // consumer's weights are none of the values read before them.
      auto distinct = [&]() {
        SmallVector<Value> seen(op->getOperands());
        if (producerTable)
          seen.push_back(producerTable->getOperand(1));
        for (Value v : {next->getOperand(1), next->getOperand(2)}) {
          if (llvm::is_contained(seen, v))
            return false;
          seen.push_back(v);
        }
        return !consumerTable ||
               !llvm::is_contained(seen, consumerTable->getOperand(1));
      };
      if (prefetchWeights && next && isMac(op) && isMac(next) &&
          next->getBlock() == op->getBlock() &&
          next->getOperand(0) == mid->getResult(0) &&
          op->getResult(0).hasOneUse() && mid->getResult(0).hasOneUse() &&
          !extra::handles(op) && !extra::handles(next) &&
          !op->hasAttr("segment_output") && !next->hasAttr("segment_output") &&
          !(fuseDispatches && (fusableAdd(op) || fusableAdd(next))) &&
          distinct()) {
        HLToHWOptions chainOptions = opOptions;
        chainOptions.foldedTable = producerTable;
        HLToHWOptions nextOptions = options;
        nextOptions.foldedTable = consumerTable;
        size_t after = llvm::find(kernels, last) - kernels.begin() + 1;
        nextOptions.keepOutputResident =
            options.lramReuse && after < kernels.size() &&
            isMac(kernels[after]) &&
            kernels[after]->getOperand(0) == last->getResult(0);
        if (!lowerChainToProgram(op, next, config, chainOptions, nextOptions,
                                 name, program, &plan)) {
          if (opOptions.residentInput)
            op->setAttr("npu.resident_input", b.getUnitAttr());
          npuhw::ProgramOp p = npuhw::buildProgram(b, op->getLoc(), program);
          symbols.insert(p);
          // The outliner follows the marks from the producer to `last`.
          for (Operation *member : {op, mid, next})
            if (member != last)
              member->setAttr("npu.dispatch_group", b.getUnitAttr());
          last->setAttr("npu.program",
                        FlatSymbolRefAttr::get(p.getSymNameAttr()));
          resident = plan.residentOutput;
          residentValue = last->getResult(0);
          // The loop goes on after the consumer; its table, next, is
          // skipped (the dispatch runs there).
          if (consumerTable)
            grouped[consumerTable] = plan.residentOutput;
          i = nextIndex;
          continue;
        }
      }
      // An elementwise op and its table: one program at the table's place
      // (else the op's own).
      if (hl::TableOp table =
              foldTables ? foldableElementwiseTable(op) : nullptr) {
        HLToHWOptions tableOptions = opOptions;
        tableOptions.foldedTable = table;
        if (!lowerHLOpToProgram(op, config, tableOptions, name, program,
                                &plan)) {
          npuhw::ProgramOp p = npuhw::buildProgram(b, op->getLoc(), program);
          symbols.insert(p);
          op->setAttr("npu.dispatch_group", b.getUnitAttr());
          table->setAttr("npu.program",
                         FlatSymbolRefAttr::get(p.getSymNameAttr()));
          grouped[table] = std::nullopt;
          resident.reset();
          continue;
        }
      }
      // A convolution's int16 result and its hl.table16: the conv's program
      // applies the interpolated table (the table's program, the conv
      // outlined with it), whether or not fold-tables is set: the int16
      // value has no other way to the NPU.
      if (hl::Table16Op t16 = foldableTable16(op)) {
        HLToHWOptions o = opOptions;
        o.foldedTable = t16;
        size_t next =
            llvm::find(kernels, t16.getOperation()) - kernels.begin() + 1;
        o.keepOutputResident = options.lramReuse && next < kernels.size() &&
                               isMac(kernels[next]) &&
                               kernels[next]->getOperand(0) == t16.getOutput();
        // The resident input stays only when no other kernel runs between
        // the conv and the table.
        if (next > i + 2)
          o.residentInput.reset();
        std::optional<std::string> e =
            lowerHLOpToProgram(op, config, o, name, program, &plan);
        if (e && o.residentInput) {
          o.residentInput.reset();
          e = lowerHLOpToProgram(op, config, o, name, program, &plan);
        }
        if (e) {
          op->emitError() << *e;
          failed = true;
          continue;
        }
        if (o.residentInput)
          op->setAttr("npu.resident_input", b.getUnitAttr());
        npuhw::ProgramOp p = npuhw::buildProgram(b, op->getLoc(), program);
        symbols.insert(p);
        op->setAttr("npu.dispatch_group", b.getUnitAttr());
        t16->setAttr("npu.program", FlatSymbolRefAttr::get(p.getSymNameAttr()));
        grouped[t16] = plan.residentOutput;
        resident.reset();
        continue;
      }
      std::optional<std::string> error =
          lowerHLOpToProgram(op, config, opOptions, name, program, &plan);
      if (error && opOptions.residentInput) {
        // The layer does not fit beside the resident input: load it.
        opOptions.residentInput.reset();
        error = lowerHLOpToProgram(op, config, opOptions, name, program, &plan);
      }
      resident = error ? std::nullopt : plan.residentOutput;
      residentValue = op->getResult(0);
      // Multi-op dispatch: the conv's program also computes its add (the
      // add's program, the conv outlined with it); when the pair does not
      // fit LRAM, the conv's own program.
      hl::AddOp add = fuseDispatches && !error ? fusableAdd(op) : nullptr;
      // An add of two convolutions goes with the first one lowered.
      if (add && grouped.contains(add))
        add = nullptr;
      // The add's only user, a table, goes in the same dispatch too when
      // it fits (else the conv and the add).
      hl::TableOp addTable = add && foldTables ? tableAfter(add) : nullptr;
      if (addTable &&
          (llvm::is_contained(op->getOperands(), addTable.getTable()) ||
           llvm::is_contained(add->getOperands(), addTable.getTable())))
        addTable = nullptr;
      // The pair's program: the conv's program also computes `user` (its
      // fused add or folded table) and runs at the user's place (a kernel
      // between the two, a shortcut conv, runs before it and overwrites
      // LRAM, so the conv then loads its input); it keeps its result in
      // LRAM when the kernel after the user reads it. False when the pair
      // does not fit LRAM (then the conv's own program).
      // `addOp` and `tableOp`: the group's fused add and folded table (one
      // of them may be null; the table reads the add's result when both).
      auto lowerGroup = [&](Operation *addOp, Operation *tableOp) {
        Operation *user = tableOp ? tableOp : addOp;
        HLToHWOptions groupOptions = opOptions;
        groupOptions.fusedAdd = addOp;
        groupOptions.foldedTable = tableOp;
        size_t next = llvm::find(kernels, user) - kernels.begin() + 1;
        groupOptions.keepOutputResident =
            options.lramReuse && next < kernels.size() &&
            isMac(kernels[next]) &&
            kernels[next]->getOperand(0) == user->getResult(0);
        // The resident input stays only when no other kernel runs between
        // the conv and the group's place.
        for (size_t k = i + 1; k + 1 < next; ++k)
          if (kernels[k] != addOp && kernels[k] != tableOp)
            groupOptions.residentInput.reset();
        npusim::Program groupProgram;
        LayerPlan groupPlan;
        if (lowerHLOpToProgram(op, config, groupOptions, name, groupProgram,
                               &groupPlan))
          return false;
        program = std::move(groupProgram);
        opOptions.residentInput = groupOptions.residentInput;
        plan = groupPlan;
        grouped[user] = groupPlan.residentOutput;
        // The add before the table leaves nothing resident at its place.
        if (addOp && tableOp)
          grouped[addOp] = std::nullopt;
        return true;
      };
      if (addTable && !lowerGroup(add, addTable))
        addTable = nullptr;
      if (add && !addTable && !lowerGroup(add, nullptr))
        add = nullptr;
      // A folded table: the conv's program applies it (the table's
      // program, the conv outlined with it).
      hl::TableOp table =
          foldTables && !error && !add ? foldableTable(op) : nullptr;
      if (table && !lowerGroup(nullptr, table))
        table = nullptr;
      if (error) {
        op->emitError() << *error;
        failed = true;
        continue;
      }
      if (opOptions.residentInput)
        op->setAttr("npu.resident_input", b.getUnitAttr());
      npuhw::ProgramOp p = npuhw::buildProgram(b, op->getLoc(), program);
      symbols.insert(p);
      if (add || table) {
        // The outliner puts the conv in its only user's dispatch
        // (npu.dispatch_group); the program hangs on the group's last op.
        Operation *last = addTable ? addTable.getOperation()
                          : add    ? add.getOperation()
                                   : table.getOperation();
        op->setAttr("npu.dispatch_group", b.getUnitAttr());
        if (addTable)
          add->setAttr("npu.dispatch_group", b.getUnitAttr());
        last->setAttr("npu.program",
                      FlatSymbolRefAttr::get(p.getSymNameAttr()));
        resident.reset();
        continue;
      }
      op->setAttr("npu.program", FlatSymbolRefAttr::get(p.getSymNameAttr()));
    }
    if (failed)
      signalPassFailure();
  }

  std::optional<npu::NpuConfig> given;
};

} // namespace

std::unique_ptr<Pass>
conversion::createConvertHLToHWPass(const npu::NpuConfig &config,
                                    const HLToHWOptions &options) {
  return std::make_unique<ConvertHLToHWPass>(config, options);
}
