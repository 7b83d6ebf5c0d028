// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-hostile: the concurrent mode (-t).  Sampled worker threads run
 * the chain while mutator threads rewrite, unmap and remap the section and
 * remap the text; a sample taken while the section was pristine must name
 * no wrong frame.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

/* ---- concurrent mode (-t) ---------------------------------------------------- */

/*
 * Worker threads run the chain under their own perf event (each samples
 * itself) while mutator threads change the section and the text mapping
 * the kernel finds it by.  A sample is checked against the chain when the
 * section was pristine during its walk (observe(), hostile.h); its chain must
 * then be right, or stop early, never name a wrong frame.
 */
static const char *const mclass_names[NMCLASS] = {
	"rewrite", "flapping", "munmap", "prot-none", "other-file-page",
	"anonymous-page", "text-remap", "text-mprotect", "text-page-remap",
};

/* drawn from at random */
static const enum mclass sched_mut[] = {
	M_REWRITE, M_REWRITE, M_REWRITE, M_REWRITE, M_FLAP, M_FLAP, M_UNMAP,
	M_PROTNONE, M_FILE_PAGE, M_ANON, M_TEXT_REMAP, M_TEXT_MPROTECT,
	M_TEXT_PAGE,
};

static const char *const cphase_names[NCPHASE] = {
	"before the mutators", "while mutating", "after the mutators",
};

struct worker {
	int idx;
	pthread_t th;
	pid_t tid;
	int fd;
	struct perf_ring ring;
	struct watch w;
	u64 expect[NLEVELS];		/* each level's return address */
	struct counts c;
	int phase;			/* of the current run */
	u64 pos;			/* ring position of the record handled */
	char name[16], desc[200];
};

struct mutator {
	int idx;
	pthread_t th;
	char name[16], desc[200];
};

static struct worker workers[CONC_MAX];
static struct mutator mutators[CONC_MAX];
static int conc_phase;			/* CB_*, NCPHASE: stop */
static int mut_stop, nready;
static unsigned long nwrong_reported;
static pthread_rwlock_t sec_lock;	/* in place: shared; mappings: exclusive */
static off_t exe_size;
static double conc_deadline;		/* workers stop by then whatever happens */

/*
 * 1: the record at ring position pos was written while the section was
 * pristine (see observe()); 0: a mutation may have been under way; -1: not
 * written between two observations.
 */
static int conc_valid(const struct watch *w, u64 pos)
{
	unsigned int k;

	for (k = 0; k < w->n; k++) {
		const struct span *s = &w->log[k];

		if (pos - s->from < s->to - s->from)
			return (u32)(s->g0 >> 32) == (u32)s->g0 &&
			       s->g1 >> 32 == s->g0 >> 32;
	}
	return -1;
}

static void report_wrong(struct worker *wk, const struct sample *s, int lv,
			 int bad, int valid)
{
	char buf[512];
	size_t len;
	u64 j;

	if (opt.quiet ||
	    __atomic_fetch_add(&nwrong_reported, 1, __ATOMIC_RELAXED) >= MAX_REPORT)
		return;
	len = snprintf(buf, sizeof(buf), "%s: %s: wrong chain %s: ip %#" PRIx64
		       " in %s, entry %d is not %s's return address %#" PRIx64 ":",
		       prog, wk->name, valid ? "on a pristine section" :
		       "in a mutation window", s->ip, level_names[lv], bad,
		       level_names[lv + bad - 2], wk->expect[lv + bad - 2]);
	for (j = 1; j < s->nr && j < 10 && len < sizeof(buf) - 24; j++)
		len += snprintf(buf + len, sizeof(buf) - len, " %#" PRIx64, s->ips[j]);
	printf("%s\n", buf);
}

static void conc_record(void *arg, const struct perf_event_header *hdr,
			const unsigned char *p)
{
	struct worker *wk = arg;
	struct cstats *st = &sh->conc.st[wk->idx][wk->phase];
	u64 pos = wk->pos;
	struct sample s;
	int valid, lv, depth, j;

	wk->pos += hdr->size;
	if (!check_record(hdr, p, wk->tid, &wk->c, &s))
		return;
	valid = conc_valid(&wk->w, pos);
	if (valid < 0) {
		st->unbracketed++;
		valid = 0;
	}
	st->samples[valid]++;
	for (lv = 0; lv < NLEVELS; lv++)
		if (in_level(s.ip, lv))
			break;
	if (lv == NLEVELS)
		return;				/* outside the chain */
	st->chain[valid]++;
	/* ips[1] is the ip, ips[1 + j] the return address into level lv + j */
	depth = NLEVELS - lv;
	for (j = 1; j <= depth && (u64)j + 1 < s.nr; j++)
		if (s.ips[1 + j] != wk->expect[lv + j - 1])
			break;
	if (j <= depth && (u64)j + 1 < s.nr) {
		st->wrong[valid]++;
		if (valid)
			report_wrong(wk, &s, lv, j + 1, valid);
	} else if (j > depth) {
		st->complete[valid]++;
	} else {
		st->prefix[valid]++;
	}
}

static void conc_drain(struct worker *wk)
{
	wk->pos = wk->ring.meta->data_tail;
	if (perf_ring_drain(&wk->ring, conc_record, wk)) {
		fail("corrupt ring buffer record (size %u)", wk->ring.bad_size);
		exit(1);
	}
}

/* the first observation of a run: nothing logged yet */
static void watch_start(struct watch *w)
{
	w->n = 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	w->last_g = __atomic_load_n(&mstate, __ATOMIC_ACQUIRE);
	w->last_h = __atomic_load_n(w->head, __ATOMIC_ACQUIRE);
}

/* run_chain from one call site: its return address is the same each run */
HFN static unsigned long worker_run(unsigned long k)
{
	unsigned long r = run_chain(k);

	NO_TAIL();
	return r;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	unsigned long k;
	int lv, ph;

	wk->tid = gettid();
	who = wk->name;
	desc_tls = wk->desc;
	wk->fd = open_event(&wk->ring);
	wk->w.head = (volatile u64 *)&wk->ring.meta->data_head;
	leaf_set_ring(wk->w.head);
	/* a first run: the return addresses (the same in every run) */
	chain_sink = worker_run(0);
	for (lv = 0; lv < NLEVELS; lv++)
		wk->expect[lv] = (uintptr_t)ra_of[lv];
	wk->phase = CB_BEFORE;
	conc_drain(wk);
	__atomic_fetch_add(&nready, 1, __ATOMIC_SEQ_CST);
	leaf_set_watch(&wk->w);
	for (k = 1; wall_s() < conc_deadline; k++) {
		ph = __atomic_load_n(&conc_phase, __ATOMIC_ACQUIRE);
		if (ph >= NCPHASE)
			break;
		wk->phase = ph;
		watch_start(&wk->w);
		chain_sink = worker_run(k);
		observe(&wk->w);
		conc_drain(wk);
		sh->conc.st[wk->idx][ph].runs++;
	}
	leaf_set_watch(NULL);
	wk->w.n = 0;
	conc_drain(wk);
	return NULL;
}

/* a mutation's window: no change before mut_begin() or after mut_end() */
static void mut_begin(void)
{
	__atomic_fetch_add(&mstate, 1ULL << 32, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void mut_end(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_fetch_add(&mstate, 1, __ATOMIC_SEQ_CST);
}

/* waits (busy) until wall time t; flips n bytes at off[] meanwhile */
static void hold_until(double t, const u32 *off, const u8 *val, int n)
{
	unsigned long i;
	int k;

	for (i = 0; i < 100000000 && wall_s() < t; i++)
		for (k = 0; k < n; k++)
			sf.live[off[k]] = (i & 1) ? sf.orig[off[k]] : val[k];
}

/* the text mapping back from the file, as the ELF loader made it */
static void remap_text(void)
{
	void *p = mmap((void *)sf.text_lo, sf.text_hi - sf.text_lo,
		       PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, exe_fd,
		       sf.text_off);

	if (p != (void *)sf.text_lo)
		die(1, "FAIL: cannot map the text back: %s", strerror(errno));
}

static void check_pages(const char *after)
{
	if (memcmp((void *)sf.page, sf.orig_pages, sf.page_len))
		fail("the .sframe pages differ after %s", after);
}

/* a rewrite or flapping mutation of the bytes in place, held until t */
static void mutate_bytes(enum mclass c, double t)
{
	u32 off[FLAP_MAX];
	u8 val[FLAP_MAX];
	u32 o;
	int n = 0;

	pthread_rwlock_rdlock(&sec_lock);
	mut_begin();
	describe(": ");
	if (c == M_REWRITE) {
		mutate(pick_inplace());
	} else {
		mutate_flappable();
		/* (also bytes another rewriter changed: all in windows) */
		for (o = 0; o < sf.len && n < FLAP_MAX; o++) {
			if (sf.live[o] == sf.orig[o])
				continue;
			off[n] = o;
			val[n++] = sf.live[o];
		}
	}
	hold_until(t, off, val, n);
	memcpy(sf.live, sf.orig, sf.len);
	mut_end();
	pthread_rwlock_unlock(&sec_lock);
}

/*
 * the section's pages unmapped, PROT_NONE, or mapped from another file
 * page or anonymous memory, held until t
 */
static void mutate_pages(enum mclass c, double t)
{
	void *p;

	pthread_rwlock_wrlock(&sec_lock);
	mut_begin();
	if (c == M_UNMAP) {
		if (munmap((void *)sf.page, sf.page_len))
			fail("munmap: %s", strerror(errno));
	} else if (c == M_PROTNONE) {
		if (mprotect((void *)sf.page, sf.page_len, PROT_NONE))
			fail("mprotect PROT_NONE: %s", strerror(errno));
	} else if (c == M_FILE_PAGE) {
		off_t fo = PICK(0, sf.text_off, sf.text_off + page_size,
				exe_size > (off_t)sf.page_len ?
				rndn(exe_size - sf.page_len) & ~(page_size - 1) : 0);

		describe(" at file offset %#lx", (unsigned long)fo);
		p = mmap((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED, exe_fd, fo);
		if (p != (void *)sf.page)
			fail("mmap of file offset %#lx: %s", (unsigned long)fo,
			     strerror(errno));
	} else {
		p = mmap((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
		if (p != (void *)sf.page) {
			fail("mmap anonymous: %s", strerror(errno));
		} else if (rndn(2)) {
			describe(", a copy: ");
			memcpy(p, sf.orig_pages, sf.page_len);
			mutate(pick_inplace());
		} else {
			describe(", zeros");
		}
	}
	hold_until(t, NULL, NULL, 0);
	if (c == M_PROTNONE) {
		if (mprotect((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE))
			die(1, "FAIL: mprotect of the .sframe pages: %s",
			    strerror(errno));
	} else {
		remap_section();
	}
	check_pages(mclass_names[c]);
	mut_end();
	pthread_rwlock_unlock(&sec_lock);
}

/* the text mapped again, made read-only, or one of its pages remapped */
static void mutate_text(enum mclass c, double t)
{
	u32 o;
	void *p;

	switch (c) {
	case M_TEXT_REMAP:
		mut_begin();
		remap_text();
		mut_end();
		break;
	case M_TEXT_MPROTECT:
		/* the kernel forgets the text's section (nothing changes) */
		mut_begin();
		if (mprotect((void *)sf.text_lo, sf.text_hi - sf.text_lo,
			     PROT_READ | PROT_EXEC))
			fail("mprotect of the text: %s", strerror(errno));
		hold_until(t, NULL, NULL, 0);
		remap_text();
		mut_end();
		break;
	case M_TEXT_PAGE:
		/* one page of the text mapped again: the entry covers only it */
		mut_begin();
		o = rndn((sf.text_hi - sf.text_lo) / page_size);
		describe(" page %u", o);
		p = mmap((void *)(sf.text_lo + o * page_size), page_size,
			 PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, exe_fd,
			 sf.text_off + o * page_size);
		if (p != (void *)(sf.text_lo + o * page_size))
			die(1, "FAIL: cannot map a text page back: %s", strerror(errno));
		hold_until(t, NULL, NULL, 0);
		remap_text();
		mut_end();
		break;
	default:
		break;
	}
}

/* one mutation of class c held until t (a wall time) */
static void mutate_one(enum mclass c, double t)
{
	describe("%s", mclass_names[c]);
	switch (c) {
	case M_REWRITE:
	case M_FLAP:
		mutate_bytes(c, t);
		break;
	case M_UNMAP:
	case M_PROTNONE:
	case M_FILE_PAGE:
	case M_ANON:
		mutate_pages(c, t);
		break;
	case M_TEXT_REMAP:
	case M_TEXT_MPROTECT:
	case M_TEXT_PAGE:
		mutate_text(c, t);
		break;
	default:
		break;
	}
}

static void *mutator_main(void *arg)
{
	struct mutator *m = arg;
	struct timespec ts;
	unsigned long k;
	enum mclass c;
	double gap;

	who = m->name;
	desc_tls = m->desc;
	for (k = 0; !__atomic_load_n(&mut_stop, __ATOMIC_ACQUIRE) &&
	     wall_s() < conc_deadline; k++) {
		seed_variant(3 + m->idx, k);
		c = sched_mut[rndn(ARRAY_SIZE(sched_mut))];
		m->desc[0] = 0;
		/* held 0.05-2 ms, then 0.2-3 ms pristine */
		mutate_one(c, wall_s() + (50 + rndn(1950)) / 1e6);
		sh->conc.mut[m->idx][c]++;
		gap = (200 + rndn(2800)) / 1e6;
		if (rndn(4)) {
			hold_until(wall_s() + gap, NULL, NULL, 0);
		} else {
			ts.tv_sec = 0;
			ts.tv_nsec = gap * 1e9;
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void sleep_s(double s)
{
	struct timespec ts;
	int k;

	ts.tv_sec = s;
	ts.tv_nsec = (s - ts.tv_sec) * 1e9;

	for (k = 0; k < 1000 && nanosleep(&ts, &ts) && errno == EINTR; k++)
		;
}

/* the numbers of phase ph (NCPHASE: all) summed over the workers */
static struct cstats conc_sum(int ph)
{
	struct cstats t = { 0 };
	int w, p, v;

	for (w = 0; w < sh->conc.workers; w++)
		for (p = 0; p < NCPHASE; p++) {
			const struct cstats *s = &sh->conc.st[w][p];

			if (ph < NCPHASE && p != ph)
				continue;
			for (v = 0; v < 2; v++) {
				t.samples[v] += s->samples[v];
				t.chain[v] += s->chain[v];
				t.complete[v] += s->complete[v];
				t.prefix[v] += s->prefix[v];
				t.wrong[v] += s->wrong[v];
			}
			t.unbracketed += s->unbracketed;
			t.runs += s->runs;
		}
	return t;
}

static unsigned long conc_mutations(int cls)
{
	unsigned long n = 0;
	int m, c;

	for (m = 0; m < sh->conc.mutators; m++)
		for (c = 0; c < NMCLASS; c++)
			if (cls < 0 || c == cls)
				n += sh->conc.mut[m][c];
	return n;
}

/* the section, the calibration, the lock; the run's parameters printed */
static void conc_setup(int nw, int nm, double base_s)
{
	pthread_rwlockattr_t ra;
	struct stat st;

	my_pid = getpid();
	sh->phase = P_CONC;
	setup_section();
	if (!sf.text_hi || exe_fd < 0 || sf.file_off < 0 || fstat(exe_fd, &st))
		die(2, "the text segment or the executable file cannot be remapped");
	exe_size = st.st_size;
	leaf_set_ring(NULL);
	calibrate(opt.want);
	max_entries = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127) + 1;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&sec_lock, &ra);
	sh->conc.workers = nw;
	sh->conc.mutators = nm;
	if (!opt.quiet)
		printf("%s: concurrent: .sframe at %#lx (pages %#lx-%#lx), text %#lx-%#lx; "
		       "%d sampled workers, %d mutators, %lu s (+%.1f s before and after), "
		       "period %lu ns\n", prog, sf.addr, sf.page, sf.page + sf.page_len,
		       sf.text_lo, sf.text_hi, nw, nm, opt.seconds, base_s,
		       opt.period_ns);
}

/* the workers, then the mutators for opt.seconds, then the workers alone */
static void conc_run(int nw, int nm, double base_s)
{
	double t0;
	int k;

	conc_deadline = wall_s() + opt.seconds + 2 * base_s + 60;
	__atomic_store_n(&conc_phase, CB_BEFORE, __ATOMIC_RELEASE);
	for (k = 0; k < nw; k++) {
		workers[k].idx = k;
		snprintf(workers[k].name, sizeof(workers[k].name), "worker %d", k);
		if (pthread_create(&workers[k].th, NULL, worker_main, &workers[k]))
			die(2, "pthread_create: %s", strerror(errno));
	}
	for (k = 0; k < 30000 && __atomic_load_n(&nready, __ATOMIC_ACQUIRE) < nw; k++)
		sleep_s(0.001);
	sleep_s(base_s);

	__atomic_store_n(&conc_phase, CB_MUT, __ATOMIC_RELEASE);
	t0 = wall_s();
	for (k = 0; k < nm; k++) {
		mutators[k].idx = k;
		snprintf(mutators[k].name, sizeof(mutators[k].name), "mutator %d", k);
		if (pthread_create(&mutators[k].th, NULL, mutator_main, &mutators[k]))
			die(2, "pthread_create: %s", strerror(errno));
	}
	sleep_s(opt.seconds);
	__atomic_store_n(&mut_stop, 1, __ATOMIC_RELEASE);
	for (k = 0; k < nm; k++)
		pthread_join(mutators[k].th, NULL);
	sh->conc.seconds = wall_s() - t0;

	__atomic_store_n(&conc_phase, CB_AFTER, __ATOMIC_RELEASE);
	sleep_s(base_s);
	__atomic_store_n(&conc_phase, NCPHASE, __ATOMIC_RELEASE);
	for (k = 0; k < nw; k++) {
		pthread_join(workers[k].th, NULL);
		sh->conc.lost += workers[k].c.lost;
		sh->conc.throttled += workers[k].c.throttled;
		sh->conc.records += workers[k].c.records;
		sh->conc.overflow += workers[k].w.overflow;
	}
}

/* the numbers of each mutation class and of each phase */
static void conc_report(void)
{
	struct cstats t;
	int k, ph;

	printf("%s: concurrent: mutations:", prog);
	for (k = 0; k < NMCLASS; k++)
		printf(" %s %lu", mclass_names[k], conc_mutations(k));
	printf("\n");
	for (ph = 0; ph < NCPHASE; ph++) {
		t = conc_sum(ph);
		printf("%s: concurrent: %s: %lu runs, %lu samples: %lu on a pristine "
		       "section (%lu in the chain: %lu complete, %lu prefix, %lu "
		       "wrong), %lu not (%lu in the chain: %lu complete, %lu short, "
		       "%lu wrong; %lu not between two observations)\n", prog,
		       cphase_names[ph], t.runs, t.samples[0] + t.samples[1],
		       t.samples[1], t.chain[1], t.complete[1], t.prefix[1],
		       t.wrong[1], t.samples[0], t.chain[0], t.complete[0],
		       t.prefix[0], t.wrong[0], t.unbracketed);
	}
	printf("%s: concurrent: %lu records, lost %lu, throttled %lu, "
	       "observation log overflows %lu\n", prog, sh->conc.records,
	       sh->conc.lost, sh->conc.throttled, sh->conc.overflow);
}

/* fails unless the samples on a pristine section named no wrong frame */
static void conc_check(void)
{
	bool sframe_kernel;
	struct cstats t;
	int ph;

	t = conc_sum(CB_BEFORE);
	/* a kernel that unwinds with frame pointers gets this chain wrong */
	sframe_kernel = t.chain[1] && t.complete[1] * 2 >= t.chain[1];
	t = conc_sum(NCPHASE);
	if (!t.samples[0] && !t.samples[1])
		fail("no samples: nothing was tested");
	if (!conc_sum(CB_MUT).chain[1])
		fail("no sample in the chain on a pristine section while mutating: "
		     "nothing was tested");
	if (t.wrong[1] && (sframe_kernel || opt.expect))
		fail("%lu samples on a pristine section with a wrong frame", t.wrong[1]);
	else if (t.wrong[1] && !opt.quiet)
		printf("%s: concurrent: the kernel does not unwind this program with "
		       "SFrame (baseline: %lu of %lu chains complete): %lu wrong chains "
		       "on a pristine section not counted as failures\n", prog,
		       conc_sum(CB_BEFORE).complete[1], conc_sum(CB_BEFORE).chain[1],
		       t.wrong[1]);
	if (opt.expect) {
		for (ph = CB_BEFORE; ph <= CB_AFTER; ph += CB_AFTER - CB_BEFORE) {
			t = conc_sum(ph);
			if (!t.chain[1] || t.complete[1] * 10 < t.chain[1] * 9)
				fail("%s: %lu of %lu chains on a pristine section complete, "
				     "expected >= 90%%", cphase_names[ph], t.complete[1],
				     t.chain[1]);
		}
	}
}

/**
 * conc_main() - the concurrent mode, in the child
 *
 * Return: the child's exit status: 0, 1 on a failure.
 */
int conc_main(void)
{
	int nw = opt.threads, nm = opt.mutators;
	double base_s = opt.seconds >= 10 ? 1.0 : opt.seconds / 10.0;

	conc_setup(nw, nm, base_s);
	conc_run(nw, nm, base_s);
	sh->phase = P_DONE;
	check_pristine();
	if (mprotect((void *)sf.page, sf.page_len, PROT_READ))
		fail("mprotect back to read-only: %s", strerror(errno));
	if (!opt.quiet)
		conc_report();
	conc_check();
	return failed ? 1 : 0;
}

/**
 * conc_summary() - the concurrent mode's summary line (in the parent)
 * @crashes: 1 when the child crashed, else 0
 */
void conc_summary(int crashes)
{
	struct cstats t = conc_sum(NCPHASE);
	unsigned long n = conc_mutations(-1);

	printf("%s: concurrent: %d workers, %d mutators, %.1f s: %lu samples, %lu on a "
	       "pristine section (%lu in the chain: %lu complete, %lu prefix, %lu wrong), "
	       "%lu in mutation windows (%lu in the chain: %lu complete, %lu short, %lu "
	       "wrong); %lu mutations (%.0f/s), %d crashes\n", prog, sh->conc.workers,
	       sh->conc.mutators, sh->conc.seconds, t.samples[0] + t.samples[1],
	       t.samples[1], t.chain[1], t.complete[1], t.prefix[1], t.wrong[1],
	       t.samples[0], t.chain[0], t.complete[0], t.prefix[0], t.wrong[0], n,
	       sh->conc.seconds > 0 ? n / sh->conc.seconds : 0.0, crashes);
}
