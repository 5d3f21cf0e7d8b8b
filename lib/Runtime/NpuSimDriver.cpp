//===- NpuSimDriver.cpp - The "npu-sim" HAL driver ------------------------===//

#include "NpuSimDriver.h"

#include "strata/NpuSim/NpuProgram.h"
#include "strata/NpuSim/Simulator.h"
#include "strata/Runtime/NpuSimProfile.h"

#include <mutex>

namespace strata::runtime {
namespace npusim {
namespace {
struct Recorder {
  std::mutex mutex;
  bool on = false;
  std::vector<DispatchProfile> profiles;
};
Recorder &recorder() {
  static Recorder *r = new Recorder;
  return *r;
}
} // namespace

void setProfiling(bool on) {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.on = on;
  r.profiles.clear();
}

std::vector<DispatchProfile> takeProfiles() {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<DispatchProfile> out;
  out.swap(r.profiles);
  return out;
}
} // namespace npusim

namespace hal {
namespace {
namespace sim = strata::npusim;

class NpuExecutable : public Executable {
public:
  NpuExecutable(std::string name, sim::Program program)
      : exeName(std::move(name)), program(std::move(program)) {}
  const std::string &name() const override { return exeName; }
  std::string exeName;
  sim::Program program;
};

class NpuDevice;

class NpuFunction : public Function {
public:
  NpuFunction(NpuDevice &device, const NpuExecutable &exe,
              std::vector<uint64_t> sizes)
      : device(device), exe(exe), sizes(std::move(sizes)) {}
  bool run(void *const *bindings, const int64_t *, int64_t, ThreadPool &,
           std::string &error) const override;

private:
  NpuDevice &device;
  const NpuExecutable &exe;
  std::vector<uint64_t> sizes;
};

class NpuDevice : public Device {
public:
  const std::string &name() const override { return deviceName; }

  std::unique_ptr<Buffer> allocate(uint64_t, std::string &error) override {
    error = "the npu-sim device computes in host memory: the runtime "
            "allocates its buffers";
    return nullptr;
  }

  std::unique_ptr<Executable>
  loadExecutable(const std::string &name, const std::string &format,
                 const uint8_t *code, uint64_t size,
                 const std::vector<std::string> &symbols,
                 std::string &error) override {
    std::string where = "npu-sim executable '" + name + "'";
    if (format != npusim::kNpuProgramFormat) {
      error = where + " has format '" + format + "', expected '" +
              npusim::kNpuProgramFormat + "'";
      return nullptr;
    }
    sim::Program program;
    std::optional<std::string> err = sim::decodeProgram(code, size, program);
    if (!err)
      err = sim::verifyProgram(program);
    if (err) {
      error = where + ": " + *err;
      return nullptr;
    }
    if (symbols.size() != 1 || symbols[0] != program.name) {
      error = where + " must export exactly its program's name '" +
              program.name + "'";
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (!simulator)
      simulator = std::make_unique<sim::Simulator>(program.config);
    const npu::NpuConfig &have = simulator->config();
    if (have.lramBytes != program.config.lramBytes ||
        have.slices != program.config.slices ||
        have.weightChannelBlock != program.config.weightChannelBlock ||
        have.accumulatorBits != program.config.accumulatorBits) {
      error = where + " was built for NPU '" + program.config.name +
              "', another executable of the model for '" + have.name +
              "': one device simulates one NPU";
      return nullptr;
    }
    return std::make_unique<NpuExecutable>(name, std::move(program));
  }

  std::unique_ptr<Function> prepare(const DispatchRequest &request,
                                    std::string &error) override {
    if (!request.native || !request.executable) {
      error = "the npu-sim device has no built-in kernels (kernel '" +
              request.symbol + "')";
      return nullptr;
    }
    auto &exe = static_cast<NpuExecutable &>(*request.executable);
    const sim::Program &p = exe.program;
    if (request.symbol != p.name) {
      error = "npu-sim executable '" + exe.name() + "' has no program '" +
              request.symbol + "'";
      return nullptr;
    }
    if (request.bindings.size() != p.bindings.size()) {
      error = "npu program '" + p.name + "' takes " +
              std::to_string(p.bindings.size()) + " bindings, the dispatch " +
              "binds " + std::to_string(request.bindings.size());
      return nullptr;
    }
    std::vector<uint64_t> sizes;
    for (size_t i = 0; i < p.bindings.size(); ++i) {
      const BufferInfo &b = request.bindings[i];
      if (b.size < p.bindings[i].size) {
        error = "npu program '" + p.name + "': binding " + std::to_string(i) +
                " ('" + p.bindings[i].name + "') needs " +
                std::to_string(p.bindings[i].size) + " bytes, the buffer " +
                "bound has " + std::to_string(b.size);
        return nullptr;
      }
      if (p.bindings[i].writable && (b.constant || b.input)) {
        error = "npu program '" + p.name + "' writes binding " +
                std::to_string(i) + " ('" + p.bindings[i].name +
                "'), which is a read-only " +
                (b.constant ? "constant" : "input");
        return nullptr;
      }
      sizes.push_back(b.size);
    }
    return std::make_unique<NpuFunction>(*this, exe, std::move(sizes));
  }

  std::string deviceName = npusim::kNpuSimDevice;
  std::mutex mutex;
  std::unique_ptr<sim::Simulator> simulator;
};

bool NpuFunction::run(void *const *bindings, const int64_t *, int64_t,
                      ThreadPool &, std::string &error) const {
  std::vector<sim::DramBuffer> dram;
  for (size_t i = 0; i < sizes.size(); ++i)
    dram.push_back({static_cast<uint8_t *>(bindings[i]), sizes[i]});
  sim::Profile profile;
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    if (!device.simulator->run(exe.program, dram, profile, error))
      return false;
  }
  npusim::Recorder &r = npusim::recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.on)
    r.profiles.push_back({std::move(profile), exe.program.config});
  return true;
}

class NpuDriver : public Driver {
public:
  const std::string &name() const override { return driverName; }
  std::unique_ptr<Device> createDevice(std::string &) override {
    return std::make_unique<NpuDevice>();
  }
  std::string driverName = npusim::kNpuSimDevice;
};
} // namespace

std::unique_ptr<Driver> createNpuSimDriver() {
  return std::make_unique<NpuDriver>();
}
} // namespace hal
} // namespace strata::runtime
