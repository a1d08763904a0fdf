#!/usr/bin/python3
"""Runs a command and prints its peak RSS split the way the issues judge memory:
`peak RSS total / anonymous (heap, beyond the file mappings) in KiB`, sampled from
/proc/PID/status (VmHWM at the end, RssAnon every millisecond). stdout of the command
goes to /dev/null; its exit status is kept.

Usage: peak_rss_anon.py CMD [ARG ...]
"""
import subprocess, sys, time

p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
peak_anon = peak_total = 0
while p.poll() is None:
    try:
        with open(f"/proc/{p.pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    peak_anon = max(peak_anon, int(line.split()[1]))
                elif line.startswith("VmHWM:"):
                    peak_total = max(peak_total, int(line.split()[1]))
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    time.sleep(0.001)
print(f"peak RSS total {peak_total} KiB, anonymous {peak_anon} KiB (exit {p.returncode})")
