#!/usr/bin/python3
"""Checks docs/architecture.md against the code: its layers, and the files and registries it names.

Layers: every include between folders of src/rocesim runs downwards.
The layers are read from docs/architecture.md, the line that starts "Dependencies point downwards:": folders in
backticks, lowest first, layers separated by "←"; folders of one layer may not include each other. A file may
include its own folder and any folder of a lower layer. Prints each include that runs sideways or upwards and
exits 1 if there is one; exits 2 if the line is missing or leaves a folder out.

Names: every `folder/file` path in backticks (globs allowed) names a file of src/rocesim or of the repository, and
every `*_registry()` in backticks is defined in src/rocesim; each one that is not is printed, and the exit is 1.
"""
import argparse
import pathlib
import re
import sys


def layers_from_doc(doc: str) -> list[list[str]]:
    for line in doc.split("\n\n"):
        line = " ".join(line.split())
        if line.startswith("Dependencies point downwards:"):
            body = line.split(":", 1)[1].split(".")[0]
            return [re.findall(r"`([a-z_]+)`", part) for part in body.split("←")]
    return []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default=str(pathlib.Path(__file__).resolve().parent.parent))
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    layers = layers_from_doc((root / "docs/architecture.md").read_text())
    src = root / "src/rocesim"
    folders = sorted(p.name for p in src.iterdir() if p.is_dir())
    rank = {f: i for i, layer in enumerate(layers) for f in layer}
    missing = [f for f in folders if f not in rank]
    if not layers or missing:
        print(f"docs/architecture.md: the 'Dependencies point downwards' line leaves out {missing or 'every folder'}")
        return 2
    bad = []
    for path in sorted(src.rglob("*.[ch]pp")):
        own = path.relative_to(src).parts[0]
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r'#include "rocesim/([a-z_]+)/', line)
            if m and m.group(1) != own and rank.get(m.group(1), -1) >= rank[own]:
                bad.append(f"{path.relative_to(root)}:{n}: {own} includes {m.group(1)}, not below it")
    bad += missing_names((root / "docs/architecture.md").read_text(), root)
    for b in bad:
        print(b)
    return 1 if bad else 0


def missing_names(doc: str, root: pathlib.Path) -> list[str]:
    src = root / "src/rocesim"
    code = "\n".join(p.read_text() for p in src.rglob("*.[ch]pp"))
    out = []
    for name in sorted(set(re.findall(r"`([^`\s]+)`", doc))):
        if re.fullmatch(r"[a-z_]+_registry\(\)", name):
            if not re.search(r"\b" + re.escape(name[:-2]) + r"\(\) \{", code):
                out.append(f"docs/architecture.md: {name} is defined nowhere in src/rocesim")
        elif re.fullmatch(r"[a-z_]+/[A-Za-z0-9_*./-]*", name) and not name.endswith("/"):
            if not (list(src.glob(name)) or list(root.glob(name))):
                out.append(f"docs/architecture.md: {name} names no file")
    return out


if __name__ == "__main__":
    sys.exit(main())
