//===- Runtime.cpp - strata._core: sessions over the runtime's C API ------===//
//
// A Session loads a .strata artifact (file or bytes) with the runtime's C API
// (include/strata/Runtime/strata_runtime.h) and runs it on numpy arrays:
// inputs are handed to the runtime from the arrays' own memory (the runtime
// copies them into its session), the run releases the GIL, and each output
// is copied once into a new numpy array (the runtime's output views end with
// the next run).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "strata/Runtime/HostDType.h"
#include "strata/Runtime/strata_runtime.h"

#include <chrono>
#include <mutex>

namespace strata::python {

/// Throws Error with the status's message (and frees it).
static void check(strata_status *status, const std::string &what) {
  if (!status)
    return;
  std::string message = strata_status_message(status);
  strata_status_free(status);
  throw Error(what.empty() ? message : what + ": " + message);
}

/// The numpy dtype name of a runtime dtype ("float32", ...).
static std::string numpyName(strata_dtype d) {
  std::optional<DType> host = rt::fromRuntimeDType(d);
  return host ? dtypeName(*host) : strata_dtype_name(d);
}

/// The runtime dtype of a host dtype (every host dtype has one).
static strata_dtype runtimeType(DType d) {
  return rt::toRuntimeDType(d).value_or(STRATA_DTYPE_UNKNOWN);
}

using Info = std::tuple<std::string, std::vector<int64_t>, std::string>;

static Info info(const strata_tensor_info &i) {
  return {i.name, std::vector<int64_t>(i.dims, i.dims + i.rank),
          numpyName(i.dtype)};
}

/// A loaded model and one session on it.
class Session {
public:
  Session(const std::string *path, const nb::bytes *data, size_t threads) {
    if (path)
      check(strata_model_load_file(path->c_str(), &model), "");
    else
      check(strata_model_load_memory(data->data(), data->size(), &model), "");
    strata_status *st = strata_session_create(model, threads, &session);
    if (st) {
      strata_model_release(model);
      check(st, "Session");
    }
  }
  // No run is in progress when the object dies (a run holds a reference).
  ~Session() { release(); }

  /// Waits (without the GIL) for a run on another thread, then releases.
  void close() {
    std::unique_lock<std::mutex> lock(mutex, std::defer_lock);
    {
      nb::gil_scoped_release unlocked;
      lock.lock();
    }
    release();
  }

  void release() {
    if (session)
      strata_session_release(session);
    if (model)
      strata_model_release(model);
    session = nullptr;
    model = nullptr;
  }

  std::vector<Info> inputs() const { return signature(true); }
  std::vector<Info> outputs() const { return signature(false); }

  std::string name() const {
    const char *n = nullptr;
    check(strata_model_name(live(), &n), "");
    return n;
  }

  size_t threads() const {
    size_t n = 0;
    check(strata_session_thread_count(liveSession(), &n), "");
    return n;
  }

  nb::dict run(const nb::dict &feeds) {
    // Hold the session for the whole call: a session is used by one thread
    // at a time; another thread waits here (without the GIL).
    std::unique_lock<std::mutex> lock(mutex, std::defer_lock);
    {
      nb::gil_scoped_release release;
      lock.lock();
    }
    liveSession();
    size_t count = 0;
    check(strata_model_input_count(model, &count), "");
    std::vector<bool> given(count, false);
    for (auto [key, value] : feeds) {
      if (!nb::isinstance<nb::str>(key))
        throw Error("Session.run: keys must be input names (str)");
      std::string name = nb::cast<std::string>(key);
      size_t index = 0;
      strata_status *st = strata_model_find_input(model, name.c_str(), &index);
      if (st) {
        strata_status_free(st);
        std::string names;
        for (const Info &i : inputs())
          names += (names.empty() ? "'" : ", '") + std::get<0>(i) + "'";
        throw Error("Session.run: '" + name +
                    "' is not an input of the model (its inputs: " + names +
                    ")");
      }
      std::string what = "Session.run: input '" + name + "'";
      HostArray host;
      if (!castArray(value, host, what))
        throw Error(what + " is not an array on the CPU (" +
                    nb::cast<std::string>(nb::str(value.type())) + ")");
      const InArray &a = host.array;
      DType type = host.dtype;
      strata_tensor_info expected;
      check(strata_model_input_info(model, index, &expected), "");
      if (runtimeType(type) != expected.dtype)
        throw Error(what + " must be " + numpyName(expected.dtype) + ", not " +
                    dtypeName(type));
      requireContiguous(a, what);
      std::vector<int64_t> shape = shapeOf(a);
      size_t bytes = dtypeSize(type);
      for (int64_t d : shape)
        bytes *= static_cast<size_t>(d);
      check(strata_session_set_input(session, index, runtimeType(type),
                                     shape.data(), shape.size(), a.data(),
                                     bytes),
            "Session.run");
      given[index] = true;
    }
    for (size_t i = 0; i < count; ++i)
      if (!given[i]) {
        strata_tensor_info in;
        check(strata_model_input_info(model, i, &in), "");
        throw Error(std::string("Session.run: input '") + in.name +
                    "' is missing");
      }
    strata_status *st;
    {
      nb::gil_scoped_release release;
      st = strata_session_run(session);
    }
    check(st, "Session.run");
    size_t outCount = 0;
    check(strata_model_output_count(model, &outCount), "");
    nb::dict result;
    for (size_t i = 0; i < outCount; ++i) {
      strata_tensor_view view;
      check(strata_session_output(session, i, &view), "Session.run");
      std::optional<DType> type = rt::fromRuntimeDType(view.dtype);
      if (!type)
        throw Error(std::string("Session.run: output '") + view.name +
                    "' has dtype " + strata_dtype_name(view.dtype) +
                    ", which the Python package cannot return yet");
      Tensor t(*type, std::vector<int64_t>(view.dims, view.dims + view.rank));
      if (t.byteSize() != view.size_bytes)
        throw Error(std::string("Session.run: output '") + view.name +
                    "' has " + std::to_string(view.size_bytes) +
                    " bytes, not " + std::to_string(t.byteSize()));
      if (t.byteSize())
        std::memcpy(t.raw(), view.data, t.byteSize());
      result[nb::str(view.name)] = toNumpy(std::move(t));
    }
    return result;
  }

  /// Seconds for `iterations` rounds of what run() asks of the C API (set
  /// every input, run, copy every output out), in C++ with the GIL released:
  /// the baseline of bench/python_session_overhead.py.
  double timeCApi(const nb::dict &feeds, size_t iterations) {
    run(feeds); // checks the inputs, and warms up
    struct Feed {
      size_t index;
      strata_dtype dtype;
      std::vector<int64_t> shape;
      const void *data;
      size_t bytes;
    };
    std::vector<Feed> list;
    std::vector<HostArray> arrays; // keeps bfloat16 views alive
    arrays.reserve(feeds.size());
    for (auto [key, value] : feeds) {
      arrays.emplace_back();
      castArray(value, arrays.back(), "input");
      const InArray &a = arrays.back().array;
      size_t index = 0;
      check(strata_model_find_input(model, nb::cast<std::string>(key).c_str(),
                                    &index),
            "");
      list.push_back({index, runtimeType(arrays.back().dtype), shapeOf(a),
                      a.data(), a.nbytes()});
    }
    size_t outCount = 0;
    check(strata_model_output_count(model, &outCount), "");
    std::vector<char> scratch;
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex);
    auto start = std::chrono::steady_clock::now();
    for (size_t it = 0; it < iterations; ++it) {
      for (const Feed &f : list)
        check(strata_session_set_input(session, f.index, f.dtype,
                                       f.shape.data(), f.shape.size(), f.data,
                                       f.bytes),
              "");
      check(strata_session_run(session), "");
      for (size_t i = 0; i < outCount; ++i) {
        strata_tensor_view view;
        check(strata_session_output(session, i, &view), "");
        scratch.resize(view.size_bytes);
        if (view.size_bytes)
          std::memcpy(scratch.data(), view.data, view.size_bytes);
      }
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

private:
  strata_model *live() const {
    if (!model)
      throw Error("the session is closed");
    return model;
  }
  strata_session *liveSession() const {
    live();
    return session;
  }

  std::vector<Info> signature(bool in) const {
    strata_model *m = live();
    size_t n = 0;
    check(in ? strata_model_input_count(m, &n)
             : strata_model_output_count(m, &n),
          "");
    std::vector<Info> infos;
    for (size_t i = 0; i < n; ++i) {
      strata_tensor_info ti;
      check(in ? strata_model_input_info(m, i, &ti)
               : strata_model_output_info(m, i, &ti),
            "");
      infos.push_back(info(ti));
    }
    return infos;
  }

  strata_model *model = nullptr;
  strata_session *session = nullptr;
  std::mutex mutex;
};

void registerRuntime(nb::module_ &m) {
  nb::class_<Session>(m, "Session", "A loaded artifact and a session on it.")
      .def(
          "__init__",
          [](Session *self, const std::string &path, size_t threads) {
            new (self) Session(&path, nullptr, threads);
          },
          nb::arg("path"), nb::arg("threads"), "Loads the artifact file.")
      .def(
          "__init__",
          [](Session *self, const nb::bytes &data, size_t threads) {
            new (self) Session(nullptr, &data, threads);
          },
          nb::arg("data"), nb::arg("threads"), "Loads artifact bytes.")
      .def_prop_ro("name", &Session::name, "The model's name.")
      .def_prop_ro("inputs", &Session::inputs,
                   "The inputs: (name, shape with -1 for a dim set per "
                   "variant, dtype).")
      .def_prop_ro("outputs", &Session::outputs,
                   "The outputs: (name, shape, dtype).")
      .def_prop_ro("threads", &Session::threads,
                   "Threads of the session's pool.")
      .def("run", &Session::run, nb::arg("inputs"),
           "Runs on {name: array}; returns {name: array}. The GIL is "
           "released while the model runs.")
      .def("close", &Session::close, "Releases the session and the model.")
      .def("_time_c_api", &Session::timeCApi, nb::arg("inputs"),
           nb::arg("iterations"),
           "Seconds for ITERATIONS rounds of set inputs, run, copy outputs "
           "through the C API alone (the benchmark's baseline).");
}

} // namespace strata::python
