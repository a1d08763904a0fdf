#!/usr/bin/env python3
"""Runs every example of README.md and docs/*.md and compares the output shown.

The convention (docs/README.md says it for writers):

- An example is a line starting with `$ ` inside a ```console block. It runs in bash, in a
  folder made by tests/doc_fixtures.py (the repository's `samples/` and small files named as
  the examples name them), with `tensor-inspect` the binary under test.
- The lines after it, up to the next `$ ` line or the block's end, are its output: stdout,
  then stderr. A line `...` alone stands for any number of lines (none too); `…` (U+2026)
  inside a line for any text on that line. Trailing spaces do not count.
- The exit status must be 0, unless the output ends with a line `[exit N]`.
- A command ending in `# not run: REASON` (a network, a terminal, a large file) is not run; the
  test counts and prints those, and fails when there are more than MAX_SKIPS.
- No example may write more than MAX_OUTPUT bytes from one tensor-inspect run (also into a
  pipe): many-tensor examples use --header, --stats or a summary, never every value.

Also checked: README.md has at most 250 lines; every relative link of README.md and docs/
names a file that exists; docs/limits.md names every cap of limits.hpp; docs/json.md's table names
every top-level key of every schema in schemas/.

`doc_examples.py BIN --fill [FILE...]` writes the actual output under each example that shows none (for
writers; review the diff and shorten long outputs with `...`).
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_fixtures  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Examples not run: those that need a network (remote.md, object_stores.md; the tests
# remote_http, remote_folder and remote_s3 run the same commands against local servers) and
# one that needs a real model and its GGUF.
MAX_SKIPS = 10
MAX_OUTPUT = 64 * 1024
README_MAX_LINES = 250
SKIP = re.compile(r"#\s*not run:\s*(.+)$")
EXIT = re.compile(r"^\[exit (\d+)\]$")

# The tensor-inspect on PATH: the binary, its stdout counted (into $DOC_SIZES) before it is passed on.
WRAPPER = """#!/bin/bash
out=$(mktemp)
"$DOC_BIN" "$@" > "$out"
rc=$?
stat -c %s "$out" >> "$DOC_SIZES"
cat "$out"
rm -f "$out"
exit $rc
"""


def doc_files():
    docs = os.path.join(ROOT, "docs")
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))


def examples(path):
    """[(line_index, command, [expected lines])] of one file's console blocks, and the indices of
    `$ tensor-inspect` lines in other fenced blocks."""
    found, stray, in_block, current = [], [], False, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = None
    for i, line in enumerate(lines):
        if not in_block:
            if line.strip().startswith("```"):
                fence = None if fence else line.strip()
                in_block = fence == "```console"
            elif fence and line.strip().startswith("$ tensor-inspect"):
                stray.append(i)  # an example outside a console block would never run
            continue
        if line.strip() == "```":
            in_block, current, fence = False, None, None
        elif line.startswith("$ "):
            current = (i, line[2:], [])
            found.append(current)
        elif current is not None:
            current[2].append(line)
    return found, stray, lines


def pattern(expected):
    """A regex over the whole output for the expected lines (with `...` and `…`)."""
    parts = []
    for line in expected:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("".join(".*?" if c == "…" else re.escape(c) for c in line.rstrip()) + r"\n")
    return re.compile("".join(parts))


def normalized(text):
    """Each line without trailing spaces, each ending in a newline (the last one too)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return "".join(line.rstrip() + "\n" for line in lines)


def run(command, workdir, env):
    sizes = env["DOC_SIZES"]
    open(sizes, "w").close()
    p = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=workdir, env=env, capture_output=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    with open(sizes) as f:
        written = [int(s) for s in f.read().split()]
    out = p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")
    return p.returncode, normalized(out) if out else "", written


def check_links(path, lines, failures):
    base = os.path.dirname(path)
    for i, line in enumerate(lines):
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(base, target))):
                failures.append(f"{os.path.relpath(path, ROOT)}:{i + 1}: link to a missing file: {target}")


def check_limits(failures):
    with open(os.path.join(ROOT, "lib/include/tensor_inspect/limits.hpp")) as f:
        header = f.read()
    caps = list(dict.fromkeys(re.findall(r"std::uint64_t (\w+) = ", header)
                              + re.findall(r"constexpr [\w:]+ (kMax\w+) = ", header)))
    with open(os.path.join(ROOT, "docs/limits.md")) as f:
        page = f.read()
    missing = [c for c in caps if f"`{c}`" not in page]
    if len(caps) < 20:
        failures.append(f"limits.hpp: only {len(caps)} caps parsed; the pattern no longer matches the header")
    for c in missing:
        failures.append(f"docs/limits.md does not name the cap `{c}` of limits.hpp")
    return len(caps)


def check_json_keys(failures):
    """docs/json.md's table names every top-level key of every schema, in the row of its kind."""
    with open(os.path.join(ROOT, "docs/json.md"), encoding="utf-8") as f:
        rows = {m.group(1): line for line in f for m in [re.match(r"\| `(\w+)` \|", line)] if m}
    schemas = sorted(glob.glob(os.path.join(ROOT, "schemas", "*.schema.json")))
    for path in schemas:
        kind = os.path.basename(path).split(".")[0]
        with open(path) as f:
            keys = [k for k in json.load(f)["properties"] if k not in ("schema_version", "kind")]
        if kind not in rows:
            failures.append(f"docs/json.md has no row for the kind `{kind}` ({os.path.relpath(path, ROOT)})")
            continue
        for k in keys:
            if f"`{k}`" not in rows[kind]:
                failures.append(f"docs/json.md: the row of `{kind}` does not name its key `{k}`")
    return len(schemas)


def main():
    binary = os.path.abspath(sys.argv[1])
    fill = "--fill" in sys.argv[2:]
    only = [os.path.abspath(a) for a in sys.argv[2:] if a != "--fill"]
    failures, skipped, ran = [], [], 0
    with tempfile.TemporaryDirectory(prefix="doc-examples-") as tmp:
        workdir, bindir = os.path.join(tmp, "work"), os.path.join(tmp, "bin")
        os.mkdir(workdir)
        os.mkdir(bindir)
        doc_fixtures.make(workdir, ROOT)
        with open(os.path.join(bindir, "tensor-inspect"), "w") as f:
            f.write(WRAPPER)
        os.chmod(os.path.join(bindir, "tensor-inspect"), 0o755)
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), DOC_BIN=binary,
                   DOC_SIZES=os.path.join(tmp, "sizes"), COLUMNS="100", LC_ALL="C.UTF-8")
        for var in ("TI_CACHE_DIR", "TI_CACHE_SIZE", "TI_TIMEOUT", "HF_TOKEN", "TI_HF_ENDPOINT"):
            env.pop(var, None)
        for path in doc_files():
            if only and path not in only:
                continue
            rel = os.path.relpath(path, ROOT)
            found, stray, lines = examples(path)
            check_links(path, lines, failures)
            for i in stray:
                failures.append(f"{rel}:{i + 1}: an example outside a ```console block: {lines[i].strip()}")
            inserts = []
            for index, command, expected in found:
                where = f"{rel}:{index + 1}"
                skip = SKIP.search(command)
                if skip:
                    skipped.append(f"{where}: {skip.group(1)}")
                    continue
                if "tensor-inspect" not in command:
                    failures.append(f"{where}: an example that does not run tensor-inspect: {command}")
                    continue
                want_rc = 0
                while expected and expected[-1] == "":
                    expected = expected[:-1]
                if expected and EXIT.match(expected[-1]):
                    want_rc, expected = int(EXIT.match(expected[-1]).group(1)), expected[:-1]
                rc, out, written = run(command, workdir, env)
                ran += 1
                if fill and not expected:
                    shown = out.rstrip("\n").split("\n") if out else []
                    inserts.append((index + 1, shown + ([f"[exit {rc}]"] if rc else [])))
                    continue
                if max(written, default=0) > MAX_OUTPUT:
                    failures.append(f"{where}: tensor-inspect wrote {max(written)} bytes "
                                    f"(over {MAX_OUTPUT}): {command}")
                if rc != want_rc:
                    failures.append(f"{where}: exit status {rc}, the page says {want_rc}: {command}\n{out}")
                elif not pattern(expected).fullmatch(out):
                    failures.append(f"{where}: output differs from the page: {command}\n--- page:\n"
                                    + "\n".join(expected) + "\n--- actual:\n" + out)
            if fill and inserts:
                for at, new in reversed(inserts):
                    lines[at:at] = new
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines))
        caps = check_limits(failures)
        kinds = check_json_keys(failures)
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme_lines = len(f.read().splitlines())
    if readme_lines > README_MAX_LINES:
        failures.append(f"README.md has {readme_lines} lines (at most {README_MAX_LINES})")
    for s in skipped:
        print(f"not run: {s}")
    if len(skipped) > MAX_SKIPS:
        failures.append(f"{len(skipped)} examples are not run (at most {MAX_SKIPS}): keep skips few")
    for f in failures:
        print(f"FAIL {f}")
    if failures:
        print(f"{ran} examples run, {len(skipped)} not run, {len(failures)} failures")
    else:
        print(f"{ran} examples run, {len(skipped)} not run (listed above), 0 failures; README.md {readme_lines} "
              f"lines; docs/limits.md names all {caps} caps; docs/json.md all {kinds} kinds' keys")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
