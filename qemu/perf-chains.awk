# SPDX-License-Identifier: GPL-2.0-only
#
# Checks the call chains of `perf script -F tid,ip,sym,dso` (callchains
# recorded) against the test workload's fixed chain (qemu/user/chain.h):
#
#   ROOT -> w_outer -> w_a -> w_b -> w_c -> w_d -> w_leaf
#
# ROOT is main, or the thread start function (-v root=w_thread). For every
# sample whose first frame is in a chain function F (w_outer .. w_leaf, or
# the PLT entry F@plt: same stack as at F's entry) the next frames must be
# F's callers in order up to ROOT; what follows ROOT is not checked. A
# sample is complete (all there and right), short (those there are right,
# the chain ends early) or wrong (a frame is not the expected caller).
# Other samples (the C library, the loader, the kernel) are counted only.
#
# A wrong sample that would be complete without its second frame counts
# also as "extra": what perf 6.1 on arm64 makes of a complete chain when it
# adds the leaf's caller from the sampled LR itself (-g records LR for
# that). `perf script --show-lost-events` lines "TID PERF_RECORD_LOST lost
# N" (and _SAMPLES) are summed.
#
# Output, one line:
#   samples N checked C complete K short S wrong W threads T extra E lost L
# then up to 3 short and 3 wrong samples, e.g.
#   short: tid 95 sample #1 of the thread: w_b
# (#1: the thread's first sample). busybox awk: POSIX only.

BEGIN {
	if (root == "")
		root = "main"
	split(root " w_outer w_a w_b w_c w_d w_leaf", chain, " ")
	for (i = 1; i <= 7; i++)
		pos[chain[i]] = i
	n = 0
}

function judge(	leaf, k, i, want, verdict) {
	total++
	leaf = sym[1]
	sub(/@plt$/, "", leaf)
	k = (leaf in pos) ? pos[leaf] : 0
	nth[tid]++
	if (k < 2)
		return
	checked++
	if (!(tid in tids)) {
		tids[tid] = 1
		nthreads++
	}
	verdict = "complete"
	for (i = 2; i <= k; i++) {
		want = chain[k - i + 1]
		if (i > n) {
			verdict = "short"
			break
		}
		if (sym[i] != want) {
			verdict = "wrong"
			break
		}
	}
	cnt[verdict]++
	if (verdict == "wrong" && n >= 3) {
		for (i = 2; i <= k && i < n; i++)
			if (sym[i + 1] != chain[k - i + 1])
				break
		if (i > k)
			extra++
	}
	if (verdict != "complete" && shown[verdict] < 3) {
		shown[verdict]++
		ex = ex verdict ": tid " tid " sample #" nth[tid] " of the thread:"
		for (i = 1; i <= n; i++)
			ex = ex " " sym[i]
		ex = ex "\n"
	}
}

function flush() {
	if (n > 0)
		judge()
	n = 0
}

# a sample's first line: "  TID " (no tab), then one tab-indented frame
# per line ("\t  ADDR SYM (DSO)"), a blank line after the last
/^[ \t]*$/ {
	flush()
	next
}
/PERF_RECORD_LOST/ {
	flush()
	lost += $NF
	next
}
/^\t/ {
	n++
	sym[n] = $2
	next
}
{
	flush()
	tid = $1
}

END {
	flush()
	printf "samples %d checked %d complete %d short %d wrong %d threads %d extra %d lost %d\n",
	       total, checked, cnt["complete"], cnt["short"], cnt["wrong"], nthreads, extra, lost
	printf "%s", ex
}
