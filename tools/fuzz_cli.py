#!/usr/bin/python3
"""Fuzz the rocesim program from the outside: inputs run as a user runs them, through every subcommand, each
command checked for

- an exit status it may end with: 0 (it ran) or 2 (bad input); `check` may also say 1 (findings), `sweep
  --collect` and `sweep --task` 1 (runs not done); never a crash, a signal or an internal error;
- a hang: more than --timeout seconds of wall time;
- memory: a peak resident set above --memory MB (the program is told to refuse, with exit 2, what it estimates
  above a fraction of that: ROCESIM_MEMORY_LIMIT; the check holds its estimate to account);
- output: no raw control byte and nothing that is not UTF-8 on stdout or stderr;
- after an error (2): one message on stderr that names the problem (or the command-line parser's usage message;
  plot.py's own one line, never a traceback), an override it names being one the user gave, and nothing new or
  changed in the output folder `out/`; after success: no temporary file left, every JSON file rocesim writes
  parses, every CSV file it writes parses (RFC 4180) with as many fields in each row as in its header, no
  finished flow faster than its ideal (slowdown >= 1), --json output that parses, nccl-tests' table with rows
  no larger than -e, node names read back from the CSVs as the topology file declares them;
- files: every input runs in a fresh folder `work/` inside a fresh box; nothing in the box outside `work/out/`
  may appear, change or disappear (each listing holds paths, sizes and modification times), so a result, a
  temporary or a lock written anywhere but the output folder is found.

Targets (TARGETS below, each a function that builds one input: its files and commands):

  mutant        a seed with one of its files mutated (bytes replaced, spans deleted, lines repeated, numbers made
                extreme, structure characters inserted), then one of run (short stop), validate, check,
                topology, flows; HPCC configs through run --hpcc-config, QoS configs through import
  nccl-tests    a 4-GPU fabric with mutated -b, -e, -f, -i, -n, -w, --op, --algorithm, --set, -o
  sweep         a tiny sweep (--grid, --seeds, -j, --emit, --task), a damaged run, --collect, a restart
  import-hpcc   import hpcc of an HPCC config (maybe mutated), then validate, check, topology, run of what it wrote
  results       two tiny runs, one damaged (summary.json, flows.csv, report.html's data block, ...), then report,
                compare and sometimes plot
  events        the scenario's `events:` at odd times (0, huge, negative), on unknown nodes, of odd kinds
  output-names  output names (capture.file, output.hpcc.*, -o, --ports-csv, flows -o, report -o): `.`, `..`,
                sub/x, ../x, 300 bytes, names of other results and of the inputs, control bytes
  node-names    a topology file whose node names hold commas, quotes, ESC bytes, newlines, invalid UTF-8
  cli           params, --help, --version, --seed, --set and flag values nobody should give

Seeds: the example scenarios (scenarios/*.yaml with the data files they name) and the regression corpus
(tests/io/corpus: YAML scenarios and HPCC ns-3 configs, each run once unmutated first, with the exit status its
`# expect: N` line or `expect` file gives; SONiC config_db.json files (`*.json`) and mlnx_qos texts (`*.qos`), run
through `rocesim import`). Every target's work stays bounded: short stops, tiny fabrics, small sizes. Every
target runs once first, then targets are drawn by weight until --seconds have passed.
Where several commands read the same input (events, node names, output names, an imported scenario), they must
agree on whether it is bad input: one refusing (exit 2) what another accepts is a problem.

Usage: tools/fuzz_cli.py --binary build/rocesim [--seconds 30] [--seed 1] [--keep DIR] [--only KIND]
Exit status 0 when every input passed; 1 otherwise (each failure printed with its command; under --keep each
failing input is kept: input/ holds its files and `commands`, to run there with `rocesim` the program, and
after/ the folder as the commands left it, damaged result files included).
"""

import argparse
import csv
import io
import json
import os
import pathlib
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXTREME = ["0", "-1", "4294967296", "1e308", "9223372036854775807", "0.0000001", "nan", "1e-9", "65536"]
STRUCTURE = "{}[]:,-\"'&*!|>#%@`\t\n"
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
# What the command-line parser (CLI11) prints for a usage error: one line, then this hint.
USAGE = re.compile(r"[^\n]+\nRun with --help for more information\.\n")


# Seeds ------------------------------------------------------------------------------------------------------

class Case:
    """A set of files run together: `entry` is the scenario or HPCC config; `files` are what a mutant may change."""

    def __init__(self, name, root, entry, files, expect=None):
        self.name, self.root, self.entry, self.files, self.expect = name, root, entry, files, expect

    def is_hpcc(self):
        return self.entry.endswith(".txt")

    def importer(self):
        """The `rocesim import` kind of a QoS configuration (a SONiC config_db.json or an mlnx_qos text), or None."""
        return {".json": "sonic", ".qos": "mlnx-qos"}.get(pathlib.PurePath(self.entry).suffix)

    def contents(self, changed=None):
        """{relative path: bytes} of the case's files, `changed` replacing some."""
        changed = changed or {}
        return {rel: changed[rel] if rel in changed else (self.root / rel).read_bytes() for rel in self.files}


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


# Inputs: what a target builds ---------------------------------------------------------------------------------

class Cmd:
    """One rocesim command of an input.

    args: the arguments after the program (str or bytes: names may hold bytes that are not UTF-8), run in the
    input's work folder. codes: the exit statuses it may end with. check(work, result) -> [problems]: what this
    command's output must also satisfy. gate: run only if every earlier command of the input exited 0 (a command
    that reads what an earlier one wrote). tool: the plot script's rules for its messages instead of rocesim's.
    """

    def __init__(self, args, codes=(0, 2), check=None, gate=False, tool=False):
        self.args, self.codes, self.check, self.gate, self.tool = list(args), tuple(codes), check, gate, tool


class Input:
    """What one case of a target runs in a fresh folder: files (relative path -> bytes) and steps, each a Cmd or
    a function(work, rng) that changes files in out/ between commands (damage). agree: tuples of indices into
    the Cmd steps, commands that read the same input and must all refuse it (exit 2) or all accept it."""

    def __init__(self, label, files, steps, agree=()):
        self.label, self.files, self.steps, self.agree = label, files, steps, list(agree)


class Result:
    def __init__(self, code, stdout, stderr, secs, peak_mb, killed):
        self.code, self.stdout, self.stderr, self.secs, self.peak_mb, self.killed = (
            code, stdout, stderr, secs, peak_mb, killed)


def b(x):
    """x as bytes (file contents and arguments are built from both)."""
    return x if isinstance(x, bytes) else x.encode()


def yaml_quoted(name, rng):
    """A YAML scalar for name: JSON's double quotes (escapes the parser decodes) or single quotes holding the raw
    bytes, so that both what the parser makes of escapes and raw bytes in the file reach the program."""
    if isinstance(name, str) and rng.random() < 0.5:
        return json.dumps(name).encode()
    return b"'" + b(name).replace(b"'", b"''") + b"'"


def tiny_scenario(extra=b"", hosts=3, workload=None):
    """A star of a few hosts with one small incast: a run of it takes milliseconds."""
    workload = workload or b"  - {type: incast, senders: 2, receiver: 0, size: 20KB, priority: 3}\n"
    return (b"name: tiny\nseed: 1\nstop: 20us\ntopology: {type: star, hosts: %d}\nworkload:\n" % hosts
            + workload + extra)


STOP = ["--set", "stop=20us"]


# Checks every command gets ---------------------------------------------------------------------------------------

def listing(root, skip=None):
    """{path relative to root: (size, mtime) for a file, "dir" for a folder} of everything under root but `skip`."""
    found = {}
    if not os.path.isdir(root):
        return found
    for dirpath, dirnames, filenames in os.walk(root):
        if skip is not None:
            dirnames[:] = [n for n in dirnames if os.path.join(dirpath, n) != str(skip)]
        rel = os.path.relpath(dirpath, root)
        for n in dirnames:
            found[os.path.normpath(os.path.join(rel, n))] = "dir"
        for n in filenames:
            try:
                st = os.lstat(os.path.join(dirpath, n))
            except OSError:
                continue
            found[os.path.normpath(os.path.join(rel, n))] = (st.st_size, st.st_mtime_ns)
    return found


def changes(before, after):
    """The paths new, changed or gone between two listings, each said so: ['x (new)', ...]."""
    out = []
    for p in sorted(before.keys() | after.keys()):
        if p not in before:
            out.append(f"{p!r} (new)")
        elif p not in after:
            out.append(f"{p!r} (gone)")
        elif before[p] != after[p]:
            out.append(f"{p!r} (changed)")
    return out


def csv_problems(path, rel):
    """A CSV file that does not parse per RFC 4180, or whose rows are not as long as its header."""
    found = []
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
        table = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except (csv.Error, OSError) as e:
        return [f"{rel}: does not parse as CSV: {e}"]
    if not table:
        return found
    header = table[0]
    for i, row in enumerate(table[1:], 2):
        if len(row) != len(header):
            found.append(f"{rel} row {i}: {len(row)} fields, its header has {len(header)}: {row!r}")
            break
    if path.name == "flows.csv" and "slowdown" in header and not found:
        col = header.index("slowdown")
        for row in table[1:]:
            try:
                if row[col] and float(row[col]) < 1:
                    found.append(f"{rel}: slowdown {row[col]} < 1: {row!r}")
                    break
            except ValueError:
                found.append(f"{rel}: slowdown {row[col]!r} is not a number")
                break
    return found


# The JSON and CSV files rocesim writes (by these names: a capture may be called x.csv and is no CSV).
JSON_FILES = {"summary.json", "manifest.json", "trace.json"}
CSV_FILES = {"flows.csv", "ports.csv", "nics.csv", "fct_buckets.csv", "timeseries.csv", "victims.csv", "perftest.csv",
             "summary.csv", "collectives.csv", "servers.csv"}


def written_files_problems(out, before, after):
    """JSON and CSV files a command wrote (new or changed in out/) that do not parse or are malformed."""
    found = []
    for rel in sorted(after):
        if after[rel] == "dir" or before.get(rel) == after[rel]:
            continue
        path = out / rel
        if path.name in JSON_FILES:
            try:
                json.loads(path.read_bytes())
            except (ValueError, OSError) as e:
                found.append(f"{rel} does not parse: {e}")
        elif path.name in CSV_FILES:
            found += csv_problems(path, rel)
    return found


def message_problems(cmd, res):
    """What stdout and stderr must be whatever the exit status: no raw control byte, UTF-8, no traceback."""
    found = []
    for name, stream in (("stdout", res.stdout), ("stderr", res.stderr)):
        m = CONTROL.search(stream)
        if m:
            found.append(f"a raw control byte {m.group()!r} on {name}: "
                         f"{stream[max(0, m.start() - 40):m.end() + 40]!r}")
        try:
            stream.decode("utf-8")
        except UnicodeDecodeError as e:
            found.append(f"bytes that are not UTF-8 on {name}: {stream[max(0, e.start - 30):e.end + 30]!r}")
    if b"Traceback (most recent call last)" in res.stderr:
        found.append("a Python traceback on stderr: " + res.stderr.decode(errors="replace").strip().splitlines()[-1])
    text = res.stderr.decode("utf-8", errors="replace")
    if res.code == 2:
        if cmd.tool:
            # plot.py's own message, or argparse's usage line and its error.
            lines = [ln for ln in text.splitlines() if ln.strip()]
            if lines and lines[0].startswith("usage:"):
                lines = lines[1:]
            if len(lines) != 1 or not lines[0].startswith(("plot.py: ", "rocesim: error:")):
                found.append(f"exit 2 with {len(lines)} lines on stderr (one message expected): {text[:300]!r}")
        elif not USAGE.fullmatch(text):  # a usage error is the command-line parser's message and a hint
            errors = text.count("rocesim: error:")
            if errors != 1:
                found.append(f"exit 2 with {errors} error messages (one expected): {text[:300]!r}")
        # A message about an override must quote the override the user gave, not one the program made up. An
        # override with bytes the message shows escaped is matched by its key.
        given = [os.fsdecode(a) for a, prev in zip(cmd.args, [None] + cmd.args) if prev == "--set"]
        quoted = [f"{g}:" if g.isascii() and g.isprintable() else g.split("=")[0] + "=" for g in given]
        if text.startswith("rocesim: error: --set ") and not any(
                text.startswith(f"rocesim: error: --set {q}") for q in quoted):
            found.append(f"the error names an override that was not given: {text.splitlines()[0][:200]!r}")
    return found


def step_problems(cmd, res, work, out_before, out_after):
    if res.killed:
        return [res.killed]
    if res.code is None:
        return ["killed by a signal"]
    found = []
    if res.code not in cmd.codes:
        found.append(f"exit status {res.code}: {res.stderr.decode(errors='replace').strip()[:300]!r}")
    found += message_problems(cmd, res)
    leftovers = [p for p in work.rglob("*") if p.name.endswith(".tmp")]
    if leftovers:
        found.append(f"temporary files left: {[str(p.relative_to(work)) for p in leftovers]}")
    if res.code == 2:
        written = changes(out_before, out_after)
        if written:
            found.append(f"files written after an error: {written}")
    elif res.code in (0, 1):
        found += written_files_problems(work / "out", out_before, out_after)
    if cmd.check and res.code in (0, 1, 2):
        found += cmd.check(work, res)
    return found


# Running one input ---------------------------------------------------------------------------------------------

def run_limited(cmd, cwd, timeout, memory_mb, env):
    """Runs cmd; returns its Result (code None if killed; killed says why it was)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env)
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
            time.sleep(0.01)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what it started (a sweep's runs) must not outlive it
        except OSError:
            pass
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        code = proc.returncode if proc.returncode >= 0 else None
        return Result(code, out.read(), err.read(), time.monotonic() - start, usage.ru_maxrss / 1024, killed)


def shell_word(arg):
    """arg quoted for a shell; control bytes and bytes that are not UTF-8 as $'\\xHH', so none reaches a terminal."""
    s = os.fsdecode(arg) if isinstance(arg, bytes) else str(arg)
    if not re.search(r"[\x00-\x1f\x7f\udc80-\udcff]", s):
        return shlex.quote(s)
    out = []
    for c in s:
        if "\udc80" <= c <= "\udcff" or c < " " or c == "\x7f":
            out.append(f"\\x{ord(c) & 0xff:02x}")
        else:
            out.append("\\" + c if c in "'\\" else c)
    return "$'" + "".join(out) + "'"


def shown(args):
    return " ".join(shell_word(a) for a in args)


def run_input(inp, args, rng, workroot):
    """Runs every step of inp in a fresh box/work folder; returns [(problem, command text)] and the commands."""
    box = pathlib.Path(tempfile.mkdtemp(dir=workroot))
    work = box / "work"
    out = work / "out"
    for rel, data in inp.files.items():
        dest = work / os.fsdecode(rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    work.mkdir(exist_ok=True)
    env = dict(os.environ, ROCESIM_MEMORY_LIMIT=f"{int(args.memory * args.limit_fraction)}MB")
    # Baselines: the box but out/ (the inputs, and the box as the parent of work/: ../x), and the shared root
    # beside the box (../../x).
    outside = listing(box, skip=out)
    others = set(os.listdir(workroot)) - {box.name}
    found, ran, results = [], [], []
    cmds = [s for s in inp.steps if isinstance(s, Cmd)]
    for step in inp.steps:
        if not isinstance(step, Cmd):
            ran.append(f"# {step(work, rng)}")  # a damage, said in the kept commands
            continue
        if step.gate and any(r is None or r.code != 0 for r in results):
            results.append(None)
            continue
        argv = [args.binary] + [os.fsencode(a) if isinstance(a, bytes) else a for a in step.args]
        text = shown(["rocesim"] + step.args)
        ran.append(text)
        before = listing(out)
        res = run_limited(argv, work, args.timeout, args.memory, env)
        results.append(res)
        after = listing(out)
        problems = step_problems(step, res, work, before, after)
        if res.peak_mb > args.memory:
            problems.append(f"memory: peak {res.peak_mb:.0f} MB")
        now = listing(box, skip=out)
        escaped = changes(outside, now) + [f"{n!r} (new, beside the box)"
                                           for n in set(os.listdir(workroot)) - {box.name} - others]
        if escaped:
            problems.append(f"wrote outside the output folder: {escaped}")
        outside, others = now, set(os.listdir(workroot)) - {box.name}
        found += [(p, text) for p in problems]
    for group in inp.agree:
        verdicts = [(cmds[i], results[i]) for i in group if results[i] is not None and results[i].code is not None]
        refused = [c for c, r in verdicts if r.code == 2]
        accepted = [c for c, r in verdicts if r.code != 2]
        if refused and accepted:
            why = next(r for c, r in verdicts if r.code == 2).stderr.decode(errors="replace").strip()[:200]
            code = results[cmds.index(accepted[0])].code
            found.append((f"{shown(refused[0].args[:1])} refuses ({why!r}) what {shown(accepted[0].args[:1])} "
                          f"accepts (exit {code})", shown(["rocesim"] + refused[0].args)))
    if found and args.keep:
        # input/: the files as given, with the commands to run in it; after/: the folder as the commands left it.
        keep = pathlib.Path(args.keep) / f"{inp.label.split()[0]}-{rng.randrange(10**9)}"
        for rel, data in inp.files.items():
            (keep / "input" / os.fsdecode(rel)).parent.mkdir(parents=True, exist_ok=True)
            (keep / "input" / os.fsdecode(rel)).write_bytes(data)
        (keep / "input").mkdir(parents=True, exist_ok=True)
        (keep / "input" / "commands").write_text("\n".join(ran) + "\n")
        shutil.copytree(work, keep / "after", symlinks=True)
    shutil.rmtree(box, ignore_errors=True)
    return found, ran


# Targets -------------------------------------------------------------------------------------------------------

def target_mutant(rng, ctx):
    """A seed with one file mutated, then one command on it."""
    case = rng.choice(ctx.cases)
    target = case.entry if rng.random() < 0.7 or len(case.files) == 1 else rng.choice(case.files[1:])
    files = case.contents({target: mutate((case.root / target).read_bytes(), rng)})
    return Input(f"mutant {case.name} ({target} mutated)", files, [mutant_command(case, rng)])


def mutant_command(case, rng, expect=None):
    """The command a seed runs through: its own kind's, and for scenarios one of the subcommands that read them."""
    if case.importer():
        extra = ["--port", rng.choice(["Ethernet0", "", "nope", "Ethernet0\x1b"])] if (
            case.importer() == "sonic" and rng.random() < 0.2) else []
        return Cmd(["import", case.importer(), case.entry, "-o", "out/imported.yaml"] + extra)
    if case.is_hpcc():
        # The fixtures' flows start at 2 s.
        return Cmd(["run", "--hpcc-config", case.entry, "-q", "-o", "out"]
                   + ([] if expect is not None else ["--set", "stop=2.00005s"]),
                   codes=(0, 2) if expect is None else (expect,))
    if expect is not None:
        return Cmd(["run", case.entry, "-o", "out"] + (["-q"] if rng.random() < 0.5 else []), codes=(expect,))
    stop = ["--set", "stop=" + rng.choice(["20us", "50us", "200us"])]
    r = rng.random()
    if r < 0.35:
        return Cmd(["validate", case.entry])
    if r < 0.45:
        # --failures 2 on the larger examples takes tens of seconds: 0 and 1 here, 2 on tiny fabrics elsewhere.
        return with_json_check(Cmd(["check", case.entry, "-q", "--failures", rng.choice(["0", "1"])]
                                   + (["--json"] if rng.random() < 0.5 else []), codes=(0, 1, 2)))
    if r < 0.55:
        return with_json_check(Cmd(["topology", case.entry]
                                   + rng.choice([[], ["--json"], ["--ports-csv", "out/ports.csv"]])))
    if r < 0.62:
        fmt = rng.choice(["csv", "hpcc"])
        return Cmd(["flows", case.entry, "-o", f"out/flows.{'csv' if fmt == 'csv' else 'txt'}", "--format", fmt]
                   + stop)
    return Cmd(["run", case.entry, "-o", "out"] + (["-q"] if rng.random() < 0.5 else []) + stop)


def with_json_check(cmd):
    """cmd, its stdout also checked as JSON when it asked for --json and did not fail."""
    other = cmd.check

    def check(work, res):
        found = other(work, res) if other else []
        if "--json" in cmd.args and res.code in (0, 1):
            try:
                json.loads(res.stdout)
            except ValueError as e:
                found.append(f"--json output does not parse: {e}: {res.stdout[:200]!r}")
        return found
    cmd.check = check
    return cmd


GPU_SCENARIO = (b"name: gpus\nseed: 1\nstop: 1ms\n"
                b"topology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2, nics_per_host: 2, "
                b"rail: true}\nserver: {gpus: 2}\n")
# Sizes that are either small or bad: a valid size of gigabytes would take minutes of simulated packets.
NCCL_SIZES = ["0", "1", "8", "64K", "1M", "1MiB", "9999999999G", "18446744073709551615", "99999999999999999999",
              "-1", "-8M", "abc", "", "1e3", "0x10", " 8", "8 ", "1.5K", "8Q", "16E", "1KiB"]
NCCL_FLAGS = {
    "-f": ["1", "2", "4", "0", "-3", "1048577", "x", "99999999999"],
    "-i": ["1M", "64K", "0", "-1", "9999999999G", "x", ""],
    "-n": ["1", "2", "0", "100001", "-1", "x"],
    "-w": ["0", "1", "100001", "-1"],
    "--op": ["all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all", "ALL_REDUCE", "", "x\x1b"],
    "--algorithm": ["ring", "tree", "halving_doubling", "", "nvls", "ring,tree"],
}
NCCL_SETS = ["stop=", "stop=1us", "stop=0", "=", "stop", "nic.cc=hpcc", "server.gpus=0", "server.gpus=1",
             "workload.0.protocol.channels=16", "workload.0.protocol.channels=0", "workload=[]", "nic.mtu=0",
             "workload.0.sizes=[1KB]", "seed=-1", "name=a\x1bb"]


def nccl_bytes(text):
    """nccl-tests' size text (8, 64K, 1M, 8G: powers of 1024) as bytes, or None for another form."""
    m = re.fullmatch(r"(\d+)([KMG]?)", text)
    return int(m.group(1)) * 1024 ** ("KMG".find(m.group(2)) + 1 if m.group(2) else 0) if m else None


def target_nccl(rng, ctx):
    """nccl-tests on 4 GPUs with some of its flags set to odd values; the table's sizes stay within -b and -e."""
    args = ["nccl-tests", "g.yaml", "-q"]
    sizes = {}
    if rng.random() < 0.15:
        # Edges a uniform draw seldom combines: empty sweeps, a step of 0, an overflowing size, an empty stop.
        edge = rng.choice([["-b", "0", "-e", "0"], ["-b", "8", "-e", "0"], ["-e", "9999999999G"],
                           ["-e", "0", "-f", "1"],
                           ["-b", "8", "-e", "64K", "-f", "1", "-i", "0"], ["--set", "stop="], ["--set", "workload=[]"],
                           ["-b", "1", "-e", "1"], ["-b", "64K", "-e", "8"]])
        args += edge
        sizes.update((edge[i], edge[i + 1]) for i in range(0, len(edge), 2) if edge[i] in ("-b", "-e"))
    for flag in ("-b", "-e"):
        if flag not in sizes and rng.random() < 0.7:
            sizes[flag] = rng.choice(NCCL_SIZES)
            args += [flag, sizes[flag]]
    if "-e" not in sizes and rng.random() < 0.8:
        sizes["-e"] = "64K"  # keeps a big -b from sweeping up to the 32M default at length
        args += ["-e", "64K"]
    for flag, values in NCCL_FLAGS.items():
        if flag not in args and rng.random() < 0.3:
            args += [flag, rng.choice(values)]
    for _ in range(rng.choice([0, 0, 1, 2])):
        args += ["--set", rng.choice(NCCL_SETS)]
    if rng.random() < 0.3:
        args += ["-o", rng.choice(["out/n", "out", "out/n/"])]
    top = nccl_bytes(sizes.get("-e", "32M"))

    def check(work, res):
        if res.code != 0:
            return []
        rows = [ln.split() for ln in res.stdout.decode(errors="replace").splitlines() if ln and ln[0] != "#"]
        if not rows:
            return ["exit 0 without a row in the table"]
        # Sizes are rounded to whole elements: a few bytes of slack, and no check of a size given as 1MiB.
        big = [r[0] for r in rows if top is not None and r[0].isdigit() and int(r[0]) > max(top, 64)]
        if big:
            return [f"sizes above -e {sizes.get('-e', '32M (default)')}: {big[:3]}"]
        return []
    return Input("nccl-tests", {"g.yaml": GPU_SCENARIO}, [Cmd(args, check=check)])


SWEEP_GRIDS = [("nic.cc", ["dcqcn", "hpcc"]), ("switch.ecn.kmin", ["100KB", "200KB"]),
               ("switch.pfc.priorities", ["[3]", "[3,4]"]), ("name", ['a"b', "c d"])]
ODD_GRIDS = ["nic.cc=", "=a,b", "nic.cc=dcqcn,dcqcn", "foo=1,2", "seed=1,2", "stop=20us,0", "nic.cc=dcqcn,,hpcc",
             "switch.pfc.priorities=[3,[4]", "nic.cc", "name=\x1b,b"]
SWEEP_STATUSES = {"ok", "failed", "partial", "stale", "damaged", "missing"}


def target_sweep(rng, ctx):
    """A sweep of at most 8 tiny runs (or its job file and a task), a damaged run, --collect, and a restart."""
    folder = rng.choice(["out/sw", "out/sw", "out/s w", "out/s,w", 'out/s"w', "out/sw/", "out/s\x1bw"])
    grid, expected = [], {}
    for key, values in rng.sample(SWEEP_GRIDS, rng.choice([0, 1, 1, 2])):
        if key in expected:
            continue
        expected[key] = values
        grid += ["--grid", f"{key}={','.join(values)}"]
    if rng.random() < 0.2:
        grid += ["--grid", rng.choice(ODD_GRIDS)]
    seeds = ["--seeds", rng.choice(["1-2", "1,3", "2", "3-1", "0", "-1", "1-100001", "x", ""])] \
        if rng.random() < 0.4 else []
    jobs = ["-j", rng.choice(["1", "2", "2", "0", "4097"])] if rng.random() < 0.7 else []
    cmd = ["sweep", "s.yaml", "-o", folder, "-q"] + STOP + grid + seeds + jobs

    def summary_check(work, res):
        path = work / folder / "summary.csv"
        if res.code not in (0, 1) or not path.exists():
            return []
        try:
            rows = list(csv.DictReader(io.StringIO(path.read_text(errors="replace"), newline="")))
        except csv.Error as e:
            return [f"summary.csv does not parse: {e}"]
        found = [f"summary.csv: status {r.get('status')!r}" for r in rows if r.get("status") not in SWEEP_STATUSES]
        for key, values in expected.items():
            bad = [r.get(key) for r in rows if r.get(key) not in values]
            if bad:
                found.append(f"summary.csv: column {key!r} holds {bad[:2]!r}, the grid gave {values!r}")
        return found[:2]

    steps = []
    if rng.random() < 0.25:
        steps.append(Cmd(cmd + ["--emit", rng.choice(["slurm", "parallel", "parallel", "bogus"])], check=summary_check))
        for task in rng.sample(["0", "1", "99", "-1", "x"], 2):
            steps.append(Cmd(["sweep", "--task", task, folder, "-q"], codes=(0, 1, 2), gate=True))
    else:
        # Every run of the tiny scenario finishes: 1 (a run failed) is a problem here; its log says which.
        steps.append(Cmd(cmd, check=summary_check))
    if rng.random() < 0.5:
        steps.append(lambda work, r: damage(work, folder, r, ["runs/0000/summary.json", "runs/0001/flows.csv",
                                                               "manifest.json", "summary.csv", "runs/0000"]))
    steps.append(Cmd(["sweep", "--collect", folder], codes=(0, 1, 2), check=summary_check))
    steps.append(Cmd(cmd, check=summary_check))  # the restart: redoes what is missing or damaged
    return Input("sweep", {"s.yaml": tiny_scenario()}, steps)


def target_import_hpcc(rng, ctx):
    """import hpcc (its files maybe mutated), then the subcommands that read a scenario, on what it wrote."""
    case = rng.choice([c for c in ctx.cases if c.is_hpcc()])
    changed = {}
    if rng.random() < 0.6:
        target = rng.choice(case.files)
        changed[target] = mutate((case.root / target).read_bytes(), rng)
    steps = [Cmd(["import", "hpcc", case.entry, "-o", "out/s.yaml"]),
             Cmd(["validate", "out/s.yaml"], gate=True),
             with_json_check(Cmd(["check", "out/s.yaml", "-q"] + rng.choice([[], ["--json"]]), codes=(0, 1, 2),
                                 gate=True)),
             Cmd(["topology", "out/s.yaml", "--ports-csv", "out/ports.csv"], gate=True),
             Cmd(["run", "out/s.yaml", "-o", "out/run", "-q", "--set", "stop=2.00005s"], gate=True)]
    return Input(f"import-hpcc {case.name}" + (f" ({next(iter(changed))} mutated)" if changed else ""),
                 case.contents(changed), steps, agree=[(1, 2, 3, 4)])


# Damage to result files: each a function of the file's bytes and rng, returning the new bytes (None: delete).
def truncate(data, rng):
    return data[:rng.randrange(len(data) + 1)]


def garble(data, rng):
    s = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if s:
            s[rng.randrange(len(s))] = rng.randrange(256)
    return bytes(s)


def csv_damage(data, rng):
    """A CSV with a column gone, a cell that is not a number, a short or long row, or nothing but its header."""
    lines = data.split(b"\n")
    kind = rng.randrange(5)
    if kind == 0:  # a column gone from every row
        col = rng.randrange(max(1, lines[0].count(b",") + 1))
        lines = [b",".join(c for i, c in enumerate(ln.split(b",")) if i != col) if ln else ln for ln in lines]
    elif kind == 1 and len(lines) > 2:  # a cell that is not a number
        cells = lines[1].split(b",")
        cells[rng.randrange(len(cells))] = rng.choice([b"x", b"nan", b"", b"1e999", b"-", b"\xff"])
        lines[1] = b",".join(cells)
    elif kind == 2 and len(lines) > 2:
        lines[1] = rng.choice([lines[1] + b",9", lines[1].rsplit(b",", 1)[0]])
    elif kind == 3:
        lines = lines[:1]
    else:
        return truncate(data, rng)
    return b"\n".join(lines)


def data_block(data, rng):
    """report.html with its data block (the runs' JSON) replaced by something a run never writes."""
    m = re.search(rb'(<script type="application/json" id="rocesim-data">)(.*?)(</script>)', data, re.S)
    if not m:
        return truncate(data, rng)
    body = rng.choice([b'{"runs":[5]}', b'{"runs":[]}', b"null", b'{"runs":[{}]}', b'{"runs":[{"name":5}]}',
                       b'{"runs":[{"summary":[]}]}', b"[]", b"", truncate(m.group(2), rng),
                       b'{"runs":' + b"[" * 100000, b'{"note":"\x1b","runs":5}', garble(m.group(2), rng)])
    if rng.random() < 0.1:
        return data[:m.start()] + data[m.end():]  # no data block at all
    return data[:m.start(2)] + body + data[m.end(2):]


def json_damage(data, rng):
    return rng.choice([b"", b"[]", b"null", b'{"scenario": 5}', b'{"flows": "x"}', b"{" * 100000,
                       b'{"fct_slowdown": {"p50": "nan"}, "partial": "yes"}', truncate(data, rng), garble(data, rng)])


def damage(work, folder, rng, names):
    """Damages one of names under work/folder (a file or a folder): deleted, truncated, garbled or made invalid.
    Returns what it did, for the kept commands."""
    where = os.path.join(folder, rng.choice(names))
    path = work / where
    if not path.exists():
        return f"{where}: absent, not damaged"
    if path.is_dir() or rng.random() < 0.15:
        shutil.rmtree(path) if path.is_dir() else path.unlink()
        return f"{where}: deleted"
    data = path.read_bytes()
    if path.name == "report.html":
        new = data_block(data, rng)
    elif path.suffix == ".json":
        new = json_damage(data, rng)
    elif path.suffix == ".csv":
        new = rng.choice([csv_damage, csv_damage, truncate, garble])(data, rng)
    else:
        new = rng.choice([truncate, garble])(data, rng)
    path.write_bytes(new)
    return f"{where}: damaged (after/ holds it)"


RESULT_FILES = ["summary.json", "flows.csv", "report.html", "report.html", "ports.csv", "fct_buckets.csv",
                "timeseries.csv", "nics.csv"]


def target_results(rng, ctx, plot=None):
    """Two tiny runs, one damaged, then report, compare and (sometimes: it takes seconds) plot on them."""
    steps = [Cmd(["run", "s.yaml", "-o", "out/a", "-q"]),
             Cmd(["run", "s.yaml", "-o", "out/b", "-q", "--set", "nic.cc=hpcc",
                  "--set", "output.timeseries.ports=switch0:0", "--set", "output.timeseries.flows=[0]"], gate=True)]
    which = rng.choice(RESULT_FILES)
    # Only b has a time series.
    steps.append(lambda work, r: damage(work, "out/b" if which == "timeseries.csv" else r.choice(["out/a", "out/b"]),
                                        r, [which]))
    dirs = ["out/a", "out/b"]
    if rng.random() < 0.3:
        dirs.append(rng.choice(["out/missing", "out/a/flows.csv", "out/a", "out/b/", "out", "", "out/a\x1b"]))
    steps.append(Cmd(["report"] + dirs + ["-o", "out/r.html"] + (["-q"] if rng.random() < 0.5 else [])))
    steps.append(Cmd(["compare"] + dirs))
    if plot is None:  # plot starts Python and matplotlib: seconds, so mostly where it reads the damage
        plot = rng.random() < (0.15 if which.endswith(".csv") else 0.02)
    if plot:
        steps.append(Cmd(["plot"] + dirs + ["-o", "out/plots"], tool=True))
    return Input(f"results ({which} damaged)", {"s.yaml": tiny_scenario()}, steps)


EVENT_TIMES = ["0", "0ns", "1ps", "10us", "19.999us", "20us", "1s", "1e300s", "9999999999999s",
               "18446744073709551615ps", "-1us", "-0", "nan", "inf", "1e-30s", "abc", "10", "''", "[]"]
EVENT_TARGETS = {
    "link": ["host0", "host2", "host3", "host99", "switch0:0", "switch0:2", "switch0:3", "switch0:-1", "switch1:0",
             "switch0", "host0.nic0", "host0.nic1", "''", "'a,b'", "spine0:0", "'switch0:0\x1b'", "'h\udcff'"],
    "switch": ["switch0", "switch1", "host0", "''", "switch0:0", "'s\x1b'"],
    "nic": ["host0", "host1", "host9", "host0.nic0", "host0.nic3", "switch0", "''", "'\udcc3('"],
}
EVENT_TYPES = {"link_down": "link", "link_up": "link", "switch_down": "switch", "switch_up": "switch",
               "pause_storm": "nic", "slow_receiver": "nic", "bogus": "link", "": "link"}


def target_events(rng, ctx):
    """The scenario's events at odd times and on odd nodes, read by validate, check, topology and run."""
    lines = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(list(EVENT_TYPES))
        what = EVENT_TYPES[kind] if rng.random() < 0.9 else rng.choice(list(EVENT_TARGETS))
        e = [f"at: {rng.choice(EVENT_TIMES)}", f"type: {kind or repr('')}",
             f"{what}: {rng.choice(EVENT_TARGETS[what])}"]
        if rng.random() < 0.4:
            e.append(f"until: {rng.choice(EVENT_TIMES)}")
        if kind in ("pause_storm", "slow_receiver") and rng.random() < 0.6:
            e.append(f"priority: {rng.choice(['0', '3', '7', '8', '-1', '65536'])}")
        if kind == "slow_receiver" and rng.random() < 0.8:
            e.append(f"rate: {rng.choice(['1Gbps', '0Gbps', '-1Gbps', '99Tbps', 'nan', '1e308Gbps', '50Gbps'])}")
        if rng.random() < 0.05:
            e.append("color: red")
        rng.shuffle(e)
        lines.append(b"  - {" + ", ".join(e).encode("utf-8", "surrogateescape") + b"}\n")
    files = {"s.yaml": tiny_scenario(b"events:\n" + b"".join(lines))}
    steps = [Cmd(["validate", "s.yaml"]),
             with_json_check(Cmd(["check", "s.yaml", "-q", "--failures", rng.choice(["0", "1", "2"])]
                                 + rng.choice([[], ["--json"]]), codes=(0, 1, 2))),
             with_json_check(Cmd(["topology", "s.yaml"] + rng.choice([[], ["--json"]]))),
             Cmd(["run", "s.yaml", "-o", "out/r", "-q"])]
    return Input("events", files, steps, agree=[(0, 1, 2, 3)])


OUTPUT_NAMES = [".", "..", "sub/x", "../x", "../../x", "x" * 300, "y" * 200, "y" * 201, "flows.csv",
                "summary.json", "report.html", ".rocesim.lock", "s.yaml", "f.csv", "a\x1bb", "a\nb", "", " ", "-",
                "a,b", 'a"b', b"\xff\xfe", "fct.txt", "caf\u00e9", "nul\\0", "/", "x/", "./x", "nccl-tests.txt"]
OUTPUT_KEYS = ["capture.file", "output.hpcc.fct", "output.hpcc.pfc", "output.hpcc.qlen"]
RUN_FOLDERS = ["out", "out/r", "out/r/", "out/a b", "out/a,b", "out/x\x1by", "out/" + "d" * 300, "out/sub/deeper",
               "out/./r", "out/s.yaml", "out/f.csv"]
# Single result files the command line names: each under out/, or naming an input (to be refused, never written).
# INPUT stands for the scenario's path.
FILE_NAMES = ["out/x", "out/.", "out/..", "out/", "out/sub/x", "out/" + "z" * 300, "out/a\x1bb", "out/x,y",
              "INPUT", "out/../INPUT", "out/./INPUT", "", "out/\udcff"]


def target_output_names(rng, ctx):
    """Output names given in the scenario, with --set or on the command line, that no run should write through."""
    inside = rng.random() < 0.4  # the scenario and its flow file inside out/: their names are taken there
    workload = b"  - {type: flows, path: f.csv}\n" if inside else None
    names = {}
    for key in rng.sample(OUTPUT_KEYS, rng.randint(1, 3)):
        names[key] = rng.choice(OUTPUT_NAMES) if rng.random() < 0.8 or not names else next(iter(names.values()))
    in_yaml = rng.random() < 0.6
    sets = []
    for key, name in names.items():
        if not in_yaml and b"\n" not in b(name):  # an argument cannot hold a newline the way a user types it
            sets += ["--set", b(key.encode() + b"=" + b(name))]
    scenario = tiny_scenario(b"", workload=workload) + nest(names, rng, in_yaml)
    place = "out/" if inside else ""
    files = {place + "s.yaml": scenario}
    if inside:
        files["out/f.csv"] = b"src,dst,size,start,priority\n1,0,20KB,0us,3\n2,0,20KB,0us,3\n"
    folder = rng.choice(RUN_FOLDERS) if rng.random() < 0.4 else "out"
    steps = [Cmd(["validate", place + "s.yaml"] + sets),
             Cmd(["run", place + "s.yaml", "-o", folder, "-q"] + sets)]
    r = rng.random()
    file = rng.choice(FILE_NAMES).replace("INPUT", place + "s.yaml")
    if file == place + "s.yaml" and inside and rng.random() < 0.5:
        file = "out/f.csv"  # the flow file
    if r < 0.25:
        steps.append(Cmd(["topology", place + "s.yaml", "--ports-csv", file]))
    elif r < 0.5:
        steps.append(Cmd(["flows", place + "s.yaml", "-o", file] + STOP))
    elif r < 0.7:
        # report's inputs are the folder's report.html, not the scenario.
        page = rng.choice(FILE_NAMES).replace("INPUT", folder.rstrip("/") + "/report.html")
        steps.append(Cmd(["report", folder, "-o", page], gate=True))
    # With the inputs outside out/ no result can replace one: validate and run must agree on every name.
    agree = [] if inside or folder != "out" else [(0, 1)]
    return Input(f"output-names {names!r}" + (" (inputs in out/)" if inside else ""), files, steps, agree)


def nest(names, rng, in_yaml):
    """The YAML of the output names (the capture section and output.hpcc) when given in the scenario."""
    if not in_yaml:
        return b"capture: {hosts: [0]}\n" if "capture.file" in names else b""
    text = b""
    if "capture.file" in names:
        text += b"capture: {hosts: [0], file: " + yaml_quoted(names["capture.file"], rng) + b"}\n"
    hpcc = [(k.split(".")[-1], v) for k, v in names.items() if k.startswith("output.hpcc.")]
    if hpcc:
        text += b"output:\n  hpcc:\n" + b"".join(b"    %s: " % k.encode() + yaml_quoted(v, rng) + b"\n"
                                                  for k, v in hpcc)
    return text


NODE_NAMES = [b"a,b", b'"q"', b'q"uote', b"e\x1bx", b"n\nl", b"\xff\xfe", b"caf\xc3\xa9", b"x" * 300, b"#c",
              b"s:1", b"h.nic0", b"host0", b"-", b"a\tb", b"'", b"\\", b"=", b"nics=2", b"r\rx", b"\xc3\x28",
              b"ok1", b"ok2", b"ok3", b"sw"]


def printable(name):
    """A name the outputs should give back as it is: UTF-8 without control bytes, blanks or a comment sign."""
    try:
        return not re.search(rb"[\x00-\x20\x7f#]", name) and bool(name.decode("utf-8"))
    except UnicodeDecodeError:
        return False


def target_node_names(rng, ctx):
    """A topology file whose nodes are named with commas, quotes, control bytes, newlines, invalid UTF-8."""
    names = rng.sample(NODE_NAMES, 5)
    hosts, switches = names[:3], names[3:3 + rng.choice([1, 2])]
    gpus = rng.random() < 0.25  # servers of 2 NICs, each NIC on a switch of its own when there are two
    lines = [b"host " + h + (b" nics=2" if gpus else b"") for h in hosts] + [b"switch " + s for s in switches]
    if gpus:
        lines += [b"link %s.nic%d %s 100Gbps 1us" % (h, k, switches[k % len(switches)]) for h in hosts for k in (0, 1)]
    else:
        lines += [b"link %s %s 100Gbps 1us" % (h, switches[i % len(switches)]) for i, h in enumerate(hosts)]
    if len(switches) > 1:
        lines.append(b"link " + switches[0] + b" " + switches[1] + b" 400Gbps 1us")
    extra = b"topology: {type: file, path: t.topo}\n"
    if rng.random() < 0.4:
        extra += b"output: {timeseries: {ports: " + yaml_quoted(switches[0] + b":0", rng) + b", flows: [0]}"
        extra += (b", trace: {nodes: all}" if rng.random() < 0.5 else b"") + b"}\n"
    if rng.random() < 0.3:
        extra += b"capture: {ports: " + yaml_quoted(switches[0] + b":1", rng) + b"}\n"
    if gpus:
        extra += b"server: {gpus: 2}\n"
    scenario = tiny_scenario(b"").replace(b"topology: {type: star, hosts: 3}\n", extra)
    files = {"s.yaml": scenario, "t.topo": b"\n".join(lines) + b"\n"}

    def round_trip(*tables):
        """A check: read back by a CSV reader, each of tables ((file, column, names)) holds the names the
        topology file declares (where every name is one the outputs should give back unchanged)."""
        return lambda work, res: names_read_back(work, res, tables, hosts + switches)

    steps = [Cmd(["validate", "s.yaml"]),
             with_json_check(Cmd(["check", "s.yaml", "-q"] + rng.choice([[], ["--json"], ["--failures", "2"]]),
                                 codes=(0, 1, 2))),
             with_json_check(Cmd(["topology", "s.yaml", "--ports-csv", "out/ports.csv"] + rng.choice([[], ["--json"]]),
                                 check=round_trip(("out/ports.csv", "switch", switches)))),
             Cmd(["run", "s.yaml", "-o", "out/r"] + (["-q"] if rng.random() < 0.5 else []),
                 check=round_trip(("out/r/nics.csv", "server", hosts), ("out/r/ports.csv", "switch", switches)))]
    if gpus:
        # Not held to agree with the others: it replaces the workloads, which output.timeseries.flows may name.
        steps.append(Cmd(["nccl-tests", "s.yaml", "-b", "8", "-e", "64K", "-f", "8", "-q"]))
    return Input(f"node-names {[n for n in hosts + switches]!r}", files, steps, agree=[(0, 1, 2, 3)])


def names_read_back(work, res, tables, names):
    """Problems of the tables ((file, column, declared names)) a command wrote: a column holding other names."""
    if res.code != 0 or not all(printable(n) for n in names):
        return []
    found = []
    for rel, col, declared in tables:
        try:
            text = (work / rel).read_bytes().decode("utf-8", "replace")
            seen = {r.get(col) for r in csv.DictReader(io.StringIO(text, newline=""))}
        except (OSError, csv.Error):
            continue  # not written, or said by the CSV check
        want = {n.decode() for n in declared}
        if not seen <= want or (col == "server" and seen != want):
            found.append(f"{rel}: column {col!r} holds {sorted(map(str, seen))[:4]!r}, "
                         f"the topology file declares {sorted(want)!r}")
    return found


CLI_CASES = [
    ["params"], ["params", "switch.ecn"], ["params", "zzz"], ["params", "\x1b"], ["params", "topology[star]"],
    ["params", "["], ["params", "--markdown"], ["params", ""], ["--version"], ["--help"], ["bogus"], [],
    ["run", "--help"], ["sweep", "--help"], ["import"], ["import", "bogus", "x"], ["run", "--bogus"],
    ["run", "s.yaml", "-o", "out", "--seed", "-1"] + STOP, ["run", "s.yaml", "-o", "out", "--seed", "x"],
    ["run", "s.yaml", "-o", "out", "--seed", "18446744073709551616"] + STOP,
    ["validate", "s.yaml", "--set", "stop="], ["validate", "s.yaml", "--set", "="], ["validate", "s.yaml", "--set"],
    ["validate", "missing.yaml"], ["validate", "."], ["validate", "/dev/null"], ["validate", "s.yaml", "s.yaml"],
    ["run", "-o", "out/d", "-q"] + STOP, ["check", "s.yaml", "--failures", "3"],
    ["check", "s.yaml", "--failures", "-1"],
    ["check", "s.yaml", "--failures", "x"], ["topology", "s.yaml", "--ports-csv"],
    ["flows", "s.yaml", "-o", "out/f.txt", "--format", "hpcc", "--offset", "2"] + STOP,
    ["flows", "s.yaml", "-o", "out/f.txt", "--format", "hpcc", "--offset", "-1"] + STOP,
    ["flows", "s.yaml", "-o", "out/f.txt", "--format", "hpcc", "--offset", "nan"] + STOP,
    ["flows", "s.yaml", "-o", "out/f.txt", "--format", "hpcc", "--offset", "1e308"] + STOP,
    ["flows", "s.yaml", "-o", "out/f.csv", "--format", "bogus"], ["compare"], ["compare", "out/none"],
    ["report", "out/none"], ["plot"], ["plot", "out/none"], ["sweep", "--collect", "out/none"],
    ["sweep", "--task", "0", "out/none"],
    ["sweep", "s.yaml", "-o", "out/sw", "--emit", "slurm", "--seeds", "1-3"] + STOP,
    ["import", "hpcc", "missing.txt", "-o", "out/x.yaml"], ["import", "sonic", "s.yaml", "-o", "out/x.yaml"],
    ["import", "mlnx-qos", "s.yaml", "-o", "out/x.yaml"], ["nccl-tests", "s.yaml", "-q"],
    # Results that would replace the command's own input.
    ["import", "mlnx-qos", "nic.qos", "-o", "nic.qos"], ["import", "mlnx-qos", "nic.qos", "-o", "out/../nic.qos"],
    ["flows", "s.yaml", "-o", "s.yaml"] + STOP, ["topology", "s.yaml", "--ports-csv", "s.yaml"],
]


def target_cli(rng, ctx):
    """Flags and values nobody should give, and the commands that only print."""
    args = rng.choice(CLI_CASES)
    tool = args[:1] == ["plot"]
    files = {"s.yaml": tiny_scenario(), "nic.qos": (ROOT / "tests" / "io" / "corpus" / "nic.qos").read_bytes()}
    return Input(f"cli {shown(args)}", files, [Cmd(args, tool=tool)])


# name, weight (how often it is drawn after the first round), builder(rng, ctx) -> Input
TARGETS = (
    ("mutant", 16, target_mutant),
    ("nccl-tests", 2, target_nccl),
    ("sweep", 1, target_sweep),
    ("import-hpcc", 1, target_import_hpcc),
    ("results", 2, target_results),
    ("events", 2, target_events),
    ("output-names", 2, target_output_names),
    ("node-names", 2, target_node_names),
    ("cli", 1, target_cli),
)


class Context:
    def __init__(self, cases):
        self.cases = cases


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="the rocesim program")
    ap.add_argument("--seconds", type=float, default=30, help="time budget for the targets (the corpus always runs)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60, help="per command, in seconds")
    ap.add_argument("--memory", type=float, default=2048, help="peak resident memory per command, in MB")
    ap.add_argument("--limit-fraction", type=float, default=0.5,
                    help="the program's own memory limit (ROCESIM_MEMORY_LIMIT) as a fraction of --memory: what it "
                    "refuses up front; lower it under AddressSanitizer, whose shadow memory and quarantine the "
                    "estimate does not count")
    ap.add_argument("--keep", help="folder to keep failing inputs in")
    ap.add_argument("--only", action="append", choices=[t[0] for t in TARGETS],
                    help="fuzz only this target (repeat for more); the corpus runs unless --no-corpus")
    ap.add_argument("--no-corpus", action="store_true", help="skip the regression corpus")
    args = ap.parse_args()
    args.binary = str(pathlib.Path(args.binary).resolve())
    if not os.access(args.binary, os.X_OK) or not os.path.getsize(args.binary):
        ap.error(f"{args.binary}: not an executable program (being rebuilt?)")
    rng = random.Random(args.seed)
    ctx = Context(load_cases())
    targets = [t for t in TARGETS if not args.only or t[0] in args.only]
    failures = runs = 0
    per_kind = {}

    def report(inp, found):
        nonlocal failures
        for problem, command in found:
            failures += 1
            label = inp.label if len(inp.label) < 160 else inp.label[:150] + "..."
            print(f"FAIL {label}: {problem}\n  {command}", flush=True)

    with tempfile.TemporaryDirectory(prefix="rocesim-fuzz-") as workroot:
        for case in ctx.cases if not args.no_corpus else []:
            if case.expect is None:
                continue
            inp = Input(f"corpus {case.name}", case.contents(), [mutant_command(case, rng, case.expect)])
            found, _ = run_input(inp, args, rng, workroot)
            runs += 1
            report(inp, found)
        deadline = time.monotonic() + args.seconds
        # Every target once (plot included), then by weight until the time is up.
        first = [(name, build) for name, _, build in targets]
        while first or time.monotonic() < deadline:
            if first:
                name, build = first.pop(0)
                inp = target_results(rng, ctx, plot=True) if name == "results" else build(rng, ctx)
            else:
                # Only kinds whose mean input so far fits in the time left: the budget holds under the sanitizers
                # too, where one input of several commands takes seconds.
                left = deadline - time.monotonic()
                fit = [t for t in targets if per_kind[t[0]][1] / per_kind[t[0]][0] <= left]
                if not fit:
                    break
                name, _, build = rng.choices(fit, weights=[t[1] for t in fit])[0]
                inp = build(rng, ctx)
            began = time.monotonic()
            found, _ = run_input(inp, args, rng, workroot)
            count, secs = per_kind.get(name, (0, 0))
            per_kind[name] = (count + 1, secs + time.monotonic() - began)
            runs += 1
            report(inp, found)
    kinds = ", ".join(f"{k} {n} in {t:.1f} s" for k, (n, t) in per_kind.items())
    print(f"{runs} inputs ({kinds}), {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
