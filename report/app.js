// report.html's page: draws the report data of one or more runs (the JSON in #rocesim-data, written by rocesim's
// analysis/report.cpp) with uPlot for charts and SVG for the fabric. No network access: everything is inline.
(function () {
  "use strict";

  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
  const data = JSON.parse(document.getElementById("rocesim-data").textContent);
  const runs = data.runs;
  const app = document.getElementById("app");

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k.startsWith("data-") || k === "class" || k === "id" || k === "title") {
        e.setAttribute(k, v);
      } else {
        e[k] = v;
      }
    }
    for (const c of children) {
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function get(obj, path) {
    return path.split(".").reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), obj);
  }

  function fmt(v, unit) {
    if (v === undefined || v === null) {
      return "–";
    }
    if (unit === "us") {
      return (v / 1000).toLocaleString("en", { maximumFractionDigits: 1 }) + " µs";
    }
    if (unit === "x") {
      return v.toFixed(2);
    }
    if (unit === "s") {
      return v.toFixed(3) + " s";
    }
    return typeof v === "number" ? v.toLocaleString("en") : String(v);
  }

  function section(id, title, ...children) {
    return el("section", { id: id }, el("h2", {}, title), ...children);
  }

  function colour(i) {
    return COLOURS[i % COLOURS.length];
  }

  // A table with a column per run; each cell carries its metric, run and raw value for readers and tests.
  function metricTable(rows) {
    const head = el("tr", {}, el("th", {}, ""), ...runs.map((r, i) => el("th", { style: "color:" + colour(i) }, r.name)));
    const body = rows.map(([label, path, unit]) =>
      el("tr", {}, el("th", {}, label),
        ...runs.map((r, i) => {
          const v = get(r.summary, path);
          return el("td", { "data-metric": path, "data-run": i, "data-value": JSON.stringify(v === undefined ? null : v) },
            fmt(v, unit));
        })));
    return el("table", { class: "metrics" }, el("thead", {}, head), el("tbody", {}, ...body));
  }

  function chart(container, opts, aligned) {
    const width = Math.min(900, Math.max(480, app.clientWidth - 40));
    const plot = new uPlot(Object.assign({ width: width, height: 300, legend: { live: false } }, opts), aligned, container);
    return plot;
  }

  // Joins per-run [x[], y[]] tables on their x values (uPlot.join), for one chart with a series per run.
  function joined(tables) {
    return tables.length === 1 ? tables[0] : uPlot.join(tables);
  }

  // Whether a run's flow completion times answer a question: they do for flow workloads (summary.json
  // workloads[].fct), not for the messages of a perftest, a collective or a training loop.
  function reportsFct(r) {
    const ws = get(r.summary, "workloads");
    return !Array.isArray(ws) || ws.length === 0 || ws.some((w) => w.fct);
  }

  function summarySection() {
    const scen = runs.map((r) => get(r.summary, "scenario.name")).join(", ");
    const fct = runs.some(reportsFct);
    const what = fct ? "flows" : "messages";
    const ib = runs.some((r) => get(r.summary, "credits") !== undefined);
    const eth = runs.some((r) => get(r.summary, "credits") === undefined);
    return section("numbers", "Run summary",
      el("p", {}, "Scenario: " + scen + ". Simulated " +
        runs.map((r) => fmt(get(r.summary, "sim_time_ns"), "us")).join(", ") + "."),
      metricTable([
        [what, "flows.total"], ["completed", "flows.completed"], ["unfinished", "flows.unfinished"],
        ["failed", "flows.failed"],
        ...(fct ? [["FCT slowdown p50", "fct_slowdown.p50", "x"], ["FCT slowdown p95", "fct_slowdown.p95", "x"],
          ["FCT slowdown p99", "fct_slowdown.p99", "x"],
          ["FCT p50", "fct_ns.p50", "us"], ["FCT p99", "fct_ns.p99", "us"], ["FCT max", "fct_ns.max", "us"]] : []),
        ["drops", "drops.total"], ["lossless drops", "drops.lossless"],
        ...(eth ? [["PFC pause frames", "pfc.pause_frames"], ["PFC resume frames", "pfc.resume_frames"]] : []),
        ...(ib ? [["credit waits", "credits.wait_ns", "us"], ["lanes waiting", "credits.lanes_waiting"]] : []),
        [ib && !eth ? "FECN marked" : "ECN marked", "ecn.marked"], [ib && !eth ? "BECNs sent" : "CNPs sent", "cnp.sent"],
        ["retransmits", "transport.retransmits"],
        ["timeouts", "transport.timeouts"], ["events", "events"], ["wall time", "wall_time_s", "s"],
      ]));
  }

  // A cell holding a number, with its key and run for readers and tests.
  function numCell(key, run, v, text) {
    return el("td", { "data-key": key, "data-run": run, "data-value": JSON.stringify(v === undefined ? null : v) },
      text === undefined ? fmt(v) : text);
  }

  function num(v, digits) {
    return v === undefined || v === null ? "–" : v.toLocaleString("en", { maximumFractionDigits: digits,
      minimumFractionDigits: digits });
  }

  function table(id, heads, rows) {
    return el("table", { class: "metrics", id: id }, el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", {}, h)))),
      el("tbody", {}, ...rows));
  }

  const STEP_PARTS = [["compute_only", "compute alone", "#b0b7bf"], ["overlapped", "communication beside compute",
    "#4c8bd6"], ["exposed", "exposed communication", "#d62728"]];
  const MAX_STEP_BARS = 200;

  // A training loop's steps as horizontal bars: compute alone, the communication that ran beside it, and the
  // communication the step waited for (its exposed part). A bar is as long as its step.
  function stepBars(t, run, k) {
    const steps = t.steps.slice(0, MAX_STEP_BARS);
    const parts = steps.map((s) => {
      const overlapped = Math.max(0, Math.min(s.compute_us, s.communication_us - s.exposed_us));
      return { compute_only: s.compute_us - overlapped, overlapped: overlapped, exposed: s.exposed_us };
    });
    const longest = Math.max(1e-9, ...steps.map((s) => s.time_us));
    const ns = "http://www.w3.org/2000/svg";
    const W = 1000, L = 70, R = 20, row = 22, top = 10, H = top + row * steps.length + 40;
    const scale = (W - L - R) / longest;
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("class", "steps");
    svg.setAttribute("id", "steps-" + run + "-" + k);
    svg.setAttribute("data-steps", steps.length);
    const text = (x, y, s, anchor) => {
      const e = document.createElementNS(ns, "text");
      e.setAttribute("x", x); e.setAttribute("y", y);
      e.setAttribute("text-anchor", anchor || "start");
      e.textContent = s;
      svg.append(e);
    };
    steps.forEach((s, i) => {
      const y = top + row * i;
      text(L - 8, y + row * 0.65, "step " + i, "end");
      let x = L;
      for (const [part, label, colour] of STEP_PARTS) {
        const v = parts[i][part];
        const r = document.createElementNS(ns, "rect");
        r.setAttribute("x", x); r.setAttribute("y", y + 3);
        r.setAttribute("width", Math.max(0, v * scale)); r.setAttribute("height", row - 6);
        r.setAttribute("fill", colour);
        r.setAttribute("data-step", i); r.setAttribute("data-part", part); r.setAttribute("data-value", v);
        const title = document.createElementNS(ns, "title");
        title.textContent = "step " + i + ": " + label + " " + num(v, 1) + " µs (step " + num(s.time_us, 1) + " µs)";
        r.append(title);
        svg.append(r);
        x += v * scale;
      }
    });
    const axisY = top + row * steps.length + 16;
    for (let q = 0; q <= 4; ++q) {
      text(L + (W - L - R) * q / 4, axisY, num(longest * q / 4, longest >= 100 ? 0 : 1) + (q === 4 ? " µs" : ""),
        q === 0 ? "start" : q === 4 ? "end" : "middle");
    }
    return svg;
  }

  function trainingView(t, run, k) {
    const box = el("div", { class: "training" });
    box.append(el("h4", {}, "Training " + t.workload + ": " + t.steps_done + " of " + t.iterations + " steps on " +
      t.ranks + " ranks"));
    box.append(table("training-" + run + "-" + k, ["step time", "compute", "communication", "exposed", "hidden"], [
      el("tr", {}, numCell("mean_time_us", run, t.mean_time_us, num(t.mean_time_us, 1) + " µs"),
        numCell("compute_us", run, t.compute_us, num(t.compute_us, 1) + " µs"),
        numCell("mean_communication_us", run, t.mean_communication_us, num(t.mean_communication_us, 1) + " µs"),
        numCell("mean_exposed_us", run, t.mean_exposed_us, num(t.mean_exposed_us, 1) + " µs"),
        numCell("hidden", run, t.hidden, num(100 * t.hidden, 1) + " %"))]));
    if (t.steps.length === 0) {
      box.append(el("p", {}, "No step finished before the run stopped."));
      return box;
    }
    box.append(el("p", { class: "legend" }, ...STEP_PARTS.flatMap(([, label, colour]) =>
      [el("span", { style: "color:" + colour }, "■"), " " + label + "  "])));
    box.append(stepBars(t, run, k));
    if (t.steps.length > MAX_STEP_BARS) {
      box.append(el("p", {}, "The first " + MAX_STEP_BARS + " of " + t.steps.length + " steps are drawn."));
    }
    return box;
  }

  function collectivesView(r, run) {
    const box = el("div", { class: "collectives" });
    const ops = get(r.summary, "collectives_by_op") || [];
    box.append(el("h4", {}, "Collectives: the mean per operation"));
    box.append(table("collectives-" + run, ["workload", "operation", "calls", "algorithm", "protocol", "time",
      "algbw", "busbw"], ops.map((o) => el("tr", {}, el("td", {}, o.workload), el("td", {}, o.op),
      numCell("calls", run, o.calls), el("td", {}, o.algorithm), el("td", {}, o.protocol),
      numCell("time_us", run, o.time_us, num(o.time_us, 2) + " µs"),
      numCell("algbw_GBps", run, o.algbw_GBps, num(o.algbw_GBps, 2) + " GB/s"),
      numCell("busbw_GBps", run, o.busbw_GBps, num(o.busbw_GBps, 2) + " GB/s")))));
    // Bus bandwidth against size when a workload swept sizes (nccl-tests).
    const bySize = new Map();
    for (const c of get(r.summary, "collectives") || []) {
      if (!c.complete) continue;
      const key = c.workload + " " + c.op;
      const m = bySize.get(key) || new Map();
      const b = m.get(c.bytes) || [0, 0];
      m.set(c.bytes, [b[0] + c.busbw_GBps, b[1] + 1]);
      bySize.set(key, m);
    }
    const swept = [...bySize.entries()].filter(([, m]) => m.size > 1);
    if (swept.length) {
      const holder = el("div", { class: "chart", id: "busbw-" + run, "data-series": swept.length });
      box.append(holder);
      const tables = swept.map(([, m]) => {
        const xs = [...m.keys()].sort((a, b) => a - b);
        return [xs, xs.map((x) => m.get(x)[0] / m.get(x)[1])];
      });
      queue.push(() => chart(holder, {
        title: (runs.length > 1 ? r.name + ": " : "") + "bus bandwidth by size",
        scales: { x: { time: false, distr: 3 } },
        axes: [{ label: "bytes", values: (u, ticks) => ticks.map((t) => fmtBytes(t)) }, { label: "busbw (GB/s)" }],
        series: [{ label: "bytes" }, ...swept.map(([name], i) => ({ label: name, stroke: colour(i), width: 2,
          spanGaps: true, points: { show: true } }))],
      }, joined(tables)));
    }
    return box;
  }

  function perftestView(r, run) {
    const rows = get(r.summary, "perftest") || [];
    const bw = rows.length > 0 && rows[0].bw_peak_gbps !== undefined;
    const heads = ["test", "client", "server", "bytes", "iterations",
      ...(bw ? ["peak Gb/s", "average Gb/s", "Mpps"] : ["typical µs", "average µs", "p99 µs", "p99.9 µs"])];
    const keys = bw ? [["bw_peak_gbps", 2], ["bw_average_gbps", 2], ["msg_rate_mpps", 6]]
      : [["t_typical_us", 2], ["t_avg_us", 2], ["p99_us", 2], ["p999_us", 2]];
    const box = el("div", { class: "perftest" });
    box.append(el("h4", {}, "perftest"));
    box.append(table("perftest-" + run, heads, rows.map((p, i) => el("tr", { "data-row": i }, el("td", {}, p.test),
      el("td", {}, p.client), el("td", {}, p.server), numCell("bytes", run, p.bytes), numCell("iterations", run,
        p.iterations), ...keys.map(([k, d]) => numCell(k, run, p[k], num(p[k], d)))))));
    return box;
  }

  // What each workload exists for, ahead of the fabric's numbers: a training loop's steps, a collective's time and
  // bandwidth, perftest's table.
  function workloadsSection() {
    const has = (r) => get(r.summary, "training") || get(r.summary, "collectives_by_op") || get(r.summary, "perftest");
    if (!runs.some(has)) {
      return "";
    }
    const s = section("workloads", "Workloads");
    runs.forEach((r, i) => {
      if (!has(r)) return;
      if (runs.length > 1) s.append(el("h3", { style: "color:" + colour(i) }, r.name));
      (get(r.summary, "training") || []).forEach((t, k) => s.append(trainingView(t, i, k)));
      if (get(r.summary, "collectives_by_op")) s.append(collectivesView(r, i));
      if (get(r.summary, "perftest")) s.append(perftestView(r, i));
    });
    return s;
  }

  function dropsSection() {
    const reasons = new Set();
    runs.forEach((r) => Object.keys(get(r.summary, "drops.by_reason") || {}).forEach((k) => reasons.add(k)));
    if (reasons.size === 0) {
      return section("drops", "Drops by reason", el("p", {}, "No packet was dropped."));
    }
    return section("drops", "Drops by reason",
      metricTable([...reasons].sort().map((k) => [k, "drops.by_reason." + k])));
  }

  function bucketsSection() {
    const s = section("buckets", "FCT slowdown by flow size");
    const label = (b) => fmtBytes(b.lo_bytes) + " – " + (b.hi_bytes === null ? "∞" : fmtBytes(b.hi_bytes));
    const first = get(runs[0].summary, "fct_slowdown_by_size") || [];
    const head = el("tr", {}, el("th", {}, "flow size"),
      ...runs.flatMap((r, i) => ["flows", "p50", "p95", "p99"].map((q) =>
        el("th", { style: "color:" + colour(i) }, (runs.length > 1 ? r.name + " " : "") + q))));
    const rows = first.map((b, k) => el("tr", {}, el("th", {}, label(b)),
      ...runs.flatMap((r, i) => ["flows", "p50", "p95", "p99"].map((q) => {
        const bk = (get(r.summary, "fct_slowdown_by_size") || [])[k] || {};
        const v = bk[q] === undefined ? null : bk[q];
        return el("td", { "data-bucket": k, "data-run": i, "data-q": q, "data-value": JSON.stringify(v) },
          q === "flows" ? fmt(v) : fmt(v, "x"));
      }))));
    s.append(el("table", { class: "metrics" }, el("thead", {}, head), el("tbody", {}, ...rows)));
    const holder = el("div", { class: "chart", id: "buckets-chart", "data-buckets": first.length });
    s.append(holder);
    const x = first.map((_, k) => k + 1);
    const series = [{ label: "bucket" }];
    const ys = [];
    runs.forEach((r, i) => {
      const bs = get(r.summary, "fct_slowdown_by_size") || [];
      [["p50", [1, 0]], ["p95", [6, 3]], ["p99", []]].forEach(([q, dash]) => {
        series.push({ label: (runs.length > 1 ? r.name + " " : "") + q, stroke: colour(i), dash: dash, width: 2,
          spanGaps: true, points: { show: true } });
        ys.push(x.map((_, k) => (bs[k] && bs[k][q] !== null ? bs[k][q] : null)));
      });
    });
    queue.push(() => chart(holder, {
      title: "slowdown per size bucket (p50 dotted, p95 dashed, p99 solid)",
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [{ values: (u, ticks) => ticks.map((t) => (Number.isInteger(t) && first[t - 1] ? label(first[t - 1]) : "")) },
        { label: "FCT slowdown" }],
      series: series,
    }, [x, ...ys]));
    return s;
  }

  function fmtBytes(b) {
    if (b >= 1e9 && b % 1e6 === 0) return b / 1e9 + "GB";
    if (b >= 1e6 && b % 1e3 === 0) return b / 1e6 + "MB";
    if (b >= 1e3) return b / 1e3 + "KB";
    return b + "B";
  }

  function cdfSection() {
    const s = section("cdf", "FCT distribution");
    for (const [key, title, scale] of [["fct_ns", "FCT (µs)", 1e-3], ["slowdown", "FCT slowdown", 1]]) {
      const holder = el("div", { class: "chart", id: "cdf-" + key });
      runs.forEach((r, i) => holder.setAttribute("data-points-" + i, r.cdf[key].length));
      s.append(holder);
      const tables = runs.map((r) => [r.cdf[key].map((p) => p[0] * scale), r.cdf[key].map((p) => p[1])]);
      if (tables.every((t) => t[0].length === 0)) {
        holder.append(el("p", {}, "No flow finished."));
        continue;
      }
      queue.push(() => chart(holder, {
        title: "CDF of " + title,
        scales: { x: { time: false, distr: 3 }, y: { range: [0, 1] } },
        axes: [{ label: title }, { label: "fraction of flows" }],
        series: [{ label: title }, ...runs.map((r, i) => ({ label: r.name, stroke: colour(i), width: 2, spanGaps: true }))],
      }, joined(tables.map((t) => (t[0].length ? t : [[1], [null]])))));
    }
    return s;
  }

  function timeseriesSection() {
    const withTs = runs.filter((r) => r.timeseries && r.timeseries.series.length);
    if (withTs.length === 0) {
      return section("timeseries", "Queues, throughput and pauses over time",
        el("p", {}, "Not sampled: name ports or flows in output.timeseries to see them here."));
    }
    const s = section("timeseries", "Queues, throughput and pauses over time");
    const groups = [["queue_bytes", "queue depth (KB)", 1e-3], ["tx_gbps", "port throughput (Gb/s)", 1],
      ["paused", "paused (1 = may not send)", 1], ["rate_gbps", "flow rate (Gb/s)", 1]];
    runs.forEach((r, ri) => {
      if (!r.timeseries || !r.timeseries.series.length) {
        return;
      }
      const t = r.timeseries.t_ns.map((v) => v / 1000);
      for (const [prefix, title, scale] of groups) {
        let ss = r.timeseries.series.filter((x) => x.metric.startsWith(prefix));
        if (!ss.length) continue;
        // The deepest 8, so that the chart stays readable.
        ss = ss.map((x) => [Math.max(...x.values), x]).sort((a, b) => b[0] - a[0]).slice(0, 8).map((p) => p[1]);
        const holder = el("div", { class: "chart", "data-series": ss.length, id: "ts-" + ri + "-" + prefix });
        s.append(holder);
        queue.push(() => chart(holder, {
          title: (runs.length > 1 ? r.name + ": " : "") + title,
          scales: { x: { time: false } },
          axes: [{ label: "time (µs)" }, {}],
          series: [{ label: "t" }, ...ss.map((x, i) => ({ label: x.entity + " " + x.metric, stroke: colour(i), width: 1.5,
            paths: prefix === "paused" ? uPlot.paths.stepped({ align: 1 }) : undefined }))],
        }, [t, ...ss.map((x) => x.values.map((v) => v * scale))]));
      }
    });
    return s;
  }

  // Heat colour from white-grey (0) to dark red (1).
  function heat(f) {
    const x = Math.max(0, Math.min(1, f));
    const r = Math.round(220 - 40 * x), g = Math.round(220 - 200 * x), b = Math.round(220 - 200 * x);
    return "rgb(" + r + "," + g + "," + b + ")";
  }

  function topologySvg(run, mode) {
    const topo = run.topology;
    const W = 1000, levels = Math.max(...topo.nodes.map((n) => n.level)) + 1, H = 90 * levels + 40;
    const byLevel = {};
    topo.nodes.forEach((n, i) => (byLevel[n.level] = byLevel[n.level] || []).push(i));
    const pos = [];
    Object.entries(byLevel).forEach(([lvl, ids]) => {
      ids.forEach((id, k) => (pos[id] = [W * (k + 0.5) / ids.length, H - 30 - 90 * Number(lvl)]));
    });
    // One line per node pair: the busier (or longer paused) direction.
    const pairs = new Map();
    for (const l of topo.links) {
      const key = Math.min(l.from, l.to) + "-" + Math.max(l.from, l.to);
      const v = mode === "paused" ? l.paused_ns : l.utilisation;
      const p = pairs.get(key);
      if (!p || v > p.v) pairs.set(key, { l: l, v: v });
    }
    const maxPaused = Math.max(1, ...topo.links.map((l) => l.paused_ns));
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("class", "topology");
    svg.setAttribute("data-mode", mode);
    svg.setAttribute("data-links", pairs.size);
    for (const { l, v } of pairs.values()) {
      const line = document.createElementNS(ns, "line");
      const [a, b] = [pos[l.from], pos[l.to]];
      line.setAttribute("x1", a[0]); line.setAttribute("y1", a[1]);
      line.setAttribute("x2", b[0]); line.setAttribute("y2", b[1]);
      const f = mode === "paused" ? v / maxPaused : v;
      line.setAttribute("stroke", heat(f));
      line.setAttribute("stroke-width", 1 + 3 * Math.min(1, f));
      const t = document.createElementNS(ns, "title");
      t.textContent = topo.nodes[l.from].name + " – " + topo.nodes[l.to].name + ": " +
        (mode === "paused" ? fmt(v, "us") + " paused" : (100 * v).toFixed(1) + " % busy") + " (" + l.rate_gbps + " Gb/s)";
      line.append(t);
      svg.append(line);
    }
    topo.nodes.forEach((n, i) => {
      const c = document.createElementNS(ns, "circle");
      c.setAttribute("cx", pos[i][0]); c.setAttribute("cy", pos[i][1]);
      c.setAttribute("r", n.level === 0 ? 3 : 6);
      c.setAttribute("class", n.level === 0 ? "nic" : "switch");
      const t = document.createElementNS(ns, "title");
      t.textContent = n.name + (n.tier ? " (" + n.tier + ")" : "");
      c.append(t);
      svg.append(c);
    });
    return svg;
  }

  function topologySection() {
    const s = section("topology", "The fabric: where links were busy, where pauses spread");
    runs.forEach((r, i) => {
      if (r.topology.omitted) {
        s.append(el("h3", {}, r.name), el("p", {}, "Not drawn: the fabric has more than 1,500 switches."));
        return;
      }
      const box = el("div", { class: "topo" });
      let mode = "utilisation";
      const draw = () => {
        box.replaceChildren(topologySvg(r, mode));
      };
      const button = (m, label) => el("button", { onclick: () => { mode = m; draw(); } }, label);
      s.append(el("h3", {}, r.name + (r.topology.nics_drawn ? "" : " (switches only: too many NICs to draw)")),
        el("p", {}, "Colour: ", button("utilisation", "link utilisation"), " ", button("paused", "time paused"),
          " (darker is more; hover a link for its figures)."), box);
      draw();
    });
    return s;
  }

  function victimsSection() {
    const s = section("victims", runs.some(reportsFct) ? "Most paused ports and most slowed flows" : "Most paused ports");
    runs.forEach((r, i) => {
      s.append(el("h3", {}, r.name));
      if (r.top_ports.length) {
        s.append(el("table", { class: "metrics", id: "top-ports-" + i },
          el("thead", {}, el("tr", {}, ...["port", "peer", "priority", "paused", "pauses received"].map((h) => el("th", {}, h)))),
          el("tbody", {}, ...r.top_ports.map((p) => el("tr", {}, el("td", {}, p.port), el("td", {}, p.peer),
            el("td", {}, p.priority), el("td", { "data-value": p.paused_ns }, fmt(p.paused_ns, "us")),
            el("td", {}, p.pauses_received))))));
      } else {
        s.append(el("p", {}, "No port was paused."));
      }
      if (r.top_flows.length && reportsFct(r)) {
        s.append(el("table", { class: "metrics", id: "top-flows-" + i },
          el("thead", {}, el("tr", {}, ...["flow", "from", "to", "size", "FCT", "slowdown"].map((h) => el("th", {}, h)))),
          el("tbody", {}, ...r.top_flows.map((f) => el("tr", {}, el("td", {}, f.flow_id), el("td", {}, f.src),
            el("td", {}, f.dst), el("td", {}, fmtBytes(f.size_bytes)), el("td", {}, fmt(f.fct_ns, "us")),
            el("td", { "data-value": f.slowdown }, fmt(f.slowdown, "x")))))));
      }
    });
    return s;
  }

  function scenarioSection() {
    return section("scenario", "Scenarios as run",
      ...runs.map((r) => el("details", {}, el("summary", {}, r.name), el("pre", {}, JSON.stringify(r.summary.scenario, null, 2)))));
  }

  const queue = [];
  document.title = "rocesim report: " + runs.map((r) => r.name).join(", ");
  app.append(el("h1", {}, "rocesim report"),
    el("p", { class: "runs" }, ...runs.flatMap((r, i) => [el("span", { style: "color:" + colour(i) }, "■ " + r.name), " "])),
    data.note ? el("p", { class: "note", id: "note" }, data.note) : "",
    workloadsSection(), summarySection(), ...(runs.some(reportsFct) ? [bucketsSection(), cdfSection()] : []),
    timeseriesSection(), topologySection(), victimsSection(),
    dropsSection(), scenarioSection(),
    el("p", { class: "footer" }, "rocesim " + data.version + "; charts by uPlot."));
  queue.forEach((f) => f());
  document.body.setAttribute("data-rendered", "ok");
})();
