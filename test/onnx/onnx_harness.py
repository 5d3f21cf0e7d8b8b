"""Shared helpers for the ONNX import tests: build small models with
onnx.helper, import them with `strata import`, run them with `strata run-ref`
and compare the outputs with ONNX Runtime's."""
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")


def make_model(nodes, inputs, outputs, inits=None, opset=17):
    """A model of `nodes`. `inputs`: name -> array (graph inputs, typed and
    shaped from the arrays); `outputs`: names (type and shape left to
    inference); `inits`: name -> array initializers."""
    inits = inits or {}
    g_in = [helper.make_tensor_value_info(
        n, helper.np_dtype_to_tensor_dtype(np.asarray(a).dtype), np.asarray(a).shape)
        for n, a in inputs.items()]
    g_out = [helper.make_empty_tensor_value_info(n) for n in outputs]
    g_init = [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()]
    graph = helper.make_graph(nodes, "g", g_in, g_out, g_init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(onnx.IR_VERSION, 10)
    return model


def _import(model, tmp, extra=()):
    path = os.path.join(tmp, "model.onnx")
    onnx.save(model, path)
    return subprocess.run([STRATA, "import", path, "-o", tmp, "--name", "m", *extra],
                          capture_output=True, text=True)


def run_strata(model, inputs):
    """Imports and runs `model`: (returncode, outputs dict, stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        imp = _import(model, tmp)
        if imp.returncode != 0:
            return imp.returncode, None, imp.stderr
        inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, **inputs)
        r = subprocess.run([STRATA, "run-ref", os.path.join(tmp, "m_origin.mlir"),
                            "--input", inp, "--output", outp],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return r.returncode, None, r.stderr
        with np.load(outp) as z:
            return 0, {n: z[n] for n in z.files}, ""


def run_ref_file(path, inputs, tmp, tag):
    """Runs the Top model at `path` with `strata run-ref` on `inputs` (files
    in `tmp` prefixed `tag`); returns the outputs by name."""
    inp, outp = os.path.join(tmp, tag + "_in.npz"), os.path.join(tmp, tag + "_out.npz")
    np.savez(inp, **inputs)
    r = subprocess.run([STRATA, "run-ref", path, "--input", inp, "--output", outp],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with np.load(outp) as z:
        return {n: z[n] for n in z.files}


def run_ort(model, inputs):
    import onnxruntime as ort
    sess = ort.InferenceSession(model.SerializeToString(),
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(None, inputs)))


def check_against_ort(model, inputs, rtol=1e-4, atol=1e-5):
    """Strata's outputs equal ONNX Runtime's: dtype and shape exact, values
    within the tolerances (integers and bools exact)."""
    code, got, err = run_strata(model, inputs)
    assert code == 0, err
    want = run_ort(model, inputs)
    for n, w in want.items():
        assert n in got, f"output '{n}' missing"
        assert got[n].dtype == w.dtype, (n, got[n].dtype, w.dtype)
        assert got[n].shape == w.shape, (n, got[n].shape, w.shape)
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(got[n], w, err_msg=n)
        else:
            np.testing.assert_allclose(got[n], w, rtol=rtol, atol=atol, err_msg=n)


def import_error(model):
    """The stderr of a `strata import` that must fail."""
    with tempfile.TemporaryDirectory() as tmp:
        r = _import(model, tmp)
    assert r.returncode != 0, "import unexpectedly succeeded"
    return r.stderr
