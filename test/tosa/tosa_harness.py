"""Runs a TOSA function two ways and compares the results.

The reference is MLIR's own TOSA lowering, independent of Strata:
mlir-opt-22 (tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith,
tosa-to-tensor, tosa-to-scf, then bufferization and LLVM) and mlir-runner-22,
with the inputs baked in as constants and each result printed through
printMemrefI32 (floats bit-cast to i32, so nothing is lost in printing).
Strata's side is `strata import` (convert-tosa-to-top, then top-optimize)
and `strata run-ref` on the optimized model.

Tolerances: integer results exactly; float results rtol 1e-5 (atol 1e-6 for
values near 0), NaN equal to NaN.
"""
import io
import os
import re
import shutil
import subprocess
import tempfile
import zipfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
LLVM = "/usr/lib/llvm-22"
MLIR_OPT = os.path.join(LLVM, "bin", "mlir-opt")
MLIR_RUNNER = os.path.join(LLVM, "bin", "mlir-runner")
RUNNER_LIBS = ",".join(os.path.join(LLVM, "lib", n) for n in
                       ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
PIPELINE = (
    "builtin.module(func.func(tosa-optional-decompositions,tosa-to-scf,tosa-to-linalg-named,tosa-to-linalg,"
    "tosa-to-arith{include-apply-rescale},tosa-to-tensor,convert-elementwise-to-linalg),"
    "one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops},"
    "func.func(convert-linalg-to-loops),convert-scf-to-cf,expand-strided-metadata,"
    "lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,"
    "convert-to-llvm,reconcile-unrealized-casts)")

ELEM = {np.dtype("float32"): "f32", np.dtype("float16"): "f16",
        np.dtype("int8"): "i8", np.dtype("int16"): "i16",
        np.dtype("int32"): "i32", np.dtype("int64"): "i64",
        np.dtype("bool"): "i1"}
NP = {v: k for k, v in ELEM.items()}


def ttype(shape, elem):
    """An MLIR tensor type."""
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def dense(a):
    """A dense attribute holding `a` exactly."""
    if a.dtype == np.bool_:
        body = np.array2string(a, separator=", ", threshold=1 << 30)
        body = body.replace("True", "true").replace("False", "false")
        return f"dense<{body}> : {ttype(a.shape, 'i1')}"
    raw = np.ascontiguousarray(a).tobytes().hex().upper()
    return f'dense<"0x{raw}"> : {ttype(a.shape, ELEM[a.dtype])}'


def _signature(func):
    """(argument types, result types) of the function text `func`."""
    head = func[func.index("@main"):func.index("{")]
    args = re.findall(r"%\w+\s*:\s*(tensor<[^>]*>)", head.split("->")[0])
    rets = re.findall(r"tensor<[^>]*>", head.split("->")[1]) if "->" in head else []
    return args, rets


def _elem_of(t):
    return t[len("tensor<"):-1].split("x")[-1]


def _shape_of(t):
    parts = t[len("tensor<"):-1].split("x")[:-1]
    return tuple(int(p) for p in parts)


def reference(func, inputs, workdir):
    """Runs `func` (text of `func.func @main`) through MLIR's TOSA lowering;
    returns its results as numpy arrays of the result types."""
    args, rets = _signature(func)
    lines = [func.replace("@main", "@model", 1), "func.func @main() {"]
    names = []
    for i, a in enumerate(inputs):
        lines.append(f"  %in{i} = arith.constant {dense(a)}")
        names.append(f"%in{i}")
    lines.append(f"  %r:{len(rets)} = call @model({', '.join(names)}) : "
                 f"({', '.join(args)}) -> ({', '.join(rets)})")
    for j, t in enumerate(rets):
        shape, elem = _shape_of(t), _elem_of(t)
        i32 = ttype(shape, "i32")
        v = f"%r#{j}"
        if elem == "f16":
            lines.append(f"  %e{j} = arith.extf {v} : {t} to {ttype(shape, 'f32')}")
            v, t, elem = f"%e{j}", ttype(shape, "f32"), "f32"
        if elem == "f32":
            lines.append(f"  %b{j} = arith.bitcast {v} : {t} to {i32}")
        elif elem == "i1":
            lines.append(f"  %b{j} = arith.extui {v} : {t} to {i32}")
        elif elem in ("i8", "i16"):
            lines.append(f"  %b{j} = arith.extsi {v} : {t} to {i32}")
        elif elem == "i32":
            lines.append(f"  %b{j} = tensor.cast {v} : {t} to {t}")
        else:
            raise ValueError(f"result type {t} is not handled")
        lines.append(f"  %m{j} = bufferization.to_buffer %b{j} : {i32} to "
                     f"memref<{i32[len('tensor<'):-1]}>")
        lines.append(f"  %u{j} = memref.cast %m{j} : memref<{i32[len('tensor<'):-1]}>"
                     " to memref<*xi32>")
        lines.append(f"  call @printMemrefI32(%u{j}) : (memref<*xi32>) -> ()")
    lines += ["  return", "}",
              "func.func private @printMemrefI32(memref<*xi32>) "
              "attributes { llvm.emit_c_interface }"]
    src = os.path.join(workdir, "ref.mlir")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    low = os.path.join(workdir, "ref.ll.mlir")
    r = subprocess.run([MLIR_OPT, src, f"--pass-pipeline={PIPELINE}", "-o", low],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"mlir-opt (reference) failed:\n{r.stderr}"
    r = subprocess.run([MLIR_RUNNER, low, "-e", "main", "-entry-point-result=void",
                        f"-shared-libs={RUNNER_LIBS}"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"mlir-runner (reference) failed:\n{r.stderr}"
    chunks = r.stdout.split("Unranked Memref")[1:]
    assert len(chunks) == len(rets), r.stdout
    outs = []
    for chunk, t in zip(chunks, rets):
        data = chunk[chunk.index("data =") + len("data ="):]
        vals = np.array([int(x) for x in re.findall(r"-?\d+", data)], dtype=np.int64)
        shape, elem = _shape_of(t), _elem_of(t)
        if elem in ("f32", "f16"):
            a = vals.astype(np.int32).view(np.float32).reshape(shape)
        else:
            a = vals.astype(NP[elem]).reshape(shape)
        outs.append(a)
    return outs


def save_npz(path, arrays):
    """np.savez, writing ml_dtypes arrays (float8_e4m3fn, ...) with their
    type name as the header's descr (numpy would write '<V1'; docs/cli.md)."""
    with zipfile.ZipFile(path, "w") as z:
        for name, a in arrays.items():
            a = np.asarray(a, order="C")
            buf = io.BytesIO()
            if a.dtype.type.__module__ == "ml_dtypes":
                np.lib.format.write_array_header_1_0(
                    buf, {"descr": a.dtype.name, "fortran_order": False, "shape": a.shape})
                buf.write(a.tobytes())
            else:
                np.lib.format.write_array(buf, a)
            z.writestr(name + ".npy", buf.getvalue())


def strata(func, inputs, workdir, optimize=True):
    """Imports `func` with `strata import` and runs it with `strata run-ref`;
    returns (results, the optimized model's text)."""
    model = os.path.join(workdir, "model.mlir")
    with open(model, "w") as f:
        f.write(func + "\n")
    out_dir = os.path.join(workdir, "top")
    r = subprocess.run([os.path.join(BIN, "strata"), "import", model, "-o", out_dir],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"strata import failed:\n{r.stderr}"
    save_npz(os.path.join(workdir, "in.npz"),
             {f"input{i}": a for i, a in enumerate(inputs)})
    name = "model.mlir" if optimize else "model_origin.mlir"
    out = os.path.join(workdir, "out.npz")
    r = subprocess.run([os.path.join(BIN, "strata"), "run-ref",
                        os.path.join(out_dir, name), "--input",
                        os.path.join(workdir, "in.npz"), "--output", out],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"strata run-ref failed:\n{r.stderr}"
    with np.load(out) as z:
        results = [z[f"output{i}"] for i in range(len(z.files))]
    with open(os.path.join(out_dir, name)) as f:
        text = f.read()
    return results, text


def check(func, inputs):
    """Runs both and compares; returns the optimized Top model's text."""
    with tempfile.TemporaryDirectory() as d:
        ref = reference(func, inputs, d)
        got, text = strata(func, inputs, d)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert g.shape == r.shape, (g.shape, r.shape)
        if r.dtype.kind == "f":
            np.testing.assert_allclose(g.astype(np.float32), r, rtol=1e-5,
                                       atol=1e-6, equal_nan=True)
        else:
            np.testing.assert_array_equal(g.astype(np.int64), r.astype(np.int64))
    return text
