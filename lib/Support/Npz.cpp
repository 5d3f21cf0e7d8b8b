//===- Npz.cpp - numpy .npy / .npz reading and writing --------------------===//

#include "strata/Support/Npz.h"

#include <zip.h>

#include <cstdio>
#include <cstring>
#include <sstream>

namespace strata {

void TensorMap::set(const std::string &name, Tensor t) {
  for (auto &[n, v] : entries)
    if (n == name) {
      v = std::move(t);
      return;
    }
  entries.emplace_back(name, std::move(t));
}

const Tensor *TensorMap::find(const std::string &name) const {
  for (const auto &[n, v] : entries)
    if (n == name)
      return &v;
  return nullptr;
}

namespace {
struct DescrEntry {
  const char *descr;
  DType type;
};
// numpy writes '|' for one-byte types and '<' for little-endian others.
const DescrEntry kDescrs[] = {
    {"|b1", DType::Bool}, {"|i1", DType::I8},  {"|u1", DType::U8},
    {"<i2", DType::I16},  {"<u2", DType::U16}, {"<i4", DType::I32},
    {"<u4", DType::U32},  {"<i8", DType::I64}, {"<u8", DType::U64},
    {"<f2", DType::F16},  {"<f4", DType::F32}, {"<f8", DType::F64},
    // Types numpy itself lacks are named as ml_dtypes names them; numpy reads
    // such a header back once ml_dtypes is imported (np.dtype("int4")).
    // int4/int2 hold one value per byte (sign- or zero-extended), the small
    // floats their bit pattern: ml_dtypes' in-memory layout.
    {"bfloat16", DType::BF16},
    {"int4", DType::I4}, {"uint4", DType::U4}, {"int2", DType::I2},
    {"uint2", DType::U2}, {"float8_e4m3fn", DType::F8E4M3FN},
    {"float8_e4m3fnuz", DType::F8E4M3FNUZ}, {"float8_e5m2", DType::F8E5M2},
    {"float8_e5m2fnuz", DType::F8E5M2FNUZ},
    {"float4_e2m1fn", DType::F4E2M1FN},
    {"float8_e8m0fnu", DType::F8E8M0FNU},
};

/// Finds `'key':` in the header dict and returns the position after the colon.
size_t findKey(const std::string &header, const char *key) {
  std::string quoted1 = std::string("'") + key + "'";
  size_t p = header.find(quoted1);
  if (p == std::string::npos)
    return p;
  p = header.find(':', p + quoted1.size());
  return p == std::string::npos ? p : p + 1;
}

void skipSpaces(const std::string &s, size_t &p) {
  while (p < s.size() && (s[p] == ' ' || s[p] == '\t'))
    ++p;
}
} // namespace

bool parseNpy(const uint8_t *data, size_t size, Tensor &out,
              std::string &error) {
  static const char magic[] = "\x93NUMPY";
  if (size < 10 || std::memcmp(data, magic, 6) != 0) {
    error = "not a .npy array (bad magic)";
    return false;
  }
  uint8_t major = data[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = data[8] | (data[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      error = "truncated .npy header";
      return false;
    }
    headerLen = static_cast<size_t>(data[8]) | (static_cast<size_t>(data[9]) << 8) |
                (static_cast<size_t>(data[10]) << 16) |
                (static_cast<size_t>(data[11]) << 24);
    headerStart = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (headerLen > size - headerStart) {
    error = "truncated .npy header";
    return false;
  }
  std::string header(reinterpret_cast<const char *>(data + headerStart),
                     headerLen);

  // descr
  size_t p = findKey(header, "descr");
  if (p == std::string::npos) {
    error = "npy header has no 'descr'";
    return false;
  }
  skipSpaces(header, p);
  size_t q = p < header.size() ? header.find(header[p], p + 1) : std::string::npos;
  if (p >= header.size() || (header[p] != '\'' && header[p] != '"') ||
      q == std::string::npos) {
    error = "npy header has a malformed 'descr'";
    return false;
  }
  std::string descr = header.substr(p + 1, q - p - 1);
  if (descr.size() == 3 && descr[0] == '=')
    descr[0] = '<'; // native order is little-endian here
  if (descr == "<b1" || descr == "=b1")
    descr = "|b1";
  if (descr == "<i1")
    descr = "|i1";
  if (descr == "<u1")
    descr = "|u1";
  std::optional<DType> type;
  for (const DescrEntry &e : kDescrs)
    if (descr == e.descr)
      type = e.type;
  if (!type) {
    error = "unsupported npy dtype '" + descr + "'";
    if ((descr.size() >= 2 && descr[1] == 'V') || descr == "<f1")
      error += " (numpy saves ml_dtypes arrays such as bfloat16 or "
               "float8_e4m3fn without their type: write the header's 'descr' "
               "as the ml_dtypes name, see docs/cli.md)";
    return false;
  }

  // fortran_order
  p = findKey(header, "fortran_order");
  if (p == std::string::npos) {
    error = "npy header has no 'fortran_order'";
    return false;
  }
  skipSpaces(header, p);
  if (header.compare(p, 4, "True") == 0) {
    error = "fortran-ordered npy arrays are not supported";
    return false;
  }
  if (header.compare(p, 5, "False") != 0) {
    error = "npy header has a malformed 'fortran_order'";
    return false;
  }

  // shape
  p = findKey(header, "shape");
  if (p == std::string::npos) {
    error = "npy header has no 'shape'";
    return false;
  }
  skipSpaces(header, p);
  size_t close = header.find(')', p);
  if (p >= header.size() || header[p] != '(' || close == std::string::npos) {
    error = "npy header has a malformed 'shape'";
    return false;
  }
  std::vector<int64_t> shape;
  std::string dims = header.substr(p + 1, close - p - 1);
  size_t i = 0;
  while (i < dims.size()) {
    while (i < dims.size() && (dims[i] == ' ' || dims[i] == ','))
      ++i;
    if (i >= dims.size())
      break;
    size_t j = i;
    while (j < dims.size() && dims[j] >= '0' && dims[j] <= '9')
      ++j;
    if (j == i) {
      error = "npy header has a malformed dimension in 'shape'";
      return false;
    }
    int64_t dim = 0;
    for (size_t k = i; k < j; ++k) {
      int digit = dims[k] - '0';
      if (dim > (INT64_MAX - digit) / 10) {
        error = "npy shape dimension " + dims.substr(i, j - i) +
                " overflows int64";
        return false;
      }
      dim = dim * 10 + digit;
    }
    shape.push_back(dim);
    i = j;
    while (i < dims.size() && dims[i] == 'L') // python 2 longs
      ++i;
  }
  size_t elemSize = dtypeSize(*type);
  std::optional<int64_t> n =
      checkedNumElements(shape, INT64_MAX / static_cast<int64_t>(elemSize));
  if (!n) {
    error = "npy shape " + shapeToString(shape) + " overflows";
    return false;
  }
  size_t payload = static_cast<size_t>(*n) * elemSize;
  size_t avail = size - headerStart - headerLen;
  if (payload != avail) {
    std::ostringstream os;
    os << "npy data size mismatch: shape " << shapeToString(shape) << " of "
       << dtypeName(*type) << " needs " << payload << " bytes, file has "
       << avail;
    error = os.str();
    return false;
  }
  out = Tensor(*type, shape);
  if (payload)
    std::memcpy(out.raw(), data + headerStart + headerLen, payload);
  // ml_dtypes reads only the low bits of an int4/int2 byte; normalize to the
  // extended value Strata computes with.
  if (intBitWidth(*type) == 2 || intBitWidth(*type) == 4)
    for (int64_t k = 0; k < *n; ++k) {
      int64_t v = wrapToNarrowInt(*type, out.data<uint8_t>()[k]);
      out.data<uint8_t>()[k] = static_cast<uint8_t>(v);
    }
  return true;
}

std::string serializeNpy(const Tensor &t) {
  const char *descr = "<f4";
  for (const DescrEntry &e : kDescrs)
    if (e.type == t.dtype())
      descr = e.descr;
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.shape().size(); ++i)
    dict << t.shape()[i] << (t.shape().size() == 1 ? "," : (i + 1 < t.shape().size() ? ", " : ""));
  dict << "), }";
  std::string header = dict.str();
  // Pad with spaces so data starts on a 64-byte boundary, ending in '\n'.
  size_t total = 10 + header.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  header.append(pad, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  out += header;
  out.append(static_cast<const char *>(t.raw()), t.byteSize());
  return out;
}

bool readNpz(const std::string &path, TensorMap &out, std::string &error) {
  int err = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_RDONLY, &err);
  if (!archive) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    error = "cannot open npz '" + path + "': " + zip_error_strerror(&ze);
    zip_error_fini(&ze);
    return false;
  }
  zip_int64_t count = zip_get_num_entries(archive, 0);
  bool ok = true;
  for (zip_int64_t i = 0; ok && i < count; ++i) {
    zip_stat_t st;
    if (zip_stat_index(archive, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) ||
        !(st.valid & ZIP_STAT_NAME)) {
      error = "npz '" + path + "': cannot stat member " + std::to_string(i);
      ok = false;
      break;
    }
    std::string name = st.name;
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy") != 0) {
      error = "npz '" + path + "': member '" + name + "' is not a .npy file";
      ok = false;
      break;
    }
    name.resize(name.size() - 4);
    std::vector<uint8_t> buf(st.size);
    zip_file_t *f = zip_fopen_index(archive, i, 0);
    zip_int64_t got = f ? zip_fread(f, buf.data(), st.size) : -1;
    if (f)
      zip_fclose(f);
    if (got < 0 || static_cast<zip_uint64_t>(got) != st.size) {
      error = "npz '" + path + "': cannot read member '" + name + "'";
      ok = false;
      break;
    }
    Tensor t;
    std::string npyError;
    if (!parseNpy(buf.data(), buf.size(), t, npyError)) {
      error = "npz '" + path + "': array '" + name + "': " + npyError;
      ok = false;
      break;
    }
    out.set(name, std::move(t));
  }
  zip_discard(archive);
  return ok;
}

/// Writes an empty zip archive: just the end-of-central-directory record.
/// (libzip removes an archive with no members instead of writing it, but an
/// empty npz is a valid file numpy.load reads.)
static bool writeEmptyZip(const std::string &path, std::string &error) {
  static const unsigned char eocd[22] = {0x50, 0x4b, 0x05, 0x06};
  std::string tmp = path + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "wb");
  bool ok = f && std::fwrite(eocd, 1, sizeof(eocd), f) == sizeof(eocd);
  if (f)
    ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    error = "cannot write npz '" + path + "'";
    return false;
  }
  return true;
}

bool writeNpz(const std::string &path, const TensorMap &arrays,
              std::string &error) {
  if (arrays.size() == 0)
    return writeEmptyZip(path, error);
  int err = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (!archive) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    error = "cannot create npz '" + path + "': " + zip_error_strerror(&ze);
    zip_error_fini(&ze);
    return false;
  }
  for (const auto &[name, tensor] : arrays) {
    std::string blob = serializeNpy(tensor);
    void *copy = std::malloc(blob.size() ? blob.size() : 1);
    std::memcpy(copy, blob.data(), blob.size());
    zip_source_t *src = zip_source_buffer(archive, copy, blob.size(), 1);
    if (!src) {
      std::free(copy);
      error = "npz '" + path + "': " + zip_strerror(archive);
      zip_discard(archive);
      return false;
    }
    zip_int64_t idx =
        zip_file_add(archive, (name + ".npy").c_str(), src, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
      zip_source_free(src);
      error = "npz '" + path + "': cannot add '" + name +
              "': " + zip_strerror(archive);
      zip_discard(archive);
      return false;
    }
    zip_set_file_compression(archive, idx, ZIP_CM_STORE, 0);
  }
  if (zip_close(archive) != 0) {
    error = "cannot write npz '" + path + "': " + zip_strerror(archive);
    zip_discard(archive);
    return false;
  }
  return true;
}

} // namespace strata
