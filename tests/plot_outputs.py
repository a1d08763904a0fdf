#!/usr/bin/env python3
"""--plot writes only what it was asked to (issue 23, parts 1 and 2), checked from outside on
each kind of path: a symlink keeps being a link and its target gets the picture; a FIFO and a
pipe (/dev/fd/N, what `>(wc -c)` hands over) are written through and kept; `-` and /dev/stdout
put PNG bytes on a pipe (signature and IHDR size checked) and /dev/stdout stays a link; an
unknown extension is a usage error; a folder, and an input of the run, are errors; .svg and .pdf
are what they say. Without --stats, one line names the picture. The heatmap's NaN colour
(#ff0000) marks the cell of a single NaN, read back from the PNG's pixels (zlib + stdlib), with a
7-pixel square around it where cells are a pixel wide.
  plot_outputs.py BIN"""
import os, stat, struct, subprocess, sys, tempfile, threading, zlib

import numpy as np

BIN = os.path.abspath(sys.argv[1])
failures = 0
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# The histogram's layout (lib/src/stats/plot.cpp): 80 + 640 + 40 by 60 + 360 + 50 pixels.
HIST_SIZE = (760, 470)


def check(what, ok, detail=""):
  global failures
  print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"))
  failures += 0 if ok else 1


def run(*args, **kw):
  p = subprocess.run([BIN, *args], capture_output=True, **kw)
  return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def ihdr_size(png):
  """(width, height) from a PNG's IHDR, the first chunk after the signature."""
  if png[:8] != PNG_SIGNATURE or png[12:16] != b"IHDR":
    return None
  return struct.unpack(">II", png[16:24])


def decode_png(png):
  """The pixels of an 8-bit RGB or RGBA PNG as rows of (r, g, b): chunks, zlib, unfiltering."""
  at, idat, width, height, colour = 8, b"", 0, 0, 0
  while at < len(png):
    length, kind = struct.unpack(">I4s", png[at:at + 8])
    body = png[at + 8:at + 8 + length]
    if kind == b"IHDR":
      width, height, depth, colour = struct.unpack(">IIBB", body[:10])
      assert depth == 8 and colour in (2, 6), (depth, colour)
    elif kind == b"IDAT":
      idat += body
    at += 12 + length
  raw = zlib.decompress(idat)
  bpp = 3 if colour == 2 else 4
  stride = width * bpp
  rows, prev = [], bytearray(stride)
  for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
      a = line[i - bpp] if i >= bpp else 0
      b = prev[i]
      c = prev[i - bpp] if i >= bpp else 0
      if f == 1:
        line[i] = (line[i] + a) & 0xff
      elif f == 2:
        line[i] = (line[i] + b) & 0xff
      elif f == 3:
        line[i] = (line[i] + (a + b) // 2) & 0xff
      elif f == 4:
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
    rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
    prev = line
  return rows


def reader(path, into):
  """Reads a FIFO to its end on a thread (the tool opens it for writing at commit)."""
  def go():
    with open(path, "rb") as f:
      into.append(f.read())
  t = threading.Thread(target=go)
  t.start()
  return t


with tempfile.TemporaryDirectory(prefix="ti_plot_outputs_") as T:
  src = os.path.join(T, "w.npy")
  np.save(src, np.arange(12, dtype=np.float32).reshape(3, 4))

  # ---- a regular file, and the one line that names it ----
  png = os.path.join(T, "h.png")
  rc, out, err = run(src, "--plot", png)
  data = open(png, "rb").read() if os.path.exists(png) else b""
  check("new file: a PNG of the histogram's size", rc == 0 and ihdr_size(data) == HIST_SIZE, (rc, err, data[:24]))
  check("without --stats: one line naming the picture, no statistics block",
        out.decode() == f"wrote {png}: PNG histogram of {src}\n", out)
  rc, out, err = run(src, "--plot", png, "--stats")
  check("with --stats: the statistics block, as before", rc == 0 and b"min" in out and b"wrote" not in out, out)

  # ---- a symlink: the target is written in its folder, the link stays ----
  os.mkdir(os.path.join(T, "sub"))
  target = os.path.join(T, "sub", "target.png")
  open(target, "wb").write(b"old picture")
  os.chmod(target, 0o640)
  link = os.path.join(T, "link.png")
  os.symlink("sub/target.png", link)  # relative: taken from the link's folder
  rc, out, err = run(src, "--plot", link)
  got = open(target, "rb").read()
  check("symlink: still a link "
        "to the same target",
        os.path.islink(link) and os.readlink(link) == "sub/target.png", os.lstat(link))
  check("symlink: the target holds the PNG, keeps its mode", rc == 0 and ihdr_size(got) == HIST_SIZE and
        stat.S_IMODE(os.stat(target).st_mode) == 0o640, (rc, err, got[:16], oct(os.stat(target).st_mode)))
  check(
      "symlink: no temporary file left in either folder",
      sorted(os.listdir(T)) == ["h.png", "link.png", "sub", "w.npy"] and
      os.listdir(os.path.join(T, "sub")) == ["target.png"], (os.listdir(T), os.listdir(os.path.join(T, "sub"))))
  dangling = os.path.join(T, "dangling.png")
  os.symlink("sub/new.png", dangling)
  rc, out, err = run(src, "--plot", dangling)
  check("dangling symlink: its target is created, the link kept", rc == 0 and os.path.islink(dangling) and
        ihdr_size(open(os.path.join(T, "sub", "new.png"), "rb").read()) == HIST_SIZE, (rc, err))

  # ---- a FIFO: written through, kept ----
  fifo = os.path.join(T, "pipe.png")
  os.mkfifo(fifo)
  got = []
  t = reader(fifo, got)
  rc, out, err = run(src, "--plot", fifo, timeout=60)
  t.join(timeout=60)
  check("FIFO: the reader got the PNG", rc == 0 and got and ihdr_size(got[0]) == HIST_SIZE, (rc, err))
  check("FIFO: still a FIFO", stat.S_ISFIFO(os.lstat(fifo).st_mode), os.lstat(fifo))

  # ---- /dev/fd/N of a pipe (bash's >(wc -c)) ----
  r, w = os.pipe()
  p = subprocess.Popen([BIN, src, "--plot", f"/dev/fd/{w}"],
                       pass_fds=[w],
                       stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
  os.close(w)
  with os.fdopen(r, "rb") as f:
    through = f.read()
  p.wait(timeout=60)
  check("/dev/fd/N of a pipe: written through", p.returncode == 0 and ihdr_size(through) == HIST_SIZE,
        (p.returncode, p.stderr.read()[:300], through[:16]))

  # ---- '-' and /dev/stdout: PNG bytes on the pipe, nothing else ----
  rc, out, err = run(src, "--plot", "-")
  check("'-' to a pipe: PNG bytes (signature, IHDR size), no file named '-'", rc == 0 and
        ihdr_size(out) == HIST_SIZE and out.endswith(b"IEND\xaeB`\x82") and not os.path.exists("-"),
        (rc, err, out[:24]))
  rc, out, err = run(src, "--plot", "/dev/stdout")
  check("/dev/stdout to a pipe: PNG bytes; /dev/stdout is still a link",
        rc == 0 and ihdr_size(out) == HIST_SIZE and os.path.islink("/dev/stdout"), (rc, err, out[:24]))
  rc, out, err = run(src, "--plot", "-", "--stats")
  check("'-' with --stats: usage error "
        "(stdout is the picture's)", rc == 2 and out == b"" and "--stats" in err, (rc, err))

  # ---- a terminal: no PNG bytes on it ----
  import pty
  master, slave = pty.openpty()
  p = subprocess.run([BIN, src, "--plot", "-"], stdout=slave, stderr=subprocess.PIPE, timeout=60)
  os.close(slave)
  os.set_blocking(master, False)
  try:
    on_tty = os.read(master, 4096)
  except (BlockingIOError, OSError):
    on_tty = b""
  os.close(master)
  err = p.stderr.decode(errors="replace")
  check("'-' on a terminal: usage error, one line, nothing written to it", p.returncode == 2 and "terminal" in err and
        err.count("\n") == 1 and PNG_SIGNATURE not in on_tty, (p.returncode, err, on_tty[:40]))

  # ---- formats ----
  for name, head in (("x.svg", b"<?xml"), ("x.pdf", b"%PDF-")):
    path = os.path.join(T, name)
    rc, out, err = run(src, "--plot", path, "--plot-kind", "heatmap")
    data = open(path, "rb").read() if os.path.exists(path) else b""
    check(
        f"{name}: starts {head!r}", rc == 0 and data.startswith(head) and
        out.decode().startswith(f"wrote {path}: "
                                f"{name[-3:].upper()} heatmap"), (rc, err, data[:16], out))
  for name in ("x.jpg", "x", "x.PNG.bak"):
    path = os.path.join(T, name)
    rc, out, err = run(src, "--plot", path)
    check(f"{name}: usage error, "
          f"one line, no file", rc == 2 and out == b"" and err.count("\n") == 1 and ".png, .svg or .pdf" in err and
          not os.path.exists(path), (rc, err))

  # ---- what is never written ----
  folder = os.path.join(T, "folder.png")
  os.mkdir(folder)
  rc, out, err = run(src, "--plot", folder)
  check("a folder: exit 2, one line naming it, left alone", rc == 2 and folder in err and err.count("\n") == 1 and
        os.path.isdir(folder) and os.listdir(folder) == [], (rc, err))
  as_png = os.path.join(T, "input.png")
  os.symlink(src, as_png)
  before = open(src, "rb").read()
  rc, out, err = run(as_png, "--plot", as_png)
  check("the input itself (through "
        "a link): exit 2, unchanged", rc == 2 and "input" in err and open(src, "rb").read() == before, (rc, err))

  # ---- the heatmap shows one NaN (and its legend counts it) ----
  def data_area_colours(png_bytes, cells_r, cells_c):
    """The set of colours inside the data area of a heatmap (x0 80, y0 60, 512 px on the longer side)."""
    rows = decode_png(png_bytes)
    px = 512 / max(cells_r, cells_c)
    return rows, px, {rows[60 + y][80 + x] for y in range(int(cells_r * px)) for x in range(int(cells_c * px))}

  a = np.linspace(-1, 1, 64 * 64, dtype=np.float32).reshape(64, 64)
  clean = os.path.join(T, "clean.npy")
  np.save(clean, a)
  a[10, 20] = np.nan
  one_nan = os.path.join(T, "nan.npy")
  np.save(one_nan, a)
  for path, has_nan in ((clean, False), (one_nan, True)):
    rc, out, err = run(path, "--plot", "-", "--plot-kind", "heatmap")
    rows, px, colours = data_area_colours(out, 64, 64)
    red = (0xff, 0, 0)
    if has_nan:
      centre = rows[60 + int((10 + 0.5) * px)][80 + int((20 + 0.5) * px)]
      check("64x64 with a NaN at [10, 20]: that cell is the NaN colour, the next is not", rc == 0 and centre == red and
            rows[60 + int((10 + 0.5) * px)][80 + int((21 + 0.5) * px)] != red, (rc, err, centre))
    else:
      check("64x64 without NaN: no NaN colour in the data area", rc == 0 and red not in colours, (rc, err))
  big = np.zeros((1024, 1024), dtype=np.float32)
  big[700, 333] = np.nan
  big_path = os.path.join(T, "big.npy")
  np.save(big_path, big)
  rc, out, err = run(big_path, "--plot", "-", "--plot-kind", "heatmap")
  rows, px, colours = data_area_colours(out, 512, 512)
  # Cells of one pixel: the NaN's cell also gets a 7-pixel red square in a black frame (plot.cpp).
red = [(y, x) for y in range(512) for x in range(512) if rows[60 + y][80 + x] == (0xff, 0, 0)]
check("1024x1024 with one NaN (2x2 blocks in 512 cells): its cell is red, marked by a 7x7 square around it",
      rc == 0 and rows[60 + 350][80 + 166] == (0xff, 0, 0) and len(red) == 49 and
      min(red) == (347, 163) and max(red) == (353, 169), (rc, err, len(red), red[:3]))

sys.exit(1 if failures else 0)
