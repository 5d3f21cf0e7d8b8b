#!/usr/bin/env python3
"""Per-tensor choice of the calibration range by the output cosine: a greedy
search over the rows of a calibration table (docs/quantization.md, "A
per-tensor range search").

Starts from a base table (e.g. `strata calibrate --method percentile
--percentile 99.995 --bias-correction`) and, for each tensor row, tries the
same tensor's row from each alternative table (other methods or
percentiles, calibrated on the same samples); a row is replaced when the
int8 model (`strata compile --target cpu --quantize int8 --calibration`,
run by `strata run`) then gets a higher mean cosine of its first output
against the f32 model's over the search inputs, by more than --min-gain.
Only the tensor rows change (the `@mean` / `@range` rows stay the base's),
so the result is an ordinary table: every layer int8, integer-only tables.
Rows are tried in order of how much their threshold differs between the
base and the alternatives (largest first), at most --rows of them.

With --table16 (no --alt needed) the candidates are instead the fused
activations (the `<name>_preact` rows): each in turn gets an `@table16
<name>_preact` row (its table reads an int16 input, docs/quantization.md
"Int16 table inputs"), kept when the mean cosine rises by more than
--min-gain; the other tables stay int8.

Search on calibration inputs, evaluate on others (bench/quant_accuracy.py
--variant "search=--calibration OUT").

    python bench/range_search.py MODEL --base T0.txt (--alt T1.txt [--alt T2.txt] | --table16)
        --data a.npz [--data b.npz ...] -o OUT.txt [--input-shapes name:DxD]
        [--rows 40] [--min-gain 1e-4] [--work build/range-search] [--bin build/bin]

Needs only numpy; each trial is one compile (~1-3 s) and one run per input.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"range_search: failed: {' '.join(map(str, cmd))}\n{r.stderr}")


def read_table(path):
    """(lines, {tensor name: line index}) of a calibration table; tensor rows
    are the lines that are neither comments nor `@` rows."""
    lines = open(path).read().splitlines()
    rows = {}
    for i, ln in enumerate(lines):
        f = ln.split()
        if f and not ln.startswith("#") and not f[0].startswith("@"):
            rows[f[0]] = i
    return lines, rows


def threshold(line):
    return float(line.split()[1])


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--base", required=True)
    ap.add_argument("--alt", action="append", default=[])
    ap.add_argument("--table16", action="store_true",
                    help="choose the activations whose table reads int16 (@table16 rows)")
    ap.add_argument("--data", action="append", required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--input-shapes", default="")
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--min-gain", type=float, default=1e-4)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "range-search"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = ap.parse_args()
    strata = os.path.join(args.bin, "strata")
    for what, paths in (("model", [args.model]), ("table", [args.base, *args.alt]),
                        ("input", args.data), ("strata binary", [strata])):
        for p in paths:
            if not os.path.isfile(p):
                sys.exit(f"range_search: {what} '{p}' does not exist")
    shapes = ["--input-shapes", args.input_shapes] if args.input_shapes else []
    os.makedirs(args.work, exist_ok=True)

    def outputs(opts):
        art = os.path.join(args.work, "m.strata")
        run([strata, "compile", args.model, *shapes, "--target", "cpu", *opts, "-o", art])
        outs = []
        for p in args.data:
            o = os.path.join(args.work, "out.npz")
            run([strata, "run", art, "--input", p, "--output", o])
            z = np.load(o)
            outs.append(z[z.files[0]].copy())
        return outs

    refs = outputs([])

    def score(lines):
        t = os.path.join(args.work, "trial.txt")
        with open(t, "w") as f:
            f.write("\n".join(lines) + "\n")
        return float(np.mean([cosine(r, g) for r, g in
                              zip(refs, outputs(["--quantize", "int8", "--calibration", t]))]))

    if not args.alt and not args.table16:
        sys.exit("range_search: give --alt TABLE (one or more) or --table16")
    lines, rows = read_table(args.base)
    if args.table16:
        best = score(lines)
        print(f"base: mean cosine {best:.5f} over {len(args.data)} inputs", file=sys.stderr)
        chosen = []
        for name in [n for n in rows if n.endswith("_preact")][:args.rows]:
            s = score(lines + [f"@table16 {n}" for n in chosen + [name]])
            if s > best + args.min_gain:
                best = s
                chosen.append(name)
                print(f"  @table16 {name} -> {best:.5f}", file=sys.stderr)
        with open(args.output, "w") as f:
            f.write("\n".join(lines + [f"@table16 {n}" for n in chosen]) + "\n")
        print(f"{len(chosen)} int16 tables; mean cosine {best:.5f}; wrote {args.output}",
              file=sys.stderr)
        return
    alts = [read_table(p) for p in args.alt]
    cands = []
    for name, i in rows.items():
        ts = [threshold(a[0][a[1][name]]) for a in alts if name in a[1]]
        if ts:
            t0 = threshold(lines[i])
            cands.append((max(abs(np.log(t / t0)) if t0 > 0 and t > 0 else 0 for t in ts), name))
    cands.sort(reverse=True)
    best = score(lines)
    print(f"base: mean cosine {best:.5f} over {len(args.data)} inputs", file=sys.stderr)
    changed = []
    for _, name in cands[:args.rows]:
        i = rows[name]
        keep = lines[i]
        for k, (alines, arows) in enumerate(alts):
            if name not in arows or alines[arows[name]] == keep:
                continue
            lines[i] = alines[arows[name]]
            s = score(lines)
            if s > best + args.min_gain:
                best, keep = s, lines[i]
                changed.append((name, args.alt[k]))
                print(f"  {name}: {os.path.basename(args.alt[k])} -> {best:.5f}", file=sys.stderr)
        lines[i] = keep
    with open(args.output, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(changed)} rows replaced; mean cosine {best:.5f}; wrote {args.output}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
