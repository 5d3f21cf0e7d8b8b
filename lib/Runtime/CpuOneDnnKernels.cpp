//===- CpuOneDnnKernels.cpp - kernels backed by oneDNN primitives ---------===//
//
// `onednn_conv2d_f32` and `onednn_matmul_f32` (params as the hand kernels
// they compete with: strata/Kernels/KernelAbi.h). Built only when CMake
// found oneDNN (STRATA_HAVE_ONEDNN); a runtime built without it refuses an
// artifact naming them, when the dispatch is prepared, with an error saying
// so. STRATA_RUNTIME_NO_ONEDNN=1 makes a runtime with oneDNN behave as one
// without (for that error's test).
//
// Each dispatch creates its primitives once, when it is prepared (at load):
// the convolution lets oneDNN choose its source, weight and destination
// layouts, and reorders between them and the plain NCHW buffers at each run;
// a constant weight is reordered once, at its first run. The epilogue (bias,
// activation) is the primitive's bias and post-ops. oneDNN threads itself
// (OpenMP in Debian's build): one workgroup, run with as many threads as the
// session's pool has.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "strata/Kernels/Conv.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Runtime/ThreadPool.h"

#include <cstdlib>

#ifdef STRATA_HAVE_ONEDNN
#include <dlfcn.h>
#include <functional>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#endif

namespace strata::runtime::hal {

namespace kabi = strata::kernels::kabi;

bool runtimeHasOneDnn() {
#ifdef STRATA_HAVE_ONEDNN
  const char *v = std::getenv("STRATA_RUNTIME_NO_ONEDNN");
  return !(v && *v == '1');
#else
  return false;
#endif
}

#ifdef STRATA_HAVE_ONEDNN
namespace {

namespace kn = strata::kernels;
using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

enum Binding { kIn = 0, kWeight = 1, kBias = 2, kOut = 3 };

/// The epilogue params (has_bias, act, p0, p1; checked by the twin hand
/// kernel's check) as post-ops.
dnnl::post_ops postOps(const int64_t *e) {
  dnnl::post_ops po;
  float p0 = kabi::paramFloat(e[2]), p1 = kabi::paramFloat(e[3]);
  using A = dnnl::algorithm;
  switch (kn::Activation(e[1])) {
  case kn::Activation::None:
    break;
  case kn::Activation::Relu:
    po.append_eltwise(1.f, A::eltwise_relu, 0.f, 0.f);
    break;
  case kn::Activation::Clip:
    po.append_eltwise(1.f, A::eltwise_clip, p0, p1);
    break;
  case kn::Activation::LeakyRelu:
    po.append_eltwise(1.f, A::eltwise_relu, p0, 0.f);
    break;
  case kn::Activation::Sigmoid:
    po.append_eltwise(1.f, A::eltwise_logistic, 0.f, 0.f);
    break;
  case kn::Activation::SiLU:
    po.append_eltwise(1.f, A::eltwise_swish, 1.f, 0.f);
    break;
  case kn::Activation::HardSwish:
    po.append_eltwise(1.f, A::eltwise_hardswish, 0.f, 0.f);
    break;
  case kn::Activation::HardSigmoid:
    po.append_eltwise(1.f, A::eltwise_linear, p0, p1);
    po.append_eltwise(1.f, A::eltwise_clip, 0.f, 1.f);
    break;
  case kn::Activation::Gelu:
    po.append_eltwise(1.f, A::eltwise_gelu_erf, 0.f, 0.f);
    break;
  case kn::Activation::GeluTanh:
    po.append_eltwise(1.f, A::eltwise_gelu_tanh, 0.f, 0.f);
    break;
  }
  return po;
}

/// Sets OpenMP's thread count for the calling thread's next parallel
/// regions (libgomp is loaded with libdnnl; looked up, not linked).
void setOmpThreads(size_t threads) {
  using Fn = void (*)(int);
  static Fn fn =
      reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (fn)
    fn(int(threads));
}

/// OpenMP's thread count for the calling thread's next parallel regions
/// (0 if OpenMP is not found).
size_t ompThreads() {
  using Fn = int (*)();
  static Fn fn =
      reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  return fn ? size_t(fn()) : 0;
}

/// A plain buffer and, when oneDNN chose another layout, the reorder to or
/// from it and the buffer in that layout.
struct Operand {
  memory::desc plain, chosen;
  // Only when the layouts differ: the buffer in the chosen layout and the
  // reorder between the layouts (created at prepare).
  memory chosenMem;
  dnnl::reorder reorder;
  bool differs() const { return plain != chosen; }
};

class OneDnnFunction final : public Function {
public:
  OneDnnFunction(std::string label) : label(std::move(label)) {}

  bool run(void *const *bindings, const int64_t *, int64_t, ThreadPool &pool,
           std::string &error) const override {
    std::lock_guard<std::mutex> lock(mutex);
    try {
      size_t threads = pool.threadCount();
      setOmpThreads(threads);
      // oneDNN fixes a primitive's thread count when it creates it.
      if (threads != builtFor) {
        create();
        builtFor = threads;
        cachedWeight = nullptr;
      }
      memory src(in.plain, engine, bindings[kIn]);
      memory dst(out.plain, engine, bindings[kOut]);
      std::unordered_map<int, memory> args;
      if (in.differs()) {
        in.reorder.execute(stream, src, in.chosenMem);
        args[DNNL_ARG_SRC] = in.chosenMem;
      } else {
        args[DNNL_ARG_SRC] = src;
      }
      args[DNNL_ARG_WEIGHTS] = weights(bindings[kWeight]);
      if (hasBias)
        args[DNNL_ARG_BIAS] = memory(biasDesc, engine, bindings[kBias]);
      args[DNNL_ARG_DST] = out.differs() ? out.chosenMem : dst;
      primitive.execute(stream, args);
      if (out.differs())
        out.reorder.execute(stream, out.chosenMem, dst);
      stream.wait();
    } catch (const dnnl::error &e) {
      error = label + ": oneDNN: " + e.what();
      return false;
    }
    return true;
  }

  /// The weight in the primitive's layout: reordered at each run, or once
  /// for a constant weight (again if its address changes).
  memory weights(void *data) const {
    memory plain(wei.plain, engine, data);
    if (!wei.differs())
      return plain;
    if (!weightConstant || cachedWeight != data) {
      wei.reorder.execute(stream, plain, wei.chosenMem);
      cachedWeight = weightConstant ? data : nullptr;
    }
    return wei.chosenMem;
  }

  std::string label;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  mutable dnnl::stream stream{engine};
  /// Creates `primitive` and the reorders for OpenMP's current thread count.
  std::function<void()> create;
  mutable size_t builtFor = 0;
  mutable dnnl::primitive primitive;
  mutable Operand in, wei, out;
  memory::desc biasDesc;
  bool hasBias = false, weightConstant = false;
  mutable void *cachedWeight = nullptr;
  mutable std::mutex mutex;
};

/// Records oneDNN's layout for `o`; `toChosen`: the reorder goes from the
/// plain layout (inputs), else to it (the output).
void choose(Operand &o, memory::desc chosen, const dnnl::engine &engine,
            bool toChosen) {
  o.chosen = chosen;
  if (!o.differs())
    return;
  o.chosenMem = memory(chosen, engine);
  o.reorder = toChosen ? dnnl::reorder(dnnl::reorder::primitive_desc(
                             engine, o.plain, engine, o.chosen))
                       : dnnl::reorder(dnnl::reorder::primitive_desc(
                             engine, o.chosen, engine, o.plain));
}

std::unique_ptr<Function> prepareConv(const DispatchRequest &r) {
  const int64_t *p = r.params.data();
  kn::Conv2dShape s = kabi::convShapeFromParams(kabi::kConvIm2col, p);
  const int64_t *e = p + kabi::kConvStrategyParams + 1;
  dnnl::post_ops po = postOps(e);
  auto f = std::make_unique<OneDnnFunction>("kernel '" + r.symbol + "'");
  memory::dims src = {s.n, s.c, s.h, s.w}, dst = {s.n, s.o, s.oh, s.ow};
  memory::dims wei = s.g == 1
                         ? memory::dims{s.o, s.c, s.kh, s.kw}
                         : memory::dims{s.g, s.o / s.g, s.c / s.g, s.kh, s.kw};
  f->in.plain = memory::desc(src, Dt::f32, Tag::nchw);
  f->out.plain = memory::desc(dst, Dt::f32, Tag::nchw);
  f->wei.plain = memory::desc(wei, Dt::f32, s.g == 1 ? Tag::oihw : Tag::goihw);
  f->hasBias = e[0] == 1;
  f->weightConstant = r.bindings[kWeight].constant;
  f->biasDesc = memory::desc({s.o}, Dt::f32, Tag::x);
  OneDnnFunction *fp = f.get();
  f->create = [fp, s, po, src, wei, dst] {
    dnnl::primitive_attr attr;
    attr.set_post_ops(po);
    dnnl::convolution_forward::desc d(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        memory::desc(src, Dt::f32, Tag::any),
        memory::desc(wei, Dt::f32, Tag::any),
        fp->hasBias ? fp->biasDesc : memory::desc(),
        memory::desc(dst, Dt::f32, Tag::any), {s.sh, s.sw},
        {s.dh - 1, s.dw - 1}, {s.pt, s.pl}, {s.pb, s.pr});
    dnnl::convolution_forward::primitive_desc pd(d, attr, fp->engine);
    choose(fp->in, pd.src_desc(), fp->engine, true);
    choose(fp->wei, pd.weights_desc(), fp->engine, true);
    choose(fp->out, pd.dst_desc(), fp->engine, false);
    fp->primitive = dnnl::convolution_forward(pd);
  };
  f->create(); // at load: a dispatch oneDNN cannot run fails here
  f->builtFor = ompThreads();
  return f;
}

std::unique_ptr<Function> prepareMatmul(const DispatchRequest &r) {
  const int64_t *p = r.params.data();
  int64_t batch = p[0], m = p[1], n = p[2], k = p[3];
  bool transB = p[4], aBatched = p[5], bBatched = p[6];
  const int64_t *e = p + kabi::kMatmulStrategyParams + 3;
  dnnl::post_ops po = postOps(e);
  auto f = std::make_unique<OneDnnFunction>("kernel '" + r.symbol + "'");
  int64_t ab = aBatched ? batch : 1, bb = bBatched ? batch : 1;
  f->in.plain = memory::desc({ab, m, k}, Dt::f32, Tag::abc);
  f->wei.plain =
      transB ? memory::desc({bb, k, n}, Dt::f32, memory::dims{k * n, 1, k})
             : memory::desc({bb, k, n}, Dt::f32, Tag::abc);
  f->out.plain = memory::desc({batch, m, n}, Dt::f32, Tag::abc);
  f->hasBias = e[0] == 1;
  f->biasDesc = memory::desc({1, 1, n}, Dt::f32, Tag::abc);
  f->in.chosen = f->in.plain;
  f->wei.chosen = f->wei.plain;
  f->out.chosen = f->out.plain;
  OneDnnFunction *fp = f.get();
  f->create = [fp, po] {
    dnnl::primitive_attr attr;
    attr.set_post_ops(po);
    dnnl::matmul::desc d(fp->in.plain, fp->wei.plain,
                         fp->hasBias ? fp->biasDesc : memory::desc(),
                         fp->out.plain);
    fp->primitive =
        dnnl::matmul(dnnl::matmul::primitive_desc(d, attr, fp->engine));
  };
  f->create();
  f->builtFor = ompThreads();
  return f;
}

} // namespace
#endif

std::unique_ptr<Function> prepareOneDnnKernel(const DispatchRequest &request,
                                              std::string &error) {
  if (!runtimeHasOneDnn()) {
    error = "kernel '" + request.symbol +
            "' needs oneDNN, and this runtime was built without it "
            "(configure with libdnnl-dev installed, STRATA_WITH_ONEDNN=AUTO "
            "or ON), or recompile the model without oneDNN kernels";
    return nullptr;
  }
#ifdef STRATA_HAVE_ONEDNN
  // Same params and bindings as the hand kernel it competes with, whose
  // check validates them; the weight is never pre-packed.
  bool conv = request.symbol == kabi::kOneDnnConv;
  const CpuKernel *twin =
      findCpuKernel(conv ? kabi::kConvIm2col : kabi::kMatmulGemm);
  const char *label = "kernel '";
  if (request.bindings.size() != twin->bindingCount ||
      request.params.size() != twin->paramCount) {
    error = label + request.symbol + "' takes " +
            std::to_string(twin->bindingCount) + " bindings and " +
            std::to_string(twin->paramCount) + " params, the dispatch has " +
            std::to_string(request.bindings.size()) + " and " +
            std::to_string(request.params.size());
    return nullptr;
  }
  if (request.bindings[3].constant) {
    error = label + request.symbol + "' writes binding 3, which is a constant";
    return nullptr;
  }
  std::string why;
  size_t packedFlag = conv ? size_t(kabi::kConvStrategyParams)
                           : size_t(kabi::kMatmulStrategyParams + 2);
  if (!twin->check(request.bindings, request.params, why)) {
    error = label + request.symbol + "': " + why;
    return nullptr;
  }
  size_t hasResidual = conv ? size_t(kabi::kConvStrategyParams + 1 + 4)
                            : size_t(kabi::kMatmulStrategyParams + 3 + 4);
  if (request.params[hasResidual] != 0) {
    error = label + request.symbol +
            "': has_residual is 1, the oneDNN kernels take no residual";
    return nullptr;
  }
  if (request.params[packedFlag] != 0) {
    error = label + request.symbol + "': param " + std::to_string(packedFlag) +
            " (packed weight) is " +
            std::to_string(request.params[packedFlag]) +
            ", the oneDNN kernels read the plain weight (0)";
    return nullptr;
  }
  try {
    return conv ? prepareConv(request) : prepareMatmul(request);
  } catch (const dnnl::error &e) {
    error = label + request.symbol + "': oneDNN cannot create it: " + e.what();
    return nullptr;
  }
#else
  return nullptr;
#endif
}

} // namespace strata::runtime::hal
