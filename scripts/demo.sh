#!/usr/bin/env bash
# `make demo`: builds a small CNN with the TpuLang C++ API (examples/
# tpulang-cnn), shows the generated Top model, runs it through the reference
# interpreter on a seeded random input, and checks the result against an
# independent numpy implementation of the same CNN (weights read back from the
# generated npz).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PY=.venv/bin/python
OUT="$BUILD/demo"
MODEL="$OUT/cnn_origin.mlir"

for f in "$BUILD/bin/tpulang-cnn" "$BUILD/bin/strata" "$PY"; do
  [ -x "$f" ] || { echo "demo: $f not found; run 'make build' first" >&2; exit 1; }
done
rm -rf "$OUT"
mkdir -p "$OUT"

echo "== 1. Build the CNN with the TpuLang C++ API (examples/tpulang-cnn)"
"$BUILD/bin/tpulang-cnn" "$OUT"

echo
echo "== 2. The generated Top model: $MODEL"
cat "$MODEL"

echo
echo "== 3. A seeded random input: $OUT/input.npz"
"$PY" - "$OUT/input.npz" <<'PYEOF'
import sys
import numpy as np
rng = np.random.default_rng(1234)
image = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
np.savez(sys.argv[1], image=image)
print("image", image.shape, image.dtype, "mean %.4f" % image.mean())
PYEOF

echo
echo "== 4. strata run-ref"
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
echo "== 5. Independent numpy reference of the same CNN: $OUT/reference.npz"
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
echo "== 6. strata compare (numpy reference vs. strata run-ref)"
"$BUILD/bin/strata" compare "$OUT/reference.npz" "$OUT/output.npz"
echo
echo "demo: OK (outputs in $OUT)"
