"""ONNX import of Attention-23/24, LinearAttention-27, RMSNormalization-23,
RotaryEmbedding-23, Dropout, NegativeLogLikelihoodLoss and
SoftmaxCrossEntropyLoss, checked against ONNX Runtime 1.27 (LinearAttention:
against onnx.reference, ORT does not load opset 27).

Tolerances: rtol 1e-4 / atol 1e-5 (f32; ORT accumulates in f32), f16
Attention rtol/atol 2e-3."""
import numpy as np
import pytest
from onnx import helper

from onnx_harness import check_against_ort, import_error, make_model, run_strata

RNG = np.random.default_rng(0)


def randf(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def single(op, inputs, attrs=None, inits=None, opset=23, names=None, outs=("y",)):
    names = names if names is not None else list(inputs) + list(inits or {})
    node = helper.make_node(op, names, list(outs), **(attrs or {}))
    return make_model([node], inputs, list(outs), inits, opset)


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------

def test_attention_4d_gqa_causal_mask():
    ins = {"q": randf(2, 4, 3, 8), "k": randf(2, 2, 5, 8), "v": randf(2, 2, 5, 6),
           "m": randf(3, 5)}
    check_against_ort(single("Attention", ins, {"is_causal": 1}), ins)


def test_attention_3d_past_present_qk_output():
    ins = {"q": randf(2, 3, 16), "k": randf(2, 4, 8), "v": randf(2, 4, 12),
           "m": RNG.random((2, 1, 3, 6)) < 0.8, "pk": randf(2, 2, 2, 4),
           "pv": randf(2, 2, 2, 6)}
    ins["m"][..., 0] = True
    m = single("Attention", ins, {"q_num_heads": 4, "kv_num_heads": 2,
                                  "scale": 0.4, "qk_matmul_output_mode": 3},
               outs=("y", "present_key", "present_value", "qk"))
    check_against_ort(m, ins)


def test_attention_softcap():
    ins = {"q": randf(1, 2, 4, 8), "k": randf(1, 2, 4, 8), "v": randf(1, 2, 4, 8)}
    check_against_ort(single("Attention", ins, {"softcap": 2.0}), ins)


def test_attention_nonpad_kv_seqlen_opset24():
    ins = {"q": randf(2, 2, 3, 4), "k": randf(2, 2, 6, 4), "v": randf(2, 2, 6, 4),
           "n": np.array([4, 6], np.int64)}
    m = single("Attention", ins, names=["q", "k", "v", "", "", "", "n"], opset=24)
    check_against_ort(m, ins)


def test_attention_f16():
    ins = {k: randf(1, 2, 4, 8, dtype=np.float16) for k in ("q", "k", "v")}
    check_against_ort(single("Attention", ins, {"is_causal": 1}), ins,
                      rtol=2e-3, atol=2e-3)


def test_attention_3d_without_heads_is_rejected():
    ins = {"q": randf(1, 3, 8), "k": randf(1, 3, 8), "v": randf(1, 3, 8)}
    err = import_error(single("Attention", ins))
    assert "'q_num_heads' and 'kv_num_heads' are required" in err


def test_attention_bad_mode_is_rejected():
    ins = {"q": randf(1, 1, 2, 4), "k": randf(1, 1, 2, 4), "v": randf(1, 1, 2, 4)}
    err = import_error(single("Attention", ins, {"qk_matmul_output_mode": 7}))
    assert "'qk_matmul_output_mode' = 7" in err


# ---------------------------------------------------------------------------
# RMSNormalization, RotaryEmbedding
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_rms_normalization(axis):
    x = randf(2, 3, 4)
    scale = randf(*x.shape[axis:])
    check_against_ort(single("RMSNormalization", {"x": x}, {"axis": axis, "epsilon": 1e-3},
                             {"s": scale}), {"x": x})


@pytest.mark.parametrize("interleaved,rot_dim", [(0, 0), (1, 0), (0, 4), (1, 4)])
def test_rotary_embedding_position_ids(interleaved, rot_dim):
    x = randf(2, 3, 5, 8)
    r = rot_dim or 8
    angles = RNG.uniform(0, 6.3, size=(10, r // 2))
    ins = {"x": x, "c": np.cos(angles).astype(np.float32),
           "s": np.sin(angles).astype(np.float32),
           "p": RNG.integers(0, 10, size=(2, 5)).astype(np.int64)}
    m = single("RotaryEmbedding", ins, {"interleaved": interleaved,
                                        "rotary_embedding_dim": rot_dim})
    check_against_ort(m, ins)


def test_rotary_embedding_3d_no_position_ids():
    x = randf(2, 5, 24)
    angles = RNG.uniform(0, 6.3, size=(2, 5, 4))
    ins = {"x": x, "c": np.cos(angles).astype(np.float32),
           "s": np.sin(angles).astype(np.float32)}
    check_against_ort(single("RotaryEmbedding", ins, {"num_heads": 3}), ins)


# ---------------------------------------------------------------------------
# Dropout
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("opset", [13, 22])
def test_dropout_inference_is_identity_with_mask(opset):
    x = randf(3, 4)
    m = single("Dropout", {"x": x}, opset=opset, outs=("y", "mask"))
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("opset,mask_dtype", [(7, np.float32), (10, np.bool_)])
def test_dropout_old_opsets(opset, mask_dtype):
    """Output checked against ORT. ORT's opset 7-11 kernel returns an
    all-zero mask at inference while its opset 12+ kernel and the ONNX
    reference return all ones (every element kept); Strata returns ones at
    every opset, in the mask type of the opset (float before 10)."""
    x = randf(3, 4)
    check_against_ort(single("Dropout", {"x": x}, {"ratio": 0.3}, opset=opset), {"x": x})
    code, got, err = run_strata(single("Dropout", {"x": x}, {"ratio": 0.3}, opset=opset,
                                       outs=("y", "mask")), {"x": x})
    assert code == 0, err
    np.testing.assert_array_equal(got["y"], x)
    assert got["mask"].dtype == mask_dtype
    assert got["mask"].shape == x.shape and np.all(got["mask"] == 1)


def test_dropout_constant_training_false():
    x = randf(3, 4)
    m = single("Dropout", {"x": x}, inits={"r": np.array(0.4, np.float32),
                                           "t": np.array(False)}, opset=22,
               outs=("y", "mask"))
    check_against_ort(m, {"x": x})


def test_dropout_training_ratio_zero_is_identity():
    x = randf(3, 4)
    m = single("Dropout", {"x": x}, inits={"r": np.array(0.0, np.float32),
                                           "t": np.array(True)}, opset=22,
               outs=("y", "mask"))
    check_against_ort(m, {"x": x})


def test_dropout_training_is_rejected():
    x = randf(3, 4)
    m = single("Dropout", {"x": x}, inits={"r": np.array(0.5, np.float32),
                                           "t": np.array(True)}, opset=22)
    err = import_error(m)
    assert "(Dropout, opset 22)" in err and "training mode with ratio 5.000000e-01" in err


# ---------------------------------------------------------------------------
# NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
# ---------------------------------------------------------------------------

LOSS_CASES = [
    # (input shape, reduction, weight, ignore_index)
    ((4, 5), "mean", False, None),
    ((4, 5), "sum", True, None),
    ((3, 5, 2), "none", True, 2),
    ((2, 4, 3, 2), "mean", True, -1),
    ((2, 4, 3), "mean", False, 1),
    ((2, 3, 2, 2, 2), "sum", False, 7),
]


def loss_inputs(shape, weight, ignore):
    n, c = shape[0], shape[1]
    target = RNG.integers(0, c, size=(n,) + shape[2:]).astype(np.int64)
    if ignore is not None:
        target.flat[::3] = ignore
    ins = {"x": randf(*shape), "t": target}
    if weight:
        ins["w"] = RNG.uniform(0.5, 2.0, size=(c,)).astype(np.float32)
    return ins


@pytest.mark.parametrize("case", LOSS_CASES, ids=[str(i) for i in range(len(LOSS_CASES))])
@pytest.mark.parametrize("opset", [13, 22])
def test_nll_loss(case, opset):
    shape, reduction, weight, ignore = case
    ins = loss_inputs(shape, weight, ignore)
    attrs = {"reduction": reduction}
    if ignore is not None:
        attrs["ignore_index"] = ignore
    check_against_ort(single("NegativeLogLikelihoodLoss", ins, attrs, opset=opset), ins)


@pytest.mark.parametrize("case", LOSS_CASES, ids=[str(i) for i in range(len(LOSS_CASES))])
def test_softmax_cross_entropy_loss(case):
    shape, reduction, weight, ignore = case
    ins = loss_inputs(shape, weight, ignore)
    attrs = {"reduction": reduction}
    if ignore is not None:
        attrs["ignore_index"] = ignore
    m = single("SoftmaxCrossEntropyLoss", ins, attrs, opset=13, outs=("y", "log_prob"))
    check_against_ort(m, ins)


def test_loss_bad_reduction_is_rejected():
    ins = loss_inputs((2, 3), False, None)
    err = import_error(single("NegativeLogLikelihoodLoss", ins, {"reduction": "max"}, opset=13))
    assert "attribute 'reduction' = 'max'" in err


def test_loss_target_shape_is_checked():
    ins = {"x": randf(2, 3, 4), "t": np.zeros((2, 3), np.int64)}
    err = import_error(single("NegativeLogLikelihoodLoss", ins, opset=13))
    assert "target shape [2, 3] must be the input shape without dim 1, [2, 4]" in err


# ---------------------------------------------------------------------------
# LinearAttention (opset 27: ONNX Runtime 1.27 does not load it, so the
# reference is onnx.reference.ReferenceEvaluator, which computes in f32)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("rule,inputs", [
    ("linear", ["q", "k", "v"]),
    ("gated", ["q", "k", "v", "", "g"]),
    ("gated_delta", ["q", "k", "v", "s", "g", "b"]),
])
def test_linear_attention_vs_onnx_reference(rule, inputs):
    from onnx.reference import ReferenceEvaluator
    ins = {"q": randf(2, 4, 16), "k": randf(2, 4, 8) * 0.5, "v": randf(2, 4, 6)}
    if "s" in inputs:
        ins["s"] = randf(2, 2, 4, 3)
    if "g" in inputs:
        ins["g"] = -RNG.uniform(0, 1, (2, 4, 2)).astype(np.float32)
    if "b" in inputs:
        ins["b"] = RNG.uniform(0, 1, (2, 4, 2)).astype(np.float32)
    m = single("LinearAttention", ins, {"q_num_heads": 4, "kv_num_heads": 2,
                                        "update_rule": rule},
               opset=27, names=inputs, outs=("y", "state"))
    code, got, err = run_strata(m, ins)
    assert code == 0, err
    want = ReferenceEvaluator(m).run(None, ins)
    for name, w in zip(("y", "state"), want):
        assert got[name].dtype == w.dtype and got[name].shape == w.shape, name
        np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-5, err_msg=name)
