#!/usr/bin/python3
"""Compares the flow completion times of two runs of the same input, e.g. rocesim against the HPCC ns-3
simulator: each side is an HPCC-style fct.txt (`sip dip sport dport size start_ns fct_ns standalone_fct_ns`, as
that simulator and `rocesim run --hpcc-config` write it) or a rocesim flows.csv (its finished flows).

Prints, per flow-size bucket and for all flows: the flow counts, min / median / p99 / max FCT and the median
and p99 slowdown (FCT over the side's own ideal or standalone FCT) of A and of B, and the ratio B / A of each.
When the two sides hold the same flows (same source, destination, size and start), it also prints the
distribution of the per-flow ratio B / A. With --plot FILE it draws the two FCT CDFs and the two slowdown CDFs.

Usage: tools/compare_fct.py A B [--names NAME_A NAME_B] [--plot cdf.png] [--json]
Exit status 0, or 2 when a file cannot be read.
"""

import argparse
import csv
import json
import math
import sys

BUCKETS = [(0, 10e3), (10e3, 100e3), (100e3, 1e6), (1e6, 10e6), (10e6, math.inf)]


def bucket_name(lo, hi):
    def size(x):
        return "%gKB" % (x / 1e3) if x < 1e6 else "%gMB" % (x / 1e6)

    if lo == 0:
        return "< " + size(hi)
    if hi == math.inf:
        return ">= " + size(lo)
    return size(lo) + "-" + size(hi)


def node_of_ip(text):
    """HPCC ns-3 addresses are 11.x.y.1 with the node id in x.y (0b000101 is node 1)."""
    return (int(text, 16) >> 8) & 0xFFFF


def read_flows(path):
    """Flows as dicts: src, dst, size, start_ns, fct_ns, ideal_ns."""
    flows = []
    with open(path, newline="") as f:
        first = f.readline()
        f.seek(0)
        if first.startswith("flow_id,") or "," in first:
            for row in csv.DictReader(f):
                if row.get("status", "ok") != "ok" or not row["fct_ns"]:
                    continue
                flows.append({"src": int(row["src"]), "dst": int(row["dst"]), "size": int(row["size_bytes"]),
                              "start_ns": float(row["start_ns"]), "fct_ns": float(row["fct_ns"]),
                              "ideal_ns": float(row["ideal_fct_ns"])})
        else:
            for lineno, line in enumerate(f, 1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) < 8:
                    raise ValueError(f"{path}:{lineno}: expected 8 columns (sip dip sport dport size start fct "
                                     f"standalone_fct), found {len(parts)}")
                flows.append({"src": node_of_ip(parts[0]), "dst": node_of_ip(parts[1]), "size": int(parts[4]),
                              "start_ns": float(parts[5]), "fct_ns": float(parts[6]), "ideal_ns": float(parts[7])})
    return flows


def percentile(values, q):
    """Nearest rank, as rocesim's summary does."""
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, math.ceil(q / 100 * len(v)) - 1))]


def stats(flows):
    fct = [f["fct_ns"] for f in flows]
    slow = [f["fct_ns"] / f["ideal_ns"] for f in flows if f["ideal_ns"] > 0]
    return {"count": len(flows), "min": min(fct) if fct else None, "median": percentile(fct, 50),
            "p99": percentile(fct, 99), "max": max(fct) if fct else None, "slowdown_median": percentile(slow, 50),
            "slowdown_p99": percentile(slow, 99)}


def compare(a, b):
    rows = []
    for lo, hi in BUCKETS + [(None, None)]:
        pick = (lambda f: True) if lo is None else (lambda f, lo=lo, hi=hi: lo <= f["size"] < hi)
        fa, fb = [f for f in a if pick(f)], [f for f in b if pick(f)]
        if not fa and not fb:
            continue
        rows.append({"bucket": "all" if lo is None else bucket_name(lo, hi), "a": stats(fa), "b": stats(fb)})
    key = lambda f: (f["src"], f["dst"], f["size"], round(f["start_ns"]))
    by_key = {}
    for f in a:
        by_key.setdefault(key(f), []).append(f)
    ratios = []
    for f in b:
        same = by_key.get(key(f))
        if same:
            ratios.append(f["fct_ns"] / same.pop(0)["fct_ns"])
    paired = None
    if ratios and len(ratios) == len(a) == len(b):
        paired = {"flows": len(ratios), "min": min(ratios), "median": percentile(ratios, 50),
                  "p99": percentile(ratios, 99), "max": max(ratios)}
    return rows, paired


def fmt(x, unit=""):
    if x is None:
        return "-"
    if unit == "us":
        return "%.1f" % (x / 1e3)
    return "%.3f" % x


def ratio(a, b):
    return "-" if a in (None, 0) or b is None else "%.3f" % (b / a)


def print_table(rows, paired, names):
    na, nb = names
    print(f"FCT in us; ratio = {nb} / {na}")
    head = f"{'size':>12} {'side':>10} {'flows':>7} {'min':>10} {'median':>10} {'p99':>10} {'max':>10} " \
           f"{'slow p50':>9} {'slow p99':>9}"
    print(head)
    for r in rows:
        for side, name in (("a", na), ("b", nb)):
            s = r[side]
            print(f"{r['bucket']:>12} {name[:10]:>10} {s['count']:>7} {fmt(s['min'], 'us'):>10} "
                  f"{fmt(s['median'], 'us'):>10} {fmt(s['p99'], 'us'):>10} {fmt(s['max'], 'us'):>10} "
                  f"{fmt(s['slowdown_median']):>9} {fmt(s['slowdown_p99']):>9}")
        a, b = r["a"], r["b"]
        print(f"{'':>12} {'ratio':>10} {'':>7} {ratio(a['min'], b['min']):>10} {ratio(a['median'], b['median']):>10} "
              f"{ratio(a['p99'], b['p99']):>10} {ratio(a['max'], b['max']):>10} "
              f"{ratio(a['slowdown_median'], b['slowdown_median']):>9} {ratio(a['slowdown_p99'], b['slowdown_p99']):>9}")
    if paired:
        print(f"per flow ({paired['flows']} flows on both sides), FCT {nb} / {na}: min {paired['min']:.3f}, "
              f"median {paired['median']:.3f}, p99 {paired['p99']:.3f}, max {paired['max']:.3f}")


def plot(a, b, names, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for flows, name in ((a, names[0]), (b, names[1])):
        for ax, values in ((axes[0], [f["fct_ns"] / 1e3 for f in flows]),
                           (axes[1], [f["fct_ns"] / f["ideal_ns"] for f in flows if f["ideal_ns"] > 0])):
            v = sorted(values)
            ax.step([v[0]] + v, [0] + [(i + 1) / len(v) for i in range(len(v))], where="post", label=name)
    axes[0].set_xlabel("FCT (us)")
    axes[1].set_xlabel("FCT slowdown")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_ylabel("CDF")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--names", nargs=2, default=["A", "B"], metavar=("NAME_A", "NAME_B"))
    ap.add_argument("--plot", metavar="PNG")
    ap.add_argument("--json", action="store_true", help="the table as JSON")
    args = ap.parse_args()
    try:
        a, b = read_flows(args.a), read_flows(args.b)
    except (OSError, ValueError, KeyError) as e:
        print(f"compare_fct: {e}", file=sys.stderr)
        return 2
    rows, paired = compare(a, b)
    if args.json:
        print(json.dumps({"buckets": rows, "paired": paired}, indent=1))
    else:
        print_table(rows, paired, args.names)
    if args.plot:
        plot(a, b, args.names, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
