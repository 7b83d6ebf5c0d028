#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Livepatch consistency on our reliable unwinder (run in the test VM by
# smoke.sh; busybox sh).  sframe_klp_target.ko parks a kthread asleep in
# sfk_sleep_func() and another preempted by the timer interrupt inside
# sfk_spin_outer() -> sfk_spin_inner(); sframe_klp_patch.ko replaces both
# functions.  Checked, one PASS/FAIL line each:
#   - each task's reliable stack trace names the function (for the
#     spinner: across the interrupt's exception boundary);
#   - the transition waits while a task is inside a patched function, and
#     livepatch itself says so ("is sleeping on function ...");
#   - it completes once the tasks leave, and new calls run the patch;
#   - (6.4+) a kthread that never sleeps is switched from its own
#     cond_resched(), through a reliable walk of its own stack, with no
#     own-stack warning;
#   - disabling and removing the patch works.
# Also prints the time each transition took.

D=/sys/kernel/debug/sframe_klp
K=/sys/kernel/livepatch/sframe_klp_patch
M=${1:-/lib/modules-test}
DDC=/sys/kernel/debug/dynamic_debug/control

CHECK_PREFIX=livepatch-consistency
# shellcheck source=qemu/lib.sh
. /lib.sh

now_ms() { cut -d' ' -f1 /proc/uptime | tr -d . | sed 's/$/0/'; }

in_transition() { [ "$(cat $K/transition 2>/dev/null)" = 1 ]; }
done_transition() { [ "$(cat $K/transition 2>/dev/null)" = 0 ]; }
result() { sed -n "s/^$1 //p" $D/result; }

# trace_has TASK PATTERN...: TASK's trace is reliable and has every pattern
# in this order (innermost first)
trace_has() {
	task=$1
	shift
	line=$(grep "^$task: " $D/trace)
	echo "$line"
	case $line in
	"$task: reliable:"*) ;;
	*) return 1 ;;
	esac
	re=
	for p in "$@"; do re="$re.* $p"; done
	echo "$line" | grep -q "$re"
}

# the spinner, preempted from the timer interrupt (retried: it may be
# caught running, or preempted at a cond_resched-free point)
spinner_trace() {
	i=0
	while [ $i -lt 50 ]; do
		trace_has spinner "$@" && return 0
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

if [ ! -e $M/sframe_klp_target.ko ] || [ ! -d /sys/kernel/livepatch ]; then
	echo "livepatch-consistency: skipped (no CONFIG_LIVEPATCH or CONFIG_SFRAME_UNWIND_KLP_TEST)"
	exit 0
fi
debugfs_mounted
# livepatch's own account of each task it could not switch
[ -w $DDC ] && echo 'file kernel/livepatch/transition.c +p' >$DDC

# Livepatch switches a task from its cond_resched() (6.4+).  The busy
# kthread runs SCHED_FIFO on the first CPU; it must be on that CPU each
# time livepatch looks at it from elsewhere, so from its start until it
# has switched, this script and what it starts run on the last CPU, and
# nothing else gets time on the first (no RT throttling, no fair server).
# busy_done undoes that, also when the script stops early.
busy=
ncpu=$(grep -c '^processor' /proc/cpuinfo)
FS=/sys/kernel/debug/sched/fair_server/cpu0/runtime
RT=/proc/sys/kernel/sched_rt_runtime_us
# restore FILE VALUE: put a scheduler setting back, saying which one failed
restore() {
	echo "$2" 2>/dev/null >"$1" ||
		echo "livepatch-consistency: busy: could not restore $1 to $2 (it is $(cat "$1"))"
}
busy_done() {
	[ -n "$busy" ] || return 0
	busy=
	echo 0 >$D/busy
	# (in reverse order: with the first CPU's fair server still off,
	# 6.12 refused RT throttling back with EBUSY)
	[ -z "$fs_old" ] || restore $FS "$fs_old"
	restore $RT "$rt_old"
	taskset -p $(((1 << ncpu) - 1)) $$ >/dev/null
}
trap busy_done EXIT INT TERM
busy_start() {
	[ "$ncpu" -ge 2 ] && busybox --list | grep -qx taskset &&
		taskset -p $((1 << (ncpu - 1))) $$ >/dev/null || return 0
	if echo 1 2>/dev/null >$D/busy; then
		busy=1
		rt_old=$(cat $RT)
		fs_old=$(cat $FS 2>/dev/null)
		echo -1 >$RT
		[ -z "$fs_old" ] || echo 0 >$FS
	else
		echo "SKIP: livepatch-consistency: busy kthread (this kernel's livepatch does not switch tasks from cond_resched())"
		taskset -p $(((1 << ncpu) - 1)) $$ >/dev/null
	fi
}
busy_switched() { [ "$(result busy)" != 0 ]; }
# busy_report TRANSITION: wait for the busy kthread's result in a
# transition that began while it ran, report it, undo busy_start.  Result
# 3 means the check did not run (a stopper had the kthread off its CPU
# when livepatch first walked it: see sframe_klp_target.c); the unpatch
# transition then tries again.
busy_result=
busy_report() {
	wait_for 15 busy_switched
	busy_result=$(result busy)
	echo "livepatch-consistency: busy: $1 transition: result $busy_result (1: in its cond_resched(), 2: otherwise, 3: by livepatch before it saw its switch pending, 0: not switched)"
	sed -n 's/^busy_pending /livepatch-consistency: busy: while pending: /p' $D/result
	bpid=$(ps | awk '$NF == "[sfk_busy]" { print $1 }')
	if [ "$busy_result" != 1 ] && [ "$busy_result" != 3 ] && [ -n "$bpid" ]; then
		grep -E 'State|ctxt' /proc/$bpid/status | sed 's/^/livepatch-consistency: busy: /'
		sed 's/^/livepatch-consistency: busy: stack: /' /proc/$bpid/stack
		sed 's/^/livepatch-consistency: reliable walks: /' /sys/kernel/debug/sframe/reliable
	fi
	busy_done
}

check "insmod sframe_klp_target" insmod $M/sframe_klp_target.ko
echo 1 >$D/sleep
# The spinner needs a fully preemptible kernel (preempt=full): otherwise
# no task is ever preempted inside the kernel by an interrupt.
spin=1
if ! echo 1 2>/dev/null >$D/spin; then
	spin=
	echo "SKIP: livepatch-consistency: spinner (the kernel is not fully preemptible: no task is preempted by an interrupt inside the kernel)"
fi
sleep 0.5
# The interrupt entry the walk crosses, as each architecture names it.
case $(uname -m) in
x86_64)	irq='asm_sysvec_apic_timer_interrupt' ;;
*)	irq='el1h_64_irq_handler' ;;
esac
check "sleeper: reliable trace names sfk_sleep_func" \
	trace_has sleeper sfk_sleep_func sfk_sleeper_fn kthread
[ -z "$spin" ] ||
check "spinner: reliable trace crosses the interrupt into sfk_spin_outer" \
	spinner_trace preempt_schedule_irq "$irq" sfk_spin_inner sfk_spin_outer sfk_spinner_fn kthread

sed 's/^/livepatch-consistency: trace: /' $D/trace
dmesg -c >/dev/null
busy_start
t0=$(now_ms)
check "insmod sframe_klp_patch" insmod $M/sframe_klp_patch.ko
[ -z "$busy" ] || busy_report patch
# Livepatch retries the tasks it could not switch once a second; the
# spinner is often caught running.  Both must be reported inside their
# function (a reliable walk that named it), and hold the transition.
check "livepatch: sfk_sleeper is sleeping on function sfk_sleep_func" \
	wait_for 15 sh -c 'dmesg | grep "sfk_sleeper:[0-9]* is sleeping on function sfk_sleep_func"'
[ -z "$spin" ] ||
check "livepatch: sfk_spinner is sleeping on function sfk_spin_outer" \
	wait_for 15 sh -c 'dmesg | grep "sfk_spinner:[0-9]* is sleeping on function sfk_spin_outer"'
check "transition waits for tasks inside patched functions" in_transition
check "no own-stack warning (walks of current from cond_resched())" \
	sh -c '! dmesg | grep "own stack unreliable"'

check "livepatch: no task had an unreliable stack" \
	sh -c '! dmesg | grep "sfk_.* has an unreliable stack"'

# Release the sleeper: it returns from the old function; the spinner
# still holds the transition.
echo 0 >$D/sleep
check "sleeper finished in the old sfk_sleep_func (result 1)" sh -c "[ \"\$(sed -n 's/^sleep //p' $D/result)\" = 1 ]"
sleep 2
[ -z "$spin" ] ||
check "transition still waits for the spinner" in_transition
t1=$(now_ms)
[ -z "$spin" ] || echo 0 >$D/spin
[ -z "$spin" ] ||
check "spinner finished in the old sfk_spin_outer (result 1)" sh -c "[ \"\$(sed -n 's/^spin //p' $D/result)\" = 1 ]"
check "transition completes once the tasks left" wait_for 10 done_transition
t2=$(now_ms)
echo "livepatch-consistency: transition held $(( (t1 - t0) )) ms by the parked tasks, completed $(( t2 - t1 )) ms after they left"

# New calls run the replacements.
echo 1 >$D/sleep
[ -z "$spin" ] || echo 1 >$D/spin
want=20	# sleep 2; spin 0 without the spinner
[ -z "$spin" ] || want=22
check "patched functions run (results 2)" wait_for 5 sh -c '[ "$(sed -n "s/^sleep //p" '$D'/result)$(sed -n "s/^spin //p" '$D'/result)" = '$want' ]'
echo 0 >$D/sleep
[ -z "$spin" ] || echo 0 >$D/spin

[ "$busy_result" != 3 ] || busy_start
t0=$(now_ms)
echo 0 >$K/enabled
[ -z "$busy" ] || busy_report unpatch
check "unpatch transition completes" wait_for 10 sh -c "[ ! -e $K ]"
echo "livepatch-consistency: unpatch transition took $(( $(now_ms) - t0 )) ms"
[ -z "$busy_result" ] ||
check "busy kthread switched from its own cond_resched() (result 1)" \
	[ "$busy_result" = 1 ]
check "rmmod sframe_klp_patch" wait_for 5 rmmod sframe_klp_patch

# Livepatch relocations (scripts/klp-relocs.py made them): the new
# sfk_reloc_func() of sframe_klp_reloc.ko calls the target's static
# sfk_secret(), resolved by name and written into the patch module's
# read-only text when the patch is enabled (arm64: the patch "arm64: module: apply late relocations ...").
R=/sys/kernel/livepatch/sframe_klp_reloc
reloc_is() { [ "$(cat $D/reloc)" = "$1" ]; }
reloc_off() {
	echo 0 >$R/enabled && wait_for 30 sh -c "[ ! -e $R ]" && rmmod sframe_klp_reloc
}
check "klp relocation: original sfk_reloc_func returns 1" reloc_is 1
check "klp relocation: insmod sframe_klp_reloc (target loaded)" insmod $M/sframe_klp_reloc.ko
check "klp relocation: transition completes" wait_for 30 sh -c "[ \"\$(cat $R/transition)\" = 0 ]"
check "klp relocation: new sfk_reloc_func calls the static sfk_secret (42)" reloc_is 42
check "klp relocation: disable and rmmod" reloc_off
check "klp relocation: original back" reloc_is 1
dmesg -c >/dev/null
check "klp relocation: an unknown symbol is refused" sh -c "! insmod $M/sframe_klp_reloc_bad.ko"
check "klp relocation: with a clear message" \
	sh -c "dmesg | grep \"livepatch: symbol 'sfk_no_such_function' not found in symbol table\""
check "rmmod sframe_klp_target" rmmod sframe_klp_target
# The patch first, the target later: its relocations are applied when the
# target module loads (klp_module_coming()).
check "klp relocation: insmod sframe_klp_reloc (target not loaded)" insmod $M/sframe_klp_reloc.ko
check "klp relocation: insmod sframe_klp_target after it" insmod $M/sframe_klp_target.ko
check "klp relocation: applied at the target's load (42)" wait_for 10 reloc_is 42
reloc_off_all() { reloc_off && rmmod sframe_klp_target; }
check "klp relocation: disable and rmmod both" reloc_off_all
[ -w $DDC ] && echo 'file kernel/livepatch/transition.c -p' >$DDC
exit 0
