//===- CApi.cpp - The C API (strata_runtime.h)
//-----------------------------===//
//
// Every entry point catches everything: a C caller sees a status, never an
// exception or an abort.
//
//===----------------------------------------------------------------------===//

#include "Model.h"
#include "Session.h"
#include "strata/Runtime/strata_runtime.h"

#include <algorithm>
#include <new>

using namespace strata::runtime;

struct strata_status {
  strata_status_code code;
  std::string message;
};
struct strata_model {
  std::unique_ptr<Model> model;
};
struct strata_session {
  std::unique_ptr<Session> session;
};

namespace {
strata_status *make(strata_status_code code, std::string message) {
  return new (std::nothrow) strata_status{code, std::move(message)};
}
strata_status *fromError(Error e) {
  return e ? make(e.code, std::move(e.message)) : nullptr;
}
strata_status *nullArg(const char *what) {
  return make(STRATA_INVALID_ARGUMENT, std::string(what) + " is null");
}

/// Runs `fn`, turning exceptions into statuses.
template <typename Fn> strata_status *guard(Fn fn) {
  try {
    return fn();
  } catch (const std::bad_alloc &) {
    return make(STRATA_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    return make(STRATA_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return make(STRATA_INTERNAL, "internal error");
  }
}

strata_status *loadFrom(std::unique_ptr<Storage> storage, strata_model **out) {
  std::unique_ptr<Model> model;
  if (Error e = Model::load(std::move(storage), model))
    return fromError(std::move(e));
  *out = new strata_model{std::move(model)};
  return nullptr;
}

void fillInfo(const TensorInfo &t, strata_tensor_info *out) {
  out->name = t.name.c_str();
  out->dtype = strata_dtype(t.dtype);
  out->rank = t.shape.size();
  out->dims = t.shape.data();
  out->has_quant = t.hasQuant ? 1 : 0;
  out->scale = t.scale;
  out->zero_point = t.zeroPoint;
}

/// Points `item` at `items[index]` and returns null, or returns the status
/// "<what> 7 is out of range (<owner()> has 3 <whats>)".
template <typename T, typename OwnerFn>
strata_status *lookup(const std::vector<T> &items, size_t index,
                      const char *what, const char *whats, OwnerFn owner,
                      const T *&item) {
  if (index < items.size()) {
    item = &items[index];
    return nullptr;
  }
  return guard([&] {
    return make(STRATA_INVALID_ARGUMENT,
                std::string(what) + " " + std::to_string(index) +
                    " is out of range (" + owner() + " has " +
                    std::to_string(items.size()) + " " + whats + ")");
  });
}

/// `lookup` of a model's variant, executable, input or output.
auto modelOwner(const Model &m) {
  return [&m] { return "model '" + m.name + "'"; };
}
strata_status *lookupVariant(const Model &m, size_t variant,
                             const VariantPlan *&out) {
  return lookup(m.variants, variant, "variant", "variants", modelOwner(m), out);
}
strata_status *lookupExecutable(const Model &m, size_t executable,
                                const ExecutablePlan *&out) {
  return lookup(m.executablePlans, executable, "executable", "executables",
                modelOwner(m), out);
}
/// `lookup` of an entry of variant `variant`'s lists.
auto variantOwner(size_t variant) {
  return [variant] { return "variant " + std::to_string(variant); };
}

/// Bytes of the data segment covered by constant buffers of any variant,
/// each byte counted once.
uint64_t constantBytes(const Model &m) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const VariantPlan &v : m.variants)
    for (const BufferPlan &b : v.buffers)
      if (b.kind == BufferKind::Constant && b.size)
        ranges.emplace_back(b.offset, b.offset + b.size); // checked on load
  std::sort(ranges.begin(), ranges.end());
  uint64_t total = 0, end = 0;
  for (auto [lo, hi] : ranges) {
    lo = std::max(lo, end);
    if (hi > lo) {
      total += hi - lo;
      end = hi;
    }
  }
  return total;
}
} // namespace

extern "C" {

strata_status_code strata_status_get_code(const strata_status *status) {
  return status ? status->code : STRATA_OK;
}
const char *strata_status_message(const strata_status *status) {
  return status ? status->message.c_str() : "ok";
}
void strata_status_free(strata_status *status) { delete status; }

const char *strata_dtype_name(strata_dtype dtype) {
  return dtypeName(uint8_t(dtype));
}
size_t strata_dtype_size(strata_dtype dtype) {
  return size_t(dtypeSize(uint8_t(dtype)));
}

strata_status *strata_model_load_file(const char *path, strata_model **out) {
  if (!path)
    return nullArg("path");
  if (!out)
    return nullArg("out");
  *out = nullptr;
  return guard([&]() -> strata_status * {
    std::unique_ptr<Storage> storage;
    if (Error e = Storage::mapFile(path, storage))
      return fromError(std::move(e));
    strata_status *st = loadFrom(std::move(storage), out);
    if (st)
      st->message = std::string(path) + ": " + st->message;
    return st;
  });
}

strata_status *strata_model_load_memory(const void *data, size_t size,
                                        strata_model **out) {
  if (!out)
    return nullArg("out");
  *out = nullptr;
  if (!data && size)
    return nullArg("data");
  return guard([&]() -> strata_status * {
    std::unique_ptr<Storage> storage;
    if (Error e = Storage::copy(data, size, storage))
      return fromError(std::move(e));
    return loadFrom(std::move(storage), out);
  });
}

void strata_model_release(strata_model *model) { delete model; }

strata_status *strata_model_name(const strata_model *model, const char **out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  *out = model->model->name.c_str();
  return nullptr;
}

strata_status *strata_model_input_count(const strata_model *model,
                                        size_t *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  *out = model->model->inputs.size();
  return nullptr;
}

strata_status *strata_model_output_count(const strata_model *model,
                                         size_t *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  *out = model->model->outputs.size();
  return nullptr;
}

strata_status *strata_model_input_info(const strata_model *model, size_t index,
                                       strata_tensor_info *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  const Model &m = *model->model;
  const TensorInfo *t;
  if (strata_status *st =
          lookup(m.inputs, index, "input index", "inputs", modelOwner(m), t))
    return st;
  fillInfo(*t, out);
  return nullptr;
}

strata_status *strata_model_output_info(const strata_model *model, size_t index,
                                        strata_tensor_info *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  const Model &m = *model->model;
  const TensorInfo *t;
  if (strata_status *st =
          lookup(m.outputs, index, "output index", "outputs", modelOwner(m), t))
    return st;
  fillInfo(*t, out);
  return nullptr;
}

strata_status *strata_model_find_input(const strata_model *model,
                                       const char *name, size_t *out) {
  if (!model || !name || !out)
    return nullArg(!model ? "model" : !name ? "name" : "out");
  const auto &list = model->model->inputs;
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) {
      *out = i;
      return nullptr;
    }
  return guard([&]() -> strata_status * {
    std::string names;
    for (const TensorInfo &t : list)
      names += (names.empty() ? "'" : ", '") + t.name + "'";
    return make(STRATA_INVALID_ARGUMENT,
                "model '" + model->model->name + "' has no input named '" +
                    name +
                    "' (its inputs: " + (names.empty() ? "none" : names) + ")");
  });
}

strata_status *strata_model_variant_count(const strata_model *model,
                                          size_t *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  *out = model->model->variants.size();
  return nullptr;
}

strata_status *strata_model_variant_shape(const strata_model *model,
                                          size_t variant, int is_output,
                                          size_t index, size_t *rank,
                                          const int64_t **dims) {
  if (!model || !rank || !dims)
    return nullArg(!model ? "model" : !rank ? "rank" : "dims");
  const Model &m = *model->model;
  const VariantPlan *v;
  if (strata_status *st = lookupVariant(m, variant, v))
    return st;
  const auto &shapes = is_output ? v->outputShapes : v->inputShapes;
  const std::vector<int64_t> *shape;
  if (strata_status *st = lookup(
          shapes, index, is_output ? "output index" : "input index",
          is_output ? "outputs" : "inputs", variantOwner(variant), shape))
    return st;
  *rank = shape->size();
  *dims = shape->data();
  return nullptr;
}

strata_status *strata_model_artifact_info(const strata_model *model,
                                          strata_artifact_info *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  return guard([&]() -> strata_status * {
    const Model &m = *model->model;
    out->producer = m.producer.c_str();
    out->version_major = m.versionMajor;
    out->version_minor = m.versionMinor;
    out->file_size = m.storage ? m.storage->size() : 0;
    out->data_size = m.dataSize;
    out->constants_size = constantBytes(m);
    out->executable_count = m.executablePlans.size();
    return nullptr;
  });
}

strata_status *strata_model_variant_info(const strata_model *model,
                                         size_t variant,
                                         strata_variant_info *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  const Model &m = *model->model;
  const VariantPlan *v;
  if (strata_status *st = lookupVariant(m, variant, v))
    return st;
  out->arena_size = v->arenaSize;
  out->buffer_count = v->buffers.size();
  out->dispatch_count = v->dispatches.size();
  return nullptr;
}

strata_status *strata_model_buffer_info(const strata_model *model,
                                        size_t variant, size_t buffer,
                                        strata_buffer_info *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  const Model &m = *model->model;
  const VariantPlan *v;
  if (strata_status *st = lookupVariant(m, variant, v))
    return st;
  const BufferPlan *bp;
  if (strata_status *st = lookup(v->buffers, buffer, "buffer", "buffers",
                                 variantOwner(variant), bp))
    return st;
  const BufferPlan &b = *bp;
  out->kind = strata_buffer_kind(b.kind);
  out->index = b.index;
  out->offset = b.offset;
  out->size_bytes = b.size;
  out->dtype = strata_dtype(b.dtype);
  out->rank = b.shape.size();
  out->dims = b.shape.data();
  return nullptr;
}

strata_status *strata_model_dispatch_info(const strata_model *model,
                                          size_t variant, size_t dispatch,
                                          strata_dispatch_info *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  const Model &m = *model->model;
  const VariantPlan *v;
  if (strata_status *st = lookupVariant(m, variant, v))
    return st;
  const DispatchPlan *dp;
  if (strata_status *st = lookup(v->dispatches, dispatch, "dispatch",
                                 "dispatches", variantOwner(variant), dp))
    return st;
  const DispatchPlan &d = *dp;
  out->device = d.device.c_str();
  out->kind = d.native ? STRATA_DISPATCH_NATIVE : STRATA_DISPATCH_KERNEL;
  out->executable = d.executable;
  out->symbol = d.symbol.c_str();
  out->binding_count = d.bindings.size();
  out->bindings = d.bindings.data();
  out->param_count = d.params.size();
  out->params = d.params.data();
  out->workgroup_count = d.workgroupCount;
  return nullptr;
}

strata_status *strata_model_executable_info(const strata_model *model,
                                            size_t executable,
                                            strata_executable_info *out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  const Model &m = *model->model;
  const ExecutablePlan *ep;
  if (strata_status *st = lookupExecutable(m, executable, ep))
    return st;
  const ExecutablePlan &e = *ep;
  out->name = e.name.c_str();
  out->device = e.device.c_str();
  out->format = e.format.c_str();
  out->code_offset = e.codeOffset;
  out->code_size = e.codeSize;
  out->symbol_count = e.symbols.size();
  return nullptr;
}

strata_status *strata_model_executable_symbol(const strata_model *model,
                                              size_t executable, size_t symbol,
                                              const char **out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  const Model &m = *model->model;
  const ExecutablePlan *ep;
  if (strata_status *st = lookupExecutable(m, executable, ep))
    return st;
  const ExecutablePlan &e = *ep;
  const std::string *name;
  if (strata_status *st = lookup(
          e.symbols, symbol, "symbol", "symbols",
          [&e] { return "executable '" + e.name + "'"; }, name))
    return st;
  *out = name->c_str();
  return nullptr;
}

strata_status *strata_session_create(strata_model *model, size_t threads,
                                     strata_session **out) {
  if (!model || !out)
    return nullArg(!model ? "model" : "out");
  *out = nullptr;
  if (threads > 1024)
    return make(STRATA_INVALID_ARGUMENT,
                "thread count " + std::to_string(threads) + " is above 1024");
  return guard([&]() -> strata_status * {
    *out =
        new strata_session{std::make_unique<Session>(*model->model, threads)};
    return nullptr;
  });
}

void strata_session_release(strata_session *session) { delete session; }

strata_status *strata_session_thread_count(const strata_session *session,
                                           size_t *out) {
  if (!session || !out)
    return nullArg(!session ? "session" : "out");
  *out = session->session->threadCount();
  return nullptr;
}

strata_status *strata_session_set_input(strata_session *session, size_t index,
                                        strata_dtype dtype, const int64_t *dims,
                                        size_t rank, const void *data,
                                        size_t size_bytes) {
  if (!session)
    return nullArg("session");
  return guard([&] {
    return fromError(session->session->setInput(index, uint8_t(dtype), dims,
                                                rank, data, size_bytes));
  });
}

strata_status *strata_session_set_input_by_name(
    strata_session *session, const char *name, strata_dtype dtype,
    const int64_t *dims, size_t rank, const void *data, size_t size_bytes) {
  if (!session || !name)
    return nullArg(!session ? "session" : "name");
  size_t index;
  return guard([&]() -> strata_status * {
    const auto &inputs = session->session->modelRef().inputs;
    for (index = 0; index < inputs.size(); ++index)
      if (inputs[index].name == name)
        return fromError(session->session->setInput(index, uint8_t(dtype), dims,
                                                    rank, data, size_bytes));
    std::string names;
    for (const TensorInfo &t : inputs)
      names += (names.empty() ? "'" : ", '") + t.name + "'";
    return make(STRATA_INVALID_ARGUMENT,
                "model '" + session->session->modelRef().name +
                    "' has no input named '" + name +
                    "' (its inputs: " + (names.empty() ? "none" : names) + ")");
  });
}

strata_status *strata_session_bind_input(strata_session *session, size_t index,
                                         strata_dtype dtype,
                                         const int64_t *dims, size_t rank,
                                         const void *data, size_t size_bytes) {
  if (!session)
    return nullArg("session");
  return guard([&] {
    return fromError(session->session->bindInput(index, uint8_t(dtype), dims,
                                                 rank, data, size_bytes));
  });
}

strata_status *strata_session_bind_output(strata_session *session, size_t index,
                                          void *data, size_t size_bytes) {
  if (!session)
    return nullArg("session");
  return guard([&] {
    return fromError(session->session->bindOutput(index, data, size_bytes));
  });
}

strata_status *strata_session_run(strata_session *session) {
  if (!session)
    return nullArg("session");
  return guard([&] { return fromError(session->session->run()); });
}

strata_status *strata_session_output(const strata_session *session,
                                     size_t index, strata_tensor_view *out) {
  if (!session || !out)
    return nullArg(!session ? "session" : "out");
  return guard(
      [&] { return fromError(session->session->output(index, *out)); });
}

} // extern "C"
