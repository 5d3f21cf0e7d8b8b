//===- Runtime.hpp - C++ wrapper of the C runtime API -----------*- C++ -*-===//
//
// Header only, over strata_runtime.h: owning handles and exceptions.
//
//   strata::rt::Model model = strata::rt::Model::loadFile("net.strata");
//   strata::rt::Session session(model, /*threads=*/0);
//   session.setInput(0, STRATA_DTYPE_F32, {1, 3}, data, sizeof data);
//   session.run();
//   strata_tensor_view out = session.output(0);
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_RUNTIME_RUNTIME_HPP
#define STRATA_RUNTIME_RUNTIME_HPP

#include "strata/Runtime/strata_runtime.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::rt {

/// A failed call: the status's code and message.
class Error : public std::runtime_error {
public:
  Error(strata_status_code code, const std::string &message)
      : std::runtime_error(message), errorCode(code) {}
  strata_status_code code() const { return errorCode; }

private:
  strata_status_code errorCode;
};

/// Throws Error if `status` is not success; frees it either way.
inline void check(strata_status *status) {
  if (!status)
    return;
  strata_status_code code = strata_status_get_code(status);
  std::string message = strata_status_message(status);
  strata_status_free(status);
  throw Error(code, message);
}

class Model {
public:
  static Model loadFile(const std::string &path) {
    strata_model *m = nullptr;
    check(strata_model_load_file(path.c_str(), &m));
    return Model(m);
  }
  static Model loadMemory(const void *data, size_t size) {
    strata_model *m = nullptr;
    check(strata_model_load_memory(data, size, &m));
    return Model(m);
  }

  std::string name() const {
    const char *n = nullptr;
    check(strata_model_name(get(), &n));
    return n;
  }
  size_t inputCount() const {
    size_t n = 0;
    check(strata_model_input_count(get(), &n));
    return n;
  }
  size_t outputCount() const {
    size_t n = 0;
    check(strata_model_output_count(get(), &n));
    return n;
  }
  strata_tensor_info input(size_t i) const {
    strata_tensor_info info;
    check(strata_model_input_info(get(), i, &info));
    return info;
  }
  strata_tensor_info output(size_t i) const {
    strata_tensor_info info;
    check(strata_model_output_info(get(), i, &info));
    return info;
  }
  size_t variantCount() const {
    size_t n = 0;
    check(strata_model_variant_count(get(), &n));
    return n;
  }
  /// The static shape of input (or output) `index` in `variant`.
  std::vector<int64_t> variantShape(size_t variant, bool isOutput,
                                    size_t index) const {
    size_t rank = 0;
    const int64_t *dims = nullptr;
    check(strata_model_variant_shape(get(), variant, isOutput ? 1 : 0, index,
                                     &rank, &dims));
    return std::vector<int64_t>(dims, dims + rank);
  }
  strata_artifact_info artifactInfo() const {
    strata_artifact_info info;
    check(strata_model_artifact_info(get(), &info));
    return info;
  }
  strata_variant_info variantInfo(size_t variant) const {
    strata_variant_info info;
    check(strata_model_variant_info(get(), variant, &info));
    return info;
  }
  strata_buffer_info bufferInfo(size_t variant, size_t buffer) const {
    strata_buffer_info info;
    check(strata_model_buffer_info(get(), variant, buffer, &info));
    return info;
  }
  strata_dispatch_info dispatchInfo(size_t variant, size_t dispatch) const {
    strata_dispatch_info info;
    check(strata_model_dispatch_info(get(), variant, dispatch, &info));
    return info;
  }
  strata_executable_info executableInfo(size_t executable) const {
    strata_executable_info info;
    check(strata_model_executable_info(get(), executable, &info));
    return info;
  }
  std::string executableSymbol(size_t executable, size_t symbol) const {
    const char *s = nullptr;
    check(strata_model_executable_symbol(get(), executable, symbol, &s));
    return s;
  }
  strata_model *get() const { return handle.get(); }

private:
  explicit Model(strata_model *m) : handle(m, strata_model_release) {}
  std::shared_ptr<strata_model> handle;
};

class Session {
public:
  explicit Session(const Model &model, size_t threads = 0) : model(model) {
    strata_session *s = nullptr;
    check(strata_session_create(model.get(), threads, &s));
    handle.reset(s);
  }
  size_t threadCount() const {
    size_t n = 0;
    check(strata_session_thread_count(handle.get(), &n));
    return n;
  }
  void setInput(size_t index, strata_dtype dtype,
                const std::vector<int64_t> &shape, const void *data,
                size_t bytes) {
    check(strata_session_set_input(handle.get(), index, dtype, shape.data(),
                                   shape.size(), data, bytes));
  }
  void setInput(const std::string &name, strata_dtype dtype,
                const std::vector<int64_t> &shape, const void *data,
                size_t bytes) {
    check(strata_session_set_input_by_name(handle.get(), name.c_str(), dtype,
                                           shape.data(), shape.size(), data,
                                           bytes));
  }
  /// Borrows `data` for the next runs (strata_session_bind_input).
  void bindInput(size_t index, strata_dtype dtype,
                 const std::vector<int64_t> &shape, const void *data,
                 size_t bytes) {
    check(strata_session_bind_input(handle.get(), index, dtype, shape.data(),
                                    shape.size(), data, bytes));
  }
  /// The next runs write output `index` into `data`
  /// (strata_session_bind_output; nullptr, 0 unbinds).
  void bindOutput(size_t index, void *data, size_t bytes) {
    check(strata_session_bind_output(handle.get(), index, data, bytes));
  }
  void run() { check(strata_session_run(handle.get())); }
  strata_tensor_view output(size_t index) const {
    strata_tensor_view view;
    check(strata_session_output(handle.get(), index, &view));
    return view;
  }

private:
  struct Release {
    void operator()(strata_session *s) const { strata_session_release(s); }
  };
  Model model; ///< keeps the model alive while the session lives
  std::unique_ptr<strata_session, Release> handle;
};

} // namespace strata::rt

#endif // STRATA_RUNTIME_RUNTIME_HPP
