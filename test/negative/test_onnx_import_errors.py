"""`strata import` on malformed ONNX models: every case exits non-zero with a
message naming the offending field, node or value, never crashes, and writes
nothing (no half-written output). The same file runs against the ASan + UBSan
build in `make test`.

Models are built with onnx.helper, or by editing a valid model's bytes."""
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from negative_harness import assert_clean_failure, strata

# What a successful `strata import` writes: the imported model and the
# optimized one, each with its weight file.
IMPORTED_FILES = ["m.mlir", "m_TOP_F32_all_weight.npz", "m_TOP_F32_weight.npz",
                  "m_origin.mlir"]

F = TensorProto.FLOAT


def make_model(nodes, inputs, outputs, inits=(), opset=17, value_info=()):
    """inputs / outputs: (name, elem_type, shape) triples."""
    g = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        list(inits), value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def good_model():
    """Conv + Relu with initializers: imports cleanly (test_good_model)."""
    rng = np.random.default_rng(0)
    return make_model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"], name="relu")],
        [("x", F, [1, 2, 4, 4])], [("y", F, [1, 3, 4, 4])],
        [numpy_helper.from_array(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), "w"),
         numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "b")])


def import_model(tmp_path, model, name="model.onnx"):
    """Writes `model` (a ModelProto or bytes) and imports it into tmp/out."""
    path = tmp_path / name
    path.write_bytes(model if isinstance(model, bytes) else model.SerializeToString())
    return strata("import", path, "-o", tmp_path / "out", "--name", "m")


def written(tmp_path):
    out = tmp_path / "out"
    return sorted(os.listdir(out)) if out.exists() else []


def assert_rejected(tmp_path, model, *fragments, name="model.onnx"):
    r = import_model(tmp_path, model, name)
    assert_clean_failure(r, *fragments)
    assert written(tmp_path) == [], f"partial output: {written(tmp_path)}"
    return r


def test_good_model(tmp_path):
    r = import_model(tmp_path, good_model())
    assert r.returncode == 0, r.stderr
    assert written(tmp_path) == IMPORTED_FILES


# --- not a model at all ------------------------------------------------------

def test_empty_file(tmp_path):
    assert_rejected(tmp_path, b"", "model.onnx", "is empty")


@pytest.mark.parametrize("data", [b"this is not an ONNX model\n", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
                                  b"\xff" * 64], ids=["text", "png", "ff"])
def test_not_a_protobuf(tmp_path, data):
    assert_rejected(tmp_path, data, "model.onnx", "not a valid ONNX model")


def test_model_without_graph(tmp_path):
    m = onnx.ModelProto(ir_version=8, producer_name="p")
    m.opset_import.append(helper.make_opsetid("", 17))
    assert_rejected(tmp_path, m, "the model has no graph")


@pytest.mark.parametrize("cut", [1, 7, 0.25, 0.5, 0.75, -1])
def test_truncated(tmp_path, cut):
    data = good_model().SerializeToString()
    n = cut if isinstance(cut, int) and cut > 0 else (
        len(data) + cut if isinstance(cut, int) else int(len(data) * cut))
    part = data[:n]
    with pytest.raises(Exception):  # the cut really breaks the protobuf
        onnx.ModelProto().ParseFromString(part)
    assert_rejected(tmp_path, part, "model.onnx", "truncated or corrupt")


@pytest.mark.parametrize("seed", range(24))
def test_random_corruption(tmp_path, seed):
    """A few random bytes overwritten: either a clean import or a clean
    error, and nothing written on error."""
    rng = np.random.default_rng(seed)
    data = bytearray(good_model().SerializeToString())
    for pos in rng.integers(0, len(data), size=1 + seed % 4):
        data[pos] = int(rng.integers(0, 256))
    r = import_model(tmp_path, bytes(data))
    if r.returncode == 0:
        assert written(tmp_path) == IMPORTED_FILES
    else:
        assert_clean_failure(r, "error")
        assert written(tmp_path) == []


# --- ops, domains, opsets ----------------------------------------------------

def test_unknown_op_names_node_op_and_opset(tmp_path):
    m = make_model([helper.make_node("FrobnicateZ", ["x"], ["y"], name="frob")],
                   [("x", F, [2])], [("y", F, [2])], opset=15)
    assert_rejected(tmp_path, m, "node 'frob'", "FrobnicateZ", "opset 15", "does not exist")


def test_unknown_op_unnamed_node_names_its_output(tmp_path):
    m = make_model([helper.make_node("FrobnicateZ", ["x"], ["y"])],
                   [("x", F, [2])], [("y", F, [2])])
    assert_rejected(tmp_path, m, "node with output 'y'", "FrobnicateZ", "opset 17")


def test_op_newer_than_opset(tmp_path):
    """Gelu exists from opset 20 only."""
    m = make_model([helper.make_node("Gelu", ["x"], ["y"], name="g")],
                   [("x", F, [2])], [("y", F, [2])], opset=17)
    assert_rejected(tmp_path, m, "node 'g'", "Gelu", "opset 17", "does not exist")


def test_unknown_domain(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y"], name="r", domain="com.example")],
                   [("x", F, [2])], [("y", F, [2])])
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    assert_rejected(tmp_path, m, "node 'r'", "unknown domain 'com.example'")


def test_only_foreign_opset(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2])], [("y", F, [2])])
    del m.opset_import[:]
    m.opset_import.append(helper.make_opsetid("com.example", 3))
    assert_rejected(tmp_path, m, "no default-domain opset", "com.example")


def test_opset_too_old(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2])], [("y", F, [2])],
                   opset=5)
    # Relu's schema changed at opset 6: an opset-5 Relu is the old one.
    assert_rejected(tmp_path, m, "(Relu, opset 5)", "version 1 differs from its opset-7 schema")


# --- graph structure ---------------------------------------------------------

def test_missing_initializer(tmp_path):
    m = good_model()
    del m.graph.initializer[0]  # "w"
    assert_rejected(tmp_path, m, "node 'conv'", "input 'w' is not a graph input, an initializer")


def test_undefined_output(tmp_path):
    m = good_model()
    m.graph.output.append(helper.make_tensor_value_info("nowhere", F, [1]))
    assert_rejected(tmp_path, m, "graph output 'nowhere' is never defined")


def test_cycle(tmp_path):
    m = make_model([helper.make_node("Add", ["x", "b"], ["a"], name="n1"),
                    helper.make_node("Relu", ["a"], ["b"], name="n2")],
                   [("x", F, [2])], [("b", F, [2])])
    assert_rejected(tmp_path, m, "cycle", "node 'n")


def test_self_loop(tmp_path):
    m = make_model([helper.make_node("Add", ["x", "a"], ["a"], name="loop")],
                   [("x", F, [2])], [("a", F, [2])])
    assert_rejected(tmp_path, m, "node 'loop'", "cycle")


def test_two_nodes_same_output(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y"], name="n1"),
                    helper.make_node("Neg", ["x"], ["y"], name="n2")],
                   [("x", F, [2])], [("y", F, [2])])
    assert_rejected(tmp_path, m, "node 'n2'", "output 'y' is defined more than once")


def test_node_overwrites_graph_input(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["x"], name="n1")],
                   [("x", F, [2])], [("x", F, [2])])
    assert_rejected(tmp_path, m, "node 'n1'", "output 'x' is defined more than once")


def test_duplicate_graph_output(tmp_path):
    m = good_model()
    m.graph.output.append(helper.make_tensor_value_info("y", F, [1, 3, 4, 4]))
    assert_rejected(tmp_path, m, "graph output 'y' is listed more than once")


def test_duplicate_graph_input(tmp_path):
    m = good_model()
    m.graph.input.append(helper.make_tensor_value_info("x", F, [1, 2, 4, 4]))
    assert_rejected(tmp_path, m, "graph input 'x' is listed more than once")


def test_duplicate_initializer(tmp_path):
    m = good_model()
    m.graph.initializer.append(numpy_helper.from_array(np.zeros(3, np.float32), "b"))
    assert_rejected(tmp_path, m, "initializer 'b' is defined more than once")


def test_graph_input_without_shape(tmp_path):
    m = good_model()
    m.graph.input[0].type.tensor_type.ClearField("shape")
    assert_rejected(tmp_path, m, "graph input 'x' has no shape", "--input-shapes")


def test_graph_input_string_type(tmp_path):
    m = good_model()
    m.graph.input[0].type.tensor_type.elem_type = TensorProto.STRING
    assert_rejected(tmp_path, m, "graph input 'x'", "unsupported element type STRING")


# --- declared vs computed shapes -----------------------------------------------

def assert_imported_with_warning(tmp_path, model, *fragments):
    """Imports (exit 0, every file written) with each fragment in a warning
    on stderr; the computed types are kept."""
    r = import_model(tmp_path, model)
    assert r.returncode == 0, r.stderr
    assert written(tmp_path) == IMPORTED_FILES
    assert "warning" in r.stderr, r.stderr
    for f in fragments:
        assert f in r.stderr, f"missing {f!r} in:\n{r.stderr}"
    return r


def test_output_declared_shape_mismatch_warns(tmp_path):
    """ONNX Runtime warns about a stale declared output shape and runs (the
    ddddocr OCR model declares [1, seqlen] for a [20, 1, 8210] result)."""
    m = good_model()
    m.graph.output[0].type.tensor_type.shape.dim[1].dim_value = 5
    assert_imported_with_warning(tmp_path, m, "graph output 'y'", "[1, 5, 4, 4]",
                                 "1x3x4x4", "keeping the computed type")
    assert "tensor<1x3x4x4xf32>" in (tmp_path / "out" / "m_origin.mlir").read_text()


def test_output_declared_rank_mismatch_warns(tmp_path):
    m = good_model()
    del m.graph.output[0].type.tensor_type.shape.dim[3]
    assert_imported_with_warning(tmp_path, m, "graph output 'y'", "[1, 3, 4]")


def test_output_declared_type_mismatch(tmp_path):
    m = good_model()
    m.graph.output[0].type.tensor_type.elem_type = TensorProto.INT64
    assert_rejected(tmp_path, m, "graph output 'y'", "declared as INT64", "f32")


def test_value_info_shape_mismatch_warns(tmp_path):
    m = good_model()
    m.graph.value_info.append(helper.make_tensor_value_info("c", F, [1, 3, 2, 2]))
    assert_imported_with_warning(tmp_path, m, "value_info 'c'", "[1, 3, 2, 2]", "1x3x4x4")


def test_minus_one_dim_on_output_warns(tmp_path):
    """-1 is some exporters' spelling of an unknown dim (Paddle2ONNX writes it
    on PP-OCR's inputs; ONNX Runtime accepts it): reported, then unknown."""
    m = good_model()
    m.graph.output[0].type.tensor_type.shape.dim[0].dim_value = -1
    assert_imported_with_warning(tmp_path, m, "graph output 'y'",
                                 "dim 0 = -1 is taken as an unknown dim")


def test_negative_dim_on_output(tmp_path):
    m = good_model()
    m.graph.output[0].type.tensor_type.shape.dim[0].dim_value = -2
    assert_rejected(tmp_path, m, "graph output 'y'", "dim 0 = -2 is negative")


def test_negative_dim_in_value_info(tmp_path):
    m = good_model()
    m.graph.value_info.append(helper.make_tensor_value_info("c", F, [1, -7, 4, 4]))
    assert_rejected(tmp_path, m, "value_info 'c'", "dim 1 = -7 is negative")


def test_negative_dim_on_input(tmp_path):
    m = good_model()
    m.graph.input[0].type.tensor_type.shape.dim[2].dim_value = -4
    assert_rejected(tmp_path, m, "graph input 'x'", "dim 2 = -4 is negative")


def test_input_shapes_overriding_static_dim_warns(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y"])],
                   [("x", F, [1, 3])], [("y", F, None)])
    path = tmp_path / "model.onnx"
    path.write_bytes(m.SerializeToString())
    r = strata("import", path, "-o", tmp_path / "out", "--name", "m",
               "--input-shapes", "x:2x3")
    assert r.returncode == 0, r.stderr
    assert "warning" in r.stderr and "--input-shapes sets dim 0 of 'x' to 2" in r.stderr
    assert "declares it static, 1" in r.stderr


def test_initializer_listed_as_input_with_other_shape(tmp_path):
    m = good_model()
    m.graph.input.append(helper.make_tensor_value_info("w", F, [3, 2, 5, 5]))
    assert_rejected(tmp_path, m, "'w'", "[3, 2, 5, 5]", "3x2x3x3")


def test_initializer_shape_does_not_fit_its_use(tmp_path):
    m = make_model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                   [("x", F, [2, 3])], [("y", F, [2, 4])],
                   [numpy_helper.from_array(np.zeros((5, 4), np.float32), "w")])
    assert_rejected(tmp_path, m, "node 'mm'", "MatMul")


# --- initializer data ----------------------------------------------------------

def tensor(name, dims, dtype=F, raw=b""):
    t = TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def add_model(init, shape=(4,)):
    return make_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                      [("x", F, list(shape))], [("y", F, list(shape))], [init])


@pytest.mark.parametrize("dims", [[2**62, 4], [2**40, 2**40], [2**31, 2**31, 2**31],
                                  [9223372036854775807, 2]])
def test_initializer_dims_overflow(tmp_path, dims):
    r = assert_rejected(tmp_path, add_model(tensor("w", dims)), "initializer 'w'", "overflows")
    assert str(dims[0]) in r.stderr


def test_initializer_zero_dim_with_overflowing_rest(tmp_path):
    """No elements, but a product of the other dims that overflows."""
    assert_rejected(tmp_path, add_model(tensor("w", [0, 2**62, 2**62])), "initializer 'w'",
                    "overflows")


@pytest.mark.parametrize("shape", [[2**40, 2**40], [2**62, 4], [0, 2**40, 2**40],
                                   [9223372036854775807]])
def test_graph_input_dims_overflow(tmp_path, shape):
    m = make_model([helper.make_node("Flatten", ["x"], ["y"], name="fl")],
                   [("x", F, shape)], [("y", F, None)])
    assert_rejected(tmp_path, m, "graph input 'x'", str(shape[-1]), "overflows")


@pytest.mark.parametrize("op,arg", [("Expand", [2**40, 2**40]), ("Tile", [2**62, 4])])
def test_intermediate_shape_overflow(tmp_path, op, arg):
    m = make_model([helper.make_node(op, ["x", "s"], ["y"], name="big")],
                   [("x", F, [1, 1])], [("y", F, None)],
                   [numpy_helper.from_array(np.array(arg, np.int64), "s")])
    assert_rejected(tmp_path, m, "node 'big'", op, "overflow")


def test_initializer_negative_dim(tmp_path):
    assert_rejected(tmp_path, add_model(tensor("w", [-1, 4])), "initializer 'w'",
                    "[-1, 4]", "negative dim")


def test_initializer_huge_but_no_data(tmp_path):
    """A 4 GiB tensor declared in a tiny file: refused before allocating."""
    assert_rejected(tmp_path, add_model(tensor("w", [1 << 30], raw=b"\0" * 16)),
                    "initializer 'w'", "raw_data has 16 bytes", "needs 4294967296")


@pytest.mark.parametrize("field", ["raw_data", "int32_data"])
def test_packed_initializer_huge_but_no_data(tmp_path, field):
    """A 2^34-element INT4 tensor (8 GiB packed) declared with 3 bytes: the
    packed buffer was allocated (and zeroed) before the size check."""
    t = TensorProto(name="w", data_type=TensorProto.INT4, dims=[1 << 34])
    if field == "raw_data":
        t.raw_data = b"\1\2\3"
        frag = "raw_data has 3 bytes"
    else:
        t.int32_data.extend([1, 2, 3])
        frag = "has 3 int32_data values"
    m = make_model([helper.make_node("Identity", ["w"], ["y"])], [("x", F, [1])],
                   [("y", TensorProto.INT4, None)], [t], opset=21)
    assert_rejected(tmp_path, m, "initializer 'w'", frag, "needs 8589934592")


@pytest.mark.parametrize("nbytes", [0, 12, 20])
def test_raw_data_size_mismatch(tmp_path, nbytes):
    t = tensor("w", [4], raw=b"\1" * nbytes)
    if nbytes == 0:
        t.ClearField("raw_data")  # then float_data (empty) is the source
        frag = "float_data has 0 values"
    else:
        frag = f"raw_data has {nbytes} bytes"
    assert_rejected(tmp_path, add_model(t), "initializer 'w'", frag, "[4]")


def test_typed_data_count_mismatch(tmp_path):
    t = helper.make_tensor("w", TensorProto.INT64, [3], [1, 2, 3])
    t.dims[0] = 5
    m = make_model([helper.make_node("Gather", ["x", "w"], ["y"], name="gather")],
                   [("x", F, [8])], [("y", F, [5])], [t])
    assert_rejected(tmp_path, m, "initializer 'w'", "int64_data has 3 values", "needs 5")


def test_unsupported_initializer_dtype(tmp_path):
    t = helper.make_tensor("w", TensorProto.STRING, [1], [b"a"])
    assert_rejected(tmp_path, add_model(t, (1,)), "initializer 'w'", "unsupported data type STRING")


# --- external data -------------------------------------------------------------

def external(location, offset=None, length=None, dims=(4,)):
    t = tensor("w", list(dims))
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", offset), ("length", length)):
        if v is not None:
            e = t.external_data.add()
            e.key, e.value = k, str(v)
    return add_model(t)


def test_external_data_good(tmp_path):
    (tmp_path / "w.bin").write_bytes(np.arange(8, dtype=np.float32).tobytes())
    r = import_model(tmp_path, external("w.bin", offset=16, length=16))
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out" / "m_TOP_F32_all_weight.npz") as z:
        np.testing.assert_array_equal(z["w"], [4, 5, 6, 7])


def test_external_data_absolute_path(tmp_path):
    (tmp_path / "w.bin").write_bytes(b"\0" * 16)
    assert_rejected(tmp_path, external(str(tmp_path / "w.bin")), "initializer 'w'",
                    "must be a relative path")


def test_external_data_dotdot(tmp_path):
    sub = tmp_path / "model"
    sub.mkdir()
    (tmp_path / "w.bin").write_bytes(b"\0" * 16)
    m = external("../w.bin")
    (sub / "model.onnx").write_bytes(m.SerializeToString())
    r = strata("import", sub / "model.onnx", "-o", tmp_path / "out", "--name", "m")
    assert_clean_failure(r, "initializer 'w'", "'../w.bin'", "must not contain '..'")
    assert written(tmp_path) == []


def test_external_data_symlink_escape(tmp_path):
    sub = tmp_path / "model"
    sub.mkdir()
    (tmp_path / "secret.bin").write_bytes(b"\0" * 16)
    os.symlink(tmp_path / "secret.bin", sub / "w.bin")
    (sub / "model.onnx").write_bytes(external("w.bin").SerializeToString())
    r = strata("import", sub / "model.onnx", "-o", tmp_path / "out", "--name", "m")
    assert_clean_failure(r, "initializer 'w'", "'w.bin'", "resolves outside the model's folder")
    assert written(tmp_path) == []


def test_external_data_symlinked_folder_escape(tmp_path):
    sub = tmp_path / "model"
    sub.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "w.bin").write_bytes(b"\0" * 16)
    os.symlink(tmp_path / "elsewhere", sub / "data")
    (sub / "model.onnx").write_bytes(external("data/w.bin").SerializeToString())
    r = strata("import", sub / "model.onnx", "-o", tmp_path / "out", "--name", "m")
    assert_clean_failure(r, "'data/w.bin'", "resolves outside the model's folder")


def test_external_data_missing_file(tmp_path):
    assert_rejected(tmp_path, external("nope.bin"), "initializer 'w'", "nope.bin",
                    "does not exist")


def test_external_data_is_a_folder(tmp_path):
    (tmp_path / "d").mkdir()
    assert_rejected(tmp_path, external("d"), "initializer 'w'", "'d'", "not a regular file")


def test_external_data_no_location(tmp_path):
    assert_rejected(tmp_path, external(""), "initializer 'w'", "must be a relative path")


@pytest.mark.parametrize("offset,length,frag", [
    (8, None, "too short: needs 16 bytes at offset 8, file has 16"),
    (17, None, "too short"),
    (18446744073709551615, None, "too short"),
    (0, 32, "length 32 does not match the tensor's 16 bytes"),
    ("12abc", None, "'offset' is not a number: '12abc'"),
    ("-4", None, "'offset' is not a number"),
])
def test_external_data_range(tmp_path, offset, length, frag):
    (tmp_path / "w.bin").write_bytes(b"\0" * 16)
    assert_rejected(tmp_path, external("w.bin", offset, length), "initializer 'w'", frag)


# --- attributes ----------------------------------------------------------------

def test_attribute_wrong_type(tmp_path):
    m = make_model([helper.make_node("Gather", ["x", "i"], ["y"], name="gather", axis=1.5)],
                   [("x", F, [2, 3])], [("y", F, [2, 2])],
                   [numpy_helper.from_array(np.array([0, 1], np.int64), "i")])
    assert_rejected(tmp_path, m, "node 'gather'", "Gather",
                    "attribute 'axis' has type FLOAT; Gather-13 takes INT")


@pytest.mark.parametrize("axis", [2, -3, 1 << 40])
def test_gather_axis_out_of_range(tmp_path, axis):
    m = make_model([helper.make_node("Gather", ["x", "i"], ["y"], name="gather", axis=axis)],
                   [("x", F, [2, 3])], [("y", F, [2, 2])],
                   [numpy_helper.from_array(np.array([0, 1], np.int64), "i")])
    assert_rejected(tmp_path, m, "node 'gather'", "Gather", "axis", str(axis), "rank 2")


@pytest.mark.parametrize("perm", [[0, 0, 1], [0, 1], [0, 1, 3], [0, 1, -1]])
def test_transpose_perm_not_a_permutation(tmp_path, perm):
    m = make_model([helper.make_node("Transpose", ["x"], ["y"], name="tr", perm=perm)],
                   [("x", F, [2, 3, 4])], [("y", F, [2, 3, 4])])
    assert_rejected(tmp_path, m, "node 'tr'", "Transpose", "perm")


def test_conv_kernel_shape_mismatch(tmp_path):
    m = good_model()
    m.graph.node[0].attribute[0].ints[:] = [5, 5]  # kernel_shape; the weight is 3x3
    assert m.graph.node[0].attribute[0].name == "kernel_shape"
    assert_rejected(tmp_path, m, "node 'conv'", "Conv", "kernel_shape")


def test_conv_negative_pads(tmp_path):
    m = good_model()
    m.graph.node[0].attribute[1].ints[:] = [1, -1, 1, 1]
    assert m.graph.node[0].attribute[1].name == "pads"
    assert_rejected(tmp_path, m, "node 'conv'", "pads", "-1")


def test_conv_zero_group(tmp_path):
    m = good_model()
    m.graph.node[0].attribute.append(helper.make_attribute("group", 0))
    assert_rejected(tmp_path, m, "node 'conv'", "group", "0")


# --- input / output counts (from the op's schema) -----------------------------

def test_missing_required_input(tmp_path):
    m = make_model([helper.make_node("MatMul", ["x"], ["y"], name="mm")],
                   [("x", F, [2, 3])], [("y", F, [2, 3])])
    assert_rejected(tmp_path, m, "node 'mm'", "MatMul", "has 1 inputs", "takes 2")


def test_required_input_with_empty_name(tmp_path):
    m = good_model()
    m.graph.node[0].input[1] = ""
    assert_rejected(tmp_path, m, "node 'conv'", "input 1 is required")


def test_too_many_inputs(tmp_path):
    m = make_model([helper.make_node("Relu", ["x", "x"], ["y"], name="r")],
                   [("x", F, [2])], [("y", F, [2])])
    assert_rejected(tmp_path, m, "node 'r'", "has 2 inputs", "Relu-14 takes 1")


def test_too_many_outputs(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y", "z"], name="r")],
                   [("x", F, [2])], [("y", F, [2])])
    assert_rejected(tmp_path, m, "node 'r'", "has 2 outputs", "at most 1")


# --- tensors inside attributes ---------------------------------------------------

def constant_node_model(value):
    return make_model([helper.make_node("Constant", [], ["k"], name="const", value=value),
                       helper.make_node("Add", ["x", "k"], ["y"], name="add")],
                      [("x", F, [4])], [("y", F, [4])])


def test_constant_external_data_resolves_in_model_folder(tmp_path):
    """A Constant's tensor with external data reads the model's folder, not
    the current directory."""
    sub = tmp_path / "model"
    sub.mkdir()
    (sub / "k.bin").write_bytes(np.array([1, 2, 3, 4], np.float32).tobytes())
    value = external("k.bin").graph.initializer[0]
    (sub / "model.onnx").write_bytes(constant_node_model(value).SerializeToString())
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    r = strata("import", sub / "model.onnx", "-o", tmp_path / "out", "--name", "m", cwd=elsewhere)
    assert r.returncode == 0, r.stderr


def test_constant_external_data_escape(tmp_path):
    (tmp_path / "k.bin").write_bytes(b"\0" * 16)
    value = external("../k.bin").graph.initializer[0]
    sub = tmp_path / "model"
    sub.mkdir()
    (sub / "model.onnx").write_bytes(constant_node_model(value).SerializeToString())
    r = strata("import", sub / "model.onnx", "-o", tmp_path / "out", "--name", "m")
    assert_clean_failure(r, "node 'const'", "attribute 'value'", "must not contain '..'")
    assert written(tmp_path) == []


def test_constant_attribute_wrong_type(tmp_path):
    m = constant_node_model(numpy_helper.from_array(np.zeros(4, np.float32)))
    m.graph.node[0].attribute[0].type = onnx.AttributeProto.INTS
    assert_rejected(tmp_path, m, "node 'const'",
                    "attribute 'value' has type INTS; Constant-13 takes TENSOR")


def test_constant_of_shape_huge(tmp_path):
    m = make_model([helper.make_node("ConstantOfShape", ["s"], ["y"], name="cos")],
                   [], [("y", F, [])],
                   [numpy_helper.from_array(np.array([1 << 40, 1 << 40], np.int64), "s")])
    assert_rejected(tmp_path, m, "node 'cos'", "too large")


# --- extreme values in constant inputs and attributes (UBSan found these) --------

@pytest.mark.parametrize("limit", [float("nan"), float("inf"), 1e30])
def test_range_float_limit_out_of_range(tmp_path, limit):
    m = make_model([helper.make_node("Range", ["a", "b", "c"], ["y"], name="rng")],
                   [], [("y", F, None)],
                   [numpy_helper.from_array(np.array(0, np.float32), "a"),
                    numpy_helper.from_array(np.array(limit, np.float32), "b"),
                    numpy_helper.from_array(np.array(1e-30, np.float32), "c")])
    assert_rejected(tmp_path, m, "node 'rng'", "Range", "too large")


def test_range_float_negative_huge_count_is_empty(tmp_path):
    """ceil((limit - start) / delta) = -1e30: an empty range, not UB."""
    m = make_model([helper.make_node("Range", ["a", "b", "c"], ["y"], name="rng")],
                   [], [("y", F, [0])],
                   [numpy_helper.from_array(np.array(0, np.float32), "a"),
                    numpy_helper.from_array(np.array(-1, np.float32), "b"),
                    numpy_helper.from_array(np.array(1e-30, np.float32), "c")])
    r = import_model(tmp_path, m)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("big", [2**62, 2**63 - 1])
def test_split_sizes_overflow(tmp_path, big):
    m = make_model([helper.make_node("Split", ["x", "s"], ["y", "z"], name="sp", axis=1)],
                   [("x", F, [2, 4])], [("y", F, None), ("z", F, None)],
                   [numpy_helper.from_array(np.array([big, big], np.int64), "s")])
    assert_rejected(tmp_path, m, "node 'sp'", "'split'", str(big))


@pytest.mark.parametrize("v", [-2**63, -2**63 + 1, -5, 2**62])
def test_conv_transpose_output_shape_out_of_range(tmp_path, v):
    m = make_model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="ct",
                                     output_shape=[v, v])],
                   [("x", F, [1, 1, 4, 4])], [("y", F, None)],
                   [numpy_helper.from_array(np.zeros((1, 1, 2, 2), np.float32), "w")])
    assert_rejected(tmp_path, m, "node 'ct'", "output_shape", str(v))


# --- opsets, attributes, sparse initializers, nesting ------------------------

def relu_model(**attrs):
    return make_model([helper.make_node("Relu", ["x"], ["y"], name="r", **attrs)],
                      [("x", F, [2])], [("y", F, [2])])


def test_opset_newer_than_supported(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2])],
                   [("y", F, [2])], opset=99)
    assert_rejected(tmp_path, m, "default-domain opset 99 is newer than Strata supports")


def test_default_domain_imported_twice(tmp_path):
    m = relu_model()
    m.opset_import.append(helper.make_opsetid("ai.onnx", 13))
    assert_rejected(tmp_path, m, "imports the default domain twice", "17", "13")


def test_default_domain_alias_same_version_is_fine(tmp_path):
    m = relu_model()
    m.opset_import.append(helper.make_opsetid("ai.onnx", 17))
    assert import_model(tmp_path, m).returncode == 0


def test_duplicate_attribute(tmp_path):
    m = make_model([helper.make_node("LeakyRelu", ["x"], ["y"], name="lr", alpha=0.1)],
                   [("x", F, [2])], [("y", F, [2])])
    m.graph.node[0].attribute.append(helper.make_attribute("alpha", 0.5))
    assert_rejected(tmp_path, m, "node 'lr' (LeakyRelu, opset 17)",
                    "attribute 'alpha' is given more than once")


def test_attribute_unknown_to_the_schema(tmp_path):
    sub = helper.make_graph([], "sub", [], [])
    m = relu_model()
    m.graph.node[0].attribute.append(helper.make_attribute("body", sub))
    assert_rejected(tmp_path, m, "node 'r' (Relu, opset 17)",
                    "attribute 'body' is not an attribute of Relu-14")


def test_attribute_of_the_wrong_type(tmp_path):
    sub = helper.make_graph([], "sub", [], [])
    m = make_model([helper.make_node("LeakyRelu", ["x"], ["y"], name="lr")],
                   [("x", F, [2])], [("y", F, [2])])
    m.graph.node[0].attribute.append(helper.make_attribute("alpha", sub))
    assert_rejected(tmp_path, m, "attribute 'alpha' has type GRAPH",
                    "LeakyRelu-16 takes FLOAT")


def test_sparse_initializer_is_named_unsupported(tmp_path):
    values = numpy_helper.from_array(np.array([1.0], np.float32), "s")
    indices = numpy_helper.from_array(np.array([1], np.int64), "s_idx")
    m = make_model([helper.make_node("Add", ["x", "s"], ["y"])],
                   [("x", F, [2])], [("y", F, [2])])
    m.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [2]))
    r = assert_rejected(tmp_path, m, "sparse initializer 's' is not supported")
    assert "is not a graph input, an initializer" not in r.stderr


def _field(number, payload):
    """One protobuf field: a varint for ints, length-delimited for bytes."""
    def varint(v):
        out = b""
        while True:
            byte, v = v & 0x7F, v >> 7
            out += bytes([byte | (0x80 if v else 0)])
            if not v:
                return out
    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    payload = payload.encode() if isinstance(payload, str) else payload
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def nested_if_model(depth):
    """A ModelProto whose graph holds `depth` If nodes, each in the previous
    one's then-branch, written as protobuf wire bytes (the Python protobuf
    library refuses to build messages this deep)."""
    def graph(nodes, name, output):
        return _field(2, name) + b"".join(_field(1, n) for n in nodes) + \
            _field(12, _field(1, output))
    def node(op, inputs, output, attrs=()):
        return b"".join(_field(1, i) for i in inputs) + _field(2, output) + \
            _field(4, op) + b"".join(_field(5, a) for a in attrs)
    def graph_attr(name, g):
        return _field(1, name) + _field(6, g) + _field(20, 5)  # type GRAPH
    g = graph([node("Identity", ["x"], "o%d" % depth)], "b%d" % depth, "o%d" % depth)
    for level in reversed(range(depth)):
        other = graph([node("Identity", ["x"], "e%d" % level)], "e%d" % level, "e%d" % level)
        g = graph([node("If", ["c"], "o%d" % level,
                        [graph_attr("then_branch", g), graph_attr("else_branch", other)])],
                  "b%d" % level, "o%d" % level)
    return _field(1, 8) + _field(8, _field(1, "") + _field(2, 17)) + _field(7, g)


def test_nesting_deeper_than_protobuf_limit(tmp_path):
    """An intact model nested past protobuf's limit of 100 is not "corrupt"."""
    shallow = onnx.ModelProto.FromString(nested_if_model(3))
    assert shallow.graph.node[0].op_type == "If"  # the encoder writes ONNX
    r = assert_rejected(tmp_path, nested_if_model(40), "nesting too deep")
    assert "corrupt" not in r.stderr


# --- axes of a scalar (each crashed with SIGSEGV: axis 0 passed for rank 0) ---

def _i64(name, v):
    return numpy_helper.from_array(np.array(v, np.int64), name)


def _f32(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


SCALAR_AXIS_CASES = {
    "GatherElements": ([helper.make_node("GatherElements", ["x", "i"], ["y"], axis=0)],
                       [_i64("i", 0)]),
    "CenterCropPad": ([helper.make_node("CenterCropPad", ["x", "s"], ["y"], axes=[0])],
                      [_i64("s", [1])]),
    "Compress": ([helper.make_node("Compress", ["x", "c"], ["y"], axis=0)],
                 [numpy_helper.from_array(np.array([True]), "c")]),
    "SplitToSequence": ([helper.make_node("SplitToSequence", ["x"], ["s"], axis=0),
                         helper.make_node("SequenceAt", ["s", "z"], ["y"])], [_i64("z", 0)]),
    "Resize": ([helper.make_node("Resize", ["x", "", "sc"], ["y"], axes=[0])],
               [_f32("sc", [2.0])]),
    "Squeeze": ([helper.make_node("Squeeze", ["x", "a"], ["y"])], [_i64("a", [0])]),
    "DequantizeLinear": ([helper.make_node("DequantizeLinear", ["x", "s"], ["y"], axis=0)],
                         [_f32("s", [1.0, 2.0])]),
}


@pytest.mark.parametrize("op", sorted(SCALAR_AXIS_CASES))
def test_axis_of_a_scalar(tmp_path, op):
    """Axis 0 of a rank-0 input names no dim: a clear error naming the node,
    the attribute and the value, not an out-of-bounds read of the shape."""
    nodes, inits = SCALAR_AXIS_CASES[op]
    elem = TensorProto.INT8 if op == "DequantizeLinear" else F
    m = make_model(nodes, [("x", elem, [])], [("y", F, None)], inits, opset=21)
    assert_rejected(tmp_path, m, f"({op}, opset 21)", " 0 is out of range for rank 0",
                    "the input is a scalar")


# --- import-time expansion bounded (each hung or ran out of memory) ----------

def _sequence_loop_body(tag, inner):
    """A Loop body (i, cond, seq) -> (cond, seq) passing its sequence through
    `inner` nodes (which turn 's<tag>' into 'so<tag>')."""
    return helper.make_graph(
        [helper.make_node("Identity", ["c" + tag], ["co" + tag])] + inner, "b" + tag,
        [helper.make_tensor_value_info("i" + tag, TensorProto.INT64, []),
         helper.make_tensor_value_info("c" + tag, TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("s" + tag, F, None)],
        [helper.make_tensor_value_info("co" + tag, TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("so" + tag, F, None)])


def nested_sequence_loops(trip):
    """Two nested Loops carrying a sequence, each of `trip` iterations: both
    are unrolled at import, trip + trip^2 bodies."""
    inner = _sequence_loop_body("1", [helper.make_node("Identity", ["s1"], ["so1"])])
    outer = _sequence_loop_body("0", [helper.make_node("Loop", ["M", "", "s0"], ["so0"],
                                                       body=inner)])
    nodes = [helper.make_node("SequenceEmpty", [], ["s"], dtype=F),
             helper.make_node("Loop", ["M", "", "s"], ["so"], name="outer", body=outer),
             helper.make_node("SequenceLength", ["so"], ["y"])]
    return make_model(nodes, [("x", F, [1])], [("y", TensorProto.INT64, [])],
                      [_i64("M", trip)], opset=21)


def test_nested_unrolled_loops_share_one_budget(tmp_path):
    """64 x 64 unrolled bodies pass each Loop's own bound (4096) but not the
    model's (4096 in total); 16 x 16 imports."""
    r = import_model(tmp_path, nested_sequence_loops(16))
    assert r.returncode == 0, r.stderr
    second = tmp_path / "64"
    second.mkdir()
    assert_rejected(second, nested_sequence_loops(64), "(Loop, opset 21)",
                    "unrolling the Loop", "more than 4096 times in this model")


@pytest.mark.parametrize("split", [None, 1], ids=["no-split", "scalar-split"])
def test_split_to_sequence_with_huge_dim(tmp_path, split):
    """A declared dim of 2^40 split into 2^40 tensors: refused before any is
    made (it ran out of memory, or hung)."""
    inputs, inits = ["x"], [_i64("z", 0)]
    if split is not None:
        inputs.append("k")
        inits.append(_i64("k", split))
    m = make_model([helper.make_node("SplitToSequence", inputs, ["s"], axis=0),
                    helper.make_node("SequenceAt", ["s", "z"], ["y"])],
                   [("x", F, [1 << 40])], [("y", F, None)], inits, opset=21)
    assert_rejected(tmp_path, m, "(SplitToSequence, opset 21)",
                    "splitting dim 0 of size 1099511627776 makes 1099511627776 tensors",
                    "more than 65536")
