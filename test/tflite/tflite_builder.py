"""Builds small TFLite models for the importer's tests, with the flatbuffers
Python package and Python code that flatc generates from the same schema the
importer reads (lib/Frontend/TFLite/schema.fbs), and runs them with the TFLite
interpreter (ai-edge-litert), the reference."""
import atexit
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(ROOT, "lib", "Frontend", "TFLite", "schema.fbs")
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")

_GEN = None


def schema():
    """The `tflite` package flatc generates (object API), made once per run."""
    global _GEN
    if _GEN is None:
        out = tempfile.mkdtemp(prefix="strata-tflite-py-")
        atexit.register(shutil.rmtree, out, ignore_errors=True)
        subprocess.run(["flatc", "--python", "--gen-object-api", "-o", out, SCHEMA],
                       check=True, capture_output=True)
        sys.path.insert(0, out)
        _GEN = importlib.import_module("tflite")
    return _GEN


def _mod(name):
    schema()
    return importlib.import_module("tflite." + name)


def _cls(name):
    return getattr(_mod(name), name)


_TYPES = {np.dtype("float32"): "FLOAT32", np.dtype("float16"): "FLOAT16",
          np.dtype("int8"): "INT8", np.dtype("uint8"): "UINT8",
          np.dtype("int16"): "INT16", np.dtype("int32"): "INT32",
          np.dtype("int64"): "INT64", np.dtype("bool"): "BOOL"}


class ModelBuilder:
    """One subgraph: tensors, constant buffers and operators."""

    def __init__(self):
        self.tensors, self.ops, self.codes = [], [], []
        self.buffers = [_mod("Buffer").BufferT()]  # buffer 0: the empty one
        self.inputs, self.outputs = [], []

    def tensor(self, name, shape, dtype=np.float32, data=None, quant=None):
        """Adds a tensor; `data` makes it a constant; `quant` is (scale, zp)
        or (scales, zps, axis). Returns its index."""
        t = _mod("Tensor").TensorT()
        t.name = name
        t.shape = list(shape)
        t.type = getattr(_cls("TensorType"), _TYPES[np.dtype(dtype)])
        t.buffer = 0
        if data is not None:
            b = _mod("Buffer").BufferT()
            b.data = list(np.ascontiguousarray(np.asarray(data, dtype)).view(np.uint8).ravel())
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        if quant is not None:
            q = _mod("QuantizationParameters").QuantizationParametersT()
            scale, zp = quant[0], quant[1]
            q.scale = [float(s) for s in np.atleast_1d(scale)]
            q.zeroPoint = [int(z) for z in np.atleast_1d(zp)]
            q.quantizedDimension = quant[2] if len(quant) > 2 else 0
            t.quantization = q
        self.tensors.append(t)
        return len(self.tensors) - 1

    def const(self, name, data, quant=None):
        data = np.asarray(data)
        return self.tensor(name, data.shape, data.dtype, data, quant)

    def input(self, name, shape, dtype=np.float32, quant=None):
        i = self.tensor(name, shape, dtype, quant=quant)
        self.inputs.append(i)
        return i

    def custom_op(self, name, inputs, outputs):
        """A CUSTOM operator with custom_code `name`."""
        key = ("CUSTOM", name)
        if key not in self.codes:
            self.codes.append(key)
        o = _mod("Operator").OperatorT()
        o.opcodeIndex = self.codes.index(key)
        o.inputs, o.outputs = list(inputs), list(outputs)
        self.ops.append(o)

    def op(self, code, inputs, outputs, options=None, **fields):
        """Adds operator `code` (a BuiltinOperator name); `options` names the
        options table (e.g. "Conv2DOptions"), `fields` its fields (object API
        names, e.g. strideH=2)."""
        bo = getattr(_cls("BuiltinOperator"), code)
        if bo not in self.codes:
            self.codes.append(bo)
        o = _mod("Operator").OperatorT()
        o.opcodeIndex = self.codes.index(bo)
        o.inputs, o.outputs = list(inputs), list(outputs)
        if options:
            opts = getattr(_mod(options), options + "T")()
            for k, v in fields.items():
                assert hasattr(opts, k), f"{options} has no field {k}"
                setattr(opts, k, v)
            o.builtinOptionsType = getattr(_cls("BuiltinOptions"), options)
            o.builtinOptions = opts
        self.ops.append(o)

    def subgraph(self, outputs=None):
        """A further subgraph (IF branches, WHILE condition and body) sharing
        this model's operator codes and buffers; `.index` is its subgraph
        index (1, 2, ... in creation order). Set `.outputs` before finish."""
        child = ModelBuilder.__new__(ModelBuilder)
        child.tensors, child.ops, child.inputs, child.outputs = [], [], [], []
        child.codes, child.buffers = self.codes, self.buffers
        self.children = getattr(self, "children", []) + [child]
        child.index = len(self.children)
        return child

    def _subgraph(self, name):
        sg = _mod("SubGraph").SubGraphT()
        sg.tensors, sg.operators = self.tensors, self.ops
        sg.inputs, sg.outputs = self.inputs, list(self.outputs)
        sg.name = name
        return sg

    def finish(self, outputs):
        import flatbuffers
        self.outputs = list(outputs)
        m = _mod("Model").ModelT()
        m.version = 3
        m.subgraphs = [self._subgraph("main")] + [
            c._subgraph(f"sub{c.index}") for c in getattr(self, "children", [])]
        m.buffers = self.buffers
        codes = []
        for bo in self.codes:
            c = _mod("OperatorCode").OperatorCodeT()
            if isinstance(bo, tuple):
                c.customCode = bo[1]
                bo = _cls("BuiltinOperator").CUSTOM
            c.builtinCode = bo
            c.deprecatedBuiltinCode = min(bo, 127)
            # The interpreter registers some ops from a later version only.
            c.version = 2 if bo == _cls("BuiltinOperator").BROADCAST_TO else 1
            codes.append(c)
        m.operatorCodes = codes
        m.description = "strata test"
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def run_tflite(model_bytes, inputs):
    """The TFLite interpreter's outputs, by output tensor name."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    # TFLite's builtin kernels, without the XNNPACK delegate (which refuses
    # some quantized ops the builtin kernels run).
    it = Interpreter(model_content=model_bytes, num_threads=1,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    for d in it.get_input_details():  # dynamic dims: the shapes given
        if tuple(d["shape"]) != inputs[d["name"]].shape:
            it.resize_tensor_input(d["index"], inputs[d["name"]].shape)
    it.allocate_tensors()
    for d in it.get_input_details():
        it.set_tensor(d["index"], inputs[d["name"]])
    it.invoke()
    return {d["name"]: it.get_tensor(d["index"]).copy()
            for d in it.get_output_details()}


def import_model(path, out_dir, name="m", extra=()):
    return subprocess.run([STRATA, "import", path, "-o", out_dir, "--name", name, *extra],
                          capture_output=True, text=True)


def run_ref(mlir, inputs, tmp, tag="r"):
    inp, outp = os.path.join(tmp, tag + "_in.npz"), os.path.join(tmp, tag + "_out.npz")
    np.savez(inp, **inputs)
    r = subprocess.run([STRATA, "run-ref", mlir, "--input", inp, "--output", outp],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with np.load(outp) as z:
        return {n: z[n] for n in z.files}


def run_strata(model_bytes, inputs, tmp, optimized=False):
    """Imports the model with `strata import` and runs the imported (or the
    optimized) Top model with `strata run-ref`."""
    path = os.path.join(tmp, "m.tflite")
    with open(path, "wb") as f:
        f.write(model_bytes)
    r = import_model(path, tmp)
    assert r.returncode == 0, r.stderr
    mlir = os.path.join(tmp, "m.mlir" if optimized else "m_origin.mlir")
    return run_ref(mlir, inputs, tmp, "opt" if optimized else "orig")


def cosine(a, b):
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 and nb == 0:
        return 1.0
    return float(a @ b / (na * nb))


def enum(name):
    """A schema enum class, e.g. enum("Padding").SAME."""
    return _cls(name)


class Case:
    """A test model built twice from one description: in float, and
    quantized (int8 or uint8, activations per tensor with ranges taken from
    the float model's tensors run in the TFLite interpreter, weights per
    channel or per tensor, int32 biases)."""

    def __init__(self, qtype=None, ranges=None):
        self.b = ModelBuilder()
        self.qtype = np.dtype(qtype) if qtype else None
        self.ranges = ranges or {}
        self.params = {}  # tensor name -> (scale, zp)
        self.names = {}

    @property
    def quantized(self):
        return self.qtype is not None

    def qparams(self, name, scale=None, zp=None):
        if scale is None and self.qtype == np.int16:  # symmetric, zp 0
            lo, hi = self.ranges.get(name, (-1.0, 1.0))
            scale, zp = max(abs(lo), abs(hi), 1e-6) / 32767.0, 0
        elif scale is None:
            lo, hi = self.ranges.get(name, (-1.0, 1.0))
            lo, hi = min(lo, 0.0), max(hi, 0.0)
            scale = max(hi - lo, 1e-6) / 255.0
            qmin = -128 if self.qtype == np.int8 else 0
            zp = int(np.clip(round(qmin - lo / scale), qmin, qmin + 255))
        self.params[name] = (scale, zp)
        return (scale, zp)

    def act(self, name, shape, scale=None, zp=None, same=None):
        """An activation tensor (fixed `scale`/`zp` when TFLite requires
        them, e.g. softmax's 1/256; `same`: the parameters of that tensor,
        for the ops whose TFLite kernels move quantized values unchanged)."""
        if not self.quantized:
            return self.b.tensor(name, shape)
        if same is not None:
            scale, zp = self.params[same]
        return self.b.tensor(name, shape, self.qtype, quant=self.qparams(name, scale, zp))

    def input(self, name, shape, same=None):
        i = self.act(name, shape, same=same)
        self.b.inputs.append(i)
        return i

    def weight(self, name, data, axis=0):
        """A constant: int8 symmetric per channel on `axis` (None: per
        tensor; uint8 models per tensor with a zero point) when quantized."""
        data = np.asarray(data, np.float32)
        if not self.quantized:
            return self.b.const(name, data)
        if self.qtype == np.uint8:
            lo, hi = min(data.min(), 0.0), max(data.max(), 0.0)
            s = max(hi - lo, 1e-6) / 255.0
            zp = int(np.clip(round(-lo / s), 0, 255))
            q = np.clip(np.round(data / s) + zp, 0, 255).astype(np.uint8)
            self.params[name] = (s, zp)
            return self.b.const(name, q, quant=(s, zp))
        if axis is None:
            s = max(float(np.abs(data).max()), 1e-6) / 127.0
            q = np.clip(np.round(data / s), -127, 127).astype(np.int8)
            self.params[name] = (s, 0)
            return self.b.const(name, q, quant=(s, 0))
        red = tuple(d for d in range(data.ndim) if d != axis)
        s = np.maximum(np.abs(data).max(axis=red), 1e-6) / 127.0
        shape = [1] * data.ndim
        shape[axis] = -1
        q = np.clip(np.round(data / s.reshape(shape)), -127, 127).astype(np.int8)
        self.params[name] = (s, np.zeros_like(s, np.int64))
        return self.b.const(name, q, quant=(s, [0] * len(s), axis))

    def bias(self, name, data, x, w):
        data = np.asarray(data, np.float32)
        if not self.quantized:
            return self.b.const(name, data)
        s = self.params[x][0] * np.asarray(self.params[w][0], np.float64)
        s = np.broadcast_to(s, data.shape)
        # int16 models (TFLite's 16x8 mode) take int64 biases.
        q = np.round(data / s).astype(np.int64 if self.qtype == np.int16 else np.int32)
        return self.b.const(name, q, quant=(s.astype(np.float32), [0] * len(s), 0))

    def quantize_input(self, name, x):
        if not self.quantized:
            return x
        s, zp = self.params[name]
        info = np.iinfo(self.qtype)
        return np.clip(np.round(x / s) + zp, info.min, info.max).astype(self.qtype)


def interpreter_tensors(model_bytes, inputs, dtypes):
    """Every tensor of one of `dtypes` (numpy types) that the interpreter
    computes on `inputs`, by name (intermediate ones preserved)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_content=model_bytes, num_threads=1,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
                     experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    for d in it.get_input_details():
        it.set_tensor(d["index"], inputs[d["name"]])
    it.invoke()
    r = {}
    for d in it.get_tensor_details():
        # Filtering by dtype first: reading a resource tensor crashes the
        # interpreter.
        if d["dtype"] not in dtypes or not len(d["shape"]):
            continue
        try:
            r[d["name"]] = it.get_tensor(d["index"]).copy()
        except ValueError:
            pass
    return r


def tensor_ranges(model_bytes, inputs):
    """(min, max) of every f32 tensor of a float model run by the
    interpreter."""
    return {n: (float(t.min()), float(t.max()))
            for n, t in interpreter_tensors(model_bytes, inputs, (np.float32,)).items()
            if t.size}


def csr_sparsity(dense):
    """SparsityParameters of a 2-d array in CSR (dim 0 DENSE, dim 1
    SPARSE_CSR with Int32Vector segments and indices), and its non-zero
    values in storage order."""
    SP = _mod("SparsityParameters").SparsityParametersT
    DM = _mod("DimensionMetadata").DimensionMetadataT
    IV = _mod("Int32Vector").Int32VectorT
    DT, SIV = _cls("DimensionType"), _cls("SparseIndexVector")
    rows, cols = dense.shape
    d0 = DM()
    d0.format, d0.denseSize = DT.DENSE, rows
    d1 = DM()
    d1.format, d1.denseSize = DT.SPARSE_CSR, cols
    seg, ind = IV(), IV()
    seg.values = [0] + list(np.cumsum([(r != 0).sum() for r in dense]))
    ind.values = [int(j) for r in dense for j in np.nonzero(r)[0]]
    d1.arraySegmentsType, d1.arraySegments = SIV.Int32Vector, seg
    d1.arrayIndicesType, d1.arrayIndices = SIV.Int32Vector, ind
    sp = SP()
    sp.traversalOrder, sp.blockMap, sp.dimMetadata = [0, 1], [], [d0, d1]
    return sp, dense[dense != 0]
