"""ONNX import of LSTM, GRU and RNN, checked against ONNX Runtime
(rtol 1e-4, atol 1e-5): directions, optional inputs and outputs, sequence
lengths, clip, input_forget, linear_before_reset, activations with
activation_alpha / activation_beta consumed in ONNX order, layout, old
opsets, and import errors."""
import numpy as np
import pytest
from onnx import helper

from onnx_harness import check_against_ort, import_error, make_model

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
INPUT_NAMES = {"LSTM": ["x", "w", "r", "b", "sl", "h0", "c0", "p"],
               "GRU": ["x", "w", "r", "b", "sl", "h0"],
               "RNN": ["x", "w", "r", "b", "sl", "h0"]}


def build(kind, seq=4, batch=3, inp=5, hidden=6, direction="forward",
          present=("b", "sl", "h0", "c0", "p"), outs=("y", "yh", "yc"),
          attrs=None, opset=17, layout=0, seed=0, seq_lens=None,
          hidden_attr=True):
    """A one-node model; W, R, B and P are initializers, the rest inputs."""
    rng = np.random.default_rng(seed)
    g = GATES[kind]
    dirs = 2 if direction == "bidirectional" else 1
    x_shape = (seq, batch, inp) if layout == 0 else (batch, seq, inp)
    state = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
    f = np.float32
    values = {
        "x": rng.standard_normal(x_shape).astype(f),
        "w": (rng.standard_normal((dirs, g * hidden, inp)) * 0.5).astype(f),
        "r": (rng.standard_normal((dirs, g * hidden, hidden)) * 0.5).astype(f),
        "b": rng.standard_normal((dirs, 2 * g * hidden)).astype(f),
        "sl": np.array(seq_lens if seq_lens is not None
                       else rng.integers(1, seq + 1, batch), np.int32),
        "h0": rng.standard_normal(state).astype(f),
        "c0": rng.standard_normal(state).astype(f),
        "p": rng.standard_normal((dirs, 3 * hidden)).astype(f),
    }
    names = [n if n in ("x", "w", "r") or n in present else ""
             for n in INPUT_NAMES[kind]]
    while names and names[-1] == "":
        names.pop()
    n_outs = 3 if kind == "LSTM" else 2
    out_names = [o if o in outs else "" for o in ("y", "yh", "yc")[:n_outs]]
    while out_names[-1] == "":
        out_names.pop()
    a = {"direction": direction, **(attrs or {})}
    if hidden_attr:
        a["hidden_size"] = hidden
    if layout:
        a["layout"] = layout
    node = helper.make_node(kind, names, out_names, **a)
    inits = {n: values[n] for n in ("w", "r", "b", "p") if n in names}
    inputs = {n: values[n] for n in ("x", "sl", "h0", "c0") if n in names}
    model = make_model([node], inputs, [o for o in out_names if o], inits, opset)
    return model, inputs


LSTM_CASES = {
    "defaults": dict(present=()),
    "reverse_all_inputs": dict(direction="reverse"),
    "bidirectional_all_inputs": dict(direction="bidirectional"),
    "bidirectional_clip": dict(direction="bidirectional", attrs={"clip": 0.8}),
    "input_forget": dict(attrs={"input_forget": 1}),
    "activations_alpha_beta": dict(
        direction="bidirectional",
        attrs={"activations": ["HardSigmoid", "LeakyRelu", "ScaledTanh",
                               "sigmoid", "tanh", "Affine"],
               "activation_alpha": [0.3, 0.05, 1.5, 0.8],
               "activation_beta": [0.4, 0.7, 0.2]}),
    "only_y_h": dict(outs=("yh",)),
    "only_y_c": dict(outs=("yc",), direction="reverse"),
    "y_and_y_c": dict(outs=("y", "yc"), present=("b", "h0")),
    "opset7": dict(opset=7, direction="bidirectional"),
    "full_sequence_lens": dict(direction="bidirectional", seq_lens=[4, 4, 4]),
    "empty_sequence": dict(direction="bidirectional", seq_lens=[0, 3, 2]),
}


@pytest.mark.parametrize("case", LSTM_CASES)
def test_lstm(case):
    check_against_ort(*build("LSTM", **LSTM_CASES[case]))


GRU_CASES = {
    "defaults": dict(present=(), outs=("y", "yh")),
    "linear_before_reset": dict(attrs={"linear_before_reset": 1}),
    "bidirectional": dict(direction="bidirectional", present=("b", "sl")),
    "reverse_lbr_clip": dict(direction="reverse",
                             attrs={"linear_before_reset": 1, "clip": 0.5}),
    "activations": dict(direction="bidirectional",
                        attrs={"activations": ["Sigmoid", "Softsign", "HardSigmoid", "Elu"],
                               "activation_alpha": [0.25, 0.9]}),
    "only_y_h": dict(outs=("yh",)),
    "empty_sequence": dict(seq_lens=[2, 0, 4], direction="reverse"),
    "opset7": dict(opset=7, direction="bidirectional"),
}


@pytest.mark.parametrize("case", GRU_CASES)
def test_gru(case):
    check_against_ort(*build("GRU", **GRU_CASES[case]))


RNN_CASES = {
    "defaults": dict(present=()),
    "bidirectional": dict(direction="bidirectional"),
    "relu": dict(attrs={"activations": ["Relu"]}, present=("b", "h0")),
    "empty_sequence": dict(seq_lens=[3, 0, 1], direction="bidirectional"),
    "reverse_clip_softplus": dict(direction="reverse",
                                  attrs={"activations": ["Softplus"], "clip": 1.5}),
    "opset7": dict(opset=7),
}


@pytest.mark.parametrize("case", RNN_CASES)
def test_rnn(case):
    check_against_ort(*build("RNN", **RNN_CASES[case]))


def test_layout1_against_time_major():
    """ONNX Runtime's CPU kernels reject layout = 1, so the batch-major
    model is checked against the time-major one run on transposed data."""
    from onnx_harness import run_ort, run_strata
    model1, inputs1 = build("LSTM", direction="bidirectional", layout=1, seed=3)
    model0, _ = build("LSTM", direction="bidirectional", layout=0, seed=3)
    # Same weights (initializers) in both; the data inputs are transposed.
    inputs0 = {"x": inputs1["x"].transpose(1, 0, 2), "sl": inputs1["sl"],
               "h0": inputs1["h0"].transpose(1, 0, 2),
               "c0": inputs1["c0"].transpose(1, 0, 2)}
    for n in ("w", "r", "b", "p"):
        i0 = [t for t in model0.graph.initializer if t.name == n][0]
        i1 = [t for t in model1.graph.initializer if t.name == n][0]
        i0.CopyFrom(i1)
    want = run_ort(model0, inputs0)
    code, got, err = run_strata(model1, inputs1)
    assert code == 0, err
    np.testing.assert_allclose(got["y"], want["y"].transpose(2, 0, 1, 3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["yh"], want["yh"].transpose(1, 0, 2), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["yc"], want["yc"].transpose(1, 0, 2), rtol=1e-4, atol=1e-5)


def test_hidden_size_from_recurrence_shape():
    """hidden_size is optional in ONNX (ONNX Runtime requires it): without
    it the importer takes R's last dim."""
    from onnx_harness import run_ort, run_strata
    bare, inputs = build("LSTM", present=("b",), hidden_attr=False)
    full, _ = build("LSTM", present=("b",))
    want = run_ort(full, inputs)
    code, got, err = run_strata(bare, inputs)
    assert code == 0, err
    for n in want:
        np.testing.assert_allclose(got[n], want[n], rtol=1e-4, atol=1e-5)


def test_bad_direction():
    m, _ = build("LSTM", direction="sideways")
    err = import_error(m)
    assert "attribute 'direction' = \"sideways\"" in err and "LSTM" in err


def test_unknown_activation():
    m, _ = build("GRU", attrs={"activations": ["Sigmoid", "Swish"]})
    assert "unknown activation 'Swish'" in import_error(m)


def test_activation_count():
    m, _ = build("RNN", direction="bidirectional", attrs={"activations": ["Tanh"]})
    assert "attribute 'activations' has 1 entries, expected 2" in import_error(m)


def test_weight_shape_mismatch():
    m, _ = build("LSTM", present=())
    m.graph.node[0].attribute[-1].i = 7  # hidden_size no longer matches R
    err = import_error(m)
    assert "operand 'weight' must have shape [1, 28, 5], got [1, 24, 5]" in err
