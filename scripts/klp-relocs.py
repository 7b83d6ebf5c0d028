#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""klp-relocs.py IN.ko OUT.ko: turn references into livepatch relocations.

Linux 6.1 has no klp-convert.  A livepatch module built from
qemu/modules/livepatch/sframe_klp_reloc.c reserves, for each object OBJ it needs
symbols of:
  - a local symbol ".klp.sym.OBJ.NAME,POS" for each symbol NAME it calls
    as a weak undefined symbol (so that modpost accepts it);
  - an allocated section ".klp.rela.OBJ.SECTION" of zeros, room for the
    relocations of SECTION against those symbols (24 bytes each).
This moves those relocations out of ".rela.SECTION" into the reserved
section, makes it an SHF_RELA_LIVEPATCH relocation section, and makes
each NAME a SHN_LIVEPATCH symbol named ".klp.sym.OBJ.NAME,POS", as
Documentation/livepatch/module-elf-format.rst describes.  Livepatch then
resolves and applies them when the patch is enabled or OBJ loads.
Little-endian ELF64 only (x86_64, arm64).  Errors: one line, exit 1.
"""
import struct
import sys

SHT_SYMTAB, SHT_RELA = 2, 4
SHF_ALLOC, SHF_INFO_LINK, SHF_RELA_LIVEPATCH = 0x2, 0x40, 0x00100000
SHN_UNDEF, SHN_LIVEPATCH = 0, 0xff20
SHDR, SYM, RELA = '<IIQQQQIIQQ', '<IBBHQQ', '<QQq'


def die(msg):
    print(f'klp-relocs: {sys.argv[1]}: {msg}', file=sys.stderr)
    sys.exit(1)


def cstr(buf, off):
    end = buf.find(b'\0', off)
    if end < 0:
        die(f'unterminated string at {off}')
    return buf[off:end].decode('latin-1')


def main():
    if len(sys.argv) != 3:
        print('usage: klp-relocs.py IN.ko OUT.ko', file=sys.stderr)
        sys.exit(2)
    data = bytearray(open(sys.argv[1], 'rb').read())
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        die('not a little-endian ELF64 file')
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    if shentsize != 64 or shoff + shnum * 64 > len(data):
        die('bad section header table')
    sh = [list(struct.unpack_from(SHDR, data, shoff + i * 64))
          for i in range(shnum)]
    shstr = data[sh[shstrndx][4]:sh[shstrndx][4] + sh[shstrndx][5]]
    names = [cstr(shstr, s[0]) for s in sh]
    symidx = [i for i, s in enumerate(sh) if s[1] == SHT_SYMTAB]
    if len(symidx) != 1:
        die('no single symbol table')
    symidx = symidx[0]
    symoff, symsize, strndx = sh[symidx][4], sh[symidx][5], sh[symidx][6]
    strtab = data[sh[strndx][4]:sh[strndx][4] + sh[strndx][5]]
    syms = [list(struct.unpack_from(SYM, data, symoff + i * 24))
            for i in range(symsize // 24)]

    # NAME (undefined) -> index, and the reserved ".klp.sym.OBJ.NAME,POS"
    undef = {}
    for i, s in enumerate(syms):
        if s[3] == SHN_UNDEF and s[0]:
            undef[cstr(strtab, s[0])] = i
    convert = {}	# symbol index -> (st_name of its klp name, obj)
    for s in syms:
        name = cstr(strtab, s[0]) if s[0] else ''
        if not name.startswith('.klp.sym.'):
            continue
        obj, _, rest = name[len('.klp.sym.'):].partition('.')
        sym = rest.rpartition(',')[0]
        if sym not in undef:
            die(f'{name}: no undefined symbol {sym} refers to it')
        convert[undef[sym]] = (s[0], obj)
    if not convert:
        die('no .klp.sym.OBJ.NAME,POS symbols')

    moved = 0
    for k, kname in enumerate(names):
        if not kname.startswith('.klp.rela.') or sh[k][1] == SHT_RELA:
            continue
        obj, _, target = kname[len('.klp.rela.'):].partition('.')
        tgt = [i for i, n in enumerate(names) if n == target]
        rel = [i for i, s in enumerate(sh)
               if s[1] == SHT_RELA and tgt and s[7] == tgt[0]]
        if len(tgt) != 1 or len(rel) != 1:
            die(f'{kname}: no single section {target} with relocations')
        r = rel[0]
        keep, klp = [], []
        for off in range(sh[r][4], sh[r][4] + sh[r][5], 24):
            entry = data[off:off + 24]
            symi = struct.unpack_from(RELA, entry)[1] >> 32
            if symi in convert and convert[symi][1] == obj:
                klp.append(entry)
            else:
                keep.append(entry)
        if not klp:
            die(f'{kname}: {target} has no relocation to convert')
        if len(klp) * 24 > sh[k][5]:
            die(f'{kname}: room for {sh[k][5] // 24} relocations, '
                f'{len(klp)} needed')
        data[sh[r][4]:sh[r][4] + len(keep) * 24] = b''.join(keep)
        sh[r][5] = len(keep) * 24
        data[sh[k][4]:sh[k][4] + len(klp) * 24] = b''.join(klp)
        sh[k][1] = SHT_RELA
        sh[k][2] = SHF_ALLOC | SHF_INFO_LINK | SHF_RELA_LIVEPATCH
        sh[k][5] = len(klp) * 24
        sh[k][6], sh[k][7] = symidx, tgt[0]
        sh[k][8], sh[k][9] = 8, 24
        moved += len(klp)
    if not moved:
        die('no .klp.rela.OBJ.SECTION section')

    for i, (st_name, _) in convert.items():
        syms[i][0] = st_name
        syms[i][3] = SHN_LIVEPATCH
        struct.pack_into(SYM, data, symoff + i * 24, *syms[i])
    for i, s in enumerate(sh):
        struct.pack_into(SHDR, data, shoff + i * 64, *s)
    open(sys.argv[2], 'wb').write(data)
    print(f'klp-relocs: {sys.argv[2]}: {moved} livepatch relocations, '
          f'{len(convert)} symbols')


main()
