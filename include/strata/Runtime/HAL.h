//===- HAL.h - The runtime's hardware abstraction layer ---------*- C++ -*-===//
//
// A driver (one per kind of device: "cpu", next "npu-sim") creates devices; a
// device allocates buffers, loads executables (the device's code in the
// artifact) and prepares dispatches (a function of an executable, or a
// built-in kernel of the driver) into Functions that run over their
// workgroups. The runtime verifies the artifact before it calls any of this,
// and a device checks what only it can know (executable format, symbols,
// kernel names, kernel binding sizes) when it loads and prepares.
// docs/runtime.md describes how to add a driver.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_RUNTIME_HAL_H
#define STRATA_RUNTIME_HAL_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace strata::runtime {
class ThreadPool;

namespace hal {

/// The C ABI of a CPU dispatch function (native code and built-in kernels):
/// returns 0 on success.
using DispatchFn = int (*)(void *const *bindings, const int64_t *params,
                           int64_t workgroupId, int64_t workgroupCount);

/// What a device may check about a buffer bound to a dispatch.
struct BufferInfo {
  uint64_t size = 0;   ///< bytes
  uint8_t dtype = 0;   ///< strata_dtype
  std::vector<int64_t> shape;
  bool constant = false; ///< read-only (in the artifact's data segment)
  /// A model input: read-only too (the session may lend the caller's
  /// memory, strata_session_bind_input).
  bool input = false;
};

/// Device memory (host-visible for every driver so far).
class Buffer {
public:
  virtual ~Buffer();
  virtual void *data() = 0;
  virtual uint64_t size() const = 0;
};

/// Code of one device loaded from the artifact.
class Executable {
public:
  virtual ~Executable();
  virtual const std::string &name() const = 0;
};

/// A dispatch as the artifact describes it.
struct DispatchRequest {
  bool native = true;             ///< false: a built-in kernel
  Executable *executable = nullptr; ///< native only
  std::string symbol;             ///< function or kernel name
  std::vector<BufferInfo> bindings;
  std::vector<int64_t> params;
  int64_t workgroupCount = 1;
};

/// A prepared dispatch.
class Function {
public:
  virtual ~Function();
  /// Runs every workgroup; false with `error` set when one fails.
  virtual bool run(void *const *bindings, const int64_t *params,
                   int64_t workgroupCount, ThreadPool &pool,
                   std::string &error) const = 0;
};

class Device {
public:
  virtual ~Device();
  virtual const std::string &name() const = 0;
  virtual std::unique_ptr<Buffer> allocate(uint64_t size,
                                           std::string &error) = 0;
  /// Loads `size` bytes of code in `format`; every name in `symbols` must
  /// resolve.
  virtual std::unique_ptr<Executable>
  loadExecutable(const std::string &name, const std::string &format,
                 const uint8_t *code, uint64_t size,
                 const std::vector<std::string> &symbols,
                 std::string &error) = 0;
  virtual std::unique_ptr<Function> prepare(const DispatchRequest &request,
                                            std::string &error) = 0;
};

class Driver {
public:
  virtual ~Driver();
  virtual const std::string &name() const = 0;
  virtual std::unique_ptr<Device> createDevice(std::string &error) = 0;
};

/// Adds a driver; false if one of that name is registered already.
bool registerDriver(std::unique_ptr<Driver> driver);
/// The driver named `name` ("cpu" is always there), or null.
Driver *findDriver(std::string_view name);
std::vector<std::string> driverNames();

} // namespace hal
} // namespace strata::runtime

#endif // STRATA_RUNTIME_HAL_H
