"""strata.import_onnx / compile / Session / run_ref / compare on the installed
package: a real model (PP-OCR's text-direction classifier, shipped by
rapidocr-onnxruntime, see scripts/requirements-models.txt) against ONNX
Runtime; bad inputs in a subprocess; the GIL released during Session.run."""
import importlib.util
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import strata
from python_bad_input_runner import check_errors

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


def _model_file():
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("rapidocr-onnxruntime (scripts/requirements-models.txt) is not installed")
    path = os.path.join(list(spec.submodule_search_locations)[0], "models",
                        "ch_ppocr_mobile_v2.0_cls_infer.onnx")
    if not os.path.exists(path):
        pytest.skip(f"{path} is missing")
    return path


def test_real_model_against_onnxruntime(tmp_path):
    path = _model_file()
    model = strata.import_onnx(path, input_shapes={"x": [1, 3, 48, 192]})
    assert [i.name for i in model.inputs] == ["x"]
    assert model.inputs[0].shape == (1, 3, 48, 192)
    artifact = strata.compile(model, target="cpu")
    artifact.save(tmp_path / "cls.strata")
    session = strata.Session(strata.load(tmp_path / "cls.strata"), threads=1)
    assert session.inputs[0] == ("x", (1, 3, 48, 192), np.dtype("float32"))
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (1, 3, 48, 192)).astype(np.float32)
    out = session.run({"x": x})
    ref_sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    ref = dict(zip([o.name for o in ref_sess.get_outputs()], ref_sess.run(None, {"x": x})))
    assert set(out) == set(ref)
    for name, r in ref.items():
        a = out[name]
        cos = float(np.dot(a.ravel().astype(np.float64), r.ravel()) /
                    (np.linalg.norm(a) * np.linalg.norm(r)))
        assert cos >= 0.9999, (name, cos)
        np.testing.assert_allclose(a, r, rtol=1e-3, atol=1e-4)
        assert strata.compare(r, a, tolerance=(0.9999, 0.999)).passed
    # The interpreter agrees too.
    interp = strata.run_ref(model, {"x": x})
    for name, r in ref.items():
        np.testing.assert_allclose(interp[name], r, rtol=1e-3, atol=1e-4)


def _relu_model(shape=(2, 3)):
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_model_proto_variants_and_outputs_owned():
    proto = _relu_model(("n", 3))
    with pytest.raises(strata.Error, match="symbolic or unknown dims"):
        strata.import_onnx(proto)
    model = strata.import_onnx(proto, input_shapes={"x": [1, 3]})
    assert model.inputs[0].shape == (1, 3)
    art = strata.compile(model, input_shapes=[{"x": [1, 3]}, {"x": [4, 3]}])
    s = strata.Session(art)
    for n in (1, 4):
        x = np.linspace(-1, 1, 3 * n, dtype=np.float32).reshape(n, 3)
        y = s.run({"x": x})["y"]
        np.testing.assert_array_equal(y, np.maximum(x, 0))
    first = s.run({"x": np.ones((1, 3), np.float32)})["y"]
    s.run({"x": np.zeros((1, 3), np.float32)})
    np.testing.assert_array_equal(first, np.ones((1, 3)))  # not a view of the session


BAD_INPUTS = textwrap.dedent("""
    import numpy as np, strata
    from onnx import TensorProto, helper
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    s = strata.Session(strata.compile(strata.import_onnx(helper.make_model(g))))
    x = np.zeros((2, 3), np.float32)
    cases = [{"z": x}, {"x": x.astype(np.float64)},
             {"x": x[:1]}, {}, {"x": [1.0, 2.0]}, "x"]
    for case in cases:
        try:
            s.run(case)
            print("NO ERROR", case)
        except strata.Error as e:
            assert isinstance(e, ValueError)
            print("ERROR", e)
    s.close()
    try:
        s.run({"x": x})
    except strata.Error as e:
        print("ERROR", e)
    for bad in (lambda: strata.import_onnx("/nonexistent/m.onnx"),
                lambda: strata.import_onnx(b"not a model"),
                lambda: strata.Session(b"not an artifact"),
                lambda: strata.compile(strata.import_onnx(helper.make_model(g)), quantize="int8"),
                lambda: strata.compare(np.zeros(2), np.zeros(2), tolerance=(2, 0.5))):
        try:
            bad()
            print("NO ERROR")
        except strata.Error as e:
            print("ERROR", e)
""")


def test_bad_inputs_raise_clear_errors():
    p = subprocess.run([sys.executable, "-c", BAD_INPUTS], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert not [line for line in lines if line.startswith("NO ERROR")], p.stdout
    expected = [
        "'z' is not an input of the model (its inputs: 'x')",
        "input 'x' must be float32, not float64",
        "input 'x' has shape",
        "input 'x' is missing",
        "input 'x' is not an array",
        "inputs must be a dict",
        "the session is closed",
        "cannot read ONNX model '/nonexistent/m.onnx'",
        "import_onnx",
        "invalid artifact",
        "quantize='int8' needs calibration=",
        "tolerance",
    ]
    assert len(lines) == len(expected), p.stdout
    for line, want in zip(lines, expected):
        assert line.startswith("ERROR") and want in line, (line, want)


def test_gil_released_while_running():
    # A model that runs for a while: a chain of matmuls by one weight.
    n = 256
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    inits = [onnx.numpy_helper.from_array(w, "w")]
    nodes = []
    prev = "x"
    for i in range(16):
        nodes.append(helper.make_node("MatMul", [prev, "w"], [f"h{i}"]))
        prev = f"h{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    g = helper.make_graph(nodes, "chain",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])], inits)
    t0 = time.perf_counter()
    art = strata.compile(strata.import_onnx(helper.make_model(g)))
    print(f"compile {time.perf_counter() - t0:.2f} s")
    s = strata.Session(art, threads=1)
    x = rng.standard_normal((n, n)).astype(np.float32)
    s.run({"x": x})  # warm up
    runs = []  # (start, end) of each run

    def worker():
        # Runs for at least 0.3 s whatever the kernels' speed (one run is a
        # few milliseconds with the GEMM kernels).
        begin = time.perf_counter()
        while time.perf_counter() - begin < 0.3:
            a = time.perf_counter()
            s.run({"x": x})
            runs.append((a, time.perf_counter()))

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        stamps = []
        t = threading.Thread(target=worker)
        t.start()
        while t.is_alive():
            stamps.append(time.perf_counter())
            time.sleep(0.0005)
        t.join()
    finally:
        sys.setswitchinterval(old)
    # Stamps taken strictly inside one run (1 ms margins): with the GIL held
    # during run() the main thread could take none there; released, it
    # takes one every ~0.5 ms.
    inside = [t for t in stamps
              if any(a + 0.001 < t < b - 0.001 for a, b in runs)]
    print(f"{len(runs)} runs, {len(stamps)} stamps, {len(inside)} inside a run")
    assert len(inside) >= 3, (len(inside), runs[:3])


TPULANG_BAD = textwrap.dedent("""
    import strata.tpulang as tpul
    attempt(lambda: tpul.relu(tpul.Tensor([2])))            # before init
    tpul.init("cpu")
    x = tpul.Tensor([1, 3, 4, 4], name="x")
    attempt(lambda: tpul.Tensor([2, 2], ttype="weight"))
    attempt(lambda: tpul.Tensor([2, 3], data=np.zeros(5, np.float32)))
    attempt(lambda: tpul.conv_v2(x, tpul.Tensor([3, 3, 3], name="w3")))
    attempt(lambda: tpul.reshape(x, [5, 5]))
    attempt(lambda: tpul.add(1, 2))
    attempt(lambda: tpul.compile("m", [x], [tpul.relu(x)]))  # no data to run on
    xi = tpul.Tensor([1, 3, 4, 4], name="xi", dtype="int32")
    attempt(lambda: tpul.requant_int(xi, 1 << 30, 2, 0, 2))    # a left shift in mode 2
    attempt(lambda: tpul.requant_int(xi, 1 << 30, 31, 0, 0))   # a left shift over 30
    x8 = tpul.Tensor([1, 2, 4, 4], name="x8", dtype="int8")
    attempt(lambda: tpul.add(x8, x8, scale=[0.1, 0.2]))
    attempt(lambda: tpul.add(x, x, scale=[0.1, 0.2, 0.3]))      # float inputs
    attempt(lambda: tpul.max(x8, x8, scale=[0.1, 0.2, 0.3]))
    wq = tpul.Tensor([3, 2, 1, 1], name="wq", dtype="int8", ttype="coeff", scale=[0.1, 0.2])
    attempt(lambda: tpul.conv_int(x8, wq))                   # 2 scales for 3 output channels
    wp = tpul.Tensor([2, 2, 1, 1], name="wp", dtype="int8", ttype="coeff", scale=[0.1, 0.2])
    tpul.relu(wp)                                            # per channel along dim 1 here
    attempt(lambda: tpul.conv_int(x8, wp))
    attempt(lambda: tpul.requant_int(xi, 1 << 30, -2, 0, 2, rq_axis=2))
    attempt(lambda: tpul.conv_quant(tpul.Tensor([1, 3, 4, 4], dtype="int8"),
                                    tpul.Tensor([2, 3, 1, 1], dtype="int8", ttype="coeff",
                                                data=np.ones([2, 3, 1, 1], np.int8)),
                                    input_scale=0.1, output_scale=0.2))  # no weight_scale
    tpul.deinit()
    attempt(lambda: tpul.relu(x))                            # after deinit
    attempt(lambda: tpul.init("gpu"))
""")


def test_tpulang_bad_inputs_raise_clear_errors(tmp_path):
    check_errors(TPULANG_BAD, [
        "relu: no graph", "Tensor: parameter 'ttype'", "Tensor: parameter 'data' has 5",
        "conv_v2:", "reshape:", "add: at least one", "compile: input 'x' has no data",
        "requant_int: parameter 'shift' = 2 has a left shift",
        "requant_int: shift 31 is out of range",
        "add: parameter 'scale' must have 3 values", "add: parameter 'tensor_i0' has dtype float32",
        "max: parameter 'scale' (quantized variant) is not supported",
        "conv_v2: tensor 'wq' has 2 per-channel scales but shape [3, 2, 1, 1] (one scale per "
        "index of dim 0", "conv_v2: parameter 'weight' ('wp') is already in the graph quantized "
        "per channel along dim 1",
        "requant_int: parameter 'rq_axis' = 2", "conv_quant: parameter 'weight_scale' is needed",
        "relu: no graph", "init: parameter 'platform' = 'gpu'"], cwd=tmp_path)


def test_python_m_strata_runs_the_cli():
    p = subprocess.run([sys.executable, "-m", "strata", "--help"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "strata compile" in p.stdout
    p = subprocess.run([sys.executable, "-m", "strata", "compare"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode != 0


def test_no_memory_growth_over_1000_runs():
    def rss_kib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

    s = strata.Session(strata.compile(strata.import_onnx(_relu_model((64, 64)))), threads=1)
    feeds = {"x": np.ones((64, 64), np.float32)}
    for _ in range(200):
        s.run(feeds)
    before = rss_kib()
    for _ in range(1000):
        out = s.run(feeds)
    grown = rss_kib() - before
    # A leak of one 16 KiB output per run would be 16 MB.
    assert grown < 2048, f"RSS grew by {grown} KiB over 1000 runs"
    np.testing.assert_array_equal(out["y"], np.ones((64, 64)))


CORRUPT_BYTECODE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tosa", "corrupt")


def test_corrupted_bytecode_raises_clear_errors():
    """MLIR bytecode on which MLIR's own reader crashes or never ends
    (test/tosa/corrupt) is read first in a child process by the package
    too: strata.Error naming the file, the Python process lives on."""
    script = "".join(
        f"attempt(lambda: strata.load_mlir({os.path.join(CORRUPT_BYTECODE, name)!r}))\n"
        for name in ("reader-segv.mlirbc", "reader-heap.mlirbc", "reader-loop.mlirbc"))
    check_errors(script + "print('ERROR alive')\n", [
        "reader-segv.mlirbc:0:0: is corrupted MLIR bytecode: MLIR's bytecode reader "
        "crashed (signal 11",
        "reader-heap.mlirbc:0:0: is corrupted MLIR bytecode",
        "reader-loop.mlirbc:0:0: is corrupted MLIR bytecode: MLIR's bytecode reader "
        "used up its 5 s of CPU time",
        "alive"])
