#!/usr/bin/python3
"""Fuzz the rocesim program from the outside: mutated inputs run as a user runs them, each checked for

- an exit status of 0 (it ran) or 2 (bad input), never a crash, a signal or an internal error (1);
- a hang: more than --timeout seconds of wall time;
- memory: a peak resident set above --memory MB (the program is told to refuse, with exit 2, what it estimates
  above a fraction of that: ROCESIM_MEMORY_LIMIT; the check holds its estimate to account);
- after an error (2): one message on stderr that names the problem, no raw control bytes, and no file in the
  output folder; after a run (0): no temporary file left, summary.json that parses, and no finished flow
  faster than its ideal (slowdown >= 1).

Seeds: the example scenarios (scenarios/*.yaml with the data files they name) and the regression corpus
(tests/io/corpus: YAML scenarios and HPCC ns-3 configs, each run once unmutated first, with the exit status its
`# expect: N` line or `expect` file gives; SONiC config_db.json files (`*.json`) and mlnx_qos texts (`*.qos`), run
through `rocesim import`). A mutant changes one of a case's files: bytes replaced, spans
deleted, lines repeated, numbers made extreme, structure characters inserted; half the mutants are validated,
half run with a short stop (`--set stop=...`), so a mutant's work stays bounded by simulated time.

Usage: tools/fuzz_cli.py --binary build/rocesim [--seconds 30] [--seed 1] [--keep DIR]
Exit status 0 when every input passed; 1 otherwise (each failure printed, and its input kept under --keep).
"""

import argparse
import json
import os
import pathlib
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXTREME = ["0", "-1", "4294967296", "1e308", "9223372036854775807", "0.0000001", "nan", "1e-9", "65536"]
STRUCTURE = "{}[]:,-\"'&*!|>#%@`\t\n"


class Case:
    """A set of files run together: `entry` is the scenario or HPCC config; `files` are what a mutant may change."""

    def __init__(self, name, root, entry, files, expect=None):
        self.name, self.root, self.entry, self.files, self.expect = name, root, entry, files, expect

    def is_hpcc(self):
        return self.entry.endswith(".txt")

    def importer(self):
        """The `rocesim import` kind of a QoS configuration (a SONiC config_db.json or an mlnx_qos text), or None."""
        return {".json": "sonic", ".qos": "mlnx-qos"}.get(pathlib.PurePath(self.entry).suffix)


def referenced_files(root, entry):
    text = (root / entry).read_text(errors="replace")
    out = [entry]
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and rel != entry and (rel in text or p.name in text):
            out.append(rel)
    return out


def load_cases():
    cases = []
    scenarios = ROOT / "scenarios"
    for y in sorted(scenarios.glob("*.yaml")):
        cases.append(Case(y.stem, scenarios, y.name, referenced_files(scenarios, y.name)))
    corpus = ROOT / "tests" / "io" / "corpus"
    for p in sorted(corpus.iterdir()):
        if p.suffix in (".json", ".qos"):
            cases.append(Case(p.stem, corpus, p.name, [p.name]))
        elif p.suffix == ".yaml":
            m = re.search(rb"^# expect: (\d+)", p.read_bytes(), re.M)
            cases.append(Case(p.stem, corpus, p.name, referenced_files(corpus, p.name), int(m.group(1)) if m else None))
        elif p.is_dir() and (p / "config.txt").exists():
            expect = int((p / "expect").read_text()) if (p / "expect").exists() else None
            files = ["config.txt"] + [f.name for f in sorted(p.iterdir()) if f.name not in ("config.txt", "expect")]
            cases.append(Case(p.name, p, "config.txt", files, expect))
    return cases


def mutate(data, rng):
    s = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(s)) if s else 0
        kind = rng.randrange(5)
        if kind == 0 and s:
            s[at] = rng.randrange(256)
        elif kind == 1:
            del s[at:at + rng.randrange(16)]
        elif kind == 2:
            start = s.rfind(b"\n", 0, at) + 1
            end = s.find(b"\n", at)
            end = len(s) if end < 0 else end + 1
            s[start:start] = s[start:end]
        elif kind == 3:
            m = re.compile(rb"[0-9][0-9.]*").search(bytes(s), at)
            if m:
                s[m.start():m.end()] = rng.choice(EXTREME).encode()
        else:
            s[at:at] = rng.choice(STRUCTURE).encode()
    return bytes(s)


def run_limited(cmd, cwd, timeout, memory_mb, env):
    """Runs cmd; returns (status or None if killed, stdout, stderr, seconds, peak MB, why it was killed)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, start_new_session=True, env=env)
        killed = None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            elapsed = time.monotonic() - start
            rss_mb = 0
            try:
                with open(f"/proc/{proc.pid}/status") as f:
                    m = re.search(r"VmRSS:\s+(\d+)", f.read())
                    rss_mb = int(m.group(1)) / 1024 if m else 0
            except OSError:
                pass
            if elapsed > timeout or rss_mb > memory_mb:
                killed = f"hang: over {timeout} s" if elapsed > timeout else f"memory: over {memory_mb} MB"
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        code = proc.returncode if proc.returncode >= 0 else None
        return code, out.read(), err.read(), time.monotonic() - start, usage.ru_maxrss / 1024, killed


def problems_of(case, workdir, outdir, code, stdout, stderr, peak_mb, killed, memory_mb, expect):
    found = []
    if killed:
        return [killed]
    if code is None:
        return ["killed by a signal"]
    if peak_mb > memory_mb:
        found.append(f"memory: peak {peak_mb:.0f} MB")
    if code not in (0, 2):
        found.append(f"exit status {code}")
    if expect is not None and code != expect:
        found.append(f"exit status {code}, expected {expect}")
    text = stderr.decode("utf-8", errors="replace")
    for name, stream in (("stdout", stdout), ("stderr", stderr)):
        if re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", stream):
            found.append(f"a raw control byte on {name}")
    leftovers = [p for p in workdir.rglob("*") if p.name.endswith(".tmp")]
    if leftovers:
        found.append(f"temporary files left: {[str(p.relative_to(workdir)) for p in leftovers]}")
    if code == 2:
        errors = text.count("rocesim: error:")
        if errors != 1:
            found.append(f"exit 2 with {errors} error messages (one expected)")
        if outdir.exists() and any(outdir.iterdir()):
            found.append(f"files written after an error: {sorted(p.name for p in outdir.iterdir())}")
    if code == 0 and (outdir / "summary.json").exists():
        try:
            json.loads((outdir / "summary.json").read_text())
        except ValueError as e:
            found.append(f"summary.json does not parse: {e}")
        flows = outdir / "flows.csv"
        if flows.exists():
            lines = flows.read_text().splitlines()
            col = lines[0].split(",").index("slowdown")
            for line in lines[1:]:
                v = line.split(",")[col]
                if v and float(v) < 1:
                    found.append(f"slowdown {v} < 1: {line}")
                    break
    return found


def check(case, files, args, rng, workroot, expect=None):
    """Runs one input (case with `files` replacing its own); returns its problems and the command."""
    work = pathlib.Path(tempfile.mkdtemp(dir=workroot))
    for rel in case.files:
        dest = work / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(files.get(rel) if rel in files else (case.root / rel).read_bytes())
    out = work / "out"
    if case.importer():
        cmd = [args.binary, "import", case.importer(), case.entry, "-o", "out/imported.yaml"]
    elif case.is_hpcc():
        cmd = [args.binary, "run", "--hpcc-config", case.entry, "-q", "-o", "out"]
        if expect is None:
            cmd += ["--set", "stop=2.00005s"]  # the fixtures' flows start at 2 s
    elif expect is None and rng.random() < 0.5:
        cmd = [args.binary, "validate", case.entry]
    else:
        cmd = [args.binary, "run", case.entry, "-o", "out"] + (["-q"] if rng.random() < 0.5 else [])
        if expect is None:
            cmd += ["--set", "stop=" + rng.choice(["20us", "50us", "200us"])]
    env = dict(os.environ, ROCESIM_MEMORY_LIMIT=f"{int(args.memory * args.limit_fraction)}MB")
    code, stdout, err, secs, peak, killed = run_limited(cmd, work, args.timeout, args.memory, env)
    found = problems_of(case, work, out, code, stdout, err, peak, killed, args.memory, expect)
    if found and args.keep:
        keep = pathlib.Path(args.keep) / f"{case.name}-{rng.randrange(10**9)}"
        shutil.copytree(work, keep, ignore=shutil.ignore_patterns("out"))
        (keep / "command").write_text(" ".join(map(str, cmd)) + "\n" + err.decode(errors="replace"))
    shutil.rmtree(work, ignore_errors=True)
    return found, cmd, secs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="the rocesim program")
    ap.add_argument("--seconds", type=float, default=30, help="time budget for the mutants (the corpus always runs)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60, help="per input, in seconds")
    ap.add_argument("--memory", type=float, default=2048, help="peak resident memory per input, in MB")
    ap.add_argument("--limit-fraction", type=float, default=0.5,
                    help="the program's own memory limit (ROCESIM_MEMORY_LIMIT) as a fraction of --memory: what it "
                    "refuses up front; lower it under AddressSanitizer, whose shadow memory and quarantine the "
                    "estimate does not count")
    ap.add_argument("--keep", help="folder to keep failing inputs in")
    args = ap.parse_args()
    args.binary = str(pathlib.Path(args.binary).resolve())
    rng = random.Random(args.seed)
    cases = load_cases()
    failures = 0
    runs = 0
    with tempfile.TemporaryDirectory(prefix="rocesim-fuzz-") as workroot:
        for case in cases:
            if case.expect is None:
                continue
            found, cmd, _ = check(case, {}, args, rng, workroot, expect=case.expect)
            runs += 1
            for f in found:
                failures += 1
                print(f"FAIL corpus {case.name}: {f}\n  {' '.join(map(str, cmd))}")
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            case = rng.choice(cases)
            target = case.entry if rng.random() < 0.7 or len(case.files) == 1 else rng.choice(case.files[1:])
            mutant = mutate((case.root / target).read_bytes(), rng)
            found, cmd, _ = check(case, {target: mutant}, args, rng, workroot)
            runs += 1
            for f in found:
                failures += 1
                print(f"FAIL {case.name} ({target} mutated): {f}\n  {' '.join(map(str, cmd))}")
    print(f"{runs} inputs, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
