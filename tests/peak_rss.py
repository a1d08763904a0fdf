"""tests/peak_rss.py — one run of the tool with its peak resident set measured by GNU time.

GNU time writes its figure to a file of its own (-o), so the tool's stderr stays as the tool
wrote it, and it measures from a small parent: a child forked from a test script would start
from the script's own high-water mark.
"""
import subprocess
import tempfile


def run_measured(binary, args, timeout, stdin=None):
    """(exit status, stdout, stderr, peak RSS in bytes) of `binary args` (text), stdin from the
    path `stdin` (else /dev/null); status None and stderr saying so when `timeout` s pass."""
    with tempfile.NamedTemporaryFile() as stats, open(stdin or "/dev/null", "rb") as f:
        try:
            p = subprocess.run(["/usr/bin/time", "-o", stats.name, "-f", "%M", binary, *args], stdin=f,
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, "", f"killed after {timeout} s", 0
        lines = open(stats.name).read().split()
        return p.returncode, p.stdout, p.stderr, int(lines[-1]) * 1024 if lines else 0
