//===- HAL.cpp - Driver registry -------------------------------------------===//

#include "strata/Runtime/HAL.h"
#include "CpuDriver.h"
#include "NpuSimDriver.h"

#include <mutex>

namespace strata::runtime::hal {

Buffer::~Buffer() = default;
Executable::~Executable() = default;
Function::~Function() = default;
Device::~Device() = default;
Driver::~Driver() = default;

namespace {
struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Driver>> drivers;
};

Registry &registry() {
  // The built-in drivers register here rather than from static
  // initializers, which a static library's link may drop.
  static Registry *r = [] {
    auto *reg = new Registry;
    reg->drivers.push_back(createCpuDriver());
    reg->drivers.push_back(createNpuSimDriver());
    return reg;
  }();
  return *r;
}
} // namespace

bool registerDriver(std::unique_ptr<Driver> driver) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto &d : r.drivers)
    if (d->name() == driver->name())
      return false;
  r.drivers.push_back(std::move(driver));
  return true;
}

Driver *findDriver(std::string_view name) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto &d : r.drivers)
    if (d->name() == name)
      return d.get();
  return nullptr;
}

std::vector<std::string> driverNames() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto &d : r.drivers)
    names.push_back(d->name());
  return names;
}

} // namespace strata::runtime::hal
