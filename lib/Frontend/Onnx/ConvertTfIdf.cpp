//===- ConvertTfIdf.cpp - TfIdfVectorizer ---------------------------------===//
//
// TfIdfVectorizer on integer tokens, decomposed exactly into Top ops. For
// every skip distance d (1 .. max_skip_count + 1) and n-gram size n (unigrams
// only at d = 1, as ONNX counts them once), the windows x[p], x[p + d], ...,
// x[p + (n-1)d] are gathered as n [B, P] tensors; each is compared with the
// pool's n-grams of that size ([1, 1, K]) and the products of the equalities
// mark the matches [B, P, K]. A ones row sums them over the positions and a
// constant one-hot [K, O] matrix scatters the counts to the output columns
// (ngram_indexes) - both are MatMuls of small integers, exact in float32.
// Costs O(B * P * K * n) per (n, d): meant for the pool sizes of classical
// text pipelines, not for vocabularies of millions.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include <map>

namespace strata::onnx_import {
namespace {

/// One n-gram of the pool that the node counts, with its output column.
struct Gram {
  std::vector<int64_t> tokens;
  int64_t column;
};

LogicalResult convertTfIdfVectorizer(NodeContext &c) {
  auto shape = c.requireShape(0);
  if (failed(shape))
    return failure();
  if (c.attr("pool_strings"))
    return c.error() << "attribute 'pool_strings' (string tokens) is not "
                        "supported; only 'pool_int64s'";
  Type elem = c.inputElementType(0);
  auto dt = dtypeOf(elem);
  if (!dt || (*dt != DType::I32 && *dt != DType::I64))
    return c.error() << "input 'X' must be int32 or int64, got " << elem;
  if (shape->size() > 2)
    return c.error() << "input 'X' shape " << formatArray(*shape)
                     << " must be [C] or [B, C]";

  auto minLen = c.attrInt("min_gram_length", -1);
  auto maxLen = c.attrInt("max_gram_length", -1);
  auto maxSkip = c.attrInt("max_skip_count", -1);
  auto mode = c.attrString("mode", "");
  auto counts = c.attrInts("ngram_counts");
  auto indexes = c.attrInts("ngram_indexes");
  auto pool = c.attrInts("pool_int64s");
  auto weights = c.attrFloats("weights");
  if (failed(minLen) || failed(maxLen) || failed(maxSkip) || failed(mode) ||
      failed(counts) || failed(indexes) || failed(pool) || failed(weights))
    return failure();
  if (*minLen < 1 || *maxLen < *minLen)
    return c.error() << "attributes 'min_gram_length' = " << *minLen
                     << " and 'max_gram_length' = " << *maxLen
                     << " must satisfy 1 <= min <= max";
  if (*maxSkip < 0)
    return c.error() << "attribute 'max_skip_count' = " << *maxSkip
                     << " must be >= 0";
  if (*mode != "TF" && *mode != "IDF" && *mode != "TFIDF")
    return c.error() << "attribute 'mode' = '" << *mode
                     << "' must be TF, IDF or TFIDF";
  if (!*counts || !*indexes || !*pool)
    return c.error() << "attributes 'ngram_counts', 'ngram_indexes' and "
                        "'pool_int64s' are required";
  const std::vector<int64_t> &poolV = **pool, &countsV = **counts,
                             &indexV = **indexes;
  int64_t poolSize = poolV.size();
  int64_t outputSize = 0;
  for (int64_t i : indexV) {
    if (i < 0 || i >= (int64_t(1) << 31))
      return c.error() << "attribute 'ngram_indexes' has entry " << i
                       << " out of range [0, 2^31)";
    outputSize = std::max(outputSize, i + 1);
  }
  if (*weights && (int64_t)(*weights)->size() < outputSize)
    return c.error() << "attribute 'weights' has " << (*weights)->size()
                     << " entries, fewer than the " << outputSize
                     << " output columns";

  // The pool: ngram_counts[i] is where the (i+1)-grams start. A later equal
  // n-gram replaces an earlier one's column, as the reference's trie does.
  std::map<int64_t, std::map<std::vector<int64_t>, int64_t>> grams;
  int64_t gramId = 0;
  for (size_t i = 0; i < countsV.size(); ++i) {
    int64_t size = i + 1;
    int64_t begin = countsV[i];
    int64_t end = i + 1 < countsV.size() ? countsV[i + 1] : poolSize;
    if (begin < 0 || end < begin || end > poolSize)
      return c.error() << "attribute 'ngram_counts' = "
                       << formatArray(countsV)
                       << " is not a non-decreasing list of offsets into the "
                       << poolSize << " pool entries";
    if ((end - begin) % size != 0)
      return c.error() << "attribute 'pool_int64s' holds " << end - begin
                       << " entries for " << size << "-grams, not a multiple of "
                       << size;
    for (int64_t at = begin; at < end; at += size, ++gramId) {
      if (gramId >= (int64_t)indexV.size())
        return c.error() << "attribute 'ngram_indexes' has "
                         << indexV.size() << " entries, fewer than the pool's "
                         << "n-grams";
      if (size < *minLen || size > *maxLen)
        continue;
      std::vector<int64_t> tokens(poolV.begin() + at,
                                  poolV.begin() + at + size);
      // A token outside int32 never matches an int32 input.
      if (*dt == DType::I32 &&
          llvm::any_of(tokens, [](int64_t t) { return t != (int32_t)t; }))
        continue;
      grams[size][tokens] = indexV[gramId];
    }
  }
  if (gramId != (int64_t)indexV.size())
    return c.error() << "attribute 'ngram_indexes' has " << indexV.size()
                     << " entries but the pool holds " << gramId << " n-grams";

  OpBuilder &b = c.builder();
  Type f32 = b.getF32Type();
  int64_t batch = shape->size() == 2 ? (*shape)[0] : 1;
  int64_t length = shape->empty() ? 1 : shape->back();
  auto x = c.create<ReshapeOp>(elem, c.input(0),
                               b.getDenseI64ArrayAttr({batch, length}));
  if (failed(x))
    return failure();

  FailureOr<Value> total = failure();
  bool haveTotal = false;
  // Only the pool's n-grams (n <= ngram_counts' size) and windows that fit
  // in `length` make ops: bound both loops by them, not by the attributes
  // (a max_gram_length or max_skip_count of 2^40 looped for hours).
  int64_t lastN =
      std::min<int64_t>(*maxLen, static_cast<int64_t>(countsV.size()));
  int64_t lastD = lastN < 2 ? 1 : std::min<int64_t>(*maxSkip, length) + 1;
  for (int64_t d = 1; d <= lastD; ++d) {
    for (int64_t n = std::max<int64_t>(*minLen, d > 1 ? 2 : 1); n <= lastN;
         ++n) {
      auto it = grams.find(n);
      // (n - 1) * d < length, without overflowing.
      if (it == grams.end() || (n > 1 && d > (length - 1) / (n - 1)))
        continue;
      int64_t positions = length - (n - 1) * d;
      if (positions <= 0)
        continue;
      std::vector<std::pair<std::vector<int64_t>, int64_t>> list(
          it->second.begin(), it->second.end());
      int64_t k = list.size();
      FailureOr<Value> match = failure();
      for (int64_t t = 0; t < n; ++t) {
        Tensor idx(DType::I64, {positions});
        for (int64_t p = 0; p < positions; ++p)
          idx.data<int64_t>()[p] = p + t * d;
        auto window = c.create<GatherOp>(elem, *x, c.constant(idx, "positions"),
                                         b.getI64IntegerAttr(1));
        if (failed(window))
          return failure();
        auto column = c.create<ReshapeOp>(
            elem, *window, b.getDenseI64ArrayAttr({batch, positions, 1}));
        Tensor tokens(*dt, {1, 1, k});
        for (int64_t g = 0; g < k; ++g)
          tokens.setFromDouble(g, (double)list[g].first[t]);
        if (failed(column))
          return failure();
        auto eq = c.create<CompareOp>(b.getI1Type(), *column,
                                      c.constant(tokens, "pool"),
                                      CompareModeAttr::get(b.getContext(), CompareMode::Equal));
        if (failed(eq))
          return failure();
        auto hit = c.create<CastOp>(f32, *eq);
        if (failed(hit))
          return failure();
        match = t == 0 ? hit : c.create<MulOp>(f32, *match, *hit);
        if (failed(match))
          return failure();
      }
      Tensor ones(DType::F32, {1, positions});
      for (int64_t p = 0; p < positions; ++p)
        ones.data<float>()[p] = 1.0f;
      auto perGram = c.create<MatMulOp>(f32, c.constant(ones, "ones"), *match,
                                        c.none(), false, false,
                                        llvm::APFloat(-1.0));
      Tensor scatter(DType::F32, {k, outputSize});
      for (int64_t g = 0; g < k; ++g)
        scatter.data<float>()[g * outputSize + list[g].second] = 1.0f;
      if (failed(perGram))
        return failure();
      auto contrib = c.create<MatMulOp>(f32, *perGram,
                                        c.constant(scatter, "columns"),
                                        c.none(), false, false,
                                        llvm::APFloat(-1.0));
      if (failed(contrib))
        return failure();
      total = haveTotal ? c.create<AddOp>(f32, *total, *contrib) : contrib;
      if (failed(total))
        return failure();
      haveTotal = true;
    }
  }
  if (!haveTotal)
    total = c.constant(Tensor(DType::F32, {batch, 1, outputSize}), "zero");

  std::vector<int64_t> outShape;
  if (shape->size() == 2)
    outShape.push_back(batch);
  outShape.push_back(outputSize);
  auto freq = c.create<ReshapeOp>(f32, *total, b.getDenseI64ArrayAttr(outShape));
  if (failed(freq) || *mode == "TF")
    return c.setResult(freq);

  FailureOr<Value> weighted = freq;
  if (*mode == "IDF") {
    auto present = c.create<CompareOp>(
        b.getI1Type(), *freq, c.constant(Tensor(DType::F32, {}), "zero"),
        CompareModeAttr::get(b.getContext(), CompareMode::Greater));
    if (failed(present))
      return failure();
    weighted = c.create<CastOp>(f32, *present);
  }
  if (!*weights || failed(weighted))
    return c.setResult(weighted);
  Tensor w(DType::F32, {outputSize});
  for (int64_t i = 0; i < outputSize; ++i)
    w.data<float>()[i] = (**weights)[i];
  return c.setResult(c.create<MulOp>(f32, *weighted, c.constant(w, "weights")));
}

} // namespace

llvm::ArrayRef<ConverterEntry> tfidfConverters() {
  static const ConverterEntry table[] = {
      {"TfIdfVectorizer", convertTfIdfVectorizer},
  };
  return table;
}

} // namespace strata::onnx_import
