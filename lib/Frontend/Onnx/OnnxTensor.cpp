//===- OnnxTensor.cpp - ONNX TensorProto to host tensors ------------------===//
//
// readTensorProto (OnnxTensor.h): the data of an initializer or tensor
// attribute from its raw bytes, its typed fields or an external file inside
// the model's folder, with sizes and offsets range-checked.
//
//===----------------------------------------------------------------------===//

#include "OnnxTensor.h"
#include "TypeChecks.h"

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Support/InputFile.h"

#include <cstring>

using namespace mlir;

namespace strata::onnx_import {

namespace {
/// Resolves an external data location inside `modelDir`; rejects absolute
/// paths, `..` and links that lead out of the folder.
bool resolveExternalPath(const std::string &modelDir, const std::string &loc,
                         std::string &resolved, std::string &error) {
  return resolveInsideFolder(modelDir, loc, "external data location", resolved,
                             error);
}

/// Elements per byte of ONNX's packed layout: 2 for the 4-bit types, 4 for
/// the 2-bit ones, 1 otherwise.
int64_t packFactor(DType t) {
  if (t == DType::F4E2M1FN)
    return 2;
  unsigned bits = isFloat(t) ? 8 : intBitWidth(t);
  return bits == 4 ? 2 : bits == 2 ? 4 : 1;
}

/// Unpacks `n` elements of a packed 4/2-bit tensor (element k in bits
/// [w*(k%f), w*(k%f+1)) of byte k/f, low bits first) into one byte each,
/// sign-extending signed integers.
void unpackBits(const uint8_t *packed, int64_t n, DType t, Tensor &out) {
  int64_t f = packFactor(t);
  unsigned w = 8 / static_cast<unsigned>(f);
  uint8_t *dst = out.data<uint8_t>();
  for (int64_t k = 0; k < n; ++k) {
    unsigned v = (packed[k / f] >> (w * (k % f))) & ((1u << w) - 1);
    dst[k] = isFloat(t) ? static_cast<uint8_t>(v)
                        : static_cast<uint8_t>(wrapToNarrowInt(t, v));
  }
}

bool readExternal(const onnx::TensorProto &p, const std::string &modelDir,
                  DType dtype, const std::vector<int64_t> &shape, size_t bytes,
                  Tensor &out, std::string &error) {
  std::string location;
  uint64_t offset = 0, length = 0;
  bool hasLength = false;
  for (const auto &kv : p.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      uint64_t v = 0;
      if (llvm::StringRef(kv.value()).getAsInteger(10, v)) {
        error = "external data '" + kv.key() + "' is not a number: '" +
                kv.value() + "'";
        return false;
      }
      if (kv.key() == "offset")
        offset = v;
      else {
        length = v;
        hasLength = true;
      }
    }
  }
  std::string path;
  if (!resolveExternalPath(modelDir, location, path, error))
    return false;
  InputFile file;
  if (!file.open(path, "external data", error)) {
    error = "external data location '" + location + "': " + error;
    return false;
  }
  uint64_t size = file.size();
  if (hasLength && length != bytes) {
    error = "external data length " + std::to_string(length) +
            " does not match the tensor's " + std::to_string(bytes) + " bytes";
    return false;
  }
  if (offset > size || bytes > size - offset) {
    error = "external data '" + location + "' is too short: needs " +
            std::to_string(bytes) + " bytes at offset " +
            std::to_string(offset) + ", file has " + std::to_string(size);
    return false;
  }
  out = Tensor(dtype, shape);
  if (bytes)
    std::memcpy(out.raw(), file.data() + offset, bytes);
  return true;
}

/// The typed field that carries a tensor of `p`'s data type, and how many
/// values it holds.
std::pair<const char *, int64_t> typedValues(const onnx::TensorProto &p) {
  using TP = onnx::TensorProto;
  switch (p.data_type()) {
  case TP::FLOAT: return {"float_data", p.float_data_size()};
  case TP::DOUBLE: return {"double_data", p.double_data_size()};
  case TP::INT64: return {"int64_data", p.int64_data_size()};
  case TP::UINT32:
  case TP::UINT64: return {"uint64_data", p.uint64_data_size()};
  default: return {"int32_data", p.int32_data_size()};
  }
}
} // namespace

bool readTensorProto(const onnx::TensorProto &p, const std::string &modelDir,
                     Tensor &out, std::string &error) {
  std::optional<DType> dtype = dtypeFromOnnx(p.data_type());
  if (!dtype) {
    error = std::string("unsupported data type ") + onnxTypeName(p.data_type());
    return false;
  }
  std::vector<int64_t> shape(p.dims().begin(), p.dims().end());
  size_t esize = dtypeSize(*dtype);
  std::optional<int64_t> n =
      checkedNumElements(shape, INT64_MAX / static_cast<int64_t>(esize));
  if (!n || !shapeFits(shape)) {
    error = "shape " + shapeToString(shape) +
            " has a negative dim or overflows";
    return false;
  }
  // Refuse absurd sizes before allocating (16 GiB here is far past any model
  // this machine could run).
  if (static_cast<uint64_t>(*n) * esize > (uint64_t(16) << 30)) {
    error = "tensor of shape " + shapeToString(shape) + " is too large";
    return false;
  }
  size_t bytes = static_cast<size_t>(*n) * esize;
  // Every path checks that the data is really there before allocating, so a
  // small file cannot make the importer allocate a huge tensor.
  int64_t pack = packFactor(*dtype);
  if (pack > 1) {
    // Sub-byte types: raw_data, external data and int32_data (one packed
    // byte per int32) all hold ceil(n / pack) bytes.
    size_t packedBytes = static_cast<size_t>((*n + pack - 1) / pack);
    // Sized only once the data is known to be there (dims are free).
    std::vector<uint8_t> packed;
    if (p.data_location() == onnx::TensorProto::EXTERNAL) {
      Tensor raw;
      if (!readExternal(p, modelDir, DType::U8,
                        {static_cast<int64_t>(packedBytes)}, packedBytes, raw,
                        error))
        return false;
      const uint8_t *bytesIn = static_cast<const uint8_t *>(raw.raw());
      packed.assign(bytesIn, bytesIn + packedBytes);
    } else if (p.has_raw_data()) {
      if (p.raw_data().size() != packedBytes) {
        error = "raw_data has " + std::to_string(p.raw_data().size()) +
                " bytes, shape " + shapeToString(shape) + " of " +
                dtypeName(*dtype) + " needs " + std::to_string(packedBytes) +
                " (" + std::to_string(pack) + " values per byte)";
        return false;
      }
      packed.assign(p.raw_data().begin(), p.raw_data().end());
    } else {
      if (static_cast<size_t>(p.int32_data_size()) != packedBytes) {
        error = "has " + std::to_string(p.int32_data_size()) +
                " int32_data values, shape " + shapeToString(shape) + " of " +
                dtypeName(*dtype) + " needs " + std::to_string(packedBytes) +
                " (" + std::to_string(pack) + " values packed per value)";
        return false;
      }
      packed.resize(packedBytes);
      for (size_t k = 0; k < packedBytes; ++k)
        packed[k] = static_cast<uint8_t>(p.int32_data(static_cast<int>(k)));
    }
    out = Tensor(*dtype, shape);
    unpackBits(packed.data(), *n, *dtype, out);
    return true;
  }
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    return readExternal(p, modelDir, *dtype, shape, bytes, out, error);
  if (p.has_raw_data()) {
    if (p.raw_data().size() != bytes) {
      error = "raw_data has " + std::to_string(p.raw_data().size()) +
              " bytes, shape " + shapeToString(shape) + " of " +
              dtypeName(*dtype) + " needs " + std::to_string(bytes);
      return false;
    }
    out = Tensor(*dtype, shape);
    if (bytes)
      std::memcpy(out.raw(), p.raw_data().data(), bytes);
    return true;
  }
  if (auto [field, have] = typedValues(p); have != *n) {
    error = std::string(field) + " has " + std::to_string(have) +
            " values, shape " +
            shapeToString(shape) + " needs " + std::to_string(*n);
    return false;
  }
  out = Tensor(*dtype, shape);
  using TP = onnx::TensorProto;
  switch (p.data_type()) {
  case TP::FLOAT:
    if (bytes)
      std::memcpy(out.raw(), p.float_data().data(), bytes);
    return true;
  case TP::DOUBLE:
    if (bytes)
      std::memcpy(out.raw(), p.double_data().data(), bytes);
    return true;
  case TP::INT64:
    if (bytes)
      std::memcpy(out.raw(), p.int64_data().data(), bytes);
    return true;
  case TP::UINT32:
  case TP::UINT64:
    for (int64_t i = 0; i < *n; ++i) {
      if (*dtype == DType::U32)
        out.data<uint32_t>()[i] = static_cast<uint32_t>(p.uint64_data(i));
      else
        out.data<uint64_t>()[i] = p.uint64_data(i);
    }
    return true;
  default: // int32_data carries int32 and every narrower type (bit pattern)
    for (int64_t i = 0; i < *n; ++i) {
      int32_t v = p.int32_data(i);
      switch (*dtype) {
      case DType::F16:
      case DType::BF16:
      case DType::U16: out.data<uint16_t>()[i] = static_cast<uint16_t>(v); break;
      case DType::I16: out.data<int16_t>()[i] = static_cast<int16_t>(v); break;
      case DType::I8: out.data<int8_t>()[i] = static_cast<int8_t>(v); break;
      case DType::U8:
      case DType::F8E4M3FN:
      case DType::F8E4M3FNUZ:
      case DType::F8E5M2:
      case DType::F8E5M2FNUZ:
      case DType::F8E8M0FNU:
        out.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        break;
      case DType::Bool: out.data<uint8_t>()[i] = v != 0; break;
      default: out.data<int32_t>()[i] = v; break;
      }
    }
    return true;
  }
}

} // namespace strata::onnx_import
