"""Runs the tool with its stderr on a pseudo-terminal and returns every byte it wrote there.

    from terminal import run_on_terminal
    status, out, err = run_on_terminal([BIN, "samples/quants.gguf", "--stats"])

Reading the master side until it reports EIO (the child closed the slave) loses output now and
then: Linux moves what the child wrote from the slave to the master through a work queue, and a
read that races the child's exit can see EIO before the last bytes arrive (CI lost a whole
warning that way). So the slave stays open here until the child has been reaped, then whatever
is still queued is drained until the terminal is quiet.
"""
import os
import pty
import select
import subprocess
import threading
import time


def run_on_terminal(argv, cwd=None, capture_stdout=False, timeout=120):
  """(exit status, stdout bytes or None, stderr bytes) of one run with stderr a pseudo-terminal.

  stdout is captured when capture_stdout, else discarded; a run past timeout seconds is killed
  and its status is None."""
  master, slave = pty.openpty()
  p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if capture_stdout else subprocess.DEVNULL,
                       stderr=slave, cwd=cwd)
  out = []
  reader = None
  if capture_stdout:  # read stdout beside the terminal so neither pipe can fill and stall the child
    reader = threading.Thread(target=lambda: out.append(p.stdout.read()))
    reader.start()
  written = bytearray()
  deadline = time.monotonic() + timeout
  status = None
  while True:
    ready, _, _ = select.select([master], [], [], 0.05)
    if ready:
      written += os.read(master, 65536)
      continue
    if p.poll() is not None:
      status = p.returncode
      break
    if time.monotonic() > deadline:
      p.kill()
      p.wait()
      break
  while select.select([master], [], [], 0.3)[0]:  # bytes still on their way from the slave side
    written += os.read(master, 65536)
  os.close(slave)
  os.close(master)
  if reader:
    reader.join()
  return status, (out[0] if out else b"") if capture_stdout else None, bytes(written)
