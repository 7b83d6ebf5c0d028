#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Livepatch transitions under load: a benchmark, not a test (run in the
# test VM by smoke.sh; busybox sh).  While tasks spin in user space, loop
# on syscalls (reading the patched /proc/cmdline, forking), sleep in the
# kernel, block on a pipe and take timer interrupts (besides the kernel's
# own kthreads), the kernel's livepatch sample is enabled and disabled
# ROUNDS times.  Per backend of arch_stack_walk_reliable() (ours; on
# x86_64 also ORC, switched at run time with sframe.reliable=arch):
#   - the time of each patch and unpatch transition (from livepatch's own
#     "starting"/"complete" messages);
#   - the cross-CPU function calls (IPIs) received during each
#     transition.  Rewriting a call site waits for every CPU three times
#     (text_poke_bp()), and a 6.12 PREEMPT_DYNAMIC kernel rewrites many:
#     every cond_resched() site when a transition starts, and when it
#     ends, restoring the preemption model, every preempt_schedule*()
#     site twice (sched_dynamic_klp_disable()).  With both vCPUs busy on
#     one TCG thread each wait costs milliseconds, so there this count,
#     not the stack checks, is what a transition's time says;
#   - how many tasks the first stack check switched (livepatch reports
#     the ones it could not switch, with dynamic debug);
#   - reliable walks, and the unreliable ones by reason (debugfs
#     sframe/reliable, our unwinder only).
# Prints "livepatch-bench:" lines; judges nothing.  Each backend runs
# ROUNDS rounds, or fewer once its rounds have taken BUDGET seconds.

ROUNDS=${1:-5}
BUDGET=${2:-120}
LP=/lib/modules/$(uname -r)/kernel/samples/livepatch/livepatch-sample.ko
K=/sys/kernel/livepatch/livepatch_sample
DDC=/sys/kernel/debug/dynamic_debug/control
STATS=/sys/kernel/debug/sframe/reliable
PARAM=/sys/module/sframe/parameters/reliable

[ -e $LP ] && [ -d /sys/kernel/livepatch ] || {
	echo "livepatch-bench: skipped (no livepatch sample)"
	exit 0
}
# shellcheck source=qemu/lib.sh
. /lib.sh
debugfs_mounted
# livepatch's account of the tasks it could not switch, and ours of each
# unreliable walk (rate-limited)
[ -w $DDC ] && echo 'file kernel/livepatch/transition.c +p' >$DDC
[ -w $DDC ] && echo 'file unwind.c +p' >$DDC

# wait_until SECONDS COMMAND...
wait_until() {
	n=$(($1 * 20))
	shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.05
	done
}

# The load: ~12 tasks in different states.
mkfifo /tmp/klpb.fifo
pids=
sh -c 'while :; do :; done' & pids="$pids $!"
sh -c 'while :; do :; done' & pids="$pids $!"
sh -c 'while :; do cat /proc/cmdline >/dev/null; done' & pids="$pids $!"
sh -c 'while :; do read -r x </proc/uptime; done' & pids="$pids $!"
sh -c 'while :; do usleep 200; done' & pids="$pids $!"
for _ in 1 2 3 4; do sleep 1000 & pids="$pids $!"; done
cat /tmp/klpb.fifo >/dev/null & pids="$pids $!"
exec 9>/tmp/klpb.fifo
sleep 1

# ipis: the cross-CPU function calls received so far, on all CPUs
# (x86_64 "CAL:", arm64 "IPI1:")
ipis() {
	awk '/Function call interrupts/ {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i
	} END { print n + 0 }' /proc/interrupts
}

# uptime_s: whole seconds since boot
uptime_s() {
	read -r up _ </proc/uptime
	echo "${up%.*}"
}

# one_round: patch and unpatch once; the dmesg of the round in
# /tmp/klpb.log, the IPIs of each transition in $round_ipis
one_round() {
	dmesg -c >/dev/null
	i0=$(ipis)
	insmod $LP || return 1
	if ! wait_until 60 sh -c "[ \"\$(cat $K/transition)\" = 0 ]"; then
		# give up: reverse the transition and remove the patch
		dmesg >>/tmp/klpb.all
		echo 0 >$K/enabled
		wait_until 60 sh -c "[ ! -e $K ]" && rmmod livepatch_sample
		return 1
	fi
	i1=$(ipis)
	echo 0 >$K/enabled
	wait_until 60 sh -c "[ ! -e $K ]" || return 1
	round_ipis="$((i1 - i0)) $(($(ipis) - i1))"
	rmmod livepatch_sample
	dmesg >/tmp/klpb.log
	cat /tmp/klpb.log >>/tmp/klpb.all
}

# round_numbers TASKS: "patch_ms unpatch_ms first_try_switched" of the log
round_numbers() {
	awk -v tasks="$1" '
	function ts(line) { sub(/^\[ */, "", line); sub(/\].*/, "", line); return line + 0 }
	/starting patching transition/ { ps = ts($0); phase = "p" }
	/: patching complete/ { pd = ts($0) }
	/starting unpatching transition/ { us = ts($0); phase = "u" }
	/: unpatching complete/ { ud = ts($0) }
	/klp_try_switch_task: .* (is running|has an unreliable stack|is sleeping on function)/ {
		# the first pass runs in klp_enable_patch(), before the
		# delayed retries (1 s apart)
		if (phase == "p" && ts($0) - ps < 0.5) {
			t = $0; sub(/.*klp_try_switch_task: /, "", t); sub(/ .*/, "", t)
			failed[t] = 1
		}
	}
	END {
		n = 0; for (t in failed) n++
		printf "%d %d %d\n", (pd - ps) * 1000, (ud - us) * 1000, tasks - n
	}' /tmp/klpb.log
}

# bench BACKEND: ROUNDS rounds (within BUDGET seconds), one summary line
bench() {
	[ -w $STATS ] && echo 0 >$STATS
	: >/tmp/klpb.rounds
	: >/tmp/klpb.all
	r=0
	over=0
	t0=$(uptime_s)
	while [ $r -lt "$ROUNDS" ]; do
		tasks=$(ls -d /proc/[0-9]* | wc -l)
		if ! one_round; then
			echo "livepatch-bench: $1: round $r: the transition did not complete within 60 s (reversed)"
			break
		fi
		echo "$(round_numbers "$tasks") $tasks $round_ipis" >>/tmp/klpb.rounds
		r=$((r + 1))
		if [ $(($(uptime_s) - t0)) -ge "$BUDGET" ]; then
			over=1
			break
		fi
	done
	[ -s /tmp/klpb.rounds ] && awk -v b="$1" -v rounds="$ROUNDS" -v budget="$BUDGET" -v over=$over '
	{ p[NR] = $1; u[NR] = $2; f += $3; t += $4; ip[NR] = $5; iu[NR] = $6 }
	function med(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return a[int((n + 1) / 2)]
	}
	END {
		# (med() sorts: p[1] and p[NR] are then the min and max)
		mp = med(p, NR)
		printf "livepatch-bench: %s: %d rounds%s: patch transition median %d ms (min %d, max %d), unpatch median %d ms; cross-CPU calls median %d (patch), %d (unpatch); first stack check switched %d of %d tasks (%.0f%%)\n",
			b, NR, over && NR < rounds ? sprintf(" (of %d: %d s budget)", rounds, budget) : "",
			mp, p[1], p[NR], med(u, NR), med(ip, NR), med(iu, NR),
			f, t, t ? 100 * f / t : 0
	}' /tmp/klpb.rounds
	if [ "$1" = sframe ] && [ -r $STATS ]; then
		echo "livepatch-bench: $1: reliable walks: $(sed -n 's/^walks: //p' $STATS), reliable $(sed -n 's/^reliable: //p' $STATS)$(sed -n 's/^unreliable: \(.*\)/; unreliable: \1/p' $STATS | tr -d '\n')"
		# where the unreliable walks stopped, most frequent first
		sed -n 's/.*sframe: \([^:]*\):[0-9]*: unreliable at \(.*\)/\1 at \2/p' \
			/tmp/klpb.all | sort | uniq -c | sort -rn | head -5 |
			sed "s/^ */livepatch-bench: $1: unreliable: /"
	fi
}

bench sframe
if [ -w $PARAM ] && echo arch >$PARAM 2>/dev/null; then
	bench "arch ($(uname -m | sed 's/x86_64/ORC/'))"
	echo sframe >$PARAM
fi

exec 9>&-
kill $pids 2>/dev/null
wait 2>/dev/null
rm -f /tmp/klpb.fifo /tmp/klpb.log /tmp/klpb.rounds /tmp/klpb.all
[ -w $DDC ] && echo 'file kernel/livepatch/transition.c -p' >$DDC
[ -w $DDC ] && echo 'file unwind.c -p' >$DDC
exit 0
