#!/usr/bin/env python3
"""MAC utilization of a model on the npu-sim device, per layer and in all,
with the roofline beside it (docs/npu.md, "HL -> HW: measured").

    bench/npu_utilization.py QUANTIZED.mlir --input in.npz [--npu-config F]
        [--double-buffer] [--lram-reuse] [--no-fuse-dispatches]
        [--no-prefetch-weights] [--compare]
        [--top N]
        [--segmentation fused|unfused|off] [--compare-segmentation]

compiles the quantized Top model with `strata compile --target npu-sim`
(every NPU kernel one npu-sim dispatch), runs it with `strata run --device
npu-sim`, and prints one row per NPU dispatch:

- cycles, MACs, utilization = MACs / (cycles * slices * macs_per_slice)
  (the simulator's cycle model, docs/npu-sim.md);
- the roofline: compute-bound cycles MACs / peak, DMA-bound cycles DMA
  bytes / (dma_bytes_per_cycle * dma_efficiency); the roofline's bound is
  their maximum (perfect overlap of DMA and compute), its utilization
  MACs / (bound * peak); `DMA` marks the layers whose DMA bound exceeds
  their compute bound.

Totals: all NPU dispatches, and the convolutions only (the issue's ResNet-50
target is >= 70 % over its convolutions): the MACs and cycles of every
dispatch running a convolution (a conv -> conv dispatch counts once; a
fused residual add's cycles are in its conv's dispatch, so the target is
read with --no-fuse-dispatches, docs/npu.md "Measured"). With --compare the model is
compiled four times (plain, --npu-double-buffer, --npu-lram-reuse, both)
and the cycle gain of each flag is printed. Strided int8 kernels read
segmented inputs (hl-segment-strided, docs/npu.md) fused into their
producer by default; `--segmentation unfused` keeps standalone
hl.segmentation dispatches (`--no-segment-fusion`), `off` lets the kernels
take the stride directly (`--no-segmentation`); `--compare-segmentation`
compiles all three (with the other flags given) and prints the cycles of
each and what fusion saves. Cycles are simulated (not host
time), so the figures do not depend on the machine.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")

LINE = re.compile(
    r"npu-sim dispatch (\d+) '([^']*)': (\d+) cycles .*?, (\d+) MACs, MAC "
    r"utilization [\d.]+%, DMA (\d+) bytes, LRAM peak (\d+) bytes")


def sh(*args):
    r = subprocess.run(list(map(str, args)), capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{' '.join(map(str, args))} failed:\n{r.stdout}{r.stderr}")
    return r.stdout


def config_of(path):
    cfg = {"slices": 2, "macs_per_slice": 256, "dma_bytes_per_cycle": 8.0,
           "dma_efficiency": 0.65}
    if path:
        with open(path) as f:
            cfg.update(json.load(f))
    return cfg


def kernels_of(listing):
    """program name -> what it runs: its MAC kernels in order ("conv2d";
    "conv2d+depthwise_conv2d" for a conv -> conv dispatch,
    --npu-prefetch-weights), "+add" for a fused residual add
    (--npu-fuse-dispatches), else its first slice task's kernel."""
    out, seen, name = {}, {}, None
    mac = ("conv2d", "depthwise_conv2d", "fully_connected")
    for line in listing.splitlines():
        m = re.match(r"\s*npuhw.program @(\S+)", line)
        if m:
            name = m.group(1)
            seen[name] = []
        m = re.search(r'kernel = "(\w+)"', line)
        if m and name:
            k = m.group(1)
            if not seen[name]:
                # hl.segmentation's program: DMA and the pad value's rescale.
                seen[name].append("segmentation" if 'name = "pad_value"' in line
                                  else k)
            elif seen[name][0] in mac and k not in seen[name] and (
                    k in mac or k == "add") and (
                    k == "add" or re.search(r'name = "tile0\.s0"', line)):
                seen[name].append(k)
    for n, ks in seen.items():
        if ks:
            out[n] = "+".join(ks)
    return out


def measure(model, inp, npu_config, flags, work):
    common = [model, "--target", "npu-sim", "--no-optimize"]
    if npu_config:
        common += ["--npu-config", npu_config]
    common += list(flags)
    tag = "_".join(f.strip("-") for f in flags) or "plain"
    art = os.path.join(work, f"m_{tag}.strata")
    sh(STRATA, "compile", *common, "-o", art)
    listing = sh(STRATA, "compile", *common, "--emit", "hw", "-o", "-")
    out = sh(STRATA, "run", art, "--input", inp, "--output",
             os.path.join(work, f"out_{tag}.npz"), "--device", "npu-sim")
    kernels = kernels_of(listing)
    rows = []
    for m in LINE.finditer(out):
        _, name, cycles, macs, dma, peak = m.groups()
        rows.append(dict(name=name, kernel=kernels.get(name, "?"),
                         cycles=int(cycles), macs=int(macs), dma=int(dma),
                         lram=int(peak)))
    total = re.search(r"npu-sim total: (\d+) cycles", out)
    return rows, int(total.group(1)) if total else 0


def table(rows, cfg, top):
    peak = cfg["slices"] * cfg["macs_per_slice"]
    bw = cfg["dma_bytes_per_cycle"] * cfg["dma_efficiency"]
    print(f"{'layer':40s} {'kernel':18s} {'cycles':>10s} {'MMACs':>8s} "
          f"{'util':>6s} {'roof':>6s} {'bound':>5s} {'DMA KiB':>8s}")
    shown = sorted(rows, key=lambda r: -r["cycles"])[:top] if top else rows
    for r in shown:
        comp = r["macs"] / peak
        dma = r["dma"] / bw
        bound = max(comp, dma, 1)
        util = r["macs"] / (r["cycles"] * peak) if r["cycles"] else 0
        print(f"{r['name'][:40]:40s} {r['kernel']:18s} {r['cycles']:10d} "
              f"{r['macs'] / 1e6:8.2f} {100 * util:5.1f}% "
              f"{100 * r['macs'] / (bound * peak):5.1f}% "
              f"{'DMA' if dma > comp else 'MAC':>5s} {r['dma'] / 1024:8.1f}")

    def total(sel, label):
        c = sum(r["cycles"] for r in sel)
        m = sum(r["macs"] for r in sel)
        d = sum(r["dma"] for r in sel)
        roof = sum(max(r["macs"] / peak, r["dma"] / bw, 1) for r in sel)
        if not c:
            return
        print(f"{label:59s} {c:10d} {m / 1e6:8.1f} {100 * m / (c * peak):5.1f}% "
              f"{100 * m / (roof * peak):5.1f}%       {d / 1024:8.1f}  "
              f"({len(sel)} dispatches, "
              f"{sum(1 for r in sel if r['dma'] / bw > r['macs'] / peak)} DMA-bound)")

    total(rows, "all NPU dispatches")
    # The convolutions: every dispatch running one (a fused residual add's
    # cycles included: it adds no MACs; --no-fuse-dispatches measures the
    # convolutions alone, the adds then in dispatches of their own).
    def conv(k):
        return any(p in ("conv2d", "depthwise_conv2d") for p in k.split("+"))
    total([r for r in rows if conv(r["kernel"])],
          "convolutions (conv2d + depthwise, fused adds in)")
    total([r for r in rows if conv(r["kernel"]) and "depthwise" not in r["kernel"]],
          "conv2d only")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a quantized Top model (strata quantize)")
    ap.add_argument("--input", required=True, help="an npz input of the model")
    ap.add_argument("--npu-config", help="the NPU description (JSON)")
    ap.add_argument("--double-buffer", action="store_true")
    ap.add_argument("--lram-reuse", action="store_true")
    ap.add_argument("--no-prefetch-weights", action="store_true",
                    help="--npu-prefetch-weights=false (every mode): no "
                         "conv -> conv dispatches (each conv its own, the "
                         "next layer's weights not prefetched)")
    ap.add_argument("--no-fuse-dispatches", action="store_true",
                    help="--npu-fuse-dispatches=false (every mode): each "
                         "conv and its residual add a dispatch of its own")
    ap.add_argument("--compare", action="store_true",
                    help="plain, double-buffered, LRAM reuse, both")
    ap.add_argument("--segmentation", choices=["fused", "unfused", "off"],
                    default="fused",
                    help="strided int8 kernels over segmented inputs: fused "
                         "into the producer (default), standalone "
                         "hl.segmentation, or off (the kernels take the "
                         "stride)")
    ap.add_argument("--compare-segmentation", action="store_true",
                    help="fused, unfused and off, with the other flags")
    ap.add_argument("--top", type=int, default=0,
                    help="only the N slowest layers in the table")
    a = ap.parse_args()
    cfg = config_of(a.npu_config)
    with tempfile.TemporaryDirectory() as work:
        db, reuse = ["--npu-double-buffer"], ["--npu-lram-reuse"]
        seg = {"fused": [], "unfused": ["--no-segment-fusion"],
               "off": ["--no-segmentation"]}
        if a.no_prefetch_weights:
            seg = {k: v + ["--npu-prefetch-weights=false"]
                   for k, v in seg.items()}
        if a.no_fuse_dispatches:
            seg = {k: v + ["--npu-fuse-dispatches=false"]
                   for k, v in seg.items()}
        if a.compare_segmentation:
            extra = db * a.double_buffer + reuse * a.lram_reuse
            totals = {}
            for mode, flags in seg.items():
                rows, total = measure(a.model, a.input, a.npu_config,
                                      tuple(extra + flags), work)
                print(f"\n== {os.path.basename(a.model)}: segmentation "
                      f"{mode} {' '.join(extra)} ==")
                table(rows, cfg, a.top)
                totals[mode] = (sum(r["cycles"] for r in rows), total,
                                len(rows))
            print()
            for mode, (npu, total, n) in totals.items():
                print(f"segmentation {mode:8s}: NPU cycles {npu} ({n} NPU "
                      f"dispatches), total with CPU fallbacks {total}")
            f, u, o = (totals[k][0] for k in ("fused", "unfused", "off"))
            print(f"fusion saves {u - f} cycles ({100 * (u - f) / u:.1f}% of "
                  f"unfused); fused vs the kernels taking the stride: "
                  f"{100 * (f - o) / o:+.1f}%")
            return
        if a.compare:
            sf = seg[a.segmentation]
            modes = [tuple(sf), tuple(db + sf), tuple(reuse + sf),
                     tuple(db + reuse + sf)]
        else:
            modes = [tuple(db * a.double_buffer + reuse * a.lram_reuse +
                           seg[a.segmentation])]
        totals = {}
        for flags in modes:
            rows, _ = measure(a.model, a.input, a.npu_config, flags, work)
            print(f"\n== {os.path.basename(a.model)}: "
                  f"{' '.join(flags) or 'no flag'} ==")
            table(rows, cfg, a.top)
            totals[flags] = sum(r["cycles"] for r in rows)
        if a.compare:
            base = totals[modes[0]]
            for flags in modes[1:]:
                print(f"{' '.join(flags)}: NPU cycles {base} -> {totals[flags]} "
                      f"({100 * (base - totals[flags]) / base:.1f}% fewer)")


if __name__ == "__main__":
    main()
