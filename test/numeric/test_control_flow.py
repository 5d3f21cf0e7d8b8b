"""Control-flow ops (If, Loop, Scan) and func.call in the reference
interpreter, against numpy loops on random data. Regions read values of the
enclosing scope; results with run-time dims (`?`) get their shape when the
op runs. Float results use rtol 1e-5 (the same additions in the same order,
so they are in fact exact)."""
import numpy as np
import pytest

from numeric_harness import COMPILED, Model, mlir_type, run_ok, run_ref

RTOL = 1e-5

# Compiled code has static shapes only (docs/codegen-control-flow.md): a
# result whose shape only the run decides cannot be compiled.
DYNAMIC_IF = pytest.mark.xfail(
    COMPILED, strict=True,
    reason="the result's shape depends on the run-time condition (or the "
           "inputs are dynamic); CPU code generation needs static shapes")
DYNAMIC_LOOP = pytest.mark.xfail(
    COMPILED, strict=True,
    reason="the loop body has values of run-time shape; CPU code generation "
           "needs static shapes there")


def t(shape, dtype=np.float32):
    return mlir_type(shape, dtype)


@DYNAMIC_IF
@pytest.mark.parametrize("cond", [True, False])
def test_if_selects_branch_with_run_time_shape(cond, rng):
    x = rng.standard_normal(4).astype(np.float32)
    y = rng.standard_normal(6).astype(np.float32)
    m = Model(inputs={"c": np.array(cond), "x": x, "y": y})
    m.op(f"""%r = top.If %c : tensor<i1> -> (tensor<?xf32>) then {{
      %a = top.Relu(%x) : ({t([4])}) -> {t([4])}
      top.Yield %a : {t([4])}
    }} else {{
      %b = top.Add(%y, %y) : ({t([6])}, {t([6])}) -> {t([6])}
      top.Yield %b : {t([6])}
    }}""")
    out = run_ok(m, [("%r", "r", "tensor<?xf32>")])["r"]
    want = np.maximum(x, 0) if cond else y + y
    np.testing.assert_allclose(out, want, rtol=RTOL)


LOOP = """%y, %s = top.Loop(%m, {cond}, %y0) : (tensor<i64>, {cond_t}, {yt}) -> ({yt}, tensor<?x3xf32>) {{
    ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: {yt}):
      %h = top.Mul(%yi, %half) : ({yt}, tensor<f32>) -> {yt}
      %n = top.Add(%h, %x) : ({yt}, {yt}) -> {yt}
      %mn = top.Reduce(%n) {{axes = array<i64: 0>, keepdims = false, mode = #top.reduce_mode<ReduceMin>}} : ({yt}) -> tensor<f32>
      %any = top.Compare(%mn, %limit) {{mode = #top.compare_mode<Less>}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      top.Yield {yield_cond}, %n, %n : tensor<i1>, {yt}, {yt}
    }}"""


def loop_reference(m, y0, x, limit, use_cond):
    ys, y, i = [], y0.copy(), 0
    while i < m:
        y = y * np.float32(0.5) + x
        ys.append(y)
        i += 1
        if use_cond and not np.any(y < limit):
            break
    return y, np.stack(ys) if ys else np.zeros((0, 3), np.float32)


# Compiled, the scan output's run-time length is bounded by
# --max-scan-length (docs/codegen.md, run-time shapes).
@pytest.mark.parametrize("trips,use_cond", [(5, False), (0, False), (-2, False), (50, True)])
def test_loop_carried_and_scan(trips, use_cond, rng):
    y0 = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal(3).astype(np.float32)
    limit = np.float32(1.0)
    m = Model(inputs={"m": np.array(trips, np.int64), "y0": y0, "x": x},
              weights={"half": np.array(0.5, np.float32), "limit": np.array(limit)})
    yt = t([3])
    m.op(LOOP.format(cond="%none", cond_t="none", yt=yt,
                     yield_cond="%any" if use_cond else "%ci"))
    out = run_ok(m, [("%y", "y", yt), ("%s", "s", "tensor<?x3xf32>")])
    want_y, want_s = loop_reference(trips, y0, x, limit, use_cond)
    np.testing.assert_allclose(out["y"], want_y, rtol=RTOL)
    assert out["s"].shape == want_s.shape
    np.testing.assert_allclose(out["s"], want_s, rtol=RTOL)


def scan_reference(init, x, in_axis, in_dir, out_axis, out_dir):
    xs = np.moveaxis(x, in_axis, 0)
    if in_dir:
        xs = xs[::-1]
    s, outs = init.copy(), []
    for sl in xs:
        s = s + sl
        outs.append(s * np.float32(2))
    if out_dir:
        outs = outs[::-1]
    stacked = np.stack(outs, axis=0)
    return s, np.moveaxis(stacked, 0, out_axis % stacked.ndim)


@pytest.mark.parametrize("in_axis,in_dir,out_axis,out_dir",
                         [(0, 0, 0, 0), (1, 1, 0, 0), (2, 0, 1, 1), (-1, 1, -1, 0), (1, 0, 2, 1)])
def test_scan(in_axis, in_dir, out_axis, out_dir, rng):
    shape = [4, 5, 3]
    x = rng.standard_normal(shape).astype(np.float32)
    slice_shape = [d for k, d in enumerate(shape) if k != in_axis % 3]
    init = rng.standard_normal(slice_shape).astype(np.float32)
    length = shape[in_axis % 3]
    st = t(slice_shape)
    out_shape = list(slice_shape)
    out_shape.insert(out_axis % 3, length)
    m = Model(inputs={"init": init, "x": x}, weights={"two": np.array(2, np.float32)})
    m.op(f"""%s, %z = top.Scan(%init, %x) {{num_scan_inputs = 1 : i64, scan_input_axes = array<i64: {in_axis}>, scan_input_directions = array<i64: {in_dir}>, scan_output_axes = array<i64: {out_axis}>, scan_output_directions = array<i64: {out_dir}>}} : ({st}, {t(shape)}) -> ({st}, {t(out_shape)}) {{
    ^bb0(%acc: {st}, %xi: {st}):
      %n = top.Add(%acc, %xi) : ({st}, {st}) -> {st}
      %d = top.Mul(%n, %two) : ({st}, tensor<f32>) -> {st}
      top.Yield %n, %d : {st}, {st}
    }}""")
    out = run_ok(m, [("%s", "s", st), ("%z", "z", t(out_shape))])
    want_s, want_z = scan_reference(init, x, in_axis, in_dir, out_axis, out_dir)
    np.testing.assert_allclose(out["s"], want_s, rtol=RTOL)
    np.testing.assert_allclose(out["z"], want_z, rtol=RTOL)


def test_scan_integer_and_bool_scan_outputs(rng):
    # Data movement of slices is bytewise: int8 and bool scan values.
    x = rng.integers(-128, 127, (3, 4), dtype=np.int8)
    b = rng.integers(0, 2, (3, 4)).astype(np.bool_)
    m = Model(inputs={"x": x, "b": b})
    m.op(f"""%zx, %zb = top.Scan(%x, %b) {{num_scan_inputs = 2 : i64, scan_output_directions = array<i64: 1, 0>}} : ({t([3, 4], np.int8)}, {t([3, 4], np.bool_)}) -> ({t([3, 4], np.int8)}, {t([3, 4], np.bool_)}) {{
    ^bb0(%xi: {t([4], np.int8)}, %bi: {t([4], np.bool_)}):
      top.Yield %xi, %bi : {t([4], np.int8)}, {t([4], np.bool_)}
    }}""")
    out = run_ok(m, [("%zx", "zx", t([3, 4], np.int8)), ("%zb", "zb", t([3, 4], np.bool_))])
    np.testing.assert_array_equal(out["zx"], x[::-1])
    np.testing.assert_array_equal(out["zb"], b)


def test_func_call_runs_callee(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    m = Model(inputs={"x": x})
    tt = t([2, 3])
    m.op(f"%a = func.call @twice(%x) : ({tt}) -> {tt}")
    m.op(f"%b = func.call @twice(%a) : ({tt}) -> {tt}")
    text = m.text([("%b", "b", tt)])
    callee = (f"  func.func private @twice(%v: {tt}) -> {tt} attributes {{strata.implements = \"local.twice\"}} {{\n"
              f"    %r = top.Add(%v, %v) : ({tt}, {tt}) -> {tt}\n    return %r : {tt}\n  }}\n}}\n")
    text = text[: text.rstrip().rfind("}")] + callee

    class Raw(Model):
        def text(self, outputs):
            return text
    raw = Raw(inputs={"x": x})
    out = run_ok(raw, [("%b", "b", tt)])
    np.testing.assert_allclose(out["b"], 4 * x, rtol=RTOL)


@pytest.mark.interpreter_only
def test_loop_trip_count_must_be_one_element(rng):
    # A run-time error, not a crash: the trip count's type is dynamic, so
    # only the run finds that it has two elements.
    y0 = rng.standard_normal(3).astype(np.float32)
    m = Model(inputs={"m": np.array([2, 3], np.int64), "y0": y0})
    m.op("%md = top.Reshape(%m) {shape = array<i64: -1>} : (tensor<2xi64>) -> tensor<?xi64>")
    m.op(f"""%y = top.Loop(%md, %none, %y0) : (tensor<?xi64>, none, {t([3])}) -> ({t([3])}) {{
    ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: {t([3])}):
      top.Yield %ci, %yi : tensor<i1>, {t([3])}
    }}""")
    code, _, err = run_ref(m, [("%y", "y", t([3]))])
    assert code != 0
    assert "max_trip_count" in err and "one element" in err


# Bodies whose values have dynamic types: the interpreter never refines the
# IR's types, so the region ops must take every shape from the tensors (or,
# for a scan output of no iteration, from the result shape the shape rule and
# the declared type give).
DYN = "tensor<?xf32>"


@DYNAMIC_IF
@pytest.mark.parametrize("cond", [True, False])
def test_if_with_dynamic_types_in_branches(cond, rng):
    x = rng.standard_normal(4).astype(np.float32)
    y = rng.standard_normal(6).astype(np.float32)
    m = Model(inputs={"c": np.array(cond), "x": x, "y": y}, types={"x": DYN, "y": DYN})
    m.op(f"""%r = top.If %c : tensor<i1> -> ({DYN}) then {{
      %a = top.Relu(%x) : ({DYN}) -> {DYN}
      top.Yield %a : {DYN}
    }} else {{
      %b = top.Add(%y, %y) : ({DYN}, {DYN}) -> {DYN}
      top.Yield %b : {DYN}
    }}""")
    out = run_ok(m, [("%r", "r", DYN)])["r"]
    np.testing.assert_allclose(out, np.maximum(x, 0) if cond else y + y, rtol=RTOL)


LOOP_DYN = """%y, %s = top.Loop(%m, %none, %y0) : (tensor<i64>, none, {d}) -> ({d}, {st}) {{
    ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: {d}):
      %h = top.Mul(%yi, %half) : ({d}, tensor<f32>) -> {d}
      %n = top.Add(%h, %x) : ({d}, {d}) -> {d}
      top.Yield %ci, %n, %n : tensor<i1>, {d}, {d}
    }}"""


@DYNAMIC_LOOP
@pytest.mark.parametrize("trips,scan_type", [(4, "tensor<?x?xf32>"), (0, "tensor<?x3xf32>")])
def test_loop_with_dynamic_types_in_body(trips, scan_type, rng):
    # With no iteration the scan output is [0, 3]: the declared result type
    # gives the dim the body's `?` yield type leaves open.
    y0 = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal(3).astype(np.float32)
    m = Model(inputs={"m": np.array(trips, np.int64), "y0": y0, "x": x},
              weights={"half": np.array(0.5, np.float32)}, types={"y0": DYN, "x": DYN})
    m.op(LOOP_DYN.format(d=DYN, st=scan_type))
    out = run_ok(m, [("%y", "y", DYN), ("%s", "s", scan_type)])
    want_y, want_s = loop_reference(trips, y0, x, np.float32(1), False)
    np.testing.assert_allclose(out["y"], want_y, rtol=RTOL)
    assert out["s"].shape == want_s.shape
    np.testing.assert_allclose(out["s"], want_s, rtol=RTOL)


@pytest.mark.interpreter_only
def test_loop_of_no_iteration_needs_a_scan_shape(rng):
    # Neither the body's yield type nor the result type gives the slice
    # shape: a clean error, not a guess.
    y0 = rng.standard_normal(3).astype(np.float32)
    m = Model(inputs={"m": np.array(0, np.int64), "y0": y0, "x": y0},
              weights={"half": np.array(0.5, np.float32)}, types={"y0": DYN, "x": DYN})
    m.op(LOOP_DYN.format(d=DYN, st="tensor<?x?xf32>"))
    code, _, err = run_ref(m, [("%y", "y", DYN), ("%s", "s", "tensor<?x?xf32>")])
    assert code != 0
    assert "scan output #0 ran no iteration" in err


@pytest.mark.xfail(COMPILED, strict=True,
                   reason="dynamic input shapes; CPU code generation needs static shapes")
@pytest.mark.parametrize("length", [4, 0])
def test_scan_with_dynamic_types_in_body(length, rng):
    init = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((length, 3)).astype(np.float32)
    m = Model(inputs={"init": init, "x": x}, types={"init": DYN, "x": "tensor<?x?xf32>"})
    m.op(f"""%s, %z = top.Scan(%init, %x) {{num_scan_inputs = 1 : i64}} : ({DYN}, tensor<?x?xf32>) -> ({DYN}, tensor<?x3xf32>) {{
    ^bb0(%acc: {DYN}, %xi: {DYN}):
      %n = top.Add(%acc, %xi) : ({DYN}, {DYN}) -> {DYN}
      top.Yield %n, %n : {DYN}, {DYN}
    }}""")
    out = run_ok(m, [("%s", "s", DYN), ("%z", "z", "tensor<?x3xf32>")])
    want_z = np.cumsum(np.concatenate([init[None], x]), axis=0)[1:] if length else np.zeros((0, 3), np.float32)
    np.testing.assert_allclose(out["s"], init + x.sum(axis=0), rtol=RTOL)
    assert out["z"].shape == want_z.shape
    np.testing.assert_allclose(out["z"], want_z, rtol=RTOL)


# Static forms, which the compiled path runs too.


@pytest.mark.parametrize("cond", [True, False])
def test_if_with_static_branches(cond, rng):
    # Two results, one integer; the branches read values from above.
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    k = rng.integers(0, 200, (3,), dtype=np.uint8)
    m = Model(inputs={"c": np.array([cond]), "x": x, "y": y, "k": k})
    xt, kt = t([2, 3]), t([3], np.uint8)
    m.op(f"""%r, %q = top.If %c : tensor<1xi1> -> ({xt}, {kt}) then {{
      %a = top.Relu(%x) : ({xt}) -> {xt}
      %kk = top.Max(%k, %k) : ({kt}, {kt}) -> {kt}
      top.Yield %a, %kk : {xt}, {kt}
    }} else {{
      %b = top.Mul(%x, %y) : ({xt}, {xt}) -> {xt}
      %kk = top.Add(%k, %k) : ({kt}, {kt}) -> {kt}
      top.Yield %b, %kk : {xt}, {kt}
    }}""")
    out = run_ok(m, [("%r", "r", xt), ("%q", "q", kt)])
    np.testing.assert_allclose(out["r"], np.maximum(x, 0) if cond else x * y, rtol=RTOL)
    np.testing.assert_array_equal(out["q"], k if cond else (k + k).astype(np.uint8))


@pytest.mark.parametrize("trips,use_cond", [(5, False), (0, False), (-2, False), (50, True)])
def test_loop_carried_values_only(trips, use_cond, rng):
    # No scan output: every shape is static whatever the trip count.
    y0 = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal(3).astype(np.float32)
    limit = np.float32(1.0)
    m = Model(inputs={"m": np.array(trips, np.int64), "y0": y0, "x": x},
              weights={"half": np.array(0.5, np.float32), "limit": np.array(limit)})
    yt = t([3])
    m.op(f"""%y, %cnt = top.Loop(%m, %none, %y0, %zero) : (tensor<i64>, none, {yt}, tensor<i64>) -> ({yt}, tensor<i64>) {{
    ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: {yt}, %ni: tensor<i64>):
      %h = top.Mul(%yi, %half) : ({yt}, tensor<f32>) -> {yt}
      %n = top.Add(%h, %x) : ({yt}, {yt}) -> {yt}
      %mn = top.Reduce(%n) {{axes = array<i64: 0>, keepdims = false, mode = #top.reduce_mode<ReduceMin>}} : ({yt}) -> tensor<f32>
      %any = top.Compare(%mn, %limit) {{mode = #top.compare_mode<Less>}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      top.Yield {"%any" if use_cond else "%ci"}, %n, %i : tensor<i1>, {yt}, tensor<i64>
    }}""".replace("%zero", "%m0"))
    m.weights["m0"] = np.array(-1, np.int64)
    out = run_ok(m, [("%y", "y", yt), ("%cnt", "cnt", "tensor<i64>")])
    want_y, want_s = loop_reference(trips, y0, x, limit, use_cond)
    np.testing.assert_allclose(out["y"], want_y, rtol=RTOL)
    # The last iteration number the body saw (-1: no iteration).
    assert out["cnt"] == len(want_s) - 1


@pytest.mark.parametrize("cond", [True, False])
def test_loop_with_initial_cond(cond, rng):
    y0 = rng.standard_normal(3).astype(np.float32)
    m = Model(inputs={"m": np.array(3, np.int64), "c": np.array(cond), "y0": y0})
    yt = t([3])
    m.op(f"""%y = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, {yt}) -> ({yt}) {{
    ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: {yt}):
      %n = top.Add(%yi, %yi) : ({yt}, {yt}) -> {yt}
      top.Yield %ci, %n : tensor<i1>, {yt}
    }}""")
    out = run_ok(m, [("%y", "y", yt)])
    np.testing.assert_allclose(out["y"], y0 * 8 if cond else y0, rtol=RTOL)


def test_scan_unsigned_state(rng):
    # ui8 state and slices: the running maximum compares unsigned; the scan
    # output is the state before each step.
    s0 = rng.integers(0, 256, 4, dtype=np.uint8)
    x = rng.integers(0, 256, (3, 4), dtype=np.uint8)
    m = Model(inputs={"s0": s0, "x": x})
    st, xt = t([4], np.uint8), t([3, 4], np.uint8)
    m.op(f"""%s, %z = top.Scan(%s0, %x) {{num_scan_inputs = 1 : i64}} : ({st}, {xt}) -> ({st}, {xt}) {{
    ^bb0(%a: {st}, %xi: {st}):
      %mx = top.Max(%a, %xi) : ({st}, {st}) -> {st}
      top.Yield %mx, %a : {st}, {st}
    }}""")
    out = run_ok(m, [("%s", "s", st), ("%z", "z", xt)])
    states = [s0]
    for row in x:
        states.append(np.maximum(states[-1], row))
    np.testing.assert_array_equal(out["s"], states[-1])
    np.testing.assert_array_equal(out["z"], np.stack(states[:-1]))


@pytest.mark.parametrize("cond", [True, False])
def test_if_inside_scan(cond, rng):
    # A region op in a region: the If reads the step's slice, the state and
    # a value of the enclosing function.
    init = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    m = Model(inputs={"c": np.array(cond), "init": init, "x": x})
    st = t([3])
    m.op(f"""%s = top.Scan(%init, %x) {{num_scan_inputs = 1 : i64}} : ({st}, {t([4, 3])}) -> ({st}) {{
    ^bb0(%acc: {st}, %xi: {st}):
      %r = top.If %c : tensor<i1> -> ({st}) then {{
        %n = top.Add(%acc, %xi) : ({st}, {st}) -> {st}
        top.Yield %n : {st}
      }} else {{
        %n = top.Max(%acc, %xi) : ({st}, {st}) -> {st}
        top.Yield %n : {st}
      }}
      top.Yield %r : {st}
    }}""")
    out = run_ok(m, [("%s", "s", st)])
    want = init.copy()
    for row in x:
        want = want + row if cond else np.maximum(want, row)
    np.testing.assert_allclose(out["s"], want, rtol=RTOL)
