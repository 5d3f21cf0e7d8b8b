//===- MatMulShapes.cpp - shape functions of the MatMul ops --------------===//

#include "strata/Dialect/Top/Shapes/MatMulShapes.h"

#include <utility>

namespace strata::top::shapes {

ShapeOr<MatMulGeometry> matmulGeometry(Ints input, Ints right,
                                       bool rightTranspose) {
  if (input.empty() || right.empty())
    return ShapeError() << "operands must have rank >= 1, got shapes " << input
                        << " and " << right;
  Shape a = input.vec(), b = right.vec();
  MatMulGeometry g;
  if (rightTranspose && b.size() >= 2)
    std::swap(b[b.size() - 1], b[b.size() - 2]);
  if (a.size() == 1) {
    g.lhsVector = true;
    a.insert(a.begin(), 1);
  }
  if (b.size() == 1) {
    g.rhsVector = true;
    b.push_back(1);
  }
  g.m = a[a.size() - 2];
  g.k = a.back();
  g.n = b.back();
  if (b[b.size() - 2] != g.k)
    return ShapeError() << "contracting dims differ: input shape " << input
                        << " has K = " << g.k << ", right shape " << right
                        << (rightTranspose ? " (transposed)" : "")
                        << " has K = " << b[b.size() - 2];
  g.lhsBatch.assign(a.begin(), a.end() - 2);
  g.rhsBatch.assign(b.begin(), b.end() - 2);
  ShapeOr<Shape> batch = broadcastShape(g.lhsBatch, g.rhsBatch);
  if (!batch)
    return ShapeOr<MatMulGeometry>::errorOf(batch);
  g.batch = *batch;
  g.outShape = g.batch;
  if (!g.lhsVector)
    g.outShape.push_back(g.m);
  if (!g.rhsVector)
    g.outShape.push_back(g.n);
  return g;
}

ShapeOr<Shape> inferMatMul(Ints input, Ints right, std::optional<Ints> bias,
                           bool rightTranspose) {
  ShapeOr<MatMulGeometry> g = matmulGeometry(input, right, rightTranspose);
  if (!g)
    return ShapeOr<Shape>::errorOf(g);
  if (bias) {
    std::optional<int64_t> n = shapeElementCount(*bias);
    if (n != g->n && n != 1)
      return ShapeError() << "bias must have 1 or " << g->n
                          << " elements (the output's last dim), got shape "
                          << *bias;
  }
  return g->outShape;
}

} // namespace strata::top::shapes
