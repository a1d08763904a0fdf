#!/usr/bin/python3
"""Every option --help lists is accepted wherever it stands, the documented environment
variables apply with no option on the command line, and the main command's options before
a subcommand's name are refused rather than ignored.

Usage: python3 tests/cli_option_reach.py BUILD/tensor-inspect

The tool builds only the CLI11 option groups a command line can reach (app/cli/option_groups.hpp),
judged from each group's stated names; an option missing from its group's names would be
"not expected" when it is the only option given. So each option --help lists is given
alone (`tensor-inspect OPTION`, and as --OPTION=VALUE for long options), and must never be
refused as unknown: a flag runs, an option lacking its value says so. Environment: a
malformed TI_CACHE_SIZE or TI_TIMEOUT fails only a run that uses it (a URL, with a cache for
TI_CACHE_SIZE), before any request, as --cache-size and --timeout would; a literal runs.
Closes with `N passed, M failed`; exit status 1 when any failed.
"""
import os
import re
import subprocess
import sys

import tally
from tally import check

BIN = os.path.abspath(sys.argv[1])
tally.passes = False


def run(args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("TI_CACHE")}
    e.update(env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60, env=e, stdin=subprocess.DEVNULL)


help_text = run(["--help"]).stdout
# Option lines of CLI11's help: two spaces, then "-x, --long" or "--long", then the rest.
options = []
for line in help_text.splitlines():
    m = re.match(r"^  (-\w)?(?:, )?(--[\w-]+)?", line)
    if m and (m.group(1) or m.group(2)):
        options += [o for o in m.groups() if o]
check("--help lists options", len(options) >= 30, options)

for opt in options:
    if opt in ("-h", "--help", "--version"):
        continue
    for args in ([opt], [opt + "=1"] if opt.startswith("--") else [opt + "1"]):
        r = run(args)
        check(f"{' '.join(args)}: known to the parser", "not expected" not in r.stderr and
              "OptionNames" not in r.stderr, r.stderr.strip())
    # After the input too (a literal), where a flag runs as with the input first.
    r = run(["5", opt])
    check(f"5 {opt}: known to the parser", "not expected" not in r.stderr and "OptionNames" not in r.stderr,
          r.stderr.strip())

# CLI11 takes a `--` after an option of optional or many values as the end of those values
# and parses options again after it: those options must be known there too.
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sample = os.path.join(root, "samples", "float32.npy")
r = run(["--hist", "--", sample, "--json"])
check("--hist -- FILE --json: "
      "the histogram as JSON", r.returncode == 0 and r.stdout.lstrip().startswith("{"), (r.returncode, r.stderr))
r = run([sample, "--graph", "--", "-e", "x+1"])
check("FILE --graph -- -e EXPR: "
      "the expression runs", r.returncode == 0 and "tolist" in r.stdout, (r.returncode, r.stderr))

# Options of the main command before a subcommand's name would be parsed and then ignored
# by it (`--json diff a b` printed diff's text): a usage error naming the option.
for before in (["--json"], ["--fail-on", "nan"], ["-e", "x*2"], ["--limit", "stream_bytes=1000"], [sample]):
    for sub in (["diff", sample, sample], ["validate", sample]):
        r = run(before + sub)
        named = before[0] if before[0].startswith("--") else "--expr" if before[0] == "-e" else sample
        check(f"{' '.join(before + sub[:1])}: "
              f"refused, naming {named}", r.returncode == 2 and not r.stdout and named in r.stderr and
              f"'{sub[0]}'" in r.stderr, (r.returncode, r.stderr))
r = run(["-v", "diff", sample, sample])
check("-v before diff: shared by both, accepted", r.returncode == 0, (r.returncode, r.stderr))

# A malformed variable used to fail every run, literals included.
for var, bad in (("TI_CACHE_SIZE", "3"), ("TI_CACHE_SIZE", "12X"), ("TI_TIMEOUT", "abc")):
    r = run(["5", "--json"], {var: bad})
    check(f"{var}={bad} and a literal: the run goes on",
          r.returncode == 0 and '"tolist": 5' in r.stdout and not r.stderr, (r.returncode, r.stderr))
# Port 9 of 127.0.0.1 (discard) is not asked: the variable is refused before any request.
url = "http://127.0.0.1:9/x.npy"
with_cache = {"TI_CACHE_DIR": os.path.join(os.environ.get("TMPDIR", "/tmp"), "ti-option-reach-cache-never-made")}
for var, bad, env, args in (("TI_CACHE_SIZE", "3", with_cache, [url]), ("TI_CACHE_SIZE", "12X", with_cache,
                                                                        ["diff", url, url]),
                            ("TI_TIMEOUT", "abc", {}, [url]), ("TI_TIMEOUT", "0", {}, ["validate", url])):
    r = run(args, {var: bad, **env})
    lines = r.stderr.splitlines()
    what = f"{args[0]} of URLs" if args[0] in ("diff", "validate") else "a URL"
    check(f"{var}={bad} and {what}: exit 2, one line naming the variable and its value",
          r.returncode == 2 and not r.stdout and len(lines) == 1 and lines[0].startswith(f"tensor-inspect: {var}: ") and
          f"'{bad}'" in lines[0], (r.returncode, r.stderr))
check("... and the cache folder was never made", not os.path.exists(with_cache["TI_CACHE_DIR"]), with_cache)
r = run(["-vv", "5"])
check("-vv alone: debug lines on stderr", r.returncode == 0 and ": debug: " in r.stderr, r.stderr)
r = run(["--bogus", "5"])
check("an unknown option: a usage error naming it", r.returncode == 2 and "--bogus" in r.stderr, r.stderr)
r = run(["-x", "5"])
check("an unknown short option: a usage error naming it", r.returncode == 2 and "-x" in r.stderr, r.stderr)

sys.exit(tally.summary())
