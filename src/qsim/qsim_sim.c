/*
 * lat_qsim simulation: G/G/c FCFS, one customer at a time.
 *
 * c = 1 is Lindley's recursion in its departure form: a customer starts at
 * max(arrival, previous departure), so W_n = (D_{n-1} - A_n)^+. c > 1 keeps
 * the c server free times in a min-heap: FCFS hands each arrival, in order,
 * to the server that frees first. Both paths also keep the departure times
 * of the customers still in the system, to integrate the number in system
 * N(t) over time: that gives L and L_q by a route independent of the waits,
 * so Little's law L = λW is a real check of the bookkeeping.
 *
 * Times are rebased to 0 at every batch boundary so that doubles keep
 * their resolution however long the run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/qsim.h"
#include "qsim_int.h"

struct sim {
	struct lat_qsim_dist arr, svc;
	struct lat_qsim_rng ra, rs;   /* separate streams: see CRN in qsim.h */
	unsigned c;
	double t;                     /* last arrival time */
	double d_last;                /* c = 1: last departure time */
	struct qsim_heap servers;     /* c > 1: server free times */
	struct qsim_fifo dep_fifo;    /* c = 1: departures of those in system */
	struct qsim_heap dep_heap;    /* c > 1: the same, out of order */
	uint64_t n_sys;               /* number in system just after t */
	double tl;                    /* time the N(t) integral has reached */
	double area_sys, area_busy;   /* integrals of N and min(N, c) */
	/* per batch */
	double sum_w, sum_s;
	uint64_t batch_zero_w;
	/* whole measurement */
	double max_w, max_s;
	uint64_t zero_w;
	struct lat_hist *batch_wait, *batch_hist;
	bool (*stop)(void *ctx);
	void *stop_ctx;
	int err;
};

static inline void advance(struct sim *m, double x)
{
	double dt = x - m->tl;
	uint64_t busy = m->n_sys < m->c ? m->n_sys : m->c;

	m->area_sys += (double)m->n_sys * dt;
	m->area_busy += (double)busy * dt;
	m->tl = x;
}

static inline int64_t ticks(double tau)
{
	double v = tau * LAT_QSIM_TICKS_PER_TAU + 0.5;

	/* Beyond int64 the histogram counts it as overflow anyway. */
	return v < 9e18 ? (int64_t)v : INT64_MAX;
}

static inline void record(struct sim *m, double w, double s)
{
	double soj = w + s;

	m->sum_w += w;
	m->sum_s += soj;
	m->batch_zero_w += w == 0;
	if (w > m->max_w)
		m->max_w = w;
	if (soj > m->max_s)
		m->max_s = soj;
	lat_hist_record(m->batch_wait, ticks(w));
	lat_hist_record(m->batch_hist, ticks(soj));
}

/* One customer, single server. */
static inline void step1(struct sim *m, bool measure)
{
	double t = m->t + qsim_sample(&m->arr, &m->ra);
	double s = qsim_sample(&m->svc, &m->rs);
	struct qsim_fifo *q = &m->dep_fifo;
	double start, w;

	while (q->head != q->tail && q->buf[q->head & (q->cap - 1)] <= t) {
		advance(m, q->buf[q->head & (q->cap - 1)]);
		q->head++;
		m->n_sys--;
	}
	advance(m, t);
	start = t > m->d_last ? t : m->d_last;
	w = start - t;
	m->d_last = start + s;
	if (LAT_UNLIKELY(q->tail - q->head == q->cap) && qsim_fifo_grow(q))
		m->err = -ENOMEM;
	else
		q->buf[q->tail++ & (q->cap - 1)] = m->d_last;
	m->n_sys++;
	m->t = t;
	if (measure)
		record(m, w, s);
}

/* One customer, c > 1 servers. */
static inline void stepc(struct sim *m, bool measure)
{
	double t = m->t + qsim_sample(&m->arr, &m->ra);
	double s = qsim_sample(&m->svc, &m->rs);
	struct qsim_heap *dh = &m->dep_heap;
	double free_at = m->servers.v[0], start, w;

	while (dh->n && dh->v[0] <= t) {
		advance(m, dh->v[0]);
		qsim_heap_pop(dh);
		m->n_sys--;
	}
	advance(m, t);
	start = t > free_at ? t : free_at;
	w = start - t;
	qsim_heap_replace_top(&m->servers, start + s);
	if (qsim_heap_push(dh, start + s))
		m->err = -ENOMEM;
	m->n_sys++;
	m->t = t;
	if (measure)
		record(m, w, s);
}

static void run_span(struct sim *m, uint64_t n, bool measure)
{
	/* in chunks, so a stop is seen within LAT_QSIM_STOP_EVERY steps */
	while (n && !m->err) {
		uint64_t k = n < LAT_QSIM_STOP_EVERY ? n : LAT_QSIM_STOP_EVERY;

		if (m->c == 1) {
			for (uint64_t i = 0; i < k && !m->err; i++)
				step1(m, measure);
		} else {
			for (uint64_t i = 0; i < k && !m->err; i++)
				stepc(m, measure);
		}
		n -= k;
		if (m->stop && m->stop(m->stop_ctx)) {
			m->err = -EINTR;
			break;
		}
	}
}

static void rebase(struct sim *m)
{
	double dt = m->t;

	m->t = 0;
	m->tl -= dt;
	m->d_last -= dt;
	if (m->c == 1) {
		qsim_fifo_shift(&m->dep_fifo, dt);
	} else {
		qsim_heap_shift(&m->servers, dt);
		qsim_heap_shift(&m->dep_heap, dt);
	}
}

static int sim_init(struct sim *m, const struct lat_qsim_config *cfg)
{
	int err;

	memset(m, 0, sizeof(*m));
	m->arr = cfg->arrival;
	m->svc = cfg->service;
	m->arr.mean = 1 / (cfg->servers * cfg->rho);
	m->svc.mean = 1;
	m->c = cfg->servers;
	m->stop = cfg->stop;
	m->stop_ctx = cfg->stop_ctx;
	lat_qsim_rng_seed(&m->ra, cfg->seed);
	lat_qsim_rng_seed(&m->rs, cfg->seed ^ 0xa0761d6478bd642full);
	if (m->c == 1)
		return qsim_fifo_init(&m->dep_fifo, 1024);
	err = qsim_heap_init(&m->servers, m->c);
	if (!err)
		err = qsim_heap_init(&m->dep_heap, 1024);
	for (unsigned i = 0; !err && i < m->c; i++)
		err = qsim_heap_push(&m->servers, 0);
	return err;
}

static void sim_destroy(struct sim *m)
{
	qsim_fifo_destroy(&m->dep_fifo);
	qsim_heap_destroy(&m->servers);
	qsim_heap_destroy(&m->dep_heap);
}

void lat_qsim_config_init(struct lat_qsim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	lat_qsim_dist_parse(&cfg->arrival, "exp");
	lat_qsim_dist_parse(&cfg->service, "exp");
	cfg->rho = 0.9;
	cfg->servers = 1;
	lat_qsim_config_customers(cfg, 1000000);
	cfg->batches = 32;
	cfg->seed = 1;
}

void lat_qsim_config_customers(struct lat_qsim_config *cfg, uint64_t n)
{
	cfg->customers = n;
	cfg->warmup = n / 10;
}

int lat_qsim_config_check(const struct lat_qsim_config *cfg)
{
	if (!(cfg->rho > 0 && cfg->rho < 1) || cfg->servers < 1 ||
	    cfg->batches < 2 || cfg->batches > LAT_QSIM_MAX_BATCHES ||
	    cfg->customers < cfg->batches || cfg->service.mean != 1 ||
	    !isfinite(cfg->arrival.cv) || !isfinite(cfg->service.cv))
		return -EINVAL;
	return 0;
}

void lat_qsim_result_destroy(struct lat_qsim_result *res)
{
	lat_hist_destroy(&res->wait_hist);
	lat_hist_destroy(&res->sojourn_hist);
}

double lat_qsim_hist_tau(const struct lat_hist *h, double p)
{
	return (double)lat_hist_value_at_percentile(h, p) /
	       LAT_QSIM_TICKS_PER_TAU;
}

static int hist_init(struct lat_hist *h)
{
	return lat_hist_init(h, 1, (int64_t)(LAT_QSIM_HIST_MAX_TAU *
					     LAT_QSIM_TICKS_PER_TAU), 3);
}

const double lat_qsim_quantile_p[4] = { 50, 90, 99, 99.9 };

/* Per-batch values that become confidence intervals: the means, the
 * percentiles of the wait (wq) and the sojourn (sq), P(W > 0). */
#define NQ 4
#define N_BATCH_SERIES (3 + 2 * NQ)
struct batches {
	double *w, *s, *pw, *wq[NQ], *sq[NQ];
};

static void end_batch(struct sim *m, struct lat_qsim_result *res,
		      struct batches *b, unsigned i, uint64_t n)
{
	b->w[i] = m->sum_w / (double)n;
	b->s[i] = m->sum_s / (double)n;
	b->pw[i] = 1 - (double)m->batch_zero_w / (double)n;
	for (int k = 0; k < NQ; k++) {
		b->wq[k][i] = lat_qsim_hist_tau(m->batch_wait,
						lat_qsim_quantile_p[k]);
		b->sq[k][i] = lat_qsim_hist_tau(m->batch_hist,
						lat_qsim_quantile_p[k]);
	}
	res->wait.mean += m->sum_w;
	res->sojourn.mean += m->sum_s;
	m->zero_w += m->batch_zero_w;
	lat_hist_add(&res->wait_hist, m->batch_wait);
	lat_hist_add(&res->sojourn_hist, m->batch_hist);
	lat_hist_reset(m->batch_wait);
	lat_hist_reset(m->batch_hist);
	m->sum_w = m->sum_s = 0;
	m->batch_zero_w = 0;
}

static void finish(struct sim *m, struct lat_qsim_result *res,
		   struct batches *b, double elapsed)
{
	unsigned nb = res->batches;
	double n = (double)res->customers;

	res->wait.mean /= n;
	res->sojourn.mean /= n;
	lat_qsim_ci_from_batches(&res->wait, res->wait.mean, b->w, nb);
	lat_qsim_ci_from_batches(&res->sojourn, res->sojourn.mean, b->s, nb);
	for (int k = 0; k < NQ; k++) {
		double p = lat_qsim_quantile_p[k];

		lat_qsim_ci_from_batches(&res->wait_q[k],
					 lat_qsim_hist_tau(&res->wait_hist, p),
					 b->wq[k], nb);
		lat_qsim_ci_from_batches(&res->sojourn_q[k],
					 lat_qsim_hist_tau(&res->sojourn_hist,
							   p),
					 b->sq[k], nb);
	}
	res->p99 = res->sojourn_q[2];
	res->p999 = res->sojourn_q[3];
	lat_qsim_ci_from_batches(&res->p_wait,
				 1 - (double)m->zero_w / n, b->pw, nb);
	res->arrival_rate = n / elapsed;
	res->mean_in_system = m->area_sys / elapsed;
	res->mean_in_queue = (m->area_sys - m->area_busy) / elapsed;
	res->utilization = m->area_busy / (elapsed * res->servers);
	res->little_rel = (res->mean_in_system -
			   res->arrival_rate * res->sojourn.mean) /
			  res->mean_in_system;
	res->max_wait = m->max_w;
	res->max_sojourn = m->max_s;
	res->zero_wait_fraction = (double)m->zero_w / n;
}

static int measure(struct sim *m, const struct lat_qsim_config *cfg,
		   struct lat_qsim_result *res, struct batches *b)
{
	double elapsed = 0;
	uint64_t done = 0;

	run_span(m, cfg->warmup, false);
	rebase(m);
	m->area_sys = m->area_busy = 0;
	unsigned i;

	for (i = 0; i < cfg->batches && !m->err; i++) {
		/* Boundaries at floor(k N / B): every customer is in a batch. */
		uint64_t q = cfg->customers / cfg->batches;
		uint64_t r = cfg->customers % cfg->batches;
		uint64_t end = q * (i + 1) + r * (i + 1) / cfg->batches;

		run_span(m, end - done, true);
		if (m->err)
			break; /* a batch cut short is not one */
		end_batch(m, res, b, i, end - done);
		done = end;
		elapsed += m->t;
		rebase(m);
	}
	if (m->err == -EINTR && i < 2) {
		res->batches = i; /* too few for a result: say none */
		res->customers = done;
		return -EINTR;
	}
	if (m->err == -EINTR) {
		/* stopped: the whole batches done are a (shorter) result */
		res->batches = i;
		res->customers = done;
		finish(m, res, b, elapsed);
		return -EINTR;
	}
	if (!m->err)
		finish(m, res, b, elapsed);
	return m->err;
}

int lat_qsim_run(const struct lat_qsim_config *cfg,
		 struct lat_qsim_result *res)
{
	struct lat_hist batch_hist, batch_wait;
	struct batches b;
	struct sim m;
	double *mem;
	int err;

	memset(res, 0, sizeof(*res));
	memset(&batch_hist, 0, sizeof(batch_hist));
	memset(&batch_wait, 0, sizeof(batch_wait));
	err = lat_qsim_config_check(cfg);
	if (err)
		return err;
	res->customers = cfg->customers;
	res->warmup = cfg->warmup;
	res->servers = cfg->servers;
	res->batches = cfg->batches;
	res->rho = cfg->rho;
	mem = calloc(N_BATCH_SERIES * (size_t)cfg->batches, sizeof(double));
	err = mem ? sim_init(&m, cfg) : -ENOMEM;
	if (!err)
		err = hist_init(&res->wait_hist);
	if (!err)
		err = hist_init(&res->sojourn_hist);
	if (!err)
		err = hist_init(&batch_hist);
	if (!err)
		err = hist_init(&batch_wait);
	if (!err) {
		b.w = mem;
		b.s = mem + cfg->batches;
		b.pw = mem + 2 * cfg->batches;
		for (int k = 0; k < NQ; k++) {
			b.wq[k] = mem + (3 + k) * (size_t)cfg->batches;
			b.sq[k] = mem + (3 + NQ + k) * (size_t)cfg->batches;
		}
		m.batch_wait = &batch_wait;
		m.batch_hist = &batch_hist;
		err = measure(&m, cfg, res, &b);
	}
	if (mem)
		sim_destroy(&m);
	lat_hist_destroy(&batch_hist);
	lat_hist_destroy(&batch_wait);
	free(mem);
	return err;
}
