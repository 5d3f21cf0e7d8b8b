"""Independent numpy references for Top ops (straightforward loops over
windows; no code shared with Strata)."""
import itertools

import numpy as np


def conv_nd(x, w, b=None, strides=None, pads=None, dilations=None, group=1,
            input_zp=0, weight_zp=0, acc_dtype=None):
    """ONNX-style N-d convolution. pads = begins + ends."""
    r = x.ndim - 2
    strides = strides or [1] * r
    dilations = dilations or [1] * r
    pads = pads or [0] * (2 * r)
    acc = acc_dtype or (np.float64 if np.issubdtype(x.dtype, np.floating) else np.int64)
    xz = x.astype(acc) - np.asarray(input_zp, acc).reshape([1, -1] + [1] * r) \
        if np.ndim(input_zp) else x.astype(acc) - acc(input_zp)
    wz = w.astype(acc) - np.asarray(weight_zp, acc).reshape([1, -1] + [1] * r) \
        if np.ndim(weight_zp) else w.astype(acc) - acc(weight_zp)
    n, c = x.shape[:2]
    o = w.shape[0]
    k = w.shape[2:]
    xp = np.pad(xz, [(0, 0), (0, 0)] + [(pads[d], pads[d + r]) for d in range(r)])
    out_sp = [(x.shape[2 + d] + pads[d] + pads[d + r] - dilations[d] * (k[d] - 1) - 1)
              // strides[d] + 1 for d in range(r)]
    out = np.zeros([n, o] + out_sp, acc)
    cg, og = c // group, o // group
    if isinstance(input_zp, (list, np.ndarray)) and np.ndim(input_zp):
        pass
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = wz[g * og:(g + 1) * og]
        for pos in itertools.product(*[range(s) for s in out_sp]):
            sl = tuple(slice(pos[d] * strides[d],
                             pos[d] * strides[d] + dilations[d] * (k[d] - 1) + 1,
                             dilations[d]) for d in range(r))
            patch = xs[(slice(None), slice(None)) + sl]  # n, cg, k...
            out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = \
                np.tensordot(patch, ws, axes=(list(range(1, r + 2)), list(range(1, r + 2))))
    if b is not None:
        out += b.astype(acc).reshape([1, o] + [1] * r)
    return out


def pool_nd(x, kernel, strides=None, pads=None, dilations=None, mode="max",
            ceil_mode=False, count_include_pad=False):
    r = x.ndim - 2
    strides = strides or [1] * r
    dilations = dilations or [1] * r
    pads = pads or [0] * (2 * r)
    out_sp = []
    for d in range(r):
        span = x.shape[2 + d] + pads[d] + pads[d + r] - dilations[d] * (kernel[d] - 1) - 1
        o = (-(-span // strides[d]) if ceil_mode else span // strides[d]) + 1
        if ceil_mode and (o - 1) * strides[d] >= x.shape[2 + d] + pads[d]:
            o -= 1
        out_sp.append(o)
    out = np.zeros(list(x.shape[:2]) + out_sp, np.float64)
    for pos in itertools.product(*[range(s) for s in out_sp]):
        vals, npad = [], 0
        for kpos in itertools.product(*[range(k) for k in kernel]):
            idx = [pos[d] * strides[d] + kpos[d] * dilations[d] - pads[d] for d in range(r)]
            if all(-pads[d] <= idx[d] < x.shape[2 + d] + pads[d + r] for d in range(r)):
                npad += 1
            if all(0 <= idx[d] < x.shape[2 + d] for d in range(r)):
                vals.append(x[(slice(None), slice(None)) + tuple(idx)].astype(np.float64))
        if mode == "max":
            out[(slice(None), slice(None)) + pos] = np.max(vals, axis=0)
        else:
            div = npad if count_include_pad else len(vals)
            out[(slice(None), slice(None)) + pos] = np.sum(vals, axis=0) / div
    return out
