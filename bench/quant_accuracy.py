#!/usr/bin/env python3
"""int8 / bf16 accuracy against f32 on real images: the table of
docs/quantization.md "Accuracy".

For each model: calibrates on the CALIBRATION images of bench/real_images.py
(`strata calibrate --method M`, every M asked), compiles the model for the
CPU in f32, bf16 and int8 per method (`strata compile --target cpu
--quantize ...`; with `--search M` also int8 with the layers that
`strata quantize --search-sensitive` keeps in float, searched on two
calibration images with detections), runs each artifact on
the EVALUATION images (`strata run`) and compares it with the f32 artifact:

- cosine: of the flattened outputs, the minimum over the evaluation images;
- classifiers (ResNet-50, MobileNetV2): top-1 agreement with f32;
- detectors: the boxes above the score threshold, each matched one to one
  with a box of the f32 model at IoU >= 0.9 (same class), counted over the
  evaluation images: "matched / f32 boxes (+ int8 boxes without a match)".
  PP-OCRv4 det (rapidocr, 320x320): its probability map thresholded at 0.3
  (DB's binarization), 4-connected components, each one's bounding box
  kept when its mean probability is >= 0.5 (DB's box threshold) and both
  sides >= 3 pixels. YOLOX (ddddocr's common_det.onnx, 416x416): decoded as
  ddddocr decodes it (grid offsets, exp sizes, score = objectness x class),
  score >= --yolo-score (default 0.5), NMS at IoU 0.45 as ddddocr.

    /path/to/python bench/quant_accuracy.py [--models resnet50,mobilenetv2,ppocrv4_det,yolox]
        [--methods minmax,percentile,kl] [--percentile 99.99] [--bias-correction]
        [--search percentile] [--search-activations]
        [--target-cosine 0.99]
        [--more-text]  (the detectors also on 5 more page crops)
        [--calibrate 9] [--work build/quant-accuracy] [--bin build/bin] [--verbose]
        [--target cpu|npu-sim]  (where the quantized variants run; the f32
                                 reference always runs on the CPU. npu-sim:
                                 compiled with --target npu-sim, run with
                                 --device npu-sim, the simulator's bytes)
        [--float-activations]  (also each int8 method with --float-activations)
        [--table-input-int16]  (also each int8 method with --table-input int16)
        [--variant LABEL=OPTIONS]  (also each int8 method with OPTIONS; repeatable)
        [--keep-float T1,T2]  (also each int8 method with --keep-float T1,T2,
                               e.g. a `<name>_preact` to keep one activation float)
        [--per-channel-tables]  (also each int8 method with --per-channel-tables:
                                 per-channel activation-table inputs)

Needs Pillow, scikit-image's sample images (skimage/data, read as files),
rapidocr-onnxruntime and ddddocr (their model files) in the running Python:
scripts/requirements.txt and scripts/requirements-models.txt, which
scripts/setup.sh installs in .venv. Nothing is downloaded. Prints a
Markdown table; about 10 min on 2 cores (nice it on a shared machine).
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import real_images  # noqa: E402


def package_file(package, *parts):
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    p = os.path.join(list(spec.submodule_search_locations)[0], *parts)
    return p if os.path.exists(p) else None


MODELS = {
    "resnet50": dict(kind="cls", input="input", prep=real_images.imagenet),
    "mobilenetv2": dict(kind="cls", input="input", prep=real_images.imagenet),
    "ppocrv4_det": dict(kind="db", input="x", prep=real_images.ppocr_det,
                        shapes="x:1x3x320x320", search=["page:0:.5:0:.5", "page:0:.5:.5:1"],
                        package=("rapidocr_onnxruntime", "models",
                                 "ch_PP-OCRv4_det_infer.onnx")),
    "yolox": dict(kind="yolox", input="images", prep=real_images.yolox,
                  search=["page:0:.5:0:.5", "motorcycle_left"],
                  package=("ddddocr", "common_det.onnx")),
}


def run(cmd, verbose=False):
    if verbose:
        print("+", " ".join(map(str, cmd)), file=sys.stderr)
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{r.stderr}")
    return r


#===----------------------------------------------------------------------===#
# Boxes
#===----------------------------------------------------------------------===#

def iou(a, b):
    """IoU of two [x1, y1, x2, y2] boxes (continuous coordinates)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def match_boxes(ref, got, threshold=0.9):
    """One-to-one greedy matching by IoU (best pairs first) of boxes of the
    same class: (matched, unmatched ref scores, unmatched got scores)."""
    pairs = []
    for i, r in enumerate(ref):
        for j, g in enumerate(got):
            if r[5] == g[5]:
                v = iou(r, g)
                if v >= threshold:
                    pairs.append((v, i, j))
    used_r, used_g = set(), set()
    for v, i, j in sorted(pairs, reverse=True):
        if i not in used_r and j not in used_g:
            used_r.add(i)
            used_g.add(j)
    return (len(used_r), [ref[i][4] for i in range(len(ref)) if i not in used_r],
            [got[j][4] for j in range(len(got)) if j not in used_g])


def db_boxes(prob, bin_thresh=0.3, box_thresh=0.5, min_side=3):
    """[x1, y1, x2, y2, score, 0] of the 4-connected components of prob > bin_thresh."""
    prob = prob.reshape(prob.shape[-2:])
    fg = prob > bin_thresh
    label = np.zeros(prob.shape, np.int32)
    boxes = []
    h, w = prob.shape
    for y0, x0 in zip(*np.nonzero(fg)):
        if label[y0, x0]:
            continue
        n = len(boxes) + 1
        label[y0, x0] = n
        stack, ys, xs = [(y0, x0)], [], []
        while stack:
            y, x = stack.pop()
            ys.append(y)
            xs.append(x)
            for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                if 0 <= yy < h and 0 <= xx < w and fg[yy, xx] and not label[yy, xx]:
                    label[yy, xx] = n
                    stack.append((yy, xx))
        ys, xs = np.array(ys), np.array(xs)
        box = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1, float(prob[ys, xs].mean()), 0]
        boxes.append(box)
    return [b for b in boxes
            if b[4] >= box_thresh and b[2] - b[0] >= min_side and b[3] - b[1] >= min_side]


def yolox_boxes(out, size=416, score_thresh=0.5, nms_thresh=0.45):
    """ddddocr's YOLOX decoding: [x1, y1, x2, y2, score, class] after NMS."""
    out = out.reshape(-1, out.shape[-1]).astype(np.float64)
    grids, strides = [], []
    for s in (8, 16, 32):
        n = size // s
        xv, yv = np.meshgrid(np.arange(n), np.arange(n))
        grids.append(np.stack((xv, yv), 2).reshape(-1, 2))
        strides.append(np.full((n * n, 1), s))
    grids, strides = np.concatenate(grids), np.concatenate(strides)
    xy = (out[:, :2] + grids) * strides
    wh = np.exp(np.minimum(out[:, 2:4], 30)) * strides
    scores = out[:, 4:5] * out[:, 5:]
    cls = scores.argmax(1)
    score = scores[np.arange(len(cls)), cls]
    keep = np.nonzero(score >= score_thresh)[0]
    keep = keep[np.argsort(-score[keep], kind="stable")]
    boxes = [[*(xy[i] - wh[i] / 2), *(xy[i] + wh[i] / 2), float(score[i]), int(cls[i])]
             for i in keep]
    kept = []
    for b in boxes:
        if all(iou(b, k) <= nms_thresh for k in kept):
            kept.append(b)
    return kept


#===----------------------------------------------------------------------===#
# Measurements
#===----------------------------------------------------------------------===#

def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def boxes_of(kind, out, args):
    if kind == "db":
        return db_boxes(out)
    return yolox_boxes(out, score_thresh=args.yolo_score)


def image_anchors(x, size=416):
    """YOLOX anchors whose grid cell holds image pixels (not only the grey
    114 of the letterbox padding), from the model input x."""
    x = x.reshape(3, size, size)
    out = []
    for s in (8, 16, 32):
        n = size // s
        blk = x.reshape(3, n, s, n, s)
        out.append((np.abs(blk - 114).max(axis=(0, 2, 4)) != 0).ravel())
    return np.concatenate(out)


def compare(kind, refs, gots, args, inputs=None):
    """The row's cells: min cosine and the agreement. PP-OCR det's cosine is
    taken over the images where the f32 model finds text: elsewhere its map
    holds only values near 0 (1e-6 and below) whose cosine measures rounding
    noise, not the detector."""
    cosines = [cosine(r, g) for r, g in zip(refs, gots)
               if kind != "db" or boxes_of(kind, r, args)]
    cos = min(cosines)
    mean_cell = f"; mean cosine {np.mean(cosines):.5f} over {len(cosines)}" if args.more_text \
        and kind != "cls" else ""
    if args.verbose:
        print("  per image: " + " ".join(f"{c:.5f}" for c in cosines), file=sys.stderr)
    if kind == "cls":
        same = sum(int(np.argmax(r) == np.argmax(g)) for r, g in zip(refs, gots))
        return cos, f"top-1 {same}/{len(refs)}"
    matched = total = extra = 0
    missed_scores, extra_scores = [], []
    for r, g in zip(refs, gots):
        rb, gb = boxes_of(kind, r, args), boxes_of(kind, g, args)
        m, miss, ext = match_boxes(rb, gb)
        matched += m
        total += len(rb)
        extra += len(ext)
        missed_scores += miss
        extra_scores += ext
    cell = f"boxes {matched}/{total}" + (f" (+{extra})" if extra else "") + mean_cell
    if kind == "yolox":
        inside = min(cosine(r.reshape(-1, 6)[a], g.reshape(-1, 6)[a])
                     for r, g, a in zip(refs, gots, map(image_anchors, inputs)))
        cell += f"; cosine over the anchors inside the image {inside:.5f}"
    if missed_scores or extra_scores:
        cell += " [unmatched scores: f32 " + ",".join(f"{s:.2f}" for s in missed_scores) + \
            "; q " + ",".join(f"{s:.2f}" for s in extra_scores) + "]"
    return cos, cell


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="resnet50,mobilenetv2,ppocrv4_det,yolox")
    ap.add_argument("--methods", default="minmax,percentile,kl")
    ap.add_argument("--percentile", default="",
                    help="strata calibrate --percentile for the percentile method")
    ap.add_argument("--bias-correction", action="store_true",
                    help="strata calibrate --bias-correction for every int8 method")
    ap.add_argument("--search", default="",
                    help="also int8 of this method with --search-sensitive (detectors)")
    ap.add_argument("--search-activations", action="store_true",
                    help="the search's candidates are the int8 activation tables "
                         "(strata quantize --search-activations) instead of the layers")
    ap.add_argument("--search-models", default="ppocrv4_det,yolox")
    ap.add_argument("--target-cosine", type=float, default=0.99)
    ap.add_argument("--calibrate", type=int, default=len(real_images.CALIBRATION))
    ap.add_argument("--evaluate", type=int, default=len(real_images.EVALUATION))
    ap.add_argument("--more-text", action="store_true",
                    help="the detectors are also evaluated on TEXT_EVALUATION of "
                         "bench/real_images.py (5 more page crops; docs/quantization.md)")
    ap.add_argument("--more-text-calibration", action="store_true",
                    help="the detectors are also calibrated on TEXT_CALIBRATION of "
                         "bench/real_images.py (4 more crops of the page's top half)")
    ap.add_argument("--yolo-score", type=float, default=0.5)
    ap.add_argument("--no-bf16", action="store_true")
    ap.add_argument("--float-activations", action="store_true",
                    help="also int8 with --float-activations (fused activations in "
                         "float from the int32 accumulator, no int8 table)")
    ap.add_argument("--table-input-int16", action="store_true",
                    help="also int8 with --table-input int16 (experimental: the "
                         "fused activations' input requantized to int16)")
    ap.add_argument("--variant", action="append", default=[],
                    help="LABEL=OPTIONS: also each int8 method compiled with these "
                         "options after --quantize int8 ({table} = the method's table)")
    ap.add_argument("--keep-float", default="",
                    help="also int8 with --keep-float of these tensors (comma "
                         "separated; a '<name>_preact' keeps just that fused "
                         "activation in float, its conv int8)")
    ap.add_argument("--per-channel-tables", action="store_true",
                    help="also each int8 method with --per-channel-tables (per-channel "
                         "inputs of the activation tables, from the table's @range rows)")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "quant-accuracy"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--target", default="cpu", choices=["cpu", "npu-sim"])
    args = ap.parse_args()
    why = real_images.missing()
    if why:
        sys.exit(f"quant_accuracy: {why}")
    strata = os.path.join(args.bin, "strata")
    os.makedirs(args.work, exist_ok=True)
    v = args.verbose
    cal_names = real_images.CALIBRATION[:args.calibrate]
    eval_names = real_images.EVALUATION[:args.evaluate]
    rows = []
    pct = ["--percentile", args.percentile] if args.percentile else []
    bc = ["--bias-correction"] if args.bias_correction else []
    for m in args.models.split(","):
        spec = MODELS[m]
        t0 = time.time()
        if "package" in spec:
            onnx_path = package_file(*spec["package"])
            if onnx_path is None:
                sys.exit(f"quant_accuracy: {m}: {spec['package'][0]} is not installed")
        else:
            onnx_path = os.path.join(args.work, m + ".onnx")
            if not os.path.exists(onnx_path):
                run([sys.executable, os.path.join(ROOT, "scripts", "build-bench-models.py"),
                     args.work, "--models", m], v)
        shapes = ["--input-shapes", spec["shapes"]] if "shapes" in spec else []
        d = os.path.join(args.work, m)
        m_eval = eval_names + (real_images.TEXT_EVALUATION
                               if args.more_text and spec["kind"] != "cls" else [])
        for sub in ("cal", "eval", "out"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        cal = []
        for name in cal_names + (real_images.TEXT_CALIBRATION if args.more_text_calibration
                                 and spec["kind"] != "cls" else []):
            p = os.path.join(d, "cal", real_images.file_stem(name) + ".npz")
            np.savez(p, **{spec["input"]: spec["prep"](name)})
            cal.append(p)
        evals = []
        for name in m_eval:
            p = os.path.join(d, "eval", real_images.file_stem(name) + ".npz")
            np.savez(p, **{spec["input"]: spec["prep"](name)})
            evals.append(p)

        variants = [("f32", [])]
        if not args.no_bf16:
            variants.append(("bf16", ["--quantize", "bf16"]))
        for method in args.methods.split(","):
            table = os.path.join(d, f"table_{method}.txt")
            run([strata, "calibrate", onnx_path, *shapes, "--method", method,
                 *(pct if method == "percentile" else []), *bc, "-o", table] +
                sum((["--data", p] for p in cal), []), v)
            label = (f"int8 {method}" + (f" {args.percentile}" if pct and
                                         method == "percentile" else "") +
                     (" + bias correction" if bc else ""))
            variants.append((label, ["--quantize", "int8", "--calibration", table]))
            if args.float_activations:
                variants.append((label + " float-act",
                                 ["--quantize", "int8", "--calibration", table,
                                  "--float-activations"]))
            if args.per_channel_tables:
                variants.append((label + " per-channel tables",
                                 ["--quantize", "int8", "--calibration", table,
                                  "--per-channel-tables"]))
            if args.table_input_int16:
                variants.append((label + " table-i16",
                                 ["--quantize", "int8", "--calibration", table,
                                  "--table-input", "int16"]))
            for spec_v in args.variant:
                name_v, _, opts_v = spec_v.partition("=")
                opts_v = opts_v.replace("{table}", table).split()
                if "--calibration" not in opts_v:
                    opts_v = ["--calibration", table] + opts_v
                variants.append((label + " " + name_v, ["--quantize", "int8", *opts_v]))
            if args.keep_float:
                variants.append((label + " keep-float",
                                 ["--quantize", "int8", "--calibration", table,
                                  "--keep-float", args.keep_float]))
        if args.search and m in args.search_models.split(","):
            table = os.path.join(d, f"table_{args.search}.txt")
            if not os.path.exists(table) or args.search not in args.methods.split(","):
                run([strata, "calibrate", onnx_path, *shapes, "--method", args.search,
                     *(pct if args.search == "percentile" else []), "-o", table] +
                    sum((["--data", p] for p in cal), []), v)
            sdir = os.path.join(d, "search")
            r = run([strata, "quantize", onnx_path, *shapes, "--quantize", "int8",
                     "--calibration", table, "--search-sensitive",
                     "--target-cosine", args.target_cosine, "-o", sdir, "--name", m,
                     *(["--search-activations"] if args.search_activations else [])] +
                    sum((["--data", os.path.join(d, "cal", real_images.file_stem(n) + ".npz")]
                         for n in spec["search"]), []), v)
            with open(os.path.join(sdir, "search.log"), "w") as f:
                f.write(r.stdout)
            keep = os.path.join(sdir, m + "_keep_float.txt")
            kept = [ln for ln in open(keep) if ln.strip() and not ln.startswith("#")]
            what = "activations" if args.search_activations else "search"
            variants.append((f"int8 {args.search} + {what} ({len(kept)} kept)",
                             ["--quantize", "int8", "--calibration", table,
                              "--keep-float-file", keep]))

        outs = {}
        for label, opts in variants:
            art = os.path.join(d, label.split(" (")[0].replace(" ", "_").replace("+", "s")
                               + ".strata")
            target = "cpu" if label == "f32" else args.target
            device = ["--device", "npu-sim"] if target == "npu-sim" else []
            run([strata, "compile", onnx_path, *shapes, "--target", target, *opts, "-o", art], v)
            outs[label] = []
            for p in evals:
                o = os.path.join(d, "out", os.path.basename(p))
                run([strata, "run", art, "--input", p, "--output", o, *device], v)
                npz = np.load(o)
                outs[label].append(npz[npz.files[0]].copy())
        ref = outs["f32"]
        if spec["kind"] != "cls":
            n = [len(boxes_of(spec["kind"], r, args)) for r in ref]
            print(f"{m}: f32 finds {sum(n)} boxes on {len(ref)} evaluation images "
                  f"({', '.join(f'{a} {b}' for a, b in zip(m_eval, n))})", file=sys.stderr)
        for label, _ in variants[1:]:
            cos, agree = compare(spec["kind"], ref, outs[label], args,
                                 [np.load(p)[spec["input"]] for p in evals])
            rows.append((m, label, cos, agree))
            print(f"{m:12s} {label:32s} cosine {cos:.5f}  {agree}", file=sys.stderr)
        print(f"{m}: {time.time() - t0:.0f} s", file=sys.stderr)

    print(f"\ncalibration: {', '.join(cal_names)}; evaluation: {', '.join(eval_names)}"
          f"{' (detectors also ' + ', '.join(real_images.TEXT_EVALUATION) + ')' if args.more_text else ''}; "
          f"quantized variants on {args.target}\n")
    print("| model | precision | min cosine vs f32 | agreement with f32 |")
    print("|---|---|---|---|")
    for m, label, cos, agree in rows:
        print(f"| {m} | {label} | {cos:.5f} | {agree} |")


if __name__ == "__main__":
    main()
