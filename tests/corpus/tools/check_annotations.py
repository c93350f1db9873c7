#!/usr/bin/env python3
"""Lint the corpus ground truth.

Usage: check_annotations.py [CORPUS_DIR]   (default: kernels/corpus of this checkout)

Rules (docs/corpus.md):
  * buggy/<id>_<nn>_<style>.{cu,py}: exactly one `expect:` annotation, whose ID
    is in the catalogue and matches the file-name prefix (ord001 -> ORD-001);
    style is one of the known styles; line 1 is the header comment
    `// <file name>: BUG(<ID>) <what is wrong>. FIX: <how>` (`#` in .py files).
  * correct/c<nn>_<protocol>_<style>.{cu,py}: no `expect:` annotation; line 1
    is `// <file name>: CORRECT <protocol and why it is sound>`.
  * Serials are unique (<id>_<nn> among buggy files, c<nn> among correct ones);
    no header contains `expect:`.
  * In .py files: `// expect:` only inside CUDA_SRC, `# expect:` only for
    HOST-001 and BAR-004 on a Python line.
Prints one line per file (path, line, ID) and exits non-zero on any error.
"""
import os
import re
import sys

IDS = {
    "ORD-001", "ORD-002", "ORD-003", "ORD-004", "ORD-005", "SIG-001", "SIG-002",
    "BAR-001", "BAR-002", "BAR-003", "BAR-004", "BAR-005", "PART-001",
    "PART-002", "PART-003", "PART-004", "RACE-001", "RACE-002", "RACE-003",
    "TOPO-001",
    "HOST-001",
}
STYLES = {"rawptr", "addrtab", "peerview", "atomicref", "ptx", "coop", "pkb"}
EXPECT = re.compile(r"(//|#)\s*expect:\s*([A-Z]+-\d{3})\s*$")
NAME = re.compile(r"^([a-z]+)(\d{3})_(\d{2})_([a-z]+)\.(cu|py)$")
CORRECT_NAME = re.compile(r"^c(\d{2})_([a-z0-9]+(?:_[a-z0-9]+)*)_([a-z]+)\.(cu|py)$")


def cuda_span(lines):
    """Return (first, last) 1-based line numbers inside CUDA_SRC, or None."""
    start = None
    for i, line in enumerate(lines, 1):
        if start is None and re.match(r"^CUDA_SRC\s*=\s*r'''", line):
            start = i
        elif start is not None and line.startswith("'''"):
            return start, i
    return None


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "kernels", "corpus")
    root = os.path.normpath(root)
    errors = 0
    counts = {}
    serials = {}
    for sub in ("buggy", "correct"):
        d = os.path.join(root, sub)
        for name in sorted(os.listdir(d)):
            if not name.endswith((".cu", ".py")):
                continue
            path = os.path.join(d, name)
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            hits = []
            for no, line in enumerate(lines, 1):
                if "expect:" in line:
                    m = EXPECT.search(line)
                    if not m:
                        print(f"{path}:{no}: malformed expect annotation")
                        errors += 1
                        continue
                    hits.append((no, m.group(1), m.group(2)))
            header = lines[0]
            hmark = "#" if name.endswith(".py") else "//"
            if "expect:" in header:
                print(f"{path}:1: the header must not contain `expect:`")
                errors += 1
            if sub == "correct":
                if hits:
                    print(f"{path}: correct file has an expect annotation")
                    errors += 1
                if not header.startswith(f"{hmark} {name}: CORRECT "):
                    print(f"{path}:1: header must start with `{hmark} {name}: CORRECT `")
                    errors += 1
                m = CORRECT_NAME.match(name)
                if not m:
                    print(f"{path}: file name must be c<nn>_<protocol>_<style>.cu|py")
                    errors += 1
                elif m.group(3) not in STYLES or (m.group(3) == "pkb") != (m.group(4) == "py"):
                    print(f"{path}: unknown style {m.group(3)} (or pkb <=> .py violated)")
                    errors += 1
                elif m.group(1) in serials:
                    print(f"{path}: serial c{m.group(1)} also used by {serials[m.group(1)]}")
                    errors += 1
                else:
                    serials[m.group(1)] = name
                print(f"{path}: correct")
                continue
            m = NAME.match(name)
            if not m:
                print(f"{path}: file name must be <id>_<nn>_<style>.cu|py")
                errors += 1
                continue
            prefix = f"{m.group(1).upper()}-{m.group(2)}"
            serial = f"{m.group(1)}{m.group(2)}_{m.group(3)}"
            if serial in serials:
                print(f"{path}: serial {serial} also used by {serials[serial]}")
                errors += 1
            serials[serial] = name
            if m.group(4) not in STYLES:
                print(f"{path}: unknown style {m.group(4)}")
                errors += 1
            if (m.group(4) == "pkb") != (m.group(5) == "py"):
                print(f"{path}: style pkb <=> .py")
                errors += 1
            if len(hits) != 1:
                print(f"{path}: expected exactly one annotation, found {len(hits)}")
                errors += 1
                continue
            no, marker, cid = hits[0]
            if cid not in IDS or cid != prefix:
                print(f"{path}:{no}: annotation {cid} does not match file prefix {prefix}")
                errors += 1
            if not header.startswith(f"{hmark} {name}: BUG({cid}) ") or ". FIX: " not in header:
                print(f"{path}:1: header must be `{hmark} {name}: BUG({cid}) <what is wrong>. FIX: <how>`")
                errors += 1
            if name.endswith(".py"):
                span = cuda_span(lines)
                inside = span is not None and span[0] < no < span[1]
                if inside != (marker == "//"):
                    print(f"{path}:{no}: use // inside CUDA_SRC and # outside it")
                    errors += 1
                if not inside and cid not in ("HOST-001", "BAR-004"):
                    print(f"{path}:{no}: only HOST-001/BAR-004 may be annotated on Python lines")
                    errors += 1
            elif marker != "//":
                print(f"{path}:{no}: use // in .cu files")
                errors += 1
            counts[cid] = counts.get(cid, 0) + 1
            print(f"{path}:{no}: {cid}")
    print("per-ID counts:", ", ".join(f"{k}={counts.get(k, 0)}" for k in sorted(IDS)))
    missing = [k for k in sorted(IDS) if counts.get(k, 0) < 1]
    if missing:
        print("IDs without a buggy file:", ", ".join(missing))
        errors += 1
    print("annotation check:", "FAILED" if errors else "OK")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
