#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Generate kunit/sframe_fixtures.h: fixture sections compiled into the
# kernel as data, with the expected rule of every row taken from references
# independent of our decoder: X.rows.txt (v2/v3, decoded by the fixture
# producer and checked against libsframe) or binutils 2.40's
# `readelf --sframe` output (v1).
#
#   scripts/gen-kunit-fixtures.py > kunit/sframe_fixtures.h
#   scripts/gen-kunit-fixtures.py --check    (exit 1 if the header is stale)
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FX = os.path.join(ROOT, "tools/testing/fixtures")
OUT = os.path.join(ROOT, "kunit/sframe_fixtures.h")

# One per version x ABI x byte order, plus FLEX, PAC B-key and signal rows.
FIXTURES = [
    "x86_64/nofp/prog", "x86_64/sc/libfix.so", "x86_64/v2-nofp/prog",
    "x86_64/v1-nofp/prog", "x86_64/v1-fp/libfix.so",
    "aarch64/pacb/prog", "aarch64/v2-pac/prog", "libsframe-data/DATA-BE",
    "s390x/fp/prog", "s390x/v2-fp/prog", "libsframe-data/DATA-BE-V3",
    "libsframe-data/DATA2",
]

# struct sframe_loc kinds, as in include/sframe/sframe.h
SAME, CFA, REG = 0, 1, 2
REGS = {3: (7, 6), 2: (31, 29), 1: (31, 29), 4: (15, 11)}  # abi: (sp, fp)


def meta(path):
    d = {}
    for line in open(path + ".meta"):
        if "=" in line:
            k, v = line.rstrip("\n").split("=", 1)
            d.setdefault(k, v)
    return d


def loc(s, fixed_ra, is_ra, flex):
    """rows.txt notation -> (kind, deref, reg, offset, padding)."""
    if s == "u":
        return (SAME, 0, 0, 0, 0)
    if s == "U(pad)":
        # FLEX padding is "no rule": the fixed slot where the ABI has one
        if is_ra and flex and fixed_ra:
            return (CFA, 1, 0, fixed_ra, 1)
        return (SAME, 0, 0, 0, 1)
    if s == "fixed":
        return (CFA, 1, 0, fixed_ra, 0)
    m = re.fullmatch(r"\*\(cfa([+-]\d+)\)", s)
    if m:
        return (CFA, 1, 0, int(m.group(1)), 0)
    m = re.fullmatch(r"(\*\()?r(\d+)([+-]\d+)?\)?", s)
    if m:
        return (REG, 1 if m.group(1) else 0, int(m.group(2)), int(m.group(3) or 0), 0)
    v = int(s)
    if is_ra and v == 0 and not flex:
        return (SAME, 0, 0, 0, 1)
    return (CFA, 1, 0, v, 0)


def field(line, key):
    m = re.search(r"\b" + key + r"=(\S+)", line)
    return m.group(1) if m else None


def rows_v23(path, m):
    fixed_ra = int(m["cfa_fixed_ra_offset"])
    sp, fp = REGS[int(m["abi_arch"])]
    fdes = []
    for line in open(path + ".rows.txt"):
        if line.startswith("FDE "):
            g = dict(re.findall(r"(\w+)=(\S+)", line))
            fdes.append({"pc": int(g["pc"], 16), "size": int(g["size"]),
                         "pc_type": int(g["pc_type"]), "rep": int(g["rep"]),
                         "signal": int(g["signal"]), "flex": int(g["fde_type"]),
                         "rows": []})
        elif line.startswith("  FRE "):
            f = fdes[-1]
            start = int(field(line, "start"), 16)
            row = {"start": start, "outer": int(field(line, "ra_undef")),
                   "mangled": int(field(line, "mangled"))}
            if not row["outer"]:
                flex = f["flex"]
                c = field(line, "cfa")
                if flex:
                    row["cfa"] = loc(c, 0, 0, 1)
                else:
                    base = sp if field(line, "base") == "sp" else fp
                    row["cfa"] = (REG, 0, base, int(c), 0)
                row["fp"] = loc(field(line, "fp"), fixed_ra, 0, flex)
                row["ra"] = loc(field(line, "ra"), fixed_ra, 1, flex)
            f["rows"].append(row)
    return fdes


def rows_v1(path, m):
    """binutils 2.40 readelf: 'func idx [i]: pc = 0x.., size = N bytes' + rows."""
    fixed_ra = int(m["cfa_fixed_ra_offset"])
    sp, fp = REGS[int(m["abi_arch"])]
    fdes = []
    mask = False
    for line in open(path + ".readelf240.txt"):
        g = re.match(r"\s+func idx \[\d+\]: pc = 0x([0-9a-f]+), size = (\d+) bytes", line)
        if g:
            fdes.append({"pc": int(g.group(1), 16), "size": int(g.group(2)),
                         "pc_type": 0, "rep": 0, "signal": 0, "flex": 0, "rows": []})
            continue
        if "STARTPC" in line:
            fdes[-1]["pc_type"] = 1 if "[m]" in line else 0
            continue
        g = re.match(r"\s+([0-9a-f]{16})\s+(sp|fp)\+(-?\d+)\s+(\S+)\s+(\S+)", line)
        if g and fdes:
            f = fdes[-1]
            start = int(g.group(1), 16)
            if not f["pc_type"]:
                start -= f["pc"]
            fpv, rav = g.group(4), g.group(5)
            mangled = rav.endswith("[s]")
            rav = rav.replace("[s]", "")
            row = {"start": start, "outer": 0, "mangled": int(mangled),
                   "cfa": (REG, 0, sp if g.group(2) == "sp" else fp, int(g.group(3)), 0),
                   "fp": (SAME, 0, 0, 0, 0) if fpv == "u" else (CFA, 1, 0, int(fpv[1:]), 0)}
            if fixed_ra:
                row["ra"] = (CFA, 1, 0, fixed_ra, 0)
            elif rav == "u":
                row["ra"] = (SAME, 0, 0, 0, 0)
            else:
                row["ra"] = (CFA, 1, 0, int(rav[1:]), 0)
            f["rows"].append(row)
    return fdes


def cname(name):
    return re.sub(r"[^A-Za-z0-9]", "_", name)


def ent(l):
    kind, deref, reg, off, pad = l
    return "{ %d, %d, %d, %d }" % (kind, deref, reg, off)


def generate():
    out = []
    w = out.append
    w("/* SPDX-License-Identifier: GPL-2.0-only */")
    w("/*")
    w(" * Generated by scripts/gen-kunit-fixtures.py from tools/testing/fixtures:")
    w(" * do not edit.  Real SFrame sections and, for each of their rows, the")
    w(" * rule expected from an independent reference (rows.txt or readelf 2.40).")
    w(" */")
    w("")
    tables = []
    for name in FIXTURES:
        path = os.path.join(FX, name)
        m = meta(path)
        raw = path + ".sframe" if os.path.exists(path + ".sframe") else path
        data = open(raw, "rb").read()
        fdes = rows_v1(path, m) if m["version"] == "1" else rows_v23(path, m)
        c = cname(name)
        w("static const u8 fx_%s_data[] = {" % c)
        for i in range(0, len(data), 16):
            w("\t" + " ".join("0x%02x," % b for b in data[i:i + 16]))
        w("};")
        w("")
        w("static const struct sframe_kunit_row fx_%s_rows[] = {" % c)
        nrows = 0
        for fi, f in enumerate(fdes):
            for r in f["rows"]:
                if r["outer"]:
                    w("\t{ %d, 0x%x, 1, 0 }," % (fi, r["start"]))
                else:
                    flags = (r["mangled"] and 1) | (r["ra"][4] and 2)
                    w("\t{ %d, 0x%x, 0, %d, %s, %s, %s }," % (
                        fi, r["start"], flags, ent(r["cfa"]), ent(r["ra"]), ent(r["fp"])))
                nrows += 1
        w("};")
        w("")
        w("static const struct sframe_kunit_fde fx_%s_fdes[] = {" % c)
        for f in fdes:
            w("\t{ 0x%xULL, %d, %d, %d, %d, %d }," % (
                f["pc"], f["size"], len(f["rows"]), f["pc_type"], f["rep"], f["signal"]))
        w("};")
        w("")
        tables.append((name, c, int(m["sh_addr"], 0), len(fdes), nrows))
    w("static const struct sframe_kunit_fixture sframe_kunit_fixtures[] = {")
    for name, c, addr, nf, nr in tables:
        w('\t{ "%s", fx_%s_data, sizeof(fx_%s_data), 0x%xULL,' % (name, c, c, addr))
        w("\t  fx_%s_fdes, %d, fx_%s_rows, %d }," % (c, nf, c, nr))
    w("};")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    text = generate()
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        sys.exit(0 if os.path.exists(OUT) and open(OUT).read() == text else 1)
    sys.stdout.write(text)
