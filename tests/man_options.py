#!/usr/bin/python3
"""Every option `--help` lists has an entry in the man page, under its command.

    /usr/bin/python3 tests/man_options.py path/to/tensor-inspect

Both sides are parsed, nothing is listed here: the options of `tensor-inspect --help`,
`tensor-inspect diff --help` and `tensor-inspect validate --help` (each line of an option
group that starts with `-`, before "Subcommands:" or "Examples:"), and the man page's
entries (the tag line after each `.TP`) in its sections: OPTIONS for the root command,
DIFF and VALIDATE for the subcommands. An option of a subcommand's "Remote files" group,
shared by every command, may have its one entry under OPTIONS. Closes with `N passed, M failed`.
"""
import os, re, subprocess, sys

import tally
from tally import check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAN = os.path.join(ROOT, "man", "tensor-inspect.1")

tally.passes = False



def help_options(args):
  """{option name: group} from a --help text, e.g. {'--name': 'Files', '-e': 'Options'}."""
  text = subprocess.run([BIN, *args, "--help"], capture_output=True, text=True, timeout=30).stdout
  options, group = {}, None
  for line in text.splitlines():
    if line.startswith(("Subcommands:", "Examples:")):
      break
    m = re.match(r"^(\S[^:]*):\s*$", line) or re.match(r"^(\S.*?) \(exit", line)
    if m and not line.startswith(" "):
      group = m.group(1)
      continue
    m = re.match(r"^  (-[\w-]+(?:,-[\w-]+)*)", line)
    if m and group not in (None, "Positionals"):
      for name in m.group(1).split(","):
        options[name] = group
  return options


def man_entries():
  """{section name: set of option names in its .TP tag lines}."""
  with open(MAN, encoding="utf-8") as f:
    lines = f.read().splitlines()
  sections, current = {}, None
  for i, line in enumerate(lines):
    if line.startswith(".SH "):
      current = line[4:].strip().strip('"')
      sections.setdefault(current, set())
    elif line.startswith(".TP") and current and i + 1 < len(lines):
      tag = lines[i + 1].replace("\\-", "-").replace("\\fB", " ").replace("\\fR",
                                                                          " ").replace("\\fP",
                                                                                       " ").replace("\\fI", " ")
      sections[current].update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", tag))
  return sections


man = man_entries()
for args, section in (([], "OPTIONS"), (["diff"], "DIFF"), (["validate"], "VALIDATE")):
  options = help_options(args)
  check(f"{' '.join(['tensor-inspect', *args])} --help: options parsed", len(options) >= 3, options)
  check(f"man page: a {section} section", section in man, sorted(man))
  for name, group in sorted(options.items()):
    where = man.get(section, set())
    shared = group == "Remote files" and name in man.get("OPTIONS", set())
    check(f"{' '.join(['tensor-inspect', *args])} {name} ({group}): an entry under {section}", name in where or shared,
          f"not in the man page's {section} entries")

sys.exit(tally.summary())
