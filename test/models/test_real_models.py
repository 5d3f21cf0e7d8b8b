"""Real models, end to end through the reference interpreter.

Models shipped inside PyPI packages (installed into .venv by scripts/setup.sh
from scripts/requirements-models.txt; nothing is downloaded): the PP-OCRv4
detection and recognition models and the PP-OCR direction classifier of
rapidocr-onnxruntime, the Silero VAD model of faster-whisper and magika's
content-type model, and ddddocr's YOLOX character detector. Plus the CPU benchmark models that
scripts/build-bench-models.py builds with seeded random weights: ResNet-50,
MobileNetV2 and a 4-layer BERT-style encoder.

Each model is imported with `strata import` (symbolic dims fixed with
--input-shapes), run with `strata run-ref` on seeded inputs of the right
dtype and shape, and compared with ONNX Runtime on the same inputs: dtype and
shape exact, cosine similarity >= 0.9999 and
np.allclose(rtol=1e-3, atol=1e-4) on every output.

Inputs look like the data the models see (PP-OCR: a synthetic page of dark
text-like strokes on a light background, normalized as rapidocr does; VAD:
a noisy tone; magika: text-like bytes), because on white noise PP-OCR's
detector outputs only values near 1e-9, where the cosine measures f32
rounding, not the model.

Set STRATA_REAL_MODELS_REPORT=path.json to write per-model results (op
count, max abs diff, cosine, run-ref time); docs/onnx.md records them. Run
it without workers (`-p no:xdist`) so that one process sees every model."""
import json
import os
import re
import subprocess
import sys
import sysconfig
import time

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
SITE = sysconfig.get_paths()["purelib"]

OPTIMIZED_COSINE_MIN = 0.99999
COSINE_MIN = 0.9999
RTOL, ATOL = 1e-3, 1e-4

RESULTS = {}


#===----------------------------------------------------------------------===#
# Inputs
#===----------------------------------------------------------------------===#

def text_image(rng, height, width):
    """A light page with dark horizontal text-like strokes, as the float
    CHW tensor rapidocr feeds the models: (pixel / 255 - 0.5) / 0.5."""
    page = np.full((height, width), 0.92, np.float32)
    lines = max(1, height // 40)
    for i in range(lines):
        top = int((i + 0.3) * height / lines)
        h = max(4, height // (3 * lines))
        x = int(rng.integers(0, width // 8))
        while x < width - 4:
            w = int(rng.integers(2, 6))  # a stroke
            page[top:top + h, x:x + w] = rng.uniform(0.0, 0.25)
            x += w + int(rng.integers(1, 8))
            if rng.random() < 0.1:
                x += int(rng.integers(8, 20))  # a space between words
    page += rng.normal(0, 0.03, page.shape).astype(np.float32)
    img = np.stack([page * s for s in (1.0, 0.98, 1.02)])[None]
    return ((np.clip(img, 0, 1) - 0.5) / 0.5).astype(np.float32)


def ocr_inputs(height, width):
    return lambda rng: {"x": text_image(rng, height, width)}


def vad_inputs(rng):
    """512 new samples plus 64 of context at 16 kHz (a tone in noise), and a
    carried LSTM state."""
    t = np.arange(576) / 16000.0
    audio = 0.3 * np.sin(2 * np.pi * 220 * t) + 0.05 * rng.standard_normal(576)
    return {"input": audio.astype(np.float32)[None],
            "h": (0.3 * rng.standard_normal((1, 1, 128))).astype(np.float32),
            "c": (0.3 * rng.standard_normal((1, 1, 128))).astype(np.float32)}


def magika_inputs(rng):
    """Byte values of a text-like file (printable ASCII, newlines) followed by
    the padding token 256, as magika encodes a short file."""
    data = rng.integers(32, 127, 2048)
    data[rng.random(2048) < 0.05] = 10
    data[1500:] = 256
    return {"bytes": data.astype(np.int32)[None]}


def yolox_inputs(rng):
    """ddddocr's detector input: BGR pixel values 0..255 (not normalized), a
    synthetic text page letterboxed into grey 114 as ddddocr pads."""
    img = np.full((1, 3, 416, 416), 114, np.float32)
    img[:, :, :300, :] = (text_image(rng, 300, 416) * 0.5 + 0.5) * 255
    return {"images": img}


def image_input(rng):
    return {"input": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}


def bert_inputs(rng):
    mask = np.ones((1, 128), np.int64)
    mask[0, 100:] = 0
    return {"input_ids": rng.integers(0, 30522, (1, 128)).astype(np.int64),
            "attention_mask": mask}


#===----------------------------------------------------------------------===#
# Models
#===----------------------------------------------------------------------===#

OCR = os.path.join(SITE, "rapidocr_onnxruntime", "models")

# name -> (path or bench model name, --input-shapes, input maker)
MODELS = {
    "ppocrv4_det": (os.path.join(OCR, "ch_PP-OCRv4_det_infer.onnx"),
                    "x:1x3x320x320", ocr_inputs(320, 320)),
    "ppocrv4_rec": (os.path.join(OCR, "ch_PP-OCRv4_rec_infer.onnx"),
                    "x:1x3x48x320", ocr_inputs(48, 320)),
    "ppocr_cls": (os.path.join(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx"),
                  "x:1x3x48x192", ocr_inputs(48, 192)),
    "silero_vad": (os.path.join(SITE, "faster_whisper", "assets", "silero_vad_v6.onnx"),
                   "input:1x576", vad_inputs),
    "magika": (os.path.join(SITE, "magika", "models", "standard_v3_3", "model.onnx"),
               "bytes:1x2048", magika_inputs),
    # A YOLOX detector (Focus stem, SiLU, SPP, decoupled head; 3549 anchors x
    # [box, objectness, class]) with trained weights, from ddddocr.
    "yolox_ddddocr": (os.path.join(SITE, "ddddocr", "common_det.onnx"), None, yolox_inputs),
    "resnet50": ("bench:resnet50", None, image_input),
    "mobilenetv2": ("bench:mobilenetv2", None, image_input),
    "bert4": ("bench:bert4", None, bert_inputs),
}


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory):
    """The benchmark models, built once per test run."""
    out = tmp_path_factory.mktemp("bench")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "build-bench-models.py"),
                        str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    path = os.environ.get("STRATA_REAL_MODELS_REPORT")
    if path and RESULTS:
        with open(path, "w") as f:
            json.dump(RESULTS, f, indent=1)


def top_op_count(mlir_text):
    """Top ops in the imported function, not counting inputs, weights and
    the none value."""
    ops = re.findall(r"=\s*top\.(\w+)\(", mlir_text)
    return sum(1 for op in ops if op not in ("Input", "Weight", "None"))


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 and nb == 0:
        return 1.0
    return float(a @ b / (na * nb))


@pytest.mark.parametrize("name", list(MODELS))
def test_real_model(name, tmp_path, request, rng_seed=0):
    source, shapes, make_inputs = MODELS[name]
    if source.startswith("bench:"):
        path = str(request.getfixturevalue("bench_dir") / (source[6:] + ".onnx"))
    else:
        path = source
        if not os.path.exists(path):
            pytest.fail(f"{path} is missing: run scripts/setup.sh "
                        "(it installs scripts/requirements-models.txt)")

    cmd = [STRATA, "import", path, "-o", str(tmp_path), "--name", "m"]
    if shapes:
        cmd += ["--input-shapes", shapes]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    mlir = tmp_path / "m_origin.mlir"

    inputs = make_inputs(np.random.default_rng(rng_seed))
    np.savez(tmp_path / "in.npz", **inputs)
    start = time.perf_counter()
    r = subprocess.run([STRATA, "run-ref", str(mlir), "--input", str(tmp_path / "in.npz"),
                        "--output", str(tmp_path / "out.npz")], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    assert r.returncode == 0, r.stderr

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    want = dict(zip(names, sess.run(None, inputs)))
    result = {"ops": top_op_count(mlir.read_text()), "run_ref_seconds": round(seconds, 2),
              "outputs": {}}
    with np.load(tmp_path / "out.npz") as z:
        got = {n: z[n] for n in z.files}
    for n, w in want.items():
        assert n in got, f"output '{n}' missing (have {sorted(got)})"
        g = got[n]
        assert g.dtype == w.dtype, (n, g.dtype, w.dtype)
        assert g.shape == w.shape, (n, g.shape, w.shape)
        diff = float(np.max(np.abs(g.astype(np.float64) - w))) if w.size else 0.0
        cos = cosine(g, w)
        result["outputs"][n] = {"shape": list(w.shape), "max_abs_diff": diff, "cosine": cos}
        assert cos >= COSINE_MIN, f"{n}: cosine {cos}"
        assert np.allclose(g, w, rtol=RTOL, atol=ATOL), f"{n}: max abs diff {diff}"

    # The optimized model (`m.mlir`, top-optimize) must not change the
    # outputs: cosine >= 0.99999 against the imported model's run, and the
    # same tolerances against ONNX Runtime.
    r = subprocess.run([STRATA, "run-ref", str(tmp_path / "m.mlir"), "--input",
                        str(tmp_path / "in.npz"), "--output", str(tmp_path / "opt.npz")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "opt.npz") as z:
        opt = {n: z[n] for n in z.files}
    result["ops_optimized"] = top_op_count((tmp_path / "m.mlir").read_text())
    for n, w in want.items():
        o = opt[n]
        assert o.dtype == w.dtype and o.shape == w.shape, (n, o.dtype, o.shape)
        assert cosine(o, got[n]) >= OPTIMIZED_COSINE_MIN, f"{n}: optimized cosine {cosine(o, got[n])}"
        assert np.allclose(o, w, rtol=RTOL, atol=ATOL), f"{n}: optimized vs onnxruntime"
    assert result["ops_optimized"] <= result["ops"]
    RESULTS[name] = result
    PREPARED[name] = (tmp_path, opt, want)


# name -> (folder with m.mlir and in.npz, interpreter outputs of m.mlir,
# ONNX Runtime outputs), filled by test_real_model for the compiled test.
PREPARED = {}


@pytest.mark.parametrize("name", list(MODELS))
def test_real_model_compiled(name, tmp_path, request):
    """The optimized model compiled for the CPU (`strata compile --target
    cpu`) and run by the runtime (`strata run`) matches the interpreter and
    ONNX Runtime with the same tolerances. A model with an op the CPU code
    generator does not lower yet is an expected failure naming the op."""
    if name not in PREPARED:
        test_real_model(name, tmp_path, request)
    folder, ref, want = PREPARED[name]
    art = tmp_path / "m.strata"
    r = subprocess.run([STRATA, "compile", str(folder / "m.mlir"), "--target", "cpu",
                        "-o", str(art)], capture_output=True, text=True)
    if r.returncode != 0 and "has no CPU code-generation lowering yet" in r.stderr:
        pytest.xfail(r.stderr.strip().splitlines()[0])
    assert r.returncode == 0, r.stderr
    start = time.perf_counter()
    r = subprocess.run([STRATA, "run", str(art), "--input", str(folder / "in.npz"),
                        "--output", str(tmp_path / "out.npz")], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        got = {n: z[n] for n in z.files}
    for n, w in want.items():
        g = got[n]
        assert g.dtype == w.dtype and g.shape == w.shape, (n, g.dtype, g.shape)
        assert cosine(g, ref[n]) >= COSINE_MIN, f"{n}: compiled vs interpreter cosine {cosine(g, ref[n])}"
        assert np.allclose(g, ref[n], rtol=RTOL, atol=ATOL), f"{n}: compiled vs interpreter"
        assert np.allclose(g, w, rtol=RTOL, atol=ATOL), f"{n}: compiled vs onnxruntime"
    RESULTS.setdefault(name, {})["compiled_run_seconds"] = round(seconds, 3)
