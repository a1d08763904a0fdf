#!/usr/bin/python3
"""Shell integration: the bash completion loads (`complete -p tensor-inspect` after
sourcing) and completes dtypes, the fixed value sets and the tensor names of the file on the
line; each of the three completion files knows every option and subcommand the --help pages
of the main command, diff and validate print (both sides parsed: --help and the files), and
every --limit cap the tool names; the zsh and fish scripts parse where those shells are
installed; `man -l` renders the man page;
`cmake --install` puts the binary, the man page and the three completions in their
standard places; --version prints the version and the git revision.

    /usr/bin/python3 tests/shell_integration.py BIN BUILD_DIR

Closes with `N passed, M failed`.
"""
import json, os, re, shlex, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
check = tally.check

BIN = os.path.abspath(sys.argv[1])
BUILD = os.path.abspath(sys.argv[2])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
env = dict(os.environ, PATH=os.path.dirname(BIN) + os.pathsep + os.environ.get("PATH", ""))


def bash(script):
  pre = f"source {BASH_COMPLETION}; source {ROOT}/completions/tensor-inspect.bash; cd {ROOT}; "
  p = subprocess.run(["bash", "-c", pre + script], capture_output=True, text=True, env=env, timeout=30)
  return p.returncode, p.stdout, p.stderr


def complete(*words):
  """COMPREPLY for the command line `words`, the cursor at the end of the last word."""
  arr = " ".join("'" + w + "'" for w in words)
  line = " ".join(words)
  rc, out, err = bash(f"COMP_WORDS=({arr}); COMP_CWORD={len(words) - 1}; COMP_LINE='{line}'; COMP_POINT={len(line)}; "
                      "_tensor_inspect; printf '%s\\n' \"${COMPREPLY[@]}\"")
  return set(x for x in out.splitlines() if x), err


COMMANDS = ("main", "diff", "validate")


def help_page(command):
  """(options, valued, subcommands) of `BIN [command] --help`: the names of each option row
  (`  -e,--expr TEXT ...`) outside Positionals/Subcommands/Examples, those of them whose row
  names a value (TEXT, N, DIR, ...), and the names of the Subcommands rows."""
  p = subprocess.run([BIN] + ([] if command == "main" else [command]) + ["--help"], capture_output=True, text=True)
  options, valued, subcommands, section = set(), set(), set(), ""
  for line in p.stdout.splitlines():
    if line and not line.startswith(" "):
      section = line
      continue
    if section == "Subcommands:":
      m = re.match(r"  (\w[\w-]*)\s", line)
      if m:
        subcommands.add(m.group(1))
    elif section not in ("Positionals:", "Examples:"):
      m = re.match(r"  (-\S+)( \S)?", line)
      if m:
        options.update(m.group(1).split(","))
        if m.group(2):
          valued.update(m.group(1).split(","))
  return options, valued, subcommands


def bash_variables(text):
  """The `local NAME="..."` strings of the bash completion, `$other` expanded, as word sets."""
  values = {}
  for name, value in re.findall(r'local (\w+)="([^"]*)"', text):
    values[name] = re.sub(r"\$(\w+)", lambda m: values.get(m.group(1), m.group(0)), value)
  return {name: set(value.split()) for name, value in values.items()}


def bash_words(text):
  """The options of each command ($opts, $diff_opts, $validate_opts), $subcommands, the --limit
  caps ($limits), and the options the scan for INPUT (the `for ((i = 1; ...` loop) names."""
  words = bash_variables(text)
  skip = re.search(r"for \(\(i = 1;.*?\n  done", text, re.S)
  return ({
      "main": words.get("opts", set()),
      "diff": words.get("diff_opts", set()),
      "validate": words.get("validate_opts", set())
  }, words.get("subcommands", set()), words.get("limits", set()),
          set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", skip.group(0))) if skip else set())


def zsh_words(text):
  """The option names in the _arguments specs of each command's function ('(- *)'{-h,--help}'[...]',
  '*--name[...]:...'), the subcommands of the first argument, the --limit caps."""
  functions = dict(re.findall(r"^(\S+)\(\) \{\n(.*?)^\}", text, re.S | re.M))
  options = {}
  for command, function in (("main", "_tensor-inspect"), ("diff", "_tensor_inspect_diff"),
                            ("validate", "_tensor_inspect_validate")):
    names = set()
    for line in functions.get(function, "").splitlines():
      if "[" in line and line.strip().startswith(("'", "(")):
        spec = re.sub(r"\([^)]*\)", "", line.split("[", 1)[0])  # without the exclusion lists
        names.update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", spec))
    options[command] = names
  subs = re.search(r"commands:command:\(([^)]*)\)", text)
  limits = re.search(r"_tensor_inspect_limit_names=\(([^)]*)\)", text)
  return options, set(subs.group(1).split()) if subs else set(), set(limits.group(1).split()) if limits else set(), None


def fish_words(text):
  """The -s/-l/-o names of each `complete` line, by command: its -n condition names
  __tensor_inspect_main or the subcommands of __fish_seen_subcommand_from; none serves all."""
  options = {c: set() for c in COMMANDS}
  subs, limits = set(), set()
  for line in text.splitlines():
    m = re.match(r"set -l limits (.*)", line)
    if m:
      limits = {w.rstrip("=") for w in m.group(1).split()}
    if not line.startswith("complete "):
      continue
    args = shlex.split(line)
    get = lambda flag: [args[i + 1] for i, a in enumerate(args[:-1]) if a == flag]
    cond = " ".join(get("-n"))
    if "__fish_use_subcommand" in cond:
      subs.update(w for a in get("-a") for w in a.split())
      continue
    if not cond:
      commands = COMMANDS
    elif "__tensor_inspect_main" in cond:
      commands = ("main",)
    else:
      commands = [w for w in cond.split() if w in COMMANDS]
    names = ["-" + n for n in get("-s") + get("-o")] + ["--" + n for n in get("-l")]
    for c in commands:
      options[c].update(names)
  return options, subs, limits, None


pages = {c: help_page(c) for c in COMMANDS}
check(
    "--help pages parse",
    all({"-h", "--help"} <= pages[c][0] for c in COMMANDS) and len(pages["main"][0]) > 30 and
    {"--dtype", "--rtol"} <= pages["main"][1] | pages["diff"][1] and {"diff", "validate"} <= pages["main"][2], pages)
p = subprocess.run([BIN, "0", "--limit", "no_such_cap=1"], capture_output=True, text=True)
m = re.search(r"known: ([^)]*)\)", p.stderr)
known_limits = set(m.group(1).split(", ")) if m else set()
check("--limit names the caps it knows", p.returncode == 2 and len(known_limits) > 5, p.stderr)
for shell, script, parse in (("bash", "tensor-inspect.bash", bash_words), ("zsh", "_tensor-inspect", zsh_words),
                             ("fish", "tensor-inspect.fish", fish_words)):
  with open(os.path.join(ROOT, "completions", script)) as f:
    options, subcommands, limits, skipped = parse(f.read())
  for c in COMMANDS:
    missing = sorted(pages[c][0] - options[c])
    check(f"{shell}: every option of `{'' if c == 'main' else c + ' '}--help`", not missing, f"missing {missing}")
  check(f"{shell}: every subcommand", pages["main"][2] <= subcommands, f"missing "
        f"{sorted(pages['main'][2] - subcommands)}")
  check(f"{shell}: every --limit cap", limits == known_limits, f"missing {sorted(known_limits - limits)}, "
        f"unknown {sorted(limits - known_limits)}")
  if skipped is not None:  # bash scans the line for INPUT: an option's value must not be taken for it
    missing = sorted(set().union(*(pages[c][1] for c in COMMANDS)) - skipped)
    check(f"{shell}: the value of every option that takes one is skipped", not missing, f"missing {missing}")

if os.path.exists(BASH_COMPLETION):
  rc, out, err = bash("complete -p tensor-inspect")
  check("bash: complete -p after sourcing", rc == 0 and out.strip() == "complete -F _tensor_inspect "
        "tensor-inspect", (rc, out, err))
  got, err = complete("tensor-inspect", "--dtype", "floa")
  check("bash: dtype names", got == {"float16", "float32", "float64", "float"}, (got, err))
  got, err = complete("tensor-inspect", "--js")
  check("bash: options", got == {"--json", "--jsonl", "--json-nonfinite"}, (got, err))
  got, err = complete("tensor-inspect", "diff", "a.npy", "--na")
  check("bash: diff's options", got == {"--name", "--names", "--nan-differs"}, (got, err))
  got, err = complete("tensor-inspect", "https://host/m.safetensors", "--cac")
  check("bash: the remote options", got == {"--cache", "--cache-size"}, (got, err))
  got, err = complete("tensor-inspect", "https://host/m.safetensors", "--tim")
  check("bash: --timeout", got == {"--timeout"}, (got, err))
  got, err = complete("tensor-inspect", "--cache", "completion")
  check("bash: --cache completes folders", got == {"completions"}, (got, err))
  got, err = complete("tensor-inspect", "va")
  check("bash: the validate subcommand", got == {"validate"}, (got, err))
  got, err = complete("tensor-inspect", "validate", "x.npy", "--")
  check("bash: validate's options", pages["validate"][0] - {"-h", "-v"} <= got and "--name" not in got, (got, err))
  got, err = complete("tensor-inspect", "-")
  check("bash: every option of --help is offered", pages["main"][0] <= got, sorted(pages["main"][0] - got))
  got, err = complete("tensor-inspect", "diff", "a.npy", "b.npy", "-")
  check("bash: every option of "
        "diff --help is offered", pages["diff"][0] <= got and "--stats" not in got, sorted(pages["diff"][0] - got))
  got, err = complete("tensor-inspect", "--plot-kind", "h")
  check("bash: --plot-kind values", got == {"hist", "heatmap"}, (got, err))
  got, err = complete("tensor-inspect", "--fail-on", "nan,")
  check("bash: --fail-on completes "
        "the item after the comma", got == {"nan,nan", "nan,inf", "nan,zero-tensor"}, (got, err))
  got, err = complete("tensor-inspect", "diff", "a", "b", "--limit", "broad")
  check("bash: --limit caps", got == {"broadcast_pairs="}, (got, err))
  got, err = complete("tensor-inspect", "--plot", "completions/tensor-inspect.b")
  check("bash: --plot completes files", got == {"completions/tensor-inspect.bash"}, (got, err))
  with open(os.path.join(ROOT, "samples", "mixed.safetensors"), "rb") as f:
    n = int.from_bytes(f.read(8), "little")
    names = {k for k in json.loads(f.read(n)) if k != "__metadata__"}
  got, err = complete("tensor-inspect", "samples/mixed.safetensors", "--name", "")
  check("bash: tensor names of the file, from its header", got == names, (got, names, err))
  for before in (["--hist", "40"], ["--hist"], ["--threshold", "5"], ["--graph", "dot", "-v"]):
    got, err = complete("tensor-inspect", *before, "samples/mixed.safetensors", "--name", "")
    check(f"bash: tensor names after {' '.join(before)} (its value is not the input)", got == names, (got, names, err))
else:
  check("bash-completion installed", False, BASH_COMPLETION + " missing (scripts/test.sh installs bash-completion)")

# --name completion reads the names from `--list0` (raw, NUL-ended): the listing's text had
# its summary line, then warnings, stripped by `sed '1d;$d'`, so a warning made the count a
# candidate, and `awk '{print $1}'` cut names at spaces and compgen ate backslashes.
TRICKY = ["plain", "a b", "back\\slash", "new\nline", "['a.b']", "quote'd", 'dq"x', "dollar$HOME", "star*", "tab\tname"]
work = tempfile.mkdtemp(prefix="ti_complete_")
tricky = os.path.join(work, "tricky names.safetensors")
header, data = {}, b""
for name in TRICKY:
  header[name] = {"dtype": "F32", "shape": [1], "data_offsets": [len(data), len(data) + 4]}
  data += b"\0\0\x80\x3f"
head = json.dumps(header).encode()
with open(tricky, "wb") as f:
  f.write(len(head).to_bytes(8, "little") + head + data)
index_dir = os.path.join(work, "idx")
shutil.copytree(os.path.join(ROOT, "samples", "sharded"), index_dir)
index = os.path.join(index_dir, "model.safetensors.index.json")
with open(index) as f:
  weight_map = json.load(f)["weight_map"]
weight_map["ghost"] = "missing.safetensors"  # a shard that is not there: the run warns
with open(index, "w") as f:
  json.dump({"weight_map": weight_map}, f)
WHOLE_MODEL = {"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var", "1.num_batches_tracked"}
NAME_CASES = [("names with spaces, quotes, backslashes, newlines, globs", tricky, set(TRICKY)),
              ("an index with a missing shard (a warning)", index, set(weight_map)),
              ("a whole nn.Module .pt "
               "(warnings of its globals)", os.path.join(ROOT, "samples", "whole_model.pt"), WHOLE_MODEL),
              ("dotted names that collide", os.path.join(ROOT, "samples", "dotted_names.pt"), {"['a.b']",
                                                                                               "['a']['b']"})]

p = subprocess.run([BIN, tricky, "--list0"], capture_output=True)
check("--list0: every name raw, each NUL-ended, in file order, nothing else", p.returncode == 0 and
      p.stdout == b"".join(n.encode() + b"\0" for n in TRICKY) and p.stderr == b"",
      (p.returncode, p.stdout[:200], p.stderr))
p = subprocess.run([BIN, index, "--list0"], capture_output=True)
check(
    "--list0 of an index with a missing shard: every name, the warning on stderr", p.returncode == 0 and
    set(p.stdout.split(b"\0")[:-1]) == {n.encode() for n in weight_map} and b"missing.safetensors" in p.stderr,
    (p.returncode, p.stderr))


def bash_names(file, cur):
  """The --name candidates bash offers after `cur` (as typed), each decoded as the shell reads it.
  The file's word is typed quoted, as a user would type a path holding a space."""
  words = ["tensor-inspect", shlex.quote(file), "--name", cur]
  line = " ".join(words)
  script = (f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD=3; COMP_LINE={shlex.quote(line)}; "
            f"COMP_POINT={len(line)}; _tensor_inspect; for w in "
            f"\"${{COMPREPLY[@]}}\"; do eval \"printf '%s\\0' $w\"; done")
  rc, out, err = bash(script)
  return set(out.split("\0")[:-1]), err


if os.path.exists(BASH_COMPLETION):
  for what, path, names in NAME_CASES:
    got, err = bash_names(path, "")
    check(f"bash: --name candidates of {what}: the names, each a shell word", got == names, (sorted(got ^ names), err))
  for cur, want in (("a\\ ", {"a b"}), ("'['", {"['a.b']"}), ("back\\\\", {"back\\slash"}), ("quote\\'", {"quote'd"}),
                    ("zzz", set())):
    got, err = bash_names(tricky, cur)
    check(f"bash: --name {cur!r} completes the names it starts", got == want, (got, err))

if shutil.which("zsh"):
  # _tensor_inspect_names with zsh's completion builtins stubbed: `line` holds the words, and
  # the stub of compadd prints the array it is given, NUL-ended.
  stub = ("_arguments() { :; }; _wanted() { shift 3; \"$@\"; }; compadd() { "
          "local a; for a in \"${(@P)2}\"; do printf '%s\\0' \"$a\"; done; }; "
          f"source {shlex.quote(os.path.join(ROOT, 'completions', '_tensor-inspect'))}; ")
  for what, path, names in NAME_CASES:
    p = subprocess.run(["zsh", "-f", "-c", stub + f"line=({shlex.quote(shlex.quote(path))}); _tensor_inspect_names"],
                       capture_output=True, text=True, env=env, timeout=30)
    got = set(p.stdout.split("\0")[:-1])
    check(f"zsh: --name candidates of {what}: the names", got == names, (sorted(got ^ names), p.stderr[:300]))

if shutil.which("fish"):
  # fish offers one candidate a line: names with a newline or a tab cannot be, and are left out.
  for what, path, names in NAME_CASES:
    script = (f"source {shlex.quote(os.path.join(ROOT, 'completions', 'tensor-inspect.fish'))}; "
              f"complete -C {shlex.quote('tensor-inspect ' + shlex.quote(path) + ' --name ')}")
    p = subprocess.run(["fish", "--no-config", "-c", script], capture_output=True, text=True, env=env, timeout=30)
    got = {line.split("\t")[0] for line in p.stdout.splitlines()}
    want = {n for n in names if "\n" not in n and "\t" not in n
           }  # complete -C prints them raw; fish escapes on insertion
    check(f"fish: --name candidates of {what}: the names", got == want, (sorted(got ^ want), p.stderr[:300]))
shutil.rmtree(work, ignore_errors=True)

for shell, script in (("zsh", "_tensor-inspect"), ("fish", "tensor-inspect.fish")):
  exe = shutil.which(shell)
  if exe:  # optional: these shells are not in setup.sh
    p = subprocess.run([exe, "-n", os.path.join(ROOT, "completions", script)], capture_output=True, text=True)
    check(f"{shell}: completion parses", p.returncode == 0, p.stderr)
  else:
    print(f"skip {shell}: not installed")

if shutil.which("man"):
  p = subprocess.run(["man", "-l", os.path.join(ROOT, "man", "tensor-inspect.1")], capture_output=True, text=True,
                     env=dict(env, MANPAGER="cat", PAGER="cat", MANWIDTH="80"))
  check("man -l renders", p.returncode == 0 and "EXIT STATUS" in p.stdout and "tensor-inspect diff" in p.stdout,
        p.stderr[:300])
  check("man -l: no roff warnings", "warning" not in p.stderr, p.stderr[:300])
else:
  check("man installed", False, "man-db missing (scripts/test.sh installs it)")

prefix = tempfile.mkdtemp(prefix="ti_install_")
p = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix], capture_output=True, text=True)
check("cmake --install", p.returncode == 0, p.stderr)
for rel in ("bin/tensor-inspect", "share/man/man1/tensor-inspect.1", "share/bash-completion/completions/tensor-inspect",
            "share/zsh/site-functions/_tensor-inspect", "share/fish/vendor_completions.d/tensor-inspect.fish"):
  check(f"installed {rel}", os.path.isfile(os.path.join(prefix, rel)), sorted(os.listdir(prefix)))
shutil.rmtree(prefix, ignore_errors=True)

p = subprocess.run([BIN, "--version"], capture_output=True, text=True)
m = re.fullmatch(r"tensor-inspect (\d+\.\d+\.\d+) \(git ([0-9a-f]{12}(-dirty)?|unknown)\)\n", p.stdout)
check("--version: version and revision", p.returncode == 0 and m is not None, p.stdout)
g = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, cwd=ROOT)
if m and g.returncode == 0:
  check("--version: the checkout's revision", m.group(2).split("-")[0] == g.stdout.strip(), (m.group(2), g.stdout))

sys.exit(tally.summary())
