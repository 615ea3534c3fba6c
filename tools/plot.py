#!/usr/bin/python3
"""Plots a rocesim result folder: PNGs in DIR/plots.

  fct_slowdown_by_size.png  p50/p95/p99 FCT slowdown per flow-size bucket (fct_buckets.csv)
  fct_cdf.png               CDF of flow completion times and of slowdowns (flows.csv)
  queue_depth.png           queue depth over time of the busiest sampled ports (timeseries.csv), or the deepest
                            queue per port (ports.csv) when no time series was sampled
  throughput.png            throughput over time of the sampled ports, and sending rate of the sampled flows

Usage: /usr/bin/python3 tools/plot.py DIR [DIR2 ...]   (several folders are overlaid, e.g. DCQCN vs HPCC)
Needs Debian's python3-matplotlib (scripts/install-deps installs it).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def label(d):
    return os.path.basename(os.path.normpath(d))


def human(n):
    n = float(n)
    for unit, k in (("MB", 1e6), ("KB", 1e3)):
        if n >= k:
            return f"{n / k:g}{unit}"
    return f"{n:g}B"


def plot_buckets(dirs, out):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for d in dirs:
        b = [r for r in rows(os.path.join(d, "fct_buckets.csv")) if r["flows"] != "0"]
        if not b:
            continue
        names = [("≤" + human(r["hi_bytes"])) if r["hi_bytes"] else (">" + human(r["lo_bytes"])) for r in b]
        x = range(len(b))
        for q, style in (("p50", "-o"), ("p95", "--s"), ("p99", ":^")):
            ax.plot(x, [float(r[q]) for r in b], style, label=f"{label(d)} {q}")
        ax.set_xticks(list(x))
        ax.set_xticklabels(names)
    ax.set_yscale("log")
    ax.set_xlabel("flow size")
    ax.set_ylabel("FCT slowdown")
    ax.set_title("FCT slowdown by flow size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fct_slowdown_by_size.png"), dpi=120)
    plt.close(fig)


def plot_cdf(dirs, out):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for d in dirs:
        f = [r for r in rows(os.path.join(d, "flows.csv")) if r["fct_ns"]]
        if not f:
            continue
        for ax, key, scale in ((a1, "fct_ns", 1e-3), (a2, "slowdown", 1.0)):
            v = sorted(float(r[key]) * scale for r in f)
            ax.plot(v, [(i + 1) / len(v) for i in range(len(v))], label=label(d))
    a1.set_xlabel("FCT (us)")
    a2.set_xlabel("slowdown")
    for ax in (a1, a2):
        ax.set_xscale("log")
        ax.set_ylabel("CDF")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fct_cdf.png"), dpi=120)
    plt.close(fig)


def series(d):
    s = {}
    for r in rows(os.path.join(d, "timeseries.csv")):
        s.setdefault((r["entity"], r["metric"]), []).append((float(r["t_ns"]) / 1e3, float(r["value"])))
    return s


def plot_queues(dirs, out):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    drew = False
    for d in dirs:
        s = series(d)
        q = {k: v for k, v in s.items() if k[1].startswith("queue_bytes")}
        for k in sorted(q, key=lambda k: -max(v for _, v in q[k]))[:6]:
            t, v = zip(*q[k])
            ax.plot(t, [x / 1e3 for x in v], label=f"{label(d)} {k[0]} {k[1].split('.')[-1]}")
            drew = True
    if drew:
        ax.set_xlabel("time (us)")
        ax.set_ylabel("queue (KB)")
        ax.set_title("Queue depth of the busiest sampled ports")
    else:
        for d in dirs:
            p = rows(os.path.join(d, "ports.csv"))
            p.sort(key=lambda r: -int(r["max_queue_bytes"]))
            p = p[:12]
            ax.barh([f"{r['switch']}:{r['port']} p{r['priority']}" for r in p],
                    [int(r["max_queue_bytes"]) / 1e3 for r in p], label=label(d), alpha=0.7)
        ax.set_xlabel("deepest queue (KB)")
        ax.set_title("Deepest queues (sample ports with output.timeseries for time plots)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "queue_depth.png"), dpi=120)
    plt.close(fig)


def plot_throughput(dirs, out):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    drew = False
    for d in dirs:
        for (entity, metric), v in sorted(series(d).items()):
            if metric in ("tx_gbps", "rate_gbps"):
                t, x = zip(*v)
                ax.plot(t, x, label=f"{label(d)} {entity} {metric}")
                drew = True
    if not drew:
        plt.close(fig)
        return
    ax.set_xlabel("time (us)")
    ax.set_ylabel("Gb/s")
    ax.set_title("Port throughput and flow sending rates")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "throughput.png"), dpi=120)
    plt.close(fig)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    dirs = sys.argv[1:]
    for d in dirs:
        if not os.path.exists(os.path.join(d, "flows.csv")):
            print(f"plot.py: {d}: no flows.csv (not a rocesim result folder)", file=sys.stderr)
            sys.exit(2)
    out = os.path.join(dirs[0], "plots")
    os.makedirs(out, exist_ok=True)
    plot_buckets(dirs, out)
    plot_cdf(dirs, out)
    plot_queues(dirs, out)
    plot_throughput(dirs, out)
    for f in sorted(os.listdir(out)):
        print(os.path.join(out, f))


if __name__ == "__main__":
    main()
