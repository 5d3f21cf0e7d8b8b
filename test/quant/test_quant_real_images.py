"""int8 accuracy on real photographs (docs/quantization.md "Accuracy"; the
full table is bench/quant_accuracy.py's).

MobileNetV2 (scripts/build-bench-models.py, seeded weights) is calibrated
(`strata calibrate --method minmax`) on three of the sample photographs the
scikit-image wheel ships and quantized to int8 (`strata quantize`); on two
other photographs the int8 model's logits (reference interpreter) must keep
a cosine >= 0.999 with the f32 model's (measured 0.99939 / 0.99950) and the
same top-1 class. bf16 must keep >= 0.9999 (measured 0.99998). The images
are read by bench/real_images.py (Pillow, skimage/data read as files)."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import real_images  # noqa: E402

CALIBRATION = ["astronaut", "coffee", "motorcycle_left"]
EVALUATION = ["chelsea", "rocket"]
INT8_COSINE_MIN = 0.999
BF16_COSINE_MIN = 0.9999


def ok(*args):
    r = subprocess.run([STRATA, *map(str, args)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_mobilenetv2_int8_on_photographs(tmp_path):
    why = real_images.missing()
    if why:
        pytest.fail(f"{why}: run scripts/setup.sh")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "build-bench-models.py"),
                        str(tmp_path), "--models", "mobilenetv2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    model = tmp_path / "mobilenetv2.onnx"
    cal = []
    for name in CALIBRATION:
        cal += ["--data", tmp_path / f"cal_{name}.npz"]
        np.savez(cal[-1], input=real_images.imagenet(name))
    for name in EVALUATION:
        np.savez(tmp_path / f"eval_{name}.npz", input=real_images.imagenet(name))
    ok("calibrate", model, *cal, "--method", "minmax", "-o", tmp_path / "t.txt")
    ok("quantize", model, "--quantize", "int8", "--calibration", tmp_path / "t.txt",
       "-o", tmp_path / "int8", "--name", "m")
    assert "!quant.uniform<i8" in (tmp_path / "int8" / "m.mlir").read_text()
    ok("quantize", model, "--quantize", "bf16", "-o", tmp_path / "bf16", "--name", "m")
    ok("compile", model, "--target", "top", "-o", tmp_path / "f32", "--name", "m")
    for name in EVALUATION:
        out = {}
        for mode in ("f32", "int8", "bf16"):
            ok("run-ref", tmp_path / mode / "m.mlir", "--input", tmp_path / f"eval_{name}.npz",
               "--output", tmp_path / f"{mode}_{name}.npz")
            with np.load(tmp_path / f"{mode}_{name}.npz") as z:
                out[mode] = z["logits"]
        c8, c16 = cosine(out["f32"], out["int8"]), cosine(out["f32"], out["bf16"])
        assert c8 >= INT8_COSINE_MIN, f"{name}: int8 cosine {c8}"
        assert np.argmax(out["int8"]) == np.argmax(out["f32"]), f"{name}: int8 top-1 differs"
        assert c16 >= BF16_COSINE_MIN, f"{name}: bf16 cosine {c16}"
        # Quantization changed the logits (the comparison is not of equal runs).
        assert not np.array_equal(out["int8"], out["f32"])
