//===- ConvertEinsum.cpp - ONNX Einsum as Permute/Reshape/MatMul/Reduce ---===//
//
// Einsum is decomposed exactly into Top ops, the way numpy's einsum_path
// contracts: per operand, repeated labels take the diagonal (Permute, Reshape,
// strided Slice) and labels used nowhere else are summed (Reduce); then the
// operands are contracted left to right, each pair as one batched MatMul
// (shared labels still needed later are batch dims, the others are summed);
// a last Reduce and Permute give the output's label order.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace strata::onnx_import {
namespace {

/// Labels: letters are their ASCII code; the dims an ellipsis stands for are
/// kEllipsis + k, k counted from the left of the widest ellipsis
/// (right-aligned, so they broadcast like numpy's).
constexpr int kEllipsis = 1000;
using Labels = std::vector<int>;

/// A partial result: a value and the label of each of its dims.
struct Operand {
  Value value;
  Labels labels;
  std::vector<int64_t> shape;
};

std::string labelName(int l) {
  return l >= kEllipsis ? "...[" + std::to_string(l - kEllipsis) + "]"
                        : std::string(1, static_cast<char>(l));
}

/// One term of the equation: letters and at most one "...". `ellipsisAt` is
/// the position of the ellipsis among the letters, or -1.
struct Term {
  std::vector<int> letters;
  int ellipsisAt = -1;
};

FailureOr<Term> parseTerm(NodeContext &c, StringRef text) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '.') {
      if (!text.substr(i).starts_with("...") || t.ellipsisAt >= 0)
        return c.error() << "attribute 'equation': term '" << text
                         << "' has a misplaced '.' (only one '...' allowed)";
      t.ellipsisAt = static_cast<int>(t.letters.size());
      i += 2;
    } else if (llvm::isAlpha(ch)) {
      t.letters.push_back(ch);
    } else {
      return c.error() << "attribute 'equation': unexpected character '"
                       << ch << "' in term '" << text << "'";
    }
  }
  return t;
}

class EinsumBuilder {
public:
  explicit EinsumBuilder(NodeContext &c) : c(c) {}

  FailureOr<Operand> permute(Operand x, ArrayRef<int> order) {
    Labels labels;
    std::vector<int64_t> perm, shape;
    for (int l : order) {
      int64_t pos = llvm::find(x.labels, l) - x.labels.begin();
      perm.push_back(pos);
      labels.push_back(l);
      shape.push_back(x.shape[pos]);
    }
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i)
      identity &= perm[i] == static_cast<int64_t>(i);
    if (identity)
      return x;
    auto v = c.create<PermuteOp>(elem(x), x.value,
                                 c.builder().getDenseI64ArrayAttr(perm));
    if (failed(v))
      return failure();
    return Operand{*v, labels, shape};
  }

  FailureOr<Value> reshape(Value v, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getShape() == shape)
      return v;
    return c.create<ReshapeOp>(type.getElementType(), v,
                               c.builder().getDenseI64ArrayAttr(shape));
  }

  /// Sums the dims labelled `drop` away (keepdims: they stay with size 1
  /// when `keep` is set, e.g. to match a broadcast partner).
  FailureOr<Operand> sum(Operand x, ArrayRef<int> drop, bool keep = false) {
    std::vector<int64_t> axes, shape;
    Labels labels;
    for (size_t i = 0; i < x.labels.size(); ++i) {
      if (llvm::is_contained(drop, x.labels[i])) {
        axes.push_back(i);
        if (!keep)
          continue;
        shape.push_back(1);
      } else {
        shape.push_back(x.shape[i]);
      }
      labels.push_back(x.labels[i]);
    }
    if (axes.empty())
      return x;
    OpBuilder &b = c.builder();
    auto v = c.create<ReduceOp>(elem(x), x.value, b.getDenseI64ArrayAttr(axes),
                                b.getBoolAttr(keep), ReduceModeAttr::get(b.getContext(), ReduceMode::Sum));
    if (failed(v))
      return failure();
    return Operand{*v, labels, shape};
  }

  /// Takes the diagonal of every label that occurs twice or more in `x`.
  FailureOr<Operand> diagonals(Operand x) {
    for (;;) {
      auto dup = llvm::find_if(x.labels, [&](int l) {
        return llvm::count(x.labels, l) > 1;
      });
      if (dup == x.labels.end())
        return x;
      int label = *dup;
      size_t p = dup - x.labels.begin();
      size_t q = std::find(x.labels.begin() + p + 1, x.labels.end(), label) -
                 x.labels.begin();
      int64_t n = x.shape[p];
      if (x.shape[q] != n)
        return c.error() << "label '" << labelName(label)
                         << "' repeats with different sizes " << n << " and "
                         << x.shape[q];
      // Move p and q last (as positions: labels are not unique here).
      std::vector<int64_t> perm, shape;
      Labels labels;
      for (size_t i = 0; i < x.labels.size(); ++i)
        if (i != p && i != q) {
          perm.push_back(i);
          labels.push_back(x.labels[i]);
          shape.push_back(x.shape[i]);
        }
      perm.push_back(p);
      perm.push_back(q);
      Value v = x.value;
      if (p + 2 != x.labels.size() || q + 1 != x.labels.size()) {
        auto t = c.create<PermuteOp>(elem(x), v,
                                     c.builder().getDenseI64ArrayAttr(perm));
        if (failed(t))
          return failure();
        v = *t;
      }
      std::vector<int64_t> flat = shape;
      flat.push_back(n * n);
      auto r = reshape(v, flat);
      if (failed(r))
        return failure();
      OpBuilder &b = c.builder();
      int64_t axis = static_cast<int64_t>(shape.size());
      auto s = c.create<SliceOp>(elem(x), *r, b.getDenseI64ArrayAttr({0}),
                                 b.getDenseI64ArrayAttr({n * n}),
                                 b.getDenseI64ArrayAttr({axis}),
                                 b.getDenseI64ArrayAttr({n + 1}));
      if (failed(s))
        return failure();
      labels.push_back(label);
      shape.push_back(n);
      x = Operand{*s, labels, shape};
    }
  }

  /// Contracts `a` and `b`: labels in both that `later` needs are batch
  /// dims, the other shared ones are summed.
  FailureOr<Operand> contract(Operand a, Operand b, ArrayRef<int> later) {
    Labels batch, aOnly, bOnly, summed;
    for (int l : a.labels) {
      bool inB = llvm::is_contained(b.labels, l);
      bool needed = llvm::is_contained(later, l);
      if (inB)
        (needed ? batch : summed).push_back(l);
      else
        aOnly.push_back(l);
    }
    for (int l : b.labels)
      if (!llvm::is_contained(a.labels, l))
        bOnly.push_back(l);
    // A summed label broadcast (size 1) on one side: sum the other side
    // first, then both have size 1 there.
    for (int l : summed) {
      int64_t na = sizeOf(a, l), nb = sizeOf(b, l);
      if (na == nb)
        continue;
      auto fixed = na == 1 ? sum(b, {l}, true) : sum(a, {l}, true);
      if (failed(fixed))
        return failure();
      (na == 1 ? b : a) = *fixed;
    }
    Labels aOrder = batch, bOrder = batch;
    llvm::append_range(aOrder, aOnly);
    llvm::append_range(aOrder, summed);
    llvm::append_range(bOrder, summed);
    llvm::append_range(bOrder, bOnly);
    auto pa = permute(a, aOrder);
    auto pb = permute(b, bOrder);
    if (failed(pa) || failed(pb))
      return failure();
    auto product = [](const Operand &x, size_t from, size_t count) {
      int64_t p = 1;
      for (size_t i = from; i < from + count; ++i)
        p *= x.shape[i];
      return p;
    };
    size_t nb = batch.size();
    std::vector<int64_t> aShape(pa->shape.begin(), pa->shape.begin() + nb);
    std::vector<int64_t> bShape(pb->shape.begin(), pb->shape.begin() + nb);
    aShape.push_back(product(*pa, nb, aOnly.size()));
    aShape.push_back(product(*pa, nb + aOnly.size(), summed.size()));
    bShape.push_back(product(*pb, nb, summed.size()));
    bShape.push_back(product(*pb, nb + summed.size(), bOnly.size()));
    auto ra = reshape(pa->value, aShape);
    auto rb = reshape(pb->value, bShape);
    if (failed(ra) || failed(rb))
      return failure();
    auto m = c.create<MatMulOp>(elem(a), *ra, *rb, c.none(), false, false,
                                llvm::APFloat(-1.0));
    if (failed(m))
      return failure();
    Operand out;
    out.labels = batch;
    for (size_t i = 0; i < nb; ++i)
      out.shape.push_back(std::max(pa->shape[i], pb->shape[i]));
    for (size_t i = 0; i < aOnly.size(); ++i)
      out.shape.push_back(pa->shape[nb + i]);
    for (size_t i = 0; i < bOnly.size(); ++i)
      out.shape.push_back(pb->shape[nb + summed.size() + i]);
    llvm::append_range(out.labels, aOnly);
    llvm::append_range(out.labels, bOnly);
    auto r = reshape(*m, out.shape);
    if (failed(r))
      return failure();
    out.value = *r;
    return out;
  }

private:
  static Type elem(const Operand &x) {
    return cast<ShapedType>(x.value.getType()).getElementType();
  }
  static int64_t sizeOf(const Operand &x, int label) {
    return x.shape[llvm::find(x.labels, label) - x.labels.begin()];
  }

  NodeContext &c;
};

LogicalResult convertEinsum(NodeContext &c) {
  auto equationAttr = c.attrString("equation", "");
  if (failed(equationAttr))
    return failure();
  std::string equation;
  for (char ch : *equationAttr)
    if (ch != ' ')
      equation.push_back(ch);
  if (equation.empty())
    return c.error() << "attribute 'equation' is required";
  StringRef eq(equation);
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> termTexts;
  lhs.split(termTexts, ',');
  if (termTexts.size() != c.numInputs())
    return c.error() << "attribute 'equation' = '" << *equationAttr
                     << "' has " << termTexts.size() << " input terms, the node "
                     << c.numInputs() << " inputs";

  // Label every operand's dims and check the sizes agree.
  std::vector<Operand> operands;
  std::map<int, int64_t> sizes;
  size_t widestEllipsis = 0;
  std::vector<Term> terms;
  for (size_t i = 0; i < termTexts.size(); ++i) {
    auto term = parseTerm(c, termTexts[i]);
    auto shape = c.requireShape(i);
    if (failed(term) || failed(shape))
      return failure();
    if (term->letters.size() > shape->size() ||
        (term->ellipsisAt < 0 && term->letters.size() != shape->size()))
      return c.error() << "attribute 'equation': term '" << termTexts[i]
                       << "' does not match input " << i << " of rank "
                       << shape->size();
    widestEllipsis =
        std::max(widestEllipsis, shape->size() - term->letters.size());
    terms.push_back(*term);
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    Operand x{c.input(i), {}, *c.inputShape(i)};
    size_t ellipsis = x.shape.size() - terms[i].letters.size();
    for (size_t k = 0; k <= terms[i].letters.size(); ++k) {
      if (static_cast<int>(k) == terms[i].ellipsisAt)
        for (size_t e = 0; e < ellipsis; ++e)
          x.labels.push_back(kEllipsis + (widestEllipsis - ellipsis + e));
      if (k < terms[i].letters.size())
        x.labels.push_back(terms[i].letters[k]);
    }
    for (size_t d = 0; d < x.labels.size(); ++d) {
      int l = x.labels[d];
      auto [it, fresh] = sizes.insert({l, x.shape[d]});
      if (fresh || it->second == x.shape[d])
        continue;
      if (l >= kEllipsis && (it->second == 1 || x.shape[d] == 1)) {
        it->second = std::max(it->second, x.shape[d]);
        continue;
      }
      if (llvm::count(x.labels, l) > 1)
        continue; // a diagonal; checked when it is taken
      return c.error() << "label '" << labelName(l) << "' has size "
                       << it->second << " in one operand and " << x.shape[d]
                       << " in input " << i;
    }
    operands.push_back(x);
  }

  // The output's labels.
  Labels output;
  if (explicitOutput) {
    auto term = parseTerm(c, rhs);
    if (failed(term))
      return failure();
    for (size_t k = 0; k <= term->letters.size(); ++k) {
      if (static_cast<int>(k) == term->ellipsisAt)
        for (size_t e = 0; e < widestEllipsis; ++e)
          output.push_back(kEllipsis + e);
      if (k < term->letters.size())
        output.push_back(term->letters[k]);
    }
  } else {
    for (size_t e = 0; e < widestEllipsis; ++e)
      output.push_back(kEllipsis + e);
    std::map<int, int> uses;
    for (const Term &t : terms)
      for (int l : t.letters)
        ++uses[l];
    for (auto [l, n] : uses) // std::map: ASCII order, as numpy's
      if (n == 1)
        output.push_back(l);
  }
  for (int l : output) {
    if (llvm::count(output, l) > 1)
      return c.error() << "attribute 'equation': output label '"
                       << labelName(l) << "' appears twice";
    if (!sizes.count(l))
      return c.error() << "attribute 'equation': output label '"
                       << labelName(l) << "' is in no input term";
  }

  // Per operand: diagonals, then labels nothing else uses.
  EinsumBuilder eb(c);
  for (size_t i = 0; i < operands.size(); ++i) {
    auto d = eb.diagonals(operands[i]);
    if (failed(d))
      return failure();
    Labels alone;
    for (int l : d->labels) {
      bool elsewhere = llvm::is_contained(output, l);
      for (size_t j = 0; j < operands.size(); ++j)
        elsewhere |= j != i && llvm::is_contained(operands[j].labels, l);
      if (!elsewhere)
        alone.push_back(l);
    }
    auto s = eb.sum(*d, alone);
    if (failed(s))
      return failure();
    operands[i] = *s;
  }
  Operand acc = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) {
    Labels later = output;
    for (size_t j = i + 1; j < operands.size(); ++j)
      llvm::append_range(later, operands[j].labels);
    auto r = eb.contract(acc, operands[i], later);
    if (failed(r))
      return failure();
    acc = *r;
  }
  Labels extra;
  for (int l : acc.labels)
    if (!llvm::is_contained(output, l))
      extra.push_back(l);
  auto summed = eb.sum(acc, extra);
  if (failed(summed))
    return failure();
  auto result = eb.permute(*summed, output);
  if (failed(result))
    return failure();
  c.setOutput(0, result->value);
  return success();
}

} // namespace

llvm::ArrayRef<ConverterEntry> einsumConverters() {
  static const ConverterEntry table[] = {
      {"Einsum", convertEinsum},
  };
  return table;
}

} // namespace strata::onnx_import
