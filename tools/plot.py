#!/usr/bin/python3
"""Plots rocesim result folders as PNGs, every folder overlaid (e.g. DCQCN vs HPCC), one colour per run.

PNGs written (a run's colour is the same in every figure):
  fct_slowdown_by_size.png  FCT slowdown per flow-size bucket: p50 solid, p95 dashed, p99 dotted line
                            (fct_buckets.csv)
  fct_cdf.png               two panels: CDF of the completed flows' FCT and CDF of their FCT slowdown, log x
                            axes (flows.csv)
  queue_depth.png           queue depth over time, one panel per sampled (port, priority), the 6 deepest,
                            leaving out those always empty (timeseries.csv). If no run sampled a port: the
                            deepest queue of the 12 deepest (port, priority) of ports.csv instead, as bars
                            grouped per port, one bar per run
  throughput.png            top panel: throughput of the sampled ports (tx_gbps); bottom panel: sending rate
                            of the sampled flows (rate_gbps). One run: the 8 busiest ports and the first 8
                            flows, a colour each; several: 4 of each, a line style each. Only if some
                            timeseries.csv has either
  pause_state.png           left: when each sampled (port, priority) was paused (paused.pN), a band per run;
                            right: the share of its samples it was paused, one bar per run. The 12 most
                            paused; those never paused only if none was. Only if some timeseries.csv has a
                            paused.* series

Time series exist only if the scenario's output.timeseries names ports or flows (docs/scenario-reference.md),
e.g. --set 'output.timeseries.ports=leaf0:0, leaf0:1' --set 'output.timeseries.flows=[0,1]'.
The PNGs go to DIR1/plots unless -o is given; the paths written are printed, one a line. A PNG of this list
that the call does not write is removed from that folder, so that it never mixes pictures of other runs in.
Exit status: 0 done; 2 bad arguments, a folder without summary.json, or a result file it cannot read (a column
missing, a cell that is not a number, a short row: one message naming the file, line and column); 1 no
matplotlib, or the PNGs cannot be written. Needs Debian's python3-matplotlib (scripts/install-deps installs it).
"""
import argparse
import csv
import math
import os
import sys

# Imported in main(), after the arguments are checked, so that --help works without matplotlib.
plt = None
ticker = None

DPI = 120
MAX_QUEUE_PANELS = 6  # panels of queue_depth.png
MAX_BARS = 12  # port groups of the ports.csv fallback bar chart
MAX_SERIES = 8  # ports or flows per throughput panel of one run: more lines than this are unreadable
MAX_PAUSE_LANES = 12  # (port, priority) lanes of pause_state.png
# (line style, marker) per percentile of the slowdown figure; line style per port or flow when several runs
# share a throughput panel (then colour means the run).
PERCENTILES = (("p50", "-", "o"), ("p95", "--", "s"), ("p99", ":", "^"))
LINE_STYLES = ("-", "--", ":", "-.")


class Run:
    """One result folder: its label, its colour and the files the figures use."""

    def __init__(self, d, name, colour):
        self.dir = d
        self.name = name
        self.colour = colour
        self.flows = rows(os.path.join(d, "flows.csv"))
        self.buckets = rows(os.path.join(d, "fct_buckets.csv"))
        self.ports = rows(os.path.join(d, "ports.csv"))
        self.series = read_series(os.path.join(d, "timeseries.csv"))

    def metric(self, prefix):
        """{(entity, metric): (times_ns, values)} of the series whose metric starts with prefix."""
        return {k: v for k, v in self.series.items() if k[1].startswith(prefix)}


class BadInput(Exception):
    """A result file that cannot be plotted; the message names the file and, where known, line and column."""


# The columns the figures read, per file, and what each must hold: "num" a finite number, "int" an integer,
# "text" anything; a trailing "?" also allows an empty cell (a flow that did not finish, an empty bucket).
COLUMNS = {
    "flows.csv": {"fct_ns": "num?", "slowdown": "num?"},
    "fct_buckets.csv": {"lo_bytes": "num", "hi_bytes": "num?", "flows": "int?", "p50": "num?", "p95": "num?",
                        "p99": "num?"},
    "ports.csv": {"switch": "text", "port": "int", "peer": "text", "priority": "int", "max_queue_bytes": "int"},
    "timeseries.csv": {"t_ns": "num", "entity": "text", "metric": "text", "value": "num"},
}


def escaped(text):
    """text with control characters as \\xHH: a message must not carry a file's bytes raw to a terminal."""
    return "".join(f"\\x{ord(c):02x}" if ord(c) < 32 or ord(c) == 127 else c for c in text)


def cell_ok(text, kind):
    """Whether a cell holds what its column's kind asks for."""
    if kind.endswith("?"):
        if text == "":
            return True
        kind = kind[:-1]
    if kind == "text":
        return True
    try:
        return math.isfinite(int(text) if kind == "int" else float(text))
    except ValueError:
        return False


def rows(path):
    """The rows of a result CSV as dicts of strings ([] if the file is absent), each checked against COLUMNS,
    so that the figures never meet a missing column, a short row or a cell that is not a number."""
    if not os.path.exists(path):
        return []
    kinds = COLUMNS.get(os.path.basename(path), {})
    try:
        # Node names may hold bytes that are not UTF-8: only labels, so replaced rather than refused.
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                raise BadInput(f"{path}: empty, not even a header line")
            missing = [c for c in kinds if c not in header]
            if missing:
                raise BadInput(f"{path}: line 1: no column {', '.join(missing)} in the header")
            out = []
            for cells in reader:
                if not cells:
                    continue  # a blank line, as at the end of a file
                if len(cells) != len(header):
                    raise BadInput(f"{path}: line {reader.line_num}: {len(cells)} fields, the header has "
                                   f"{len(header)} (a truncated or damaged file?)")
                r = dict(zip(header, cells))
                for col, kind in kinds.items():
                    if not cell_ok(r[col], kind):
                        want = {"num": "a finite number", "int": "an integer"}[kind.rstrip("?")]
                        raise BadInput(f"{path}: line {reader.line_num}: column {col}: {r[col][:40]!r} is not {want}")
                out.append(r)
            return out
    except csv.Error as e:
        raise BadInput(f"{path}: line {reader.line_num}: {e}") from None
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror or e}") from None


def read_series(path):
    s = {}
    for r in rows(path):
        t, v = s.setdefault((r["entity"], r["metric"]), ([], []))
        t.append(float(r["t_ns"]))
        v.append(float(r["value"]))
    return s


def run_labels(dirs):
    """The folder names, or the paths as given where two folders share a name (out/x/a, out/y/a)."""
    base = [os.path.basename(os.path.normpath(d)) or d for d in dirs]
    names = [b if base.count(b) == 1 else os.path.normpath(d) for b, d in zip(base, dirs)]
    # The same folder given twice still gets two legend entries.
    return [n if names[:i].count(n) == 0 else f"{n} #{names[:i].count(n) + 1}" for i, n in enumerate(names)]


def human(n):
    n = float(n)
    for unit, k in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= k:
            return f"{n / k:g}{unit}"
    return f"{n:g}B"


def time_unit(runs):
    """(label, ns per unit) for the time axes: us, or ms for runs sampled past 10 ms."""
    end = max((t[-1] for r in runs for t, _ in r.series.values() if t), default=0)
    return ("ms", 1e6) if end > 1e7 else ("us", 1e3)


def tick_text(v, _pos=None):
    """Plain numbers (0.5, 20, 5000); powers of ten from 10^4 on, which would be too wide written out."""
    if v <= 0:
        return ""
    e = math.floor(math.log10(v) + 1e-9)
    if 1e-2 <= v < 1e4:
        return f"{v:g}"
    m = v / 10**e
    return f"$10^{{{e}}}$" if abs(m - 1) < 1e-6 else f"${m:g}\\times10^{{{e}}}$"


def log_axis(ax, which):
    """A log axis labelled at 1-2-5 steps, or decades when it spans several; minor ticks unlabelled.

    Matplotlib's default labels the minor ticks of an axis spanning about a decade, and those overlap.
    An axis spanning less than a factor of 3 stays linear: a log scale would show no labelled tick.
    """
    axis = ax.xaxis if which == "x" else ax.yaxis
    # The data's extent, not the view's: a linear view's margin may reach below zero.
    lo, hi = ax.dataLim.intervalx if which == "x" else ax.dataLim.intervaly
    if not (0 < lo < hi) or hi / lo < 3:
        return
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    for subs in ((1,), (1, 2, 5), (1, 2, 3, 5, 7)):
        ticks = [s * 10**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) for s in subs]
        ticks = [t for t in ticks if lo <= t <= hi]
        if len(ticks) >= 3:
            break
    axis.set_major_locator(ticker.FixedLocator(ticks))
    axis.set_major_formatter(ticker.FuncFormatter(tick_text))
    axis.set_minor_locator(ticker.LogLocator(subs="all", numticks=100))
    axis.set_minor_formatter(ticker.NullFormatter())


def legend_outside(ax, *sections):
    """Legend right of the axes, so that it never covers data (savefig keeps it, bbox_inches=tight).

    Each section is (header, handles, labels); with several, each starts with its header in bold, so that
    "colour means the run" and "line style means the percentile" read apart. No section: the axes' labels.
    """
    if not sections:
        sections = [(None, *ax.get_legend_handles_labels())]
    handles, labels, headers = [], [], set()
    for header, h, lab in sections:
        if header and len(sections) > 1:
            headers.add(len(labels))
            handles.append(plt.Rectangle((0, 0), 1, 1, visible=False))
            labels.append(header)
        handles += h
        labels += lab
    if not handles:
        return
    leg = ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0, frameon=False)
    for i, text in enumerate(leg.get_texts()):
        if i in headers:
            text.set_fontweight("bold")


def proxy(colour="0.3", ls="-", marker=None):
    """A legend-only line: run colours and series styles are explained separately."""
    return plt.Line2D([], [], color=colour, ls=ls, marker=marker, markersize=5)


def run_handles(runs, patches=False, sampled=None, missing="not sampled"):
    """Legend section naming each run in its colour: lines, or patches for figures of bars and bands.

    sampled: the indices of the runs that have data in the figure; the others' labels add (missing).
    """
    h = [plt.Rectangle((0, 0), 1, 1, color=r.colour) if patches else proxy(r.colour) for r in runs]
    labels = [r.name if sampled is None or i in sampled else f"{r.name} ({missing})" for i, r in enumerate(runs)]
    return "run", h, labels


def save(fig, out, name):
    path = os.path.join(out, name)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def no_data(ax, text, axes="y"):
    """Says why a panel is empty, without the meaningless ticks of its axes (x only if not shared)."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="0.4")
    for a in axes:
        (ax.set_xticks if a == "x" else ax.set_yticks)([])


def count(n, one, many):
    return f"{n} {one if n == 1 else many}"


# fct_slowdown_by_size.png ----------------------------------------------------------------------------------

def bucket_name(lo, hi):
    if not hi:
        return ">" + human(lo)
    return ("≤" + human(hi)) if float(lo) == 0 else f"{human(lo)}–{human(hi)}"


def plot_buckets(runs, out, unit):
    # Runs may use different output.buckets: the x axis is the union of their buckets, by size.
    keys = sorted({(r["lo_bytes"], r["hi_bytes"]) for run in runs for r in run.buckets},
                  key=lambda k: (float(k[0]), float(k[1]) if k[1] else math.inf))
    # Per run, its buckets that have completed flows: an empty one has no percentiles.
    filled = [{(r["lo_bytes"], r["hi_bytes"]): r for r in run.buckets if r["flows"] not in ("", "0")}
              for run in runs]
    fig, ax = plt.subplots(figsize=(9, 4.8))
    for run, by_key in zip(runs, filled):
        for q, ls, marker in PERCENTILES:
            # NaN leaves a gap for a bucket this run has no flows in.
            y = [float(by_key[k][q]) if k in by_key and by_key[k][q] else math.nan for k in keys]
            ax.plot(range(len(keys)), y, color=run.colour, ls=ls, marker=marker, markersize=5)
    names = [bucket_name(*k) for k in keys]
    if len(runs) == 1:
        # With one run the flow count per bucket says how much each percentile rests on.
        counts = {(r["lo_bytes"], r["hi_bytes"]): r["flows"] for r in runs[0].buckets}
        names = [f"{n}\n{counts.get(k, '0')} flows" for n, k in zip(names, keys)]
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(names)
    ax.set_xlabel("flow size")
    ax.set_ylabel("FCT slowdown")
    ax.set_title("FCT slowdown by flow size (completed flows)")
    ax.grid(True, which="major", alpha=0.3)
    if any(filled):
        log_axis(ax, "y")
    else:
        no_data(ax, "no completed flows" if keys else "no fct_buckets.csv")
    done = {i for i, f in enumerate(filled) if f}
    styles = [proxy(ls=ls, marker=m) for _, ls, m in PERCENTILES]
    legend_outside(ax, run_handles(runs, sampled=done, missing="no completed flows"),
                   ("percentile", styles, [q for q, *_ in PERCENTILES]))
    return save(fig, out, "fct_slowdown_by_size.png")


# fct_cdf.png -----------------------------------------------------------------------------------------------

def plot_cdf(runs, out, unit):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
    drew = False
    for run in runs:
        done = [r for r in run.flows if r["fct_ns"]]
        label = f"{run.name} ({len(done)} of {len(run.flows)} flows completed)"
        for ax, key, scale in ((a1, "fct_ns", 1e-3), (a2, "slowdown", 1.0)):
            v = sorted(float(r[key]) * scale for r in done if r[key])
            # Steps from 0: the CDF of a sample jumps at each value. A run without any still gets its legend
            # entry, which says so.
            y = [0] + [(i + 1) / len(v) for i in range(len(v))] if v else []
            ax.step(v[:1] + v, y, where="post", color=run.colour, label=label)
        drew = drew or bool(done)
    a1.set_xlabel("flow completion time (us)")
    a2.set_xlabel("FCT slowdown (FCT / ideal FCT)")
    a1.set_title("CDF of flow completion times")
    a2.set_title("CDF of FCT slowdown")
    for ax in (a1, a2):
        ax.set_ylabel("fraction of completed flows")
        ax.set_ylim(0, 1.02)
        ax.grid(True, which="major", alpha=0.3)
        if drew:
            log_axis(ax, "x")
        else:
            no_data(ax, "no completed flows", axes="xy")
    legend_outside(a2)
    fig.tight_layout()
    return save(fig, out, "fct_cdf.png")


# queue_depth.png -------------------------------------------------------------------------------------------

def lanes(runs, prefix):
    """{(entity, "pN"): {run index: (times_ns, values)}} of the metric prefix.N series."""
    out = {}
    for i, run in enumerate(runs):
        for (entity, metric), tv in run.metric(prefix + ".").items():
            out.setdefault((entity, metric.split(".")[-1]), {})[i] = tv
    return out


def plot_queues(runs, out, unit):
    q = lanes(runs, "queue_bytes")
    if not q:
        return plot_queue_bars(runs, out)
    depth = {k: max(max(v) for _, v in q[k].values()) for k in q}
    # Queues empty at every sample in every run are left out (a flat line at 0), unless all are.
    busy = [k for k in q if depth[k] > 0] or list(q)
    keys = sorted(busy, key=lambda k: (-depth[k], entity_order(k[0]), k[1]))[:MAX_QUEUE_PANELS]
    fig, axes = plt.subplots(len(keys), 1, figsize=(10, 1.7 * len(keys) + 1.2), sharex=True, squeeze=False)
    for ax, k in zip(axes[:, 0], keys):
        for i, (t, v) in sorted(q[k].items()):
            ax.plot([x / unit[1] for x in t], [x / 1e3 for x in v], color=runs[i].colour, lw=1.2)
        ax.set_title(f"{k[0]} priority {k[1][1:]}", loc="left", fontsize=9, pad=3)
        ax.set_ylabel("KB")
        ax.set_ylim(0, max(depth[k] / 1e3 * 1.05, 1))  # 0 to 1 KB for a queue that stayed empty
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel(f"time ({unit[0]})")
    note = [f"the {len(keys)} deepest shown"] if len(busy) > len(keys) else []
    if len(q) > len(busy):
        note.append(f"{len(q) - len(busy)} always empty, not shown")
    note = f" ({'; '.join(note)})" if note else ""
    fig.suptitle(f"Queue depth over time of {count(len(q), 'sampled port queue', 'sampled port queues')}{note}")
    legend_outside(axes[0, 0], run_handles(runs, sampled={i for k in q for i in q[k]}))
    fig.tight_layout()
    return save(fig, out, "queue_depth.png")


def plot_queue_bars(runs, out):
    """Without time series: each run's deepest queue per (port, priority), grouped bars, one per run."""
    depth, peer = {}, {}
    for i, run in enumerate(runs):
        for r in run.ports:
            k = (r["switch"], int(r["port"]), int(r["priority"]))
            depth.setdefault(k, {})[i] = int(r["max_queue_bytes"]) / 1e3
            peer[k] = r["peer"]
    # Queues that stayed empty in every run are left out: bars of length 0 say nothing.
    keys = sorted((k for k in depth if max(depth[k].values()) > 0), key=lambda k: (-max(depth[k].values()), k))
    keys = keys[:MAX_BARS]
    n = len(runs)
    h = 0.8 / n
    fig, ax = plt.subplots(figsize=(9, 0.25 * max(len(keys), 1) * max(n, 2) + 1.5))
    for i, run in enumerate(runs):
        # Run i's bar sits at its own offset inside the port's slot: side by side, never stacked.
        y = [j + (i - (n - 1) / 2) * h for j in range(len(keys))]
        x = [depth[k].get(i, 0) for k in keys]
        ax.barh(y, x, height=h, color=run.colour)
        for yj, xj in zip(y, x):  # the number too: a queue of a few bytes has an invisible bar
            ax.text(xj, yj, f" {xj:,.1f}", va="center", fontsize=7)
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([f"{s}:{p} → {peer[(s, p, pr)]}  p{pr}" for s, p, pr in keys])
    ax.invert_yaxis()  # deepest on top
    if keys:
        ax.set_xlim(0, 1.15 * max(max(depth[k].values()) for k in keys))  # room for the numbers
    ax.set_xlabel("deepest queue (KB)")
    ax.set_title("Deepest queues, from ports.csv\n"
                 "(sample ports with output.timeseries.ports for queues over time)", fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    if not keys:
        no_data(ax, "every queue stayed empty")
    legend_outside(ax, run_handles(runs, patches=True))
    return save(fig, out, "queue_depth.png")


# throughput.png --------------------------------------------------------------------------------------------

def entity_order(key):
    """leaf0:2 before leaf0:10, flow2 before flow10."""
    head = key.rstrip("0123456789")
    return (head, int(key[len(head):]) if key[len(head):] else -1)


def plot_throughput(runs, out, unit):
    panels = [("tx_gbps", "port", "Port throughput", "output.timeseries.ports"),
              ("rate_gbps", "flow", "Flow sending rate (what congestion control allows)",
               "output.timeseries.flows")]
    data = [{} for _ in panels]  # per panel {entity: {run index: (t, v)}}
    for i, run in enumerate(runs):
        for (entity, metric), tv in run.series.items():
            for p, panel in enumerate(panels):
                if metric == panel[0]:
                    data[p].setdefault(entity, {})[i] = tv
    if not any(data):
        print("plot.py: no port or flow time series (output.timeseries): no throughput.png", file=sys.stderr)
        return None
    several = len(runs) > 1
    # One run: a colour per port or flow. Several: the run's colour and a line style per port or flow, and
    # only as many as there are clearly different line styles.
    limit = len(LINE_STYLES) if several else MAX_SERIES
    fig, axes = plt.subplots(2, 1, figsize=(10, 7.5), sharex=True)
    for ax, (metric, what, title, key), series in zip(axes, panels, data):
        if not series:
            no_data(ax, f"no {what} sampled (set {key})")
            ax.set_title(title, loc="left")
            continue
        if metric == "tx_gbps":  # the busiest ports are the interesting ones
            ents = sorted(series, key=lambda e: (-max(sum(v) / len(v) for _, v in series[e].values()),
                                                 entity_order(e)))
        else:  # flows in id order: the user chose them
            ents = sorted(series, key=entity_order)
        shown = ents[:limit]
        handles = []
        for j, e in enumerate(shown):
            ls = LINE_STYLES[j] if several else "-"
            for i, (t, v) in sorted(series[e].items()):
                ax.plot([x / unit[1] for x in t], v, color=runs[i].colour if several else f"C{j % 10}", ls=ls,
                        lw=1.3)
            handles.append(proxy(ls=ls) if several else proxy(f"C{j % 10}"))
        if len(ents) > len(shown):
            which = f"the {len(shown)} busiest" if metric == "tx_gbps" else f"the first {len(shown)}"
            title += f" ({which} of {len(ents)} sampled)"
        ax.set_title(title, loc="left")
        ax.set_ylabel("Gb/s")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        sections = [(what, handles, shown)]
        sampled = {i for e in series for i in series[e]}
        legend_outside(ax, *([run_handles(runs, sampled=sampled)] if several else []), *sections)
    axes[-1].set_xlabel(f"time ({unit[0]})")
    axes[-1].xaxis.set_tick_params(labelbottom=True)
    if not several:
        fig.suptitle(runs[0].name)
    fig.tight_layout()
    return save(fig, out, "throughput.png")


# pause_state.png -------------------------------------------------------------------------------------------

def paused_spans(t, v):
    """(start, width) of the times a series says paused: a sample holds until the next one, the last one
    until the end of the samples (a lone last one for half an interval, to stay visible)."""
    step = (t[-1] - t[0]) / (len(t) - 1) if len(t) > 1 else 1.0
    spans = []
    for k, (tk, vk) in enumerate(zip(t, v)):
        if vk < 0.5:
            continue
        end = t[k + 1] if k + 1 < len(t) else tk
        if spans and math.isclose(spans[-1][0] + spans[-1][1], tk):
            spans[-1] = (spans[-1][0], end - spans[-1][0])  # continues the previous paused sample
        else:
            spans.append((tk, max(end - tk, step / 2)))
    return spans


def plot_pause(runs, out, unit):
    p = lanes(runs, "paused")
    if not p:
        print("plot.py: no port time series (output.timeseries.ports): no pause_state.png", file=sys.stderr)
        return None
    frac = {k: {i: sum(1 for x in v if x >= 0.5) / len(v) for i, (_, v) in p[k].items() if v} for k in p}
    order = sorted(p, key=lambda k: (-max(frac[k].values(), default=0), entity_order(k[0]), k[1]))
    # Lanes never paused in any run would only crowd the paused ones out; shown only when none was paused.
    paused = [k for k in order if max(frac[k].values(), default=0) > 0]
    keys = (paused or order)[:MAX_PAUSE_LANES]
    n = len(runs)
    h = 0.8 / n
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 0.3 * len(keys) * max(n, 2) + 1.8), sharey=True,
                                 gridspec_kw={"width_ratios": [4, 1]})
    for i, run in enumerate(runs):
        y = [j + (i - (n - 1) / 2) * h for j in range(len(keys))]  # run i's row inside lane j
        for yj, k in zip(y, keys):
            if i not in p[k]:
                continue
            t, v = p[k][i]
            t = [x / unit[1] for x in t]
            # A faint band where the lane was sampled: not paused, as opposed to not sampled.
            ax.broken_barh([(t[0], t[-1] - t[0])], (yj - h * 0.45, h * 0.9), color=run.colour, alpha=0.12)
            ax.broken_barh(paused_spans(t, v), (yj - h * 0.45, h * 0.9), color=run.colour)
        pct = [100 * frac[k].get(i, 0) for k in keys]
        bx.barh(y, pct, height=h * 0.9, color=run.colour)
        for yj, pj, k in zip(y, pct, keys):
            if i in frac[k]:  # the number too: a 0 % bar is invisible
                bx.text(pj + 2, yj, f"{pj:.0f}%" if pj >= 1 or pj == 0 else "<1%", va="center", fontsize=8)
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([f"{e} p{pr[1:]}" for e, pr in keys])
    ax.set_ylim(len(keys) - 0.5, -0.5)  # most paused on top
    ax.set_xlabel(f"time ({unit[0]})")
    ax.grid(True, axis="x", alpha=0.3)
    never = len(p) - len(paused)
    note = [f"{len(paused)} paused" if paused else "none paused"]
    if len(paused) > len(keys):
        note.append(f"the {len(keys)} most paused shown")
    if paused and never:
        note.append(f"{never} never paused, not shown")
    note = "; ".join(note)
    ax.set_title(f"PFC pause state of {count(len(p), 'sampled port priority', 'sampled port priorities')} "
                 f"({note})\nsolid: paused; faint: sampled, not paused", loc="left", fontsize=10)
    bx.set_xlabel("% of samples paused")
    bx.set_xlim(0, 118)  # room for the label of a 100 % bar
    bx.set_xticks([0, 25, 50, 75, 100])
    bx.grid(True, axis="x", alpha=0.3)
    legend_outside(bx, run_handles(runs, patches=True, sampled={i for k in p for i in p[k]}))
    fig.tight_layout()
    return save(fig, out, "pause_state.png")


# -----------------------------------------------------------------------------------------------------------

PLOTS = (("fct_slowdown_by_size.png", plot_buckets), ("fct_cdf.png", plot_cdf), ("queue_depth.png", plot_queues),
         ("throughput.png", plot_throughput), ("pause_state.png", plot_pause))


def parse_args(argv):
    # The module docstring is the help text: one place says what each PNG shows.
    ap = argparse.ArgumentParser(prog="plot.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", metavar="DIR", help="rocesim result folders (rocesim run -o DIR)")
    ap.add_argument("-o", "--out", metavar="OUT", help="folder for the PNGs (default: the first DIR/plots)")
    return ap.parse_args(argv)


def main(argv=None):
    global plt, ticker
    args = parse_args(argv)
    for d in args.dirs:
        # summary.json: every run writes it (flows.csv is absent under output.flows: off).
        if not os.path.isfile(os.path.join(d, "summary.json")):
            print(f"plot.py: {escaped(d)}: no summary.json (not a rocesim result folder)", file=sys.stderr)
            return 2
    # The files are read before matplotlib is loaded: a damaged one is said at once.
    try:
        runs = [Run(d, name, f"C{i % 10}") for i, (d, name) in enumerate(zip(args.dirs, run_labels(args.dirs)))]
    except BadInput as e:
        print(f"plot.py: {escaped(str(e))}", file=sys.stderr)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker as ticker
    except ImportError as e:
        print(f"plot.py: {e} (install python3-matplotlib; scripts/install-deps does)", file=sys.stderr)
        return 1
    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "xtick.labelsize": 9,
                         "ytick.labelsize": 9, "legend.fontsize": 9})
    out = args.out or os.path.join(args.dirs[0], "plots")
    unit = time_unit(runs)
    try:
        os.makedirs(out, exist_ok=True)
        for name, plot in PLOTS:
            path = plot(runs, out, unit)
            if path:
                print(path)
            elif os.path.exists(os.path.join(out, name)):
                os.remove(os.path.join(out, name))  # an earlier call's picture, of other runs
    except OSError as e:
        print(f"plot.py: {escaped(str(e))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
