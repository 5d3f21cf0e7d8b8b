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


def deconv_nd(x, w, b=None, strides=None, pads=None, dilations=None,
              output_padding=None, group=1):
    """ONNX ConvTranspose: scatter every input element times every filter tap
    into the full output, then crop `pads` (begins + ends). Filter is
    C x O/group x k...; accumulates in float64 (int64 for integers)."""
    r = x.ndim - 2
    strides = strides or [1] * r
    dilations = dilations or [1] * r
    pads = pads or [0] * (2 * r)
    output_padding = output_padding or [0] * r
    acc = np.float64 if np.issubdtype(x.dtype, np.floating) else np.int64
    n, c = x.shape[:2]
    og = w.shape[1]
    k = w.shape[2:]
    full = [(x.shape[2 + d] - 1) * strides[d] + dilations[d] * (k[d] - 1) + 1
            + output_padding[d] for d in range(r)]
    out = np.zeros([n, og * group] + full, acc)
    cg = c // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg].astype(acc)
        for kpos in itertools.product(*[range(kk) for kk in k]):
            tap = w[(slice(g * cg, (g + 1) * cg), slice(None)) + kpos].astype(acc)
            contrib = np.moveaxis(np.tensordot(xs, tap, axes=([1], [0])), -1, 1)
            sl = tuple(slice(kpos[d] * dilations[d],
                             kpos[d] * dilations[d] + (x.shape[2 + d] - 1) * strides[d] + 1,
                             strides[d]) for d in range(r))
            out[(slice(None), slice(g * og, (g + 1) * og)) + sl] += contrib
    crop = tuple(slice(pads[d], full[d] - pads[d + r]) for d in range(r))
    out = out[(slice(None), slice(None)) + crop]
    if b is not None:
        out = out + b.astype(acc).reshape([1, -1] + [1] * r)
    return out


def softmax(x, axis, log=False):
    x = x.astype(np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    s = np.exp(shifted).sum(axis=axis, keepdims=True)
    return shifted - np.log(s) if log else np.exp(shifted) / s


def batch_norm(x, mean, var, scale=None, bias=None, eps=1e-5):
    shape = [1, -1] + [1] * (x.ndim - 2)
    y = (x.astype(np.float64) - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if scale is not None:
        y = y * scale.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def layer_norm(x, axis, scale=None, bias=None, eps=1e-5):
    axis = axis % x.ndim
    axes = tuple(range(axis, x.ndim))
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if scale is not None:
        y = y * scale.reshape(x.shape[axis:])
    if bias is not None:
        y = y + bias.reshape(x.shape[axis:])
    return y


def group_norm(x, groups, scale=None, bias=None, eps=1e-5):
    n, c = x.shape[:2]
    g = x.astype(np.float64).reshape(n, groups, c // groups * int(np.prod(x.shape[2:])))
    mean = g.mean(axis=2, keepdims=True)
    var = g.var(axis=2, keepdims=True)
    y = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    shape = [1, c] + [1] * (x.ndim - 2)
    if scale is not None:
        y = y * scale.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _resize_coords(out_len, in_len, scale, ctm):
    x = np.arange(out_len, dtype=np.float64)
    if ctm == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if ctm == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if out_len > 1 else np.zeros(out_len)
    if ctm == "align_corners":
        return x * (in_len - 1) / (out_len - 1) if out_len > 1 else np.zeros(out_len)
    assert ctm == "asymmetric"
    return x / scale


def _round_nearest(x, nearest_mode):
    half = (x - np.floor(x)) == 0.5
    if nearest_mode == "round_prefer_floor":
        return np.where(half, np.floor(x), np.round(x))
    if nearest_mode == "round_prefer_ceil":
        return np.where(half, np.ceil(x), np.round(x))
    return np.floor(x) if nearest_mode == "floor" else np.ceil(x)


def resize(x, out_shape, scales=None, mode="nearest", ctm="half_pixel",
           nearest_mode="round_prefer_floor"):
    """ONNX Resize with explicit output shape. `scales` (if given) is used for
    the coordinate transform, else out/in. Linear sums the 2^r corners with
    product weights, reading out-of-range neighbours from the edge."""
    r = x.ndim
    if scales is None:
        scales = [o / i if i else 1.0 for o, i in zip(out_shape, x.shape)]
    xf = x.astype(np.float64)
    lo, hi, wt = [], [], []
    for d in range(r):
        c = _resize_coords(out_shape[d], x.shape[d], scales[d], ctm)
        if mode == "nearest":
            i = np.clip(_round_nearest(c, nearest_mode), 0, x.shape[d] - 1).astype(np.int64)
            lo.append(i), hi.append(i), wt.append(np.zeros(out_shape[d]))
        else:
            i0 = np.floor(c)
            lo.append(np.clip(i0, 0, x.shape[d] - 1).astype(np.int64))
            hi.append(np.clip(i0 + 1, 0, x.shape[d] - 1).astype(np.int64))
            wt.append(c - i0)
    out = np.zeros(out_shape, np.float64)
    if 0 in out_shape:
        return out
    for corner in itertools.product([0, 1], repeat=r):
        idx = [hi[d] if corner[d] else lo[d] for d in range(r)]
        weight = np.ones(out_shape)
        for d in range(r):
            wd = wt[d] if corner[d] else 1 - wt[d]
            weight = weight * wd.reshape([-1 if e == d else 1 for e in range(r)])
        if mode == "nearest" and any(corner):
            continue
        out += xf[np.ix_(*idx)] * (1 if mode == "nearest" else weight)
    return out


def depth_to_space(x, b, mode="DCR"):
    n, c, h, w = x.shape
    if mode == "DCR":
        t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth(x, b):
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)
