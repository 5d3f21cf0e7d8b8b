"""Strata's native module (strata._core); use the strata package."""

from collections.abc import Mapping, Sequence
from typing import overload

from strata._core import tpulang as tpulang


class Error(ValueError):
    pass

class Model:
    """A Top model and its weights."""

    @property
    def name(self) -> str:
        """The model's name."""

    @property
    def inputs(self) -> list[tuple[str, list[int], str]]:
        """The inputs: (name, shape with -1 for dynamic dims, dtype)."""

    @property
    def outputs(self) -> list[tuple[str, list[int], str]]:
        """The outputs: (name, shape with -1 for dynamic dims, dtype)."""

    def text(self) -> str:
        """The Top module as MLIR text."""

    def save(self, dir: str) -> None:
        """Writes DIR/<name>_origin.mlir and its weight npz."""

def import_onnx(path: str | None, data: bytes | None, name: str, input_shapes: Mapping[str, Sequence[int]]) -> Model:
    """Imports an ONNX model from a file or a serialized ModelProto."""

def load_mlir(path: str, weights: str) -> Model:
    """Reads a Top module and its weight npz."""

class QuantizeSettings:
    """What top-quantize is asked for."""

    def __init__(self) -> None: ...

    @property
    def mode(self) -> str:
        """int8, bf16, f16 or empty."""

    @mode.setter
    def mode(self, arg: str, /) -> None: ...

    @property
    def calibration(self) -> str:
        """int8: the calibration table's path."""

    @calibration.setter
    def calibration(self, arg: str, /) -> None: ...

    @property
    def keep_float(self) -> list[str]:
        """Tensors whose ops stay float."""

    @keep_float.setter
    def keep_float(self, arg: Sequence[str], /) -> None: ...

    @property
    def symmetric(self) -> bool:
        """int8: zero-point-0 activations."""

    @symmetric.setter
    def symmetric(self, arg: bool, /) -> None: ...

    @property
    def float_activations(self) -> bool:
        """
        int8: fused activations in float from the int32 accumulator instead of int8 tables.
        """

    @float_activations.setter
    def float_activations(self, arg: bool, /) -> None: ...

    @property
    def per_channel_tables(self) -> bool:
        """
        int8: each channel of an activation table's input its own scale (the table's @range rows).
        """

    @per_channel_tables.setter
    def per_channel_tables(self, arg: bool, /) -> None: ...

    @property
    def keep_float_file(self) -> str:
        """A file of tensor names to keep float, one a line."""

    @keep_float_file.setter
    def keep_float_file(self, arg: str, /) -> None: ...

    @property
    def table_input(self) -> str:
        """
        int8: 'int16' gives the activation tables int16 inputs (interpolated 513-entry tables, top.Table16).
        """

    @table_input.setter
    def table_input(self, arg: str, /) -> None: ...

def compile_cpu(model: Model, variants: Sequence[Mapping[str, Sequence[int]]], optimize: bool, cpu: str, opt_level: int, layout: str, quantize: QuantizeSettings) -> bytes:
    """
    Compiles a model for this machine's CPU (quantized first when quantize.mode is set); returns the artifact's bytes.
    """

def check_quantize_settings(settings: QuantizeSettings) -> None:
    """
    Raises strata.Error naming a bad setting (mode, table, keep_float, keep_float_file).
    """

def quantize(model: Model, layout: str, settings: QuantizeSettings, input_shapes: Mapping[str, Sequence[int]] = {}) -> Model:
    """
    The optimized model (imported again with input_shapes when given) quantized by top-quantize.
    """

def quantize_search(model: Model, layout: str, settings: QuantizeSettings, input_shapes: Mapping[str, Sequence[int]], data: Sequence[dict], target_cosine: float, activations: bool) -> tuple:
    """
    The optimized model quantized by top-quantize keeping in float the layers the sensitive-layer search picks on data; returns (model, ranking [(name, cosine loss)], kept in float, output cosine).
    """

def calibrate(model: Model, samples: Sequence[dict], method: str, percentile: float, layout: str, path: str, bias_correction: bool = False, input_shapes: Mapping[str, Sequence[int]] = {}) -> int:
    """
    Calibrates the optimized model (imported again with input_shapes when given) on samples and writes the table to path (with bias_correction, also the @mean rows); returns its number of tensors.
    """

def run_ref(model: Model, inputs: dict) -> dict:
    """Runs a model in the reference interpreter."""

def compare(a: object, b: object, cosine: float, euclid: float) -> tuple:
    """
    Compares two arrays by tpu-mlir's npz_tool rules: (verdict, passed, cosine, euclidean, max_abs, max_rel, detail).
    """

class Session:
    """A loaded artifact and a session on it."""

    @overload
    def __init__(self, path: str, threads: int) -> None:
        """Loads the artifact file."""

    @overload
    def __init__(self, data: bytes, threads: int) -> None:
        """Loads artifact bytes."""

    @property
    def name(self) -> str:
        """The model's name."""

    @property
    def inputs(self) -> list[tuple[str, list[int], str]]:
        """The inputs: (name, shape with -1 for a dim set per variant, dtype)."""

    @property
    def outputs(self) -> list[tuple[str, list[int], str]]:
        """The outputs: (name, shape, dtype)."""

    @property
    def threads(self) -> int:
        """Threads of the session's pool."""

    def run(self, inputs: dict, outputs: object | None = None) -> dict:
        """
        Runs on {name: array}; returns {name: array}. Inputs are read in place (a non-contiguous one through one copy); outputs are written in place into new arrays, or into the arrays of OUTPUTS ({name: array}). The GIL is released while the model runs.
        """

    def close(self) -> None:
        """Releases the session and the model."""
