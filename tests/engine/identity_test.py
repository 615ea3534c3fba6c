#!/usr/bin/python3
"""The partitioned engine gives the files of one thread, byte for byte.

Each scenario runs with one thread (one partition), then cut into 2 partitions on 2 threads, 4 on 4, and 3 on 2
(more partitions than threads); every result file must equal the one-thread run's byte for byte, summary.json
too except its wall-clock fields (docs/outputs.md). Each scenario also checks that what it is about happened
(pauses crossed a cut, a link failed, a collective finished), so that an identity of empty runs cannot pass.
Run under ThreadSanitizer by CI (--binary build-tsan/rocesim), where a data race fails the run.

Usage: identity_test.py --binary build/rocesim --source . [--only NAME ...]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

# summary.json keys that measure the machine, not the simulation (docs/outputs.md, "Wall-clock fields").
WALL_CLOCK = ("wall_time_s", "events_per_s", "packet_hops_per_s")

CUTS = [("2 threads", ["--threads", "2", "--set", "engine.partitions=2"]),
        ("4 threads", ["--threads", "4", "--set", "engine.partitions=4"]),
        ("3 partitions on 2 threads", ["--threads", "2", "--set", "engine.partitions=3"])]

INCAST_PFC = """seed: 3
stop: 2ms
topology: {type: leaf-spine, leaves: 4, spines: 2, servers_per_leaf: 4,
           host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 2MB, pfc: {priorities: [3]}, ecn: {kmin: 100KB, kmax: 400KB}}
nic: {cc: dcqcn, mtu: 4096}
workload:
  - {type: incast, receiver: 0, senders: 15, size: 300KB}
"""

# The incast above, its frames captured at the receiver, at a sender on the other leaf and on a spine port, with a
# trace of every node and the HPCC simulator's files: records the nodes write as they go, merged across cuts.
RECORDS = INCAST_PFC + """capture: {hosts: [0, 4], ports: "spine0:0, leaf1:4"}
output: {trace: {nodes: all, interval: 5us}, hpcc: {fct: fct.txt, pfc: pfc.txt, qlen: qlen.txt, qlen_interval: 2us}}
"""

TCP_INCAST = """seed: 5
stop: 3ms
topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 4,
           host_link: {rate: 25Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 4MB, pfc: {priorities: [3]}}
workload:
  - {type: incast, receiver: 0, senders: 7, size: 200KB, transport: tcp, priority: 0}
"""


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def pauses_sent(out):
    return sum(int(r["pause_sent"]) for r in rows(os.path.join(out, "ports.csv")))


def flows_done(out):
    return sum(1 for r in rows(os.path.join(out, "flows.csv")) if r["status"] == "ok")


def deadlocks(out):
    with open(os.path.join(out, "summary.json")) as f:
        return len(json.load(f).get("deadlock", {}).get("cycles", []))


def has_bytes(name, text):
    def check(out):
        path = os.path.join(out, name)
        if not os.path.exists(path):
            return False
        with open(path, "rb") as f:
            return text.encode() in f.read()
    return check


def has_file(name):
    return lambda out: os.path.exists(os.path.join(out, name))


# name: (scenario file or inline YAML, extra arguments, what must have happened, its description)
def scenarios(source):
    sc = lambda n: os.path.join(source, "scenarios", n)
    return {
        "ft8-dcqcn-permutation": (os.path.join(source, "bench", "scenarios", "ft8-perm-dcqcn.yaml"), [],
                                  lambda out: flows_done(out) == 128, "128 flows complete"),
        "incast-15-to-1-pfc": (INCAST_PFC, [], lambda out: pauses_sent(out) > 0, "PFC pauses sent"),
        # Per-packet choices: each switch's balancer and random stream, and the NICs' placement and entropies.
        "balance-adaptive-placement": (os.path.join(source, "bench", "scenarios", "ft8-perm-dcqcn.yaml"),
                                       ["--set", "routing.balance=adaptive", "--set", "nic.ooo_placement=true"],
                                       lambda out: flows_done(out) == 128, "128 flows complete"),
        "balance-spray": (sc("load-balancing.yaml"), [], lambda out: flows_done(out) == 128, "128 flows complete"),
        "balance-flowlet": (sc("load-balancing.yaml"), ["--set", "routing.balance={type: flowlet, gap: 2us}"],
                            lambda out: flows_done(out) == 128, "128 flows complete"),
        "balance-source": (sc("load-balancing.yaml"),
                           ["--set", "routing.balance={type: source, entropies: 32}", "--set", "nic.cc=dcqcn"],
                           lambda out: flows_done(out) == 128, "128 flows complete"),
        "link-failure-jitter": (sc("link-failure.yaml"), ["--set", "routing.jitter=200us"],
                                lambda out: flows_done(out) > 0, "flows complete around the failure"),
        "pause-storm-watchdog": (sc("pause-storm.yaml"), ["--set", "switch.pfc.watchdog.enabled=true"],
                                 has_file("victims.csv"), "victims.csv written"),
        "deadlock-ring-detector": (sc("deadlock-ring.yaml"), [], lambda out: deadlocks(out) == 1,
                                   "the detector reports the deadlock"),
        "timeseries": (sc("hadoop-incast.yaml"), [], has_file("timeseries.csv"), "timeseries.csv written"),
        "slow-receiver": (sc("slow-receiver.yaml"), [], lambda out: pauses_sent(out) > 0, "PFC pauses sent"),
        "allreduce-rail": (sc("allreduce-rail.yaml"), ["--set", "workload.0.sizes=[16MiB]"],
                           has_file("nccl-tests.txt"), "nccl-tests.txt written"),
        "allreduce-aggregate-records": (sc("allreduce-rail.yaml"),
                                        ["--set", "workload.0.sizes=[4MiB, 4MiB]", "--set", "output.flows=aggregate"],
                                        has_file("messages.csv"), "messages.csv written"),
        "allreduce-multi-server": (sc("training-step.yaml"), [], has_file("collectives.csv"),
                                   "collectives.csv written"),
        # Two servers and a switch: three units, so at most three partitions.
        "perftest": (sc("perftest.yaml"), [], has_file("perftest.txt"), "perftest.txt written"),
        "kernel-tcp-incast": (TCP_INCAST, [], lambda out: flows_done(out) == 7, "7 TCP flows complete"),
        "infiniband": (sc("roce-vs-ib.yaml"), ["--set", "fabric=infiniband"], lambda out: flows_done(out) > 0,
                       "flows complete"),
        "iwarp": (sc("iwarp-lossy.yaml"), [], lambda out: flows_done(out) > 0, "flows complete"),
        "irn-lossy": (sc("irn-vs-pfc.yaml"), [], lambda out: flows_done(out) == 31, "31 flows complete"),
        "capture-trace-hpcc-outputs": (RECORDS, [], has_bytes("trace.json", "PFC XOFF"),
                                       "pauses in trace.json, capture.pcapng, pfc.txt"),
        # iWARP's captured TCP numbers depend on the segments captured before them.
        "iwarp-capture": (sc("iwarp-lossy.yaml"), ["--set", "capture.hosts=[0, 9]", "--set", "stop=2ms"],
                          has_bytes("capture.pcapng", "MPA ID Req Frame"), "iWARP frames captured at two hosts"),
        "hpcc-config": ("hpcc:" + os.path.join(source, "tests", "io", "fixtures", "hpcc-ns3-ft8", "incast-dcqcn",
                                               "config.txt"), [], has_file("fct.txt"), "fct.txt written"),
    }


def run(binary, scenario, extra, out, tmp):
    what = [scenario]
    if scenario.startswith("hpcc:"):
        what = ["--hpcc-config", scenario[len("hpcc:"):]]
    elif "\n" in scenario:
        what = [os.path.join(tmp, os.path.basename(out) + ".yaml")]
        with open(what[0], "w") as f:
            f.write(scenario)
    cmd = [binary, "run"] + what + ["-q", "-o", out, "--set", "output.report=false"] + extra
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}")
    return r.stdout


def results(folder):
    """The result files (not the hidden lock that marks a folder in use)."""
    return sorted(f for f in os.listdir(folder) if not f.startswith("."))


def comparable(path):
    with open(path, "rb") as f:
        data = f.read()
    if os.path.basename(path) != "summary.json":
        return data
    keep = [line for line in data.split(b"\n") if not any(f'"{k}"'.encode() in line for k in WALL_CLOCK)]
    return b"\n".join(keep)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (scenario, extra, happened, what) in scenarios(a.source).items():
            if a.only and name not in a.only:
                continue
            base = os.path.join(tmp, name + "-1")
            run(a.binary, scenario, extra, base, tmp)
            if not happened(base):
                failures.append(f"{name}: the one-thread run did not show what it tests ({what})")
                continue
            files = results(base)
            for label, args in CUTS:
                if name == "perftest" and label == "4 threads":
                    continue
                out = os.path.join(tmp, name + "-" + label.replace(" ", "-"))
                run(a.binary, scenario, extra + args, out, tmp)
                got = results(out)
                if got != files:
                    failures.append(f"{name}: {label}: files {got}, one thread wrote {files}")
                for f in files:
                    if f in got and comparable(os.path.join(base, f)) != comparable(os.path.join(out, f)):
                        failures.append(f"{name}: {label}: {f} differs from the one-thread run's")
            print(f"{name}: {len(files)} files compared over {len(CUTS)} cuts ({what})")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
