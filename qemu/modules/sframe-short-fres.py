#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""sframe-short-fres.py IN.ko OUT.ko: a copy of a module whose first
.sframe section counts one FRE fewer in its header than its FDEs hold.

The section still opens and indexes (sframe_open() does not count the
FREs), so the loader registers it, but sframe_validate() rejects it
(SFRAME_E_NUM_FRES): the boot tests load it to see a module whose check
off the load path fails withdrawn.  ELF64, little-endian (x86_64, arm64).
"""
import struct
import sys

SFRAME_MAGIC = 0xdee2
HDR_NUM_FRES = 12


def section(data, name):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    strtab_off, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 24)
    for i in range(shnum):
        hdr = shoff + i * shentsize
        sh_name, = struct.unpack_from("<I", data, hdr)
        end = data.index(b"\0", strtab_off + sh_name)
        if data[strtab_off + sh_name:end] == name:
            off, size = struct.unpack_from("<QQ", data, hdr + 24)
            return off, size
    sys.exit(f"{sys.argv[1]}: no {name.decode()} section")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: sframe-short-fres.py IN.ko OUT.ko")
    data = bytearray(open(sys.argv[1], "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{sys.argv[1]}: not a little-endian ELF64 file")
    off, size = section(data, b".sframe")
    magic, = struct.unpack_from("<H", data, off)
    nfres, = struct.unpack_from("<I", data, off + HDR_NUM_FRES)
    if size < 28 or magic != SFRAME_MAGIC or nfres == 0:
        sys.exit(f"{sys.argv[1]}: .sframe without FREs")
    struct.pack_into("<I", data, off + HDR_NUM_FRES, nfres - 1)
    open(sys.argv[2], "wb").write(data)


if __name__ == "__main__":
    main()
