#!/usr/bin/env python3
"""Remote folders against a real nginx (Debian's nginx-light) on 127.0.0.1.

    /usr/bin/python3 tests/remote_folder.py build/tensor-inspect

A folder URL (`http://HOST/PATH/`) and a whole hub repo (`hf://org/repo[@rev]`, through
TI_HF_ENDPOINT to nginx) open as a local folder does, naming files as transformers'
from_pretrained tries them: model.safetensors.index.json, else model.safetensors, else
pytorch_model.bin.index.json, else pytorch_model.bin. Checks: each folder's --list and
--stats print what the local folder's print, byte for byte (the URL read as the path); the
requests nginx logs are those names, in that order, up to the first that exists; a folder
holding none ends in exit 2, nothing on stdout and one stderr line naming the URL and every
name tried. Prints one line per check and `N passed, M failed`.
"""
import os
import shutil
import subprocess
import sys

import tally
from tally import check
from nginx_server import servers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
TRIED = ["model.safetensors.index.json", "model.safetensors", "pytorch_model.bin.index.json", "pytorch_model.bin"]


def run(binary, args, env=None):
    e = {k: v for k, v in os.environ.items() if k not in ("HF_TOKEN", "TI_CACHE_DIR")}
    e.update(env or {})
    p = subprocess.run([binary] + args, capture_output=True, text=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


def make_folders(www):
    shutil.copytree(os.path.join(SAMPLES, "sharded"), os.path.join(www, "sharded"))
    os.mkdir(os.path.join(www, "single"))
    shutil.copy(os.path.join(SAMPLES, "mixed.safetensors"), os.path.join(www, "single", "model.safetensors"))
    os.mkdir(os.path.join(www, "bin"))
    shutil.copy(os.path.join(SAMPLES, "state_dict.pt"), os.path.join(www, "bin", "pytorch_model.bin"))
    os.mkdir(os.path.join(www, "none"))
    with open(os.path.join(www, "none", "config.json"), "w") as f:
        f.write("{}\n")
    # The hub repo (nginx maps /hf/org/repo/resolve/REV/ to /files/): one file at the root.
    shutil.copy(os.path.join(SAMPLES, "mixed.safetensors"), os.path.join(www, "model.safetensors"))


def requested(lines):
    """The file names nginx was asked for (the last path part), in order, without the probe's repeats."""
    names = []
    for line in lines:
        name = line.split()[0].rsplit("/", 1)[-1]
        if not names or names[-1] != name:
            names.append(name)
    return names


def main():
    binary = os.path.abspath(sys.argv[1])
    with servers("ti-remote-folder-") as (tmp, www, nginx, _):
        make_folders(www)
        for folder, opened in [("sharded", 1), ("single", 2), ("bin", 4)]:
            local, url = os.path.join(www, folder) + "/", nginx.url("files", folder) + "/"
            for args in (["--list"], ["--stats"]):
                want = run(binary, [local] + args)
                m = nginx.mark()
                got = run(binary, [url] + args)
                check(f"{folder}/ {' '.join(args)}: the folder URL prints what the local folder prints",
                      want[0] == 0 and got[0] == 0 and got[1].replace(url, local) == want[1],
                      f"{got[0]}: {got[2][-300:]!r} / {want[2][-300:]!r}")
                names = requested(nginx.lines_since(m))
                tried = ", ".join(TRIED[:opened])
                check(f"{folder}/ {' '.join(args)}: asks for {tried} in that order, then the file's own",
                      names[:opened] == TRIED[:opened], f"{names}")
        hf = {"TI_HF_ENDPOINT": f"http://127.0.0.1:{nginx.port}/hf"}
        local = os.path.join(www, "model.safetensors")
        want = run(binary, [local, "--list"])
        for repo in ("hf://org/repo", "hf://org/repo@v1.0", "hf://org/repo/"):
            got = run(binary, [repo, "--list"], hf)
            check(f"{repo} --list prints what its model.safetensors does",
                  got[0] == 0 and got[1].replace(repo, local) == want[1],
                  f"{got[0]}: {got[2][-300:]!r} {got[1][:200]!r}")
        url = nginx.url("files", "none") + "/"
        status, out, err = run(binary, [url, "--list"])
        lines = err.strip().splitlines()
        check("a folder holding no checkpoint: exit 2, nothing on stdout, one line naming the URL and each name tried",
              status == 2 and out == "" and len(lines) == 1 and url in lines[0] and all(n in lines[0] for n in TRIED),
              f"{status} {out[:100]!r} {err!r}")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
