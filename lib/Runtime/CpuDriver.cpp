//===- CpuDriver.cpp - The "cpu" HAL driver
//--------------------------------===//

#include "CpuDriver.h"
#include "CpuKernels.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Runtime/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace strata::runtime::hal {

namespace {

class HostBuffer final : public Buffer {
public:
  HostBuffer(void *ptr, uint64_t size) : ptr(ptr), bytes(size) {}
  ~HostBuffer() override { std::free(ptr); }
  void *data() override { return ptr; }
  uint64_t size() const override { return bytes; }

private:
  void *ptr;
  uint64_t bytes;
};

bool writeAll(int fd, const uint8_t *data, uint64_t size) {
  while (size) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= uint64_t(n);
  }
  return true;
}

/// Handles this process has open through the driver: glibc returns an
/// already loaded object when a path (/proc/self/fd/N) is reused, so a handle
/// seen twice means the wrong code would run.
std::mutex handlesMutex;
std::set<void *> liveHandles;

/// Checks the ELF header: 64-bit little-endian x86-64 shared object.
bool checkElf(const uint8_t *code, uint64_t size, std::string &error) {
  if (size < 64 || std::memcmp(code,
                               "\x7f"
                               "ELF",
                               4) != 0) {
    error = "is not an ELF file";
    return false;
  }
  uint16_t type = uint16_t(code[16] | code[17] << 8);
  uint16_t machine = uint16_t(code[18] | code[19] << 8);
  if (code[4] != 2 || code[5] != 1 || machine != 62 || type != 3) {
    error = "is not a 64-bit little-endian x86-64 shared object (class " +
            std::to_string(code[4]) + ", data " + std::to_string(code[5]) +
            ", machine " + std::to_string(machine) + ", type " +
            std::to_string(type) + ")";
    return false;
  }
  return true;
}

class CpuExecutable final : public Executable {
public:
  CpuExecutable(std::string name) : exeName(std::move(name)) {}
  ~CpuExecutable() override {
    if (handle) {
      {
        std::lock_guard<std::mutex> lock(handlesMutex);
        liveHandles.erase(handle);
      }
      dlclose(handle);
    }
    if (fd >= 0)
      ::close(fd);
  }
  const std::string &name() const override { return exeName; }

  /// Writes the code to a memfd (or a file in a private temporary folder)
  /// and dlopens it; resolves every symbol.
  bool load(const uint8_t *code, uint64_t size,
            const std::vector<std::string> &symbols, std::string &error) {
    std::string path;
    // STRATA_RUNTIME_NO_MEMFD=1 takes the path of systems without memfd
    // (for its test).
    const char *noMemfd = std::getenv("STRATA_RUNTIME_NO_MEMFD");
    fd = noMemfd && *noMemfd == '1'
             ? -1
             : memfd_create("strata-executable", MFD_CLOEXEC);
    if (fd >= 0) {
      // glibc returns an object already loaded when the path names it or
      // the file has its (device, inode): a memfd's inode number, or the
      // /proc/self/fd/N path, can be one an object still loaded was read
      // from (a NODELETE object stays loaded after dlclose). While the probe
      // finds such an object, hold this memfd open (so neither its number
      // nor its inode is reused) and make another.
      std::vector<int> held;
      for (int tries = 0;; ++tries) {
        if (!writeAll(fd, code, size)) {
          error = std::string("cannot write it to a memfd: ") +
                  std::strerror(errno);
          for (int h : held)
            ::close(h);
          return false;
        }
        path = "/proc/self/fd/" + std::to_string(fd);
        void *stale = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
        if (!stale)
          break;
        dlclose(stale);
        held.push_back(fd);
        fd = tries < 64 ? memfd_create("strata-executable", MFD_CLOEXEC) : -1;
        if (fd < 0) {
          error = "cannot be loaded: every new memfd names an object that "
                  "is already loaded";
          for (int h : held)
            ::close(h);
          return false;
        }
      }
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      for (int h : held)
        ::close(h);
    } else {
      const char *tmp = std::getenv("TMPDIR");
      std::string dir =
          std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-exe-XXXXXX";
      if (!mkdtemp(dir.data())) { // created 0700
        error = std::string("cannot create a private temporary folder: ") +
                std::strerror(errno);
        return false;
      }
      path = dir + "/executable.so";
      int tfd =
          ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0700);
      bool ok = tfd >= 0 && writeAll(tfd, code, size);
      if (tfd >= 0)
        ::close(tfd);
      if (ok)
        handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      ::unlink(path.c_str());
      ::rmdir(dir.c_str());
      if (!ok) {
        error = "cannot write it to '" + path + "'";
        return false;
      }
    }
    if (!handle) {
      const char *why = dlerror();
      error = std::string("cannot be loaded: ") + (why ? why : "dlopen failed");
      return false;
    }
    {
      std::lock_guard<std::mutex> lock(handlesMutex);
      if (!liveHandles.insert(handle).second) {
        handle = nullptr; // not ours to close
        error = "cannot be loaded: the dynamic loader returned an object "
                "that is already loaded";
        return false;
      }
    }
    for (const std::string &s : symbols) {
      dlerror();
      void *addr = dlsym(handle, s.c_str());
      if (!addr) {
        error = "does not export symbol '" + s + "'";
        return false;
      }
      functions.emplace_back(s, reinterpret_cast<DispatchFn>(addr));
    }
    return true;
  }

  DispatchFn lookup(const std::string &symbol) const {
    for (const auto &[name, fn] : functions)
      if (name == symbol)
        return fn;
    return nullptr;
  }

private:
  std::string exeName;
  int fd = -1;
  void *handle = nullptr;
  std::vector<std::pair<std::string, DispatchFn>> functions;
};

double secondsOf(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

/// STRATA_DISPATCH_PROFILE=FILE (docs/runtime.md): a dispatch function's
/// times, appended to FILE as one CSV line when the function is unloaded.
class DispatchProfile {
public:
  explicit DispatchProfile(std::string path) : path(std::move(path)) {}
  ~DispatchProfile() {
    if (!calls)
      return;
    FILE *f = std::fopen(path.c_str(), "a");
    if (!f)
      return;
    if (std::ftell(f) == 0)
      std::fprintf(f, "dispatch,params,calls,workgroups,wall_us,cpu_us,"
                      "slowest_workgroup_cpu_us\n");
    double n = double(calls);
    std::fprintf(f, "%s,%s,%lld,%lld,%.2f,%.2f,%.2f\n", label.c_str(),
                 params.c_str(), (long long)calls, (long long)workgroups,
                 wall / n * 1e6, cpu / n * 1e6, slowest / n * 1e6);
    std::fclose(f);
  }
  /// Records a call: its wall time and each workgroup's thread CPU time.
  void record(const std::string &what, const int64_t *p, size_t paramCount,
              double wallSeconds, const std::vector<double> &cpus) {
    // Sessions on several threads may share the model's functions.
    std::lock_guard<std::mutex> lock(mutex);
    if (!calls++) {
      label = what;
      for (size_t i = 0; i < std::min<size_t>(paramCount, 8); ++i)
        params += (i ? " " : "") + std::to_string(p[i]);
    }
    workgroups = int64_t(cpus.size());
    wall += wallSeconds;
    double most = 0;
    for (double c : cpus) {
      cpu += c;
      most = std::max(most, c);
    }
    slowest += most;
  }

private:
  std::mutex mutex;
  std::string path, label, params;
  int64_t calls = 0, workgroups = 0;
  double wall = 0, cpu = 0, slowest = 0;
};

class CpuFunction final : public Function {
public:
  CpuFunction(DispatchFn fn, std::string label, std::string kernel = "",
              size_t paramCount = 0)
      : fn(fn), label(std::move(label)), kernel(std::move(kernel)),
        paramCount(paramCount) {
    if (const char *path = std::getenv("STRATA_DISPATCH_PROFILE");
        path && *path)
      profile = std::make_unique<DispatchProfile>(path);
  }
  bool run(void *const *bindings, const int64_t *params, int64_t workgroupCount,
           ThreadPool &pool, std::string &error) const override {
    std::atomic<int64_t> failedGroup{-1};
    std::atomic<int> failedCode{0};
    // A kernel splits its work into `count` equal parts itself, and each
    // part repeats some setup (packing, padded planes): with fewer threads
    // than the compiled workgroup count it runs as one part per thread
    // (an int8 convolution at one thread then streams its weights once).
    if (!kernel.empty())
      workgroupCount =
          std::min<int64_t>(workgroupCount, int64_t(pool.threadCount()));
    std::vector<double> cpus(profile ? size_t(workgroupCount) : 0);
    double start = profile ? secondsOf(CLOCK_MONOTONIC) : 0;
    pool.parallelFor(workgroupCount, [&](int64_t id) {
      double cpuStart = profile ? secondsOf(CLOCK_THREAD_CPUTIME_ID) : 0;
      int rc = fn(bindings, params, id, workgroupCount);
      if (profile)
        cpus[size_t(id)] = secondsOf(CLOCK_THREAD_CPUTIME_ID) - cpuStart;
      if (rc != 0) {
        int64_t none = -1;
        if (failedGroup.compare_exchange_strong(none, id))
          failedCode.store(rc);
      }
    });
    if (profile)
      profile->record(label, params, paramCount,
                      secondsOf(CLOCK_MONOTONIC) - start, cpus);
    if (failedGroup.load() >= 0) {
      error = label + " returned " + std::to_string(failedCode.load()) +
              " in workgroup " + std::to_string(failedGroup.load()) + " of " +
              std::to_string(workgroupCount);
      if (!kernel.empty())
        if (std::string text = cpuKernelErrorText(kernel, failedCode.load());
            !text.empty())
          error += ": " + text;
      return false;
    }
    return true;
  }

private:
  DispatchFn fn;
  std::string label;
  std::string kernel; ///< a built-in kernel's name, for its error texts
  size_t paramCount;  ///< the params a profile line shows (at most 8)
  std::unique_ptr<DispatchProfile> profile; ///< STRATA_DISPATCH_PROFILE
};

class CpuDevice final : public Device {
public:
  const std::string &name() const override { return deviceName; }

  std::unique_ptr<Buffer> allocate(uint64_t size, std::string &error) override {
    uint64_t rounded = (size + 63) / 64 * 64;
    if (rounded < size || rounded == 0)
      rounded = 64;
    void *ptr = std::aligned_alloc(64, rounded);
    if (!ptr) {
      error = "cannot allocate " + std::to_string(size) + " bytes";
      return nullptr;
    }
    return std::make_unique<HostBuffer>(ptr, size);
  }

  std::unique_ptr<Executable>
  loadExecutable(const std::string &name, const std::string &format,
                 const uint8_t *code, uint64_t size,
                 const std::vector<std::string> &symbols,
                 std::string &error) override {
    std::string why;
    if (format != "elf-x86_64") {
      error = "executable '" + name + "': format '" + format +
              "' is not one the cpu driver loads (elf-x86_64)";
      return nullptr;
    }
#if !defined(__x86_64__)
    error = "executable '" + name + "': elf-x86_64 code on a non-x86-64 host";
    return nullptr;
#endif
    if (!checkElf(code, size, why)) {
      error = "executable '" + name + "' " + why;
      return nullptr;
    }
    auto exe = std::make_unique<CpuExecutable>(name);
    if (!exe->load(code, size, symbols, why)) {
      error = "executable '" + name + "' " + why;
      return nullptr;
    }
    return exe;
  }

  std::unique_ptr<Function> prepare(const DispatchRequest &request,
                                    std::string &error) override {
    if (request.native) {
      auto *exe = static_cast<CpuExecutable *>(request.executable);
      DispatchFn fn = exe ? exe->lookup(request.symbol) : nullptr;
      if (!fn) {
        error = "symbol '" + request.symbol + "' is not resolved in executable";
        return nullptr;
      }
      return std::make_unique<CpuFunction>(fn,
                                           "function '" + request.symbol + "'");
    }
    if (kernels::kabi::isOneDnnKernel(request.symbol))
      return prepareOneDnnKernel(request, error);
    const CpuKernel *k = findCpuKernel(request.symbol);
    if (!k) {
      error = "unknown kernel '" + request.symbol +
              "' (the cpu driver has: " + cpuKernelNames() + ")";
      return nullptr;
    }
    if (request.bindings.size() != k->bindingCount ||
        (k->paramCount != kAnyParamCount &&
         request.params.size() != k->paramCount)) {
      error =
          "kernel '" + request.symbol + "' takes " +
          std::to_string(k->bindingCount) + " bindings and " +
          (k->paramCount == kAnyParamCount ? std::string("its own count of")
                                           : std::to_string(k->paramCount)) +
          " params, the dispatch has " +
          std::to_string(request.bindings.size()) + " and " +
          std::to_string(request.params.size());
      return nullptr;
    }
    for (size_t i = 0; i < k->bindingCount; ++i)
      if ((k->writes >> i & 1) &&
          (request.bindings[i].constant || request.bindings[i].input)) {
        error = "kernel '" + request.symbol + "' writes binding " +
                std::to_string(i) + ", which is " +
                (request.bindings[i].constant ? "a constant" : "an input");
        return nullptr;
      }
    std::string why;
    if (!k->check(request.bindings, request.params, why)) {
      error = "kernel '" + request.symbol + "': " + why;
      return nullptr;
    }
    return std::make_unique<CpuFunction>(k->fn,
                                         "kernel '" + request.symbol + "'",
                                         request.symbol, request.params.size());
  }

private:
  std::string deviceName = "cpu";
};

class CpuDriver final : public Driver {
public:
  const std::string &name() const override { return driverName; }
  std::unique_ptr<Device> createDevice(std::string &) override {
    return std::make_unique<CpuDevice>();
  }

private:
  std::string driverName = "cpu";
};
} // namespace

std::unique_ptr<Driver> createCpuDriver() {
  return std::make_unique<CpuDriver>();
}

} // namespace strata::runtime::hal
