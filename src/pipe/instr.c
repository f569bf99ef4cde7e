/*
 * lat_instr: counters and flight recorder on the pipeline's hooks. See
 * include/latlab/instr.h.
 */
#include <errno.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/instr.h"

/* auto: the warm-up is a tenth of the run, within these bounds */
#define WARMUP_MIN LAT_INSTR_WARMUP_MIN
#define WARMUP_MAX 100000

/* Before the start line: the expensive opens (a dozen syscalls). */
static void hook_prepare(void *ctx, int index, enum lat_pipe_role role)
{
	struct lat_instr *in = ctx;
	struct lat_instr_thread *t = &in->thread[index];

	(void)role;
	if (in->opts.counters)
		t->perf_err = lat_perf_open(&t->perf, 0, in->opts.perf_flags);
}

/* The measured run starts: zero everything, as late as possible. */
static void hook_begin(void *ctx, int index, enum lat_pipe_role role)
{
	struct lat_instr *in = ctx;
	struct lat_instr_thread *t = &in->thread[index];

	(void)role;
	if (!in->opts.counters)
		return;
	if (!t->perf_err)
		t->perf_err = lat_perf_start(&t->perf);
	t->alloc_err = lat_alloc_snapshot(&t->alloc_start);
}

static void hook_end(void *ctx, int index, enum lat_pipe_role role)
{
	struct lat_instr *in = ctx;
	struct lat_instr_thread *t = &in->thread[index];

	(void)role;
	if (!in->opts.counters)
		return;
	/* allocations first: reading perf must not count as the run's */
	if (!t->alloc_err)
		t->alloc_err = lat_alloc_since(&t->alloc_start, &t->alloc);
	if (!t->perf_err)
		t->perf_err = lat_perf_read(&t->perf, &t->reading);
	t->ran = true;
}

static bool by_perf(const struct lat_instr_thread *t, enum lat_perf_counter c)
{
	return lat_perf_has(&t->reading, c) &&
	       t->perf.slot[c].source == LAT_PERF_SRC_PERF;
}

void lat_instr_fill_result(const struct lat_instr *in,
			   struct lat_pipe_result *r)
{
	for (int i = 0; i < r->n_hot && i < in->n_hot; i++) {
		const struct lat_instr_thread *t = &in->thread[i];
		struct lat_pipe_thread_result *o = &r->thread[i];

		o->counters_known =
			t->ran && !t->perf_err &&
			lat_perf_has(&t->reading, LAT_PERF_TASK_CLOCK) &&
			lat_perf_has(&t->reading, LAT_PERF_CTX_SWITCHES);
		o->counters_by_perf = o->counters_known &&
				      by_perf(t, LAT_PERF_TASK_CLOCK) &&
				      by_perf(t, LAT_PERF_CTX_SWITCHES);
		o->task_clock_ns = o->counters_known
					   ? t->reading.value[LAT_PERF_TASK_CLOCK]
					   : 0;
		o->switches = o->counters_known
				      ? t->reading.value[LAT_PERF_CTX_SWITCHES]
				      : 0;
	}
}

static uint64_t warmup_of(const struct lat_instr_opts *o, uint64_t events)
{
	uint64_t w = events / 10;

	if (o->warmup)
		return o->warmup;
	return w < WARMUP_MIN ? WARMUP_MIN : w > WARMUP_MAX ? WARMUP_MAX : w;
}

/* On the aggregator, once per recorded sample. */
static void hook_sample(void *ctx, const struct lat_pipe_msg *m,
			const int64_t *delta_ns, int n_deltas)
{
	struct lat_instr *in = ctx;
	uint64_t parts[LAT_FLIGHT_MAX_DELTAS];
	int64_t e2e = delta_ns[n_deltas - 1];
	int nparts = n_deltas - 1;

	if (!in->flight.ring)
		return;
	if (!in->have_origin) {
		in->t0_origin = m->t0;
		in->have_origin = true;
	}
	for (int i = 0; i < nparts && i < LAT_FLIGHT_MAX_DELTAS; i++)
		parts[i] = delta_ns[i] > 0 ? (uint64_t)delta_ns[i] : 0;
	if (e2e < 0)
		e2e = 0;
	lat_flight_push(&in->flight, m->seq,
			lat_clock_to_ns(&in->cal, m->t0 - in->t0_origin),
			parts, (lat_ns_t)e2e);
	if (!in->opts.freeze_auto || in->auto_threshold)
		return;
	lat_hist_record(&in->warm, e2e);
	if (++in->warm_seen < in->opts.warmup)
		return;
	in->auto_threshold = (lat_ns_t)lat_hist_value_at_percentile(&in->warm,
								    99.9);
	if (in->auto_threshold == 0)
		in->auto_threshold = 1;
	lat_flight_arm(&in->flight, in->auto_threshold);
}

int lat_instr_init(struct lat_instr *in, const struct lat_instr_opts *o,
		   struct lat_pipe_config *c)
{
	const char *names[LAT_FLIGHT_MAX_DELTAS];
	char buf[LAT_FLIGHT_MAX_DELTAS][LAT_FLIGHT_NAME_LEN];
	size_t cap;
	int rc;

	if (c->hooks.thread_begin || c->hooks.thread_end || c->hooks.sample ||
	    c->hooks.thread_prepare)
		return -EBUSY; /* @in untouched: it may be the hooks' owner */
	memset(in, 0, sizeof(*in));
	if (o->flight && (!c->stamps || (!o->freeze_auto && !o->freeze_above)))
		return -EINVAL;
	in->opts = *o;
	in->stages = c->stages;
	in->n_hot = lat_pipe_n_hot(c->stages);
	in->n_deltas = lat_pipe_n_deltas(c->stages);
	if (lat_alloc_available(&in->alloc_reason))
		in->alloc_reason = NULL;
	if (o->flight) {
		size_t nparts = (size_t)in->n_deltas - 1;

		cap = o->flight_capacity ? o->flight_capacity :
					   LAT_FLIGHT_DEFAULT_CAPACITY;
		for (size_t i = 0; i < nparts; i++) {
			lat_pipe_delta_name(c->stages, (int)i, buf[i],
					    sizeof(buf[i]));
			names[i] = buf[i];
		}
		rc = lat_flight_init(&in->flight, cap, nparts, names,
				     o->flight_post,
				     o->freeze_auto ? 0 : o->freeze_above);
		if (rc)
			return rc;
		if (o->freeze_auto) {
			in->opts.warmup = warmup_of(o, c->events);
			rc = lat_hist_init(&in->warm, 1, LAT_PIPE_HIST_MAX_NS,
					   LAT_PIPE_HIST_SIG_FIGS);
			if (rc) {
				lat_instr_destroy(in);
				return rc;
			}
		}
		/* t0 only orders the window in time: 20 ms is plenty */
		rc = lat_clock_calibrate(&in->cal, 20);
		if (rc) {
			lat_instr_destroy(in);
			return rc;
		}
	}
	c->hooks.ctx = in;
	c->hooks.thread_prepare = hook_prepare;
	c->hooks.thread_begin = hook_begin;
	c->hooks.thread_end = hook_end;
	c->hooks.sample = hook_sample;
	return 0;
}

void lat_instr_destroy(struct lat_instr *in)
{
	for (int i = 0; i < LAT_PIPE_MAX_HOT; i++)
		lat_perf_close(&in->thread[i].perf);
	lat_flight_destroy(&in->flight);
	lat_hist_destroy(&in->warm);
}

/* Threads whose begin and end hooks ran (all, unless a run aborted). */
#define FOR_EACH_RAN(in, t)                                                  \
	for (const struct lat_instr_thread *t = (in)->thread;                \
	     t < (in)->thread + (in)->n_hot; t++)                            \
		if (t->ran)

static bool thread_has(const struct lat_instr_thread *t,
		       enum lat_perf_counter c)
{
	return !t->perf_err && lat_perf_has(&t->reading, c);
}

bool lat_instr_sum(const struct lat_instr *in, enum lat_perf_counter c,
		   uint64_t *out)
{
	bool any = false;

	*out = 0;
	FOR_EACH_RAN(in, t) {
		if (!thread_has(t, c)) {
			*out = 0;
			return false;
		}
		*out += t->reading.value[c];
		any = true;
	}
	return any;
}

bool lat_instr_allocs(const struct lat_instr *in, uint64_t *out)
{
	bool any = false;

	*out = 0;
	FOR_EACH_RAN(in, t) {
		if (t->alloc_err) {
			*out = 0;
			return false;
		}
		*out += lat_alloc_heap_calls(&t->alloc);
		any = true;
	}
	return any;
}

double lat_instr_ipc(const struct lat_instr *in)
{
	uint64_t cycles, instructions;

	if (!lat_instr_sum(in, LAT_PERF_CYCLES, &cycles) ||
	    !lat_instr_sum(in, LAT_PERF_INSTRUCTIONS, &instructions) ||
	    cycles == 0)
		return -1.0;
	return (double)instructions / (double)cycles;
}

const char *lat_instr_reason(const struct lat_instr *in,
			     enum lat_perf_counter c)
{
	if (!in->opts.counters)
		return "counters were not requested";
	FOR_EACH_RAN(in, t) {
		if (t->perf_err)
			return lat_strerror(t->perf_err);
		if (!lat_perf_has(&t->reading, c))
			return lat_perf_reason(&t->perf, c)[0] ?
				       lat_perf_reason(&t->perf, c) :
				       "read failed";
	}
	return NULL;
}

/* The counters the table shows as columns, in order. */
static const enum lat_perf_counter shown[] = {
	LAT_PERF_TASK_CLOCK, LAT_PERF_CTX_SWITCHES, LAT_PERF_MIGRATIONS,
	LAT_PERF_MINOR_FAULTS, LAT_PERF_MAJOR_FAULTS, LAT_PERF_RUN_DELAY,
};
#define N_SHOWN (sizeof(shown) / sizeof(shown[0]))

static const char *const shown_head[N_SHOWN] = {
	"task-clock", "ctx-sw", "migr", "min-flt", "maj-flt", "run-delay",
};

static bool is_time(enum lat_perf_counter c)
{
	return c == LAT_PERF_TASK_CLOCK || c == LAT_PERF_RUN_DELAY;
}

static void put_value(FILE *out, const struct lat_instr_thread *t,
		      enum lat_perf_counter c, int width)
{
	char buf[LAT_FMT_LEN];

	if (!thread_has(t, c))
		snprintf(buf, sizeof(buf), "n/a");
	else if (is_time(c))
		lat_fmt_ns(buf, sizeof(buf), (double)t->reading.value[c]);
	else
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)t->reading.value[c]);
	lat_fmt_pad(out, buf, width);
}

/*
 * One line per distinct reason: "label: a, b, c: reason". @what says for
 * each counter (and allocations, index LAT_PERF_NCOUNTERS) whether it
 * belongs to this list and with which reason.
 */
static void print_grouped(FILE *out, const char *label,
			  const char *const *reason, const char *const *name,
			  int n)
{
	bool done[LAT_PERF_NCOUNTERS + 1] = { false };

	for (int i = 0; i < n; i++) {
		if (!reason[i] || done[i])
			continue;
		fprintf(out, "%s %s", label, name[i]);
		for (int k = i + 1; k < n; k++)
			if (reason[k] && !done[k] &&
			    !strcmp(reason[k], reason[i])) {
				fprintf(out, ", %s", name[k]);
				done[k] = true;
			}
		fprintf(out, ": %s\n", reason[i]);
	}
}

static void print_notes(FILE *out, const struct lat_instr *in)
{
	const char *na[LAT_PERF_NCOUNTERS + 1] = { NULL };
	const char *proc[LAT_PERF_NCOUNTERS + 1] = { NULL };
	const char *name[LAT_PERF_NCOUNTERS + 1];
	const struct lat_instr_thread *t0 = NULL;

	FOR_EACH_RAN(in, t) {
		t0 = t;
		break;
	}
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
		name[c] = lat_perf_name(c);
		na[c] = lat_instr_reason(in, c);
		if (!na[c] && t0 && !t0->perf_err &&
		    t0->perf.slot[c].source == LAT_PERF_SRC_PROC &&
		    lat_perf_reason(&t0->perf, c)[0])
			proc[c] = lat_perf_reason(&t0->perf, c);
	}
	name[LAT_PERF_NCOUNTERS] = "allocations";
	na[LAT_PERF_NCOUNTERS] = in->alloc_reason;
	print_grouped(out, "n/a:", na, name, LAT_PERF_NCOUNTERS + 1);
	print_grouped(out, "from /proc:", proc, name, LAT_PERF_NCOUNTERS);
}

int lat_instr_print_counters(FILE *out, const struct lat_instr *in,
			     const struct lat_pipe_result *r)
{
	char buf[LAT_FMT_LEN];
	bool hw_cache = !lat_instr_reason(in, LAT_PERF_CACHE_MISSES);

	if (!in->opts.counters)
		return 0;
	fprintf(out, "\ncounters per hot thread (its measured run only):\n");
	fprintf(out, "%-10s %4s", "thread", "cpu");
	for (size_t k = 0; k < N_SHOWN; k++)
		lat_fmt_pad(out, shown_head[k], 11);
	lat_fmt_pad(out, "allocs", 10);
	lat_fmt_pad(out, "IPC", 6);
	if (hw_cache) {
		lat_fmt_pad(out, "cache-miss", 11);
		lat_fmt_pad(out, "llc-miss", 11);
	}
	fputc('\n', out);
	for (int i = 0; i < in->n_hot && i < r->n_hot; i++) {
		const struct lat_instr_thread *t = &in->thread[i];
		double ipc;

		if (!t->ran)
			continue;
		fprintf(out, "%-10s ", r->thread[i].name);
		if (r->thread[i].cpu >= 0)
			fprintf(out, "%4d", r->thread[i].cpu);
		else
			fprintf(out, "%4s", "-");
		for (size_t k = 0; k < N_SHOWN; k++)
			put_value(out, t, shown[k], 11);
		if (t->alloc_err)
			snprintf(buf, sizeof(buf), "n/a");
		else
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)
				 lat_alloc_heap_calls(&t->alloc));
		lat_fmt_pad(out, buf, 10);
		ipc = t->perf_err ? -1 : lat_perf_ipc(&t->reading);
		if (ipc < 0)
			snprintf(buf, sizeof(buf), "n/a");
		else
			snprintf(buf, sizeof(buf), "%.2f", ipc);
		lat_fmt_pad(out, buf, 6);
		if (hw_cache) {
			put_value(out, t, LAT_PERF_CACHE_MISSES, 11);
			put_value(out, t, LAT_PERF_LLC_MISSES, 11);
		}
		fputc('\n', out);
	}
	print_notes(out, in);
	return ferror(out) ? -EIO : 0;
}

/*
 * JSON keys: snake_case with the unit, as every other latlab JSON
 * (latlab lab says ctx_switches and run_delay_ns); perf's own names
 * ("task-clock") stay in the tables people read.
 */
static const char *const json_key[LAT_PERF_NCOUNTERS] = {
	[LAT_PERF_TASK_CLOCK] = "task_clock_ns",
	[LAT_PERF_CTX_SWITCHES] = "ctx_switches",
	[LAT_PERF_MIGRATIONS] = "migrations",
	[LAT_PERF_MINOR_FAULTS] = "minor_faults",
	[LAT_PERF_MAJOR_FAULTS] = "major_faults",
	[LAT_PERF_RUN_DELAY] = "run_delay_ns",
	[LAT_PERF_CYCLES] = "cycles",
	[LAT_PERF_INSTRUCTIONS] = "instructions",
	[LAT_PERF_CACHE_MISSES] = "cache_misses",
	[LAT_PERF_LLC_MISSES] = "llc_misses",
};

static void json_counter(struct lat_json *j, const struct lat_instr_thread *t,
			 enum lat_perf_counter c)
{
	lat_json_uint_if(j, json_key[c], thread_has(t, c), t->reading.value[c]);
}

void lat_instr_write_json(struct lat_json *j, struct lat_instr *in,
			  const struct lat_pipe_result *r)
{
	if (in->opts.counters) {
		lat_json_arr_begin(j, "threads_counters");
		for (int i = 0; i < in->n_hot && i < r->n_hot; i++) {
			const struct lat_instr_thread *t = &in->thread[i];
			double ipc = t->perf_err ? -1 :
					 lat_perf_ipc(&t->reading);

			if (!t->ran)
				continue;
			lat_json_obj_begin(j, NULL);
			lat_json_str(j, "name", r->thread[i].name);
			lat_json_int(j, "index", i);
			for (int c = 0; c < LAT_PERF_NCOUNTERS; c++)
				json_counter(j, t, c);
			lat_json_uint_if(j, "allocations", !t->alloc_err,
					 lat_alloc_heap_calls(&t->alloc));
			lat_json_uint_if(j, "alloc_bytes", !t->alloc_err,
					 t->alloc.bytes);
			lat_json_uint_if(j, "frees", !t->alloc_err,
					 t->alloc.frees);
			lat_json_double_if(j, "ipc", ipc >= 0, ipc);
			lat_json_obj_end(j);
		}
		lat_json_arr_end(j);
		lat_json_obj_begin(j, "counters_unavailable");
		for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
			const char *why = lat_instr_reason(in, c);

			if (why)
				lat_json_str(j, json_key[c], why);
		}
		if (in->alloc_reason)
			lat_json_str(j, "allocations", in->alloc_reason);
		lat_json_obj_end(j);
	}
	if (in->flight.ring) {
		lat_flight_json(&in->flight, j, "flight");
		if (in->opts.freeze_auto)
			lat_json_uint(j, "flight_auto_threshold_ns",
				      in->auto_threshold);
	}
}
