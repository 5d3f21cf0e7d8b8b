"""Harness for numeric tests: run a Top model through `strata run-ref` and
return its outputs, so each test compares them with a numpy reference.

With STRATA_NUMERIC_BACKEND=compiled the same tests run the compiled path
instead: `strata compile m.mlir --target cpu -o m.strata`, then `strata run`.
A model whose op has no CPU lowering yet is an expected failure (xfail,
naming the op); any other compile error or a wrong number fails the test.
Tests of the interpreter's own run-time errors call `run_ref` and check its
message; they are marked `interpreter_only` and skipped in compiled mode."""
import os
import subprocess
import tempfile
import zlib

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
COMPILED = os.environ.get("STRATA_NUMERIC_BACKEND", "ref") == "compiled"


def mlir_type(shape, dtype):
    """MLIR tensor type for a numpy shape and dtype."""
    names = {np.float32: "f32", np.float64: "f64", np.float16: "f16",
             np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64",
             np.uint8: "ui8", np.uint16: "ui16", np.uint32: "ui32",
             np.uint64: "ui64", np.bool_: "i1"}
    elem = names[np.dtype(dtype).type]
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


class Model:
    """Builds a single-function Top module from text lines.

    inputs: name -> array (function arguments, wrapped in top.Input)
    weights: name -> array (top.Weight ops)
    types: optional name -> MLIR type string for inputs and weights whose
    type is not the one `mlir_type` derives from the array, e.g. a quantized
    "tensor<2x3x!quant.uniform<i8:f32, 0.1:3>>" for an int8 array (the npz
    holds the storage integers).
    `body` lines refer to inputs and weights as %<name>; `outputs` lists
    (ssa_name, output_name, mlir_type).
    """

    def __init__(self, inputs=None, weights=None, types=None):
        self.inputs = dict(inputs or {})
        self.weights = dict(weights or {})
        self.types = dict(types or {})
        unknown = set(self.types) - set(self.inputs) - set(self.weights)
        assert not unknown, f"types given for unknown names {sorted(unknown)}"
        self.lines = []

    def type_of(self, name, array):
        """The MLIR type of input or weight `name`."""
        return self.types.get(name) or mlir_type(array.shape, array.dtype)

    def op(self, line):
        self.lines.append(line)

    def text(self, outputs):
        args = ", ".join(f"%{n}_arg: {self.type_of(n, a)} {{top.name = \"{n}\"}}"
                         for n, a in self.inputs.items())
        res = ", ".join(f"{t} {{top.name = \"{n}\"}}" for _, n, t in outputs)
        body = []
        for n, a in self.inputs.items():
            t = self.type_of(n, a)
            body.append(f"%{n} = top.Input(%{n}_arg) : ({t}) -> {t}")
        for n, a in self.weights.items():
            body.append(f"%{n} = top.Weight() {{name = \"{n}\"}} : () -> {self.type_of(n, a)}")
        body.append("%none = top.None() : () -> none")
        body += self.lines
        body.append("return " + ", ".join(v for v, _, _ in outputs) + " : "
                    + ", ".join(t for _, _, t in outputs))
        inner = "\n    ".join(body)
        return (f"module attributes {{top.weight_file = \"w.npz\"}} {{\n"
                f"  func.func @main({args}) -> ({res}) {{\n    {inner}\n  }}\n}}\n")


def run_ref(model, outputs, extra_args=()):
    """Runs the model; returns (returncode, outputs dict or None, stderr)."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "m.mlir"), "w") as f:
            f.write(model.text(outputs))
        np.savez(os.path.join(d, "w.npz"), **model.weights)
        np.savez(os.path.join(d, "in.npz"), **model.inputs)
        out = os.path.join(d, "out.npz")
        if COMPILED:
            return _run_compiled(d, out, extra_args, model.inputs)
        r = subprocess.run([os.path.join(BIN, "strata"), "run-ref",
                            os.path.join(d, "m.mlir"), "--input",
                            os.path.join(d, "in.npz"), "--output", out,
                            *extra_args],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            return r.returncode, None, r.stderr
        with np.load(out) as z:
            return 0, {k: z[k] for k in z.files}, r.stderr


def _run_compiled(d, out, extra_args, inputs):
    """Compiles d/m.mlir for the CPU and runs it on d/in.npz. The inputs'
    shapes are given (--input-shapes) so that shape inference refines the
    tests' unranked result types to the static ones compiling needs."""
    strata = os.path.join(BIN, "strata")
    art = os.path.join(d, "m.strata")
    shapes = [f"--input-shapes={n}:" + "x".join(str(s) for s in a.shape)
              for n, a in inputs.items() if a.ndim > 0]
    c = subprocess.run([strata, "compile", os.path.join(d, "m.mlir"),
                        "--target", "cpu", "-o", art, *shapes],
                       capture_output=True, text=True, timeout=300)
    if c.returncode != 0:
        if "has no CPU code-generation lowering yet" in c.stderr:
            pytest.xfail(c.stderr.strip().splitlines()[0])
        return c.returncode, None, c.stderr
    r = subprocess.run([strata, "run", art, "--input",
                        os.path.join(d, "in.npz"), "--output", out,
                        *extra_args],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return r.returncode, None, c.stderr + r.stderr
    with np.load(out) as z:
        return 0, {k: z[k] for k in z.files}, c.stderr + r.stderr


def run_ok(model, outputs):
    """Runs the model and fails the test with strata's stderr on error."""
    code, res, err = run_ref(model, outputs)
    assert code == 0, err
    return res


@pytest.fixture
def rng(request):
    """A generator seeded from the test's name, so failures reproduce."""
    seed = zlib.crc32(request.node.nodeid.encode())
    return np.random.default_rng(seed)
