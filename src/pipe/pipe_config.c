/*
 * Pipeline configuration: defaults, validation, placement policy, names.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/cgroup.h"
#include "latlab/parse.h"
#include "latlab/pipe.h"

void lat_pipe_config_init(struct lat_pipe_config *c)
{
	memset(c, 0, sizeof(*c));
	c->events = 2000000;
	c->rate = 200000;
	c->arrivals = LAT_PACE_FIXED;
	c->seed = 1;
	c->stages = 1;
	c->capacity = 4096;
	c->work_ns = 100;
	c->wait = LAT_WAIT_SPIN;
	c->pin = true;
	for (int i = 0; i < LAT_PIPE_MAX_HOT; i++)
		c->cpu[i] = -1;
	c->pace_yield_above_ns = LAT_PIPE_PACE_YIELD_NS;
	c->stamps = true;
	c->noise_cpu = -1;
	c->agg_cpu = -1;
	c->stall_seq = UINT64_MAX;
	c->interval_s = 1.0;
	c->calibrate_ms = 200;
	c->cpu_period_us = 100000;
}

int lat_pipe_config_duration(struct lat_pipe_config *c, double duration_ns)
{
	double sends = c->rate * duration_ns / 1e9;
	double n = ceil(sends);

	if (sends < 1)
		return -EDOM;
	if (!(n >= 1 && n <= (double)LAT_PIPE_MAX_EVENTS))
		return -ERANGE;
	c->events = (uint64_t)n;
	return 0;
}

int lat_pipe_stall_parse(struct lat_pipe_config *c, const char *text)
{
	const char *colon = strchr(text, ':');
	char seq_text[32];
	uint64_t seq;
	double ns;

	if (!colon || colon == text ||
	    (size_t)(colon - text) >= sizeof(seq_text))
		return -EINVAL;
	memcpy(seq_text, text, (size_t)(colon - text));
	seq_text[colon - text] = '\0';
	if (lat_parse_u64(seq_text, 0, UINT64_MAX - 1, &seq) ||
	    lat_parse_duration_ns(colon + 1, 1, 1, INFINITY, &ns))
		return -EINVAL;
	c->stall_seq = seq;
	c->stall_ns = ns;
	return 0;
}

int lat_pipe_config_check(const struct lat_pipe_config *c, const char **why)
{
	const char *msg = NULL;

	if (c->events < 1 || c->events > LAT_PIPE_MAX_EVENTS)
		msg = "events must be between 1 and 10^12";
	else if (!(c->rate > 0 && c->rate <= 1e9))
		msg = "rate must be above 0 and at most 10^9 events/s";
	else if (c->arrivals != LAT_PACE_FIXED &&
		 c->arrivals != LAT_PACE_POISSON)
		msg = "arrivals must be fixed or poisson";
	else if (c->stages < 1 || c->stages > LAT_PIPE_MAX_STAGES)
		msg = "stages must be between 1 and 8";
	else if (c->capacity < 2 || c->capacity > (1u << 24) ||
		 (c->capacity & (c->capacity - 1)))
		msg = "capacity must be a power of two between 2 and 2^24";
	else if (!(c->work_ns >= 0 && c->work_ns <= 1e9))
		msg = "work_ns must be between 0 and 1 s";
	else if (lat_work_dist_check(&c->work_dist, c->work_ns, &msg))
		;
	else if (c->wait != LAT_WAIT_SPIN && c->wait != LAT_WAIT_YIELD &&
		 c->wait != LAT_WAIT_BLOCK)
		msg = "wait must be spin, yield or block";
	else if (c->wait_spins > (1u << 30))
		msg = "wait_spins must be at most 2^30";
	else if (c->alloc_bytes > (1u << 30))
		msg = "alloc_bytes must be at most 1 GiB";
	else if (!(c->stall_ns >= 0 && c->stall_ns <= 60e9))
		msg = "stall_ns must be between 0 and 60 s";
	else if (c->stall_ns > 0 && c->stall_seq >= c->events)
		msg = "stall_seq must be below the number of events";
	else if (!(c->pace_yield_above_ns >= 0 &&
		   c->pace_yield_above_ns <= 1e9))
		msg = "pace_yield_above_ns must be between 0 and 1 s";
	else if (!(c->pace_sleep_ns >= 0 && c->pace_sleep_ns <= 1e9))
		msg = "pace_sleep_ns must be between 0 and 1 s";
	else if (!(c->interval_s >= 0.001 && c->interval_s <= 3600))
		msg = "interval_s must be between 1 ms and 1 hour";
	else if (c->calibrate_ms < 10 || c->calibrate_ms > 10000)
		msg = "calibrate_ms must be between 10 ms and 10 s";
	else if (!(c->cpu_quota >= 0 && c->cpu_quota <= 1))
		msg = "cpu_quota must be above 0 and at most 100 % of one CPU";
	else if (c->cpu_period_us < LAT_CGROUP_MIN_PERIOD_US ||
		 c->cpu_period_us > LAT_CGROUP_MAX_PERIOD_US)
		msg = "cpu_period_us must be between 1 ms and 1 s";
	else if (c->cpu_quota > 0 &&
		 llround(c->cpu_quota * (double)c->cpu_period_us) <
			 LAT_CGROUP_MIN_QUOTA_US)
		msg = "cpu_quota of the period must be at least 1 ms (the "
		      "kernel's floor)";
	else if (!(c->agg_idle_ns >= 0 && c->agg_idle_ns <= 1e9))
		msg = "agg_idle_ns must be between 0 and 1 s";
	else if (!(c->hot_slice_ns == 0 ||
		   (c->hot_slice_ns >= 1e5 && c->hot_slice_ns <= 1e8)))
		msg = "hot_slice_ns must be 0 or between 100 us and 100 ms";
	else if (c->hot_nice < -20 || c->hot_nice > 19)
		msg = "hot_nice must be between -20 and 19";
	else if (!(c->guard_ns == 0 ||
		   (c->guard_ns >= 5e4 && c->guard_ns <= 1e8)))
		msg = "guard_ns must be 0 or between 50 us and 100 ms";
	else if (c->agg_cpu < -1 || c->agg_cpu >= LAT_TOPO_MAX_CPUS)
		msg = "agg_cpu must be -1 or a CPU number";
	else if (c->burst_threads < 0 || c->burst_threads > LAT_PIPE_MAX_BURST)
		msg = "burst_threads must be between 0 and 64";
	if (!msg && c->pin)
		for (int i = 0; i < lat_pipe_n_hot(c->stages); i++)
			if (c->cpu[i] < 0 || c->cpu[i] >= LAT_TOPO_MAX_CPUS) {
				msg = "cpu must name a CPU for every hot thread "
				      "of a pinned run";
				break;
			}
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

const char *lat_pipe_config_field(const char *why, char *buf, size_t len)
{
	size_t n;

	if (!why)
		return NULL;
	n = strcspn(why, " ");
	if (len)
		snprintf(buf, len, "%.*s", (int)n, why);
	return why[n] ? why + n + 1 : why + n;
}

/*
 * Short of CPUs, the topology places the producer alone and lets the
 * stages and the consumer share. The consumer then waits, on the stage's
 * CPU, for the stage that has just been handed the event: every hand-off
 * is a turn-taking between two threads of one CPU. Beside the producer
 * instead, the consumer runs in the producer's idle time between sends,
 * and the stage that gets each event first has a CPU to itself. Moved
 * only when the producer is alone and the consumer shares with a stage.
 */
static void consumer_beside_producer(struct lat_pipe_config *c, int n)
{
	int last = n - 1;
	bool producer_alone = true, with_stage = false;

	if (n < 3)
		return;
	for (int i = 1; i < n; i++)
		producer_alone &= c->cpu[i] != c->cpu[0];
	for (int i = 1; i < last; i++)
		with_stage |= c->cpu[i] == c->cpu[last];
	if (producer_alone && with_stage)
		c->cpu[last] = c->cpu[0];
}

bool lat_pipe_place(struct lat_pipe_config *c, const struct lat_topo_place *p,
		    bool wait_chosen)
{
	bool shared = p->flags & LAT_TOPO_SHARED_CPU;

	for (int i = 0; i < LAT_PIPE_MAX_HOT; i++)
		c->cpu[i] = i < p->n ? p->cpu[i] : -1;
	if (shared && !(p->flags & LAT_TOPO_CHOSEN))
		consumer_beside_producer(c, p->n);
	c->pace_yield = false;
	c->place_flags = p->flags;
	/* the producer yields while early only if it does not have its CPU
	 * to itself: otherwise it would just add syscalls to its pacing */
	for (int i = 1; i < p->n; i++)
		if (c->cpu[i] == c->cpu[0])
			c->pace_yield = true;
	if (!c->pin) {
		/* the scheduler places the threads: only "too few CPUs" is
		 * a fact; the CPUs of this placement will not be used */
		c->place_flags = p->flags & LAT_TOPO_SHARED_CPU;
		c->pace_yield = shared;
	}
	if (!wait_chosen)
		c->wait = shared ? LAT_WAIT_YIELD : LAT_WAIT_SPIN;
	/* a thread waiting for the thread that shares its CPU cannot be
	 * helped by spinning: give the CPU up after a short spin */
	if (shared && !c->wait_spins)
		c->wait_spins = LAT_PIPE_SHARED_SPINS;
	/* an aggregator without a CPU of its own wakes on a hot thread's
	 * and, having slept, preempts it: give the CPU back every slice */
	c->agg_slice = shared ? LAT_PIPE_AGG_SLICE : 0;
	/* sharing CPUs with each other, the hot threads share them with
	 * every other task too: on its own a task the scheduler put on a
	 * hot CPU keeps it for up to a tick (4 ms at HZ=250) before the
	 * pipeline is looked at again. Weight (nice) makes the pipeline owed
	 * the CPU back after a short turn; a guard's wake-up every 250 us is
	 * when the scheduler notices (docs/pipeline.md, "Fourth round") */
	c->hot_nice = shared ? LAT_PIPE_SHARED_NICE : 0;
	c->guard_ns = shared ? LAT_PIPE_GUARD_NS : 0;
	return shared;
}

bool lat_pipe_place_on(struct lat_pipe_config *c, const struct lat_topo *t,
		       const struct lat_topo_place *p, bool wait_chosen)
{
	bool shared = lat_pipe_place(c, p, wait_chosen);

	c->noise_cpu = c->noise ? lat_topo_unused_cpu(t, p) : -1;
	/* the aggregator on a CPU no hot thread uses, when there is one:
	 * its wake-ups then never preempt the pipeline */
	c->agg_cpu = c->pin ? lat_topo_unused_cpu(t, p) : -1;
	return shared;
}

const char *lat_pipe_delta_name(int stages, int i, char *buf, size_t len)
{
	if (i == 0)
		snprintf(buf, len, "pace");
	else if (i == lat_pipe_n_deltas(stages) - 1)
		snprintf(buf, len, "e2e");
	else if (i % 2)
		snprintf(buf, len, "q%d+wake", (i + 1) / 2);
	else
		snprintf(buf, len, "work%d", i / 2);
	return buf;
}

/* Usable CPUs of @t, as a list for a message. */
static void usable_list(const struct lat_topo *t, char *buf, size_t len)
{
	bool set[LAT_TOPO_MAX_CPUS];

	for (int c = 0; c < LAT_TOPO_MAX_CPUS; c++)
		set[c] = c < t->n_cpus && t->cpu[c].online &&
			 t->cpu[c].allowed;
	lat_topo_list_format(set, buf, len);
}

/* A pool longer than the hot threads: place within it. */
static int place_within(struct lat_topo *t, const int *cpus, int n_cpus,
			int n, struct lat_topo_place *p)
{
	bool set[LAT_TOPO_MAX_CPUS] = { false };
	int rc;

	for (int i = 0; i < n_cpus; i++)
		set[cpus[i]] = true;
	lat_topo_restrict(t, set);
	rc = lat_topo_place(t, n, p);
	p->flags |= LAT_TOPO_CHOSEN;
	return rc;
}

bool lat_pipe_placement_warn(FILE *f, const struct lat_pipe_config *c,
			     const struct lat_pipe_placement *pl)
{
	if (!pl->oversubscribed)
		return false;
	fprintf(f, "%d hot threads on %d usable CPUs: numbers include "
		"scheduler effects; wait '%s'%s\n", lat_pipe_n_hot(c->stages),
		pl->n_usable, lat_wait_kind_name(c->wait),
		c->wait == LAT_WAIT_SPIN
			? " will hand off once per scheduler tick"
			: " (a spinning wait could hold the CPU its peer "
			  "needs)");
	return true;
}

int lat_pipe_place_pool(struct lat_pipe_config *c, const int *cpus,
			int n_cpus, bool wait_chosen,
			struct lat_pipe_placement *out)
{
	struct lat_pipe_placement dummy;
	struct lat_topo *t;
	struct lat_topo_place p;
	int n = lat_pipe_n_hot(c->stages), rc;

	if (!out)
		out = &dummy;
	memset(out, 0, sizeof(*out));
	out->bad_cpu = -1;
	if (n_cpus < 0 || (n_cpus && !cpus))
		return -EINVAL;
	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	rc = lat_topo_load(t, NULL, NULL);
	if (!rc && !n_cpus)
		rc = lat_topo_place(t, n, &p);
	else if (!rc)
		/* checks every listed CPU, also those of a pool */
		rc = lat_topo_place_cpus(t, cpus, n_cpus, n, &p,
					 &out->bad_cpu);
	if (rc == -ESRCH)
		usable_list(t, out->usable, sizeof(out->usable));
	if (!rc && n_cpus > n)
		rc = place_within(t, cpus, n_cpus, n, &p);
	if (!rc) {
		out->oversubscribed = lat_pipe_place_on(c, t, &p, wait_chosen);
		out->n_usable = t->n_usable;
	}
	free(t);
	return rc;
}

int lat_pipe_autoplace(struct lat_pipe_config *c, bool wait_chosen,
		       bool *oversubscribed)
{
	struct lat_pipe_placement pl;
	int rc = lat_pipe_place_pool(c, NULL, 0, wait_chosen, &pl);

	if (oversubscribed)
		*oversubscribed = pl.oversubscribed;
	return rc;
}

enum lat_pipe_part lat_pipe_delta_part(int stages, int i)
{
	if (i == 0)
		return LAT_PIPE_PART_PACE;
	if (i == lat_pipe_n_deltas(stages) - 1)
		return LAT_PIPE_PART_E2E;
	return i % 2 ? LAT_PIPE_PART_QUEUE : LAT_PIPE_PART_WORK;
}

const char *lat_pipe_part_name(enum lat_pipe_part k)
{
	static const char *const names[] = { "pace", "queue", "work", "e2e" };

	return (unsigned)k < 4 ? names[k] : "?";
}
