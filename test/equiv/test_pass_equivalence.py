"""Every Top pass keeps what a model computes.

Each pass of Passes.td (plus canonicalize, cse and the top-optimize pipeline,
see equiv_harness.PASSES) runs on representative models and `strata
check-equiv` compares the result with the input on seeded random inputs
(cosine >= 0.99999, euclidean similarity >= 0.9999, or allclose):

- the runnable lit inputs of the passes, through `strata-opt --<pass>`, the
  weights inline; every pass must change at least one of them, so each pass
  is compared on a rewrite it made (2 runs per chunk);
- real models imported with `strata import --no-optimize`, through `strata
  compile --passes <pass>`, which gives the passes the weights' data as
  top-optimize has it (1 run per model); the top-optimize pipeline also
  through `strata-opt`, whose output keeps the weight file and writes new
  weights inline. A model a pass leaves unchanged (same printed IR apart from
  the weight file name) is not run.

STRATA_EQUIV_BIG=1 (`make test-equiv-big`) adds PP-OCRv4 det/rec, ResNet-50
and the BERT-style encoder. test_check_equiv.py shows that check-equiv fails
on models that differ."""
import os
import re

import pytest

import equiv_harness as h


def test_every_pass_is_covered():
    """A new pass in Passes.td must be added to equiv_harness.PASSES."""
    covered = {name for _, name, _ in h.PASSES} | set(h.NOT_EQUIVALENT)
    missing = [p for p in h.passes_in_td() if p not in covered]
    assert not missing, f"passes without an equivalence test: {missing}"


def test_enough_lit_models(lit_models):
    """Guards against the runnability filter silently dropping the inputs."""
    assert sum(len(m) for m in lit_models.values()) >= 80, \
        {rel: len(m) for rel, m in lit_models.items()}


@pytest.mark.parametrize("pass_id", h.PASS_IDS)
def test_pass_on_lit_inputs(pass_id, lit_models, lit_baselines, tmp_path):
    _, name, options = next(p for p in h.PASSES if p[0] == pass_id)
    flag = h.opt_flag(name, options)
    all_path, per_file = lit_baselines
    r = h.run([h.STRATA_OPT, all_path, "--split-input-file", flag])
    every = h.split_output(r.stdout) if r.returncode == 0 else None
    pending, errors, i = [], [], 0
    for rel, models in lit_models.items():
        joined, baseline = per_file[rel]
        if every is not None:
            outputs = every[i:i + len(models)]
            i += len(models)
        else:  # find the models it fails on: per file, then per model
            r = h.run([h.STRATA_OPT, joined, "--split-input-file", flag])
            outputs = h.split_output(r.stdout) if r.returncode == 0 else []
            for label, path in models if r.returncode != 0 else []:
                r = h.run([h.STRATA_OPT, path, flag])
                outputs.append(r.stdout.strip() if r.returncode == 0 else None)
                if r.returncode != 0 and (pass_id, label) not in h.KNOWN_PASS_ERRORS:
                    errors.append(f"strata-opt {flag} failed on {label}:\n{r.stderr}")
        assert len(outputs) == len(models), rel
        for (label, path), before, after in zip(models, baseline, outputs):
            if after is not None and after != before:
                out = tmp_path / (re.sub(r"[^\w.-]", "_", label) + ".mlir")
                out.write_text(after + "\n")
                pending.append((label, path, str(out)))
    assert not errors, "\n".join(errors)
    assert pending, f"{pass_id} changed none of the lit inputs: nothing was compared"
    results = h.parallel(lambda t: h.check_equiv(t[1], t[2], runs=2), pending)
    failures = [f"{label}: exit {r.returncode}\n{h.explain(r)}"
                for (label, _, _), r in zip(pending, results) if r.returncode != 0]
    assert not failures, f"{pass_id} changed what {len(failures)} of {len(pending)} models compute:\n" \
        + "\n\n".join(failures)


def normalized(path):
    """The printed IR without the weight file's name."""
    with open(path) as f:
        return re.sub(r'top\.weight_file = "[^"]*"', "", f.read())


@pytest.mark.parametrize("pass_id", h.PASS_IDS)
@pytest.mark.parametrize("model", h.real_model_names())
def test_pass_on_real_model(model, pass_id, real_model, tmp_path):
    _, name, options = next(p for p in h.PASSES if p[0] == pass_id)
    origin = real_model(model)
    r = h.run([h.STRATA, "compile", origin, "-o", str(tmp_path), "--name", "m",
               "--passes", h.pipeline(name, options)])
    assert r.returncode == 0, r.stderr
    passed = os.path.join(tmp_path, "m.mlir")
    if normalized(passed) == normalized(origin):
        return  # the pass changed nothing
    r = h.check_equiv(origin, passed, runs=1)
    assert r.returncode == 0, h.explain(r)


@pytest.mark.parametrize("model", h.real_model_names())
def test_strata_opt_pipeline_on_real_model(model, real_model):
    """strata-opt reads only the .mlir: the result must sit beside the
    weight file it names, and weights a pass creates are written inline."""
    origin = real_model(model)
    passed = os.path.join(os.path.dirname(origin), "m_strata_opt.mlir")
    r = h.run([h.STRATA_OPT, origin, "--top-optimize", "-o", passed])
    assert r.returncode == 0, r.stderr
    r = h.check_equiv(origin, passed, runs=1)
    assert r.returncode == 0, h.explain(r)
