"""TpuLang for Strata: TPU-MLIR's Python graph API on Strata's C++ TpuLang.

``import strata.tpulang as tpul`` in place of ``import transform.TpuLang as
tpul``: the functions have TPU-MLIR's names, parameter names, order and
defaults. Each op checks its parameters and infers its result's shape when it
is called; a bad parameter raises :class:`strata.Error` naming the op, the
parameter and the value. ``compile`` writes the Top model, runs it in the
reference interpreter on the inputs' data, compares with ``refs``, and (as
TPU-MLIR's bmodel step) compiles it for the CPU and compares the compiled
model's outputs with the interpreter's. docs/python.md lists where Strata
differs from TPU-MLIR.
"""

from __future__ import annotations

import os
import warnings
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import Error, Session, compare
from . import compile as _compile_model
from . import load_mlir, run_ref
from ._core import tpulang as _tl

Tensor = _tl.Tensor


class Scalar:
    """A constant number, as TPU-MLIR's ``tpul.Scalar(value, dtype=None)``;
    wherever an op takes a number it also takes a Scalar (and a plain
    Python or numpy number)."""

    def __init__(self, value, dtype: Optional[str] = None):
        self.value = value
        self.dtype = "float32" if dtype is None else dtype

    def __repr__(self) -> str:
        return f"Scalar({self.value!r}, dtype={self.dtype!r})"

# TPU-MLIR's device names; Strata builds the same graph for the CPU.
_TPU_DEVICES = ("bm1684x", "bm1688", "cv183x", "bm1684", "bm1690", "cv186x", "sg2380")


def init(device: str) -> None:
    """Starts a new graph. Strata runs on the CPU ("cpu"); TPU-MLIR's chip
    names are accepted with a warning and also build for the CPU."""
    if not isinstance(device, str):
        raise Error(f"init: parameter 'device' = {device!r} must be a string")
    if device.lower() in _TPU_DEVICES:
        warnings.warn(f"tpulang.init: device '{device}' is a TPU; Strata builds "
                      "the graph for the CPU", stacklevel=2)
        device = "cpu"
    _tl.init(device)


def deinit() -> None:
    """Frees the graph; ops called afterwards raise strata.Error."""
    _tl.deinit()


def _names(tensors: Sequence[Tensor], what: str) -> List[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise Error(f"compile: parameter '{what}' must be a list of Tensors")
    return list(tensors)


_MODES = ("f32", "f16", "bf16", "int8", "all", "none")
_LOG_LEVELS = ("normal", "simple", "only-layer-group", "quiet")
# TPU-MLIR's tolerance for a lowered (f16/bf16/int8) model against the float
# one; float32 against the interpreter keeps the top tolerance.
_LOWERED_TOLERANCE = (0.95, 0.80)


def compile(name: str, inputs: List[Tensor], outputs: List[Tensor], cmp: bool = True,
            refs: Optional[Dict[str, np.ndarray]] = None, mode: str = "f32",
            dynamic: bool = False, asymmetric: bool = False, no_save: bool = False,
            opt: int = 2, mlir_inference: bool = True, bmodel_inference: bool = True,
            log_level: str = "normal", embed_debug_info: bool = False):
    """Writes ``<name>_origin.mlir`` and ``<name>_TOP_F32_all_weight.npz``.

    With ``mlir_inference`` the model runs in the reference interpreter on the
    inputs' data (``Tensor(data=...)``, or ``refs[name]`` for an input) and
    its outputs are saved to ``<name>_top_outputs.npz``; with ``cmp`` they are
    compared with ``refs`` (cosine and euclidean similarity >= 0.99, as
    TPU-MLIR's top comparison) and a mismatch raises :class:`strata.Error`.
    With ``bmodel_inference`` the model is also compiled for the CPU
    (``<name>.strata``), run, and compared with the interpreter's outputs.

    ``mode``: "f32" compiles the graph as written (its integer ops stay
    integer); "f16", "bf16" and "int8" quantize its float convolutions and
    matmuls with Strata's top-quantize, as :func:`compile_f32` does (int8
    calibrated on the inputs' data; ``asymmetric`` picks asymmetric int8
    activations); "all" is f32, f16 and bf16; "none" stops after the
    interpreter. Returns the interpreter's outputs ({name: array}), or None
    when nothing ran.
    """
    return _compile(name, inputs, outputs, cmp, refs, mode, asymmetric, no_save,
                    mlir_inference, bmodel_inference, log_level, "compile")


def compile_f32(name: str, inputs: List[Tensor], outputs: List[Tensor], cmp: bool = True,
                refs: Optional[Dict[str, np.ndarray]] = None, mode: str = "f32",
                dynamic: bool = False, opt: int = 2, no_save: bool = False,
                mlir_inference: bool = True, bmodel_inference: bool = True,
                top_mlir_inference: bool = True, tpu_mlir_inference: bool = True,
                log_level: str = "normal", embed_debug_info: bool = False):
    """TPU-MLIR's float compile: :func:`compile` with symmetric int8 (TPU-MLIR's
    default); ``top_mlir_inference=False`` or ``mlir_inference=False`` skips
    the interpreter (and so every run)."""
    return _compile(name, inputs, outputs, cmp, refs, mode, False, no_save,
                    mlir_inference and top_mlir_inference, bmodel_inference, log_level,
                    "compile_f32")


def _compile(name, inputs, outputs, cmp, refs, mode, asymmetric, no_save, mlir_inference,
             bmodel_inference, log_level, op):
    inputs = _names(inputs, "inputs")
    outputs = _names(outputs, "outputs")
    if mode not in _MODES:
        raise Error(f"{op}: parameter 'mode' = {mode!r} must be one of "
                    + ", ".join(repr(m) for m in _MODES))
    if log_level not in _LOG_LEVELS:
        raise Error(f"{op}: parameter 'log_level' = {log_level!r} must be one of "
                    + ", ".join(repr(m) for m in _LOG_LEVELS))
    _tl.compile(name, inputs, outputs, cmp, None, mode, False, asymmetric, no_save, 2)
    if refs is not None and not isinstance(refs, dict):
        raise Error(f"{op}: parameter 'refs' must be a dict {{name: array}}, "
                    f"not {type(refs).__name__}")
    feeds = {}
    for t in inputs:
        if refs is not None and t.name in refs:
            feeds[t.name] = np.ascontiguousarray(refs[t.name])
        elif t.buffer is not None:
            feeds[t.name] = t.buffer
    np.savez(name + "_in_f32.npz", **feeds)
    if refs is not None:
        np.savez(name + "_ref_output.npz", **refs)
    if not mlir_inference:
        return None
    missing = [t.name for t in inputs if t.name not in feeds]
    if missing:
        raise Error(f"{op}: input '{missing[0]}' has no data to run the model "
                    "on; give Tensor(..., data=array) or refs={name: array} "
                    "(or mlir_inference=False)")
    model = load_mlir(name + "_origin.mlir")
    top = run_ref(model, feeds)
    np.savez(name + "_top_outputs.npz", **top)
    if cmp and refs is not None:
        _check(refs, top, "the reference interpreter's outputs against refs", (0.99, 0.99), op)
    if not bmodel_inference or mode == "none":
        return top
    for m in (("f32", "f16", "bf16") if mode == "all" else (mode,)):
        if m == "f32":
            artifact, stem, tolerance = _compile_model(model), name, (0.99, 0.99)
        else:
            calibration = feeds if m == "int8" else None
            artifact = _compile_model(model, quantize=m, calibration=calibration,
                                      symmetric=m == "int8" and not asymmetric)
            stem, tolerance = f"{name}_{m}", _LOWERED_TOLERANCE
        artifact.save(stem + ".strata")
        compiled = Session(artifact).run(feeds)
        np.savez(stem + "_model_outputs.npz", **compiled)
        _check(top, compiled, f"the compiled {m} model's outputs against the interpreter's",
               tolerance, op)
    return top


def _check(reference: Dict[str, np.ndarray], actual: Dict[str, np.ndarray], what: str,
           tolerance, op: str) -> None:
    results = compare({k: v for k, v in reference.items() if k in actual}, actual, tolerance)
    bad = [f"{k}: {r.verdict} (cosine {r.cosine:.6f}, euclidean {r.euclidean:.6f}, "
           f"max abs {r.max_abs:.3g}){' ' + r.detail if r.detail else ''}"
           for k, r in results.items() if not r.passed]
    if bad:
        raise Error(f"{op}: comparing {what} failed: " + "; ".join(bad))


# ---- convolution and matmul -------------------------------------------------

def conv_v2(tensor_i: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
            stride: Optional[List[int]] = None, dilation: Optional[List[int]] = None,
            pad: Optional[List[int]] = None, group: int = 1,
            input_zp: Union[int, List[int], None] = None,
            weight_zp: Union[int, List[int], None] = None,
            out_dtype: Optional[str] = None, out_name: Optional[str] = None) -> Tensor:
    """2-D convolution, NCHW; ``pad`` is [up, down, left, right]."""
    return _tl.conv_v2(tensor_i, weight, bias, stride, dilation, pad, group,
                       input_zp, weight_zp, out_dtype, out_name)


def conv_int(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
             stride: Optional[List[int]] = None, dilation: Optional[List[int]] = None,
             pad: Optional[List[int]] = None, group: int = 1,
             input_zp: Union[int, List[int], None] = None,
             weight_zp: Union[int, List[int], None] = None,
             out_dtype: Optional[str] = None, out_name: Optional[str] = None) -> Tensor:
    """Integer 2-D convolution (int8/uint8 input and weight, int32 bias),
    accumulating in int32: ``sum((x - input_zp) * (w - weight_zp)) + bias``.
    A zero point not given is the tensor's own (``Tensor(zero_point=...)``).
    A weight's per-channel scales (``Tensor(scale=[...])``) run along its
    output channels (dim 0)."""
    for param, t in (("input", input), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype not in ("int8", "uint8"):
            raise Error(f"conv_int: parameter '{param}' has dtype {t.dtype}; "
                        "conv_int takes int8 or uint8")
    if isinstance(bias, Tensor) and bias.dtype != "int32":
        raise Error(f"conv_int: parameter 'bias' has dtype {bias.dtype}; conv_int "
                    "takes an int32 bias")
    if out_dtype is not None and out_dtype not in ("int32", "uint32"):
        raise Error(f"conv_int: parameter 'out_dtype' = {out_dtype!r} must be "
                    "'int32' or 'uint32'")
    return _tl.conv_v2(input, weight, bias, stride, dilation, pad, group,
                       input_zp, weight_zp, out_dtype or "int32", out_name)


def _per_channel(value, n: int, op: str, param: str) -> List[float]:
    values = [float(v) for v in value] if isinstance(value, (list, tuple)) else [float(value)]
    if len(values) not in (1, n):
        raise Error(f"{op}: parameter '{param}' has {len(values)} values; give one or "
                    f"one per output channel ({n})")
    if any(not v > 0 for v in values):
        raise Error(f"{op}: parameter '{param}' = {value!r} must be > 0")
    return values * n if len(values) == 1 else values


def conv_quant(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
               stride: Optional[List[int]] = None, dilation: Optional[List[int]] = None,
               pad: Optional[List[int]] = None, group: int = 1,
               input_scale: Union[float, List[float], None] = None,
               weight_scale: Union[float, List[float], None] = None,
               output_scale: Union[float, List[float], None] = None,
               input_zp: Union[int, List[int], None] = None,
               weight_zp: Union[int, List[int], None] = None,
               output_zp: Union[int, List[int], None] = None,
               out_dtype: Optional[str] = None, out_name: Optional[str] = None) -> Tensor:
    """Quantized 2-D convolution to a quantized output: :func:`conv_int` (int32
    accumulator; bias in units of input_scale * weight_scale) then
    :func:`requant_int` (MultiplierShift, half away from zero) by
    ``input_scale * weight_scale[c] / output_scale`` per output channel, plus
    ``output_zp``. Scales and zero points not given are the tensors' own (a
    weight's list of scales is per output channel); the multipliers are
    top-quantize's (Strata's ``multiplier_shift``). The result is quantized
    with ``output_scale`` and ``output_zp``."""
    op = "conv_quant"
    sx = input_scale if input_scale is not None else input.scale
    sw = weight_scale if weight_scale is not None else weight.scale
    if sx is None or sw is None or output_scale is None:
        missing = "input_scale" if sx is None else "weight_scale" if sw is None else \
            "output_scale"
        raise Error(f"{op}: parameter '{missing}' is needed (the tensor has no scale)")
    if isinstance(sx, (list, tuple)) or isinstance(output_scale, (list, tuple)):
        raise Error(f"{op}: per-channel input_scale/output_scale are not supported "
                    "(as TPU-MLIR)")
    o_dtype = out_dtype if out_dtype is not None else input.dtype
    if o_dtype not in ("int8", "uint8"):
        raise Error(f"{op}: parameter 'out_dtype' = {o_dtype!r} must be 'int8' or 'uint8'")
    oc = weight.shape[0] if weight.shape else 0
    sws = _per_channel(sw, oc, op, "weight_scale")
    sy = _per_channel(output_scale, 1, op, "output_scale")[0]
    sxv = _per_channel(sx, 1, op, "input_scale")[0]
    zx = input_zp if input_zp is not None else (input.zero_point or 0)
    acc = conv_int(input, weight, bias, stride, dilation, pad, group, zx, weight_zp,
                   "int32", None)
    mul, shift = [], []
    for s in sws:
        m, r = _tl.multiplier_shift(sxv * s / sy)
        mul.append(m)
        shift.append(-r)
    # requant_int's MultiplierShift, the result quantized (output_scale, output_zp).
    return _tl.requant_int(acc, mul, shift, 0 if output_zp is None else output_zp, 2,
                           o_dtype, out_name, "half_away_from_zero", sy)


def conv(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
         stride: Optional[List[int]] = None, dilation: Optional[List[int]] = None,
         pad: Optional[List[int]] = None, group: int = 1,
         out_dtype: Optional[str] = None, out_name: Optional[str] = None) -> Tensor:
    """Float 2-D convolution (TPU-MLIR's older ``conv``)."""
    return _tl.conv(input, weight, bias, stride, dilation, pad, group, out_dtype, out_name)


def deconv(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
           stride: Optional[List[int]] = None, dilation: Optional[List[int]] = None,
           pad: Optional[List[int]] = None, output_padding: Optional[List[int]] = None,
           group: int = 1, out_dtype: Optional[str] = None,
           out_name: Optional[str] = None) -> Tensor:
    """2-D transposed convolution."""
    return _tl.deconv(input, weight, bias, stride, dilation, pad, output_padding,
                      group, out_dtype, out_name)


def matmul(input: Tensor, right: Tensor, bias: Optional[Tensor] = None,
           input_transpose: bool = False, right_transpose: bool = False,
           output_transpose: bool = False, keep_dims: bool = True,
           out_dtype: Optional[str] = None, out_name: Optional[str] = None) -> Tensor:
    """Matrix product with optional bias and transposes."""
    return _tl.matmul(input, right, bias, input_transpose, right_transpose,
                      output_transpose, keep_dims, out_dtype, out_name)


# ---- pooling -----------------------------------------------------------------

def maxpool2d(input: Tensor, kernel: Optional[List[int]] = None,
              stride: Optional[List[int]] = None, pad: Optional[List[int]] = None,
              ceil_mode: bool = False, scale: Optional[List[float]] = None,
              zero_point: Optional[List[int]] = None, out_name: Optional[str] = None,
              round_mode: str = "half_away_from_zero") -> Tensor:
    """2-D max pooling; ``pad`` is [up, down, left, right]."""
    return _tl.maxpool2d(input, kernel, stride, pad, ceil_mode, scale, zero_point,
                         out_name, round_mode)


def maxpool(input: Tensor, kernel: Optional[List[int]] = None,
            stride: Optional[List[int]] = None, pad: Optional[List[int]] = None,
            ceil_mode: bool = False, out_name: Optional[str] = None) -> Tensor:
    """TpuLang's older name of maxpool2d."""
    return _tl.maxpool(input, kernel, stride, pad, ceil_mode, out_name)


def avgpool2d(input: Tensor, kernel: Optional[List[int]] = None,
              stride: Optional[List[int]] = None, pad: Optional[List[int]] = None,
              ceil_mode: bool = False, scale: Optional[List[float]] = None,
              zero_point: Optional[List[int]] = None, out_name: Optional[str] = None,
              count_include_pad: bool = False, round_mode: str = "half_away_from_zero",
              first_round_mode: str = "half_away_from_zero") -> Tensor:
    """2-D average pooling."""
    return _tl.avgpool2d(input, kernel, stride, pad, ceil_mode, scale, zero_point,
                         out_name, count_include_pad, round_mode, first_round_mode)


def avgpool(input: Tensor, kernel: Optional[List[int]] = None,
            stride: Optional[List[int]] = None, pad: Optional[List[int]] = None,
            ceil_mode: bool = False, out_name: Optional[str] = None,
            count_include_pad: bool = False) -> Tensor:
    """TpuLang's older name of avgpool2d."""
    return _tl.avgpool(input, kernel, stride, pad, ceil_mode, out_name, count_include_pad)


# ---- elementwise -------------------------------------------------------------

def _operand(x, op: str, param: str):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, Scalar):
        x = x.value
    if isinstance(x, (bool, np.bool_)):
        raise Error(f"{op}: parameter '{param}' = {x!r} must be a Tensor or a number")
    if isinstance(x, (int, float, np.integer, np.floating)):
        return float(x)
    raise Error(f"{op}: parameter '{param}' must be a Tensor or a number, not "
                f"{type(x).__name__}")


def _binary(fn, op, tensor_i0, tensor_i1, *rest):
    a = _operand(tensor_i0, op, "tensor_i0")
    b = _operand(tensor_i1, op, "tensor_i1")
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise Error(f"{op}: at least one of 'tensor_i0' and 'tensor_i1' must be a Tensor")
    return fn(a, b, *rest)


def _binary_fn(name, doc):
    core = getattr(_tl, name)

    def fn(tensor_i0: Union[Tensor, Scalar], tensor_i1: Union[Tensor, Scalar],
           scale: Optional[List[float]] = None, zero_point: Optional[List[int]] = None,
           out_dtype: Optional[str] = None, out_name: Optional[str] = None) -> Tensor:
        return _binary(core, name, tensor_i0, tensor_i1, scale, zero_point, out_dtype,
                       out_name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + " Broadcasting; either side may be a number." + (
        " With ``scale=[s0, s1, s_out]`` (and ``zero_point=[z0, z1, z_out]``, default"
        " zeros) on int8/uint8 tensors it is TPU-MLIR's quantized " + name + ", in its"
        " integer arithmetic; the result is quantized (s_out, z_out), of ``out_dtype``"
        " (default tensor_i0's); a number operand is then a stored integer value."
        if name in ("add", "sub", "mul") else "")
    return fn


add = _binary_fn("add", "Elementwise sum.")
sub = _binary_fn("sub", "Elementwise difference.")
mul = _binary_fn("mul", "Elementwise product.")
max = _binary_fn("max", "Elementwise maximum.")
min = _binary_fn("min", "Elementwise minimum.")


def div(tensor_i0: Union[Tensor, Scalar], tensor_i1: Union[Tensor, Scalar],
        out_name: Optional[str] = None) -> Tensor:
    """Elementwise quotient."""
    return _binary(_tl.div, "div", tensor_i0, tensor_i1, out_name)


def pow(tensor_i: Tensor, exponent: float, out_name: Optional[str] = None) -> Tensor:
    """``tensor_i ** exponent``."""
    return _tl.pow(tensor_i, float(exponent), out_name)


def _compare_fn(name):
    core = getattr(_tl, name)

    def fn(tensor_i0: Tensor, tensor_i1: Tensor, scale: Optional[List[float]] = None,
           zero_point: Optional[List[int]] = None, out_name: Optional[str] = None) -> Tensor:
        return core(tensor_i0, tensor_i1, scale, zero_point, out_name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise comparison '{name}' of two tensors (1 or 0)."
    return fn


def _compare_const_fn(name):
    core = getattr(_tl, name)

    def fn(tensor_i0: Tensor, scalar_i1: Scalar, scale: Optional[List[float]] = None,
           zero_point: Optional[List[int]] = None, out_name: Optional[str] = None) -> Tensor:
        return core(tensor_i0, float(_operand(scalar_i1, name, "scalar_i1")), scale,
                    zero_point, out_name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise comparison '{name[:-1]}' of a tensor with a number."
    return fn


gt, lt, ge, le, eq, ne = (_compare_fn(n) for n in ("gt", "lt", "ge", "le", "eq", "ne"))
gts, lts, ges, les, eqs, nes = (_compare_const_fn(n)
                                for n in ("gts", "lts", "ges", "les", "eqs", "nes"))


def cond_select(cond: Tensor, tbrn: Union[Tensor, Scalar], fbrn: Union[Tensor, Scalar],
                out_name: Optional[str] = None) -> Tensor:
    """``tbrn`` where ``cond`` is non-zero, else ``fbrn`` (two tensors or two numbers)."""
    t = _operand(tbrn, "cond_select", "tbrn")
    f = _operand(fbrn, "cond_select", "fbrn")
    if isinstance(t, Tensor) != isinstance(f, Tensor):
        raise Error("cond_select: 'tbrn' and 'fbrn' must both be Tensors or both numbers")
    return _tl.cond_select(cond, t, f, out_name)


def where(cond: Tensor, x: Tensor, y: Tensor, out_name: Optional[str] = None) -> Tensor:
    """``x`` where ``cond`` is non-zero, else ``y``."""
    return _tl.where(cond, x, y, out_name)


def cast(tensor_i: Tensor, out_dtype: str = "float32", out_name: Optional[str] = None,
         round_mode: str = "half_away_from_zero") -> Tensor:
    """Converts to ``out_dtype``."""
    return _tl.cast(tensor_i, out_dtype, out_name, round_mode)


# ---- activations ---------------------------------------------------------------

def relu(input: Tensor, out_name: Optional[str] = None) -> Tensor:
    """max(x, 0)."""
    return _tl.relu(input, out_name)


def prelu(input: Tensor, slope: Tensor, out_name: Optional[str] = None) -> Tensor:
    """x if x > 0 else slope * x."""
    return _tl.prelu(input, slope, out_name)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, out_name: Optional[str] = None,
               round_mode: str = "half_away_from_zero") -> Tensor:
    """x if x > 0 else negative_slope * x."""
    return _tl.leaky_relu(input, negative_slope, out_name, round_mode)


def clamp(input: Tensor, min: float, max: float, out_name: Optional[str] = None) -> Tensor:
    """Limits to [min, max]."""
    return _tl.clamp(input, min, max, out_name)


def clip(input: Tensor, min: float, max: float, out_name: Optional[str] = None) -> Tensor:
    """Limits to [min, max] (another name of clamp)."""
    return _tl.clip(input, min, max, out_name)


def _activation(name, doc):
    core = getattr(_tl, name)

    def fn(input: Tensor, scale: Optional[List[float]] = None,
           zero_point: Optional[List[int]] = None, out_name: Optional[str] = None) -> Tensor:
        return core(input, scale, zero_point, out_name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


exp = _activation("exp", "e ** x.")
ln = _activation("ln", "Natural logarithm.")
sqrt = _activation("sqrt", "Square root.")
rsqrt = _activation("rsqrt", "1 / sqrt(x).")
silu = _activation("silu", "x * sigmoid(x).")
erf = _activation("erf", "The error function.")
hswish = _activation("hswish", "x * relu6(x + 3) / 6.")
hsigmoid = _activation("hsigmoid", "relu6(x + 3) / 6.")
square = _activation("square", "x * x.")


def log(input: Tensor, out_name: Optional[str] = None) -> Tensor:
    """Natural logarithm (another name of ln)."""
    return _tl.log(input, out_name)


def _rounded_activation(name, doc):
    core = getattr(_tl, name)

    def fn(input: Tensor, scale: Optional[List[float]] = None,
           zero_point: Optional[List[int]] = None, out_name: Optional[str] = None,
           round_mode: str = "half_away_from_zero") -> Tensor:
        return core(input, scale, zero_point, out_name, round_mode)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


tanh = _rounded_activation("tanh", "Hyperbolic tangent.")
sigmoid = _rounded_activation("sigmoid", "1 / (1 + e ** -x).")
gelu = _rounded_activation("gelu", "Gaussian error linear unit.")


def abs(input: Tensor, out_name: Optional[str] = None) -> Tensor:
    """|x|."""
    return _tl.abs(input, out_name)


def neg(input: Tensor, out_name: Optional[str] = None) -> Tensor:
    """-x."""
    return _tl.neg(input, out_name)


# ---- softmax and normalization -----------------------------------------------------

def softmax(input: Tensor, axis: int, out_name: Optional[str] = None) -> Tensor:
    """Softmax along ``axis``."""
    return _tl.softmax(input, axis, out_name)


def log_softmax(input: Tensor, axis: int, out_name: Optional[str] = None) -> Tensor:
    """log(softmax) along ``axis``."""
    return _tl.log_softmax(input, axis, out_name)


def batch_norm(input: Tensor, mean: Tensor, variance: Tensor, gamma: Optional[Tensor] = None,
               beta: Optional[Tensor] = None, epsilon: float = 1e-5,
               out_name: Optional[str] = None) -> Tensor:
    """Inference batch normalization over channel axis 1."""
    return _tl.batch_norm(input, mean, variance, gamma, beta, epsilon, out_name)


def layer_norm(input: Tensor, gamma: Optional[Tensor] = None, beta: Optional[Tensor] = None,
               epsilon: float = 1e-5, axis: int = 2, out_name: Optional[str] = None) -> Tensor:
    """Normalizes over the axes from ``axis`` on."""
    return _tl.layer_norm(input, gamma, beta, epsilon, axis, out_name)


def group_norm(input: Tensor, gamma: Optional[Tensor] = None, beta: Optional[Tensor] = None,
               epsilon: float = 1e-5, num_groups: int = 1,
               out_name: Optional[str] = None) -> Tensor:
    """Group normalization."""
    return _tl.group_norm(input, gamma, beta, epsilon, num_groups, out_name)


# ---- shape and data arrangement ------------------------------------------------------

def _ints(x, op, param):
    if isinstance(x, (int, np.integer)):
        return [int(x)]
    try:
        return [int(v) for v in x]
    except TypeError:
        raise Error(f"{op}: parameter '{param}' = {x!r} must be an int or a list "
                    "of ints") from None


def reshape(tensor: Tensor, new_shape: Union[Tuple[int], List[int]],
            out_name: Optional[str] = None) -> Tensor:
    """Reshapes (one dim may be -1)."""
    if isinstance(new_shape, Tensor):
        raise Error("reshape: parameter 'new_shape' as a Tensor is not supported "
                    "by Strata; give a list of ints")
    return _tl.reshape(tensor, _ints(new_shape, "reshape", "new_shape"), out_name)


def permute(input: Tensor, order: Union[Tuple[int], List[int]],
            out_name: Optional[str] = None) -> Tensor:
    """Transposes the axes into ``order``."""
    return _tl.permute(input, _ints(order, "permute", "order"), out_name)


def concat(inputs: List[Tensor], scales: Optional[List[float]] = None,
           zero_points: Optional[List[int]] = None, axis: int = 0,
           out_name: Optional[str] = None, dtype: str = "float32",
           round_mode: str = "half_away_from_zero") -> Tensor:
    """Concatenates along ``axis``."""
    return _tl.concat(list(inputs), scales, zero_points, axis, out_name, dtype, round_mode)


def split(input: Tensor, axis: int = 0, num: int = 1,
          size: Union[Tuple[int], List[int]] = (), out_name: Optional[str] = None) -> List[Tensor]:
    """Splits into ``num`` parts (of sizes ``size`` if given)."""
    return _tl.split(input, axis, num, _ints(size, "split", "size"), out_name)


def slice(input: Tensor, starts: Union[int, List[int]], ends: Union[int, List[int]],
          steps: Union[int, List[int], None] = None, axes: Union[int, List[int], None] = None,
          out_name: Optional[str] = None) -> Tensor:
    """Strided slice."""
    return _tl.slice(input, _ints(starts, "slice", "starts"), _ints(ends, "slice", "ends"),
                     None if steps is None else _ints(steps, "slice", "steps"),
                     None if axes is None else _ints(axes, "slice", "axes"), out_name)


def pad(input: Tensor, method: str = "constant", value: Optional[Scalar] = None,
        padding: Union[Tuple[int], List[int], None] = None,
        out_name: Optional[str] = None) -> Tensor:
    """Pads; ``padding`` has 2 * rank values (all begins, then all ends)."""
    return _tl.pad(input, method, None if value is None else _operand(value, "pad", "value"),
                   None if padding is None else _ints(padding, "pad", "padding"), out_name)


def index_select(input: Tensor, index: Tensor, axis: int = -1,
                 out_name: Optional[str] = None, keep_dims: bool = True) -> Tensor:
    """Gathers along ``axis``."""
    return _tl.index_select(input, index, axis, out_name, keep_dims)


def tile(input: Tensor, reps: Union[Tuple[int], List[int]], out_name: Optional[str] = None) -> Tensor:
    """Repeats the tensor ``reps`` times per axis."""
    return _tl.tile(input, _ints(reps, "tile", "reps"), out_name)


def broadcast(input: Tensor, reps: Union[Tuple[int], List[int]],
              out_name: Optional[str] = None) -> Tensor:
    """Broadcasts to the shape ``reps``."""
    return _tl.broadcast(input, _ints(reps, "broadcast", "reps"), out_name)


def expand(input: Tensor, shape: Union[Tuple[int], List[int]],
           out_name: Optional[str] = None) -> Tensor:
    """Broadcasts to ``shape``."""
    return _tl.expand(input, _ints(shape, "expand", "shape"), out_name)


def upsample(input: Tensor, scale: int = 2, out_name: Optional[str] = None) -> Tensor:
    """Nearest upsampling of H and W by ``scale``."""
    return _tl.upsample(input, scale, out_name)


def reduce(input: Tensor, method: str = "ReduceSum", axes: Union[List[int], int] = [1, 2],
           keep_dims: bool = True, out_name: Optional[str] = None) -> Tensor:
    """Reduces over ``axes`` (ReduceSum, ReduceMean, ReduceMax, ...)."""
    return _tl.reduce(input, method, _ints(axes, "reduce", "axes"), keep_dims, out_name)


def arg(input: Tensor, method: str = "max", axis: int = 0, keep_dims: bool = True,
        out_name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """(indices, values) of the max or min along ``axis``."""
    return tuple(_tl.arg(input, method, axis, keep_dims, out_name))


def squeeze(tensor_i: Tensor, axis: Union[Tuple[int], List[int]],
            out_name: Optional[str] = None) -> Tensor:
    """Removes size-1 axes."""
    return _tl.squeeze(tensor_i, _ints(axis, "squeeze", "axis"), out_name)


def unsqueeze(input: Tensor, axes: List[int] = [1, 2], out_name: Optional[str] = None) -> Tensor:
    """Inserts size-1 axes."""
    return _tl.unsqueeze(input, _ints(axes, "unsqueeze", "axes"), out_name)


def interpolate(input: Tensor, scale_h: float, scale_w: float, method: str = "nearest",
                coord_mode: str = "pytorch_half_pixel",
                out_name: Optional[str] = None) -> Tensor:
    """Resizes H and W by the scales."""
    return _tl.interpolate(input, scale_h, scale_w, method, coord_mode, out_name)


def depth2space(input: Tensor, block_h: int, block_w: int, is_CRD: bool = False,
                is_inversed: bool = False, in_is_NCHW: bool = True, out_is_NCHW: bool = True,
                swap_cr: bool = False, out_name: Optional[str] = None) -> Tensor:
    """Depth to space (or back with ``is_inversed``)."""
    return _tl.depth2space(input, block_h, block_w, is_CRD, is_inversed, in_is_NCHW,
                           out_is_NCHW, swap_cr, out_name)


# ---- quantization ------------------------------------------------------------

def requant_fp_to_int(tensor_i: Tensor, scale: Union[float, List[float]],
                      offset: Union[int, List[int]], requant_mode: int, out_dtype: str,
                      out_name: Optional[str] = None,
                      round_mode: str = "half_away_from_zero") -> Tensor:
    """Quantizes a float tensor: round(x * scale) + offset."""
    return _tl.requant_fp_to_int(tensor_i, scale, offset, requant_mode, out_dtype,
                                 out_name, round_mode)


def dequant_int_to_fp(tensor_i: Tensor, scale: Union[float, List[float]],
                      offset: Union[int, List[int], float, List[float]],
                      out_dtype: str = "float32", out_name: Optional[str] = None,
                      round_mode: str = "half_away_from_zero") -> Tensor:
    """Dequantizes: (x - offset) * scale."""
    return _tl.dequant_int_to_fp(tensor_i, scale, offset, out_dtype, out_name, round_mode)


def requant_int(tensor_i: Tensor, mul: Union[int, List[int]], shift: Union[int, List[int]],
                offset: Union[int, List[int]], requant_mode: int, out_dtype: str = "int8",
                out_name: Optional[str] = None, round_mode: str = "half_away_from_zero",
                rq_axis: int = 1, fuse_rq_to_matmul: bool = False) -> Tensor:
    """Integer requantization by multiplier and shift (negative: a right shift),
    per channel along axis 1 when lists are given. ``requant_mode`` 0
    (TFLite_LShift) and 1 (TFLite) are TPU-MLIR's MultiplyByQuantizedMultiplier
    (a positive shift shifts the int32 input left first); 2 is MultiplierShift.
    ``fuse_rq_to_matmul`` is accepted and has no effect."""
    if rq_axis != 1:
        raise Error(f"requant_int: parameter 'rq_axis' = {rq_axis!r} is not supported "
                    "(channels are axis 1)")
    return _tl.requant_int(tensor_i, mul, shift, offset, requant_mode, out_dtype,
                           out_name, round_mode, None)
