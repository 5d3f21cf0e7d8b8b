"""The runtime's workgroup planning at 2 threads (docs/cpu-kernels.md,
Threading): a matmul whose 128 rows fill an odd number of 12-row panels
splits over its columns, a Winograd convolution of one image splits into
balanced tile blocks, a GEMM convolution's 196 columns split 96 + 100. Each
must match a float64 numpy reference on every ISA at 1 and 2 threads (rtol
1e-4; absolute tolerance as stated per case) and give the same bits at 1
and 2 threads (the split does not change the order of any sum)."""
import numpy as np

from test_cpu_kernels import compile_and_check, conv_case, strata, ty, weight


def outputs_at(tmp_path, inputs, threads):
    np.savez(tmp_path / "in.npz", **inputs)
    r = strata("run", tmp_path / "m.strata", "--input", tmp_path / "in.npz", "--output",
               tmp_path / f"out{threads}.npz", "--threads", threads)
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / f"out{threads}.npz") as z:
        return z["y"]


def check_same_bits(tmp_path, inputs):
    np.testing.assert_array_equal(outputs_at(tmp_path, inputs, 1),
                                  outputs_at(tmp_path, inputs, 2))


def test_matmul_of_128_rows(tmp_path):
    # 128 x 32 @ 32 x 768 (3.1 MFLOP: 2 workgroups): 11 row panels would
    # split 6 + 5, the 48 column panels split 24 + 24.
    rng = np.random.default_rng(11)
    x = rng.standard_normal((128, 32)).astype(np.float32)
    w = rng.standard_normal((32, 768)).astype(np.float32)
    b = rng.standard_normal(768).astype(np.float32)
    y = x.astype(np.float64) @ w + b
    text = f"""
func.func @main(%x_arg: {ty(x)} {{top.name = "x"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  {weight("w", w)}
  {weight("b", b)}
  %0 = top.MatMul(%x, %w, %b) : ({ty(x)}, {ty(w)}, {ty(b)}) -> {ty(y)}
  return %0 : {ty(y)}
}}
"""
    compile_and_check(tmp_path, text, {"x": x}, y, "matmul_gemm_f32", atol=1e-4)
    check_same_bits(tmp_path, {"x": x})


def test_winograd_of_one_image_in_balanced_blocks(tmp_path):
    # 36x36 outputs: 81 tiles, in 32-tile blocks 64 + 17 per workgroup, in
    # 21-tile blocks 42 + 39. Tolerance: 5e-5 * max |y| (test_winograd_conv).
    text, x, y = conv_case("winograd_split", (1, 16, 36, 36), (24, 16, 3, 3), (1, 1),
                           (1, 1, 1, 1), (1, 1), 1, "")
    compile_and_check(tmp_path, text, {"x": x}, y, "conv2d_winograd_f43_f32",
                      atol=5e-5 * np.abs(y).max())
    check_same_bits(tmp_path, {"x": x})


def test_conv_of_196_columns(tmp_path):
    # A 1x1 convolution at 14x14, 64 -> 96 channels (2.4 MFLOP: 2 workgroups).
    text, x, y = conv_case("columns_split", (1, 64, 14, 14), (96, 64, 1, 1), (1, 1),
                           (0, 0, 0, 0), (1, 1), 1, "")
    compile_and_check(tmp_path, text, {"x": x}, y, "conv2d_1x1_gemm_f32", atol=1e-4)
    check_same_bits(tmp_path, {"x": x})
