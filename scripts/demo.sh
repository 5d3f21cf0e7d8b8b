#!/usr/bin/env bash
# `make demo`:
#  Part A, the main job: a real model shipped in a PyPI package (the PP-OCR
#  text-direction classifier of rapidocr-onnxruntime) is imported, compiled
#  for this CPU into one .strata artifact, run through the runtime, compared
#  with the reference interpreter and ONNX Runtime, and timed.
#  Part B: a small CNN built with the TpuLang C++ API (examples/tpulang-cnn)
#  runs through the reference interpreter and is checked against an
#  independent numpy implementation of the same CNN.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PY=.venv/bin/python
OUT="$BUILD/demo"
MODEL="$OUT/cnn_origin.mlir"
STRATA="$BUILD/bin/strata"

for f in "$BUILD/bin/tpulang-cnn" "$STRATA" "$PY"; do
  [ -x "$f" ] || { echo "demo: $f not found; run 'make build' first" >&2; exit 1; }
done
rm -rf "$OUT"
mkdir -p "$OUT"

SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
CLS="$SITE/rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx"
[ -f "$CLS" ] || { echo "demo: $CLS is missing; run scripts/setup.sh" >&2; exit 1; }

echo "=== Part A: a real model, compiled for this CPU"
echo
echo "== A1. strata import (ONNX -> Top, optimized): $CLS"
"$STRATA" import "$CLS" -o "$OUT/cls" --name cls --input-shapes x:1x3x48x192

echo
echo "== A2. strata compile --target cpu --report"
"$STRATA" compile "$OUT/cls/cls.mlir" --target cpu -o "$OUT/cls.strata" --report

echo
echo "== A3. strata inspect (signature and size)"
"$STRATA" inspect "$OUT/cls.strata" | sed -n '1,12p'

echo
echo "== A4. an input like the text lines the classifier sees: $OUT/cls_input.npz"
"$PY" - "$OUT/cls_input.npz" <<'PYEOF'
import sys
import numpy as np
rng = np.random.default_rng(7)
page = np.full((48, 192), 0.92, np.float32)
x = 4
while x < 188:                       # dark strokes of text on a light line
    w = int(rng.integers(2, 6))
    page[14:34, x:x + w] = rng.uniform(0.0, 0.25)
    x += w + int(rng.integers(1, 8))
page += rng.normal(0, 0.03, page.shape).astype(np.float32)
img = np.stack([page] * 3)[None]
np.savez(sys.argv[1], x=((np.clip(img, 0, 1) - 0.5) / 0.5).astype(np.float32))
print("x", img.shape)
PYEOF

echo
echo "== A5. strata run (the runtime, 1 thread, 50 runs) and strata run-ref (interpreter)"
RUN_LOG=$("$STRATA" run "$OUT/cls.strata" --input "$OUT/cls_input.npz" \
  --output "$OUT/cls_compiled.npz" --threads 1 --repeat 50)
echo "$RUN_LOG"
COMPILED_MS=$(echo "$RUN_LOG" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
START=$(date +%s%N)
"$STRATA" run-ref "$OUT/cls/cls.mlir" --input "$OUT/cls_input.npz" --output "$OUT/cls_ref.npz"
INTERP_MS=$(( ($(date +%s%N) - START) / 1000000 ))

echo
echo "== A6. compiled vs interpreter vs ONNX Runtime"
"$PY" scripts/demo-compare.py "$CLS" "$OUT/cls_input.npz" "$OUT/cls_compiled.npz" \
  "$OUT/cls_ref.npz" "$COMPILED_MS" "$INTERP_MS"

echo
echo "=== Part B: a CNN built with the TpuLang graph API"
echo
echo "== B1. Build the CNN with the TpuLang C++ API (examples/tpulang-cnn)"
"$BUILD/bin/tpulang-cnn" "$OUT"

echo
echo "== B2. The generated Top model: $MODEL"
cat "$MODEL"

echo
echo "== B3. A seeded random input: $OUT/input.npz"
"$PY" - "$OUT/input.npz" <<'PYEOF'
import sys
import numpy as np
rng = np.random.default_rng(1234)
image = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
np.savez(sys.argv[1], image=image)
print("image", image.shape, image.dtype, "mean %.4f" % image.mean())
PYEOF

echo
echo "== B4. strata run-ref"
"$BUILD/bin/strata" run-ref "$MODEL" --input "$OUT/input.npz" \
  --output "$OUT/output.npz"
"$PY" - "$OUT/output.npz" <<'PYEOF'
import sys
import numpy as np
np.set_printoptions(precision=5, suppress=True)
with np.load(sys.argv[1]) as z:
    for k in z.files:
        print(k, z[k].shape, z[k].dtype)
        print(z[k])
PYEOF

echo
echo "== B5. Independent numpy reference of the same CNN: $OUT/reference.npz"
"$PY" - "$OUT/input.npz" "$OUT/cnn_TOP_F32_all_weight.npz" \
  "$OUT/reference.npz" <<'PYEOF'
import sys
import numpy as np
x = np.load(sys.argv[1])["image"].astype(np.float64)
w = {k: v.astype(np.float64) for k, v in np.load(sys.argv[2]).items()}
# conv 3x3, stride 1, pad 1 (direct loops over the kernel window)
W, B = w["conv1_weight"], w["conv1_bias"].reshape(-1)
n, c, h, wd = x.shape
oc, _, kh, kw = W.shape
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
conv = np.zeros((n, oc, h, wd))
for i in range(kh):
    for j in range(kw):
        patch = xp[:, :, i:i + h, j:j + wd]             # n, c, h, w
        conv += np.einsum("nchw,oc->nohw", patch, W[:, :, i, j])
conv += B[None, :, None, None]
relu = np.maximum(conv, 0)
pool = relu.reshape(n, oc, h // 2, 2, wd // 2, 2).max(axis=(3, 5))
flat = pool.reshape(n, -1)
logits = flat @ w["fc_weight"] + w["fc_bias"]
np.savez(sys.argv[3], logits=logits.astype(np.float32))
np.set_printoptions(precision=5, suppress=True)
print("logits", logits.shape)
print(logits.astype(np.float32))
PYEOF

echo
echo "== B6. strata compare (numpy reference vs. strata run-ref)"
"$BUILD/bin/strata" compare "$OUT/reference.npz" "$OUT/output.npz"
echo
echo "demo: OK (outputs in $OUT)"
