"""Strata: import ONNX models, build TpuLang graphs, compile them for the CPU
and run them on numpy arrays.

    import numpy as np, strata
    model = strata.import_onnx("net.onnx")
    artifact = strata.compile(model, target="cpu")
    session = strata.Session(artifact)
    outputs = session.run({"x": np.ones((1, 3, 8, 8), np.float32)})

docs/python.md is the reference.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

try:  # bfloat16 arrays (numpy has none) are ml_dtypes' when it is installed
    import ml_dtypes as _ml_dtypes  # noqa: F401
except ImportError:  # pragma: no cover - then bfloat16 crosses as uint16 bits
    _ml_dtypes = None

from . import _core
from ._core import Error

__all__ = [
    "Artifact", "CompareResult", "Error", "Model", "SensitiveSearch", "Session", "TensorInfo",
    "calibrate", "compare", "compile", "import_onnx", "load", "load_mlir", "quantize",
    "run_ref",
]
__version__ = "0.1.0"

ShapeMap = Mapping[str, Sequence[int]]


class TensorInfo(NamedTuple):
    """An input or output of a model: name, shape (-1 for a dynamic dim), dtype."""
    name: str
    shape: Tuple[int, ...]
    dtype: np.dtype


def _infos(raw) -> List[TensorInfo]:
    out = []
    for name, shape, dtype in raw:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            dt = dtype  # a type numpy lacks (e.g. bfloat16 without ml_dtypes)
        out.append(TensorInfo(name, tuple(shape), dt))
    return out


def _shapes(input_shapes: Optional[ShapeMap], what: str) -> Dict[str, List[int]]:
    if input_shapes is None:
        return {}
    if not isinstance(input_shapes, Mapping):
        raise Error(f"{what}: input_shapes must be a dict {{name: shape}}, "
                    f"not {type(input_shapes).__name__}")
    shapes = {}
    for name, shape in input_shapes.items():
        try:
            dims = [int(d) for d in shape]
        except (TypeError, ValueError):
            raise Error(f"{what}: input_shapes['{name}'] = {shape!r} is not a "
                        f"list of ints") from None
        if any(d < 0 for d in dims):
            raise Error(f"{what}: input_shapes['{name}'] = {dims} has a "
                        f"negative dim; give static shapes")
        shapes[str(name)] = dims
    return shapes


class _Signature:
    """name, inputs and outputs of the native object ``self._native``."""
    _native: Any

    @property
    def name(self) -> str:
        """The model's name."""
        return self._native.name

    @property
    def inputs(self) -> List[TensorInfo]:
        """The inputs' (name, shape, dtype); -1 marks a dynamic dim (a Model's) or
        a dim set per variant (a Session's)."""
        return _infos(self._native.inputs)

    @property
    def outputs(self) -> List[TensorInfo]:
        """The outputs' (name, shape, dtype)."""
        return _infos(self._native.outputs)


class SensitiveSearch(NamedTuple):
    """What :func:`quantize` with ``search_sensitive=True`` found (as ``strata
    quantize --search-sensitive`` prints it)."""
    ranking: List[Tuple[str, float]]  # (name, output-cosine loss), worst first
    keep_float: List[str]  # the layers (or activation tables) kept in float
    cosine: float  # the minimum output cosine on the data, keeping them


class Model(_Signature):
    """A model in Strata's Top dialect with its weights, as imported from ONNX
    (:func:`import_onnx`) or read from a ``.mlir`` (:func:`load_mlir`).
    ``search``: the :class:`SensitiveSearch` of a model :func:`quantize`
    quantized with ``search_sensitive=True``, else None."""

    def __init__(self, core: "_core.Model", search: Optional[SensitiveSearch] = None):
        self._m = core
        self._native = core
        self.search = search

    def text(self) -> str:
        """The Top module as MLIR text."""
        return self._m.text()

    def save(self, dir: Union[str, os.PathLike]) -> None:
        """Writes ``dir/<name>_origin.mlir`` and its weight npz (``strata
        compile``, ``run-ref`` and :func:`load_mlir` read the pair)."""
        self._m.save(os.fspath(dir))

    def __repr__(self) -> str:
        return f"Model({self.name!r}, inputs={[i.name for i in self.inputs]})"


def import_onnx(model: Union[str, os.PathLike, bytes, Any], name: Optional[str] = None,
                input_shapes: Optional[ShapeMap] = None) -> Model:
    """Imports an ONNX model into a Strata Top model.

    ``model`` is a path to a ``.onnx`` file, the bytes of a serialized
    ModelProto, or an ``onnx.ModelProto``. ``input_shapes`` fixes inputs'
    dynamic dims (``{"x": [1, 3, 224, 224]}``). A model that does not import
    raises :class:`strata.Error` with the importer's messages.
    """
    shapes = _shapes(input_shapes, "import_onnx")
    if isinstance(model, (str, os.PathLike)):
        return Model(_core.import_onnx(os.fspath(model), None, name or "", shapes))
    if isinstance(model, (bytes, bytearray, memoryview)):
        return Model(_core.import_onnx(None, bytes(model), name or "model", shapes))
    serialize = getattr(model, "SerializeToString", None)
    if serialize is None:
        raise Error("import_onnx: model must be a path, bytes or an "
                    f"onnx.ModelProto, not {type(model).__name__}")
    graph_name = getattr(getattr(model, "graph", None), "name", "") or "model"
    return Model(_core.import_onnx(None, serialize(), name or graph_name, shapes))


def load_mlir(path: Union[str, os.PathLike], weights: Optional[str] = None) -> Model:
    """Reads a Top module (``*_origin.mlir`` or one ``strata compile --target top``
    wrote) and its weight npz (default: the module's ``top.weight_file``)."""
    return Model(_core.load_mlir(os.fspath(path), weights or ""))


class Artifact:
    """A compiled model: the bytes of a ``.strata`` file (docs/artifact.md)."""

    def __init__(self, data: bytes):
        self.data = bytes(data)

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the artifact to ``path`` (a temporary file, then a rename)."""
        path = os.fspath(path)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(self.data)
        os.replace(tmp, path)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"Artifact({len(self.data)} bytes)"


def load(path: Union[str, os.PathLike]) -> Artifact:
    """Reads a ``.strata`` file; :class:`Session` verifies it when it loads."""
    with open(os.fspath(path), "rb") as f:
        return Artifact(f.read())


Samples = Union[Mapping[str, np.ndarray], Sequence[Mapping[str, np.ndarray]]]


def _as_model(model, what: str, input_shapes=None) -> Model:
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        # An ONNX file is imported with the first variant's shapes (dynamic
        # dims need them); every variant is imported again with its own.
        model = (load_mlir(path) if path.endswith(".mlir")
                 else import_onnx(path, input_shapes=input_shapes))
    if not isinstance(model, Model):
        raise Error(f"{what}: model must be a strata.Model or a path, not {type(model).__name__}")
    return model


def _samples(samples: Samples, what: str) -> List[Dict[str, np.ndarray]]:
    if isinstance(samples, Mapping):
        samples = [samples]
    if isinstance(samples, (str, bytes)) or not isinstance(samples, Sequence):
        raise Error(f"{what}: samples must be a dict {{input name: array}} (one sample) "
                    f"or a list of them, not {type(samples).__name__}")
    out = []
    for i, sample in enumerate(samples):
        if not isinstance(sample, Mapping):
            raise Error(f"{what}: sample {i} must be a dict {{input name: array}}, "
                        f"not {type(sample).__name__}")
        out.append({k: np.ascontiguousarray(v) for k, v in sample.items()})
    return out


def _flag(value, name: str, what: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise Error(f"{what}: {name}={value!r} must be True or False")


def calibrate(model: Union[Model, str, os.PathLike], samples: Samples,
              output: Union[str, os.PathLike], method: str = "percentile",
              percentile: float = 99.99, layout: Optional[str] = None,
              bias_correction: bool = False, input_shapes: Optional[ShapeMap] = None) -> str:
    """``strata calibrate`` as a function: runs the optimized model through the
    reference interpreter on ``samples`` (a dict ``{input name: array}``, one
    sample, or a list of them; ``--samples N`` is ``samples[:N]``) and writes
    the calibration table (docs/quantization.md) to ``output``, which it
    returns. ``method``: "minmax", "percentile" (of ``|x|``, at
    ``percentile``) or "kl". ``bias_correction``: also write the per-channel
    means of the int8 layers' inputs (``@mean`` rows), from which int8
    quantization corrects the biases (``--bias-correction``).
    ``input_shapes``: fixes inputs' dims of a model imported from ONNX
    (``--input-shapes``)."""
    shapes = _shapes(input_shapes, "calibrate")
    model = _as_model(model, "calibrate", shapes or None)
    correct = _flag(bias_correction, "bias_correction", "calibrate")
    path = os.fspath(output)
    _core.calibrate(model._m, _samples(samples, "calibrate"), method, float(percentile),
                    layout or "", path, correct, shapes)
    return path


class _Options(NamedTuple):
    """quantize= and its companion arguments, as given."""
    mode: Optional[str]
    calibration: Any = None
    keep_float: Optional[Sequence[str]] = None
    keep_float_file: Union[str, os.PathLike, None] = None
    symmetric: bool = False
    float_activations: bool = False
    per_channel_tables: bool = False
    bias_correction: bool = False
    calibration_method: str = "percentile"
    percentile: float = 99.99
    table_input: Any = "int8"


_COMPANIONS = ("calibration, keep_float, keep_float_file, symmetric, float_activations, "
               "per_channel_tables, table_input and bias_correction")


def _settings(o: _Options, table: Optional[str], what: str) -> "_core.QuantizeSettings":
    s = _core.QuantizeSettings()
    flags = {name: _flag(getattr(o, name), name, what)
             for name in ("symmetric", "float_activations", "per_channel_tables",
                          "bias_correction")}
    if o.mode is None:
        if (o.calibration is not None or o.keep_float or o.keep_float_file is not None
                or any(flags.values()) or o.table_input != "int8"):
            raise Error(f"{what}: {_COMPANIONS} need quantize=...")
        return s
    if not isinstance(o.mode, str):
        raise Error(f"{what}: quantize={o.mode!r} must be 'int8', 'bf16' or 'f16'")
    s.mode = o.mode
    if table is not None:
        s.calibration = table
    if o.keep_float is not None:
        if isinstance(o.keep_float, str) or not all(isinstance(k, str) for k in o.keep_float):
            raise Error(f"{what}: keep_float must be a list of tensor names, "
                        f"not {o.keep_float!r}")
        s.keep_float = list(o.keep_float)
    if o.keep_float_file is not None:
        if not isinstance(o.keep_float_file, (str, os.PathLike)):
            raise Error(f"{what}: keep_float_file must be a path, not {o.keep_float_file!r}")
        s.keep_float_file = os.fspath(o.keep_float_file)
    s.symmetric = flags["symmetric"]
    s.float_activations = flags["float_activations"]
    s.per_channel_tables = flags["per_channel_tables"]
    if not isinstance(o.table_input, str):
        raise Error(f"{what}: table_input={o.table_input!r} must be 'int8' or 'int16'")
    s.table_input = o.table_input
    return s


class _Calibration:
    """The table path of ``calibration=``: a path as given, or a table written
    by :func:`calibrate` from samples into a temporary folder."""

    def __init__(self, model, o: _Options, layout, shapes, what):
        self.dir = None
        self.path = None
        # The mode and the other settings first (the samples may be many).
        placeholder = None if o.calibration is None else "<calibration>"
        settings = _settings(o, placeholder, what)
        if o.mode is None:
            return
        try:
            _core.check_quantize_settings(settings)
        except Error as e:
            raise Error(f"{what}: {e}") from None
        if o.calibration is None:
            if o.bias_correction:
                raise Error(f"{what}: bias_correction calibrates samples; give them as "
                            "calibration= (quantize='int8')")
            if o.mode == "int8":
                raise Error(f"{what}: quantize='int8' needs calibration= (a table path, "
                            "a dict {input name: array} or a list of them)")
            return
        if isinstance(o.calibration, (str, os.PathLike)):
            self.path = os.fspath(o.calibration)
            if o.bias_correction:
                raise Error(f"{what}: bias_correction calibrates samples; calibration="
                            f"'{self.path}' is a table (its @mean rows, written by "
                            "calibrate(..., bias_correction=True), correct the biases)")
            if not os.path.isfile(self.path):
                raise Error(f"{what}: calibration table '{self.path}' does not exist")
            return
        self.dir = tempfile.TemporaryDirectory(prefix="strata-calib")
        self.path = calibrate(model, _samples(o.calibration, what), os.path.join(
            self.dir.name, "calibration.txt"), o.calibration_method, o.percentile, layout,
            o.bias_correction, shapes)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        if self.dir is not None:
            self.dir.cleanup()


def quantize(model: Union[Model, str, os.PathLike], mode: str = "int8",
             calibration: Union[str, os.PathLike, Samples, None] = None,
             keep_float: Optional[Sequence[str]] = None, symmetric: bool = False,
             calibration_method: str = "percentile", percentile: float = 99.99,
             layout: Optional[str] = None, *,
             keep_float_file: Union[str, os.PathLike, None] = None,
             float_activations: bool = False, per_channel_tables: bool = False,
             bias_correction: bool = False, input_shapes: Optional[ShapeMap] = None,
             table_input: str = "int8",
             search_sensitive: bool = False, data: Optional[Samples] = None,
             target_cosine: float = 0.99, search_activations: bool = False) -> Model:
    """``strata quantize`` as a function: the model optimized, then quantized by
    top-quantize (docs/quantization.md) to ``mode`` ("int8", "bf16", "f16"),
    as a :class:`Model` (for :func:`run_ref`, :meth:`Model.save`, ...).
    ``calibration`` (int8): a table path, or samples (a dict ``{input name:
    array}`` or a list of them) calibrated with ``calibration_method`` first
    (``bias_correction``: with ``@mean`` rows). ``keep_float``: tensors whose
    ops stay float (``keep_float_file``: more of them, one a line);
    ``symmetric``: zero-point-0 activations; ``float_activations``: fused
    activations in float instead of int8 tables; ``per_channel_tables``: each
    channel of a table's input its own scale (the table's ``@range`` rows);
    ``table_input="int16"``: the tables' inputs int16, interpolated 513-entry
    tables (top.Table16). ``input_shapes``: fixes inputs' dims of a model imported from ONNX.

    ``search_sensitive`` (int8): keeps in float the layers whose quantization
    costs the most output cosine on ``data`` (samples, as ``calibration``'s)
    until ``target_cosine`` holds (``search_activations``: the fused
    activations' int8 tables instead of the layers); the result's
    ``search`` is a :class:`SensitiveSearch`. As ``strata quantize
    --search-sensitive --data ... --target-cosine C``."""
    shapes = _shapes(input_shapes, "quantize")
    model = _as_model(model, "quantize", shapes or None)
    search = _flag(search_sensitive, "search_sensitive", "quantize")
    activations = _flag(search_activations, "search_activations", "quantize")
    if not search and (data is not None or target_cosine != 0.99 or activations):
        raise Error("quantize: data, target_cosine and search_activations need "
                    "search_sensitive=True")
    if search:
        if mode != "int8":
            raise Error(f"quantize: search_sensitive needs mode='int8', not {mode!r}")
        if data is None:
            raise Error("quantize: search_sensitive needs data= (a dict {input name: "
                        "array} or a list of them)")
        if isinstance(target_cosine, bool) or not isinstance(target_cosine, (int, float)):
            raise Error(f"quantize: target_cosine={target_cosine!r} must be a number")
        search_data = _samples(data, "quantize: data")
    o = _Options(mode, calibration, keep_float, keep_float_file, symmetric,
                 float_activations, per_channel_tables, bias_correction,
                 calibration_method, percentile, table_input)
    with _Calibration(model, o, layout, shapes, "quantize") as table:
        settings = _settings(o, table, "quantize")
        if not search:
            return Model(_core.quantize(model._m, layout or "", settings, shapes))
        q, ranking, kept, cosine = _core.quantize_search(
            model._m, layout or "", settings, shapes, search_data, float(target_cosine),
            activations)
        return Model(q, SensitiveSearch([tuple(r) for r in ranking], list(kept), cosine))


def compile(model: Union[Model, str, os.PathLike], target: str = "cpu",
            quantize: Optional[str] = None,
            input_shapes: Union[ShapeMap, Sequence[ShapeMap], None] = None,
            optimize: bool = True, cpu: Optional[str] = None, opt_level: int = 2,
            layout: Optional[str] = None,
            calibration: Union[str, os.PathLike, Samples, None] = None,
            keep_float: Optional[Sequence[str]] = None, symmetric: bool = False,
            calibration_method: str = "percentile", percentile: float = 99.99, *,
            keep_float_file: Union[str, os.PathLike, None] = None,
            float_activations: bool = False, per_channel_tables: bool = False,
            bias_correction: bool = False, table_input: str = "int8") -> Artifact:
    """Compiles a model into an :class:`Artifact` for ``target`` ("cpu").

    ``model``: a :class:`Model` or a path (``.onnx`` or a Top ``.mlir``).
    ``input_shapes``: a dict fixing inputs' shapes, or a list of dicts, one per
    variant (the runtime picks the variant whose shapes equal its inputs'); for
    models imported from ONNX. ``optimize``: run Strata's Top optimizer first.
    ``cpu``: an x86-64 CPU name as LLVM spells it (default: this machine's);
    ``opt_level``: LLVM's 0-3; ``layout``: "nchw" or "nhwc" conversion while
    optimizing.

    ``quantize``: "int8", "bf16" or "f16" quantizes the optimized model with
    top-quantize, as ``strata compile --quantize`` (docs/quantization.md).
    int8 needs ``calibration``: a table path (``strata calibrate``,
    :func:`calibrate`), or samples -- a dict ``{input name: array}`` or a
    list of them -- calibrated first with ``calibration_method`` ("minmax",
    "percentile" at ``percentile``, "kl"; ``bias_correction``: with
    ``@mean`` rows). ``keep_float``: tensors whose ops stay float
    (``keep_float_file``: more of them, one a line); ``symmetric``:
    zero-point-0 int8 activations; ``float_activations``: fused activations
    in float instead of int8 tables; ``per_channel_tables``: each channel of
    a table's input its own scale; ``table_input="int16"``: interpolated
    tables on int16 inputs. As the CLI's options of the same names.
    """
    if target != "cpu":
        raise Error(f"compile: target '{target}' is not available; the target is 'cpu'")
    if input_shapes is None:
        variants: List[Dict[str, List[int]]] = []
    elif isinstance(input_shapes, Mapping):
        variants = [_shapes(input_shapes, "compile")]
    else:
        variants = [_shapes(v, "compile") for v in input_shapes]
    model = _as_model(model, "compile", variants[0] if variants else None)
    if not isinstance(opt_level, int):
        raise Error(f"compile: opt_level must be an int 0-3, not {opt_level!r}")
    o = _Options(quantize, calibration, keep_float, keep_float_file, symmetric,
                 float_activations, per_channel_tables, bias_correction,
                 calibration_method, percentile, table_input)
    # Calibrated with the first variant's shapes (the table names tensors,
    # which every variant shares).
    with _Calibration(model, o, layout, variants[0] if variants else {}, "compile") as table:
        return Artifact(_core.compile_cpu(model._m, variants, bool(optimize), cpu or "",
                                          opt_level if opt_level >= 0 else 99, layout or "",
                                          _settings(o, table, "compile")))


class Session(_Signature):
    """Runs an artifact on numpy arrays through Strata's runtime (C API).

    ``Session(artifact_or_path, device="cpu", threads=None)``: ``threads`` is
    the size of the session's thread pool (None: one per core; 1: the
    caller's thread only). ``run`` releases the GIL while the model runs, so
    sessions on several Python threads run in parallel; one session runs one
    call at a time.
    """

    def __init__(self, artifact: Union[Artifact, bytes, str, os.PathLike],
                 device: str = "cpu", threads: Optional[int] = None):
        if device != "cpu":
            raise Error(f"Session: device '{device}' is not available; the device is 'cpu'")
        if threads is None:
            n = 0
        elif isinstance(threads, int) and not isinstance(threads, bool) and threads >= 1:
            n = threads
        else:
            raise Error(f"Session: threads must be None or an int >= 1, not {threads!r}")
        if isinstance(artifact, Artifact):
            self._s = _core.Session(artifact.data, n)
        elif isinstance(artifact, (bytes, bytearray)):
            self._s = _core.Session(bytes(artifact), n)
        elif isinstance(artifact, (str, os.PathLike)):
            self._s = _core.Session(os.fspath(artifact), n)
        else:
            raise Error("Session: artifact must be a strata.Artifact, bytes or a "
                        f"path, not {type(artifact).__name__}")
        self._native = self._s

    @property
    def threads(self) -> int:
        """Threads of the session's pool."""
        return self._s.threads

    def run(self, inputs: Mapping[str, np.ndarray],
            outputs: Optional[Mapping[str, np.ndarray]] = None) -> Dict[str, np.ndarray]:
        """Runs the model on ``{name: array}`` and returns ``{name: array}``.

        No copies: the runtime reads each input from the array's own memory
        (an array that is not C-contiguous, or not aligned to its element
        size, goes through one C-contiguous copy) and writes each output
        directly into the array returned. Inputs need the model's dtype and
        a shape one of its variants takes. ``outputs`` (``{name: array}``,
        optional) supplies the arrays to write some outputs into: writable,
        C-contiguous, the output's dtype and shape (for a shape decided at
        run time, at least its bound's bytes; the result is then a view of
        the array's first elements). Errors (a wrong name, dtype or shape, a
        missing input) raise :class:`strata.Error` naming the tensor.
        """
        if not isinstance(inputs, Mapping):
            raise Error(f"Session.run: inputs must be a dict {{name: array}}, "
                        f"not {type(inputs).__name__}")
        if outputs is not None and not isinstance(outputs, Mapping):
            raise Error(f"Session.run: outputs must be a dict {{name: array}}, "
                        f"not {type(outputs).__name__}")
        return self._s.run(dict(inputs), None if outputs is None else dict(outputs))

    def close(self) -> None:
        """Releases the model; later calls raise :class:`strata.Error`."""
        self._s.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_ref(model: Union[Model, str, os.PathLike], inputs: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """Runs a model in Strata's reference interpreter (no compilation)."""
    model = _as_model(model, "run_ref")
    if not isinstance(inputs, Mapping):
        raise Error(f"run_ref: inputs must be a dict {{name: array}}, not {type(inputs).__name__}")
    return _core.run_ref(model._m, dict(inputs))


class CompareResult(NamedTuple):
    """The verdict of :func:`compare`, as ``strata compare`` prints it."""
    verdict: str  # EQUAL, CLOSE, SIMILAR, NOT_SIMILAR or MISMATCH
    passed: bool
    cosine: float
    euclidean: float
    max_abs: float
    max_rel: float
    detail: str

    def __bool__(self) -> bool:
        return self.passed


def _tolerance(tolerance) -> Tuple[float, float]:
    if isinstance(tolerance, str):
        parts = tolerance.split(",")
    else:
        parts = list(tolerance) if isinstance(tolerance, (tuple, list)) else [tolerance]
    try:
        values = tuple(float(p) for p in parts)
    except (TypeError, ValueError):
        values = ()
    if len(values) != 2:
        raise Error(f"compare: tolerance {tolerance!r} must be (cosine, euclidean) "
                    "or 'cos,euclid'")
    return values  # type: ignore[return-value]


def compare(a: Any, b: Any, tolerance: Union[Tuple[float, float], str] = (0.99, 0.99)
            ) -> Union[CompareResult, Dict[str, CompareResult]]:
    """Compares ``b`` with the reference ``a`` by ``strata compare``'s rules
    (tpu-mlir's npz_tool): EQUAL, CLOSE (allclose rtol 1e-3, atol 1e-8),
    SIMILAR (cosine and euclidean similarity >= ``tolerance``), else
    NOT_SIMILAR; different shapes or dtypes are MISMATCH.

    Arrays give a :class:`CompareResult` (truthy when it passes); dicts give
    ``{name: CompareResult}`` for every name of ``a`` (one missing from ``b``
    is a MISMATCH).
    """
    cos, euclid = _tolerance(tolerance)
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        if not (isinstance(a, Mapping) and isinstance(b, Mapping)):
            raise Error("compare: give two arrays or two dicts of arrays")
        results = {}
        for name, ref in a.items():
            if name not in b:
                results[name] = CompareResult("MISMATCH", False, 0.0, 0.0, 0.0, 0.0,
                                              f"'{name}' is missing from the target")
            else:
                results[name] = compare(ref, b[name], (cos, euclid))
        return results
    ra = np.ascontiguousarray(a)
    rb = np.ascontiguousarray(b)
    return CompareResult(*_core.compare(ra, rb, cos, euclid))
