//===- Runtime.cpp - strata._core: sessions over the runtime's C API ------===//
//
// A Session loads a .strata artifact (file or bytes) with the runtime's C API
// (include/strata/Runtime/strata_runtime.h) and runs it on numpy arrays
// without copies: the runtime reads the inputs from the arrays' own memory
// (strata_session_bind_input) and writes each output into a numpy array
// (strata_session_bind_output), a new one or the caller's; the run releases
// the GIL.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "strata/Runtime/HostDType.h"
#include "strata/Runtime/strata_runtime.h"

#include <algorithm>
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

  nb::dict run(const nb::dict &feeds, const nb::object &given) {
    // Hold the session for the whole call: a session is used by one thread
    // at a time; another thread waits here (without the GIL).
    std::unique_lock<std::mutex> lock(mutex, std::defer_lock);
    {
      nb::gil_scoped_release release;
      lock.lock();
    }
    liveSession();
    size_t count = 0, outCount = 0;
    check(strata_model_input_count(model, &count), "");
    check(strata_model_output_count(model, &outCount), "");
    // The arrays the session borrows: alive until the run returns; the
    // outputs' bindings end with this call (an array may die after it).
    std::vector<nb::object> keep;
    struct Unbind {
      strata_session *s;
      size_t n;
      ~Unbind() {
        for (size_t i = 0; i < n; ++i)
          if (strata_status *st = strata_session_bind_output(s, i, nullptr, 0))
            strata_status_free(st);
      }
    } unbind{session, outCount};
    std::vector<std::vector<int64_t>> shapes(count);
    std::vector<bool> isGiven(count, false);
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
      DType type = host.dtype;
      strata_tensor_info expected;
      check(strata_model_input_info(model, index, &expected), "");
      if (runtimeType(type) != expected.dtype)
        throw Error(what + " must be " + numpyName(expected.dtype) + ", not " +
                    dtypeName(type));
      // Borrowed as it is when C-contiguous and element-aligned, else
      // through one C-contiguous copy.
      if (!contiguous(host.array) || !aligned(host.array.data(), type)) {
        keep.push_back(nb::module_::import_("numpy").attr("array")(
            value, nb::arg("order") = "C", nb::arg("copy") = true));
        castArray(keep.back(), host, what);
      }
      keep.push_back(host.view);
      const InArray &a = host.array;
      shapes[index] = shapeOf(a);
      size_t bytes = dtypeSize(type);
      for (int64_t d : shapes[index])
        bytes *= static_cast<size_t>(d);
      check(strata_session_bind_input(session, index, runtimeType(type),
                                      shapes[index].data(),
                                      shapes[index].size(), a.data(), bytes),
            "Session.run");
      isGiven[index] = true;
    }
    for (size_t i = 0; i < count; ++i)
      if (!isGiven[i]) {
        strata_tensor_info in;
        check(strata_model_input_info(model, i, &in), "");
        throw Error(std::string("Session.run: input '") + in.name +
                    "' is missing");
      }
    nb::dict supplied;
    if (!given.is_none()) {
      if (!nb::isinstance<nb::dict>(given))
        throw Error("Session.run: outputs must be a dict {name: array}");
      supplied = nb::borrow<nb::dict>(given);
    }
    std::vector<nb::object> results(outCount);
    std::optional<size_t> variant = variantOf(shapes);
    // Without a variant for these shapes the run fails (naming them).
    for (size_t o = 0; variant && o < outCount; ++o)
      results[o] = bindOutput(*variant, o, supplied);
    for (auto [key, value] : supplied) {
      std::string name = nb::cast<std::string>(nb::str(key));
      if (!hasOutput(name)) {
        std::string names;
        for (const Info &o : outputs())
          names += (names.empty() ? "'" : ", '") + std::get<0>(o) + "'";
        throw Error("Session.run: '" + name +
                    "' is not an output of the model (its outputs: " + names +
                    ")");
      }
    }
    strata_status *st;
    {
      nb::gil_scoped_release release;
      st = strata_session_run(session);
    }
    check(st, "Session.run");
    nb::dict result;
    for (size_t i = 0; i < outCount; ++i) {
      strata_tensor_view view;
      check(strata_session_output(session, i, &view), "Session.run");
      std::vector<int64_t> dims(view.dims, view.dims + view.rank);
      // The array written in place, or its first elements in the run's
      // shape (a shape decided at run time: the array holds its bound).
      nb::object array = results[i];
      if (nb::cast<std::vector<int64_t>>(array.attr("shape")) != dims) {
        int64_t n = 1;
        for (int64_t d : dims)
          n *= d;
        array = array.attr("reshape")(-1)[nb::slice(n)].attr("reshape")(
            nb::cast(dims));
      }
      result[nb::str(view.name)] = array;
    }
    return result;
  }

  /// Seconds for `iterations` rounds of what run() asks of the C API (set
  /// every input, run, copy every output out), in C++ with the GIL released:
  /// the baseline of bench/python_session_overhead.py.
  double timeCApi(const nb::dict &feeds, size_t iterations) {
    run(feeds, nb::none()); // checks the inputs, and warms up
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
  static bool contiguous(const InArray &a) {
    int64_t expected = 1;
    for (size_t i = a.ndim(); i-- > 0;) {
      if (a.shape(i) != 1 && a.stride(i) != expected)
        return false;
      expected *= static_cast<int64_t>(a.shape(i));
    }
    return true;
  }
  /// The runtime needs element alignment (docs/runtime.md).
  static bool aligned(const void *p, DType type) {
    return reinterpret_cast<uintptr_t>(p) % dtypeSize(type) == 0;
  }

  bool hasOutput(const std::string &name) const {
    for (const Info &o : outputs())
      if (std::get<0>(o) == name)
        return true;
    return false;
  }

  /// The variant whose input shapes are `shapes`.
  std::optional<size_t>
  variantOf(const std::vector<std::vector<int64_t>> &shapes) const {
    size_t variants = 0;
    check(strata_model_variant_count(model, &variants), "");
    for (size_t v = 0; v < variants; ++v) {
      bool match = true;
      for (size_t i = 0; match && i < shapes.size(); ++i) {
        size_t rank = 0;
        const int64_t *dims = nullptr;
        check(strata_model_variant_shape(model, v, 0, i, &rank, &dims), "");
        match = std::vector<int64_t>(dims, dims + rank) == shapes[i];
      }
      if (match)
        return v;
    }
    return std::nullopt;
  }

  /// Binds output `o` of `variant` to the caller's array in `supplied`, or
  /// to a new one, and returns that array: of the output's shape, or of its
  /// bound when the shape is decided at run time.
  nb::object bindOutput(size_t variant, size_t o, const nb::dict &supplied) {
    strata_tensor_info info;
    check(strata_model_output_info(model, o, &info), "");
    std::string what = std::string("Session.run: output '") + info.name + "'";
    std::optional<DType> type = rt::fromRuntimeDType(info.dtype);
    if (!type)
      throw Error(what + " has dtype " + strata_dtype_name(info.dtype) +
                  ", which the Python package cannot return yet");
    size_t rank = 0;
    const int64_t *dims = nullptr;
    check(strata_model_variant_shape(model, variant, 1, o, &rank, &dims), "");
    std::vector<int64_t> shape(dims, dims + rank);
    bool atRunTime = std::count(shape.begin(), shape.end(), -1) > 0;
    if (atRunTime) { // the bound: the output's buffer's shape
      strata_variant_info vi;
      check(strata_model_variant_info(model, variant, &vi), "");
      for (size_t b = 0; b < vi.buffer_count; ++b) {
        strata_buffer_info bi;
        check(strata_model_buffer_info(model, variant, b, &bi), "");
        if (bi.kind == STRATA_BUFFER_OUTPUT && bi.index == o)
          shape.assign(bi.dims, bi.dims + bi.rank);
      }
    }
    size_t bytes = dtypeSize(*type);
    for (int64_t d : shape)
      bytes *= static_cast<size_t>(d);
    nb::object array;
    void *data = nullptr;
    size_t size = 0;
    if (supplied.contains(info.name)) {
      array = supplied[info.name];
      HostArray host;
      if (!castArray(array, host, what))
        throw Error(what + " is not an array on the CPU (" +
                    nb::cast<std::string>(nb::str(array.type())) + ")");
      if (host.dtype != *type)
        throw Error(what + " must be " + numpyName(info.dtype) + ", not " +
                    dtypeName(host.dtype));
      if (!contiguous(host.array) || !aligned(host.array.data(), *type))
        throw Error(what + " must be C-contiguous and aligned to its "
                           "element size");
      if (!nb::cast<bool>(array.attr("flags").attr("writeable")))
        throw Error(what + " is read-only");
      if (!atRunTime && shapeOf(host.array) != shape)
        throw Error(what + " must have shape " + shapeText(shape) + ", not " +
                    shapeText(shapeOf(host.array)));
      data = const_cast<void *>(host.array.data());
      size = host.array.nbytes();
      if (size < bytes)
        throw Error(what + " has " + std::to_string(size) +
                    " bytes; the run needs " + std::to_string(bytes) + " (" +
                    numpyName(info.dtype) + " " + shapeText(shape) +
                    ", the bound of its run-time shape)");
    } else {
      Tensor t(*type, shape); // 64-byte aligned
      data = t.raw();
      size = t.byteSize();
      array = toNumpy(std::move(t)); // owns the same storage
    }
    check(strata_session_bind_output(session, o, data, size), "Session.run");
    return array;
  }

  static std::string shapeText(const std::vector<int64_t> &shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
  }

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
           nb::arg("outputs").none() = nb::none(),
           "Runs on {name: array}; returns {name: array}. Inputs are read "
           "in place (a non-contiguous one through one copy); outputs are "
           "written in place into new arrays, or into the arrays of "
           "OUTPUTS ({name: array}). The GIL is released while the model "
           "runs.")
      .def("close", &Session::close, "Releases the session and the model.")
      .def("_time_c_api", &Session::timeCApi, nb::arg("inputs"),
           nb::arg("iterations"),
           "Seconds for ITERATIONS rounds of set inputs, run, copy outputs "
           "through the C API alone (the benchmark's baseline).");
}

} // namespace strata::python
