#!/usr/bin/python3
"""report.html in a real browser: runs a scenario, opens its report in headless Chromium, and checks that the page
rendered without console errors and that its tables and charts hold the run's numbers; then a training loop's
step bars and a perftest table; then an overlay of two runs (`rocesim report`). Keeps screenshots in --artifacts.

Usage: report_browser_test.py --binary build/rocesim --source . --artifacts build/test-artifacts
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0", "--allow-file-access-from-files"]


class Dom(HTMLParser):
    """The elements the checks read: every element's attributes, in document order, and its text."""

    def __init__(self):
        super().__init__()
        self.elements = []  # (tag, attrs)
        self.stack = []

    def handle_starttag(self, tag, attrs):
        e = [tag, dict(attrs), ""]
        self.elements.append(e)
        if tag not in ("br", "img", "input", "meta", "link", "line", "circle", "rect"):
            self.stack.append(e)

    def handle_endtag(self, tag):
        while self.stack:
            e = self.stack.pop()
            if e[0] == tag:
                break

    def handle_data(self, data):
        for e in self.stack:
            e[2] += data

    def find(self, **attrs):
        return [e for e in self.elements if all(e[1].get(k) == v for k, v in attrs.items())]

    def with_attr(self, name):
        return [e for e in self.elements if name in e[1]]


def chromium(url, profile, extra):
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    r = subprocess.run([exe, *CHROMIUM_FLAGS, "--user-data-dir=" + profile, *extra, url], capture_output=True,
                       text=True, timeout=120)
    return r


def open_page(path, profile, artifacts, shot):
    url = "file://" + os.path.abspath(path)
    r = chromium(url, profile, ["--dump-dom"])
    console = [line for line in r.stderr.splitlines() if "CONSOLE" in line]
    if r.returncode != 0:
        fail(f"chromium exited with {r.returncode}: {r.stderr[-2000:]}")
    if console:
        fail("console messages on " + path + ":\n" + "\n".join(console))
    chromium(url, profile, ["--screenshot=" + os.path.join(artifacts, shot), "--window-size=1200,4000",
                            "--hide-scrollbars"])
    d = Dom()
    d.feed(r.stdout)
    return d


failures = []


def fail(msg):
    failures.append(msg)


def check(cond, msg):
    if not cond:
        fail(msg)


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_run(d, run, summary, flows_completed):
    body = d.find(**{"data-rendered": "ok"})
    check(len(body) == 1, "the page did not finish rendering (body data-rendered=ok missing)")
    metrics = [e for e in d.with_attr("data-metric") if e[1].get("data-run") == str(run)]
    check(len(metrics) >= 15, f"run {run}: {len(metrics)} summary cells")
    for tag, a, text in metrics:
        v = summary
        for k in a["data-metric"].split("."):
            v = v.get(k) if isinstance(v, dict) else None
        shown = json.loads(a["data-value"])
        check(close(shown, v) if isinstance(v, (int, float)) else shown == v,
              f"run {run}: {a['data-metric']} shows {shown}, summary.json has {v}")
        check(text.strip() != "", f"run {run}: {a['data-metric']} has no text")
    for k, b in enumerate(summary["fct_slowdown_by_size"]):
        for q in ("flows", "p50", "p95", "p99"):
            cell = [e for e in d.find(**{"data-bucket": str(k), "data-q": q}) if e[1]["data-run"] == str(run)]
            check(len(cell) == 1 and close(json.loads(cell[0][1]["data-value"]), b[q]),
                  f"run {run}: bucket {k} {q} is not {b[q]}")
    cdf = d.find(id="cdf-fct_ns")
    check(len(cdf) == 1 and cdf[0][1].get(f"data-points-{run}") == str(min(1000, flows_completed)),
          f"run {run}: the FCT CDF does not hold {flows_completed} flows")


def cells(d, table_id, key):
    """The data-value of every cell of table `table_id` holding `key`, in row order."""
    inside, out = False, []
    for tag, a, _ in d.elements:
        if tag == "table":
            inside = a.get("id") == table_id
        elif inside and a.get("data-key") == key:
            out.append(json.loads(a["data-value"]))
    return out


def check_training(d, summary):
    """The training view: its table holds summary.json's means, and each step's bar is compute alone, the
    communication beside compute and the exposed communication, adding up to the step's time."""
    t = summary["training"][0]
    for key in ("mean_time_us", "compute_us", "mean_communication_us", "mean_exposed_us", "hidden"):
        got = cells(d, "training-0-0", key)
        check(len(got) == 1 and close(got[0], t[key]), f"training table {key} shows {got}, summary.json has {t[key]}")
    svg = d.find(id="steps-0-0")
    check(len(svg) == 1 and svg[0][1].get("data-steps") == str(len(t["steps"])),
          f"no bar chart of the {len(t['steps'])} steps")
    for i, s in enumerate(t["steps"]):
        part = {}
        for e in d.find(**{"data-step": str(i)}):
            part[e[1]["data-part"]] = float(e[1]["data-value"])
        overlapped = s["communication_us"] - s["exposed_us"]
        check(close(part.get("exposed"), s["exposed_us"]), f"step {i}: exposed bar {part.get('exposed')}")
        check(close(part.get("overlapped"), overlapped), f"step {i}: overlapped bar {part.get('overlapped')}")
        check(abs(sum(part.values()) - s["time_us"]) < 1e-6, f"step {i}: bars add up to {sum(part.values())}, "
              f"the step took {s['time_us']} us")
    ops = summary["collectives_by_op"]
    check(cells(d, "collectives-0", "busbw_GBps") == [o["busbw_GBps"] for o in ops],
          "the collectives table does not hold collectives_by_op's busbw")
    check(not d.find(id="cdf-fct_ns") and not d.find(id="top-flows-0"),
          "a training run's page shows FCTs of its messages")


def check_perftest(d, summary):
    rows = summary["perftest"]
    for key in ("bytes", "bw_peak_gbps", "bw_average_gbps", "msg_rate_mpps"):
        check(cells(d, "perftest-0", key) == [r[key] for r in rows], f"perftest table {key} is not summary.json's")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--artifacts", required=True)
    a = ap.parse_args()
    os.makedirs(a.artifacts, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="rocesim_report_")
    try:
        scenario = os.path.join(a.source, "scenarios", "incast.yaml")
        runs = []
        for name, sets in (("dcqcn", []), ("hpcc", ["--set", "nic.cc=hpcc"])):
            out = os.path.join(tmp, name)
            subprocess.run([a.binary, "run", scenario, "-q", "-o", out, "--set",
                            "output.timeseries={ports: 'leaf0:0', interval: 5us}", *sets], check=True)
            runs.append(out)
        profile = os.path.join(tmp, "profile")
        summaries = [json.load(open(os.path.join(r, "summary.json"))) for r in runs]
        d = open_page(os.path.join(runs[0], "report.html"), profile, a.artifacts, "report.png")
        check_run(d, 0, summaries[0], summaries[0]["flows"]["completed"])
        charts = [e for e in d.elements if "uplot" in e[1].get("class", "").split()]
        check(len(charts) >= 4, f"{len(charts)} uPlot charts drawn (buckets, 2 CDFs, time series expected)")
        check(any(e[0] == "canvas" for e in d.elements), "no chart canvas")
        topo = [e for e in d.elements if e[0] == "svg" and "data-links" in e[1]]
        check(len(topo) == 1 and int(topo[0][1]["data-links"]) == 20,
              "the fabric view does not draw the 16 host links and 4 leaf-spine links")
        ts = d.find(id="ts-0-queue_bytes")
        check(len(ts) == 1, "no queue depth chart for the sampled port")
        top = [e for e in d.elements if e[1].get("id") == "top-ports-0"]
        check(len(top) == 1, "no table of the most paused ports")

        # A training loop whose communication is partly exposed (1 ms of compute, 0.5 ms of it beside an
        # all-reduce of about 0.75 ms), and a perftest bandwidth run.
        train = os.path.join(tmp, "train")
        subprocess.run([a.binary, "run", os.path.join(a.source, "scenarios", "training-step.yaml"), "-q", "-o", train,
                        "--set", "workload.0.compute=1ms"], check=True)
        summary = json.load(open(os.path.join(train, "summary.json")))
        check(summary["training"][0]["mean_exposed_us"] > 0, "the training run exposes no communication")
        check_training(open_page(os.path.join(train, "report.html"), profile, a.artifacts, "report-training.png"),
                       summary)
        perf = os.path.join(tmp, "perftest")
        subprocess.run([a.binary, "run", os.path.join(a.source, "scenarios", "perftest.yaml"), "-q", "-o", perf,
                        "--set", "workload.0.test=write_bw"], check=True)
        check_perftest(open_page(os.path.join(perf, "report.html"), profile, a.artifacts, "report-perftest.png"),
                       json.load(open(os.path.join(perf, "summary.json"))))

        overlay = os.path.join(tmp, "overlay.html")
        subprocess.run([a.binary, "report", *runs, "-o", overlay, "-q"], check=True)
        d = open_page(overlay, profile, a.artifacts, "report-overlay.png")
        for i in range(2):
            check_run(d, i, summaries[i], summaries[i]["flows"]["completed"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("report.html renders with the run's numbers; screenshots in", a.artifacts)


if __name__ == "__main__":
    main()
