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
 * --vary SPEC adds a third side: latlab with the settings of SPEC
 * changed (comma-separated key=value: agg_cpu, agg_slice, agg_idle_us,
 * wait (spin/yield/block), spins, pace_yield (0/1), pace_yield_above_us,
 * pace_sleep_us, cpus=P:S:C, slice_us: the hot threads' EEVDF slice,
 * nice: the hot threads' and the session autogroup's nice, guard_us: a
 * guard thread per hot CPU wakes this often,
 * slack_ns: the timer slack its threads inherit). The three sides then
 * rotate which runs first, and the line "vary/latlab" gives the A/B
 * ratio per round and its median: a candidate change measured against
 * the defaults in the same minutes, with the bare pipeline as the
 * control for what the machine did meanwhile.
 *
 * usage: bench_pipe_peer [--rounds N] [--events N] [--rate R]
 *                        [--bare-cpus P,S,C] [--vary SPEC]
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
#include <sys/prctl.h>
#include <sys/syscall.h>
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
static void run_latlab(const struct lat_pipe_config *c, unsigned long slack,
		       struct pcts *out)
{
	struct lat_pipe_result r;
	unsigned long saved = (unsigned long)prctl(PR_GET_TIMERSLACK);
	int rc;

	/* threads inherit their creator's timer slack */
	if (slack)
		prctl(PR_SET_TIMERSLACK, slack);
	rc = lat_pipe_run(c, &r);
	if (slack)
		prctl(PR_SET_TIMERSLACK, saved);

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

/* The sides a round runs, in rotation. */
enum side { SIDE_LATLAB, SIDE_VARY, SIDE_BARE };

struct vary {
	bool on;
	unsigned long slack_ns;  /* 0: inherit */
	char spec[160];
};

static double vary_num(const char *key, const char *v, double lo, double hi)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || !(x >= lo && x <= hi)) {
		fprintf(stderr, "bench_pipe_peer: --vary %s must be a number in "
			"%g..%g, got '%s'\n", key, lo, hi, v);
		exit(2);
	}
	return x;
}

/* Apply one key=value of --vary to @c. */
static void vary_one(struct lat_pipe_config *c, struct vary *v, char *kv)
{
	char *val = strchr(kv, '=');

	if (!val) {
		fprintf(stderr, "bench_pipe_peer: --vary takes key=value, got "
			"'%s'\n", kv);
		exit(2);
	}
	*val++ = '\0';
	if (!strcmp(kv, "agg_cpu"))
		c->agg_cpu = (int)vary_num(kv, val, -1, LAT_TOPO_MAX_CPUS - 1);
	else if (!strcmp(kv, "agg_slice"))
		c->agg_slice = (unsigned)vary_num(kv, val, 0, 1 << 20);
	else if (!strcmp(kv, "agg_idle_us"))
		c->agg_idle_ns = vary_num(kv, val, 1, 1e6) * 1000;
	else if (!strcmp(kv, "spins"))
		c->wait_spins = (uint32_t)vary_num(kv, val, 1, 1 << 20);
	else if (!strcmp(kv, "wait")) {
		if (lat_wait_kind_parse(val, &c->wait)) {
			fprintf(stderr, "bench_pipe_peer: --vary wait takes "
				"spin, yield or block, got '%s'\n", val);
			exit(2);
		}
	} else if (!strcmp(kv, "pace_yield"))
		c->pace_yield = vary_num(kv, val, 0, 1) != 0;
	else if (!strcmp(kv, "pace_yield_above_us"))
		c->pace_yield_above_ns = vary_num(kv, val, 0, 1e6) * 1000;
	else if (!strcmp(kv, "pace_sleep_us"))
		c->pace_sleep_ns = vary_num(kv, val, 0, 1e6) * 1000;
	else if (!strcmp(kv, "slice_us"))
		c->hot_slice_ns = vary_num(kv, val, 100, 100000) * 1000;
	else if (!strcmp(kv, "nice"))
		c->hot_nice = (int)vary_num(kv, val, -20, 19);
	else if (!strcmp(kv, "guard_us"))
		c->guard_ns = vary_num(kv, val, 0, 100000) * 1000;
	else if (!strcmp(kv, "slack_ns"))
		v->slack_ns = (unsigned long)vary_num(kv, val, 1, 1e9);
	else if (!strcmp(kv, "cpus")) {
		for (char *cpu = val; *cpu; cpu++)
			if (*cpu == ':')
				*cpu = ',';
		if (lat_topo_list_parse_seq(val, c->cpu, 3) != 3) {
			fprintf(stderr, "bench_pipe_peer: --vary cpus takes "
				"P:S:C, got '%s'\n", val);
			exit(2);
		}
	} else {
		fprintf(stderr, "bench_pipe_peer: --vary: unknown key '%s'\n",
			kv);
		exit(2);
	}
}

static void vary_parse(struct lat_pipe_config *c, struct vary *v,
		       const char *spec)
{
	char buf[sizeof(v->spec)], *save = NULL;

	if (strlen(spec) >= sizeof(buf)) {
		fprintf(stderr, "bench_pipe_peer: --vary too long\n");
		exit(2);
	}
	snprintf(v->spec, sizeof(v->spec), "%s", spec);
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *kv = strtok_r(buf, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save))
		vary_one(c, v, kv);
	v->on = true;
}

static void summary(const char *what, double *v, unsigned n)
{
	for (int k = 0; k < 3; k++) {
		static const char *const name[] = { "p50", "p99", "p99.9" };
		struct lat_bench_stat st;

		lat_bench_stat_of(&v[k * MAX_ROUNDS], n, &st);
		printf("  %-12s e2e %-6s %.2f  (%.2f..%.2f)\n", what, name[k],
		       st.median, st.min, st.max);
	}
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "events", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'R' },
		{ "bare-cpus", required_argument, NULL, 'b' },
		{ "vary", required_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	static double ratio[3][3 * MAX_ROUNDS]; /* latlab, vary vs bare; vary
						   vs latlab; [pct][round] */
	struct lat_pipe_config c, cv;
	struct vary vary = { 0 };
	const char *vary_spec = NULL;
	unsigned rounds = 5;
	bool over = false;
	char pace[48];
	int opt, rc, bare_cpu[3], n_bare = 0, n_sides;

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
		else if (opt == 'v')
			vary_spec = optarg;
		else {
			fprintf(stderr, "usage: bench_pipe_peer [--rounds N] "
				"[--events N] [--rate R] [--bare-cpus P,S,C] "
				"[--vary SPEC]\n");
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
	cv = c;
	if (vary_spec) {
		const char *why;

		vary_parse(&cv, &vary, vary_spec);
		if (lat_pipe_config_check(&cv, &why)) {
			fprintf(stderr, "bench_pipe_peer: --vary: %s\n", why);
			return 2;
		}
	}
	n_sides = vary.on ? 3 : 2;
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
	if (vary.on)
		printf("vary: latlab with %s\n", vary.spec);
	printf("load average at start %.1f on %ld online CPUs\n",
	       lat_loadavg(), sysconf(_SC_NPROCESSORS_ONLN));
	printf("\n%-5s %-7s %-7s %29s   %s\n", "round", "first", "side",
	       "e2e p50 / p99 / p99.9", "side/bare");
	for (unsigned i = 0; i < rounds; i++) {
		struct pcts got[3];
		static const char *const side_name[] = { "latlab", "vary",
							 "bare" };
		enum side order[3];
		int n = 0;

		/* rotate which side runs first */
		for (int k = 0; k < 3; k++) {
			enum side sd = (enum side)((i + (unsigned)k) % 3);

			if (sd != SIDE_VARY || vary.on)
				order[n++] = sd;
		}
		/* two sides: the 3-step rotation with vary skipped gave
		 * latlab first in only one round of three; alternate */
		if (!vary.on) {
			order[0] = i % 2 ? SIDE_BARE : SIDE_LATLAB;
			order[1] = i % 2 ? SIDE_LATLAB : SIDE_BARE;
		}
		for (int k = 0; k < n_sides; k++) {
			if (order[k] == SIDE_LATLAB)
				run_latlab(&c, 0, &got[SIDE_LATLAB]);
			else if (order[k] == SIDE_VARY)
				run_latlab(&cv, vary.slack_ns, &got[SIDE_VARY]);
			else
				run_bare(&c, bare_cpu, &got[SIDE_BARE]);
		}
		for (int sd = 0; sd < 3; sd++) {
			char line[3 * LAT_FMT_LEN + 4];
			const struct pcts *g = &got[sd], *b = &got[SIDE_BARE];

			if (sd == SIDE_VARY && !vary.on)
				continue;
			fmt3(g, line, sizeof(line));
			if (sd == SIDE_BARE) {
				printf("%-5u %-7s %-7s %s\n", i + 1,
				       side_name[order[0]], "bare", line);
				continue;
			}
			ratio[0][sd * MAX_ROUNDS + i] = g->p50 / b->p50;
			ratio[1][sd * MAX_ROUNDS + i] = g->p99 / b->p99;
			ratio[2][sd * MAX_ROUNDS + i] = g->p999 / b->p999;
			printf("%-5u %-7s %-7s %s   %.2f %.2f %.2f\n", i + 1,
			       side_name[order[0]], side_name[sd], line,
			       g->p50 / b->p50, g->p99 / b->p99,
			       g->p999 / b->p999);
		}
		if (vary.on) {
			const struct pcts *l = &got[SIDE_LATLAB],
					  *v = &got[SIDE_VARY];

			ratio[0][2 * MAX_ROUNDS + i] = v->p50 / l->p50;
			ratio[1][2 * MAX_ROUNDS + i] = v->p99 / l->p99;
			ratio[2][2 * MAX_ROUNDS + i] = v->p999 / l->p999;
			printf("%-5u %-7s %-7s %29s   %.2f %.2f %.2f "
			       "(vary/latlab)\n", i + 1, "", "", "",
			       v->p50 / l->p50, v->p99 / l->p99,
			       v->p999 / l->p999);
		}
		fflush(stdout);
	}
	printf("\nover %u rounds: median (min..max) of the ratio; < 1 means "
	       "the first is better\n", rounds);
	{
		double v[3 * MAX_ROUNDS];

		for (int sd = 0; sd < 3; sd++) {
			static const char *const what[] = {
				"latlab/bare", "vary/bare", "vary/latlab" };

			if (sd && !vary.on)
				break;
			for (int k = 0; k < 3; k++)
				memcpy(&v[k * MAX_ROUNDS],
				       &ratio[k][sd * MAX_ROUNDS],
				       rounds * sizeof(double));
			summary(what[sd], v, rounds);
		}
	}
	printf("load average at end %.1f\n", lat_loadavg());
	return 0;
}
