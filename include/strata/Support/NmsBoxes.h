//===- NmsBoxes.h - Boxes and IoU of NonMaxSuppression ---------*- C++ -*-===//
//
// The one definition of ONNX NonMaxSuppression's box and suppression test,
// shared by the reference interpreter (top.NonMaxSuppression) and the
// runtime's `nms` kernel (lib/Runtime/CpuShapeKernels.cpp). Header-only and
// MLIR-free: the runtime links nothing of the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_NMSBOXES_H
#define STRATA_SUPPORT_NMSBOXES_H

#include <algorithm>

namespace strata::nms {

/// A box as [xmin, xmax] x [ymin, ymax].
struct Box {
  double x0, x1, y0, y1;
};

/// The box of the four values `v` of one row of `boxes`: `[y1, x1, y2, x2]`
/// with any two opposite corners, or `[x_center, y_center, width, height]`
/// (`centerPoint`).
inline Box makeBox(const double v[4], bool centerPoint) {
  if (centerPoint)
    return {v[0] - v[2] / 2, v[0] + v[2] / 2, v[1] - v[3] / 2, v[1] + v[3] / 2};
  return {std::min(v[1], v[3]), std::max(v[1], v[3]), std::min(v[0], v[2]),
          std::max(v[0], v[2])};
}

/// True if the IoU of `a` and `b` exceeds `threshold` (degenerate boxes
/// never suppress).
inline bool suppresses(const Box &a, const Box &b, double threshold) {
  double ix0 = std::max(a.x0, b.x0), ix1 = std::min(a.x1, b.x1);
  double iy0 = std::max(a.y0, b.y0), iy1 = std::min(a.y1, b.y1);
  if (ix1 <= ix0 || iy1 <= iy0)
    return false;
  double inter = (ix1 - ix0) * (iy1 - iy0);
  double areaA = (a.x1 - a.x0) * (a.y1 - a.y0);
  double areaB = (b.x1 - b.x0) * (b.y1 - b.y0);
  double uni = areaA + areaB - inter;
  if (inter <= 0 || areaA <= 0 || areaB <= 0 || uni <= 0)
    return false;
  return inter / uni > threshold;
}

} // namespace strata::nms

#endif // STRATA_SUPPORT_NMSBOXES_H
