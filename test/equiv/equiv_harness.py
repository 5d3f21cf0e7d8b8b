"""Harness for the pass-equivalence tests: the Top passes, the models they
run on, and `strata check-equiv` between a model and what a pass made of it.

Models:
- the lit inputs of the Top passes (test/Dialect/Top/Transforms/*.mlir and the
  folding, inlining and shape-inference tests in test/Dialect/Top/), split at
  `// -----`. Weights whose data is only in a (missing) weight file get
  seeded random data written inline, so the chunk runs and the folding passes
  see constants; a chunk with several public functions becomes one model per
  function (the others made private), and a chunk whose only functions are
  private (composites) one model per function, with a public `@main` calling
  it. A chunk is used when
  `check-equiv` of it against itself passes (it parses, has an entry
  function and runs on random inputs);
- real models, imported with `strata import --no-optimize` (see
  test_pass_equivalence.py).
"""
import concurrent.futures
import os
import re
import subprocess
import sysconfig
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
STRATA_OPT = os.path.join(BIN, "strata-opt")
PASSES_TD = os.path.join(ROOT, "include", "strata", "Dialect", "Top", "Transforms", "Passes.td")
JOBS = int(os.environ.get("STRATA_EQUIV_JOBS", "2"))

# (test id, pass name, options): every pass of Passes.td (test_every_pass_is_covered
# checks that), MLIR's canonicalize and cse (they run Top's folders and
# canonicalization patterns), and the top-optimize pipeline.
PASSES = [
    ("top-shape-infer", "top-shape-infer", ""),
    ("top-fuse-composites", "top-fuse-composites", ""),
    ("top-inline-functions", "top-inline-functions", ""),
    ("top-fold-constants", "top-fold-constants", ""),
    ("top-fold-batchnorm", "top-fold-batchnorm", ""),
    ("top-fuse-activation", "top-fuse-activation", ""),
    ("top-fold-matmul-bias", "top-fold-matmul-bias", ""),
    ("top-fuse-idioms", "top-fuse-idioms", ""),
    ("top-fold-pad", "top-fold-pad", ""),
    ("top-convert-layout-nchw", "top-convert-layout", "target=nchw"),
    ("top-convert-layout-nhwc", "top-convert-layout", "target=nhwc"),
    ("top-sink-transposes", "top-sink-transposes", ""),
    ("top-fold-qdq", "top-fold-qdq", ""),
    ("canonicalize", "canonicalize", ""),
    ("cse", "cse", ""),
    ("top-optimize", "top-optimize", ""),
    ("top-optimize-nhwc", "top-optimize", "layout=nhwc"),
]
PASS_IDS = [p[0] for p in PASSES]

# Passes that change what a model computes by design, with where they are
# tested instead.
NOT_EQUIVALENT = {
    # int8 / bf16 / f16 rounding (docs/quantization.md): test/quant checks
    # the results against numpy and ONNX Runtime.
    "top-quantize": "test/quant",
}

# (pass id, lit model) -> why the pass stops with an error on it. Such a model
# is left out of that pass's comparison; any other failing strata-opt run
# fails the test.
KNOWN_PASS_ERRORS = {}  # none so far


def opt_flag(name, options):
    """The strata-opt flag: --top-convert-layout=target=nchw."""
    return f"--{name}" + (f"={options}" if options else "")


def pipeline(name, options):
    """The `strata compile --passes` element: top-convert-layout{target=nchw}."""
    return name + (f"{{{options}}}" if options else "")


def passes_in_td():
    """The pass names Passes.td defines."""
    with open(PASSES_TD) as f:
        return re.findall(r'Pass<"([\w-]+)"', f.read())


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


def parallel(fn, items):
    """fn over items on JOBS threads (each call runs a subprocess)."""
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        return list(pool.map(fn, items))


def check_equiv(a, b, runs=2, extra=()):
    """Runs `strata check-equiv A B`; returns the CompletedProcess. `--runs`
    in `extra` replaces `runs` (an option may be given only once)."""
    default = [] if "--runs" in extra else ["--runs", str(runs)]
    return run([STRATA, "check-equiv", str(a), str(b), *default, *extra])


def explain(r):
    """The interesting part of a failed check-equiv / strata-opt run."""
    lines = [l for l in (r.stdout + r.stderr).splitlines()
             if not l.startswith("  PASS") and not l.startswith("  input")]
    return "\n".join(lines[-25:])


#===----------------------------------------------------------------------===#
# Lit inputs
#===----------------------------------------------------------------------===#

LIT_FILES = sorted(
    [os.path.join("Transforms", f) for f in os.listdir(os.path.join(ROOT, "test", "Dialect", "Top", "Transforms"))
     if f.endswith(".mlir")]
    + [f for f in os.listdir(os.path.join(ROOT, "test", "Dialect", "Top"))
       if f.startswith(("fold-", "shape-infer", "inline-functions")) and f.endswith(".mlir")])

FILE_WEIGHT = re.compile(r'top\.Weight\(\)\s*\{name = "([^"]+)"\}\s*:\s*\(\)\s*->\s*tensor<([0-9x]*)(f32|f16|f64)>')
NUMPY_OF = {"f32": np.float32, "f16": np.float16, "f64": np.float64}


def inline_file_weights(text, seed):
    """Gives every f16/f32/f64 weight without data seeded random data in
    [-1, 1), written inline as a hex dense literal."""
    rng = np.random.default_rng(seed)

    def fill(m):
        name, dims, elem = m.group(1), m.group(2), m.group(3)
        shape = [int(d) for d in dims.split("x") if d]
        data = rng.uniform(-1, 1, shape).astype(NUMPY_OF[elem])
        ttype = f"tensor<{dims}{elem}>"
        return (f'top.Weight() {{name = "{name}", value = dense<"0x{data.tobytes().hex().upper()}"> '
                f': {ttype}}} : () -> {ttype}')
    return FILE_WEIGHT.sub(fill, text)


def split_top_level(s, sep=","):
    """Splits at `sep` outside <>, (), [] and {}."""
    parts, depth, cur = [], 0, ""
    for c in s:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def matching_paren(s, start):
    """Index of the parenthesis closing the one at `start`."""
    depth = 0
    for i in range(start, len(s)):
        if s[i] == "(":
            depth += 1
        elif s[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


PRIVATE_FUNC = re.compile(r"^\s*func\.func private @([\w\"\.]+)\(", re.M)


def private_signatures(text):
    """(name, [arg types], [result types]) of each private function with a
    body in `text`."""
    sigs = []
    for m in PRIVATE_FUNC.finditer(text):
        close = matching_paren(text, m.end() - 1)
        args = [a.split(":", 1)[1].strip() for a in split_top_level(text[m.end():close])]
        args = [re.sub(r"\s*\{.*\}$", "", a) for a in args]
        rest = text[close + 1:text.index("\n", close)]
        results = []
        r = re.match(r"\s*->\s*", rest)
        if r:
            rest = rest[r.end():]
            if rest.startswith("("):
                results = split_top_level(rest[1:matching_paren(rest, 0)])
            else:
                results = [split_top_level(rest.split(" attributes")[0].rstrip(" {"), " ")[0]]
        results = [re.sub(r"\s*\{.*\}$", "", t) for t in results]
        if text[close:text.index("\n", close)].rstrip().endswith("{"):  # has a body
            sigs.append((m.group(1), args, results))
    return sigs


def entry_wrappers(text):
    """The chunk as models with one entry function each: as it is if it has
    @main or one public function; with several public functions, one variant
    per function with the others made private; with only private functions,
    one variant per function with a body, plus a public @main calling it."""
    public = re.findall(r"func\.func @([\w\"\.]+)\(", text)  # private ones say so
    if "main" in public or len(public) == 1:
        return [text]
    if public:
        return [re.sub(r"func\.func @(?!" + re.escape(keep) + r"\()", "func.func private @", text)
                for keep in public]
    variants = []
    for name, args, results in private_signatures(text):
        params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
        operands = ", ".join(f"%a{i}" for i in range(len(args)))
        res = ", ".join(results)
        values = ", ".join(f"%r#{i}" for i in range(len(results))) if len(results) > 1 else "%r"
        count = f":{len(results)}" if len(results) > 1 else ""
        main = (f"func.func @main({params}) -> ({res}) {{\n"
                f"  %r{count} = func.call @{name}({operands}) : ({', '.join(args)}) -> ({res})\n"
                f"  return {values} : {res}\n}}\n")
        variants.append(text + "\n" + main)
    return variants


def lit_chunks(rel):
    """(label, text) of each chunk of test/Dialect/Top/<rel>, prepared as the
    module docstring says (not yet filtered for runnability)."""
    path = os.path.join(ROOT, "test", "Dialect", "Top", rel)
    with open(path) as f:
        text = f.read()
    out = []
    for i, chunk in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
        if "expected-error" in chunk:
            continue
        chunk = inline_file_weights(chunk, zlib.crc32(f"{rel}:{i}".encode()))
        variants = entry_wrappers(chunk)
        for j, v in enumerate(variants):
            out.append((f"{os.path.basename(rel)}#{i}" + (f".{j}" if len(variants) > 1 else ""), v))
    return out


def runnable_lit_models(workdir):
    """{lit file: [(label, path)]} of the chunks that run, written under
    `workdir`."""
    pending = []
    for rel in LIT_FILES:
        for label, text in lit_chunks(rel):
            path = os.path.join(workdir, re.sub(r"[^\w.-]", "_", label) + ".mlir")
            with open(path, "w") as f:
                f.write(text)
            pending.append((rel, label, path))
    ok = parallel(lambda t: check_equiv(t[2], t[2], runs=1).returncode == 0, pending)
    models = {}
    for (rel, label, path), good in zip(pending, ok):
        if good:
            models.setdefault(rel, []).append((label, path))
    return models


def split_output(text):
    """strata-opt --split-input-file output, one module per chunk."""
    return [c.strip() for c in re.split(r"^// -----\s*$", text, flags=re.M)]


# The real models (test_pass_equivalence.py's second half). They live here,
# not in conftest.py: several test folders have a conftest module, and
# `from conftest import` would get whichever pytest loaded last.
SITE = sysconfig.get_paths()["purelib"]
OCR = os.path.join(SITE, "rapidocr_onnxruntime", "models")

# name -> (ONNX file or bench:<name> of scripts/build-bench-models.py, --input-shapes)
REAL_MODELS = {
    "ppocr_cls": (os.path.join(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx"), "x:1x3x48x192"),
    "silero_vad": (os.path.join(SITE, "faster_whisper", "assets", "silero_vad_v6.onnx"),
                   "input:1x576"),
    "magika": (os.path.join(SITE, "magika", "models", "standard_v3_3", "model.onnx"),
               "bytes:1x2048"),
    "mobilenetv2": ("bench:mobilenetv2", None),
    # The larger ones only with STRATA_EQUIV_BIG=1 (`make test-equiv-big`).
    "ppocrv4_det": (os.path.join(OCR, "ch_PP-OCRv4_det_infer.onnx"), "x:1x3x320x320"),
    "ppocrv4_rec": (os.path.join(OCR, "ch_PP-OCRv4_rec_infer.onnx"), "x:1x3x48x320"),
    "resnet50": ("bench:resnet50", None),
    "bert4": ("bench:bert4", None),
}
BIG = {"ppocrv4_det", "ppocrv4_rec", "resnet50", "bert4"}


def real_model_names():
    big = os.environ.get("STRATA_EQUIV_BIG") == "1"
    return [n for n in REAL_MODELS if big or n not in BIG]
