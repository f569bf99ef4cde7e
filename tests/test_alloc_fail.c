/*
 * Description: fail-the-Nth-allocation through every module's set-up
 * path. For n = 1, 2, ... the n-th heap allocation the call makes fails
 * (lat_alloc_fail_nth, the counting allocator's injection) until the
 * call succeeds: every failure must return a negative code (normally
 * -ENOMEM) and leave nothing allocated (allocations = frees over the
 * call), and the success must be complete (it is then torn down and must
 * balance too). Modules: hist, hist_io (V2 decode, .hlog writer and
 * reader, lat_hlog_load), ring (spsc), flight, instr, pipe (a whole run),
 * mem (the false-sharing and read-mostly sweeps, whose failed runs must
 * give back the histograms of the runs before them),
 * qsim (run, sweep, empirical distribution), clock (read costs), topo
 * (lat_topo_load: a failure absorbed must give the very topology an
 * unarmed load gives, since a sysfs file that fopen could not open for
 * want of memory is not a missing file) and pipe placement. Needs the counting allocator: skips in sanitizer builds,
 * where the sanitizer owns malloc (ASan checks leaks there instead).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab/alloccount.h"
#include "latlab/clock.h"
#include "latlab/flight.h"
#include "latlab/hist_io.h"
#include "latlab/instr.h"
#include "latlab/mem.h"
#include "latlab/pipe.h"
#include "latlab/qsim.h"
#include "latlab/spsc.h"
#include "latlab/topo.h"
#include "t_test.h"

typedef int (*op_fn)(void *ctx);      /* the set-up under test */
typedef void (*undo_fn)(void *ctx);   /* tear down a success */

static uint64_t live(const struct lat_alloc_counts *a,
		     const struct lat_alloc_counts *b)
{
	return (b->allocs - a->allocs) - (b->frees - a->frees);
}

/* Heap calls between two snapshots: what injection can fail. */
static uint64_t calls(const struct lat_alloc_counts *a,
		      const struct lat_alloc_counts *b)
{
	return lat_alloc_heap_calls(b) - lat_alloc_heap_calls(a);
}

/* One call of @op with the @n-th allocation failing (0: none). */
static int once(const char *name, op_fn op, undo_fn undo, void *ctx,
		uint64_t n, uint64_t *made)
{
	struct lat_alloc_counts a, b;
	int rc;

	lat_alloc_snapshot(&a);
	T_EQ_I64(lat_alloc_fail_nth(n), 0);
	rc = op(ctx);
	lat_alloc_fail_nth(0);
	if (made) {
		lat_alloc_snapshot(&b);
		*made = calls(&a, &b);
	}
	if (!rc)
		undo(ctx);
	lat_alloc_snapshot(&b);
	if (rc > 0 || (n == 0 && rc)) {
		fprintf(stderr, "%s: allocation %llu failing: returned %d\n",
			name, (unsigned long long)n, rc);
		t_failures++;
	}
	/* the warm-up call may keep what a process keeps once */
	if (live(&a, &b) && (n || made)) {
		fprintf(stderr, "%s: allocation %llu failing (%s): %llu "
			"blocks left\n", name, (unsigned long long)n,
			rc ? lat_strerror(rc) : "call succeeded",
			(unsigned long long)live(&a, &b));
		t_failures++;
	}
	return rc;
}

/*
 * Fail each allocation @op makes in turn. A first, unarmed call does the
 * one-time set-up a process does anyway (stdio, time zone, thread caches)
 * and counts the allocations; then n = 1 .. that count.
 */
static void inject(const char *name, op_fn op, undo_fn undo, void *ctx)
{
	uint64_t made = 0, failed = 0, tolerated = 0, enomem = 0;
	int rc;

	once(name, op, undo, ctx, 0, NULL);
	once(name, op, undo, ctx, 0, &made);
	T_CHECK(made > 0);
	for (uint64_t n = 1; n <= made; n++) {
		rc = once(name, op, undo, ctx, n, NULL);
		failed += rc < 0;
		enomem += rc == -ENOMEM;
		tolerated += rc == 0; /* e.g. stdio falls back to no buffer */
	}
	printf("%s: %llu allocations, each failed in turn: %llu errors "
	       "(%llu -ENOMEM), %llu absorbed, nothing leaked\n", name,
	       (unsigned long long)made, (unsigned long long)failed,
	       (unsigned long long)enomem, (unsigned long long)tolerated);
}

/* ---- the set-up paths ---------------------------------------------- */

static int hist_op(void *ctx)
{
	return lat_hist_create(1, 3600000000000LL, 3, ctx);
}

static void hist_undo(void *ctx)
{
	lat_hist_free(*(struct lat_hist **)ctx);
}

static int spsc_op(void *ctx)
{
	return lat_spsc_create(1024, 64, ctx);
}

static void spsc_undo(void *ctx)
{
	lat_spsc_free(*(struct lat_spsc **)ctx);
}

static const char *const flight_names[] = { "a", "b" };

static int flight_op(void *ctx)
{
	return lat_flight_init(ctx, 256, 2, flight_names, 8, 1000);
}

static void flight_undo(void *ctx)
{
	lat_flight_destroy(ctx);
}

struct v2 {
	uint8_t *buf;
	size_t len;
	struct lat_hist *out;
};

static int v2_op(void *ctx)
{
	struct v2 *v = ctx;

	return lat_hist_v2_decode(v->buf, v->len, &v->out);
}

static void v2_undo(void *ctx)
{
	lat_hist_free(((struct v2 *)ctx)->out);
}

/* An .hlog written and read back through an unbuffered tmpfile (a
 * stdio buffer would be an allocation outside the call). */
struct hlog {
	FILE *f;
	const struct lat_hist *h;
	char path[64];
	struct lat_hlog_data d;
};

static int hlog_write_op(void *ctx)
{
	struct hlog *x = ctx;
	struct lat_hlog_writer_opts o = { .start_time_s = 1e9 };
	struct lat_hlog_writer *w;
	int rc;

	rewind(x->f);
	rc = lat_hlog_writer_open_stream(x->f, &o, &w);
	if (rc)
		return rc;
	rc = lat_hlog_writer_write_interval(w, "e2e", 0, 1, x->h);
	if (rc) {
		lat_hlog_writer_close(w);
		return rc;
	}
	return lat_hlog_writer_close(w);
}

static void no_undo(void *ctx)
{
	(void)ctx;
}

static int hlog_load_op(void *ctx)
{
	struct hlog *x = ctx;
	int rc = lat_hlog_load(x->path, NULL, 0, &x->d);

	if (rc)
		lat_hlog_data_free(&x->d);
	return rc;
}

static void hlog_load_undo(void *ctx)
{
	lat_hlog_data_free(&((struct hlog *)ctx)->d);
}

static int qsim_op(void *ctx)
{
	struct lat_qsim_result r;
	int rc = lat_qsim_run(ctx, &r);

	lat_qsim_result_destroy(&r);
	return rc;
}

static int sweep_op(void *ctx)
{
	struct lat_qsim_sweep s;
	int rc = lat_qsim_sweep_init(&s, 0.2, 0.6, 0.2, 10);

	if (!rc)
		rc = lat_qsim_sweep_run(&s, ctx, NULL, NULL);
	lat_qsim_sweep_destroy(&s);
	return rc;
}

struct dist {
	const struct lat_hist *h;
	struct lat_qsim_dist d;
};

static int dist_op(void *ctx)
{
	struct dist *x = ctx;

	return lat_qsim_dist_init_hist(&x->d, x->h);
}

static void dist_undo(void *ctx)
{
	lat_qsim_dist_destroy(&((struct dist *)ctx)->d);
}

static int costs_op(void *ctx)
{
	struct lat_clock_cost c[LAT_CLOCK_READ_KINDS];

	return lat_clock_read_costs(ctx, 1000, c);
}

struct topo {
	struct lat_topo want, got; /* unarmed load, load under injection */
};

static int topo_op(void *ctx)
{
	struct topo *x = ctx;
	int rc = lat_topo_load(&x->got, NULL, NULL);

	if (!rc && memcmp(&x->got, &x->want, sizeof(x->want))) {
		fprintf(stderr, "topo load: an allocation failed, the load "
			"succeeded with a different topology\n");
		t_failures++;
	}
	return rc;
}

static int place_op(void *ctx)
{
	return lat_pipe_place_pool(ctx, NULL, 0, false, NULL);
}

struct instr {
	struct lat_instr in;
	struct lat_pipe_config pristine, c; /* init installs hooks in c */
};

static int instr_op(void *ctx)
{
	struct instr *x = ctx;
	struct lat_instr_opts o = { .counters = true, .flight = true,
				    .freeze_above = 1000000,
				    .flight_post = 8 };
	int rc;

	x->c = x->pristine;
	rc = lat_instr_init(&x->in, &o, &x->c);

	if (rc)
		lat_instr_destroy(&x->in);
	return rc;
}

static void instr_undo(void *ctx)
{
	lat_instr_destroy(&((struct instr *)ctx)->in);
}

static int pipe_op(void *ctx)
{
	struct lat_pipe_result r;
	int rc = lat_pipe_run(ctx, &r);

	lat_pipe_result_destroy(&r);
	return rc;
}

/* The contention sweeps: a run that fails part-way must give back the
 * histograms of the runs before it (the caller gets no result to
 * release). One CPU, 1 ms runs: the set-up paths, not the figures. */
static int share_sweep_op(void *ctx)
{
	static struct lat_mem_share_sweep s;
	static const struct lat_topo topo;
	int rc;

	memset(&s, 0, sizeof(s));
	s.cpu_list[0] = 0;
	s.n_cpus = 1;
	s.rounds = 1;
	s.duration_ns = 1e6;
	rc = lat_mem_share_sweep_run(&s, &topo, ctx, NULL, NULL);

	if (!rc)
		lat_mem_share_sweep_release(&s);
	return rc;
}

static int rm_sweep_op(void *ctx)
{
	static struct lat_mem_rm_sweep s;
	int rc;

	memset(&s, 0, sizeof(s));
	s.threads[0] = 1;
	s.n_threads = 1;
	s.cpu_list[0] = 0;
	s.n_cpus = 1;
	s.rounds = 1;
	s.duration_ns = 1e6;
	s.write_interval_ns = 100e3;
	rc = lat_mem_rm_sweep_run(&s, ctx, NULL, NULL);

	if (!rc)
		lat_mem_rm_sweep_release(&s);
	return rc;
}

int main(void)
{
	static struct v2 v2;
	static struct hlog hl;
	static struct instr ins;
	static struct topo topo;
	struct lat_hist *h = NULL;
	struct lat_spsc *ring = NULL;
	struct lat_flight fl;
	struct lat_qsim_config qc;
	struct lat_pipe_config pc;
	struct lat_clock_cal cal;
	struct dist dist;
	const char *why;
	int fd;

	if (!lat_alloc_available(&why))
		T_SKIP("allocation counting unavailable: %s", why);
	setvbuf(stdout, NULL, _IOLBF, 0);
	inject("hist create", hist_op, hist_undo, &h);
	inject("spsc create", spsc_op, spsc_undo, &ring);
	inject("flight init", flight_op, flight_undo, &fl);

	/* a histogram with data for the decoders and writers */
	T_EQ_I64(lat_hist_create(1, 3600000000000LL, 3, &h), 0);
	for (int i = 1; i <= 5000; i++)
		lat_hist_record(h, i * 37);
	T_EQ_I64(lat_hist_v2_encode_compressed(h, 6, &v2.buf, &v2.len), 0);
	inject("v2 decode", v2_op, v2_undo, &v2);
	free(v2.buf);

	snprintf(hl.path, sizeof(hl.path), "/tmp/latlab-allocfail-XXXXXX");
	fd = mkstemp(hl.path);
	T_CHECK(fd >= 0);
	hl.f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (hl.f) {
		setvbuf(hl.f, NULL, _IONBF, 0);
		hl.h = h;
		inject("hlog write", hlog_write_op, no_undo, &hl);
		fflush(hl.f);
		inject("hlog load", hlog_load_op, hlog_load_undo, &hl);
		fclose(hl.f);
		unlink(hl.path);
	}

	dist.h = h;
	inject("qsim empirical dist", dist_op, dist_undo, &dist);
	lat_qsim_config_init(&qc);
	qc.customers = 20000;
	qc.warmup = 2000;
	qc.rho = 0.5;
	inject("qsim run", qsim_op, no_undo, &qc);
	inject("qsim sweep", sweep_op, no_undo, &qc);
	lat_hist_free(h);

	T_EQ_I64(lat_clock_cal_from_ratio(&cal, 1.0), 0);
	inject("clock read costs", costs_op, no_undo, &cal);
	inject("mem false-sharing sweep", share_sweep_op, no_undo, &cal);
	inject("mem read-mostly sweep", rm_sweep_op, no_undo, &cal);

	T_EQ_I64(lat_topo_load(&topo.want, NULL, NULL), 0);
	inject("topo load", topo_op, no_undo, &topo);
	lat_pipe_config_init(&pc);
	inject("pipe place (topology)", place_op, no_undo, &pc);
	pc.events = 2000;
	pc.calibrate_ms = 10;
	ins.pristine = pc;
	inject("instr init", instr_op, instr_undo, &ins);
	inject("pipe run", pipe_op, no_undo, &pc);
	T_DONE();
}
