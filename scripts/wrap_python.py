#!/usr/bin/python3
"""Wraps the Python lines over 120 columns of the files named, changing nothing else:

    python3 scripts/wrap_python.py tests/x.py ...     # needs yapf3 (Debian: apt-get install yapf3)

First a string literal that runs past the budget is cut in two at a space (adjacent literals
are one string to Python: "a b" is "a " "b"); then yapf3 re-lays out only the long lines
(--lines), with the file's own indent width. A file whose syntax tree changes is put back as it
was and named, so the wrap can never change what a test does. Used by check_budgets.py --wrap.
"""
import ast
import io
import re
import subprocess
import sys
import tokenize

MAX_COLUMNS = 120


def indent_width(text):
    """The indent of the first block body at column 0 (2 or 4 in this tree)."""
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        if re.match(r"(def|for|if|while|with|class|try)\b.*:\s*$", line):
            body = lines[i + 1]
            width = len(body) - len(body.lstrip(" "))
            if width:
                return width
    return 4


def cut_point(token):
    """Where a one-line string token can be cut in two near its middle: after a space that
    is neither escaped nor inside an f-string's braces. None when there is no such place."""
    m = re.match(r"([A-Za-z]*)('|\")", token)
    if not m or token[len(m.group(1)):].startswith(("'''", '"""')):
        return None
    prefix, start = m.group(1), m.end()
    fstring = "f" in prefix.lower()
    depth, best = 0, None
    middle = len(token) // 2
    for i in range(start, len(token) - 1):
        c = token[i]
        if fstring and c == "{":
            depth += 1
        elif fstring and c == "}":
            depth -= 1
        elif c == " " and depth == 0 and token[i - 1] != "\\" and i + 1 < len(token) - 1:
            if best is None or abs(i - middle) < abs(best - middle):
                best = i
    return best


def split_long_strings(text):
    """Cuts each string literal longer than 40 characters on a line over the budget."""
    lines = text.split("\n")
    long_rows = {n for n, line in enumerate(lines, 1) if len(line) > MAX_COLUMNS}
    cuts = []  # (row, column) of each cut, applied from the last
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.STRING or tok.start[0] != tok.end[0] or tok.start[0] not in long_rows:
            continue
        if len(tok.string) <= 40:
            continue
        at = cut_point(tok.string)
        if at is None:
            continue
        prefix = re.match(r"[A-Za-z]*", tok.string).group(0)
        quote = tok.string[len(prefix)]
        cuts.append((tok.start[0], tok.start[1] + at + 1, prefix, quote))
    for row, col, prefix, quote in sorted(cuts, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + quote + " " + prefix + quote + line[col:]
    return "\n".join(lines)


def wrap_file(path):
    with open(path, encoding="utf-8") as f:
        original = f.read()
    text = split_long_strings(original)
    rows = [n for n, line in enumerate(text.split("\n"), 1) if len(line) > MAX_COLUMNS]
    if rows:
        style = ("{based_on_style: google, column_limit: %d, indent_width: %d, continuation_indent_width: 4}"
                 % (MAX_COLUMNS, indent_width(text)))
        args = ["yapf3", f"--style={style}"] + [f"--lines={n}-{n}" for n in rows]
        text = subprocess.run(args, input=text, capture_output=True, text=True, check=True).stdout
    if ast.dump(ast.parse(text)) != ast.dump(ast.parse(original)):
        print(f"{path}: wrapping would change its syntax tree; left as it was", file=sys.stderr)
        return False
    if text != original:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return True


if __name__ == "__main__":
    ok = all([wrap_file(p) for p in sys.argv[1:]])
    sys.exit(0 if ok else 1)
