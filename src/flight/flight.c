/*
 * lat_flight: the flight recorder. See include/latlab/flight.h.
 *
 * Ring layout: sample k (k-th pushed, 0-based) lives at slot k % capacity,
 * as stride words: seq, t0_ns, e2e_ns, delta[0..ndeltas).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/flight.h"
#include "latlab/fmt.h"
#include "latlab/stats.h"

enum { W_SEQ, W_T0, W_E2E, W_DELTAS };

const char *lat_flight_state_name(enum lat_flight_state s)
{
	switch (s) {
	case LAT_FLIGHT_RECORDING:
		return "recording";
	case LAT_FLIGHT_TRIGGERED:
		return "triggered";
	case LAT_FLIGHT_FROZEN:
		return "frozen";
	}
	return "unknown";
}

int lat_flight_init(struct lat_flight *f, size_t capacity, size_t ndeltas,
		    const char *const *names, size_t post,
		    lat_ns_t threshold_ns)
{
	memset(f, 0, sizeof(*f));
	if (capacity < 2 || ndeltas < 1 || ndeltas > LAT_FLIGHT_MAX_DELTAS ||
	    post >= capacity || !names ||
	    capacity > SIZE_MAX / 8 / (W_DELTAS + ndeltas))
		return -EINVAL;
	for (size_t i = 0; i < ndeltas; i++)
		if (!names[i])
			return -EINVAL;
	f->capacity = capacity;
	f->ndeltas = ndeltas;
	f->stride = W_DELTAS + ndeltas;
	f->post = post;
	f->threshold_ns = threshold_ns;
	f->ring = calloc(capacity * f->stride, sizeof(uint64_t));
	f->scratch = calloc(capacity, sizeof(uint64_t));
	if (!f->ring || !f->scratch) {
		lat_flight_destroy(f);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ndeltas; i++)
		snprintf(f->names[i], LAT_FLIGHT_NAME_LEN, "%s", names[i]);
	return 0;
}

void lat_flight_destroy(struct lat_flight *f)
{
	free(f->ring);
	free(f->scratch);
	f->ring = NULL;
	f->scratch = NULL;
	f->capacity = 0;
	f->seen = 0;
}

int lat_flight_arm(struct lat_flight *f, lat_ns_t threshold_ns)
{
	if (f->state != LAT_FLIGHT_RECORDING)
		return -EBUSY;
	f->threshold_ns = threshold_ns;
	return 0;
}

bool lat_flight_push(struct lat_flight *f, uint64_t seq, lat_ns_t t0_ns,
		     const uint64_t *deltas_ns, lat_ns_t e2e_ns)
{
	uint64_t *s;

	if (f->state == LAT_FLIGHT_FROZEN) {
		f->after_freeze++;
		return true;
	}
	s = f->ring + (f->seen % f->capacity) * f->stride;
	s[W_SEQ] = seq;
	s[W_T0] = t0_ns;
	s[W_E2E] = e2e_ns;
	memcpy(s + W_DELTAS, deltas_ns, f->ndeltas * sizeof(uint64_t));
	f->seen++;
	if (f->state == LAT_FLIGHT_RECORDING) {
		if (f->threshold_ns == 0 || e2e_ns <= f->threshold_ns)
			return false;
		f->state = LAT_FLIGHT_TRIGGERED;
		f->trigger_at = f->seen - 1;
		f->post_left = f->post;
	} else if (f->post_left > 0) {
		f->post_left--;
	}
	if (f->post_left == 0)
		f->state = LAT_FLIGHT_FROZEN;
	return f->state == LAT_FLIGHT_FROZEN;
}

size_t lat_flight_count(const struct lat_flight *f)
{
	return f->seen < f->capacity ? (size_t)f->seen : f->capacity;
}

static uint64_t window_first(const struct lat_flight *f)
{
	return f->seen - lat_flight_count(f);
}

long lat_flight_trigger_index(const struct lat_flight *f)
{
	if (f->state == LAT_FLIGHT_RECORDING)
		return -1;
	return (long)(f->trigger_at - window_first(f));
}

static const uint64_t *slot_of(const struct lat_flight *f, size_t i)
{
	return f->ring + ((window_first(f) + i) % f->capacity) * f->stride;
}

int lat_flight_get(const struct lat_flight *f, size_t i,
		   struct lat_flight_rec *rec)
{
	const uint64_t *s;

	if (i >= lat_flight_count(f))
		return -ERANGE;
	s = slot_of(f, i);
	rec->seq = s[W_SEQ];
	rec->t0_ns = s[W_T0];
	rec->e2e_ns = s[W_E2E];
	rec->delta_ns = s + W_DELTAS;
	rec->trigger = (long)i == lat_flight_trigger_index(f);
	return 0;
}

/* Column c of a sample: deltas first, then e2e at c == ndeltas. */
static uint64_t cell(const struct lat_flight *f, const uint64_t *s, size_t c)
{
	return c < f->ndeltas ? s[W_DELTAS + c] : s[W_E2E];
}

static bool is_slow(uint64_t v, lat_ns_t median)
{
	return v >= (uint64_t)LAT_FLIGHT_SLOW_FACTOR * median &&
	       v >= median + LAT_FLIGHT_SLOW_MIN_NS;
}

size_t lat_flight_analyze(struct lat_flight *f, struct lat_flight_col *cols)
{
	size_t n = lat_flight_count(f), ncols = f->ndeltas + 1;
	long trig = lat_flight_trigger_index(f);

	for (size_t c = 0; c < ncols; c++) {
		struct lat_flight_col *col = &cols[c];
		size_t run = 0;

		memset(col, 0, sizeof(*col));
		col->name = c < f->ndeltas ? f->names[c] : "e2e";
		if (n == 0)
			continue;
		for (size_t i = 0; i < n; i++)
			f->scratch[i] = cell(f, slot_of(f, i), c);
		qsort(f->scratch, n, sizeof(uint64_t), lat_cmp_u64);
		col->median_ns = f->scratch[n / 2];
		if (trig >= 0) {
			col->at_trigger_ns = cell(f, slot_of(f, (size_t)trig),
						  c);
			col->slow_at_trigger = is_slow(col->at_trigger_ns,
						       col->median_ns);
			for (size_t i = (size_t)trig + 1; i < n &&
			     is_slow(cell(f, slot_of(f, i), c), col->median_ns);
			     i++)
				col->after_trigger++;
		}
		for (size_t i = 0; i < n; i++) {
			const uint64_t *s = slot_of(f, i);

			if (!is_slow(cell(f, s, c), col->median_ns)) {
				run = 0;
				continue;
			}
			col->slow++;
			if (++run > col->longest_run) {
				col->longest_run = run;
				col->run_first_seq =
					slot_of(f, i + 1 - run)[W_SEQ];
			}
		}
	}
	return ncols;
}

static void fmt_signed_ns(char *buf, size_t len, lat_ns_t t, lat_ns_t origin)
{
	char mag[LAT_FMT_LEN];

	if (t >= origin) {
		lat_fmt_ns(mag, sizeof(mag), (double)(t - origin));
		snprintf(buf, len, "%s%s", t > origin ? "+" : "", mag);
	} else {
		lat_fmt_ns(mag, sizeof(mag), (double)(origin - t));
		snprintf(buf, len, "-%s", mag);
	}
}

enum { COL_WIDTH = 10 };

static int col_width(const char *name)
{
	int w = lat_fmt_width(name);

	return (w > COL_WIDTH ? w : COL_WIDTH) + 1; /* +1 for the star */
}

static void print_header_row(const struct lat_flight *f, FILE *out,
			     const struct lat_flight_col *cols)
{
	fprintf(out, "%12s %11s", "seq", "t-trigger");
	for (size_t c = 0; c <= f->ndeltas; c++) {
		fputc(' ', out);
		lat_fmt_pad(out, cols[c].name, col_width(cols[c].name));
	}
	fputc('\n', out);
}

static void print_row(const struct lat_flight *f, FILE *out,
		      const struct lat_flight_col *cols, const uint64_t *s,
		      lat_ns_t origin, bool trigger)
{
	char buf[LAT_FMT_LEN + 2];

	fprintf(out, "%12llu ", (unsigned long long)s[W_SEQ]);
	fmt_signed_ns(buf, sizeof(buf), s[W_T0], origin);
	lat_fmt_pad(out, buf, 11);
	for (size_t c = 0; c <= f->ndeltas; c++) {
		uint64_t v = cell(f, s, c);

		lat_fmt_ns(buf, LAT_FMT_LEN, (double)v);
		if (is_slow(v, cols[c].median_ns))
			strcat(buf, "*");
		else
			strcat(buf, " ");
		fputc(' ', out);
		lat_fmt_pad(out, buf, col_width(cols[c].name) + 1);
	}
	fputs(trigger ? "  <- trigger\n" : "\n", out);
}

/* Where the trigger's time went, and how slow cells are spread, in words. */
static void print_findings(const struct lat_flight *f, FILE *out,
			   const struct lat_flight_col *cols)
{
	long trig = lat_flight_trigger_index(f);
	size_t after = trig >= 0 ? lat_flight_count(f) - 1 - (size_t)trig : 0;
	char a[LAT_FMT_LEN];
	uint64_t excess_total = 0;

	for (size_t c = 0; c < f->ndeltas; c++)
		if (cols[c].at_trigger_ns > cols[c].median_ns)
			excess_total += cols[c].at_trigger_ns -
					cols[c].median_ns;
	if (trig >= 0 && excess_total > 0) {
		fprintf(out, "# trigger's excess over each stage's median:");
		for (size_t c = 0; c < f->ndeltas; c++) {
			uint64_t ex;

			if (cols[c].at_trigger_ns <= cols[c].median_ns)
				continue;
			ex = cols[c].at_trigger_ns - cols[c].median_ns;
			if (ex * 20 < excess_total)
				continue; /* under 5%: noise */
			lat_fmt_ns(a, sizeof(a), (double)ex);
			fprintf(out, " %s +%s (%.0f%%)", cols[c].name, a,
				100.0 * (double)ex / (double)excess_total);
		}
		fputc('\n', out);
	}
	for (size_t c = 0; c < f->ndeltas; c++) {
		const struct lat_flight_col *k = &cols[c];

		if (!k->slow)
			continue;
		lat_fmt_ns(a, sizeof(a), (double)k->median_ns);
		fprintf(out, "# %s: ", k->name);
		if (k->after_trigger)
			fprintf(out, "slow in the %zu samples right after the "
				"trigger%s: events queued behind it; ",
				k->after_trigger,
				k->after_trigger == after ? " (all kept)" : "");
		else if (k->slow_at_trigger)
			fprintf(out, "slow at the trigger only: one slow "
				"event, no backlog; ");
		fprintf(out, "%zu slow in the window (>= %dx median %s), "
			"longest run %zu from seq %llu\n", k->slow,
			LAT_FLIGHT_SLOW_FACTOR, a, k->longest_run,
			(unsigned long long)k->run_first_seq);
	}
}

int lat_flight_dump_table(struct lat_flight *f, FILE *out, size_t before)
{
	struct lat_flight_col cols[LAT_FLIGHT_MAX_DELTAS + 1];
	size_t n = lat_flight_count(f), from = 0;
	long trig = lat_flight_trigger_index(f);
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN];
	lat_ns_t origin = 0;

	lat_flight_analyze(f, cols);
	if (trig >= 0) {
		origin = slot_of(f, (size_t)trig)[W_T0];
		lat_fmt_ns(a, sizeof(a),
			   (double)cols[f->ndeltas].at_trigger_ns);
		lat_fmt_ns(b, sizeof(b), (double)f->threshold_ns);
		fprintf(out, "# flight recorder %s on seq %llu: e2e %s > "
			"threshold %s; %zu samples after it\n",
			lat_flight_state_name(f->state),
			(unsigned long long)slot_of(f, (size_t)trig)[W_SEQ],
			a, b, n - 1 - (size_t)trig);
		if (before != SIZE_MAX && (size_t)trig > before)
			from = (size_t)trig - before;
	} else {
		fprintf(out, "# flight recorder never triggered: showing the "
			"last %zu samples\n", n);
		if (before != SIZE_MAX && n > before)
			from = n - before;
		if (n)
			origin = slot_of(f, n - 1)[W_T0];
	}
	fprintf(out, "# window: %zu of %llu samples seen (%zu shown), %llu "
		"refused after freezing; * = slow cell\n", n,
		(unsigned long long)f->seen, n - from,
		(unsigned long long)f->after_freeze);
	print_header_row(f, out, cols);
	for (size_t i = from; i < n; i++)
		print_row(f, out, cols, slot_of(f, i), origin,
			  (long)i == trig);
	print_findings(f, out, cols);
	return ferror(out) ? -EIO : 0;
}

int lat_flight_dump_csv(struct lat_flight *f, FILE *out)
{
	struct lat_flight_col cols[LAT_FLIGHT_MAX_DELTAS + 1];
	size_t n = lat_flight_count(f);
	long trig = lat_flight_trigger_index(f);

	lat_flight_analyze(f, cols);
	fprintf(out, "seq,t0_ns");
	for (size_t c = 0; c < f->ndeltas; c++)
		fprintf(out, ",%s", f->names[c]);
	fprintf(out, ",e2e_ns,mark\n");
	for (size_t i = 0; i < n; i++) {
		const uint64_t *s = slot_of(f, i);
		bool any = false;

		fprintf(out, "%llu,%llu", (unsigned long long)s[W_SEQ],
			(unsigned long long)s[W_T0]);
		for (size_t c = 0; c <= f->ndeltas; c++)
			fprintf(out, ",%llu",
				(unsigned long long)cell(f, s, c));
		fputc(',', out);
		if ((long)i == trig)
			fputs("trigger", out);
		for (size_t c = 0; c < f->ndeltas; c++) {
			if (!is_slow(cell(f, s, c), cols[c].median_ns))
				continue;
			fprintf(out, "%s%s", any ? "|" :
				((long)i == trig ? " slow:" : "slow:"),
				f->names[c]);
			any = true;
		}
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

void lat_flight_json(struct lat_flight *f, struct lat_json *j,
		     const char *key)
{
	struct lat_flight_col cols[LAT_FLIGHT_MAX_DELTAS + 1];
	size_t ncols = lat_flight_analyze(f, cols);
	long trig = lat_flight_trigger_index(f);

	lat_json_obj_begin(j, key);
	lat_json_str(j, "state", lat_flight_state_name(f->state));
	lat_json_uint(j, "threshold_ns", f->threshold_ns);
	lat_json_uint(j, "capacity", f->capacity);
	lat_json_uint(j, "post", f->post);
	lat_json_uint(j, "seen", f->seen);
	lat_json_uint(j, "window", lat_flight_count(f));
	lat_json_uint(j, "after_freeze", f->after_freeze);
	if (trig >= 0) {
		const uint64_t *s = slot_of(f, (size_t)trig);

		lat_json_obj_begin(j, "trigger");
		lat_json_uint(j, "seq", s[W_SEQ]);
		lat_json_uint(j, "e2e_ns", s[W_E2E]);
		lat_json_uint(j, "index", (uint64_t)trig);
		lat_json_obj_end(j);
	} else {
		lat_json_null(j, "trigger");
	}
	lat_json_arr_begin(j, "columns");
	for (size_t c = 0; c < ncols; c++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "name", cols[c].name);
		lat_json_uint(j, "median_ns", cols[c].median_ns);
		lat_json_uint(j, "at_trigger_ns", cols[c].at_trigger_ns);
		lat_json_uint(j, "slow", cols[c].slow);
		lat_json_uint(j, "longest_run", cols[c].longest_run);
		lat_json_uint(j, "run_first_seq", cols[c].run_first_seq);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_obj_end(j);
}
