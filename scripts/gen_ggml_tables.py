#!/usr/bin/env python3
"""Writes lib/src/decode/ggml_grids_*.cpp: the lattice grids and sign tables of ggml's IQ quant
types as plain C++ data, read from ggml's src/ggml-common.h (GGML_TABLE_BEGIN ... GGML_TABLE_END).

    python3 scripts/gen_ggml_tables.py /path/to/ggml-common.h

The committed files are data only; this script is how they were made (rerun it when ggml adds
a table). Each table keeps ggml's name and element type.
"""
import re
import sys
from pathlib import Path

# (ggml table name, our C++ name, output file, values per line)
TABLES = [
    ("ksigns_iq2xs", "kIq2xsSigns", "ggml_grids_iq3.cpp", 16),
    ("iq3xxs_grid", "kIq3xxsGrid", "ggml_grids_iq3.cpp", 8),
    ("iq3s_grid", "kIq3sGrid", "ggml_grids_iq3.cpp", 8),
    ("iq2xxs_grid", "kIq2xxsGrid", "ggml_grids_iq2.cpp", 6),
    ("iq2xs_grid", "kIq2xsGrid", "ggml_grids_iq2.cpp", 6),
    ("iq2s_grid", "kIq2sGrid", "ggml_grids_iq2.cpp", 6),
    ("iq1s_grid", "kIq1sGrid", "ggml_grids_iq1s.cpp", 6),
]
SIZES = {"NGRID_IQ1S": 2048}


def read_tables(text):
    tables = {}
    pattern = r"GGML_TABLE_BEGIN\((\w+), (\w+), (\w+)\)(.*?)GGML_TABLE_END\(\)"
    for ctype, name, size, body in re.findall(pattern, text, re.S):
        # the macro definitions; the first definition is the C one (iq1s_grid has a GPU variant later)
        if name == "name" or name in tables:
            continue
        values = [int(v, 0) for v in re.findall(r"-?0x[0-9a-fA-F]+|-?\d+", body)]
        count = SIZES.get(size) or int(size)
        assert len(values) == count, (name, len(values), count)
        tables[name] = (ctype, values)
    return tables


def emit(ctype, ours, values, per_line):
    width = {"uint64_t": 16, "uint32_t": 8}.get(ctype)
    fmt = (lambda v: f"0x{v:0{width}x}") if width else str
    lines = [f"extern const std::{ctype} {ours}[{len(values)}] = {{"]
    sep = "," if width == 16 else ", "  # 64-bit entries: six to a 120-column line
    for i in range(0, len(values), per_line):
        lines.append("  " + sep.join(fmt(v) for v in values[i:i + per_line]) + ",")
    lines.append("};")
    return "\n".join(lines)


def main():
    text = Path(sys.argv[1]).read_text()
    tables = read_tables(text)
    out_dir = Path(__file__).resolve().parent.parent / "lib" / "src" / "decode"
    files = {}
    for name, ours, fname, per_line in TABLES:
        ctype, values = tables[name]
        files.setdefault(fname, []).append(f"// {name}\n" + emit(ctype, ours, values, per_line))
    for fname, parts in files.items():
        head = (f"// decode/{fname} — data: grid tables of ggml's IQ quant types, copied from ggml's\n"
                "// src/ggml-common.h by scripts/gen_ggml_tables.py (names as ggml's; do not edit by hand).\n"
                "#include \"decode/ggml_tables.hpp\"\n\nnamespace tensor_inspect::ggml_tables {\n\n")
        (out_dir / fname).write_text(head + "\n\n".join(parts) + "\n\n}  // namespace tensor_inspect::ggml_tables\n")


if __name__ == "__main__":
    main()
