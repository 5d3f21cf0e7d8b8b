//===- Model.cpp - Loads a verified artifact
//--------------------------------===//

#include "Model.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata::runtime {

uint64_t dtypeSize(uint8_t dtype) {
  switch (dtype) {
  case STRATA_DTYPE_F32:
  case STRATA_DTYPE_I32:
  case STRATA_DTYPE_U32:
    return 4;
  case STRATA_DTYPE_F16:
  case STRATA_DTYPE_BF16:
  case STRATA_DTYPE_I16:
  case STRATA_DTYPE_U16:
    return 2;
  case STRATA_DTYPE_F64:
  case STRATA_DTYPE_I64:
  case STRATA_DTYPE_U64:
    return 8;
  case STRATA_DTYPE_I8:
  case STRATA_DTYPE_U8:
  case STRATA_DTYPE_BOOL:
  case STRATA_DTYPE_I4:
  case STRATA_DTYPE_U4:
  case STRATA_DTYPE_I2:
  case STRATA_DTYPE_U2:
  case STRATA_DTYPE_F8E4M3FN:
  case STRATA_DTYPE_F8E4M3FNUZ:
  case STRATA_DTYPE_F8E5M2:
  case STRATA_DTYPE_F8E5M2FNUZ:
  case STRATA_DTYPE_F4E2M1FN:
  case STRATA_DTYPE_F8E8M0FNU:
    return 1;
  default:
    return 0;
  }
}

const char *dtypeName(uint8_t dtype) {
  static const char *names[] = {
      "unknown", "f32",        "f16",      "bf16",     "f64",
      "i8",      "u8",         "i16",      "u16",      "i32",
      "u32",     "i64",        "u64",      "bool",     "i4",
      "u4",      "i2",         "u2",       "f8e4m3fn", "f8e4m3fnuz",
      "f8e5m2",  "f8e5m2fnuz", "f4e2m1fn", "f8e8m0fnu"};
  return dtype < sizeof(names) / sizeof(names[0]) ? names[dtype] : "unknown";
}

namespace {
/// Value bits of a sub-byte dtype (0 for the others) and its signedness.
unsigned subByteBits(uint8_t dtype, bool &isSigned) {
  isSigned = dtype == STRATA_DTYPE_I4 || dtype == STRATA_DTYPE_I2;
  switch (dtype) {
  case STRATA_DTYPE_I4:
  case STRATA_DTYPE_U4:
  case STRATA_DTYPE_F4E2M1FN:
    return 4;
  case STRATA_DTYPE_I2:
  case STRATA_DTYPE_U2:
    return 2;
  default:
    return 0;
  }
}
} // namespace

void toArtifactLayout(uint8_t dtype, uint8_t *bytes, uint64_t size) {
  bool isSigned;
  unsigned bits = subByteBits(dtype, isSigned);
  if (!bits)
    return;
  uint8_t mask = uint8_t((1u << bits) - 1);
  for (uint64_t i = 0; i < size; ++i)
    bytes[i] &= mask;
}

void toApiLayout(uint8_t dtype, uint8_t *bytes, uint64_t size) {
  bool isSigned;
  unsigned bits = subByteBits(dtype, isSigned);
  if (!bits)
    return;
  unsigned shift = 8 - bits;
  for (uint64_t i = 0; i < size; ++i)
    bytes[i] = isSigned ? uint8_t(int8_t(uint8_t(bytes[i] << shift)) >> shift)
                        : uint8_t(uint8_t(bytes[i] << shift) >> shift);
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Storage::~Storage() {
  if (mapped)
    munmap(bytes, length);
  else
    std::free(bytes);
}

Error Storage::mapFile(const char *path, std::unique_ptr<Storage> &out) {
  // O_NONBLOCK: opening a FIFO must not block (fstat then refuses it).
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return {STRATA_IO_ERROR,
            std::string("cannot open '") + path + "': " + std::strerror(errno)};
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return {STRATA_IO_ERROR,
            std::string("'") + path + "' is not a regular file"};
  }
  auto s = std::make_unique<Storage>();
  s->length = uint64_t(st.st_size);
  if (s->length == 0) {
    ::close(fd);
    out = std::move(s); // verification reports the empty file
    return {};
  }
  void *p = mmap(nullptr, s->length, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED)
    return {STRATA_IO_ERROR,
            std::string("cannot map '") + path + "': " + std::strerror(errno)};
  s->bytes = static_cast<uint8_t *>(p);
  s->mapped = true;
  out = std::move(s);
  return {};
}

Error Storage::copy(const void *data, size_t size,
                    std::unique_ptr<Storage> &out) {
  auto s = std::make_unique<Storage>();
  s->length = size;
  if (size) {
    size_t rounded = (size + 63) / 64 * 64;
    s->bytes = static_cast<uint8_t *>(std::aligned_alloc(64, rounded));
    if (!s->bytes)
      return {STRATA_OUT_OF_MEMORY,
              "cannot allocate " + std::to_string(size) + " bytes"};
    std::memcpy(s->bytes, data, size);
  }
  out = std::move(s);
  return {};
}

Error Model::load(std::unique_ptr<Storage> storage,
                  std::unique_ptr<Model> &out) {
  auto model = std::make_unique<Model>();
  static const uint8_t empty[1] = {0};
  const uint8_t *bytes = storage->data() ? storage->data() : empty;
  if (Error e = verifyArtifact(bytes, storage->size(), *model))
    return e;
  model->storage = std::move(storage);

  auto deviceFor = [&](const std::string &name, hal::Device *&device) -> Error {
    for (auto &[n, d] : model->devices)
      if (n == name) {
        device = d.get();
        return {};
      }
    hal::Driver *driver = hal::findDriver(name);
    if (!driver) {
      std::string have;
      for (const std::string &n : hal::driverNames())
        have += (have.empty() ? "" : ", ") + n;
      return {STRATA_UNSUPPORTED, "device '" + name +
                                      "' has no driver in this runtime (it "
                                      "has: " +
                                      have + ")"};
    }
    std::string error;
    std::unique_ptr<hal::Device> d = driver->createDevice(error);
    if (!d)
      return {STRATA_UNSUPPORTED,
              "cannot create device '" + name + "': " + error};
    device = d.get();
    model->devices.emplace_back(name, std::move(d));
    return {};
  };

  for (const ExecutablePlan &p : model->executablePlans) {
    hal::Device *device;
    if (Error e = deviceFor(p.device, device))
      return e;
    std::string error;
    std::unique_ptr<hal::Executable> exe =
        device->loadExecutable(p.name, p.format, model->data + p.codeOffset,
                               p.codeSize, p.symbols, error);
    if (!exe)
      return {STRATA_INVALID_ARTIFACT, "invalid artifact: " + error};
    model->executables.push_back(std::move(exe));
  }

  for (size_t vi = 0; vi < model->variants.size(); ++vi) {
    VariantPlan &v = model->variants[vi];
    for (size_t di = 0; di < v.dispatches.size(); ++di) {
      DispatchPlan &d = v.dispatches[di];
      if (Error e = deviceFor(d.device, d.deviceHandle))
        return e;
      hal::DispatchRequest req;
      req.native = d.native;
      req.executable =
          d.native ? model->executables[d.executable].get() : nullptr;
      req.symbol = d.symbol;
      req.params = d.params;
      req.workgroupCount = d.workgroupCount;
      for (uint32_t b : d.bindings) {
        const BufferPlan &bp = v.buffers[b];
        req.bindings.push_back({bp.size, bp.dtype, bp.shape,
                                bp.kind == BufferKind::Constant,
                                bp.kind == BufferKind::Input});
      }
      std::string error;
      d.function = d.deviceHandle->prepare(req, error);
      if (!d.function)
        return {STRATA_INVALID_ARTIFACT,
                "invalid artifact: variant " + std::to_string(vi) +
                    ": dispatch " + std::to_string(di) + ": " + error};
    }
  }
  out = std::move(model);
  return {};
}

} // namespace strata::runtime
