//===- RegistryTest.cpp - registration, ties, overrides, libraries --------===//

#include "TestWorkloads.h"

#include "strata/Strategy/CpuStrategies.h"
#include "strata/Strategy/Registry.h"
#include "strata/Strategy/Select.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::strategy;
using namespace strata::strategy::test;
using Cmp = Clause::Cmp;

namespace {

TensorRef in0 = TensorRef::operand(0);

Implementation impl(std::string name, int priority, Condition c = {}) {
  Implementation i;
  i.name = std::move(name);
  i.priority = priority;
  i.condition = std::move(c);
  i.lowering = Lowering::kernelCall(i.name + "_kernel", {});
  return i;
}

StrategyRegistry withFallback() {
  StrategyRegistry r;
  EXPECT_FALSE(registerGenericStrategies(r));
  return r;
}

std::string winner(const StrategyRegistry &r, const Workload &w,
                   std::string target = "cpu") {
  SelectOptions o;
  o.target = std::move(target);
  ShapeOr<Selection> s = select(r, w, o);
  EXPECT_TRUE(bool(s)) << s.error();
  EXPECT_TRUE(s->decided());
  return s->winner();
}

TEST(RegistryTest, HighestPriorityThatHoldsWins) {
  StrategyRegistry r = withFallback();
  ASSERT_FALSE(r.addGeneric("top.MatMul", impl("low", 10)));
  ASSERT_FALSE(r.addGeneric(
      "top.MatMul", impl("high", 20, {Clause::dim(in0, 0, Cmp::Eq, 1)})));
  EXPECT_EQ(winner(r, matmul(1, 8, 8)), "high");
  EXPECT_EQ(winner(r, matmul(2, 8, 8)), "low");
  // Registration order does not matter.
  StrategyRegistry r2 = withFallback();
  ASSERT_FALSE(r2.addGeneric(
      "top.MatMul", impl("high", 20, {Clause::dim(in0, 0, Cmp::Eq, 1)})));
  ASSERT_FALSE(r2.addGeneric("top.MatMul", impl("low", 10)));
  EXPECT_EQ(winner(r2, matmul(1, 8, 8)), "high");
  // With no kernel applying, the fallback.
  EXPECT_EQ(winner(r, {"top.Relu", {t("f32", {2})}, {t("f32", {2})}, {}}),
            "codegen");
}

TEST(RegistryTest, TieRejectedNamingBoth) {
  StrategyRegistry r = withFallback();
  ASSERT_FALSE(r.addGeneric("top.MatMul",
                            impl("a", 10, {Clause::dtypeIn(in0, {"f32"})})));
  Error e = r.addGeneric("top.MatMul",
                         impl("b", 10, {Clause::dim(in0, 0, Cmp::Eq, 1)}));
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "implementations 'a' (dtype(operand 0) in {f32}) and 'b' "
                "(operand 0 dim 0 == 1) of top.MatMul on target 'generic' have "
                "the same priority 10 and could both apply; give them "
                "different priorities or contradicting clauses");
  // The rejected one is not registered.
  EXPECT_FALSE(r.lookup("top.MatMul", "cpu").find("b"));
  // The fallback's priority is taken for every op: it always applies.
  e = r.addGeneric("top.Add", impl("zero", kCodegenPriority));
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("'codegen' (always) and 'zero' (always)"),
            std::string::npos)
      << *e;
}

TEST(RegistryTest, DisjointSamePriorityAccepted) {
  StrategyRegistry r = withFallback();
  ASSERT_FALSE(r.addGeneric("top.MatMul",
                            impl("f32", 10, {Clause::dtypeIn(in0, {"f32"})})));
  ASSERT_FALSE(r.addGeneric("top.MatMul",
                            impl("i8", 10, {Clause::dtypeIn(in0, {"i8"})})));
  ASSERT_FALSE(r.addGeneric("top.MatMul",
                            impl("m1", 20, {Clause::dim(in0, 0, Cmp::Eq, 1)})));
  ASSERT_FALSE(r.addGeneric(
      "top.MatMul", impl("mbig", 20, {Clause::dim(in0, 0, Cmp::Ne, 1)})));
  EXPECT_EQ(winner(r, matmul(1, 4, 4, "i8")), "m1");
  EXPECT_EQ(winner(r, matmul(3, 4, 4, "i8")), "mbig");
  // A third overlapping one at 20 is rejected against the one it overlaps.
  Error e = r.addGeneric("top.MatMul",
                         impl("m2", 20, {Clause::dim(in0, 0, Cmp::Eq, 2)}));
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("'mbig'"), std::string::npos) << *e;
}

TEST(RegistryTest, DuplicateNameAndLateFallbackRejected) {
  StrategyRegistry r = withFallback();
  ASSERT_FALSE(r.addGeneric("top.MatMul", impl("a", 10)));
  Error e = r.addGeneric("top.MatMul", impl("a", 20));
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "implementation 'a' of top.MatMul on target 'generic' is "
                "registered twice");
  e = r.setFallback(impl("codegen2", 0));
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("must be registered before any strategy"),
            std::string::npos);
  StrategyRegistry r2;
  e = r2.setFallback(impl("f", 0, {Clause::rank(in0, 2)}));
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("must always apply"), std::string::npos);
}

TEST(RegistryTest, SpecializationConditionIsConjoined) {
  StrategyRegistry r = withFallback();
  Condition spec = {Clause::rank(in0, 2)};
  ASSERT_FALSE(r.addGeneric(
      "top.MatMul", impl("x", 10, {Clause::dtypeIn(in0, {"f32"})}), spec));
  ASSERT_FALSE(r.addGeneric(
      "top.MatMul", impl("y", 10, {Clause::dtypeIn(in0, {"i8"})}), spec));
  Strategy s = r.lookup("top.MatMul", "cpu");
  ASSERT_EQ(s.specializations().size(), 2u); // codegen's and the rank-2 one
  EXPECT_EQ(s.specializations()[1].implementations.size(), 2u);
  EXPECT_EQ(s.find("x")->condition.str(),
            "rank(operand 0) == 2 && dtype(operand 0) in {f32}");
  Workload w = matmul(1, 4, 4);
  w.operands[0].shape = {1, 1, 4};
  EXPECT_EQ(winner(r, w), "codegen");
}

TEST(RegistryTest, PerTargetOverride) {
  StrategyRegistry r = withFallback();
  ASSERT_FALSE(r.addGeneric("top.MatMul", impl("generic_gemm", 10)));
  ASSERT_FALSE(r.addForTarget("top.MatMul", "npu", impl("npu_gemm", 20)));
  // The override starts from the generic strategy.
  EXPECT_EQ(winner(r, matmul(2, 4, 4), "npu"), "npu_gemm");
  EXPECT_TRUE(r.lookup("top.MatMul", "npu").find("generic_gemm"));
  // Other targets keep the generic one.
  EXPECT_EQ(winner(r, matmul(2, 4, 4), "cpu"), "generic_gemm");
  EXPECT_FALSE(r.lookup("top.MatMul", "cpu").find("npu_gemm"));
  // An override may replace a generic implementation.
  EXPECT_TRUE(r.overrideFor("top.MatMul", "npu").remove("npu_gemm"));
  EXPECT_TRUE(r.overrideFor("top.MatMul", "npu").remove("generic_gemm"));
  EXPECT_FALSE(r.overrideFor("top.MatMul", "npu").remove("generic_gemm"));
  EXPECT_EQ(winner(r, matmul(2, 4, 4), "npu"), "codegen");
  // Ties are checked within the target's strategy too.
  Error e = r.addForTarget("top.MatMul", "cpu", impl("also10", 10));
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("of top.MatMul on target 'cpu'"), std::string::npos) << *e;
}

TEST(RegistryTest, NoFallbackNoImplementation) {
  StrategyRegistry r;
  SelectOptions o;
  ShapeOr<Selection> s = select(r, matmul(1, 2, 3), o);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "has no implementation on target 'cpu'");
  ASSERT_FALSE(r.addGeneric(
      "top.MatMul", impl("only_m1", 10, {Clause::dim(in0, 0, Cmp::Eq, 1)})));
  s = select(r, matmul(2, 2, 3), o);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("that applies unconditionally"), std::string::npos);
}

TEST(RegistryTest, OptionalLibraryProvider) {
  auto provider = [](bool available) {
    return LibraryProvider{"fakeblas", available,
                           [](StrategyRegistry &reg) -> Error {
                             Implementation i = impl("matmul.fakeblas", 30);
                             i.library = "fakeblas";
                             return reg.addForTarget("top.MatMul", "cpu", i);
                           }};
  };
  StrategyRegistry without = withFallback();
  ASSERT_FALSE(registerLibraryProvider(without, provider(false)));
  EXPECT_EQ(winner(without, matmul(2, 4, 4)), "codegen");
  ASSERT_EQ(without.missingLibraries().size(), 1u);
  EXPECT_NE(explain(without, matmul(2, 4, 4), {})
                .find("not built: implementations needing library 'fakeblas'"),
            std::string::npos);

  StrategyRegistry with = withFallback();
  ASSERT_FALSE(registerLibraryProvider(with, provider(true)));
  EXPECT_TRUE(with.missingLibraries().empty());
  EXPECT_EQ(winner(with, matmul(2, 4, 4)), "matmul.fakeblas");
  EXPECT_NE(explain(with, matmul(2, 4, 4), {}).find("(library fakeblas)"),
            std::string::npos);
  // A provider's registration error comes back.
  StrategyRegistry twice = withFallback();
  ASSERT_FALSE(registerLibraryProvider(twice, provider(true)));
  EXPECT_TRUE(registerLibraryProvider(twice, provider(true)));
}

TEST(RegistryTest, BuildTimeLibraries) {
  // oneDNN is the one optional library; whether it is found depends on the
  // build (OneDnnStrategyTest checks both ways).
  EXPECT_FALSE(libraryFoundAtBuild("fakeblas"));
  EXPECT_FALSE(libraryFoundAtBuild(""));
}

TEST(RegistryTest, BuiltinTablesRegister) {
  StrategyRegistry r;
  ASSERT_FALSE(registerGenericStrategies(r));
  Error e = registerCpuStrategies(r);
  EXPECT_FALSE(e) << *e;
  // Every op has the codegen fallback on every target.
  for (const char *op : {"top.Conv", "top.Relu", "top.Loop", "top.Unknown"})
    for (const char *target : {"cpu", "npu"}) {
      std::optional<Implementation> cg =
          builtinRegistry().lookup(op, target).find("codegen");
      ASSERT_TRUE(cg) << op << " " << target;
      EXPECT_EQ(cg->priority, kCodegenPriority);
      EXPECT_TRUE(cg->condition.always());
    }
}

} // namespace

namespace {

/// The worked example of docs/strategy.md: a 1x1 stride-2 Conv kernel at the
/// pointwise kernel's priority.
TEST(RegistryTest, DocsWorkedExample) {
  auto strided = [](Condition stridesClause) {
    Implementation i;
    i.name = "conv2d.1x1_s2_gemm";
    i.priority = 30;
    i.condition = Condition{Clause::rank(TensorRef::operand(0), 4),
                            Clause::attrEq("layout", AttrValue::string("NCHW")),
                            Clause::dtypeIn(TensorRef::operand(0), {"f32"}),
                            Clause::dtypeIn(TensorRef::operand(1), {"f32"}),
                            Clause::attrAllEqual("kernel_shape", 1),
                            Clause::attrAllEqual("pads", 0),
                            Clause::attrEq("group", AttrValue::integer(1))} &&
                  stridesClause;
    return i;
  };
  auto tableWith = [](Implementation i) {
    StrategyRegistry r;
    EXPECT_FALSE(registerGenericStrategies(r));
    EXPECT_FALSE(registerCpuStrategies(r));
    Error e = r.addForTarget("top.Conv", "cpu", std::move(i));
    return std::make_pair(std::move(r), e);
  };
  auto [r, e] = tableWith(strided({Clause::attrAllEqual("strides", 2)}));
  ASSERT_FALSE(e) << *e;
  Workload w = conv(1, 32, 16, 1);
  SelectOptions o;
  EXPECT_EQ(select(r, w, o)->winner(), "conv2d.1x1_gemm");
  w.attrs["strides"] = AttrValue::intList({2, 2});
  w.results[0].shape = {1, 16, 4, 4};
  EXPECT_EQ(select(r, w, o)->winner(), "conv2d.1x1_s2_gemm");
  EXPECT_FALSE(tableWith(strided({Clause::attrEq("strides",
                                                 AttrValue::intList({2, 2}))}))
                   .second);
  Error tie = tableWith(strided({})).second;
  ASSERT_TRUE(tie);
  EXPECT_NE(tie->find("'conv2d.1x1_gemm'"), std::string::npos) << *tie;
  EXPECT_NE(tie->find("'conv2d.1x1_s2_gemm'"), std::string::npos) << *tie;
}

} // namespace
