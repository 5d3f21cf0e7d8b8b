"""Session fixtures of the pass-equivalence tests: the runnable lit inputs
and the imported real models (equiv_harness.py describes both)."""
import os
import subprocess
import sys
import sysconfig

import pytest

import equiv_harness as h

SITE = sysconfig.get_paths()["purelib"]
OCR = os.path.join(SITE, "rapidocr_onnxruntime", "models")

# name -> (ONNX file or bench:<name> of scripts/build-bench-models.py, --input-shapes)
REAL_MODELS = {
    "ppocr_cls": (os.path.join(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx"), "x:1x3x48x192"),
    "silero_vad": (os.path.join(SITE, "faster_whisper", "assets", "silero_vad_v6.onnx"),
                   "input:1x576"),
    "magika": (os.path.join(SITE, "magika", "models", "standard_v3_3", "model.onnx"),
               "bytes:1x2048"),
    "mobilenetv2": ("bench:mobilenetv2", None),
    # The larger ones only with STRATA_EQUIV_BIG=1 (`make test-equiv-big`).
    "ppocrv4_det": (os.path.join(OCR, "ch_PP-OCRv4_det_infer.onnx"), "x:1x3x320x320"),
    "ppocrv4_rec": (os.path.join(OCR, "ch_PP-OCRv4_rec_infer.onnx"), "x:1x3x48x320"),
    "resnet50": ("bench:resnet50", None),
    "bert4": ("bench:bert4", None),
}
BIG = {"ppocrv4_det", "ppocrv4_rec", "resnet50", "bert4"}


def real_model_names():
    big = os.environ.get("STRATA_EQUIV_BIG") == "1"
    return [n for n in REAL_MODELS if big or n not in BIG]


@pytest.fixture(scope="session")
def lit_models(tmp_path_factory):
    """{lit file: [(label, path)]} of the runnable lit chunks."""
    return h.runnable_lit_models(str(tmp_path_factory.mktemp("lit")))


@pytest.fixture(scope="session")
def lit_baselines(lit_models, tmp_path_factory):
    """(path of all runnable chunks joined, {lit file: (its chunks joined,
    [each chunk printed by strata-opt without passes])}): a pass that leaves
    a chunk's printed form alone did not change it."""
    work = tmp_path_factory.mktemp("joined")
    every = []
    per_file = {}
    for rel, models in lit_models.items():
        texts = [open(p).read() for _, p in models]
        every += texts
        joined = os.path.join(work, rel.replace("/", "_"))
        with open(joined, "w") as f:
            f.write("\n// -----\n".join(texts))
        per_file[rel] = joined
    all_path = os.path.join(work, "all.mlir")
    with open(all_path, "w") as f:
        f.write("\n// -----\n".join(every))
    r = h.run([h.STRATA_OPT, all_path, "--split-input-file"])
    assert r.returncode == 0, r.stderr
    chunks = h.split_output(r.stdout)
    assert len(chunks) == len(every)
    out, i = {}, 0
    for rel, models in lit_models.items():
        out[rel] = (per_file[rel], chunks[i:i + len(models)])
        i += len(models)
    return all_path, out


@pytest.fixture(scope="session")
def real_model(tmp_path_factory):
    """real_model(name) -> path of its `_origin.mlir` (imported once with
    --no-optimize; weights beside it)."""
    cache = {}
    bench = {}

    def get(name):
        if name in cache:
            return cache[name]
        source, shapes = REAL_MODELS[name]
        if source.startswith("bench:"):
            if "dir" not in bench:
                bench["dir"] = tmp_path_factory.mktemp("bench")
            path = os.path.join(bench["dir"], source[6:] + ".onnx")
            if not os.path.exists(path):
                r = subprocess.run([sys.executable, os.path.join(h.ROOT, "scripts", "build-bench-models.py"),
                                    str(bench["dir"]), "--models", source[6:]],
                                   capture_output=True, text=True)
                assert r.returncode == 0, r.stderr
        else:
            path = source
            if not os.path.exists(path):
                pytest.fail(f"{path} is missing: run scripts/setup.sh "
                            "(it installs scripts/requirements-models.txt)")
        out = tmp_path_factory.mktemp(name)
        cmd = [h.STRATA, "import", path, "-o", str(out), "--name", "m", "--no-optimize"]
        if shapes:
            cmd += ["--input-shapes", shapes]
        r = h.run(cmd)
        assert r.returncode == 0, r.stderr
        cache[name] = str(out / "m_origin.mlir")
        return cache[name]
    return get
