/*
 * lat_knee bookkeeping: each event of the bottleneck stage as a customer
 * of a G/G/1 queue (see knee.h for the definitions of W, S and rho).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/knee.h"

/* 1 cycle .. an hour at 5 GHz, 3 digits: any wait a run can have. */
#define ACC_HIST_MAX 18000000000000LL

int lat_knee_acc_init(struct lat_knee_acc *a, uint64_t expected)
{
	struct lat_hist *h[] = { &a->wait, &a->service, &a->gap, &a->pickup,
				 &a->wake, &a->e2e };
	int rc = 0;

	memset(a, 0, sizeof(*a));
	if (expected < 1)
		return -EINVAL;
	a->expected = expected;
	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]) && !rc; i++)
		rc = lat_hist_init(h[i], 1, ACC_HIST_MAX,
				   LAT_HIST_DEFAULT_SIG_FIGS);
	/* room for the events planned and a margin (a run may deliver a
	 * few more than asked); beyond it events are counted, not kept */
	a->trace_cap = expected + expected / 8 + 16;
	if (a->trace_cap > LAT_KNEE_TRACE_MAX)
		a->trace_cap = LAT_KNEE_TRACE_MAX;
	if (!rc) {
		a->trace = calloc(a->trace_cap, sizeof(*a->trace));
		if (!a->trace)
			rc = -ENOMEM;
	}
	if (rc)
		lat_knee_acc_destroy(a);
	return rc;
}

void lat_knee_acc_destroy(struct lat_knee_acc *a)
{
	lat_hist_destroy(&a->wait);
	lat_hist_destroy(&a->service);
	lat_hist_destroy(&a->gap);
	lat_hist_destroy(&a->pickup);
	lat_hist_destroy(&a->wake);
	lat_hist_destroy(&a->e2e);
	free(a->trace);
	a->trace = NULL;
}

/* b - a, or 0 when the clock went backwards between the two stamps */
static uint64_t after(lat_cycles_t a, lat_cycles_t b)
{
	return b > a ? b - a : 0;
}

/* Batch of the n-th chained event: expected/B events each, the last
 * batch taking whatever is left over. */
static unsigned batch_of(const struct lat_knee_acc *a, uint64_t n)
{
	uint64_t len = a->expected / LAT_KNEE_BATCHES;
	uint64_t i = len ? n / len : n;

	return i < LAT_KNEE_BATCHES ? (unsigned)i : LAT_KNEE_BATCHES - 1;
}

void lat_knee_acc_add(struct lat_knee_acc *a, uint64_t seq, lat_cycles_t t0,
		      lat_cycles_t arr, lat_cycles_t b, lat_cycles_t d,
		      lat_cycles_t fin)
{
	/* the first event finds the stage idle only if nothing came
	 * before it; after a gap in seq the predecessor's departure is
	 * unknown */
	bool chained = a->started ? seq == a->next_seq : seq == 0;
	lat_cycles_t free_at;
	uint64_t w, s, g = 0;
	unsigned k;

	if (!chained) {
		a->unchained++;
		a->chain_broken = true;
	} else {
		free_at = a->started && a->prev_d > arr ? a->prev_d : arr;
		w = free_at - arr;
		s = after(free_at, d);
		if (!a->events)
			a->first_a = arr;
		else {
			g = after(a->prev_a, arr);
			a->gaps++;
			a->gap_sum += g;
			a->gap_sq += (double)g * (double)g;
			lat_hist_record(&a->gap, (int64_t)g);
		}
		k = batch_of(a, a->events);
		a->batch_wait[k] += (double)w;
		a->batch_n[k]++;
		a->events++;
		a->busy += s;
		a->wait_sum += w;
		a->waited += w > 0;
		a->wait_sq += (double)w * (double)w;
		a->svc_sq += (double)s * (double)s;
		lat_hist_record(&a->wait, (int64_t)w);
		lat_hist_record(&a->service, (int64_t)s);
		lat_hist_record(&a->pickup, (int64_t)after(free_at, b));
		if (!w) {
			lat_hist_record(&a->wake, (int64_t)after(arr, b));
			a->svc_idle_sum += s;
			a->idle_n++;
		}
		if (a->trace_n < a->trace_cap) {
			struct lat_knee_ev *e = &a->trace[a->trace_n];

			e->gap = g;
			e->svc = s;
			e->wait = w;
			e->restart = !a->trace_n || a->chain_broken;
			a->trace_n++;
		} else
			a->trace_missed++;
		a->chain_broken = false;
		lat_hist_record(&a->e2e, (int64_t)after(t0, fin));
	}
	a->started = true;
	a->next_seq = seq + 1;
	a->prev_a = arr;
	a->prev_d = d;
	a->last_d = d;
}

void lat_knee_acc_sample(void *ctx, const struct lat_pipe_msg *m,
			 const int64_t *delta_ns, int n_deltas)
{
	(void)delta_ns;
	(void)n_deltas;
	lat_knee_acc_add(ctx, m->seq, m->t0, m->t_sent, m->work[0].begin,
			 m->work[0].end, m->t_final);
}
