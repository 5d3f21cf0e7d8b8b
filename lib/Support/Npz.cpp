//===- Npz.cpp - numpy .npy / .npz reading and writing --------------------===//

#include "strata/Support/Npz.h"
#include "strata/Support/InputFile.h"
#include "strata/Support/Limits.h"

#include <zip.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <sys/stat.h>

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

/// Reverses the byte order of every element of `t` (a big-endian array).
void swapBytes(Tensor &t) {
  size_t esize = dtypeSize(t.dtype());
  uint8_t *p = t.data<uint8_t>();
  for (int64_t i = 0; i < t.numElements(); ++i, p += esize)
    for (size_t a = 0, b = esize - 1; a < b; ++a, --b)
      std::swap(p[a], p[b]);
}

/// The transpose of `t` that reverses its dims: out[i0..ik] = t[ik..i0].
Tensor reverseDims(const Tensor &t) {
  std::vector<int64_t> shape(t.shape().rbegin(), t.shape().rend());
  Tensor out(t.dtype(), shape);
  size_t esize = dtypeSize(t.dtype());
  std::vector<int64_t> inStrides = t.strides();
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  const uint8_t *src = t.data<uint8_t>();
  uint8_t *dst = out.data<uint8_t>();
  for (int64_t flat = 0; flat < out.numElements(); ++flat) {
    int64_t from = 0;
    for (size_t d = 0; d < rank; ++d)
      from += index[d] * inStrides[rank - 1 - d];
    std::memcpy(dst + flat * esize, src + from * esize, esize);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
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
  if (p < header.size() && header[p] == '[') {
    error = "holds a structured array (a list 'descr'); Strata reads plain "
            "numeric arrays only";
    return false;
  }
  if (p >= header.size() || (header[p] != '\'' && header[p] != '"') ||
      q == std::string::npos) {
    error = "npy header has a malformed 'descr'";
    return false;
  }
  std::string descr = header.substr(p + 1, q - p - 1);
  if (descr.size() == 3 && descr[0] == '=')
    descr[0] = '<'; // native order is little-endian here
  // Big-endian arrays are read and byte-swapped to the host's order.
  bool bigEndian = descr.size() == 3 && descr[0] == '>';
  if (bigEndian)
    descr[0] = descr[2] == '1' ? '|' : '<';
  if (descr.size() >= 2 && descr[1] == 'O') {
    error = "holds Python objects (npy dtype '" + descr +
            "', stored as a pickle); Strata reads numeric arrays only and "
            "never unpickles";
    return false;
  }
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
  bool fortranOrder = header.compare(p, 4, "True") == 0;
  if (!fortranOrder && header.compare(p, 5, "False") != 0) {
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
  // A fortran-ordered array is the row-major array of the reversed shape,
  // transposed.
  std::vector<int64_t> stored(shape.rbegin(), shape.rend());
  out = Tensor(*type, fortranOrder ? stored : shape);
  if (payload)
    std::memcpy(out.raw(), data + headerStart + headerLen, payload);
  if (bigEndian)
    swapBytes(out);
  if (fortranOrder && shape.size() > 1)
    out = reverseDims(out);
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

/// Zstandard's zip method id (APPNOTE 6.3.8; this libzip has no macro).
static constexpr zip_int32_t kZipMethodZstd = 93;

/// The name of zip compression method `method`, for messages.
static std::string compressionName(zip_int32_t method) {
  switch (method) {
  case ZIP_CM_BZIP2: return "bzip2";
  case ZIP_CM_LZMA: return "LZMA";
  case ZIP_CM_LZMA2: return "LZMA2";
  case ZIP_CM_XZ: return "XZ";
  case kZipMethodZstd: return "zstd";
  default: return "method " + std::to_string(method);
  }
}

/// Deflate expands at most 1032-fold; a member declaring more is corrupt.
static constexpr uint64_t kMaxDeflateRatio = 1032;

/// Reads member `index` of `archive` (described by `st`) into `buf`. The
/// sizes its header declares are untrusted: they are checked against the
/// archive's real size and the file limit first, and the buffer grows only
/// with data actually decompressed. On failure returns false with `error`
/// (without the "npz '<path>': " prefix).
static bool readMember(zip_t *archive, zip_int64_t index, const zip_stat_t &st,
                       uint64_t archiveBytes, std::vector<uint8_t> &buf,
                       std::string &error) {
  std::string member = std::string("member '") + st.name + "'";
  if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) &&
      st.encryption_method != ZIP_EM_NONE) {
    error = member + " is encrypted";
    return false;
  }
  zip_int32_t method =
      (st.valid & ZIP_STAT_COMP_METHOD) ? st.comp_method : ZIP_CM_STORE;
  if (method != ZIP_CM_STORE && method != ZIP_CM_DEFLATE) {
    error = member + " is compressed with " + compressionName(method) +
            "; Strata reads stored and deflate members (what numpy.savez "
            "and numpy.savez_compressed write)";
    return false;
  }
  uint64_t compressed = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
  uint64_t limit = limits().maxFileBytes;
  if (compressed > archiveBytes ||
      (method == ZIP_CM_STORE && st.size != compressed) ||
      (method == ZIP_CM_DEFLATE &&
       st.size / kMaxDeflateRatio > compressed + 1)) {
    error = member + " declares " + std::to_string(st.size) +
            " bytes from " + std::to_string(compressed) +
            " compressed bytes in a " + std::to_string(archiveBytes) +
            "-byte archive: the archive is corrupt";
    return false;
  }
  if (st.size > limit) {
    error = member + " is " + formatBytes(st.size) +
            " uncompressed, over the limit of " + formatBytes(limit) +
            " (--max-file-size raises it)";
    return false;
  }
  zip_file_t *f = zip_fopen_index(archive, index, 0);
  if (!f) {
    error = "cannot open " + member + ": " + zip_strerror(archive);
    return false;
  }
  constexpr uint64_t kChunk = uint64_t(1) << 24;
  buf.clear();
  bool ok = true;
  while (ok) {
    size_t have = buf.size();
    uint64_t want = std::min<uint64_t>(kChunk, st.size - have + 1);
    buf.resize(have + want);
    zip_int64_t got = zip_fread(f, buf.data() + have, want);
    if (got < 0) {
      error = "cannot read " + member + ": " + zip_file_strerror(f);
      ok = false;
      break;
    }
    buf.resize(have + static_cast<size_t>(got));
    if (got == 0 || buf.size() > st.size)
      break;
  }
  zip_fclose(f);
  if (ok && buf.size() != st.size) {
    error = member + " holds " + std::to_string(buf.size()) +
            " bytes but its header declares " + std::to_string(st.size);
    ok = false;
  }
  return ok;
}

bool readNpz(const std::string &path, TensorMap &out, std::string &error) {
  InputFile file;
  if (!file.open(path, "npz", error))
    return false;
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *source =
      zip_source_buffer_create(file.data(), file.size(), 0, &ze);
  zip_t *archive = source ? zip_open_from_source(source, ZIP_RDONLY, &ze)
                          : nullptr;
  if (!archive) {
    error = "cannot open npz '" + path +
            "': not a readable zip archive (libzip: " +
            zip_error_strerror(&ze) + ")";
    zip_error_fini(&ze);
    if (source)
      zip_source_free(source);
    return false;
  }
  zip_error_fini(&ze);
  zip_int64_t count = zip_get_num_entries(archive, 0);
  bool ok = true;
  std::vector<uint8_t> buf;
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
    std::string memberError;
    if (!readMember(archive, i, st, file.size(), buf, memberError)) {
      error = "npz '" + path + "': " + memberError;
      ok = false;
      break;
    }
    name.resize(name.size() - 4);
    Tensor t;
    std::string npyError;
    if (!parseNpy(buf.data(), buf.size(), t, npyError)) {
      error = "npz '" + path + "': array '" + name + "': " + npyError;
      ok = false;
      break;
    }
    out.set(name, std::move(t));
  }
  zip_discard(archive); // also frees the source
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
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    error = "cannot write npz '" + path + "': it is a folder, not a file";
    return false;
  }
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
