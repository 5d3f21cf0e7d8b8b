"""top.LSTM, top.GRU, top.RNN against the numpy reference in
reference_recurrent.py (f64, step by step), on randomized data: every
direction, both layouts, sequence lengths (including 0 and full), initial
states, peepholes, clip, input_forget, linear_before_reset, non-default
activations with alpha/beta, absent optional operands.

Tolerance: rtol 1e-4 / atol 1e-5 (f32 compute against an f64 reference,
errors compound over at most 7 steps of bounded activations)."""
import numpy as np
import pytest

from numeric_harness import COMPILED, Model, mlir_type, run_ok
from reference_recurrent import DEFAULT_ACTS, GATES, recurrent

RTOL, ATOL = 1e-4, 1e-5

# (kind, seq, batch, input, hidden, direction, layout, options)
CASES = [
    ("LSTM", 3, 2, 4, 5, "forward", 0, {}),
    ("LSTM", 4, 3, 2, 3, "reverse", 0, {"bias": True, "h0": True, "c0": True}),
    ("LSTM", 5, 3, 3, 4, "bidirectional", 0, {"bias": True, "seq_lens": [5, 2, 0], "h0": True, "c0": True, "p": True}),
    ("LSTM", 4, 2, 3, 2, "bidirectional", 1, {"bias": True, "seq_lens": [1, 4], "h0": True, "c0": True}),
    ("LSTM", 3, 2, 3, 4, "forward", 0, {"bias": True, "clip": 0.7, "input_forget": True, "p": True}),
    ("LSTM", 3, 1, 2, 3, "reverse", 1, {"acts": [("HardSigmoid", 0.3, 0.4), ("LeakyRelu", 0.05, 0.0), ("Softsign", 0.0, 0.0)]}),
    ("LSTM", 2, 1, 2, 3, "forward", 0, {"acts": [("Sigmoid", 0, 0), ("Affine", 0.5, 0.1), ("ScaledTanh", 1.5, 0.7)], "c0": True}),
    ("GRU", 3, 2, 4, 5, "forward", 0, {}),
    ("GRU", 4, 3, 2, 3, "reverse", 0, {"bias": True, "h0": True, "linear_before_reset": True}),
    ("GRU", 5, 3, 3, 4, "bidirectional", 1, {"bias": True, "seq_lens": [3, 5, 0], "h0": True}),
    ("GRU", 3, 2, 3, 4, "bidirectional", 0, {"bias": True, "clip": 0.5, "linear_before_reset": True,
                                            "acts": [("Sigmoid", 0, 0), ("Tanh", 0, 0), ("HardSigmoid", 0.2, 0.5), ("Elu", 1.2, 0)]}),
    ("RNN", 3, 2, 4, 5, "forward", 0, {}),
    ("RNN", 4, 3, 2, 3, "bidirectional", 0, {"bias": True, "h0": True, "seq_lens": [4, 1, 2],
                                            "acts": [("Relu", 0, 0), ("ThresholdedRelu", 0.2, 0)]}),
    ("RNN", 7, 2, 3, 6, "reverse", 1, {"bias": True, "clip": 1.0, "h0": True, "acts": [("Softplus", 0, 0)]}),
    ("RNN", 0, 2, 3, 2, "forward", 0, {"h0": True}),  # empty sequence
]


def farr(values):
    return ", ".join(repr(float(v)) for v in values)


def run_case(rng, kind, seq, batch, inp, hidden, direction, layout, o):
    g = GATES[kind]
    dirs = 2 if direction == "bidirectional" else 1
    f32 = np.float32
    x_shape = (seq, batch, inp) if layout == 0 else (batch, seq, inp)
    state = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
    inputs = {"x": rng.standard_normal(x_shape).astype(f32)}
    weights = {"w": (rng.standard_normal((dirs, g * hidden, inp)) * 0.7).astype(f32),
               "r": (rng.standard_normal((dirs, g * hidden, hidden)) * 0.7).astype(f32)}
    optional = [("b", "bias", (dirs, 2 * g * hidden)), ("sl", "seq_lens", None),
                ("h0", "h0", state)]
    if kind == "LSTM":
        optional += [("c0", "c0", state), ("p", "p", (dirs, 3 * hidden))]
    operands = ["%x", "%w", "%r"]
    for name, key, shape in optional:
        if key == "seq_lens" and key in o:
            inputs[name] = np.array(o[key], np.int32)
        elif key in o and key != "seq_lens":
            weights[name] = rng.standard_normal(shape).astype(f32)
        else:
            operands.append("%none")
            continue
        operands.append("%" + name)

    attrs = [f"hidden_size = {hidden} : i64", f'direction = #top.rnn_direction<{direction}>', f"layout = {layout} : i64"]
    acts = o.get("acts")
    if acts is not None:
        acts = acts * dirs if len(acts) == len(DEFAULT_ACTS[kind]) else acts
        attrs.append("activations = [" + ", ".join(f'#top.rnn_activation<{a[0]}>' for a in acts) + "]")
        attrs.append(f"activation_alpha = array<f64: {farr(a[1] for a in acts)}>")
        attrs.append(f"activation_beta = array<f64: {farr(a[2] for a in acts)}>")
    if "clip" in o:
        attrs.append(f"clip = {o['clip']!r} : f64")
    if o.get("input_forget"):
        attrs.append("input_forget = true")
    if o.get("linear_before_reset"):
        attrs.append("linear_before_reset = true")

    values = {**inputs, **weights}
    types = [mlir_type(values[op[1:]].shape, values[op[1:]].dtype) if op != "%none" else "none"
             for op in operands]
    n_res = 3 if kind == "LSTM" else 2
    unranked = "tensor<*xf32>"
    m = Model(inputs, weights)
    m.op(f"%y:{n_res} = top.{kind}({', '.join(operands)}) {{{', '.join(attrs)}}} : "
         f"({', '.join(types)}) -> ({', '.join([unranked] * n_res)})")
    names = ["y", "y_h", "y_c"][:n_res]
    got = run_ok(m, [(f"%y#{i}", n, unranked) for i, n in enumerate(names)])

    want = recurrent(kind, inputs["x"], weights["w"], weights["r"], b=weights.get("b"),
                     seq_lens=inputs.get("sl"), h0=weights.get("h0"), c0=weights.get("c0"),
                     p=weights.get("p"), direction=direction, acts=acts, clip=o.get("clip"),
                     input_forget=o.get("input_forget", False),
                     linear_before_reset=o.get("linear_before_reset", False), layout=layout)
    for name, ref in zip(names, want):
        assert got[name].shape == ref.shape, name
        np.testing.assert_allclose(got[name], ref, rtol=RTOL, atol=ATOL, err_msg=name)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_recurrent(rng, case):
    run_case(rng, *case)


@pytest.mark.interpreter_only
def test_lstm_out_of_range_sequence_length_is_an_error(rng):
    x = rng.standard_normal((2, 1, 3)).astype(np.float32)
    m = Model({"x": x, "sl": np.array([3], np.int32)},
              {"w": np.zeros((1, 8, 3), np.float32), "r": np.zeros((1, 8, 2), np.float32)})
    m.op('%y:3 = top.LSTM(%x, %w, %r, %none, %sl, %none, %none, %none) {hidden_size = 2 : i64} : '
         '(tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, none, tensor<1xi32>, none, none, none) '
         '-> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)')
    from numeric_harness import run_ref
    code, _, err = run_ref(m, [("%y#1", "y_h", "tensor<*xf32>")])
    assert code != 0
    assert "sequence_lens[0] = 3 is out of range [0, 2]" in err


@pytest.mark.skipif(not COMPILED, reason="the interpreter reports out-of-range lengths "
                    "(test_lstm_out_of_range_sequence_length_is_an_error)")
def test_compiled_clamps_out_of_range_sequence_lengths(rng):
    # Generated code never fails at run time: lengths are clamped to [0, S]
    # (docs/codegen-control-flow.md), so -3 runs like 0 and 9 like S.
    seq, batch, inp, hidden = 3, 3, 2, 2
    x = rng.standard_normal((seq, batch, inp)).astype(np.float32)
    w = (rng.standard_normal((1, 4 * hidden, inp)) * 0.7).astype(np.float32)
    r = (rng.standard_normal((1, 4 * hidden, hidden)) * 0.7).astype(np.float32)
    lens = np.array([-3, 9, 2], np.int32)
    m = Model({"x": x, "sl": lens}, {"w": w, "r": r})
    m.op(f"%y:3 = top.LSTM(%x, %w, %r, %none, %sl, %none, %none, %none) {{hidden_size = {hidden} : i64}} : "
         f"({mlir_type(x.shape, x.dtype)}, {mlir_type(w.shape, w.dtype)}, {mlir_type(r.shape, r.dtype)}, none, "
         "tensor<3xi32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)")
    names = ["y", "y_h", "y_c"]
    got = run_ok(m, [(f"%y#{i}", n, "tensor<*xf32>") for i, n in enumerate(names)])
    want = recurrent("LSTM", x, w, r, seq_lens=np.clip(lens, 0, seq), direction="forward")
    for name, ref in zip(names, want):
        np.testing.assert_allclose(got[name], ref, rtol=RTOL, atol=ATOL, err_msg=name)
