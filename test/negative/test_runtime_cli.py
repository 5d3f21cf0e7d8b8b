"""`strata run` and `strata inspect` on bad artifacts, bad inputs and bad
options: the runtime's message (or the CLI's, naming the file and input),
non-zero exit, no crash, no output file.

The artifacts come from `strata-artifact-seeds` (fuzz/artifact_seeds.cpp,
written with the artifact writer alone, no compiler):
  add.strata        x f32 [-1, 3] -> y = x + x, variants for batch 1 and 4
  matmul.strata     a f32 [2, 4] (quantized) -> c = a @ W, W a constant
  constants.strata  no inputs -> a f32 [12], b f32 [2, 2]
  native.strata     an executable that is not ELF (refused on load)
"""
import io
import os
import struct
import subprocess
import zipfile

import numpy as np
import pytest

from negative_harness import BIN, assert_clean_failure, strata


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    d = tmp_path_factory.mktemp("seeds")
    subprocess.run([os.path.join(BIN, "strata-artifact-seeds"), str(d)], check=True)
    return d


def add_input(tmp_path, x=None, **extra):
    """in.npz for add.strata: x (default a [1, 3] f32) plus `extra` arrays."""
    arrays = {"x": np.arange(3, dtype=np.float32).reshape(1, 3) if x is None else x}
    arrays.update(extra)
    arrays = {k: v for k, v in arrays.items() if v is not None}
    path = tmp_path / "in.npz"
    np.savez(path, **arrays)
    return path


def run_fails(tmp_path, model, inp, *fragments, code=1):
    out = tmp_path / "out.npz"
    args = ["run", model, "--output", out] + (["--input", inp] if inp else [])
    r = strata(*args)
    assert_clean_failure(r, *fragments)
    assert r.returncode == code, r.stderr
    assert not out.exists()
    return r


def both_fail(tmp_path, model, *fragments):
    """`strata inspect` and `strata run` both refuse `model` with `fragments`."""
    r = strata("inspect", model)
    assert_clean_failure(r, "strata inspect: ", *fragments)
    assert r.returncode == 1
    assert r.stdout == ""
    run_fails(tmp_path, model, add_input(tmp_path), "strata run: ", *fragments)


# ---- bad artifacts -------------------------------------------------------

@pytest.mark.parametrize("keep", [0, 10, 63])
def test_shorter_than_the_header(tmp_path, seeds, keep):
    bad = tmp_path / "short.strata"
    bad.write_bytes((seeds / "add.strata").read_bytes()[:keep])
    both_fail(tmp_path, bad, "invalid artifact", f"the file has {keep} bytes",
              "too short for the 64-byte header")


@pytest.mark.parametrize("cut", [64, 200, -1])
def test_truncated(tmp_path, seeds, cut):
    data = (seeds / "add.strata").read_bytes()
    bad = tmp_path / "truncated.strata"
    bad.write_bytes(data[:cut])
    both_fail(tmp_path, bad, "invalid artifact", f"the header says the file has {len(data)} bytes",
              "(truncated)")


def header(data):
    """(table offset, table size, data offset, data size) of a .strata file
    (docs/artifact.md: fields at 16, 24, 32, 40)."""
    return struct.unpack_from("<QQQQ", data, 16)


def test_flipped_byte_in_the_table(tmp_path, seeds):
    data = bytearray((seeds / "add.strata").read_bytes())
    table, size, _, _ = header(data)
    data[table + size // 2] ^= 0x10
    bad = tmp_path / "flipped.strata"
    bad.write_bytes(bytes(data))
    both_fail(tmp_path, bad, "invalid artifact", "the FlatBuffers table's checksum does not match")


def test_flipped_byte_in_the_constants(tmp_path, seeds):
    data = bytearray((seeds / "matmul.strata").read_bytes())
    _, _, offset, size = header(data)
    assert size > 0
    data[offset + 5] ^= 0x01
    bad = tmp_path / "flipped.strata"
    bad.write_bytes(bytes(data))
    both_fail(tmp_path, bad, "invalid artifact", "the data segment's checksum does not match")


def test_wrong_magic(tmp_path, seeds):
    data = bytearray((seeds / "add.strata").read_bytes())
    data[0:6] = b"STRATB"
    bad = tmp_path / "magic.strata"
    bad.write_bytes(bytes(data))
    both_fail(tmp_path, bad, "invalid artifact", "not a Strata artifact")


def test_an_npz_given_as_the_model(tmp_path, seeds):
    both_fail(tmp_path, add_input(tmp_path), "not a Strata artifact")


@pytest.mark.parametrize("major,minor", [(2, 0), (0, 7), (65535, 1)])
def test_wrong_version(tmp_path, seeds, major, minor):
    data = bytearray((seeds / "add.strata").read_bytes())
    struct.pack_into("<HH", data, 8, major, minor)
    bad = tmp_path / "version.strata"
    bad.write_bytes(bytes(data))
    both_fail(tmp_path, bad, f"format version {major}.{minor} is not supported",
              "this runtime reads 1.x")


def test_newer_minor_version_loads(tmp_path, seeds):
    data = bytearray((seeds / "add.strata").read_bytes())
    struct.pack_into("<H", data, 10, 9)
    newer = tmp_path / "minor.strata"
    newer.write_bytes(bytes(data))
    r = strata("inspect", newer)
    assert r.returncode == 0, r.stderr
    assert "format version: 1.9" in r.stdout


def test_executable_that_is_not_elf(tmp_path, seeds):
    # Refused when the cpu driver loads it, by inspect too.
    r = strata("inspect", seeds / "native.strata")
    assert_clean_failure(r, "strata inspect: ", "native.strata", "kernels")
    np.savez(tmp_path / "in.npz", x=np.zeros(4, np.float32))
    run_fails(tmp_path, seeds / "native.strata", tmp_path / "in.npz", "kernels")


def test_nonexistent_file(tmp_path):
    both_fail(tmp_path, tmp_path / "missing.strata", "cannot read model",
              "missing.strata", "No such file or directory")


def test_directory_as_the_model(tmp_path):
    (tmp_path / "dir.strata").mkdir()
    both_fail(tmp_path, tmp_path / "dir.strata", "cannot read model", "is a directory")


def test_pipe_as_the_model(tmp_path):
    os.mkfifo(tmp_path / "pipe.strata")
    both_fail(tmp_path, tmp_path / "pipe.strata", "is a pipe, not a regular file")


def test_model_over_the_file_size_limit(tmp_path, seeds):
    r = strata("inspect", seeds / "add.strata", "--max-file-size", "100")
    assert_clean_failure(r, "over the limit of", "--max-file-size")


# ---- bad inputs ----------------------------------------------------------

def test_missing_input(tmp_path, seeds):
    inp = tmp_path / "in.npz"
    np.savez(inp, other=np.zeros((1, 3), np.float32))
    run_fails(tmp_path, seeds / "add.strata", inp, "no input named 'other'", "its inputs: 'x'")
    np.savez(inp)
    run_fails(tmp_path, seeds / "add.strata", inp, "in.npz' has no array for input 'x' (f32 [-1, 3])")


def test_no_input_file_for_a_model_with_inputs(tmp_path, seeds):
    run_fails(tmp_path, seeds / "add.strata", None,
              "no --input given; the model needs input 'x' (f32 [-1, 3])")


def test_extra_input(tmp_path, seeds):
    inp = add_input(tmp_path, extra=np.zeros(2, np.float32))
    run_fails(tmp_path, seeds / "add.strata", inp,
              "model 'add' has no input named 'extra' (its inputs: 'x')")


def test_input_for_a_model_without_inputs(tmp_path, seeds):
    run_fails(tmp_path, seeds / "constants.strata", add_input(tmp_path),
              "has no input named 'x' (its inputs: none)")


@pytest.mark.parametrize("dtype,name", [(np.float64, "f64"), (np.int32, "i32"),
                                        (np.bool_, "bool"), (np.float16, "f16")])
def test_wrong_dtype(tmp_path, seeds, dtype, name):
    inp = add_input(tmp_path, x=np.zeros((1, 3), dtype))
    run_fails(tmp_path, seeds / "add.strata", inp, f"input 'x' is f32, not {name}")


def test_narrow_dtype_for_an_f32_input(tmp_path, seeds):
    import ml_dtypes
    inp = tmp_path / "in.npz"
    # The .npy descr is the ml_dtypes name (docs/cli.md "npz files").
    a = np.zeros((1, 3), ml_dtypes.int4)
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "int4", "fortran_order": False,
                                               "shape": a.shape})
    buf.write(a.tobytes())
    with zipfile.ZipFile(inp, "w") as z:
        z.writestr("x.npy", buf.getvalue())
    # int4 is a runtime dtype (format 1.1); the session names both types.
    run_fails(tmp_path, seeds / "add.strata", inp, "input 'x' is f32, not i4")


@pytest.mark.parametrize("shape", [(3,), (1, 4), (1, 3, 1), ()])
def test_shape_outside_the_signature(tmp_path, seeds, shape):
    inp = add_input(tmp_path, x=np.zeros(shape, np.float32))
    dims = ", ".join(map(str, shape))
    run_fails(tmp_path, seeds / "add.strata", inp, f"input 'x' has shape [-1, 3], not [{dims}]")


def test_shape_without_a_variant(tmp_path, seeds):
    inp = add_input(tmp_path, x=np.zeros((2, 3), np.float32))
    run_fails(tmp_path, seeds / "add.strata", inp,
              "model 'add' was not compiled for input shapes [2, 3]",
              "its variants take: [1, 3]; [4, 3]")


def test_input_file_is_not_an_npz(tmp_path, seeds):
    run_fails(tmp_path, seeds / "add.strata", seeds / "add.strata", "add.strata")


def test_input_file_missing(tmp_path, seeds):
    run_fails(tmp_path, seeds / "add.strata", tmp_path / "none.npz", "none.npz",
              "No such file or directory")


def test_output_is_a_folder(tmp_path, seeds):
    (tmp_path / "outdir").mkdir()
    r = strata("run", seeds / "add.strata", "--input", add_input(tmp_path),
               "--output", tmp_path / "outdir")
    assert_clean_failure(r, "it is a folder, not a file")


# ---- bad options ---------------------------------------------------------

@pytest.mark.parametrize("opts,msg", [
    (["--threads", "-1"], "--threads -1 must be in [0, 1024]"),
    (["--threads", "1025"], "--threads 1025 must be in [0, 1024]"),
    (["--repeat", "0"], "--repeat must be at least 1"),
    (["--repeat", "3", "--warmup", "-2"], "--warmup at least 0"),
])
def test_bad_run_options(tmp_path, seeds, opts, msg):
    out = tmp_path / "out.npz"
    r = strata("run", seeds / "add.strata", "--input", add_input(tmp_path), "--output", out, *opts)
    assert_clean_failure(r, msg)
    assert r.returncode == 2
    assert not out.exists()


def test_option_given_twice(tmp_path, seeds):
    inp = add_input(tmp_path)
    r = strata("run", seeds / "add.strata", "--input", inp, "--input", inp,
               "--output", tmp_path / "o.npz")
    assert_clean_failure(r, "--input is given 2 times")
    assert r.returncode == 2
