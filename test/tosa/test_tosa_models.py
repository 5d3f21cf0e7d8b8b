"""The hand-made TOSA models (models/gen_models.py) through `strata import`
against MLIR's own TOSA lowering (tosa_harness.py): the int8 CNN exactly,
the float models at rtol 1e-5. Also the transposes (top.Permute) left after
top-optimize, as docs/tosa.md reports them: NHWC stays NHWC, so a TFLite-style
model imports without any, and --layout nchw adds only the ones at the
graph's edges (the input and output of the int8 CNN; the float CNN's own
flattening transpose absorbs the one at its output)."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

from tosa_harness import BIN, check, reference, strata

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def load(name):
    with open(os.path.join(MODELS, name)) as f:
        return f.read()


def test_qcnn_int8(rng):
    x = rng.integers(-128, 128, (1, 8, 8, 3)).astype(np.int8)
    func = load("qcnn.mlir")
    with tempfile.TemporaryDirectory() as d:
        ref = reference(func, [x], d)[0]
        got, text = strata(func, [x], d)
    np.testing.assert_array_equal(got[0], ref)
    assert len(np.unique(ref)) > 3, ref  # not saturated to a constant
    assert "xf32" not in text  # integer end to end: the model stays quantized


def test_mlp_float(rng):
    check(load("mlp.mlir"), [rng.standard_normal((1, 16)).astype(np.float32)])


def test_cnn_float(rng):
    text = check(load("cnn.mlir"), [rng.standard_normal((1, 8, 8, 3)).astype(np.float32)])
    # The flattening transpose of the model itself stays (it is data layout,
    # not a layout conversion); nothing else is added.
    assert text.count("top.Permute") == 1


def test_mlp_bytecode_matches_text(tmp_path, rng):
    """The checked-in bytecode imports to the same model as the text."""
    outs = []
    for name in ("mlp.mlir", "mlp.mlirbc"):
        out = tmp_path / name.replace(".", "_")
        r = subprocess.run([os.path.join(BIN, "strata"), "import",
                            os.path.join(MODELS, name), "-o", str(out), "--name", "m"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        with np.load(out / "m_TOP_F32_weight.npz") as z:
            outs.append({k: z[k] for k in z.files})
    assert outs[0].keys() == outs[1].keys()
    for k in outs[0]:
        np.testing.assert_array_equal(outs[0][k], outs[1][k])


def permutes(model, layout=None):
    with tempfile.TemporaryDirectory() as d:
        args = [os.path.join(BIN, "strata"), "import", os.path.join(MODELS, model),
                "-o", d, "--name", "m"]
        if layout:
            args += ["--layout", layout]
        r = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(d, "m.mlir")) as f:
            return f.read().count("top.Permute")


# Transposes left after top-optimize (docs/tosa.md lists these numbers).
TRANSPOSES = {("qcnn.mlir", None): 0, ("mlp.mlir", None): 0, ("cnn.mlir", None): 1,
              ("qcnn.mlir", "nchw"): 2, ("cnn.mlir", "nchw"): 1}


@pytest.mark.parametrize("model,layout", list(TRANSPOSES))
def test_transposes_left(model, layout):
    n = permutes(model, layout)
    print(f"{model} layout={layout}: {n} top.Permute")
    assert n == TRANSPOSES[(model, layout)]


@pytest.mark.parametrize("model,dtype,shape", [("qcnn.mlir", np.int8, (1, 8, 8, 3)),
                                               ("mlp.mlir", np.float32, (1, 16)),
                                               ("cnn.mlir", np.float32, (1, 8, 8, 3))])
def test_model_compiled(model, dtype, shape, rng, tmp_path):
    """Imported, compiled for the CPU (`strata compile --target cpu`) and run
    with `strata run`: equal to MLIR's TOSA lowering (integers exactly,
    floats rtol 1e-5)."""
    if dtype == np.int8:
        x = rng.integers(-128, 128, shape).astype(np.int8)
    else:
        x = rng.standard_normal(shape).astype(np.float32)
    func = load(model)
    ref = reference(func, [x], str(tmp_path))[0]
    strata_bin = os.path.join(BIN, "strata")
    top = tmp_path / "top"
    for args in (["import", os.path.join(MODELS, model), "-o", str(top), "--name", "m"],
                 ["compile", str(top / "m.mlir"), "--target", "cpu", "-o", str(tmp_path / "m.strata")]):
        r = subprocess.run([strata_bin, *args], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    np.savez(tmp_path / "in.npz", input0=x)
    r = subprocess.run([strata_bin, "run", str(tmp_path / "m.strata"), "--input",
                        str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        got = z["output0"]
    if dtype == np.int8:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
