"""TfIdfVectorizer (integer tokens) against onnx.reference: random token
sequences, pools with 1- to 3-grams, skips 0..3, all three modes with and
without weights, 1-d and batched input, int32 and int64 (float32 output,
rtol 1e-6: the counts are exact); LpNormalization of an all-zero slice; and
the attribute errors."""
import zlib

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import import_error, run_strata


def model(x, attrs):
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)
    ins = [helper.make_tensor_value_info("x", helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    m = helper.make_model(helper.make_graph([node], "g", ins, outs),
                          opset_imports=[helper.make_opsetid("", 9)])
    m.ir_version = 8
    return m


def random_pool(rng, vocab, sizes):
    """A pool with `sizes[n-1]` distinct n-grams of each size n."""
    pool, counts = [], []
    for n, k in enumerate(sizes, start=1):
        counts.append(len(pool))
        seen = set()
        while len(seen) < k:
            seen.add(tuple(int(t) for t in rng.integers(0, vocab, n)))
        for g in sorted(seen):
            pool.extend(g)
    return pool, counts, sum(sizes)


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("grams", [(1, 1), (1, 2), (2, 2), (2, 3), (1, 3)])
@pytest.mark.parametrize("skip", [0, 1, 3])
@pytest.mark.parametrize("batched", [False, True])
def test_tfidf_matches_reference(mode, weighted, grams, skip, batched):
    seed = zlib.crc32(("%s%d%s%d%d" % (mode, weighted, grams, skip, batched)).encode())
    rng = np.random.default_rng(seed)
    vocab = 5  # small, so that n-grams repeat
    pool, counts, total = random_pool(rng, vocab, [4, 6, 5])
    # Output columns: a permutation, some n-grams sharing a column.
    indexes = [int(i) for i in rng.permutation(total) % (total - 2)]
    attrs = dict(mode=mode, min_gram_length=grams[0], max_gram_length=grams[1],
                 max_skip_count=skip, ngram_counts=counts, ngram_indexes=indexes,
                 pool_int64s=pool)
    if weighted:
        attrs["weights"] = [float(w) for w in rng.uniform(0.5, 2.0, max(indexes) + 1)]
    dtype = np.int64 if batched else np.int32
    x = rng.integers(0, vocab, (3, 12) if batched else (14,)).astype(dtype)
    m = model(x, attrs)
    code, got, err = run_strata(m, {"x": x})
    assert code == 0, err
    # onnx.reference needs weights in IDF/TFIDF modes; all ones is what the
    # spec says an absent list means.
    ref = m if weighted or mode == "TF" else model(x, {**attrs, "weights": [1.0] * (max(indexes) + 1)})
    want = ReferenceEvaluator(ref).run(None, {"x": x})[0]
    assert got["y"].dtype == np.float32 and got["y"].shape == want.shape
    np.testing.assert_allclose(got["y"], want, rtol=1e-6, atol=0)
    if mode == "TF":
        assert want.sum() > 0  # the inputs do hit the pool


def test_tfidf_short_input_gives_zeros():
    x = np.array([1, 2], np.int64)
    attrs = dict(mode="TF", min_gram_length=3, max_gram_length=3, max_skip_count=0,
                 ngram_counts=[0, 0, 0], ngram_indexes=[0], pool_int64s=[1, 2, 3])
    code, got, err = run_strata(model(x, attrs), {"x": x})
    assert code == 0, err
    np.testing.assert_array_equal(got["y"], np.zeros(1, np.float32))


@pytest.mark.parametrize("change", [dict(max_gram_length=1 << 40),
                                    dict(max_skip_count=1 << 40),
                                    dict(max_gram_length=1 << 62, max_skip_count=(1 << 63) - 1)],
                         ids=["max-gram", "max-skip", "both"])
def test_tfidf_huge_lengths_match_reference(change):
    """Lengths and skips past the pool's n-grams and the input change nothing:
    the importer looped over the attribute values (2^40: hours; INT64_MAX
    overflowed). The reference with the same attributes is the oracle."""
    x = np.array([1, 2, 1, 2, 2, 1, 1, 2], np.int64)
    attrs = {**BASE, **change}
    code, got, err = run_strata(model(x, attrs), {"x": x})
    assert code == 0, err
    bounded = {**attrs, "max_gram_length": 2, "max_skip_count": min(attrs["max_skip_count"], 8)}
    want = ReferenceEvaluator(model(x, bounded)).run(None, {"x": x})[0]
    assert want.sum() > 0
    np.testing.assert_allclose(got["y"], want, rtol=1e-6, atol=0)


BASE = dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=0,
            ngram_counts=[0, 2], ngram_indexes=[0, 1, 2], pool_int64s=[1, 2, 1, 2])


@pytest.mark.parametrize("change,message", [
    (dict(mode="BM25"), "attribute 'mode' = 'BM25' must be TF, IDF or TFIDF"),
    (dict(min_gram_length=3), "'min_gram_length' = 3 and 'max_gram_length' = 2"),
    (dict(max_skip_count=-1), "attribute 'max_skip_count' = -1 must be >= 0"),
    (dict(ngram_counts=[0, 3]), "holds 1 entries for 2-grams, not a multiple of 2"),
    (dict(ngram_counts=[0, 9]), "is not a non-decreasing list of offsets"),
    (dict(ngram_indexes=[0, 1]), "fewer than the pool's n-grams"),
    (dict(ngram_indexes=[0, 1, 2, 3]), "has 4 entries but the pool holds 3 n-grams"),
    (dict(ngram_indexes=[0, -1, 2]), "has entry -1 out of range"),
    (dict(weights=[1.0]), "'weights' has 1 entries, fewer than the 3 output columns"),
], ids=["mode", "lengths", "skip", "multiple", "offsets", "few-indexes", "many-indexes",
        "negative-index", "weights"])
def test_tfidf_bad_attributes(change, message):
    x = np.array([1, 2, 1], np.int64)
    err = import_error(model(x, {**BASE, **change}))
    assert "(TfIdfVectorizer, opset 9)" in err, err
    assert message in err, err


def test_tfidf_rejects_float_and_string_pools():
    err = import_error(model(np.zeros(3, np.float32), BASE))
    assert "input 'X' must be int32 or int64, got 'f32'" in err, err
    attrs = {k: v for k, v in BASE.items() if k != "pool_int64s"}
    err = import_error(model(np.zeros(3, np.int64), {**attrs, "pool_strings": ["a", "b"] * 2}))
    assert "'pool_strings' (string tokens) is not supported" in err, err


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_lpnormalization_zero_slice_gives_zero(p, axis):
    x = np.array([[0.0, 3.0, 0.0], [0.0, 4.0, 0.0], [0.0, -1.0, 2.0]], np.float32)
    x[2] = 0  # a zero row as well as zero columns
    node = helper.make_node("LpNormalization", ["x"], ["y"], axis=axis, p=p)
    m = helper.make_model(helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]),
        opset_imports=[helper.make_opsetid("", 22)])
    code, got, err = run_strata(m, {"x": x})
    assert code == 0, err
    want = ReferenceEvaluator(m).run(None, {"x": x})[0]
    assert not np.isnan(got["y"]).any()
    np.testing.assert_allclose(got["y"], np.nan_to_num(want, nan=0.0), rtol=1e-6, atol=1e-7)
