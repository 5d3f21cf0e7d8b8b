"""ONNX sequences and optionals, resolved at import time into static lists of
tensors (docs/onnx.md "Sequences and optionals"). Outputs are checked against
onnx.reference (exact for integers, rtol 1e-5 / atol 1e-6 for floats)."""
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import STRATA

RNG = np.random.default_rng(0)
F = TensorProto.FLOAT
I64 = TensorProto.INT64


def randf(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def seq_vi(name, elem=F, shape=None):
    return helper.make_tensor_sequence_value_info(name, elem, shape)


def opt_vi(name, inner):
    return helper.make_value_info(name, helper.make_optional_type_proto(inner))


def tensor_vi(name, elem=F, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array)))


def model_of(nodes, inputs, outputs, opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(onnx.IR_VERSION, 10)
    return model


def flatten(feeds):
    """Inputs as Strata takes them: sequence NAME -> NAME.i, absent optional
    (None) -> --absent-inputs; returns (arrays, import flags)."""
    arrays, lengths, absent = {}, [], []
    for n, v in feeds.items():
        if v is None:
            absent.append(n)
        elif isinstance(v, list):
            lengths.append(f"{n}:{len(v)}")
            arrays.update({f"{n}.{i}": e for i, e in enumerate(v)})
        else:
            arrays[n] = v
    flags = (["--sequence-lengths", ",".join(lengths)] if lengths else []) + \
        (["--absent-inputs", ",".join(absent)] if absent else [])
    return arrays, flags


def strata_import(model, tmp, flags):
    path = os.path.join(tmp, "model.onnx")
    onnx.save(model, path)
    return subprocess.run([STRATA, "import", path, "-o", tmp, "--name", "m", *flags],
                          capture_output=True, text=True)


def run(model, feeds, extra_flags=()):
    """Imports and runs `model` on `feeds`: (outputs by name, origin mlir)."""
    arrays, flags = flatten(feeds)
    with tempfile.TemporaryDirectory() as tmp:
        imp = strata_import(model, tmp, flags + list(extra_flags))
        assert imp.returncode == 0, imp.stderr
        inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, **arrays)
        r = subprocess.run([STRATA, "run-ref", os.path.join(tmp, "m_origin.mlir"),
                            "--input", inp, "--output", outp], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(tmp, "m_origin.mlir")) as f:
            mlir = f.read()
        with np.load(outp) as z:
            return {n: z[n] for n in z.files}, mlir


def import_error(model, feeds):
    _, flags = flatten(feeds)
    with tempfile.TemporaryDirectory() as tmp:
        imp = strata_import(model, tmp, flags)
        assert imp.returncode != 0, "import unexpectedly succeeded"
        return imp.stderr


def assert_close(expected, actual, what):
    assert actual.dtype == expected.dtype, what
    assert actual.shape == expected.shape, what
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6, err_msg=what)


def check(model, feeds, extra_flags=()):
    """Strata's outputs equal onnx.reference's; sequence outputs element by
    element (NAME.i), absent optionals give no output."""
    expected = ReferenceEvaluator(model).run(None, feeds)
    got, mlir = run(model, feeds, extra_flags)
    for out, exp in zip(model.graph.output, expected):
        n = out.name
        if out.type.HasField("optional_type") and isinstance(exp, list) and len(exp) == 1:
            exp = exp[0]  # onnx.reference's Optional op returns [x] for present x
        if exp is None:
            assert not [k for k in got if k == n or k.startswith(n + ".")]
        elif isinstance(exp, list):
            names = [k for k in got if re.fullmatch(re.escape(n) + r"\.\d+", k)]
            assert len(names) == len(exp), f"{n}: length {len(names)} != {len(exp)}"
            for i, e in enumerate(exp):
                assert_close(np.asarray(e), got[f"{n}.{i}"], f"{n}.{i}")
        else:
            assert_close(np.asarray(exp), got[n], n)
    return got, mlir


@pytest.mark.parametrize("split,keepdims", [(None, 1), (None, 0), (np.array(2), 1),
                                            (np.array([1, 4]), 1)])
def test_split_to_sequence(split, keepdims):
    x = randf(3, 5)
    nodes, ins = [], ["x"]
    if split is not None:
        nodes.append(const("s", split.astype(np.int64)))
        ins.append("s")
    nodes.append(helper.make_node("SplitToSequence", ins, ["seq"], axis=1, keepdims=keepdims))
    check(model_of(nodes, [tensor_vi("x", F, [3, 5])], [seq_vi("seq")]), {"x": x})


@pytest.mark.parametrize("new_axis", [0, 1])
def test_sequence_ops_pipeline(new_axis):
    # Construct, insert (front and back), erase, at, length, concat.
    a, b, c = randf(2, 3), randf(2, 3), randf(2, 3)
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b"], ["s0"]),
        const("p0", np.array(0, np.int64)),
        helper.make_node("SequenceInsert", ["s0", "c", "p0"], ["s1"]),
        helper.make_node("SequenceInsert", ["s1", "a"], ["s2"]),
        const("pm1", np.array(-2, np.int64)),
        helper.make_node("SequenceErase", ["s2", "pm1"], ["s3"]),
        const("p1", np.array(1, np.int64)),
        helper.make_node("SequenceAt", ["s3", "p1"], ["at1"]),
        helper.make_node("SequenceLength", ["s3"], ["len"]),
        helper.make_node("ConcatFromSequence", ["s3"], ["cat"], axis=-1, new_axis=new_axis),
    ]
    ins = [tensor_vi(n, F, [2, 3]) for n in "abc"]
    outs = [tensor_vi("at1"), tensor_vi("len", I64), tensor_vi("cat"), seq_vi("s3")]
    got, mlir = check(model_of(nodes, ins, outs), {"a": a, "b": b, "c": c})
    assert "strata.list_outputs = {s3 = 3 : i64}" in mlir


def test_sequence_graph_input_and_output():
    xs = [randf(2, 2), randf(2, 2), randf(2, 2)]
    nodes = [const("p", np.array(-1, np.int64)),
             helper.make_node("SequenceAt", ["xs", "p"], ["last"]),
             helper.make_node("SequenceErase", ["xs"], ["rest"])]
    model = model_of(nodes, [seq_vi("xs", F, [2, 2])], [tensor_vi("last"), seq_vi("rest")])
    got, mlir = check(model, {"xs": xs})
    assert "top.name = \"xs.2\"" in mlir and "top.name = \"rest.1\"" in mlir


def test_sequence_input_element_shapes_from_input_shapes():
    # Symbolic element dims are fixed per element with --input-shapes NAME.i.
    xs = [randf(2), randf(4)]
    nodes = [helper.make_node("ConcatFromSequence", ["xs"], ["y"], axis=0)]
    model = model_of(nodes, [seq_vi("xs", F, ["n"])], [tensor_vi("y")])
    check(model, {"xs": xs}, ["--input-shapes", "xs.0:2,xs.1:4"])


def test_empty_sequence_output():
    nodes = [helper.make_node("SequenceEmpty", [], ["s"], dtype=F),
             helper.make_node("SequenceLength", ["s"], ["n"])]
    got, mlir = check(model_of(nodes, [], [seq_vi("s"), tensor_vi("n", I64)]), {})
    assert "s = 0 : i64" in mlir


def test_sequence_map_two_sequences():
    xs, ys = [randf(3), randf(3)], [randf(3), randf(3)]
    body = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Mul", ["s", "a"], ["m"])],
        "body", [tensor_vi("a", F, [3]), tensor_vi("b", F, [3])],
        [tensor_vi("s", F, [3]), tensor_vi("m", F, [3])])
    nodes = [helper.make_node("SequenceMap", ["xs", "ys"], ["o1", "o2"], body=body)]
    model = model_of(nodes, [seq_vi("xs", F, [3]), seq_vi("ys", F, [3])],
                     [seq_vi("o1"), seq_vi("o2")])
    check(model, {"xs": xs, "ys": ys})


def test_sequence_map_sequence_and_tensor():
    # (onnx.reference's SequenceMap takes one sequence plus tensors, or two
    # sequences.)
    xs, t = [randf(2, 3), randf(2, 3), randf(2, 3)], randf(3)
    body = helper.make_graph(
        [helper.make_node("Add", ["a", "c"], ["s"]), helper.make_node("Shape", ["s"], ["sh"])],
        "body", [tensor_vi("a", F, [2, 3]), tensor_vi("c", F, [3])],
        [tensor_vi("s", F, [2, 3]), tensor_vi("sh", I64, [2])])
    nodes = [helper.make_node("SequenceMap", ["xs", "t"], ["o", "shapes"], body=body)]
    model = model_of(nodes, [seq_vi("xs", F, [2, 3]), tensor_vi("t", F, [3])],
                     [seq_vi("o"), seq_vi("shapes")])
    check(model, {"xs": xs, "t": t})


@pytest.mark.parametrize("present", [True, False])
def test_optional_input(present):
    x = randf(4) if present else None
    nodes = [helper.make_node("OptionalHasElement", ["o"], ["has"])]
    outs = [tensor_vi("has", TensorProto.BOOL)]
    if present:
        nodes.append(helper.make_node("OptionalGetElement", ["o"], ["v"]))
        outs.append(tensor_vi("v"))
    inner = helper.make_tensor_type_proto(F, [4])
    check(model_of(nodes, [opt_vi("o", inner)], outs), {"o": x})


def test_optional_of_sequence_output():
    x = randf(2)
    nodes = [helper.make_node("SequenceConstruct", ["x", "x"], ["s"]),
             helper.make_node("Optional", ["s"], ["o"]),
             helper.make_node("Optional", [], ["e"],
                              type=helper.make_tensor_type_proto(F, [2]))]
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(F, [2]))
    model = model_of(nodes, [tensor_vi("x", F, [2])],
                     [opt_vi("o", seq_t), opt_vi("e", helper.make_tensor_type_proto(F, [2]))])
    got, mlir = check(model, {"x": x})
    assert 'e = "absent"' in mlir and "o = 2 : i64" in mlir


def test_loop_growing_a_sequence_is_unrolled():
    # Each iteration appends x[:i+1] * i; trip count and cond are constants.
    x = randf(5)
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         const("one", np.array([1], np.int64)), const("zero", np.array([0], np.int64)),
         helper.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
         helper.make_node("Add", ["i1", "one"], ["end"]),
         helper.make_node("Slice", ["x", "zero", "end"], ["part"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Mul", ["part", "fi"], ["scaled"]),
         helper.make_node("SequenceInsert", ["seq_in", "scaled"], ["seq_out"])],
        "body", [tensor_vi("i", I64, []), tensor_vi("cond_in", TensorProto.BOOL, []),
                 seq_vi("seq_in", F)],
        [tensor_vi("cond_out", TensorProto.BOOL, []), seq_vi("seq_out", F)])
    nodes = [const("m", np.array(4, np.int64)), const("c", np.array(True)),
             helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
             helper.make_node("Loop", ["m", "c", "empty"], ["res"], body=body)]
    check(model_of(nodes, [tensor_vi("x", F, [5])], [seq_vi("res")]), {"x": x})


@pytest.mark.parametrize("cond", [True, False])
def test_if_with_sequences_of_equal_length(cond):
    x = randf(3)
    then_g = helper.make_graph([helper.make_node("SequenceConstruct", ["x", "x"], ["t"])],
                               "then", [], [seq_vi("t", F, [3])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["nx"]),
                                helper.make_node("SequenceConstruct", ["nx", "x"], ["e"])],
                               "else", [], [seq_vi("e", F, [3])])
    nodes = [helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g)]
    model = model_of(nodes, [tensor_vi("c", TensorProto.BOOL, []), tensor_vi("x", F, [3])],
                     [seq_vi("r")])
    got, mlir = check(model, {"c": np.array(cond), "x": x})
    assert "top.If" in mlir


# --- errors -------------------------------------------------------------------

def test_position_out_of_range():
    nodes = [helper.make_node("SequenceConstruct", ["x", "x"], ["s"]),
             const("p", np.array(2, np.int64)),
             helper.make_node("SequenceAt", ["s", "p"], ["y"])]
    err = import_error(model_of(nodes, [tensor_vi("x", F, [2])], [tensor_vi("y")]), {})
    assert "SequenceAt" in err and "position 2 is out of range for a sequence of length 2" in err


def test_non_constant_position():
    nodes = [helper.make_node("SequenceConstruct", ["x", "x"], ["s"]),
             helper.make_node("SequenceAt", ["s", "p"], ["y"])]
    model = model_of(nodes, [tensor_vi("x", F, [2]), tensor_vi("p", I64, [])], [tensor_vi("y")])
    err = import_error(model, {})
    assert "SequenceAt" in err and "input 1 'position' (value 'p') must be a constant" in err


def test_missing_sequence_length():
    nodes = [helper.make_node("SequenceLength", ["xs"], ["n"])]
    err = import_error(model_of(nodes, [seq_vi("xs", F, [2])], [tensor_vi("n", I64)]), {})
    assert "graph input 'xs' is a sequence" in err and "--sequence-lengths xs:N" in err


def test_tensor_op_reading_a_sequence():
    nodes = [helper.make_node("SequenceConstruct", ["x"], ["s"]),
             helper.make_node("Relu", ["s"], ["y"])]
    err = import_error(model_of(nodes, [tensor_vi("x", F, [2])], [tensor_vi("y")]), {})
    assert "Relu" in err and "is a sequence of length 1; Relu takes a tensor there" in err


def test_sequence_where_a_position_belongs():
    nodes = [helper.make_node("SequenceConstruct", ["x", "x"], ["s"]),
             helper.make_node("SequenceAt", ["s", "s"], ["y"])]
    err = import_error(model_of(nodes, [tensor_vi("x", F, [2])], [tensor_vi("y")]), {})
    assert "input 1 ('s') is a sequence of length 2; SequenceAt takes a tensor there" in err


def test_if_with_run_time_condition_and_different_lengths():
    x = randf(3)
    then_g = helper.make_graph([helper.make_node("SequenceConstruct", ["x"], ["t"])],
                               "then", [], [seq_vi("t", F, [3])])
    else_g = helper.make_graph([helper.make_node("SequenceConstruct", ["x", "x"], ["e"])],
                               "else", [], [seq_vi("e", F, [3])])
    nodes = [helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g)]
    model = model_of(nodes, [tensor_vi("c", TensorProto.BOOL, []), tensor_vi("x", F, [3])],
                     [seq_vi("r")])
    err = import_error(model, {"x": x})
    assert "sequence of length 1 in then_branch but a sequence of length 2" in err


def test_loop_over_a_sequence_needs_a_constant_trip_count():
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("SequenceInsert", ["seq_in", "x"], ["seq_out"])],
        "body", [tensor_vi("i", I64, []), tensor_vi("cond_in", TensorProto.BOOL, []),
                 seq_vi("seq_in", F)],
        [tensor_vi("cond_out", TensorProto.BOOL, []), seq_vi("seq_out", F)])
    nodes = [const("c", np.array(True)),
             helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
             helper.make_node("Loop", ["m", "c", "empty"], ["res"], body=body)]
    model = model_of(nodes, [tensor_vi("x", F, [2]), tensor_vi("m", I64, [])], [seq_vi("res")])
    err = import_error(model, {})
    assert "(value 'm') must be a constant" in err and "trip count must be a constant" in err


def function_model(body_nodes, out_type):
    fn = helper.make_function("local", "SplitJoin", ["a"], ["b"], body_nodes,
                              [helper.make_opsetid("", 18)])
    graph = helper.make_graph([helper.make_node("SplitJoin", ["x"], ["y"], domain="local")],
                              "g", [tensor_vi("x", F, [4, 2])], [out_type])
    model = helper.make_model(graph, functions=[fn],
                              opset_imports=[helper.make_opsetid("", 18),
                                             helper.make_opsetid("local", 1)])
    model.ir_version = min(onnx.IR_VERSION, 10)
    return model


def test_sequences_inside_a_model_local_function():
    body = [helper.make_node("SplitToSequence", ["a"], ["s"], axis=0, keepdims=0),
            helper.make_node("ConcatFromSequence", ["s"], ["b"], axis=1, new_axis=1)]
    x = randf(4, 2)
    check(function_model(body, tensor_vi("y")), {"x": x})


def test_model_local_function_returning_a_sequence():
    body = [helper.make_node("SplitToSequence", ["a"], ["b"], axis=0)]
    err = import_error(function_model(body, seq_vi("y")), {})
    assert "function 'local.SplitJoin' returns a sequence or optional as 'b'" in err
