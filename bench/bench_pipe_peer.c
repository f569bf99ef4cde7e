/*
 * bench_pipe_peer: latlab's pipeline (the library path `latlab pipeline`
 * runs, defaults and automatic placement) against a bare pipeline written
 * for this benchmark, alternating in one process run.
 *
 * The bare pipeline is the design of issue 15: the same three threads
 * on the same CPUs (the topology's placement, lat_topo_place: on a
 * machine short of CPUs the producer alone and the stage and consumer
 * sharing one; where latlab's own policy differs, the line "placement"
 * says so; --bare-cpus overrides), the same ring type and
 * message size, the same pacer schedule and calibrated 100 ns of work;
 * but no stamps except t0 (the intended send time) and the consumer's end
 * stamp, no aggregator, no sample ring, no counters. Every wait spins 64
 * pauses and then calls sched_yield; the producer yields while its next
 * send is more than 8 us away and spins the rest; the consumer stores
 * e2e (cycles) into a preallocated array, converted and recorded into the
 * same kind of histogram after the run.
 *
 * Prints per round each side's e2e p50 / p99 / p99.9 and the ratio
 * latlab / bare (< 1 means latlab is better), then per percentile the
 * median ratio over the rounds with min and max. Rounds alternate which
 * side runs first, so drift in the machine's load hits both alike.
 *
 * usage: bench_pipe_peer [--rounds N] [--events N] [--rate R]
 *                        [--bare-cpus P,S,C]
 *        (defaults 5 rounds, 1000000 events, 200000 events/s)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab/bench.h"
#include "latlab/fmt.h"
#include "latlab/pipe.h"
#include "latlab/seqring.h"
#include "latlab/stats.h"

#define BARE_SPINS 64
#define BARE_YIELD_ABOVE_NS 8000.0
#define BARE_RING_SLOTS 4096
#define BARE_END UINT64_MAX
#define MAX_ROUNDS 64

/* The message: the same 48 bytes latlab's one-stage pipeline moves. */
struct bare_msg {
	uint64_t seq;
	lat_cycles_t t0;
	uint64_t unused[4];
};

struct bare {
	int cpu[3];
	uint64_t events;
	double rate;
	double work_ns;
	struct lat_clock_cal cal;
	struct lat_seqring *q1, *q2;
	lat_cycles_t *e2e;           /* [events], preallocated */
	uint64_t consumed;
	atomic_int ready;
	atomic_int go;
	_Atomic uint64_t start;
	int err;
};

/* Spin BARE_SPINS pauses, then yield until @ok. */
#define BARE_WAIT(ok)                                                        \
	do {                                                                 \
		unsigned spun_ = 0;                                          \
		while (!(ok)) {                                              \
			if (spun_ < BARE_SPINS) {                            \
				spun_++;                                     \
				lat_wait_pause();                            \
			} else {                                             \
				sched_yield();                               \
			}                                                    \
		}                                                            \
	} while (0)

static void bare_enter(struct bare *b, int i)
{
	if (b->cpu[i] >= 0 && lat_topo_pin_self(b->cpu[i]))
		b->err = -EPERM;
	atomic_fetch_add_explicit(&b->ready, 1, memory_order_release);
	while (!atomic_load_explicit(&b->go, memory_order_acquire))
		sched_yield();
}

static void *bare_producer(void *arg)
{
	struct bare *b = arg;
	const lat_cycles_t far = lat_clock_from_ns(&b->cal,
						   (lat_ns_t)BARE_YIELD_ABOVE_NS);
	struct bare_msg m;
	struct lat_pace pace;

	memset(&m, 0, sizeof(m));
	bare_enter(b, 0);
	lat_pace_init(&pace, LAT_PACE_FIXED, b->rate, 1, &b->cal,
		      atomic_load_explicit(&b->start, memory_order_relaxed), 1);
	for (uint64_t i = 0; i < b->events; i++) {
		lat_cycles_t due = lat_pace_due(&pace), now;

		while ((int64_t)((now = lat_clock_now()) - due) < 0) {
			if ((int64_t)(due - now) > (int64_t)far)
				sched_yield();
			else
				lat_wait_pause();
		}
		lat_pace_advance(&pace);
		m.seq = i;
		m.t0 = due;
		BARE_WAIT(lat_seqring_try_push_raw(b->q1, &m, sizeof(m)));
	}
	m.seq = BARE_END;
	BARE_WAIT(lat_seqring_try_push_raw(b->q1, &m, sizeof(m)));
	return NULL;
}

static void *bare_stage(void *arg)
{
	struct bare *b = arg;
	struct lat_work work;
	struct bare_msg m;
	uint64_t sink = 0;

	/* calibrated on its own CPU, before the start line */
	if (lat_work_calibrate(&work, b->work_ns, &b->cal))
		b->err = -EINVAL;
	bare_enter(b, 1);
	for (;;) {
		BARE_WAIT(lat_seqring_try_pop_raw(b->q1, &m, sizeof(m)));
		if (m.seq != BARE_END)
			sink += lat_work_run(work.steps, m.seq);
		BARE_WAIT(lat_seqring_try_push_raw(b->q2, &m, sizeof(m)));
		if (m.seq == BARE_END)
			break;
	}
	lat_bench_keep(sink);
	return NULL;
}

static void *bare_consumer(void *arg)
{
	struct bare *b = arg;
	struct bare_msg m;

	bare_enter(b, 2);
	for (;;) {
		BARE_WAIT(lat_seqring_try_pop_raw(b->q2, &m, sizeof(m)));
		if (m.seq == BARE_END)
			break;
		b->e2e[m.seq] = lat_clock_end() - m.t0;
		b->consumed++;
	}
	return NULL;
}

struct pcts {
	double p50, p99, p999;
};

static void pcts_of(const struct lat_hist *h, struct pcts *p)
{
	p->p50 = (double)lat_hist_value_at_percentile(h, 50);
	p->p99 = (double)lat_hist_value_at_percentile(h, 99);
	p->p999 = (double)lat_hist_value_at_percentile(h, 99.9);
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_pipe_peer: %s: %s\n", what, lat_strerror(rc));
	exit(1);
}

/* One bare run on @cpu (3 CPUs); its e2e percentiles in ns. */
static void run_bare(const struct lat_pipe_config *c, const int *cpu,
		     struct pcts *out)
{
	static void *(*const fn[3])(void *) = { bare_producer, bare_stage,
						bare_consumer };
	struct bare b;
	struct lat_hist h;
	pthread_t t[3];
	int rc;

	memset(&b, 0, sizeof(b));
	for (int i = 0; i < 3; i++)
		b.cpu[i] = c->pin ? cpu[i] : -1;
	b.events = c->events;
	b.rate = c->rate;
	b.work_ns = c->work_ns;
	rc = lat_clock_calibrate(&b.cal, c->calibrate_ms);
	if (!rc)
		rc = lat_seqring_create(BARE_RING_SLOTS, sizeof(struct bare_msg),
					&b.q1);
	if (!rc)
		rc = lat_seqring_create(BARE_RING_SLOTS, sizeof(struct bare_msg),
					&b.q2);
	b.e2e = calloc(b.events, sizeof(*b.e2e));
	if (!rc && !b.e2e)
		rc = -ENOMEM;
	if (!rc)
		rc = lat_hist_init(&h, 1, LAT_PIPE_HIST_MAX_NS,
				   LAT_PIPE_HIST_SIG_FIGS);
	if (rc)
		die("bare pipeline setup", rc);
	/* every page of the array faulted in now, not on the hot path */
	memset(b.e2e, 0xff, b.events * sizeof(*b.e2e));
	for (int i = 0; i < 3; i++)
		if ((rc = -pthread_create(&t[i], NULL, fn[i], &b)))
			die("bare pipeline threads", rc);
	while (atomic_load_explicit(&b.ready, memory_order_acquire) < 3)
		sched_yield();
	atomic_store_explicit(&b.start, lat_clock_now() +
				      lat_clock_from_ns(&b.cal, 2000000),
			      memory_order_relaxed);
	atomic_store_explicit(&b.go, 1, memory_order_release);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	if (b.err)
		die("bare pipeline pinning or calibration", b.err);
	if (b.consumed != b.events)
		die("bare pipeline lost events", -EPROTO);
	for (uint64_t i = 0; i < b.events; i++) {
		if (b.e2e[i] == (lat_cycles_t)-1)
			die("bare pipeline: an event without a stamp", -EPROTO);
		lat_hist_record(&h, (int64_t)lat_clock_to_ns(&b.cal, b.e2e[i]));
	}
	pcts_of(&h, out);
	lat_hist_destroy(&h);
	free(b.e2e);
	lat_seqring_free(b.q1);
	lat_seqring_free(b.q2);
}

/* One run of latlab's pipeline; its e2e percentiles in ns. */
static void run_latlab(const struct lat_pipe_config *c, struct pcts *out)
{
	struct lat_pipe_result r;
	int rc = lat_pipe_run(c, &r);

	if (rc)
		die("latlab pipeline", rc);
	if (!r.exact) {
		fprintf(stderr, "bench_pipe_peer: latlab's accounting is not "
			"exact (produced %llu, consumed %llu, recorded %llu, "
			"dropped %llu)\n", (unsigned long long)r.produced,
			(unsigned long long)r.consumed,
			(unsigned long long)r.recorded,
			(unsigned long long)r.dropped);
		exit(1);
	}
	pcts_of(&r.delta[r.n_deltas - 1].hist, out);
	lat_pipe_result_destroy(&r);
}

static void fmt3(const struct pcts *p, char *buf, size_t len)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];

	lat_fmt_ns(a, sizeof(a), p->p50);
	lat_fmt_ns(b, sizeof(b), p->p99);
	lat_fmt_ns(c, sizeof(c), p->p999);
	snprintf(buf, len, "%9s %9s %9s", a, b, c);
}

/* The topology's own placement of three hot threads on this machine. */
static int topology_placement(int *cpu)
{
	struct lat_topo *t = malloc(sizeof(*t));
	struct lat_topo_place p;
	int rc;

	if (!t)
		return -ENOMEM;
	rc = lat_topo_load(t, NULL, NULL);
	if (!rc)
		rc = lat_topo_place(t, 3, &p);
	for (int i = 0; !rc && i < 3; i++)
		cpu[i] = p.cpu[i];
	free(t);
	return rc;
}

static uint64_t arg_u64(const char *name, const char *s, uint64_t lo,
			uint64_t hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "bench_pipe_peer: %s must be an integer in "
			"%llu..%llu, got '%s'\n", name,
			(unsigned long long)lo, (unsigned long long)hi, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "events", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'R' },
		{ "bare-cpus", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	struct lat_pipe_config c;
	unsigned rounds = 5;
	double ratio[3][MAX_ROUNDS];
	bool over = false;
	char pace[48];
	int opt, rc, bare_cpu[3], n_bare = 0;

	lat_pipe_config_init(&c);
	c.events = 1000000;
	while ((opt = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (opt == 'r')
			rounds = (unsigned)arg_u64("--rounds", optarg, 1,
						   MAX_ROUNDS);
		else if (opt == 'n')
			c.events = arg_u64("--events", optarg, 1000,
					   100000000);
		else if (opt == 'b') {
			n_bare = lat_topo_list_parse_seq(optarg, bare_cpu, 3);
			if (n_bare != 3) {
				fprintf(stderr, "bench_pipe_peer: --bare-cpus "
					"takes three CPUs, got '%s'\n", optarg);
				return 2;
			}
		} else if (opt == 'R')
			c.rate = (double)arg_u64("--rate", optarg, 1,
						 10000000);
		else {
			fprintf(stderr, "usage: bench_pipe_peer [--rounds N] "
				"[--events N] [--rate R] [--bare-cpus P,S,C]\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bench_pipe_peer: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	rc = lat_pipe_autoplace(&c, false, &over);
	if (!rc && !n_bare)
		rc = topology_placement(bare_cpu);
	if (rc)
		die("placement", rc);
	printf("bench_pipe_peer: latlab pipeline vs a bare pipeline, %u "
	       "rounds of %llu events at %.0f/s, sides alternating\n",
	       rounds, (unsigned long long)c.events, c.rate);
	printf("placement: latlab producer/stage1/consumer on cpus %d/%d/%d%s, "
	       "aggregator %s; bare on %d/%d/%d%s\n", c.cpu[0], c.cpu[1],
	       c.cpu[2], over ? " (hot threads share CPUs)" : "",
	       c.agg_cpu >= 0 ? "pinned" : c.agg_slice ? "unpinned, slicing"
						      : "unpinned",
	       bare_cpu[0], bare_cpu[1], bare_cpu[2],
	       n_bare ? " (--bare-cpus)" : " (the topology's placement)");
	/* the producer's threshold from the config it runs with, not a
	 * copy of LAT_PIPE_PACE_YIELD_NS that could drift */
	if (c.pace_yield)
		snprintf(pace, sizeof(pace), "yields while early");
	else if (c.pace_yield_above_ns <= 0)
		snprintf(pace, sizeof(pace), "spins while early");
	else
		snprintf(pace, sizeof(pace), "yields while > %.0f us early",
			 c.pace_yield_above_ns / 1000);
	printf("waits: latlab %s after %u pauses, producer %s; bare %d "
	       "pauses then yield, producer yields above %.0f us\n",
	       lat_wait_kind_name(c.wait), c.wait_spins, pace,
	       BARE_SPINS, BARE_YIELD_ABOVE_NS / 1000);
	printf("load average at start %.1f on %ld online CPUs\n",
	       lat_loadavg(), sysconf(_SC_NPROCESSORS_ONLN));
	printf("\n%-5s %-7s %29s   %29s   %s\n", "round", "first",
	       "latlab p50 / p99 / p99.9", "bare p50 / p99 / p99.9",
	       "latlab/bare");
	for (unsigned i = 0; i < rounds; i++) {
		struct pcts l, b;
		char ls[3 * LAT_FMT_LEN + 4], bs[3 * LAT_FMT_LEN + 4];

		if (i % 2 == 0) {
			run_latlab(&c, &l);
			run_bare(&c, bare_cpu, &b);
		} else {
			run_bare(&c, bare_cpu, &b);
			run_latlab(&c, &l);
		}
		ratio[0][i] = l.p50 / b.p50;
		ratio[1][i] = l.p99 / b.p99;
		ratio[2][i] = l.p999 / b.p999;
		fmt3(&l, ls, sizeof(ls));
		fmt3(&b, bs, sizeof(bs));
		printf("%-5u %-7s %s   %s   %.2f %.2f %.2f\n", i + 1,
		       i % 2 == 0 ? "latlab" : "bare", ls, bs, ratio[0][i],
		       ratio[1][i], ratio[2][i]);
	}
	printf("\nlatlab/bare over %u rounds: median (min..max); < 1 means "
	       "latlab is better\n", rounds);
	for (int k = 0; k < 3; k++) {
		static const char *const name[] = { "p50", "p99", "p99.9" };
		struct lat_bench_stat st;

		lat_bench_stat_of(ratio[k], rounds, &st);
		printf("  e2e %-6s %.2f  (%.2f..%.2f)\n", name[k], st.median,
		       st.min, st.max);
	}
	printf("load average at end %.1f\n", lat_loadavg());
	return 0;
}
