//===- TestWorkloads.h - workloads for the strategy tests -------*- C++ -*-===//

#ifndef STRATA_UNITTESTS_STRATEGY_TESTWORKLOADS_H
#define STRATA_UNITTESTS_STRATEGY_TESTWORKLOADS_H

#include "strata/Strategy/Select.h"
#include "strata/Strategy/Workload.h"

namespace strata::strategy::test {

inline TensorDesc t(std::string dtype, Shape shape) {
  return {std::move(dtype), std::move(shape), true};
}
inline TensorDesc none() { return {"none", {}, true}; }
inline constexpr int64_t Q = kDynamicDim;

/// A 2-d NCHW Conv: input [n, c, h, w], filter [o, c/group, k, k], stride
/// 1, "same" pads, defaults completed.
inline Workload conv(int64_t n, int64_t c, int64_t o, int64_t k,
                     int64_t group = 1, std::string dtype = "f32",
                     int64_t h = 8) {
  Workload w;
  w.op = "top.Conv";
  w.operands = {t(dtype, {n, c, h, h}), t(dtype, {o, c / group, k, k}), none()};
  w.results = {t(dtype == "f32" ? "f32" : "i32", {n, o, h, h})};
  w.attrs = {{"kernel_shape", AttrValue::intList({k, k})},
             {"group", AttrValue::integer(group)},
             {"layout", AttrValue::string("NCHW")},
             {"pads", AttrValue::intList(Shape(4, k / 2))}};
  completeWorkloadDefaults(w);
  return w;
}

/// A MatMul [m, k] x [k, n].
inline Workload matmul(int64_t m, int64_t k, int64_t n,
                       std::string dtype = "f32") {
  Workload w;
  w.op = "top.MatMul";
  w.operands = {t(dtype, {m, k}), t(dtype, {k, n}), none()};
  w.results = {t(dtype == "f32" ? "f32" : "i32", {m, n})};
  w.attrs = {{"right_transpose", AttrValue::boolean(false)}};
  return w;
}

/// Selection on target "cpu", machine "test-machine", with `log` if given.
inline SelectOptions cpuOptions(const TuningLog *log = nullptr) {
  SelectOptions o;
  o.target = "cpu";
  o.machine = "test-machine";
  o.log = log;
  return o;
}

} // namespace strata::strategy::test

#endif // STRATA_UNITTESTS_STRATEGY_TESTWORKLOADS_H
