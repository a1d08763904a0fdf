#!/usr/bin/python3
"""Shell integration: the bash completion loads (`complete -p tensor-inspect` after
sourcing) and completes dtypes and the tensor names of the file on the line; the zsh and
fish scripts parse where those shells are installed; `man -l` renders the man page;
`cmake --install` puts the binary, the man page and the three completions in their
standard places; --version prints the version and the git revision.

    /usr/bin/python3 tests/shell_integration.py BIN BUILD_DIR

Closes with `N passed, M failed`.
"""
import json, os, re, shutil, subprocess, sys, tempfile

BIN = os.path.abspath(sys.argv[1])
BUILD = os.path.abspath(sys.argv[2])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
passed = failed = 0


def check(what, ok, detail=""):
  global passed, failed
  if ok:
    passed += 1
  else:
    failed += 1
    print(f"FAIL {what}: {detail}")


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


if os.path.exists(BASH_COMPLETION):
  rc, out, err = bash("complete -p tensor-inspect")
  check("bash: complete -p after sourcing", rc == 0 and out.strip() == "complete -F _tensor_inspect tensor-inspect", (rc, out, err))
  got, err = complete("tensor-inspect", "--dtype", "floa")
  check("bash: dtype names", got == {"float16", "float32", "float64", "float"}, (got, err))
  got, err = complete("tensor-inspect", "--js")
  check("bash: options", got == {"--json", "--jsonl", "--json-nonfinite"}, (got, err))
  got, err = complete("tensor-inspect", "diff", "a.npy", "--na")
  check("bash: diff's options", got == {"--name", "--nan-differs"}, (got, err))
  got, err = complete("tensor-inspect", "https://host/m.safetensors", "--cac")
  check("bash: the remote options", got == {"--cache", "--cache-size"}, (got, err))
  got, err = complete("tensor-inspect", "https://host/m.safetensors", "--tim")
  check("bash: --timeout", got == {"--timeout"}, (got, err))
  got, err = complete("tensor-inspect", "--cache", "completion")
  check("bash: --cache completes folders", got == {"completions"}, (got, err))
  with open(os.path.join(ROOT, "samples", "mixed.safetensors"), "rb") as f:
    n = int.from_bytes(f.read(8), "little")
    names = {k for k in json.loads(f.read(n)) if k != "__metadata__"}
  got, err = complete("tensor-inspect", "samples/mixed.safetensors", "--name", "")
  check("bash: tensor names of the file, from its header", got == names, (got, names, err))
else:
  check("bash-completion installed", False, BASH_COMPLETION + " missing (scripts/setup.sh installs bash-completion)")

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
  check("man -l renders", p.returncode == 0 and "EXIT STATUS" in p.stdout and "tensor-inspect diff" in p.stdout, p.stderr[:300])
  check("man -l: no roff warnings", "warning" not in p.stderr, p.stderr[:300])
else:
  check("man installed", False, "man-db missing (scripts/setup.sh installs it)")

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

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
