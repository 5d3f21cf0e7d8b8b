//===- WorkloadFromOpTest.cpp - reading Top ops into workloads ------------===//

#include "strata/StrategyMLIR/WorkloadFromOp.h"
#include "strata/InitAll.h"
#include "strata/Strategy/CpuStrategies.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::strategy;

namespace {

/// The workload of the first op named `opName` in `source`.
Workload readFirst(mlir::MLIRContext &ctx, const char *source,
                   llvm::StringRef opName) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
  EXPECT_TRUE(module);
  mlir::Operation *found = nullptr;
  module->walk([&](mlir::Operation *op) {
    if (!found && op->getName().getStringRef() == opName)
      found = op;
  });
  EXPECT_TRUE(found);
  ShapeOr<Workload> w = workloadFromOp(found);
  EXPECT_TRUE(bool(w)) << w.error();
  return *w;
}

struct WorkloadFromOpTest : ::testing::Test {
  WorkloadFromOpTest() {
    mlir::DialectRegistry registry;
    registerModelDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  mlir::MLIRContext ctx;
};

TEST_F(WorkloadFromOpTest, ConvWithDefaults) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
      %n = top.None() : () -> none
      %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strata.impl = "x"}
          : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
      return %0 : tensor<1x4x8x8xf32>
    })mlir";
  Workload w = readFirst(ctx, src, "top.Conv");
  EXPECT_EQ(w.op, "top.Conv");
  ASSERT_EQ(w.operands.size(), 3u);
  EXPECT_EQ(w.operands[2].str(), "none");
  // ODS defaults (group, layout, do_relu, relu_limit) and the window
  // defaults (strides, dilations) are filled in; discardable attributes are
  // not part of the workload.
  EXPECT_EQ(w.key(),
            "top.Conv(f32[1, 3, 8, 8], f32[4, 3, 3, 3], none) -> "
            "(f32[1, 4, 8, 8]) {dilations = [1, 1], do_relu = false, group = "
            "1, kernel_shape = [3, 3], layout = \"NCHW\", pads = [1, 1, 1, 1], "
            "relu_limit = -1.000000e+00, strides = [1, 1]}");
  // Spelling the defaults gives the same key.
  const char *spelled = R"mlir(
    func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
      %n = top.None() : () -> none
      %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>,
          strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
          : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
      return %0 : tensor<1x4x8x8xf32>
    })mlir";
  EXPECT_EQ(readFirst(ctx, spelled, "top.Conv").key(), w.key());
}

TEST_F(WorkloadFromOpTest, DynamicUnrankedAndQuantized) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<?x8xf32>, %q: tensor<4x!quant.uniform<i8:f32, 0.5>>,
                 %u: tensor<*xf32>) -> tensor<*xf32> {
      %0 = top.Softmax(%x) {axis = 1 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
      %1 = top.Relu(%u) : (tensor<*xf32>) -> tensor<*xf32>
      %2 = top.Abs(%q) : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
      return %1 : tensor<*xf32>
    })mlir";
  Workload s = readFirst(ctx, src, "top.Softmax");
  EXPECT_EQ(s.operands[0].str(), "f32[?, 8]");
  EXPECT_TRUE(isDynamicDim(s.operands[0].shape[0]));
  EXPECT_EQ(s.attr("axis")->getInt(), -1);
  Workload r = readFirst(ctx, src, "top.Relu");
  EXPECT_EQ(r.operands[0].str(), "f32[*]");
  Workload q = readFirst(ctx, src, "top.Abs");
  EXPECT_EQ(q.operands[0].str(), "qi8[4]");
}

TEST_F(WorkloadFromOpTest, AttributeKinds) {
  mlir::Builder b(&ctx);
  EXPECT_EQ(attrValueOf(b.getBoolAttr(true))->str(), "true");
  EXPECT_EQ(attrValueOf(b.getI64IntegerAttr(-3))->str(), "-3");
  EXPECT_EQ(attrValueOf(b.getF64FloatAttr(0.5))->str(), "5.000000e-01");
  EXPECT_EQ(attrValueOf(b.getStringAttr("NHWC"))->str(), "\"NHWC\"");
  EXPECT_EQ(attrValueOf(b.getDenseI64ArrayAttr({1, 2}))->str(), "[1, 2]");
  EXPECT_EQ(attrValueOf(b.getDenseI32ArrayAttr({3}))->str(), "[3]");
  EXPECT_EQ(attrValueOf(b.getDenseF64ArrayAttr({0.25}))->str(),
            "[2.500000e-01]");
  EXPECT_EQ(attrValueOf(b.getStrArrayAttr({"a", "b"}))->str(),
            "[\"a\", \"b\"]");
  EXPECT_EQ(attrValueOf(b.getI64ArrayAttr({4, 5}))->str(), "[4, 5]");
  EXPECT_FALSE(attrValueOf(mlir::TypeAttr::get(b.getF32Type())));
  EXPECT_FALSE(attrValueOf(b.getUnitAttr()));
  // An enum attribute reads as its case name, through its printed form
  // `#dialect.kind<value>` (an opaque attribute of an unloaded dialect
  // prints the same way).
  ctx.allowUnregisteredDialects();
  mlir::Attribute e = mlir::OpaqueAttr::get(
      b.getStringAttr("topx"), "layout<NHWC>", mlir::NoneType::get(&ctx));
  std::optional<AttrValue> v = attrValueOf(e);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind(), AttrValue::Kind::String);
  EXPECT_EQ(v->getString(), "NHWC");
  mlir::Attribute quoted =
      mlir::OpaqueAttr::get(b.getStringAttr("topx"), "mode<\"half_pixel\">",
                            mlir::NoneType::get(&ctx));
  EXPECT_EQ(attrValueOf(quoted)->getString(), "half_pixel");
}

TEST_F(WorkloadFromOpTest, DtypeSpellings) {
  mlir::Builder b(&ctx);
  EXPECT_EQ(dtypeSpelling(b.getF32Type()), "f32");
  EXPECT_EQ(dtypeSpelling(b.getBF16Type()), "bf16");
  EXPECT_EQ(dtypeSpelling(b.getI8Type()), "i8");
  EXPECT_EQ(dtypeSpelling(b.getIntegerType(8, false)), "ui8");
  EXPECT_EQ(dtypeSpelling(b.getI1Type()), "i1");
  EXPECT_EQ(dtypeSpelling(b.getNoneType()), "none");
}

} // namespace

namespace {

/// The built-in tables name real Top ops and real attributes of them: a
/// misspelt name would make a clause fail silently.
TEST_F(WorkloadFromOpTest, BuiltinTablesNameRealOpsAndAttributes) {
  const StrategyRegistry &registry = builtinRegistry();
  std::vector<std::string> ops = registry.ops();
  EXPECT_GE(ops.size(), 15u);
  for (const std::string &op : ops) {
    std::optional<mlir::RegisteredOperationName> info =
        mlir::RegisteredOperationName::lookup(op, &ctx);
    ASSERT_TRUE(info) << op << " is not a registered op";
    auto hasAttr = [&](const std::string &name) {
      for (mlir::StringAttr a : info->getAttributeNames())
        if (a.strref() == name)
          return true;
      return false;
    };
    for (const Implementation &impl :
         registry.lookup(op, "cpu").implementations()) {
      for (const Clause &c : impl.condition.clauses())
        if (c.kind() == Clause::Kind::Attr ||
            c.kind() == Clause::Kind::AttrAllEqual)
          EXPECT_TRUE(hasAttr(c.attrName()))
              << impl.name << ": " << op << " has no attribute '"
              << c.attrName() << "'";
      for (const KernelParam &p : impl.lowering.params)
        if (!p.source.attrName().empty())
          EXPECT_TRUE(hasAttr(p.source.attrName()))
              << impl.name << ": " << op << " has no attribute '"
              << p.source.attrName() << "'";
    }
  }
}

/// Every Top op has an implementation on the CPU (at least codegen).
TEST_F(WorkloadFromOpTest, EveryTopOpHasAnImplementation) {
  unsigned count = 0;
  for (mlir::RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "top")
      continue;
    ++count;
    Strategy s = builtinRegistry().lookup(name.getStringRef().str(), "cpu");
    EXPECT_TRUE(s.find(kCodegenImplName)) << name.getStringRef().str();
  }
  EXPECT_GE(count, 100u);
}

} // namespace
