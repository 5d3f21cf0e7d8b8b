//===- Sparse.cpp - TFLite sparse constant tensors to dense ---------------===//
//
// Sparse constants (SparsityParameters: a traversal order over the dims and
// block dims, each level DENSE or SPARSE_CSR with segments and indices) are
// expanded at import to the dense tensor, the way TFLite's FormatConverter
// does for DENSIFY; DENSIFY then passes the constant on. Every segment and
// index is range-checked and the stored values must be exactly the leaves.
//
//===----------------------------------------------------------------------===//

#include "Sparse.h"

#include <cstring>

namespace strata::tflite_import {
namespace {

/// The values of a SparseIndexVector, or nullopt when it is absent.
std::optional<std::vector<int64_t>> indexVector(tflite::SparseIndexVector type,
                                                const void *v) {
  std::vector<int64_t> r;
  if (!v)
    return std::nullopt;
  switch (type) {
  case tflite::SparseIndexVector_Int32Vector: {
    auto *x = static_cast<const tflite::Int32Vector *>(v)->values();
    if (!x)
      return std::nullopt;
    r.assign(x->begin(), x->end());
    return r;
  }
  case tflite::SparseIndexVector_Uint16Vector: {
    auto *x = static_cast<const tflite::Uint16Vector *>(v)->values();
    if (!x)
      return std::nullopt;
    r.assign(x->begin(), x->end());
    return r;
  }
  case tflite::SparseIndexVector_Uint8Vector: {
    auto *x = static_cast<const tflite::Uint8Vector *>(v)->values();
    if (!x)
      return std::nullopt;
    r.assign(x->begin(), x->end());
    return r;
  }
  default:
    return std::nullopt;
  }
}

struct Level {
  bool dense = true;
  int64_t size = 0;
  std::vector<int64_t> segments, indices;
};

class Expander {
public:
  Expander(const std::vector<int64_t> &shape, std::vector<int64_t> order,
           std::vector<int64_t> blockMap, std::vector<int64_t> blockSize,
           std::vector<Level> levels, const uint8_t *src, int64_t numValues,
           size_t elemSize, Tensor &dst)
      : shape(shape), order(std::move(order)), blockMap(std::move(blockMap)),
        blockSize(std::move(blockSize)), levels(std::move(levels)), src(src),
        numValues(numValues), elemSize(elemSize), dst(dst),
        idx(this->levels.size(), 0) {}

  std::string run() {
    populate(0, 0);
    if (error.empty() && next != numValues)
      error = "the buffer holds " + std::to_string(numValues) +
              " values but the sparse structure has " + std::to_string(next);
    return error;
  }

private:
  void populate(size_t level, int64_t prev) {
    if (!error.empty())
      return;
    if (level == levels.size()) {
      int64_t rank = shape.size();
      std::vector<int64_t> orig(rank, 0);
      for (int64_t i = 0; i < rank; ++i)
        orig[order[i]] = idx[i];
      for (size_t i = rank; i < idx.size(); ++i) {
        int64_t b = order[i] - rank;
        orig[blockMap[b]] = orig[blockMap[b]] * blockSize[b] + idx[i];
      }
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d) {
        if (orig[d] >= shape[d]) {
          error = "index " + std::to_string(orig[d]) +
                  " is out of range for dim " + std::to_string(d) +
                  " of size " + std::to_string(shape[d]);
          return;
        }
        flat = flat * shape[d] + orig[d];
      }
      if (next >= numValues) {
        error = "the sparse structure has more entries than the buffer's " +
                std::to_string(numValues) + " values";
        return;
      }
      std::memcpy(static_cast<char *>(dst.raw()) + flat * elemSize,
                  src + next * elemSize, elemSize);
      ++next;
      return;
    }
    const Level &l = levels[level];
    if (l.dense) {
      for (int64_t i = 0; i < l.size && error.empty(); ++i) {
        idx[level] = i;
        populate(level + 1, prev * l.size + i);
      }
      return;
    }
    if (prev < 0 || prev + 1 >= (int64_t)l.segments.size()) {
      error = "level " + std::to_string(level) + " has too few array_segments";
      return;
    }
    int64_t lo = l.segments[prev], hi = l.segments[prev + 1];
    if (lo < 0 || hi < lo || hi > (int64_t)l.indices.size()) {
      error = "level " + std::to_string(level) + " has array_segments [" +
              std::to_string(lo) + ", " + std::to_string(hi) +
              ") outside its " + std::to_string(l.indices.size()) + " indices";
      return;
    }
    for (int64_t i = lo; i < hi && error.empty(); ++i) {
      idx[level] = l.indices[i];
      populate(level + 1, i);
    }
  }

  const std::vector<int64_t> &shape;
  std::vector<int64_t> order, blockMap, blockSize;
  std::vector<Level> levels;
  const uint8_t *src;
  int64_t numValues;
  size_t elemSize;
  Tensor &dst;
  std::vector<int64_t> idx;
  int64_t next = 0;
  std::string error;
};

} // namespace

std::string densify(const tflite::SparsityParameters &sp,
                    const std::vector<int64_t> &shape, DType dtype,
                    const uint8_t *data, uint64_t size, Tensor &out) {
  int64_t rank = shape.size();
  std::vector<int64_t> order, blockMap;
  if (sp.traversal_order())
    order.assign(sp.traversal_order()->begin(), sp.traversal_order()->end());
  if (sp.block_map())
    blockMap.assign(sp.block_map()->begin(), sp.block_map()->end());
  int64_t n = rank + blockMap.size();
  auto *meta = sp.dim_metadata();
  if ((int64_t)order.size() != n || !meta || (int64_t)meta->size() != n)
    return "traversal_order has " + std::to_string(order.size()) +
           " entries and dim_metadata " +
           std::to_string(meta ? meta->size() : 0) + ", expected " +
           std::to_string(n) + " (rank plus block dims)";
  std::vector<bool> seen(n, false);
  for (int64_t o : order) {
    if (o < 0 || o >= n || seen[o])
      return "traversal_order is not a permutation of 0.." +
             std::to_string(n - 1);
    seen[o] = true;
  }
  for (int64_t i = 0; i < rank; ++i)
    if (order[i] >= rank)
      return "traversal_order must list the tensor's dims before its block "
             "dims";
  std::vector<int64_t> blockSize;
  for (size_t b = 0; b < blockMap.size(); ++b) {
    if (blockMap[b] < 0 || blockMap[b] >= rank)
      return "block_map entry " + std::to_string(blockMap[b]) +
             " is out of range";
    int64_t bs = meta->Get(order[rank + b])->dense_size();
    if (bs < 1 || shape[blockMap[b]] % bs != 0)
      return "block size " + std::to_string(bs) + " does not divide dim " +
             std::to_string(blockMap[b]);
    blockSize.push_back(bs);
  }
  std::vector<Level> levels;
  for (int64_t i = 0; i < n; ++i) {
    const tflite::DimensionMetadata *m = meta->Get(i);
    Level l;
    l.dense = m->format() == tflite::DimensionType_DENSE;
    l.size = m->dense_size();
    if (l.dense && (l.size < 0 || l.size > (int64_t(1) << 31)))
      return "dense_size " + std::to_string(l.size) + " is out of range";
    if (!l.dense) {
      auto seg = indexVector(m->array_segments_type(), m->array_segments());
      auto ind = indexVector(m->array_indices_type(), m->array_indices());
      if (!seg || !ind)
        return "a SPARSE_CSR level lacks array_segments or array_indices";
      l.segments = std::move(*seg);
      l.indices = std::move(*ind);
    }
    levels.push_back(std::move(l));
  }
  size_t es = dtypeSize(dtype);
  if (size % es != 0)
    return "the buffer's " + std::to_string(size) +
           " bytes are not a whole number of elements";
  std::memset(out.raw(), 0, out.numElements() * es);
  Expander e(shape, order, blockMap, blockSize, std::move(levels), data,
             size / es, es, out);
  return e.run();
}

} // namespace strata::tflite_import
