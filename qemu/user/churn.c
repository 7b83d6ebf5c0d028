// SPDX-License-Identifier: GPL-2.0-only
/*
 * churn: load for the stack walkers of a test VM (qemu/smoke.sh, "churn").
 *
 *   churn [-T SECONDS] [-F HZ] [-s SEED]
 *
 * For -T seconds (default 60) it runs, each in a process of its own:
 *
 *   forker    fork() in a loop; children touch memory and exit, or exec
 *             /bin/true (every fourth)
 *   workload  one process, seven threads: a user-space spinner (a chain of
 *             calls), a kernel spinner (short system calls, /dev/zero
 *             reads, pipe writes), a sleeper (nanosleep, futex waits with
 *             timeouts, poll), a page faulter (anonymous mmap, touch,
 *             mprotect, munmap: TLB shootdown IPIs on SMP), a signaller
 *             (SIGUSR1 to the other threads), a CPU migrator
 *             (sched_setaffinity) and an interval timer (SIGALRM, 1 ms)
 *   stackers  two readers of every /proc/PID/task/TID/stack in turn (the
 *             kernel's best-effort walk of tasks that may be running)
 *   perf      system-wide sampling on every CPU with kernel and user
 *             callchains (perf_event_open(), cpu-clock at -F Hz, default
 *             1000): every record is checked to be well formed
 *
 * while the kernel's walkers (sframe_churn.ko) walk every task reliably
 * and modules load and unload (the smoke test runs those).  At the end it
 * prints one line of counts and exits 0; 1 if any process died of a
 * signal, a perf record was malformed or a role could not start.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfring.h"

#define MAX_CPUS	64
#define RING_PAGES	16

static const char *prog = "churn";
static double deadline;

/* Counts of every role, in a shared mapping: the parent prints them. */
struct counts {
	_Atomic uint64_t forks, execs, fork_failed;
	_Atomic uint64_t user_loops, syscalls, sleeps, faults, signals_sent;
	_Atomic uint64_t signals_got, migrations, timer_ticks;
	_Atomic uint64_t stack_reads, stack_gone, stack_bytes;
	_Atomic uint64_t samples, kframes, uframes, lost, bad_records;
	_Atomic uint64_t max_chain;
	_Atomic int failed;		/* a role could not start */
};

static struct counts *C;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool running(void)
{
	return now() < deadline;
}

static void fail(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	atomic_store(&C->failed, 1);
}

/* ---- forker ------------------------------------------------------------- */

static void role_forker(void)
{
	static char page[16384];
	uint64_t n = 0;
	pid_t pid;

	while (running()) {
		pid = fork();
		if (pid < 0) {
			atomic_fetch_add(&C->fork_failed, 1);
			usleep(1000);
			continue;
		}
		if (pid == 0) {
			if (n % 4 == 3) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			memset(page, (int)n, sizeof(page));	/* COW faults */
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		atomic_fetch_add(&C->forks, 1);
		if (n % 4 == 3)
			atomic_fetch_add(&C->execs, 1);
		n++;
	}
}

/* ---- workload threads --------------------------------------------------- */

/* A few frames of user code under the samples. */
static __attribute__((noinline)) uint64_t spin3(uint64_t x)
{
	int i;

	for (i = 0; i < 1000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	__asm__ volatile("" : "+r"(x));
	return x;
}

static __attribute__((noinline)) uint64_t spin2(uint64_t x)
{
	x = spin3(x) ^ 1;
	__asm__ volatile("" : "+r"(x));
	return x;
}

static __attribute__((noinline)) uint64_t spin1(uint64_t x)
{
	x = spin2(x) + 1;
	__asm__ volatile("" : "+r"(x));
	return x;
}

static void *th_user(void *arg)
{
	uint64_t x = (uintptr_t)arg;

	while (running()) {
		x = spin1(x);
		atomic_fetch_add(&C->user_loops, 1);
	}
	return (void *)(uintptr_t)(x & 1);
}

static void *th_kernel(void *arg)
{
	static char buf[65536];
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	int p[2] = { -1, -1 };
	uint64_t n = 0;

	(void)arg;
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
		p[0] = p[1] = -1;
	while (running()) {
		switch (n++ % 4) {
		case 0:
			syscall(SYS_getppid);
			break;
		case 1:
			if (zero >= 0 && read(zero, buf, sizeof(buf)) < 0)
				zero = -1;
			break;
		case 2:
			if (p[1] >= 0 && write(p[1], buf, 4096) > 0 &&
			    read(p[0], buf, 4096) < 0)
				p[1] = -1;
			break;
		default:
			sched_yield();
		}
		atomic_fetch_add(&C->syscalls, 1);
	}
	return NULL;
}

static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sleep_cond = PTHREAD_COND_INITIALIZER;

static void *th_sleep(void *arg)
{
	struct timespec ts;
	struct pollfd pfd = { .fd = -1 };
	uint64_t n = 0;

	(void)arg;
	while (running()) {
		switch (n++ % 3) {
		case 0:
			ts.tv_sec = 0;
			ts.tv_nsec = 100000 + (n % 20) * 100000;
			nanosleep(&ts, NULL);
			break;
		case 1:
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_mutex_lock(&sleep_lock);
			pthread_cond_timedwait(&sleep_cond, &sleep_lock, &ts);
			pthread_mutex_unlock(&sleep_lock);
			break;
		default:
			poll(&pfd, 1, 1);
		}
		atomic_fetch_add(&C->sleeps, 1);
	}
	return NULL;
}

static void *th_fault(void *arg)
{
	const size_t len = 256 * 1024;
	unsigned char *m;
	size_t i;

	(void)arg;
	while (running()) {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			usleep(1000);
			continue;
		}
		for (i = 0; i < len; i += 4096)
			m[i] = (unsigned char)i;
		mprotect(m, len / 2, PROT_READ);
		munmap(m, len);
		atomic_fetch_add(&C->faults, 1);
	}
	return NULL;
}

static pthread_t workers[4];
static int nworkers;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&C->signals_got, 1, memory_order_relaxed);
}

static void on_alarm(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&C->timer_ticks, 1, memory_order_relaxed);
}

static void *th_signal(void *arg)
{
	struct timespec ts = { 0, 200000 };
	uint64_t n = 0;

	(void)arg;
	while (running()) {
		if (nworkers && !pthread_kill(workers[n++ % nworkers], SIGUSR1))
			atomic_fetch_add(&C->signals_sent, 1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *th_migrate(void *arg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct timespec ts = { 0, 500000 };
	cpu_set_t set;
	uint64_t n = 0;

	(void)arg;
	while (running() && ncpu > 1) {
		CPU_ZERO(&set);
		CPU_SET(n++ % ncpu, &set);
		if (!sched_setaffinity(0, sizeof(set), &set))
			atomic_fetch_add(&C->migrations, 1);
		spin1(n);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void role_workload(void)
{
	void *(*const fns[])(void *) = { th_user, th_kernel, th_sleep, th_fault };
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa = { .sa_flags = SA_RESTART };
	pthread_t sig, mig;
	int i;

	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	for (i = 0; i < 4; i++) {
		if (pthread_create(&workers[i], NULL, fns[i], (void *)(uintptr_t)i)) {
			errno = EAGAIN;
			fail("pthread_create");
			break;
		}
		nworkers++;
	}
	if (pthread_create(&sig, NULL, th_signal, NULL) ||
	    pthread_create(&mig, NULL, th_migrate, NULL)) {
		errno = EAGAIN;
		fail("pthread_create");
		exit(1);
	}
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_join(sig, NULL);
	pthread_join(mig, NULL);
	for (i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- /proc/PID/stack readers --------------------------------------------- */

static void read_stacks_of(const char *pid)
{
	char path[600], buf[4096];
	struct dirent *e;
	ssize_t n;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d) {
		atomic_fetch_add(&C->stack_gone, 1);
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/stack", pid,
			 e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			atomic_fetch_add(&C->stack_gone, 1);
			continue;
		}
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n < 0) {
			atomic_fetch_add(&C->stack_gone, 1);
			continue;
		}
		atomic_fetch_add(&C->stack_reads, 1);
		atomic_fetch_add(&C->stack_bytes, (uint64_t)n);
	}
	closedir(d);
}

static void role_stacks(void)
{
	struct dirent *e;
	DIR *d;

	while (running()) {
		d = opendir("/proc");
		if (!d) {
			fail("/proc");
			return;
		}
		while ((e = readdir(d)) && running())
			if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
				read_stacks_of(e->d_name);
		closedir(d);
	}
}

/* ---- perf sampler --------------------------------------------------------- */

/* PERF_SAMPLE_IP | TID | CALLCHAIN: ip, pid, tid, nr, ips[nr] */
static void on_record(void *arg, const struct perf_event_header *hdr,
		      const unsigned char *rec)
{
	const unsigned char *p = rec + sizeof(*hdr);
	const unsigned char *end = rec + hdr->size;
	uint64_t nr, ip, i, k = 0, u = 0, ctx = 0, max;

	(void)arg;
	if (hdr->type == PERF_RECORD_LOST) {
		if (hdr->size >= sizeof(*hdr) + 16) {
			memcpy(&nr, p + 8, 8);
			atomic_fetch_add(&C->lost, nr);
		}
		return;
	}
	if (hdr->type != PERF_RECORD_SAMPLE)
		return;
	if (end - p < 24) {
		atomic_fetch_add(&C->bad_records, 1);
		return;
	}
	memcpy(&nr, p + 16, 8);
	p += 24;
	if (nr > (uint64_t)(end - p) / 8) {
		atomic_fetch_add(&C->bad_records, 1);
		return;
	}
	for (i = 0; i < nr; i++) {
		memcpy(&ip, p + 8 * i, 8);
		if (ip >= PERF_CONTEXT_MAX) {
			ctx = ip;
			continue;
		}
		if (ctx == PERF_CONTEXT_KERNEL)
			k++;
		else if (ctx == PERF_CONTEXT_USER)
			u++;
		else
			atomic_fetch_add(&C->bad_records, 1);
	}
	atomic_fetch_add(&C->samples, 1);
	atomic_fetch_add(&C->kframes, k);
	atomic_fetch_add(&C->uframes, u);
	max = atomic_load(&C->max_chain);
	while (k + u > max &&
	       !atomic_compare_exchange_weak(&C->max_chain, &max, k + u))
		;
}

static void role_perf(unsigned int hz)
{
	struct perf_ring rings[MAX_CPUS];
	struct pollfd pfds[MAX_CPUS];
	struct perf_event_attr attr;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int i, n = 0, fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = hz;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.wakeup_events = 16;
	attr.exclude_hv = 1;
	for (i = 0; i < ncpu && i < MAX_CPUS; i++) {
		fd = syscall(SYS_perf_event_open, &attr, -1, i, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 || perf_ring_map(&rings[n], fd, RING_PAGES)) {
			fail("perf_event_open (system-wide, every CPU)");
			return;
		}
		pfds[n].fd = fd;
		pfds[n].events = POLLIN;
		n++;
	}
	while (running()) {
		poll(pfds, n, 100);
		for (i = 0; i < n; i++)
			if (perf_ring_drain(&rings[i], on_record, NULL))
				atomic_fetch_add(&C->bad_records, 1);
	}
	for (i = 0; i < n; i++) {
		perf_ring_drain(&rings[i], on_record, NULL);
		perf_ring_unmap(&rings[i]);
		close(pfds[i].fd);
	}
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	unsigned int secs = 60, hz = 1000;
	const char *const roles[] = { "forker", "workload", "stacks", "stacks",
				      "perf" };
	pid_t pids[5];
	double t0, t;
	int i, opt, status, bad = 0;

	while ((opt = getopt(argc, argv, "T:F:")) != -1) {
		switch (opt) {
		case 'T':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'F':
			hz = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-T SECONDS] [-F HZ]\n", prog);
			return 2;
		}
	}
	if (!secs || !hz) {
		fprintf(stderr, "%s: -T and -F must be positive\n", prog);
		return 2;
	}
	C = mmap(NULL, sizeof(*C), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (C == MAP_FAILED) {
		perror("churn: mmap");
		return 1;
	}
	t0 = now();
	deadline = t0 + secs;
	for (i = 0; i < 5; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			fail("fork");
			continue;
		}
		if (pids[i])
			continue;
		switch (i) {
		case 0:
			role_forker();
			break;
		case 1:
			role_workload();
			break;
		case 2:
		case 3:
			role_stacks();
			break;
		default:
			role_perf(hz);
		}
		_exit(0);
	}
	for (i = 0; i < 5; i++) {
		if (pids[i] <= 0)
			continue;
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "%s: %s (pid %d) %s %d\n", prog, roles[i],
				(int)pids[i],
				WIFSIGNALED(status) ? "killed by signal" : "exit",
				WIFSIGNALED(status) ? WTERMSIG(status) :
				WEXITSTATUS(status));
			bad = 1;
		}
	}
	t = now() - t0;
	printf("churn: %.0f s: %" PRIu64 " forks (%" PRIu64 " exec, %" PRIu64
	       " failed), %" PRIu64 " /proc/PID/stack reads (%.0f/s, %" PRIu64
	       " of exited tasks), %" PRIu64 " perf samples (%.0f/s, %.1f kernel + %.1f user frames each, longest %" PRIu64
	       ", %" PRIu64 " lost, %" PRIu64 " malformed), %" PRIu64
	       " syscalls, %" PRIu64 " sleeps, %" PRIu64 " mmap rounds, %" PRIu64
	       " signals (%" PRIu64 " delivered), %" PRIu64 " timer signals, %" PRIu64
	       " migrations\n",
	       t, C->forks, C->execs, C->fork_failed, C->stack_reads,
	       C->stack_reads / t, C->stack_gone, C->samples, C->samples / t,
	       C->samples ? (double)C->kframes / C->samples : 0.0,
	       C->samples ? (double)C->uframes / C->samples : 0.0,
	       C->max_chain, C->lost, C->bad_records, C->syscalls, C->sleeps,
	       C->faults, C->signals_sent, C->signals_got, C->timer_ticks,
	       C->migrations);
	if (C->bad_records || C->failed || !C->samples || !C->stack_reads ||
	    !C->forks)
		bad = 1;
	return bad;
}
