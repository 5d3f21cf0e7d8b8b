//===- ArtifactWriter.cpp - Writes .strata artifacts ----------------------===//

#include "strata/Artifact/ArtifactWriter.h"
#include "strata/Artifact/Format.h"
#include "strata/Artifact/artifact_generated.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata::artifact {

namespace {
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<fb::Quantization> quantOf(FlatBufferBuilder &b,
                                 const std::optional<Quantization> &q) {
  if (!q)
    return 0;
  return fb::CreateQuantization(b, q->scale, q->zeroPoint);
}

Offset<fb::TensorDesc> tensorOf(FlatBufferBuilder &b, const TensorSpec &t) {
  auto name = b.CreateString(t.name);
  auto shape = b.CreateVector(t.shape);
  auto quant = quantOf(b, t.quant);
  return fb::CreateTensorDesc(b, name, static_cast<fb::DType>(t.dtype), shape,
                              quant);
}

Offset<flatbuffers::Vector<Offset<fb::Shape>>>
shapesOf(FlatBufferBuilder &b, const std::vector<std::vector<int64_t>> &shapes) {
  std::vector<Offset<fb::Shape>> out;
  for (const auto &s : shapes)
    out.push_back(fb::CreateShape(b, b.CreateVector(s)));
  return b.CreateVector(out);
}

Offset<fb::Variant> variantOf(FlatBufferBuilder &b, const VariantSpec &v) {
  auto inShapes = shapesOf(b, v.inputShapes);
  auto outShapes = shapesOf(b, v.outputShapes);
  std::vector<Offset<fb::Buffer>> buffers;
  for (const BufferSpec &buf : v.buffers)
    buffers.push_back(fb::CreateBuffer(
        b, static_cast<fb::BufferKind>(buf.kind), buf.index, buf.offset,
        buf.size, static_cast<fb::DType>(buf.dtype), b.CreateVector(buf.shape)));
  std::vector<Offset<fb::Dispatch>> dispatches;
  for (const DispatchSpec &d : v.dispatches) {
    auto device = b.CreateString(d.device);
    auto symbol = b.CreateString(d.symbol);
    auto bindings = b.CreateVector(d.bindings);
    auto params = b.CreateVector(d.params);
    dispatches.push_back(fb::CreateDispatch(
        b, device, static_cast<fb::DispatchKind>(d.kind), d.executable, symbol,
        bindings, params, d.workgroupCount));
  }
  auto bufVec = b.CreateVector(buffers);
  auto dispVec = b.CreateVector(dispatches);
  // Absent (not empty) when no buffer has a run-time shape: a 1.1 reader
  // sees the same table as before.
  Offset<flatbuffers::Vector<Offset<fb::RuntimeShape>>> rtVec;
  if (!v.runtimeShapes.empty()) {
    std::vector<Offset<fb::RuntimeShape>> rts;
    for (const RuntimeShapeSpec &r : v.runtimeShapes)
      rts.push_back(fb::CreateRuntimeShape(b, r.buffer, r.shapeBuffer,
                                           r.dispatch,
                                           b.CreateString(r.origin)));
    rtVec = b.CreateVector(rts);
  }
  return fb::CreateVariant(b, inShapes, outShapes, v.arenaSize, bufVec,
                           dispVec, rtVec);
}
} // namespace

ArtifactWriter::ArtifactWriter(std::string modelName, std::string producer)
    : name(std::move(modelName)), producer(std::move(producer)) {}

uint64_t ArtifactWriter::addData(const void *bytes, uint64_t size) {
  data.resize(alignUp(data.size()), '\0');
  uint64_t offset = data.size();
  if (size)
    data.append(static_cast<const char *>(bytes), size);
  return offset;
}

uint32_t ArtifactWriter::addExecutable(std::string exeName, std::string device,
                                       std::string format,
                                       const std::string &code,
                                       std::vector<std::string> symbols) {
  uint64_t offset = addData(code.data(), code.size());
  executables.push_back({std::move(exeName), std::move(device),
                         std::move(format), offset, code.size(),
                         std::move(symbols)});
  return uint32_t(executables.size() - 1);
}

uint32_t ArtifactWriter::addVariant(VariantSpec variant) {
  variants.push_back(std::move(variant));
  return uint32_t(variants.size() - 1);
}

std::string ArtifactWriter::serialize() const {
  FlatBufferBuilder b;
  std::vector<Offset<fb::TensorDesc>> ins, outs;
  for (const TensorSpec &t : inputs)
    ins.push_back(tensorOf(b, t));
  for (const TensorSpec &t : outputs)
    outs.push_back(tensorOf(b, t));
  auto insVec = b.CreateVector(ins);
  auto outsVec = b.CreateVector(outs);
  auto signature = fb::CreateSignature(b, insVec, outsVec);
  std::vector<Offset<fb::Variant>> vars;
  for (const VariantSpec &v : variants)
    vars.push_back(variantOf(b, v));
  std::vector<Offset<fb::Executable>> exes;
  for (const ExecutableSpec &e : executables) {
    auto n = b.CreateString(e.name);
    auto dev = b.CreateString(e.device);
    auto fmt = b.CreateString(e.format);
    auto syms = b.CreateVectorOfStrings(e.symbols);
    exes.push_back(
        fb::CreateExecutable(b, n, dev, fmt, e.offset, e.size, syms));
  }
  auto varsVec = b.CreateVector(vars);
  auto exesVec = b.CreateVector(exes);
  auto modelName = b.CreateString(name);
  auto producerName = b.CreateString(producer);
  b.Finish(fb::CreateModel(b, modelName, producerName, signature, varsVec,
                           exesVec));

  Header h;
  h.tableOffset = kHeaderSize;
  h.tableSize = b.GetSize();
  h.dataOffset = alignUp(h.tableOffset + h.tableSize);
  h.dataSize = data.size();
  h.fileSize = h.dataOffset + h.dataSize;
  h.tableCrc = crc32c(b.GetBufferPointer(), b.GetSize());
  h.dataCrc = crc32c(reinterpret_cast<const uint8_t *>(data.data()),
                    data.size());

  std::string file(h.fileSize, '\0');
  encodeHeader(h, reinterpret_cast<uint8_t *>(file.data()));
  std::memcpy(file.data() + h.tableOffset, b.GetBufferPointer(), h.tableSize);
  if (!data.empty())
    std::memcpy(file.data() + h.dataOffset, data.data(), data.size());
  return file;
}

bool ArtifactWriter::writeFile(const std::string &path,
                               std::string &error) const {
  std::string bytes = serialize();
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    error = "cannot create a temporary file beside '" + path +
            "': " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot write '" + tmp + "': " + std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return false;
    }
    done += size_t(n);
  }
  // mkstemp creates 0600; an artifact is an ordinary file.
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    error = "cannot write '" + tmp + "': " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + tmp + "' to '" + path +
            "': " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace strata::artifact
