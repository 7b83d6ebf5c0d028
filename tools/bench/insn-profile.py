#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Instructions per function and phase from an insn-profile.so output.

  insn-profile.py PROFILE VMLINUX [--per N] [--top N] [--phase P,...]
                  [--func NAME]

PROFILE has "PHASE ADDRESS COUNT" lines (tools/bench/insn-profile.c).
Addresses are named with VMLINUX's symbols (nm); others (modules) are
"[other]".  For each phase: its instructions in all, then the functions
that executed most of them.  --per N divides every count by N (the walks
of a phase, to read instructions per walk).  --func NAME lists the
addresses of one function with their counts, for reading next to its
disassembly (objdump -d --start-address=...).
"""
import argparse
import bisect
import collections
import subprocess
import sys

PHASES = ['other', 'warm walk', 'reference walk', 'cold walk',
          'walk start', 'reliable walk', 'reference reliable walk',
          'lookups']


def symbols(vmlinux):
    out = subprocess.run(['nm', '-n', '--defined-only', vmlinux],
                         capture_output=True, text=True, check=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'tTwW':
            addrs.append(int(f[0], 16))
            names.append(f[2])
    return addrs, names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('profile')
    ap.add_argument('vmlinux')
    ap.add_argument('--per', type=float, default=1.0)
    ap.add_argument('--top', type=int, default=15)
    ap.add_argument('--phase', default='1,2,3')
    ap.add_argument('--func')
    a = ap.parse_args()
    addrs, names = symbols(a.vmlinux)
    # the last text symbol bounds the search: beyond it, [other]
    end = addrs[-1] if addrs else 0
    byfn = collections.defaultdict(lambda: collections.Counter())
    total = collections.Counter()
    lines = collections.defaultdict(list)
    with open(a.profile) as f:
        for line in f:
            p, addr, n = line.split()
            p, addr, n = int(p), int(addr, 16), int(n)
            i = bisect.bisect_right(addrs, addr) - 1
            fn = names[i] if i >= 0 and addr < end else '[other]'
            byfn[p][fn] += n
            total[p] += n
            if a.func and fn == a.func:
                lines[p].append((addr, n))
    for p in [int(x) for x in a.phase.split(',')]:
        name = PHASES[p] if p < len(PHASES) else str(p)
        print(f'phase {p} ({name}): {total[p] / a.per:.1f} instructions'
              + (f' per {a.per:g}' if a.per != 1 else ''))
        for fn, n in byfn[p].most_common(a.top):
            print(f'  {n / a.per:10.1f}  {100.0 * n / max(total[p], 1):5.1f}%  {fn}')
        if a.func:
            for addr, n in sorted(lines[p]):
                print(f'    {addr:x} {n / a.per:10.1f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
