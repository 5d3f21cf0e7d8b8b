"""The quantization options the CLI has, from Python (docs/python.md):
strata.calibrate(bias_correction=) and strata.quantize / compile(
float_activations=, per_channel_tables=, keep_float_file=, symmetric=,
bias_correction=) on the installed package, each compared with the installed
`strata` executable (`python -m strata calibrate / quantize` with the
options of the same names): the same calibration table rows, the same
quantized Top model text and weights. Each option must also change the
result (else the comparison could pass with the option ignored on both
sides), and bad values raise strata.Error naming the argument and the value.

The model: a conv whose output channels' ranges differ 10-fold, then a
sigmoid (an int8 activation table; per channel with per_channel_tables),
a conv + relu, a global pool and a matmul (bias correction's layers)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import strata
from python_bad_input_runner import check_errors

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _onnx_model(batch=1):
    rng = np.random.default_rng(11)
    scale = np.array([10, 1, 0.1, 3, 0.3, 1, 10, 0.1], np.float32).reshape(8, 1, 1, 1)
    p = {"w1": (rng.standard_normal((8, 3, 3, 3)) * 0.3 * scale).astype(np.float32),
         "b1": (rng.standard_normal(8) * 0.1).astype(np.float32),
         "w2": (rng.standard_normal((12, 8, 3, 3)) * 0.2).astype(np.float32),
         "b2": (rng.standard_normal(12) * 0.1).astype(np.float32),
         "w3": (rng.standard_normal((12, 5)) * 0.3).astype(np.float32)}
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["c1"], ["s1"]),
        helper.make_node("Conv", ["s1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("MatMul", ["f", "w3"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "qopts", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 10, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        [numpy_helper.from_array(v, k) for k, v in p.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _samples(n, seed=3):
    rng = np.random.default_rng(seed)
    return [{"x": (rng.uniform(-1, 1, (1, 3, 10, 10)) + 0.5).astype(np.float32)}
            for _ in range(n)]


def _cli(*args):
    p = subprocess.run([sys.executable, "-m", "strata", *map(str, args)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    d = tmp_path_factory.mktemp("qopts")
    path = d / "m.onnx"
    onnx.save(_onnx_model(), str(path))
    samples = _samples(4)
    (d / "cal").mkdir()
    for i, s in enumerate(samples):
        np.savez(d / "cal" / f"s{i}.npz", **s)
    return d, path, samples, strata.import_onnx(str(path))


def _rows(path):
    """The table's rows (no comments), split in words."""
    return [line.split() for line in open(path) if line.strip() and line[0] != "#"]


def test_calibrate_bias_correction_matches_cli(setup):
    d, path, samples, model = setup
    _cli("calibrate", path, "--data", d / "cal", "--bias-correction", "-o", d / "cli_bc.txt")
    _cli("calibrate", path, "--data", d / "cal", "-o", d / "cli.txt")
    py_bc = strata.calibrate(model, samples, d / "py_bc.txt", bias_correction=True)
    py = strata.calibrate(model, samples, d / "py.txt")
    assert _rows(py_bc) == _rows(d / "cli_bc.txt")
    assert _rows(py) == _rows(d / "cli.txt")
    means = [r for r in _rows(py_bc) if r[0] == "@mean"]
    # The inputs of the two convs and the matmul.
    assert len(means) == 3, means
    assert not [r for r in _rows(py) if r[0] == "@mean"]
    # The first conv's input mean per channel, against numpy.
    x_mean = np.mean([s["x"].mean(axis=(0, 2, 3)) for s in samples], axis=0)
    row = [r for r in means if r[1] == "x"]
    assert row, means
    np.testing.assert_allclose([float(v) for v in row[0][2:]], x_mean, rtol=1e-5)
    # @range rows (the sigmoid's pre-activation, per channel) either way.
    assert [r for r in _rows(py) if r[0] == "@range"]


def _cli_quantize(d, table, options, tag):
    out = d / f"q_{tag}"
    _cli("quantize", d / "m.onnx", "--quantize", "int8", "--calibration", table, *options,
         "-o", out, "--name", "m")
    text = open(out / "m.mlir").read()
    weights = dict(np.load(out / "m_TOP_INT8_weight.npz"))
    return text, weights


def _py_text_weights(d, qmodel, tag):
    out = d / f"py_{tag}"
    out.mkdir()
    qmodel.save(out)
    name = qmodel.name
    text = open(out / f"{name}_origin.mlir").read()
    npz = [f for f in os.listdir(out) if f.endswith(".npz")]
    assert len(npz) == 1, npz
    return text, dict(np.load(out / npz[0]))


def _strip(text):
    """The module text without the weight file's name (the files differ)."""
    return "\n".join(line for line in text.splitlines()
                     if "weight_file" not in line and not line.startswith("//"))


OPTIONS = {
    "default": ([], {}),
    "per_channel_tables": (["--per-channel-tables"], dict(per_channel_tables=True)),
    "float_activations": (["--float-activations"], dict(float_activations=True)),
    "symmetric": (["--symmetric"], dict(symmetric=True)),
    "keep_float_file": (["--keep-float-file", "KF"], dict(keep_float_file="KF")),
    "table_input": (["--table-input", "int16"], dict(table_input="int16")),
}


def test_quantize_options_match_cli(setup):
    d, path, samples, model = setup
    table = d / "cli_bc.txt"
    if not table.exists():
        _cli("calibrate", path, "--data", d / "cal", "--bias-correction", "-o", table)
    kf = d / "keep.txt"
    kf.write_text("# the second conv stays float\nr2\n\n")
    results = {}
    for tag, (cli_opts, kwargs) in OPTIONS.items():
        cli_opts = [str(kf) if o == "KF" else o for o in cli_opts]
        kwargs = {k: (str(kf) if v == "KF" else v) for k, v in kwargs.items()}
        cli_text, cli_w = _cli_quantize(d, table, cli_opts, tag)
        q = strata.quantize(model, "int8", calibration=str(table), **kwargs)
        py_text, py_w = _py_text_weights(d, q, tag)
        assert _strip(py_text) == _strip(cli_text), tag
        assert sorted(py_w) == sorted(cli_w), tag
        for k in cli_w:
            np.testing.assert_array_equal(py_w[k], cli_w[k], err_msg=f"{tag}: {k}")
        results[tag] = _strip(py_text)
    # Every option changes the model.
    for tag, text in results.items():
        if tag != "default":
            assert text != results["default"], tag
    # ... the way the option says.
    default = results["default"]
    per_channel = "tensor<1x8x10x10x!quant.uniform<i8:f32:1, {"  # the sigmoid's input
    assert per_channel not in default and per_channel in results["per_channel_tables"]
    # float activations: no requant to the sigmoid's pre-activation range.
    assert (results["float_activations"].count("top.Requant")
            == default.count("top.Requant") - 1)
    zero_point = re.compile(r"!quant\.uniform<i8:f32, [0-9.e+-]+:-?[0-9]+>")
    assert zero_point.search(default) and not zero_point.search(results["symmetric"])
    # table_input="int16": the sigmoid's table reads int16 (top.Table16).
    assert "top.Table16" not in default and "top.Table16" in results["table_input"]
    # keep_float_file: the conv producing r2 keeps its float weight.
    assert '"r2_filter_int8"' in default and '"r2_filter_int8"' not in results["keep_float_file"]


def test_compile_options_run_like_quantize(setup):
    """compile(quantize="int8", option) runs bit-exactly like the reference
    interpreter on quantize(..., option): the option reaches the compile."""
    d, path, samples, model = setup
    x = _samples(1, seed=9)[0]
    table = str(d / "py_bc.txt")
    if not os.path.exists(table):
        strata.calibrate(model, samples, table, bias_correction=True)
    for kwargs in (dict(per_channel_tables=True), dict(float_activations=True)):
        art = strata.compile(model, quantize="int8", calibration=table, **kwargs)
        got = strata.Session(art, threads=1).run(x)["y"]
        ref = strata.run_ref(strata.quantize(model, "int8", calibration=table, **kwargs),
                             x)["y"]
        np.testing.assert_array_equal(got, ref, err_msg=str(kwargs))


def test_bias_correction_from_samples(setup):
    """quantize(calibration=samples, bias_correction=True) is the model the
    CLI quantizes with a --bias-correction table; without it, the model of a
    table without @mean rows."""
    d, path, samples, model = setup
    for flag, table in ((True, "cli_bc.txt"), (False, "cli.txt")):
        if not (d / table).exists():
            _cli("calibrate", path, "--data", d / "cal", "-o", d / table,
                 *(["--bias-correction"] if flag else []))
        cli_text, cli_w = _cli_quantize(d, d / table, [], f"bc{flag}")
        q = strata.quantize(model, "int8", calibration=samples, bias_correction=flag)
        py_text, py_w = _py_text_weights(d, q, f"bc{flag}")
        assert _strip(py_text) == _strip(cli_text)
        for k in cli_w:
            np.testing.assert_array_equal(py_w[k], cli_w[k], err_msg=f"bias {flag}: {k}")
    with_bc = dict(np.load(next((d / "q_bcTrue").glob("*.npz"))))
    without = dict(np.load(next((d / "q_bcFalse").glob("*.npz"))))
    assert any(not np.array_equal(with_bc[k], without[k]) for k in with_bc), \
        "bias correction changed no weight"


def test_input_shapes_match_cli(setup):
    """input_shapes= as --input-shapes: a model whose batch dim is symbolic,
    calibrated and quantized from its path with the batch fixed."""
    d, _, samples, _ = setup
    path = d / "dyn.onnx"
    onnx.save(_onnx_model(batch="N"), str(path))
    _cli("calibrate", path, "--data", d / "cal", "--input-shapes", "x:1x3x10x10",
         "-o", d / "dyn_cli.txt")
    shapes = {"x": [1, 3, 10, 10]}
    table = strata.calibrate(str(path), samples, d / "dyn_py.txt", input_shapes=shapes)
    assert _rows(table) == _rows(d / "dyn_cli.txt")
    out = d / "dyn_q"
    _cli("quantize", path, "--quantize", "int8", "--calibration", table,
         "--input-shapes", "x:1x3x10x10", "-o", out, "--name", "m")
    q = strata.quantize(str(path), "int8", calibration=table, input_shapes=shapes)
    text, _ = _py_text_weights(d, q, "dyn")
    assert _strip(text) == _strip(open(out / "m.mlir").read())
    assert "tensor<1x3x10x10xf32>" in text


@pytest.mark.parametrize("activations", [False, True])
def test_search_sensitive_matches_cli(setup, activations):
    """search_sensitive=True as --search-sensitive: the same ranking, layers
    kept in float and quantized model; the target is one int8 misses, so
    the search keeps something (else it could be a no-op on both sides)."""
    d, path, samples, model = setup
    table = d / "cli.txt"
    if not table.exists():
        _cli("calibrate", path, "--data", d / "cal", "-o", table)
    target = 0.99999
    out = d / f"search_{activations}"
    extra = ["--search-activations"] if activations else []
    p = _cli("quantize", path, "--quantize", "int8", "--calibration", table,
             "--search-sensitive", "--data", d / "cal", "--target-cosine", target, *extra,
             "-o", out, "--name", "m")
    q = strata.quantize(model, "int8", calibration=str(table), search_sensitive=True,
                        data=samples, target_cosine=target, search_activations=activations)
    cli_keep = [line.strip() for line in open(out / "m_keep_float.txt")
                if line.strip() and line[0] != "#"]
    assert q.search.keep_float == cli_keep
    assert cli_keep, "the search kept nothing: pick a higher target"
    ranking = [line.split() for line in p.stdout.splitlines() if line.startswith("  ")]
    assert [name for name, _ in q.search.ranking] == [r[0] for r in ranking]
    for (_, loss), (_, text) in zip(q.search.ranking, ranking):
        assert f"{loss:.3g}" == text or float(text) == pytest.approx(loss, rel=1e-2)
    assert f"output cosine {q.search.cosine:.6f}" in p.stdout
    text, _ = _py_text_weights(d, q, f"search_{activations}")
    assert _strip(text) == _strip(open(out / "m.mlir").read())
    if activations:
        assert all(k.endswith("_preact") for k in cli_keep), cli_keep
    # The cosine the search reports, recomputed from run_ref on the samples.
    cos = min(_cosine(strata.run_ref(q, s)["y"], strata.run_ref(model, s)["y"])
              for s in samples)
    assert cos == pytest.approx(q.search.cosine, abs=1e-9)


def _cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _bad_cases(tmp):
    s = "T._samples(1)"
    return [
        (f"compile(model, quantize='int8', calibration={s}, per_channel_tables='yes')",
         "compile: per_channel_tables='yes' must be True or False"),
        (f"compile(model, quantize='int8', calibration={s}, float_activations=None)",
         "compile: float_activations=None must be True or False"),
        (f"quantize(model, 'int8', calibration={s}, bias_correction=1)",
         "quantize: bias_correction=1 must be True or False"),
        (f"quantize(model, 'int8', calibration={s}, symmetric='no')",
         "quantize: symmetric='no' must be True or False"),
        (f"calibrate(model, {s}, '{tmp}/t.txt', bias_correction='on')",
         "calibrate: bias_correction='on' must be True or False"),
        (f"quantize(model, 'int8', calibration={s}, keep_float_file='{tmp}/none.txt')",
         f"quantize: cannot read keep_float_file '{tmp}/none.txt'"),
        (f"quantize(model, 'int8', calibration={s}, keep_float_file=3)",
         "quantize: keep_float_file must be a path, not 3"),
        (f"quantize(model, 'int8', calibration={s}, keep_float_file='{tmp}/bad.txt')",
         "quantize: keep_float name 'a,b'"),
        ("compile(model, per_channel_tables=True)", "need quantize="),
        ("compile(model, table_input='int16')", "need quantize="),
        (f"quantize(model, 'int8', calibration={s}, table_input='int12')",
         "quantize: table_input 'int12' must be int8 or int16"),
        (f"compile(model, quantize='int8', calibration={s}, table_input=16)",
         "compile: table_input=16 must be 'int8' or 'int16'"),
        ("compile(model, bias_correction=True)", "need quantize="),
        ("compile(model, quantize='bf16', bias_correction=True)",
         "compile: bias_correction calibrates samples; give them as calibration="),
        (f"compile(model, keep_float_file='{tmp}/bad.txt')", "need quantize="),
        (f"quantize(model, 'int8', calibration='{tmp}/t.txt', bias_correction=True)",
         "quantize: bias_correction calibrates samples; calibration="),
        (f"quantize(model, 'int8', calibration={s}, search_sensitive=True)",
         "quantize: search_sensitive needs data="),
        (f"quantize(model, 'int8', calibration={s}, target_cosine=0.9)",
         "quantize: data, target_cosine and search_activations need search_sensitive=True"),
        (f"quantize(model, 'int8', calibration={s}, search_sensitive=True, data={s}, "
         "target_cosine=2.0)", "quantize: target_cosine 2.000000 must be in [-1, 1]"),
        (f"quantize(model, 'int8', calibration={s}, search_sensitive=True, data={s}, "
         "target_cosine='high')", "quantize: target_cosine='high' must be a number"),
        (f"quantize(model, 'bf16', search_sensitive=True, data={s})",
         "quantize: search_sensitive needs mode='int8', not 'bf16'"),
        (f"quantize(model, 'int8', calibration={s}, search_sensitive='yes', data={s})",
         "quantize: search_sensitive='yes' must be True or False"),
        (f"quantize(model, 'int8', calibration={s}, search_sensitive=True, "
         "data=[{'y': np.zeros(3, np.float32)}])", "sample 0 has no array 'x'"),
        (f"calibrate(model, {s}, '{tmp}/t2.txt', input_shapes={{'x': [1, -3]}})",
         "calibrate: input_shapes['x'] = [1, -3] has a negative dim"),
        (f"quantize(strata.load_mlir('{tmp}/m/qopts_origin.mlir'), 'int8', "
         f"calibration={s}, input_shapes={{'x': [1, 3, 10, 10]}})",
         "input_shapes needs a model imported from ONNX"),
    ]


BAD_SCRIPT = """
import test_quantize_options as T
model = strata.import_onnx(T._onnx_model())
model.save(TMP + "/m")
for call, _ in T._bad_cases(TMP):
    attempt(lambda: eval("strata." + call))
"""


def test_quantize_options_bad_values(tmp_path):
    (tmp_path / "bad.txt").write_text("a,b\n")
    (tmp_path / "t.txt").write_text("# empty\n")
    (tmp_path / "m").mkdir()
    check_errors(f"TMP = {str(tmp_path)!r}\n" + BAD_SCRIPT,
                 [message for _, message in _bad_cases(str(tmp_path))])
