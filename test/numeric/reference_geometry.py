"""numpy references for top.Resize (cubic, antialias, tf_crop_and_resize...)
and the geometry ops (GridSample, AffineGrid, Col2Im, RoiAlign, DeformConv),
written from the ONNX operator specs. They favour plain loops and dense
weight matrices over speed; inputs in the tests are small."""
import itertools
import math

import numpy as np


# ---------------------------------------------------------------------------
# Resize: one dense (out x in) weight matrix per dim
# ---------------------------------------------------------------------------

def _keys(t, a):
    t = abs(t)
    if t <= 1:
        return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
    if t < 2:
        return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a
    return 0.0


def _source(x, n_in, n_out, scale, ctm, roi):
    """Input coordinate of output index x, or None (tf_crop_and_resize
    extrapolation)."""
    length = scale * n_in
    if ctm == "asymmetric":
        return x / scale
    if ctm == "align_corners":
        return 0.0 if length == 1 else x * (n_in - 1) / (length - 1)
    if ctm == "pytorch_half_pixel":
        return -0.5 if length == 1 else (x + 0.5) / scale - 0.5
    if ctm == "half_pixel_symmetric":
        return n_in / 2 * (1 - n_out / length) + (x + 0.5) / scale - 0.5
    if ctm == "tf_crop_and_resize":
        start, end = roi
        if length == 1:
            c = (end - start) * (n_in - 1) / 2
        else:
            c = x * (end - start) * (n_in - 1) / (length - 1)
        c += start * (n_in - 1)
        return None if c < 0 or c > n_in - 1 else c
    return (x + 0.5) / scale - 0.5


def _nearest_index(c, mode):
    f = math.floor(c)
    frac = c - f
    if frac == 0:
        return f
    if mode == "floor":
        return f
    if mode == "ceil":
        return f + 1
    if mode == "round_prefer_ceil":
        return f + 1 if frac >= 0.5 else f
    return f + 1 if frac > 0.5 else f


def resize_matrix(n_in, n_out, scale, mode="nearest", ctm="half_pixel",
                  nearest_mode="round_prefer_floor", a=-0.75, exclude=False,
                  antialias=False, roi=(0.0, 1.0)):
    """(weights [n_out, n_in], extrapolated [n_out] bool) of one dim."""
    w = np.zeros((n_out, n_in))
    extra = np.zeros(n_out, bool)
    for x in range(n_out):
        c = _source(x, n_in, n_out, scale, ctm, roi)
        if c is None:
            extra[x] = True
            continue
        if mode == "nearest":
            w[x, min(max(_nearest_index(c, nearest_mode), 0), n_in - 1)] = 1
            continue
        support = 2.0 if mode == "cubic" else 1.0
        s = min(scale, 1.0) if antialias else 1.0

        def kernel(t):
            return _keys(t, a) if mode == "cubic" else max(0.0, 1 - abs(t))

        reach = int(math.ceil(support / s)) + 1
        taps = [(i, kernel(s * (c - i)))
                for i in range(math.floor(c) - reach, math.floor(c) + reach + 1)]
        taps = [(i, v) for i, v in taps if v != 0]
        if exclude:
            taps = [(i, v) for i, v in taps if 0 <= i < n_in]
        total = sum(v for _, v in taps)
        if antialias or exclude:
            taps = [(i, v / total) for i, v in taps] if total else taps
        for i, v in taps:
            w[x, min(max(i, 0), n_in - 1)] += v
    return w, extra


def resize(x, out_shape, scales=None, extrapolation=0.0, roi=None, **kw):
    """ONNX Resize (opset 19 semantics) with explicit output shape; `scales`
    drive the coordinate mapping (default out / in)."""
    r = x.ndim
    if scales is None:
        scales = [o / i if i else 1.0 for o, i in zip(out_shape, x.shape)]
    y = x.astype(np.float64)
    for d in range(r):
        dim_roi = (roi[d], roi[r + d]) if roi is not None else (0.0, 1.0)
        identity = (x.shape[d] == out_shape[d] and scales[d] == 1.0
                    and (kw.get("ctm") != "tf_crop_and_resize" or dim_roi == (0.0, 1.0)))
        if identity or x.shape[d] == 0:
            continue
        w, extra = resize_matrix(x.shape[d], out_shape[d], scales[d], roi=dim_roi, **kw)
        y = np.moveaxis(np.tensordot(w, np.moveaxis(y, d, 0), axes=1), 0, d)
        idx = [slice(None)] * r
        idx[d] = extra
        y[tuple(idx)] = extrapolation
    return y


# ---------------------------------------------------------------------------
# GridSample, AffineGrid
# ---------------------------------------------------------------------------

def _reflect(v, lo, hi):
    rng = hi - lo
    if rng <= 0:
        return lo
    while v < lo or v > hi:
        v = 2 * lo - v if v < lo else 2 * hi - v
    return v


def grid_sample(x, grid, mode="linear", padding="zeros", align=False):
    n, c = x.shape[:2]
    dims = x.shape[2:]
    r = len(dims)
    out = np.zeros((n, c) + grid.shape[1:-1])
    for b in range(n):
        for pos in itertools.product(*[range(s) for s in grid.shape[1:-1]]):
            g = grid[(b,) + pos].astype(np.float64)[::-1]   # (z,) y, x
            per_dim = []
            for d in range(r):
                ln = dims[d]
                v = (g[d] + 1) / 2 * (ln - 1) if align else ((g[d] + 1) * ln - 1) / 2
                lo, hi = (0.0, ln - 1.0) if align else (-0.5, ln - 0.5)
                if mode == "nearest":
                    v = float(np.rint(v))
                if v < lo or v > hi:
                    if padding == "border":
                        v = min(max(v, 0.0), ln - 1.0)
                    elif padding == "reflection":
                        v = _reflect(v, lo, hi)
                f = math.floor(v)
                t = v - f
                if mode == "nearest":
                    taps = [(int(v), 1.0)]
                elif mode == "linear":
                    taps = [(f, 1 - t), (f + 1, t)]
                else:
                    taps = [(f + k, _keys(t - k, -0.75)) for k in (-1, 0, 1, 2)]
                fixed = []
                for i, wt in taps:
                    if padding == "border":
                        i = min(max(i, 0), ln - 1)
                    elif padding == "reflection":
                        i = min(max(int(_reflect(float(i), lo, hi)), 0), ln - 1)
                    elif not 0 <= i < ln:
                        i = None
                    fixed.append((i, wt))
                per_dim.append(fixed)
            for combo in itertools.product(*per_dim):
                if any(i is None for i, _ in combo):
                    continue
                wt = np.prod([w for _, w in combo])
                out[(b, slice(None)) + pos] += wt * x[(b, slice(None)) + tuple(i for i, _ in combo)]
    return out


def affine_grid(theta, size, align=False):
    n = size[0]
    dims = size[2:]
    r = len(dims)

    def axis(ln):
        if align:
            return np.array([-1.0]) if ln == 1 else np.linspace(-1, 1, ln)
        return (2 * np.arange(ln) + 1) / ln - 1

    coords = np.meshgrid(*[axis(ln) for ln in dims], indexing="ij")   # per dim (z, y, x)
    base = np.stack(list(coords[::-1]) + [np.ones(dims)], axis=-1)          # [x, y, (z,) 1]
    return np.einsum("nij,...j->n...i", theta.astype(np.float64), base).reshape((n,) + tuple(dims) + (r,))


# ---------------------------------------------------------------------------
# Col2Im, RoiAlign, DeformConv
# ---------------------------------------------------------------------------

def col2im(x, image, block, strides=None, pads=None, dilations=None):
    r = len(image)
    strides = strides or [1] * r
    dilations = dilations or [1] * r
    pads = pads or [0] * (2 * r)
    n, ck, _ = x.shape
    k = int(np.prod(block))
    c = ck // k
    nblocks = [(image[d] + pads[d] + pads[r + d] - dilations[d] * (block[d] - 1) - 1) // strides[d] + 1
               for d in range(r)]
    out = np.zeros((n, c) + tuple(image))
    cols = x.reshape(n, c, k, -1).astype(np.float64)
    for ki, koff in enumerate(itertools.product(*[range(b) for b in block])):
        for li, loff in enumerate(itertools.product(*[range(b) for b in nblocks])):
            pos = [loff[d] * strides[d] - pads[d] + koff[d] * dilations[d] for d in range(r)]
            if all(0 <= p < image[d] for d, p in enumerate(pos)):
                out[(slice(None), slice(None)) + tuple(pos)] += cols[:, :, ki, li]
    return out


def _roi_bilinear(plane, y, x):
    """The four weighted corner terms of one RoiAlign sample."""
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return [0.0] * 4
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return [(1 - ly) * (1 - lx) * plane[y0, x0], (1 - ly) * lx * plane[y0, x1],
            ly * (1 - lx) * plane[y1, x0], ly * lx * plane[y1, x1]]


def roi_align(x, rois, batch, oh, ow, sampling_ratio=0, scale=1.0, mode="avg", half_pixel=True):
    c = x.shape[1]
    out = np.zeros((len(rois), c, oh, ow))
    for ri, roi in enumerate(rois.astype(np.float64)):
        off = 0.5 if half_pixel else 0.0
        x1, y1, x2, y2 = roi * scale - off
        rw, rh = x2 - x1, y2 - y1
        if not half_pixel:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = sampling_ratio or int(math.ceil(bh))
        gw = sampling_ratio or int(math.ceil(bw))
        for ch in range(c):
            plane = x[batch[ri], ch].astype(np.float64)
            for ph in range(oh):
                for pw in range(ow):
                    terms = [_roi_bilinear(plane, y1 + ph * bh + (iy + 0.5) * bh / gh,
                                           x1 + pw * bw + (ix + 0.5) * bw / gw)
                             for iy in range(gh) for ix in range(gw)]
                    if mode == "avg":
                        out[ri, ch, ph, pw] = sum(sum(t) for t in terms) / max(gh * gw, 1)
                    else:
                        out[ri, ch, ph, pw] = max(max(t) for t in terms) if terms else 0.0
    return out


def _bilinear_zero(plane, y, x):
    h, w = plane.shape
    y0, x0 = math.floor(y), math.floor(x)
    v = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                v += wy * wx * plane[yy, xx]
    return v


def deform_conv(x, w, offset, bias=None, mask=None, strides=(1, 1), pads=(0, 0, 0, 0),
                dilations=(1, 1), group=1, offset_group=1):
    n, c, h, wd = x.shape
    m, cpg, kh, kw = w.shape
    oh, ow = offset.shape[2:]
    off = offset.reshape(n, offset_group, kh, kw, 2, oh, ow).astype(np.float64)
    msk = (np.ones((n, offset_group, kh, kw, oh, ow)) if mask is None
           else mask.reshape(n, offset_group, kh, kw, oh, ow).astype(np.float64))
    out = np.zeros((n, m, oh, ow))
    mpg = m // group
    for b in range(n):
        for oc in range(m):
            g = oc // mpg
            for ci in range(g * cpg, (g + 1) * cpg):
                og = ci // (c // offset_group)
                plane = x[b, ci].astype(np.float64)
                for i in range(oh):
                    for j in range(ow):
                        for a in range(kh):
                            for e in range(kw):
                                y = i * strides[0] - pads[0] + a * dilations[0] + off[b, og, a, e, 0, i, j]
                                xx = j * strides[1] - pads[1] + e * dilations[1] + off[b, og, a, e, 1, i, j]
                                out[b, oc, i, j] += (w[oc, ci - g * cpg, a, e] * msk[b, og, a, e, i, j]
                                                     * _bilinear_zero(plane, y, xx))
    if bias is not None:
        out += bias.reshape(1, -1, 1, 1)
    return out
