"""TpuLang scripts written as for TPU-MLIR (only the import line changed),
compiled with tpul.compile (interpreter + compiled CPU model) and compared with
numpy references computed here, independently of Strata."""
import numpy as np
import pytest

import strata
import strata.tpulang as tpul  # TPU-MLIR: import transform.TpuLang as tpul


def np_conv(x, w, b, stride, pad):  # pad: [up, down, left, right]
    x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    oh = (h - kh) // stride[0] + 1
    ow = (wd - kw) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow), np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1]]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return out + b.reshape(1, -1, 1, 1)


def np_maxpool(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(k):
        for j in range(k):
            out = np.maximum(out, x[:, :, i:i + s * oh:s, j:j + s * ow:s])
    return out


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def conv_op(x, kshape, stride, pad=None, group=1, dilation=[1, 1], bias=False, dtype="float32"):
    oc = kshape[0]
    weight = tpul.Tensor(dtype=dtype, shape=kshape,
                         data=np.random.uniform(-0.5, 0.5, kshape).astype(dtype), ttype="coeff")
    out_dtype = dtype if dtype == "float32" else "int32"
    bias = tpul.Tensor(dtype=out_dtype, shape=[1, oc, 1, 1],
                       data=np.random.uniform(-0.5, 0.5, [1, oc, 1, 1]).astype(out_dtype),
                       ttype="coeff") if bias else None
    conv = tpul.conv_v2(x, weight, bias=bias, stride=stride, pad=pad, dilation=dilation,
                        group=group, out_dtype=out_dtype)
    return conv, weight, bias


def test_cnn_script(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.random.seed(0)
    shape = [1, 3, 16, 16]
    x_data = np.random.uniform(-1, 1, shape).astype(np.float32)
    tpul.init("cpu")
    x = tpul.Tensor(dtype="float32", shape=shape, data=x_data)
    conv1, w1, b1 = conv_op(x, [8, 3, 3, 3], [1, 1], pad=[1, 1, 1, 1], bias=True)
    relu1 = tpul.relu(conv1)
    pool1 = tpul.maxpool2d(relu1, kernel=[2, 2], stride=[2, 2], pad=[0, 0, 0, 0])
    conv2, w2, b2 = conv_op(pool1, [16, 8, 3, 3], [2, 2], pad=[1, 1, 1, 1], bias=True)
    relu2 = tpul.relu(conv2)
    flat = tpul.reshape(relu2, [1, 16 * 4 * 4])
    fc_w = tpul.Tensor(dtype="float32", shape=[256, 10],
                       data=np.random.uniform(-0.1, 0.1, [256, 10]).astype(np.float32),
                       ttype="coeff")
    fc = tpul.matmul(flat, fc_w)
    scaled = tpul.add(tpul.mul(fc, 0.5), 1.0)
    prob = tpul.softmax(scaled, axis=1)

    # The numpy reference.
    r = np.maximum(np_conv(x_data.astype(np.float64), w1.buffer, b1.buffer, [1, 1], [1, 1, 1, 1]), 0)
    r = np_maxpool(r, 2, 2)
    r = np.maximum(np_conv(r, w2.buffer, b2.buffer, [2, 2], [1, 1, 1, 1]), 0)
    ref = np_softmax((r.reshape(1, 256) @ fc_w.buffer) * 0.5 + 1.0, axis=1)
    assert prob.shape == [1, 10]

    top = tpul.compile("cnn", [x], [prob], cmp=True, refs={prob.name: ref.astype(np.float32)})
    tpul.deinit()
    for f in ("cnn_origin.mlir", "cnn_TOP_F32_all_weight.npz", "cnn_top_outputs.npz",
              "cnn.strata", "cnn_model_outputs.npz"):
        assert (tmp_path / f).exists(), f
    np.testing.assert_allclose(top[prob.name], ref, rtol=1e-4, atol=1e-6)
    compiled = np.load(tmp_path / "cnn_model_outputs.npz")[prob.name]
    np.testing.assert_allclose(compiled, ref, rtol=1e-4, atol=1e-6)
    # The artifact runs by itself.
    out = strata.Session(str(tmp_path / "cnn.strata")).run({x.name: x_data})
    np.testing.assert_allclose(out[prob.name], ref, rtol=1e-4, atol=1e-6)


def test_compile_cmp_detects_wrong_refs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tpul.init("cpu")
    data = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    x = tpul.Tensor([3, 4], name="x", data=data)
    y = tpul.relu(x, out_name="y")
    with pytest.raises(strata.Error, match="y: NOT_SIMILAR"):
        tpul.compile("bad", [x], [y], cmp=True, refs={"y": -np.maximum(data, 0)},
                     bmodel_inference=False)
    tpul.deinit()


def test_signatures_match_tpu_mlir():
    import inspect
    sig = inspect.signature(tpul.conv_v2)
    assert list(sig.parameters) == ["tensor_i", "weight", "bias", "stride", "dilation", "pad",
                                    "group", "input_zp", "weight_zp", "out_dtype", "out_name"]
    assert sig.parameters["group"].default == 1
    # compile / compile_f32: TPU-MLIR's python/transform/TpuLang.py, in order.
    sig = inspect.signature(tpul.compile)
    assert list(sig.parameters) == [
        "name", "inputs", "outputs", "cmp", "refs", "mode", "dynamic", "asymmetric",
        "no_save", "opt", "mlir_inference", "bmodel_inference", "log_level",
        "embed_debug_info"]
    assert sig.parameters["cmp"].default is True and sig.parameters["mode"].default == "f32"
    sig = inspect.signature(tpul.compile_f32)
    assert list(sig.parameters) == [
        "name", "inputs", "outputs", "cmp", "refs", "mode", "dynamic", "opt", "no_save",
        "mlir_inference", "bmodel_inference", "top_mlir_inference", "tpu_mlir_inference",
        "log_level", "embed_debug_info"]
    assert list(inspect.signature(tpul.requant_int).parameters) == [
        "tensor_i", "mul", "shift", "offset", "requant_mode", "out_dtype", "out_name",
        "round_mode", "rq_axis", "fuse_rq_to_matmul"]
    assert list(inspect.signature(tpul.conv_quant).parameters) == [
        "input", "weight", "bias", "stride", "dilation", "pad", "group", "input_scale",
        "weight_scale", "output_scale", "input_zp", "weight_zp", "output_zp", "out_dtype",
        "out_name"]
    t = tpul.Tensor.__init__.__doc__ or ""
    assert "neuron" in t


def test_errors_name_op_and_parameter():
    tpul.init("cpu")
    x = tpul.Tensor([1, 3, 8, 8], name="img")
    w = tpul.Tensor([4, 3, 3, 3], name="w", ttype="coeff",
                    data=np.zeros([4, 3, 3, 3], np.float32))
    with pytest.raises(strata.Error, match=r"conv_v2: parameter 'pad' must have 4 values"):
        tpul.conv_v2(x, w, pad=[1, 1, 1])
    with pytest.raises(ValueError):  # strata.Error is a ValueError
        tpul.Tensor([2, 2], ttype="weights")
    tpul.deinit()
    with pytest.raises(strata.Error):
        tpul.relu(x)


def _small_cnn(x):
    conv1, _, _ = conv_op(x, [8, 3, 3, 3], [1, 1], pad=[1, 1, 1, 1], bias=True)
    conv2, _, _ = conv_op(tpul.relu(conv1), [8, 8, 3, 3], [2, 2], pad=[1, 1, 1, 1], bias=True)
    return tpul.relu(conv2)


@pytest.mark.parametrize("call,mode,asymmetric", [
    ("compile_f32", "f16", False), ("compile_f32", "bf16", False),
    ("compile_f32", "int8", False), ("compile", "int8", True), ("compile_f32", "all", False)])
def test_compile_modes_quantize(tmp_path, monkeypatch, call, mode, asymmetric):
    # TPU-MLIR's compile_f32(mode=...) lowers the float graph to f16/bf16/int8
    # ('all': f32, f16, bf16); Strata quantizes with top-quantize (int8
    # calibrated on the inputs' data) and compares the compiled model with the
    # interpreter's float outputs at TPU-MLIR's lowered tolerance (0.95, 0.80).
    monkeypatch.chdir(tmp_path)
    np.random.seed(1)
    tpul.init("cpu")
    x_data = np.random.uniform(-1, 1, [1, 3, 12, 12]).astype(np.float32)
    x = tpul.Tensor(dtype="float32", shape=[1, 3, 12, 12], data=x_data)
    y = _small_cnn(x)
    kwargs = dict(asymmetric=asymmetric) if call == "compile" else {}
    top = getattr(tpul, call)("net", [x], [y], cmp=False, mode=mode, **kwargs)
    tpul.deinit()
    modes = ("f32", "f16", "bf16") if mode == "all" else (mode,)
    for m in modes:
        stem = "net" if m == "f32" else f"net_{m}"
        out = np.load(tmp_path / f"{stem}_model_outputs.npz")[y.name]
        got = strata.Session(str(tmp_path / f"{stem}.strata")).run({x.name: x_data})[y.name]
        np.testing.assert_array_equal(out, got)
        ref = top[y.name].astype(np.float64).ravel()
        cos = float(ref @ got.ravel() / (np.linalg.norm(ref) * np.linalg.norm(got)))
        assert cos >= (0.999 if m != "int8" else 0.99), (m, cos)
        if m != "f32":
            assert not np.array_equal(got, top[y.name]), m  # really lowered


def test_compile_mode_and_log_level_checked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tpul.init("cpu")
    x = tpul.Tensor([2, 2], name="x", data=np.ones([2, 2], np.float32))
    y = tpul.relu(x)
    with pytest.raises(strata.Error, match=r"compile_f32: parameter 'mode' = 'int4' must be"):
        tpul.compile_f32("m", [x], [y], mode="int4")
    with pytest.raises(strata.Error, match=r"compile: parameter 'log_level' = 'loud' must be"):
        tpul.compile("m", [x], [y], log_level="loud")
    # mode "none": the interpreter only, no compiled model.
    top = tpul.compile_f32("m", [x], [y], mode="none", log_level="quiet")
    assert y.name in top and not (tmp_path / "m.strata").exists()
    tpul.deinit()


def test_conv_int_signature_and_checks():
    import inspect
    assert list(inspect.signature(tpul.conv_int).parameters) == [
        "input", "weight", "bias", "stride", "dilation", "pad", "group", "input_zp",
        "weight_zp", "out_dtype", "out_name"]
    tpul.init("cpu")
    x = tpul.Tensor([1, 3, 4, 4], dtype="float32", name="xf")
    w = tpul.Tensor([2, 3, 1, 1], dtype="int8", ttype="coeff",
                    data=np.ones([2, 3, 1, 1], np.int8))
    with pytest.raises(strata.Error, match="conv_int: parameter 'input' has dtype float32"):
        tpul.conv_int(x, w)
    tpul.deinit()
