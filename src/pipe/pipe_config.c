/*
 * Pipeline configuration: defaults, validation, placement policy, names.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	c->stamps = true;
	c->noise_cpu = -1;
	c->stall_seq = UINT64_MAX;
	c->interval_s = 1.0;
	c->calibrate_ms = 200;
}

int lat_pipe_config_check(const struct lat_pipe_config *c, const char **why)
{
	const char *msg = NULL;

	if (c->events < 1 || c->events > 1000000000000ULL)
		msg = "--events must be between 1 and 10^12";
	else if (!(c->rate > 0 && c->rate <= 1e9))
		msg = "--rate must be above 0 and at most 10^9 events/s";
	else if (c->arrivals != LAT_PACE_FIXED &&
		 c->arrivals != LAT_PACE_POISSON)
		msg = "--arrivals must be fixed or poisson";
	else if (c->stages < 1 || c->stages > LAT_PIPE_MAX_STAGES)
		msg = "--stages must be between 1 and 8";
	else if (c->capacity < 2 || c->capacity > (1u << 24) ||
		 (c->capacity & (c->capacity - 1)))
		msg = "--capacity must be a power of two between 2 and 2^24";
	else if (!(c->work_ns >= 0 && c->work_ns <= 1e9))
		msg = "--work-ns must be between 0 and 10^9";
	else if (lat_work_dist_check(&c->work_dist, c->work_ns, &msg))
		;
	else if (c->wait != LAT_WAIT_SPIN && c->wait != LAT_WAIT_YIELD &&
		 c->wait != LAT_WAIT_BLOCK)
		msg = "--wait must be spin, yield or block";
	else if (c->alloc_bytes > (1u << 30))
		msg = "--alloc must be at most 1 GiB";
	else if (!(c->stall_ns >= 0 && c->stall_ns <= 60e9))
		msg = "--stall-at duration must be between 0 and 60 s";
	else if (!(c->interval_s >= 0.001 && c->interval_s <= 3600))
		msg = "--interval must be between 1 ms and 1 hour";
	else if (c->calibrate_ms < 10 || c->calibrate_ms > 10000)
		msg = "calibration window must be between 10 ms and 10 s";
	if (!msg && c->pin)
		for (int i = 0; i < lat_pipe_n_hot(c->stages); i++)
			if (c->cpu[i] < 0 || c->cpu[i] >= LAT_TOPO_MAX_CPUS) {
				msg = "pinned run without a CPU for every "
				      "hot thread";
				break;
			}
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

bool lat_pipe_place(struct lat_pipe_config *c, const struct lat_topo_place *p,
		    bool wait_chosen)
{
	bool shared = p->flags & LAT_TOPO_SHARED_CPU;

	for (int i = 0; i < LAT_PIPE_MAX_HOT; i++)
		c->cpu[i] = i < p->n ? p->cpu[i] : -1;
	c->pace_yield = false;
	c->place_flags = p->flags;
	/* the producer yields while early only if it does not have its CPU
	 * to itself: otherwise it would just add syscalls to its pacing */
	for (int i = 1; i < p->n; i++)
		if (p->cpu[i] == p->cpu[0])
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
	return shared;
}

const char *lat_pipe_delta_name(int stages, int i, char *buf, size_t len)
{
	if (i == 0)
		snprintf(buf, len, "pace");
	else if (i == 2 * stages + 2)
		snprintf(buf, len, "e2e");
	else if (i % 2)
		snprintf(buf, len, "q%d+wake", (i + 1) / 2);
	else
		snprintf(buf, len, "work%d", i / 2);
	return buf;
}

int lat_pipe_autoplace(struct lat_pipe_config *c, bool wait_chosen,
		       bool *oversubscribed)
{
	struct lat_topo *t = malloc(sizeof(*t));
	struct lat_topo_place p;
	bool shared = false;
	int rc;

	if (!t)
		return -ENOMEM;
	rc = lat_topo_load(t, NULL, NULL);
	if (!rc)
		rc = lat_topo_place(t, lat_pipe_n_hot(c->stages), &p);
	if (!rc) {
		shared = lat_pipe_place(c, &p, wait_chosen);
		c->noise_cpu = c->noise ? lat_topo_free_cpu(t, &p) : -1;
	}
	free(t);
	if (oversubscribed)
		*oversubscribed = shared;
	return rc;
}
