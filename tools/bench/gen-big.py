#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# gen-big.py N: a C program with N functions of varied stack shapes (calls,
# local arrays, alloca, loops, many arguments) so that gcc -Wa,--gsframe
# gives a large SFrame section with realistic row counts.
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
rnd = random.Random(1)
print("#include <alloca.h>\n#include <string.h>\nvolatile long sink;")
for i in range(n):
    print("long f%d(long a, long b, long c);" % i)
for i in range(n):
    kind = i % 5
    callee = rnd.randrange(n)
    if kind == 0:
        body = "return a * %d + b - c;" % (i % 7 + 1)
    elif kind == 1:
        body = ("long buf[%d]; for (long k = 0; k < %d; k++) buf[k] = a + k; "
                "sink = buf[b & %d]; return a > 3 ? f%d(a - 1, b, c) : buf[0];"
                % (4 + i % 60, 4 + i % 60, 3, callee))
    elif kind == 2:
        body = ("char *p = alloca(16 + (a & 63)); memset(p, (int)b, 16); "
                "sink = p[3]; return a > 2 ? f%d(a - 2, c, b) + p[1] : p[0];" % callee)
    elif kind == 3:
        body = ("long s = 0; for (long k = 0; k < a; k++) { s += f%d(k & 1, s, c); "
                "if (s > b) break; } return s;" % callee)
    else:
        body = ("long x = a ^ b, y = b ^ c, z = c ^ a; sink = x + y + z; "
                "return a > 5 ? f%d(a - 3, y, z) + f%d(a - 4, x, z) : x * y;"
                % (callee, (callee + 1) % n))
    print("__attribute__((noinline)) long f%d(long a, long b, long c) { %s }" % (i, body))
print("int main(int argc, char **argv) { (void)argv; return (int)f0(argc, 2, 3); }")
