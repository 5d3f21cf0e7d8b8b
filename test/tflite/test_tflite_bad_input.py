"""Bad TFLite input: `strata import` exits with code 1 and an error that
names what is wrong (the operator index and op, the tensor, the field and
the value), never a crash; and a bounded random-mutation sweep over a valid
model (the libFuzzer target fuzz/tflite_import_fuzzer.cpp goes further)."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

from tflite_builder import STRATA, ModelBuilder, enum

A = enum("ActivationFunctionType")
P = enum("Padding")


def conv_model(mutate=None):
    b = ModelBuilder()
    x = b.input("x", [1, 6, 6, 3])
    w = b.const("w", np.ones((4, 3, 3, 3), np.float32))
    bias = b.const("bias", np.zeros(4, np.float32))
    y = b.tensor("y", [1, 6, 6, 4])
    b.op("CONV_2D", [x, w, bias], [y], "Conv2DOptions", padding=P.SAME, strideH=1,
         strideW=1, dilationHFactor=1, dilationWFactor=1)
    z = b.tensor("z", [1, 6, 6, 4])
    b.op("RELU", [y], [z])
    if mutate:
        mutate(b)
    return b.finish([z])


def import_bytes(data, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bad.tflite")
        with open(path, "wb") as f:
            f.write(data)
        r = subprocess.run([STRATA, "import", path, "-o", os.path.join(tmp, "out"), *extra],
                           capture_output=True, text=True, timeout=60)
        wrote = os.path.exists(os.path.join(tmp, "out"))
    return r, wrote


def expect_error(data, *needles, extra=()):
    r, wrote = import_bytes(data, extra)
    assert r.returncode == 1, (r.returncode, r.stderr)
    for n in needles:
        assert n in r.stderr, r.stderr
    assert not wrote, "nothing may be written on failure"
    return r.stderr


def test_valid_model_imports():
    r, _ = import_bytes(conv_model())
    assert r.returncode == 0, r.stderr


def test_empty_and_not_tflite():
    expect_error(b"", "is empty, not a TFLite model")
    expect_error(b"\x00" * 64, "is not a TFLite model (no 'TFL3' file identifier)")


@pytest.mark.parametrize("cut", [12, 100, 0.5, -8])
def test_truncated(cut):
    data = conv_model()
    n = int(len(data) * cut) if isinstance(cut, float) else (cut if cut > 0 else len(data) + cut)
    expect_error(data[:n], "FlatBuffers verification failed: truncated or corrupt file")


def test_buffer_out_of_range():
    def m(b):
        b.tensors[1].buffer = 77
    expect_error(conv_model(m), "tensor 1 'w': buffer index 77 is out of range")


def test_shape_buffer_mismatch():
    def m(b):
        b.tensors[1].shape = [4, 3, 3, 2]
    expect_error(conv_model(m), "tensor 1 'w': buffer", "has 432 bytes, shape [4, 3, 3, 2] of FLOAT32 needs 288")


def test_negative_dim_and_bad_quantization():
    def neg(b):
        b.tensors[3].shape = [1, -6, 6, 4]
    expect_error(conv_model(neg), "tensor 3 'y': shape has negative dim -6")

    def scale(b):
        b.tensors[0].type = enum("TensorType").INT8
        q = __import__("tflite.QuantizationParameters", fromlist=["x"]).QuantizationParametersT()
        q.scale, q.zeroPoint = [0.0], [0]
        b.tensors[0].quantization = q
    expect_error(conv_model(scale), "tensor 0 'x': quantization scale 0.000000e+00 is not positive and finite")


def test_unknown_opcode():
    def m(b):
        b.codes[1] = 4321
    expect_error(conv_model(m), "operator 1: unknown builtin operator code 4321")


def test_opcode_index_and_tensor_index_out_of_range():
    def m(b):
        b.ops[1].opcodeIndex = 9
    expect_error(conv_model(m), "operator 1: opcode index 9 is out of range")

    def t(b):
        b.ops[0].inputs = [0, 55, 2]
    expect_error(conv_model(t), "operator 0 (CONV_2D): input tensor index 55 is out of range")


def test_custom_op():
    def m(b):
        y = b.tensor("c", [1, 6, 6, 4])
        b.custom_op("FancyThing", [3], [y])
    expect_error(conv_model(m), "operator 2: custom op 'FancyThing' is not supported")


def test_unsupported_builtin():
    def m(b):
        y = b.tensor("c", [1, 6, 6, 4])
        b.op("UNIQUE", [3], [y])
    expect_error(conv_model(m), "operator 2 (UNIQUE): builtin operator UNIQUE is not supported")


def test_if_while_bad_subgraphs():
    """IF / WHILE naming a missing subgraph, a branch with the wrong
    inputs, a non-boolean condition."""
    def if_model(then_index, cond_dtype=np.bool_, branch_inputs=1):
        b = ModelBuilder()
        c = b.input("c", (), cond_dtype)
        x = b.input("x", (2,))
        g = b.subgraph()
        ins = [g.input(f"g{i}", (2,)) for i in range(branch_inputs)]
        g.outputs = [ins[0]]
        r = b.tensor("r", (2,))
        b.op("IF", [c, x], [r], "IfOptions", thenSubgraphIndex=then_index,
             elseSubgraphIndex=g.index)
        return b.finish([r])
    expect_error(if_model(7), "operator 0 (IF): IF then: subgraph index 7 is out of range")
    expect_error(if_model(1, branch_inputs=2), "IF then: subgraph 1 has 2 inputs, given 1")
    expect_error(if_model(1, np.float32), "operator 0 (IF): input 0 (the condition) must be one boolean")

    b = ModelBuilder()
    x = b.input("x", (2,))
    cond = b.subgraph()
    cx = cond.input("cx", (2,))
    cond.outputs = [cx]  # a float "condition"
    r = b.tensor("r", (2,))
    b.op("WHILE", [x], [r], "WhileOptions", condSubgraphIndex=cond.index,
         bodySubgraphIndex=cond.index)
    expect_error(b.finish([r]), "operator 0 (WHILE): the WHILE condition must be one boolean")


def test_missing_options_and_bad_attribute():
    def m(b):
        b.ops[0].builtinOptionsType = 0
        b.ops[0].builtinOptions = None
    expect_error(conv_model(m), "operator 0 (CONV_2D): Conv2DOptions are missing")

    def s(b):
        b.ops[0].builtinOptions.strideH = 0
    expect_error(conv_model(s), "operator 0 (CONV_2D): option 'stride_h' = 0 must be positive")


def test_declared_shape_disagrees():
    def m(b):
        b.tensors[3].shape = [1, 5, 6, 4]
        b.tensors[4].shape = [1, 5, 6, 4]
    expect_error(conv_model(m), "operator 0 (CONV_2D): output 0 'y' is declared with shape [1, 5, 6, 4] but the operator computes [1, 6, 6, 4]")


def test_read_before_write():
    def m(b):
        b.ops[1].inputs = [4]  # RELU reads its own output
    expect_error(conv_model(m), "operator 1 (RELU): input 0 reads tensor 'z' (index 4) before any operator writes it")


def test_input_shapes_unknown_name():
    expect_error(conv_model(), "--input-shapes names 'nope', which is not an input of the model",
                 extra=["--input-shapes", "nope:1x2"])


def test_random_mutations_never_crash():
    """60 models with random bytes overwritten: exit 0 or 1, never a
    signal (the verifier rejects most; the rest must fail cleanly)."""
    data = bytearray(conv_model())
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i in range(60):
            d = bytearray(data)
            for _ in range(int(rng.integers(1, 6))):
                d[int(rng.integers(0, len(d)))] = int(rng.integers(0, 256))
            p = os.path.join(tmp, f"m{i}.tflite")
            with open(p, "wb") as f:
                f.write(bytes(d))
            paths.append(p)
        for i, p in enumerate(paths):
            r = subprocess.run([STRATA, "import", p, "-o", os.path.join(tmp, f"o{i}"),
                                "--no-optimize"], capture_output=True, text=True, timeout=60)
            assert r.returncode in (0, 1), (p, r.returncode, r.stderr[-2000:])


def test_bad_sparse_tensor():
    from tflite_builder import csr_sparsity
    dense = np.eye(4, 3, dtype=np.float32)

    def model(corrupt):
        b = ModelBuilder()
        x = b.input("x", [2, 3])
        sp, values = csr_sparsity(dense)
        corrupt(sp)
        s = b.const("s", values)
        b.tensors[s].shape = [4, 3]
        b.tensors[s].sparsity = sp
        d = b.tensor("d", [4, 3])
        b.op("DENSIFY", [s], [d])
        y = b.tensor("y", [2, 4])
        b.op("FULLY_CONNECTED", [x, d, -1], [y], "FullyConnectedOptions")
        return b.finish([y])

    def seg(sp):
        sp.dimMetadata[1].arraySegments.values[2] = 9
    expect_error(model(seg), "tensor 1 's': sparse data: level 1 has array_segments")

    def idx(sp):
        sp.dimMetadata[1].arrayIndices.values[0] = 7
    expect_error(model(idx), "sparse data: index 7 is out of range for dim 1 of size 3")

    def order(sp):
        sp.traversalOrder = [0, 0]
    expect_error(model(order), "sparse data: traversal_order is not a permutation of 0..1")


def test_buffer_offset_outside_file():
    """Buffers stored after the FlatBuffer (offset/size, for models over
    2 GiB) are range-checked against the file."""
    def m(b):
        b.buffers[1].data = None
        b.buffers[1].offset, b.buffers[1].size = 99999, 432
    expect_error(conv_model(m), "tensor 1 'w': buffer 1 (offset 99999, size 432) lies outside the")


def test_fifo_and_missing_file():
    """Not regular files: refused with the file named, never blocking."""
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "pipe.tflite")
        os.mkfifo(fifo)
        for path in (fifo, os.path.join(tmp, "missing.tflite")):
            r = subprocess.run([STRATA, "import", path, "-o", os.path.join(tmp, "o")],
                               capture_output=True, text=True, timeout=30)
            assert r.returncode == 1 and "cannot read TFLite model" in r.stderr, r.stderr


@pytest.mark.parametrize("op", ["SQUEEZE", "UNPACK"])
def test_axis_of_a_scalar(op):
    """Axis 0 of a rank-0 input names no dim (it was let through and the
    converter read the empty shape: SIGSEGV)."""
    b = ModelBuilder()
    x = b.input("x", [])
    y = b.tensor("y", [])
    if op == "SQUEEZE":
        b.op("SQUEEZE", [x], [y], "SqueezeOptions", squeezeDims=[0])
        needle = "squeeze dim 0 is out of range for rank 0"
    else:
        b.op("UNPACK", [x], [y], "UnpackOptions", num=1, axis=0)
        needle = "option 'axis' = 0 is out of range for rank 0"
    expect_error(b.finish([y]), f"operator 0 ({op})", needle, "the input is a scalar")
