#!/usr/bin/env python3
"""Reads STRATA_DISPATCH_PROFILE files (docs/runtime.md) of one artifact run at
1 thread and at N threads and says how well the N-thread run splits:

    STRATA_DISPATCH_PROFILE=p1.csv strata run m.strata ... --threads 1 --repeat 30
    STRATA_DISPATCH_PROFILE=p2.csv strata run m.strata ... --threads 2 --repeat 30
    bench/dispatch_profile.py p1.csv p2.csv [--threads 2] [--top 15]

Every figure is thread CPU time per run (robust on a machine shared with other
jobs, unlike wall time): the 1-thread total, the N-thread total (what splitting
adds), and the critical path, the sum over dispatches of the slowest workgroup,
which an idle machine's N-thread wall time follows; perfect scaling is the
1-thread total over N. Then the dispatches that lose most against perfect
scaling (slowest workgroup minus the 1-thread time over N). Use fresh files:
the runtime appends.
"""
import argparse
import csv
import sys


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("one_thread")
    ap.add_argument("n_threads")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()
    one, many = load(a.one_thread), load(a.n_threads)
    if len(one) != len(many) or any(
            x["dispatch"] != y["dispatch"] for x, y in zip(one, many)):
        sys.exit("the two profiles do not list the same dispatches "
                 "(same artifact? fresh files?)")
    f = lambda r, k: float(r[k])
    t1 = sum(f(r, "cpu_us") for r in one)
    tn = sum(f(r, "cpu_us") for r in many)
    crit = sum(f(r, "slowest_workgroup_cpu_us") for r in many)
    whole = [r for r in many if r["workgroups"] == "1"]
    print(f"dispatches {len(many)}; CPU us per run: 1 thread {t1:.0f}, "
          f"{a.threads} threads {tn:.0f} ({tn / t1 - 1:+.1%})")
    print(f"critical path {crit:.0f} us; perfect scaling {t1 / a.threads:.0f} us "
          f"(loss {crit - t1 / a.threads:.0f} us); one workgroup: {len(whole)} "
          f"dispatches, {sum(f(r, 'cpu_us') for r in whole):.0f} us")
    rows = []
    for i, (x, y) in enumerate(zip(one, many)):
        loss = f(y, "slowest_workgroup_cpu_us") - f(x, "cpu_us") / a.threads
        rows.append((loss, i, x, y))
    rows.sort(key=lambda r: -r[0])
    print(f"{'#':>3} {'wg':>2} {'1-thr':>7} {'N-thr':>7} {'slowest':>7} "
          f"{'loss':>6}  dispatch, params")
    for loss, i, x, y in rows[:a.top]:
        print(f"{i:3d} {y['workgroups']:>2} {f(x, 'cpu_us'):7.0f} "
              f"{f(y, 'cpu_us'):7.0f} {f(y, 'slowest_workgroup_cpu_us'):7.0f} "
              f"{loss:6.0f}  {y['dispatch']} {y['params']}")


if __name__ == "__main__":
    main()
