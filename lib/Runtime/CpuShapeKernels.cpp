//===- CpuShapeKernels.cpp - Kernels whose result shape depends on values ===//
//
// The cpu driver's kernels for the ops whose result shape is decided at run
// time (format 1.2 runtime shapes, docs/artifact.md): each writes its results
// compactly, row-major in their actual shapes, at the start of buffers sized
// by a compile-time bound, and the actual dims (int64) into a dims binding per
// result; the session checks the dims against the bounds after the dispatch.
// A kernel never writes past a bound: when a result would not fit, it writes
// only the dims, which the session then reports.
//
// nonzero: bindings (x, out [rank, bound] i64, out_dims [2] i64);
//          params (dtype, rank, d0..d7).
// unique:  bindings (x, y, indices, inverse_indices, counts, y_dims [rank],
//          indices_dims [1], counts_dims [1]); params (dtype, sorted, axis,
//          rank, d0..d7): the distinct slices of x along axis (flatten x
//          first for Unique without axis).
// nms:     bindings (boxes, scores, max_output, iou, score_threshold, out
//          [capacity, 3] i64, out_dims [2] i64); params (boxes dtype, scores
//          dtype, max dtype, iou dtype, score dtype, batches, boxes per
//          batch, classes, center_point_box, has max, has iou, has score,
//          capacity). An absent optional is flagged 0 (its binding unread).
// range:   bindings (start, limit, delta, out [capacity], out_dims [1]);
//          params (dtype, capacity).
//
// Each computes what the reference interpreter computes for its Top op
// (lib/Dialect/Top/IR/DataDependentOps.cpp); the numeric tests compare them
// with numpy.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "strata/Runtime/strata_runtime.h"
#include "strata/Support/FloatBits.h"
#include "strata/Support/NmsBoxes.h"
#include "strata/Support/UniqueSlices.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

namespace strata::runtime::hal {

namespace {

// The params name dtypes by their strata_dtype numbers.
constexpr int64_t F32 = STRATA_DTYPE_F32, F16 = STRATA_DTYPE_F16,
                  BF16 = STRATA_DTYPE_BF16, F64 = STRATA_DTYPE_F64,
                  I8 = STRATA_DTYPE_I8, U8 = STRATA_DTYPE_U8,
                  I16 = STRATA_DTYPE_I16, U16 = STRATA_DTYPE_U16,
                  I32 = STRATA_DTYPE_I32, U32 = STRATA_DTYPE_U32,
                  I64 = STRATA_DTYPE_I64, U64 = STRATA_DTYPE_U64,
                  Bool = STRATA_DTYPE_BOOL, I4 = STRATA_DTYPE_I4,
                  U4 = STRATA_DTYPE_U4, I2 = STRATA_DTYPE_I2,
                  U2 = STRATA_DTYPE_U2;

constexpr int64_t kMaxKernelRank = 8;

/// Bytes per element of the dtypes these kernels read; 0 for the others.
uint64_t elemSize(int64_t dtype) {
  switch (dtype) {
  case F64:
  case I64:
  case U64:
    return 8;
  case F32:
  case I32:
  case U32:
    return 4;
  case F16:
  case BF16:
  case I16:
  case U16:
    return 2;
  case I8:
  case U8:
  case Bool:
  case I4:
  case U4:
  case I2:
  case U2:
    return 1;
  default:
    return 0;
  }
}

/// Element `i` of a buffer of `dtype` as a double (64-bit integers beyond
/// 2^53 round, as the interpreter's getAsDouble does). The 4/2-bit integers
/// are stored zero-extended inside the artifact.
double readDouble(int64_t dtype, const void *p, int64_t i) {
  const uint8_t *b = static_cast<const uint8_t *>(p);
  switch (dtype) {
  case F32: {
    float v;
    std::memcpy(&v, b + i * 4, 4);
    return v;
  }
  case F64: {
    double v;
    std::memcpy(&v, b + i * 8, 8);
    return v;
  }
  case F16: {
    uint16_t v;
    std::memcpy(&v, b + i * 2, 2);
    return halfToFloat(v);
  }
  case BF16: {
    uint16_t v;
    std::memcpy(&v, b + i * 2, 2);
    return bf16ToFloat(v);
  }
  case I8:
    return int8_t(b[i]);
  case U8:
    return b[i];
  case Bool:
    return b[i] != 0;
  case I4:
    return int((b[i] & 0xf) ^ 0x8) - 0x8;
  case U4:
    return b[i] & 0xf;
  case I2:
    return int((b[i] & 0x3) ^ 0x2) - 0x2;
  case U2:
    return b[i] & 0x3;
  case I16: {
    int16_t v;
    std::memcpy(&v, b + i * 2, 2);
    return v;
  }
  case U16: {
    uint16_t v;
    std::memcpy(&v, b + i * 2, 2);
    return v;
  }
  case I32: {
    int32_t v;
    std::memcpy(&v, b + i * 4, 4);
    return v;
  }
  case U32: {
    uint32_t v;
    std::memcpy(&v, b + i * 4, 4);
    return v;
  }
  case I64: {
    int64_t v;
    std::memcpy(&v, b + i * 8, 8);
    return double(v);
  }
  case U64: {
    uint64_t v;
    std::memcpy(&v, b + i * 8, 8);
    return double(v);
  }
  default:
    return 0;
  }
}

/// Element 0 of an integer buffer, exactly.
int64_t readInt(int64_t dtype, const void *p) {
  if (dtype == I64 || dtype == U64) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  return int64_t(readDouble(dtype, p, 0));
}

bool isFloatDType(int64_t d) {
  return d == F32 || d == F64 || d == F16 || d == BF16;
}

/// The shape params (rank, d0..d7) at `p`: rank in [0, 8], dims >= 0, the
/// element count without overflow.
bool shapeParams(const int64_t *p, int64_t &numel, std::string &error) {
  int64_t rank = p[0];
  if (rank < 0 || rank > kMaxKernelRank) {
    error = "rank " + std::to_string(rank) + " is not in [0, " +
            std::to_string(kMaxKernelRank) + "]";
    return false;
  }
  numel = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (p[1 + d] < 0 || __builtin_mul_overflow(numel, p[1 + d], &numel)) {
      error = "dim " + std::to_string(d) +
              " is negative or the element "
              "count overflows";
      return false;
    }
  return true;
}

bool knownInput(const std::vector<BufferInfo> &b, size_t i, int64_t dtype,
                std::string &error) {
  if (elemSize(dtype) == 0 || b[i].dtype != dtype) {
    error = "binding " + std::to_string(i) + " has dtype " +
            std::to_string(b[i].dtype) + ", the params say " +
            std::to_string(dtype) + " (or the kernel does not read it)";
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// nonzero
//===----------------------------------------------------------------------===//

int nonzeroKernel(void *const *bindings, const int64_t *params, int64_t,
                  int64_t) {
  int64_t dtype = params[0], rank = params[1];
  const int64_t *dims = params + 2;
  int64_t numel = 1;
  for (int64_t d = 0; d < rank; ++d)
    numel *= dims[d];
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < numel; ++i)
    if (readDouble(dtype, bindings[0], i) != 0.0) // NaN counts
      hits.push_back(i);
  int64_t n = hits.size();
  int64_t *out = static_cast<int64_t *>(bindings[1]);
  for (int64_t j = 0; j < n; ++j) {
    int64_t rest = hits[j];
    for (int64_t d = rank - 1; d >= 0; --d) {
      out[d * n + j] = rest % dims[d];
      rest /= dims[d];
    }
  }
  int64_t shape[2] = {rank, n};
  std::memcpy(bindings[2], shape, sizeof shape);
  return 0;
}

bool nonzeroCheck(const std::vector<BufferInfo> &b,
                  const std::vector<int64_t> &p, std::string &error) {
  int64_t numel, bound;
  if (!knownInput(b, 0, p[0], error) || !shapeParams(&p[1], numel, error))
    return false;
  if (__builtin_mul_overflow(numel, p[1], &bound)) {
    error = "the result's bound overflows";
    return false;
  }
  return needBytes(b, 0, numel, elemSize(p[0]), "x", error) &&
         needBytes(b, 1, bound, 8, "out", error) &&
         needBytes(b, 2, 2, 8, "out_dims", error);
}

//===----------------------------------------------------------------------===//
// unique
//===----------------------------------------------------------------------===//

int uniqueKernel(void *const *bindings, const int64_t *params, int64_t,
                 int64_t) {
  int64_t dtype = params[0], rank = params[3], axis = params[2];
  bool sorted = params[1] != 0;
  const int64_t *shape = params + 4;
  int64_t dim = shape[axis], outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (d < axis)
      outer *= shape[d];
    else if (d > axis)
      inner *= shape[d];
  unique::Slices found =
      unique::findSlices(outer, dim, inner, sorted, [&](int64_t i) {
        return readDouble(dtype, bindings[0], i);
      });
  const std::vector<int64_t> &order = found.order;
  int64_t u = order.size();
  uint64_t size = elemSize(dtype);
  const uint8_t *x = static_cast<const uint8_t *>(bindings[0]);
  uint8_t *y = static_cast<uint8_t *>(bindings[1]);
  int64_t *first = static_cast<int64_t *>(bindings[2]);
  int64_t *inverse = static_cast<int64_t *>(bindings[3]);
  int64_t *counts = static_cast<int64_t *>(bindings[4]);
  for (int64_t r = 0; r < u; ++r) {
    first[r] = order[r];
    counts[r] = found.counts[r];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y + (o * u + r) * inner * size,
                  x + (o * dim + order[r]) * inner * size, inner * size);
  }
  std::copy(found.inverse.begin(), found.inverse.end(), inverse);
  int64_t *yDims = static_cast<int64_t *>(bindings[5]);
  for (int64_t d = 0; d < rank; ++d)
    yDims[d] = d == axis ? u : shape[d];
  std::memcpy(bindings[6], &u, 8);
  std::memcpy(bindings[7], &u, 8);
  return 0;
}

bool uniqueCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  int64_t numel;
  if (!knownInput(b, 0, p[0], error) || !shapeParams(&p[3], numel, error))
    return false;
  int64_t rank = p[3], axis = p[2];
  if (rank < 1 || axis < 0 || axis >= rank) {
    error = "axis " + std::to_string(axis) + " is not in [0, rank " +
            std::to_string(rank) + ")";
    return false;
  }
  int64_t dim = p[4 + axis];
  return needBytes(b, 0, numel, elemSize(p[0]), "x", error) &&
         needBytes(b, 1, numel, elemSize(p[0]), "y", error) &&
         needBytes(b, 2, dim, 8, "indices", error) &&
         needBytes(b, 3, dim, 8, "inverse_indices", error) &&
         needBytes(b, 4, dim, 8, "counts", error) &&
         needBytes(b, 5, rank, 8, "y_dims", error) &&
         needBytes(b, 6, 1, 8, "indices_dims", error) &&
         needBytes(b, 7, 1, 8, "counts_dims", error);
}

//===----------------------------------------------------------------------===//
// nms
//===----------------------------------------------------------------------===//

using nms::Box;
using nms::suppresses;

Box readBox(int64_t dtype, const void *boxes, int64_t at, bool centerPoint) {
  double v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = readDouble(dtype, boxes, at * 4 + k);
  return nms::makeBox(v, centerPoint);
}

int nmsKernel(void *const *bindings, const int64_t *params, int64_t, int64_t) {
  int64_t boxesType = params[0], scoresType = params[1];
  int64_t batches = params[5], n = params[6], classes = params[7];
  bool centerPoint = params[8] == 1;
  int64_t capacity = params[12];
  int64_t maxOut = 0;
  double iou = 0, scoreMin = 0;
  bool filter = params[11] != 0;
  if (params[9])
    maxOut = std::max<int64_t>(readInt(params[2], bindings[2]), 0);
  if (params[10])
    iou = readDouble(params[3], bindings[3], 0);
  if (filter)
    scoreMin = readDouble(params[4], bindings[4], 0);
  int64_t *out = static_cast<int64_t *>(bindings[5]);
  int64_t rows = 0;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      int64_t base = (b * classes + c) * n;
      auto score = [&](int64_t i) {
        double v = readDouble(scoresType, bindings[1], base + i);
        return std::isnan(v) ? -INFINITY : v;
      };
      std::vector<int64_t> candidates;
      for (int64_t i = 0; i < n; ++i)
        if (!filter || readDouble(scoresType, bindings[1], base + i) > scoreMin)
          candidates.push_back(i);
      std::sort(candidates.begin(), candidates.end(),
                [&](int64_t x, int64_t y) {
                  double sx = score(x), sy = score(y);
                  return sx > sy || (sx == sy && x < y);
                });
      std::vector<Box> selected;
      for (int64_t i : candidates) {
        if (int64_t(selected.size()) >= maxOut)
          break;
        Box box = readBox(boxesType, bindings[0], b * n + i, centerPoint);
        if (std::any_of(selected.begin(), selected.end(),
                        [&](const Box &s) { return suppresses(box, s, iou); }))
          continue;
        selected.push_back(box);
        if (rows < capacity) { // else only counted: the session reports it
          out[rows * 3] = b;
          out[rows * 3 + 1] = c;
          out[rows * 3 + 2] = i;
        }
        ++rows;
      }
    }
  int64_t shape[2] = {rows, 3};
  std::memcpy(bindings[6], shape, sizeof shape);
  return 0;
}

bool nmsCheck(const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
              std::string &error) {
  int64_t batches = p[5], n = p[6], classes = p[7], capacity = p[12];
  int64_t boxes, scores, rows;
  if (!isFloatDType(p[0]) || !isFloatDType(p[1])) {
    error = "boxes and scores must be floats";
    return false;
  }
  if (!knownInput(b, 0, p[0], error) || !knownInput(b, 1, p[1], error))
    return false;
  if (batches < 0 || n < 0 || classes < 0 || capacity < 0 ||
      __builtin_mul_overflow(batches, n, &boxes) ||
      __builtin_mul_overflow(boxes, int64_t(4), &boxes) ||
      __builtin_mul_overflow(batches, classes, &scores) ||
      __builtin_mul_overflow(scores, n, &scores) ||
      __builtin_mul_overflow(capacity, int64_t(3), &rows)) {
    error = "batches, boxes, classes or capacity are negative or overflow";
    return false;
  }
  if (p[8] != 0 && p[8] != 1) {
    error = "center_point_box " + std::to_string(p[8]) + " is not 0 or 1";
    return false;
  }
  for (int k = 0; k < 3; ++k)
    if (p[9 + k] &&
        (!knownInput(b, 2 + k, p[2 + k], error) ||
         !needBytes(b, 2 + k, 1, elemSize(p[2 + k]), "scalar operand", error)))
      return false;
  return needBytes(b, 0, boxes, elemSize(p[0]), "boxes", error) &&
         needBytes(b, 1, scores, elemSize(p[1]), "scores", error) &&
         needBytes(b, 5, rows, 8, "out", error) &&
         needBytes(b, 6, 2, 8, "out_dims", error);
}

//===----------------------------------------------------------------------===//
// range
//===----------------------------------------------------------------------===//

/// Kernel return codes with a meaning (cpuKernelErrorText).
constexpr int kRangeDeltaZero = 2;

void writeElement(int64_t dtype, void *out, int64_t k, double f, uint64_t i) {
  uint8_t *b = static_cast<uint8_t *>(out);
  switch (dtype) {
  case F32: {
    float v = float(f);
    std::memcpy(b + k * 4, &v, 4);
    return;
  }
  case F64:
    std::memcpy(b + k * 8, &f, 8);
    return;
  case I8:
  case U8:
    b[k] = uint8_t(i);
    return;
  case I16:
  case U16: {
    uint16_t v = uint16_t(i);
    std::memcpy(b + k * 2, &v, 2);
    return;
  }
  case I32:
  case U32: {
    uint32_t v = uint32_t(i);
    std::memcpy(b + k * 4, &v, 4);
    return;
  }
  default:
    std::memcpy(b + k * 8, &i, 8);
    return;
  }
}

int rangeKernel(void *const *bindings, const int64_t *params, int64_t,
                int64_t) {
  int64_t dtype = params[0], capacity = params[1];
  int64_t count;
  bool isFloat = dtype == F32 || dtype == F64;
  if (isFloat) {
    double start = readDouble(dtype, bindings[0], 0);
    double d = readDouble(dtype, bindings[2], 0);
    if (d == 0.0)
      return kRangeDeltaZero;
    double c = std::ceil((readDouble(dtype, bindings[1], 0) - start) / d);
    // NaN fails both tests: reported as over the bound.
    count = c > 0 ? (c < 9.2e18 ? int64_t(c) : INT64_MAX)
                  : (c <= 0 ? 0 : INT64_MAX);
    // Each element the previous one plus delta, rounded to the type (the
    // accumulation of ONNX's function body, as the interpreter does).
    double v = start;
    for (int64_t k = 0; k < count && k < capacity; ++k) {
      if (k)
        v = dtype == F32 ? double(float(v + d)) : v + d;
      else
        v = dtype == F32 ? double(float(v)) : v;
      writeElement(dtype, bindings[3], k, v, 0);
    }
  } else {
    // Exactly in integers: ceil((limit - start) / delta) with 128 bits.
    __int128 start = readInt(dtype, bindings[0]);
    __int128 limit = readInt(dtype, bindings[1]);
    __int128 d = readInt(dtype, bindings[2]);
    if (dtype == U64 || dtype == U32 || dtype == U16 || dtype == U8) {
      // (Unsigned bounds: reread without the sign.)
      uint64_t s, l, dd;
      s = uint64_t(readInt(dtype, bindings[0]));
      l = uint64_t(readInt(dtype, bindings[1]));
      dd = uint64_t(readInt(dtype, bindings[2]));
      start = s;
      limit = l;
      d = dd;
    }
    if (d == 0)
      return kRangeDeltaZero;
    __int128 diff = limit - start;
    __int128 q = diff / d;
    if ((diff % d != 0) && ((diff > 0) == (d > 0)))
      ++q;
    count = q <= 0 ? 0 : (q > INT64_MAX ? INT64_MAX : int64_t(q));
    uint64_t v = uint64_t(int64_t(start)), step = uint64_t(int64_t(d));
    for (int64_t k = 0; k < count && k < capacity; ++k, v += step)
      writeElement(dtype, bindings[3], k, 0, v);
  }
  std::memcpy(bindings[4], &count, 8);
  return 0;
}

bool rangeCheck(const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
                std::string &error) {
  int64_t dtype = p[0];
  if (dtype == F16 || dtype == BF16 || dtype == Bool || dtype == I4 ||
      dtype == U4 || dtype == I2 || dtype == U2) {
    error = "dtype " + std::to_string(dtype) + " is not computed";
    return false;
  }
  for (size_t i = 0; i < 3; ++i)
    if (!knownInput(b, i, dtype, error) ||
        !needBytes(b, i, 1, elemSize(dtype), "scalar operand", error))
      return false;
  return needBytes(b, 3, p[1], elemSize(dtype), "out", error) &&
         needBytes(b, 4, 1, 8, "out_dims", error);
}

const CpuKernel kShapeKernels[] = {
    {"nonzero", 3, 10, 0b110, nonzeroCheck, nonzeroKernel},
    {"unique", 8, 12, 0b11111110, uniqueCheck, uniqueKernel},
    {"nms", 7, 13, 0b1100000, nmsCheck, nmsKernel},
    {"range", 5, 2, 0b11000, rangeCheck, rangeKernel},
};

} // namespace

CpuKernelList shapeKernels() {
  return {kShapeKernels, sizeof kShapeKernels / sizeof kShapeKernels[0]};
}

std::string cpuKernelErrorText(std::string_view kernel, int code) {
  if (kernel == "range" && code == kRangeDeltaZero)
    return "Range's delta is 0";
  return "";
}

} // namespace strata::runtime::hal
