"""ONNX Einsum, decomposed into Permute/Reshape/Slice/MatMul/Reduce: every
equation is compared with numpy.einsum (float32: rtol 1e-5, atol 1e-5;
integers exact), covering implicit and explicit outputs, ellipsis broadcasting,
diagonals, sums, batch matmul, outer products and chains of 3 operands; and
the errors for malformed equations."""
import zlib

import numpy as np
import pytest
from onnx import helper

from onnx_harness import import_error, make_model, run_strata

CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),                  # implicit: ik
    ("ba,ac", [(3, 4), (4, 5)]),                  # implicit output sorted: bc
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i", [(7,), (7,)]),                        # inner product -> scalar
    ("i,j->ij", [(3,), (4,)]),                    # outer product
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),                             # trace
    ("...ii->...i", [(2, 3, 5, 5)]),
    ("iij->ji", [(3, 3, 2)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),  # ellipsis broadcast
    ("...i,...i", [(2, 3), (1, 3)]),              # implicit keeps ...
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 6, 8)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("ab,cd,bd->ac", [(2, 3), (4, 5), (3, 5)]),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),              # elementwise product
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("i,ij->j", [(3,), (3, 4)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),              # upper-case labels
    ("->", [()]),
]


@pytest.mark.parametrize("eq,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_numpy(eq, shapes):
    rng = np.random.default_rng(zlib.crc32(eq.encode()))
    xs = {"x%d" % i: rng.standard_normal(s).astype(np.float32) for i, s in enumerate(shapes)}
    node = helper.make_node("Einsum", list(xs), ["y"], equation=eq)
    code, got, err = run_strata(make_model([node], xs, ["y"], opset=12), xs)
    assert code == 0, err
    want = np.einsum(eq, *xs.values())
    assert got["y"].shape == want.shape
    np.testing.assert_allclose(got["y"], want, rtol=1e-5, atol=1e-5)


def test_einsum_spaces_and_int32_exact():
    rng = np.random.default_rng(3)
    xs = {"a": rng.integers(-50, 50, (2, 3, 4)).astype(np.int32),
          "b": rng.integers(-50, 50, (2, 4, 5)).astype(np.int32)}
    node = helper.make_node("Einsum", ["a", "b"], ["y"], equation=" bij , bjk -> bik ")
    code, got, err = run_strata(make_model([node], xs, ["y"], opset=12), xs)
    assert code == 0, err
    assert got["y"].dtype == np.int32
    np.testing.assert_array_equal(got["y"], np.einsum("bij,bjk->bik", xs["a"], xs["b"]))


@pytest.mark.parametrize("eq,shapes,message", [
    ("ij,jk->ik", [(3, 4)], "has 2 input terms, the node 1 inputs"),
    ("ij->ij", [(3, 4, 5)], "does not match input 0 of rank 3"),
    ("ij,jk->ik", [(3, 4), (5, 6)], "label 'j' has size 4 in one operand and 5"),
    ("ij->iz", [(3, 4)], "output label 'z' is in no input term"),
    ("ij->ii", [(3, 4)], "output label 'i' appears twice"),
    ("i.j->ij", [(3, 4)], "misplaced '.'"),
    ("i1->i", [(3, 4)], "unexpected character '1'"),
    ("ii->i", [(3, 4)], "repeats with different sizes 3 and 4"),
])
def test_einsum_errors(eq, shapes, message):
    xs = {"x%d" % i: np.zeros(s, np.float32) for i, s in enumerate(shapes)}
    node = helper.make_node("Einsum", list(xs), ["y"], equation=eq)
    err = import_error(make_model([node], xs, ["y"], opset=12))
    assert message in err and "Einsum" in err, err
