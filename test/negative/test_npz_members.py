"""npz archives whose members lie about their size or use layouts numpy can
write but Strata did not read: sizes are checked before anything is
allocated, big-endian and fortran-ordered arrays are read correctly, and
object, structured, LZMA and bzip2 members are refused by name."""
import io
import struct
import zipfile

import numpy as np
import pytest

from negative_harness import assert_clean_failure, strata


def npy_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=True)
    return buf.getvalue()


def compare(d, a_members):
    """Runs `strata compare` of an npz holding `a_members` against itself."""
    with zipfile.ZipFile(d / "a.npz", "w") as z:
        for name, data in a_members.items():
            z.writestr(name + ".npy", data)
    return strata("compare", d / "a.npz", d / "a.npz")


def patch_declared_size(path, size):
    """Rewrites the uncompressed size of every member in both the local and
    the central headers (zip64 is not used: `size` < 2^32)."""
    data = bytearray(path.read_bytes())
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (i := data.find(sig, start)) >= 0:
            struct.pack_into("<I", data, i + offset, size)
            start = i + 4
    path.write_bytes(bytes(data))


def test_member_declares_4_gib(tmp_path):
    """A 300-byte archive whose member header says 4 GiB - 16."""
    p = tmp_path / "a.npz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x.npy", npy_bytes(np.zeros(4, np.float32)))
    patch_declared_size(p, 0xFFFFFFF0)
    assert p.stat().st_size < 400
    r = strata("compare", p, p)
    assert_clean_failure(r, "member 'x.npy'", "declares 4294967280 bytes", "corrupt")


def test_not_a_zip_archive(tmp_path):
    p = tmp_path / "a.npz"
    p.write_bytes(b"PK\x05\x06" + b"\xff" * 40)
    r = strata("compare", p, p)
    assert_clean_failure(r, "a.npz", "not a readable zip archive")


def test_stored_member_declares_more_than_it_holds(tmp_path):
    p = tmp_path / "a.npz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
        z.writestr("x.npy", npy_bytes(np.zeros(4, np.float32)))
    patch_declared_size(p, 1 << 20)
    r = strata("compare", p, p)
    assert_clean_failure(r, "member 'x.npy'", "declares 1048576 bytes", "corrupt")


def test_deflated_member_within_ratio_but_short(tmp_path):
    """Declared size plausible for deflate, but the data ends early."""
    p = tmp_path / "a.npz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x.npy", npy_bytes(np.zeros(1000, np.float32)))
    patch_declared_size(p, 8000)
    r = strata("compare", p, p)
    assert_clean_failure(r, "x.npy")
    assert "Stack dump" not in r.stderr


@pytest.mark.parametrize("compression,name", [(zipfile.ZIP_LZMA, "LZMA"),
                                              (zipfile.ZIP_BZIP2, "bzip2")])
def test_unsupported_compression(tmp_path, compression, name):
    p = tmp_path / "a.npz"
    with zipfile.ZipFile(p, "w", compression) as z:
        z.writestr("x.npy", npy_bytes(np.zeros(4, np.float32)))
    r = strata("compare", p, p)
    assert_clean_failure(r, "member 'x.npy'", f"compressed with {name}",
                         "stored and deflate")


def test_object_array_is_refused(tmp_path):
    r = compare(tmp_path, {"x": npy_bytes(np.array([{"a": 1}, None], dtype=object))})
    assert_clean_failure(r, "array 'x'", "Python objects", "never unpickles")


def test_structured_array_is_refused(tmp_path):
    r = compare(tmp_path, {"x": npy_bytes(np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")]))})
    assert_clean_failure(r, "array 'x'", "structured array")


def run_identity(d, x):
    """Runs a Relu model on input `x` (any layout numpy writes) and returns
    the output next to np.maximum(x, 0) computed by numpy."""
    (d / "m.mlir").write_text(
        "module {\n"
        "  func.func @main(%arg0: tensor<2x3x4xf32> {top.name = \"x\"}) -> "
        "(tensor<2x3x4xf32> {top.name = \"y\"}) {\n"
        "    %0 = top.Input(%arg0) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>\n"
        "    %1 = top.Relu(%0) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>\n"
        "    return %1 : tensor<2x3x4xf32>\n  }\n}\n")
    with zipfile.ZipFile(d / "in.npz", "w") as z:
        z.writestr("x.npy", npy_bytes(x))
    r = strata("run-ref", d / "m.mlir", "--input", d / "in.npz", "--output", d / "out.npz")
    assert r.returncode == 0, r.stderr
    return np.load(d / "out.npz")["y"]


def test_big_endian_array_is_byte_swapped(tmp_path):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(">f4")
    np.testing.assert_array_equal(run_identity(tmp_path, x), np.maximum(x, 0))


def test_fortran_order_array_is_transposed(tmp_path):
    x = np.asfortranarray(np.random.default_rng(1).standard_normal((2, 3, 4)).astype("<f4"))
    assert b"'fortran_order': True" in npy_bytes(x)
    np.testing.assert_array_equal(run_identity(tmp_path, x), np.maximum(x, 0))


def test_big_endian_fortran_int64(tmp_path):
    """compare reads both layouts: a >i8 fortran array equals its <i8 C copy."""
    x = np.asfortranarray(np.arange(24, dtype=">i8").reshape(2, 3, 4))
    with zipfile.ZipFile(tmp_path / "a.npz", "w") as z:
        z.writestr("x.npy", npy_bytes(x))
    np.savez(tmp_path / "b.npz", x=np.ascontiguousarray(x.astype("<i8")))
    r = strata("compare", tmp_path / "a.npz", tmp_path / "b.npz")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "EQUAL" in r.stdout
