/*
 * bench_sched: what the scheduler probe costs the pipeline it watches,
 * measured in one run: the default pipeline (200,000 events/s) in four
 * modes, alternated rep by rep so that the machine's load drifts over all
 * alike:
 *   off    no probe;
 *   noop   an empty BPF program on every tracepoint the probe uses (the
 *          floor: what ANY in-kernel tracer on those events pays here,
 *          before it does anything);
 *   filter the probe's programs loaded, following a process that never
 *          runs and watching no CPU: the filter, on every event, with
 *          nothing recorded;
 *   before the full probe as it was before issue 11's cost work: its
 *          reader decoding while the run goes on, every hand-off timed
 *          by a CLOCK_MONOTONIC read;
 *   defer  ... its reader only copying during the run, decoding after;
 *   full   the probe as `latlab pipeline --sched` runs it (lat_sched_attr:
 *          hot CPUs and threads followed, decoding deferred, hand-offs
 *          timed by the run-queue clock, the hooks).
 * Prints e2e p50 and p99 of each run, the medians and the ratios to off,
 * plus the full probe's records per second and its reader's CPU time
 * during the run (live and deferred).
 * Then the cost per scheduler event itself: two threads pinned to one
 * CPU hand it to each other with sched_yield, without, with the empty
 * programs, and with the probe following them (alternated too); the
 * differences in ns per context switch are what the tracepoints cost
 * and what the probe adds to each switch it records, kernel program and
 * user-space reader together.
 *
 * usage: bench_sched [reps [events]]   (defaults 5 and 200000)
 * Needs what `latlab pipeline --sched` needs (root or CAP_BPF+CAP_PERFMON,
 * BTF, a build with libbpf); says so and exits 77 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latlab_config.h"
#include "latlab/bench.h"
#include "latlab/pipe.h"
#include "latlab/sched_attr.h"
#include "latlab/topo.h"

#if LATLAB_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#endif

#define MAX_REPS 64

enum mode { OFF, NOOP, FILTER, BEFORE, DEFER, FULL, NMODES };
static const char *const mode_name[NMODES] = { "off", "noop", "filter",
					       "before", "defer", "full" };

/* ---- the floor: an empty program on each of the probe's tracepoints ---- */

/* Every tracepoint the probe attaches to when it watches CPUs (as
 * `pipeline --sched` does); the ones this kernel lacks are skipped, as
 * the probe skips them. */
static const char *const probe_tps[] = {
	"sched_switch", "sched_wakeup", "sched_wakeup_new",
	"sched_migrate_task", "irq_handler_entry", "irq_handler_exit",
	"softirq_entry", "softirq_exit", "local_timer_entry",
	"local_timer_exit", "reschedule_entry", "reschedule_exit",
	"call_function_entry", "call_function_exit",
	"call_function_single_entry", "call_function_single_exit",
	"irq_work_entry", "irq_work_exit",
};
#define N_TPS (sizeof(probe_tps) / sizeof(probe_tps[0]))

struct noop {
	int prog[N_TPS], link[N_TPS];
	int n_attached;
};

static void noop_detach(struct noop *n)
{
	for (size_t i = 0; i < N_TPS; i++) {
		if (n->link[i] >= 0)
			close(n->link[i]);
		if (n->prog[i] >= 0)
			close(n->prog[i]);
		n->link[i] = n->prog[i] = -1;
	}
	n->n_attached = 0;
}

#if LATLAB_HAVE_BPF
/* `r0 = 0; exit` as a tp_btf program on each tracepoint: the kernel's
 * cost of running a BPF program there, with nothing in it. */
static int noop_attach(struct noop *n)
{
	struct bpf_insn prog[2];

	memset(prog, 0, sizeof(prog));
	prog[0].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 0 */
	prog[0].dst_reg = BPF_REG_0;
	prog[1].code = BPF_JMP | BPF_EXIT;
	for (size_t i = 0; i < N_TPS; i++)
		n->prog[i] = n->link[i] = -1;
	n->n_attached = 0;
	for (size_t i = 0; i < N_TPS; i++) {
		LIBBPF_OPTS(bpf_prog_load_opts, opts,
			    .expected_attach_type = BPF_TRACE_RAW_TP);
		int id = libbpf_find_vmlinux_btf_id(probe_tps[i],
						    BPF_TRACE_RAW_TP);

		if (id <= 0)
			continue;
		opts.attach_btf_id = (__u32)id;
		n->prog[i] = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL",
					   prog, 2, &opts);
		if (n->prog[i] < 0)
			goto fail;
		n->link[i] = bpf_raw_tracepoint_open(NULL, n->prog[i]);
		if (n->link[i] < 0)
			goto fail;
		n->n_attached++;
	}
	return 0;
fail:
	{
		int e = errno;

		noop_detach(n);
		return -e;
	}
}
#else
static int noop_attach(struct noop *n)
{
	(void)n;
	return -ENOSYS;
}
#endif

/* ---- filter only: the probe following a process that never runs ---- */

static pid_t idle_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static int filter_open(pid_t idle, struct lat_sched **s)
{
	struct lat_sched_opts o = { 0 };
	int rc;

	o.pids = &idle;
	o.n_pids = 1;
	rc = lat_sched_open(&o, s);
	if (!rc && (rc = lat_sched_start(*s))) {
		lat_sched_close(*s);
		*s = NULL;
	}
	return rc;
}

/* ---- the pipeline in one mode ---- */

struct run {
	double p50, p99, records_per_s;
	double reader_pct; /* the reader's CPU time, % of the run */
};

static int run_once(uint64_t events, enum mode m, pid_t idle, struct run *o)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;
	struct lat_sched_attr *a = NULL;
	struct lat_sched *f = NULL;
	struct noop n;
	int rc;

	lat_pipe_config_init(&c);
	c.events = events;
	if ((rc = lat_pipe_autoplace(&c, false, NULL)))
		return rc;
	if (m == FULL || m == DEFER || m == BEFORE) {
		rc = lat_sched_attr_init(&a, &c, NULL);
		if (!rc && m == BEFORE)
			rc = lat_sched_set_defer(lat_sched_attr_probe(a), 0);
		if (!rc && m != FULL)
			rc = lat_sched_set_hop_mono(lat_sched_attr_probe(a),
						    true);
		if (!rc)
			rc = lat_sched_attr_start(a);
		if (rc) {
			lat_sched_attr_free(a);
			return rc;
		}
	} else if (m == NOOP && (rc = noop_attach(&n))) {
		return rc;
	} else if (m == FILTER && (rc = filter_open(idle, &f))) {
		return rc;
	}
	rc = lat_pipe_run(&c, &r);
	if (m == NOOP)
		noop_detach(&n);
	if (f) {
		int src = lat_sched_stop(f);

		if (!rc && lat_sched_result(f)->records)
			fprintf(stderr, "bench_sched: filter mode recorded "
				"%llu records (expected none)\n",
				(unsigned long long)lat_sched_result(f)->records);
		if (!rc)
			rc = src;
		lat_sched_close(f);
	}
	if (!rc && a)
		rc = lat_sched_attr_finish(a, &r);
	if (!rc) {
		const struct lat_hist *e2e = &r.delta[r.n_deltas - 1].hist;

		o->p50 = (double)lat_hist_value_at_percentile(e2e, 50);
		o->p99 = (double)lat_hist_value_at_percentile(e2e, 99);
		o->records_per_s = 0;
		o->reader_pct = 0;
		if (a) {
			const struct lat_sched_result *p =
				lat_sched_attr_result(a)->probe;
			double span = (double)(p->to_ns - p->from_ns);

			o->records_per_s = (double)p->records / (span / 1e9);
			o->reader_pct = 100.0 * (double)p->reader_cpu_ns / span;
			if (p->lost)
				fprintf(stderr, "bench_sched: %llu records "
					"lost\n", (unsigned long long)p->lost);
		}
	}
	lat_pipe_result_destroy(&r);
	lat_sched_attr_free(a);
	return rc;
}

/* ---- cost per context switch: a sched_yield ping-pong on one CPU ---- */

#define PINGPONG_YIELDS 200000

struct pingpong {
	int cpu;
	atomic_int ready;
	atomic_bool go;
	pid_t tid[2];
};

static void *pingpong_thread(void *arg)
{
	struct pingpong *pp = arg;
	int me = atomic_fetch_add(&pp->ready, 1), i;

	pp->tid[me] = gettid();
	(void)lat_topo_pin_self(pp->cpu);
	while (!atomic_load(&pp->go))
		sched_yield();
	for (i = 0; i < PINGPONG_YIELDS; i++)
		sched_yield();
	return NULL;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ns per context switch of the ping-pong; < 0 on failure. FULL: the
 * probe follows this process and watches the CPU, as in --sched; NOOP:
 * the empty programs. */
static double pingpong_ns(enum mode m)
{
	struct pingpong pp = { .cpu = 0 };
	struct lat_sched *s = NULL;
	const struct lat_sched_thread *t[2];
	struct noop n;
	pthread_t th[2];
	pid_t self = getpid();
	double t0, t1;
	uint64_t switches = 0;
	int i, rc;

	pp.cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (m == NOOP && (rc = noop_attach(&n))) {
		fprintf(stderr, "bench_sched: empty programs: %s\n",
			lat_strerror(rc));
		return -1;
	}
	if (m == FULL) {
		struct lat_sched_opts o = { 0 };

		o.pids = &self;
		o.n_pids = 1;
		o.cpus = &pp.cpu;
		o.n_cpus = 1;
		if ((rc = lat_sched_open(&o, &s)) || (rc = lat_sched_start(s))) {
			fprintf(stderr, "bench_sched: probe: %s\n",
				lat_strerror(rc));
			lat_sched_close(s);
			return -1;
		}
	}
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, pingpong_thread, &pp);
	while (atomic_load(&pp.ready) < 2)
		sched_yield();
	t0 = mono_s();
	atomic_store(&pp.go, true);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	t1 = mono_s();
	if (m == NOOP)
		noop_detach(&n);
	if (s) {
		lat_sched_stop(s);
		for (i = 0; i < 2; i++) {
			t[i] = lat_sched_find_thread(lat_sched_result(s),
						     pp.tid[i]);
			if (t[i])
				switches += t[i]->switches_invol;
		}
		if (lat_sched_result(s)->lost)
			fprintf(stderr, "bench_sched: ping-pong: %llu records "
				"lost\n",
				(unsigned long long)lat_sched_result(s)->lost);
		lat_sched_close(s);
	}
	/* a yield switches only when the other thread is runnable: nearly
	 * every time here; the probe's own count, when it ran, says so */
	if (!switches)
		switches = 2 * (uint64_t)PINGPONG_YIELDS;
	return (t1 - t0) * 1e9 / (double)switches;
}

static double median(double *v, unsigned n)
{
	struct lat_bench_stat s;

	lat_bench_stat_of(v, n, &s);
	return s.median;
}

int main(int argc, char **argv)
{
	unsigned reps = argc > 1 ? (unsigned)atoi(argv[1]) : 5;
	uint64_t events = argc > 2 ? strtoull(argv[2], NULL, 10) : 200000;
	static double p50[NMODES][MAX_REPS], p99[NMODES][MAX_REPS];
	double rec[MAX_REPS], m50[NMODES], m99[NMODES];
	double rd_live[MAX_REPS], rd_full[MAX_REPS];
	struct lat_sched_avail av;
	struct noop probe_n;
	pid_t idle;
	int m, rc = 0;

	if (reps < 1 || reps > MAX_REPS || events < 1000) {
		fprintf(stderr, "usage: bench_sched [reps 1..64 [events >= "
			"1000]]\n");
		return 2;
	}
	lat_sched_available(&av);
	if (!av.ok) {
		printf("SKIP: scheduler probe unavailable: %s\n", av.reason);
		return 77;
	}
	if ((rc = noop_attach(&probe_n))) {
		fprintf(stderr, "bench_sched: empty programs: %s\n",
			lat_strerror(rc));
		return 1;
	}
	printf("empty programs attach to %d tracepoints of this kernel\n",
	       probe_n.n_attached);
	noop_detach(&probe_n);
	idle = idle_child();
	if (idle < 0) {
		perror("bench_sched: fork");
		return 1;
	}
	printf("pipeline e2e, %llu events at the default rate, in modes "
	       "off / noop / filter / before / defer / full, alternated %u times\n",
	       (unsigned long long)events, reps);
	printf("%4s", "rep");
	for (m = 0; m < NMODES; m++)
		printf(" %7s p50", mode_name[m]);
	for (m = 0; m < NMODES; m++)
		printf(" %7s p99", mode_name[m]);
	printf(" %12s %9s %9s\n", "full rec/s", "rd%before", "rd% full");
	for (unsigned i = 0; i < reps && !rc; i++) {
		struct run r[NMODES];

		for (m = 0; m < NMODES && !rc; m++)
			rc = run_once(events, (enum mode)m, idle, &r[m]);
		if (rc)
			break;
		printf("%4u", i);
		for (m = 0; m < NMODES; m++) {
			p50[m][i] = r[m].p50;
			printf(" %8.0f ns", r[m].p50);
		}
		for (m = 0; m < NMODES; m++) {
			p99[m][i] = r[m].p99;
			printf(" %8.0f ns", r[m].p99);
		}
		rec[i] = r[FULL].records_per_s;
		rd_live[i] = r[BEFORE].reader_pct;
		rd_full[i] = r[FULL].reader_pct;
		printf(" %12.0f %8.1f%% %8.1f%%\n", rec[i], rd_live[i],
		       rd_full[i]);
	}
	kill(idle, SIGKILL);
	waitpid(idle, NULL, 0);
	if (rc) {
		fprintf(stderr, "bench_sched: %s\n", lat_strerror(rc));
		return 1;
	}
	for (m = 0; m < NMODES; m++) {
		m50[m] = median(p50[m], reps);
		m99[m] = median(p99[m], reps);
	}
	printf("median p50:");
	for (m = 0; m < NMODES; m++)
		printf(" %s %.0f ns (x%.3f)%s", mode_name[m], m50[m],
		       m50[m] / m50[OFF], m + 1 < NMODES ? "," : "\n");
	printf("median p99:");
	for (m = 0; m < NMODES; m++)
		printf(" %s %.0f ns (x%.3f)%s", mode_name[m], m99[m],
		       m99[m] / m99[OFF], m + 1 < NMODES ? "," : "\n");
	/* each mode against the off run of its own rep: drift of the
	 * machine's load between reps cancels */
	for (m = 1; m < NMODES; m++) {
		double r50[MAX_REPS], r99[MAX_REPS];

		for (unsigned i = 0; i < reps; i++) {
			r50[i] = p50[m][i] / p50[OFF][i];
			r99[i] = p99[m][i] / p99[OFF][i];
		}
		printf("median of the reps' ratios to off: %-6s p50 x%.3f, "
		       "p99 x%.3f\n", mode_name[m], median(r50, reps),
		       median(r99, reps));
	}
	printf("full probe: %.0f records/s; its reader used %.1f%% of a CPU "
	       "before, %.2f%% now (copying only)\n", median(rec, reps),
	       median(rd_live, reps), median(rd_full, reps));

	printf("\ncost per context switch: two threads pinned to one CPU, "
	       "%d sched_yield each, off / noop / full alternated %u times\n",
	       PINGPONG_YIELDS, reps);
	for (unsigned i = 0; i < reps; i++) {
		static const enum mode pm[3] = { OFF, NOOP, FULL };

		for (m = 0; m < 3; m++) {
			p50[m][i] = pingpong_ns(pm[m]);
			if (p50[m][i] < 0)
				return 1;
		}
		printf("%4u %8.0f ns/switch off, %8.0f noop, %8.0f full\n", i,
		       p50[0][i], p50[1][i], p50[2][i]);
	}
	{
		double off = median(p50[0], reps), noop = median(p50[1], reps);
		double on = median(p50[2], reps);

		printf("median: %.0f / %.0f / %.0f ns per switch: the empty "
		       "programs add %.0f ns, the probe %.0f ns per recorded "
		       "switch\n", off, noop, on, noop - off, on - off);
	}
	return 0;
}
