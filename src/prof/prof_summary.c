/*
 * The profile's summary (what `latlab profile` prints): the threads and
 * the hottest functions on CPU, the same off CPU by time and reason, as
 * a table on a FILE * or into a JSON writer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/prof.h"

struct tally {
	char *name;
	uint64_t w;
};

static int cmp_tally(const void *x, const void *y)
{
	const struct tally *a = x, *b = y;

	return a->w < b->w ? 1 : a->w > b->w ? -1 : strcmp(a->name, b->name);
}

/* The weight of each distinct frame at @depth (0: the root, 1: the frame
 * above it), or of each distinct leaf (LEAF), or of the deepest user
 * frame (USER_LEAF: where an off-CPU wait left user space); heaviest
 * first. */
enum { LEAF = -1, USER_LEAF = -2 };

static int tally_frames(const struct lat_prof_folded *f, int depth,
			struct tally **out, size_t *count)
{
	struct lat_prof_folded by;
	struct tally *t;
	size_t n;
	int rc;

	lat_prof_folded_init(&by);
	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->v[i].frames;
		char *name;

		if (depth == USER_LEAF) {
			/* the last frame without the kernel's _[k] */
			const char *u = s;

			for (const char *q = s; q; q = strchr(q, ';')) {
				size_t len;

				q += *q == ';';
				len = strcspn(q, ";");
				if (len < 4 || strncmp(q + len - 4, "_[k]", 4))
					u = q;
			}
			s = u;
		} else if (depth == LEAF) {
			const char *semi = strrchr(s, ';');

			s = semi ? semi + 1 : s;
		} else {
			for (int d = 0; d < depth && strchr(s, ';'); d++)
				s = strchr(s, ';') + 1;
		}
		name = strndup(s, strcspn(s, ";"));
		rc = name ? lat_prof_folded_add(&by, name, f->v[i].weight)
			  : -ENOMEM;
		free(name);
		if (rc) {
			lat_prof_folded_release(&by);
			return rc;
		}
	}
	t = calloc(by.n ? by.n : 1, sizeof(*t));
	if (!t) {
		lat_prof_folded_release(&by);
		return -ENOMEM;
	}
	for (size_t i = 0; i < by.n; i++) {
		t[i].name = by.v[i].frames;
		t[i].w = by.v[i].weight;
		by.v[i].frames = NULL;
	}
	n = by.n;
	by.n = 0;
	lat_prof_folded_release(&by);
	qsort(t, n, sizeof(*t), cmp_tally);
	*out = t;
	*count = n;
	return 0;
}

static void free_tally(struct tally *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].name);
	free(t);
}

static int print_tally(FILE *out, const char *head,
		       const struct lat_prof_folded *f, int depth, bool ns,
		       size_t max)
{
	struct tally *t;
	size_t n;
	char b[LAT_FMT_LEN];
	int rc = tally_frames(f, depth, &t, &n);

	if (rc)
		return rc;
	fprintf(out, "%s\n", head);
	for (size_t i = 0; i < n && i < max; i++) {
		if (ns)
			fprintf(out, "  %6.2f%%  %9s  %s\n",
				100.0 * (double)t[i].w / (double)f->total,
				lat_fmt_ns(b, sizeof(b), (double)t[i].w),
				t[i].name);
		else
			fprintf(out, "  %6.2f%%  %9" PRIu64 "  %s\n",
				100.0 * (double)t[i].w / (double)f->total,
				t[i].w, t[i].name);
	}
	if (n > max)
		fprintf(out, "  ... %zu more\n", n - max);
	free_tally(t, n);
	return 0;
}

int lat_prof_print(FILE *out, pid_t pid, const struct lat_prof_stats *st,
		   const struct lat_prof_folded *on,
		   const struct lat_prof_folded *off, bool offcpu,
		   double wall_s)
{
	char b[LAT_FMT_LEN];
	int rc = 0;

	fprintf(out, "latlab profile: pid %d, %d thread(s), %.2f s, %.0f Hz "
		"%s%s%s\n", (int)pid, st->threads, wall_s, st->freq_hz,
		st->hardware ? "cycles" : "cpu-clock",
		st->event_note[0] ? " -- " : "", st->event_note);
	fprintf(out, "samples %" PRIu64 ", lost %" PRIu64 ", truncated "
		"stacks %" PRIu64 ", throttled %" PRIu64 "\n",
		st->samples, st->lost, st->truncated, st->throttled);
	fprintf(out, "kernel frames: %s\n",
		st->kernel ? "yes" : st->kernel_note);
	if (*lat_prof_symbols_note())
		fprintf(out, "symbols: %s\n", lat_prof_symbols_note());
	if (on->total) {
		fprintf(out, "\n");
		rc = print_tally(out, "on CPU, threads (samples):", on, 0,
				 false, 20);
		fprintf(out, "\n");
		if (!rc)
			rc = print_tally(out, "on CPU, hottest functions "
					 "(self):", on, LEAF, false, 15);
	} else {
		fprintf(out, "no samples: the target did not run on a CPU "
			"while sampled\n");
	}
	if (!offcpu || rc)
		return rc;
	fprintf(out, "\n");
	if (!st->offcpu) {
		fprintf(out, "off CPU: %s\n", st->offcpu_note);
		return 0;
	}
	fprintf(out, "off CPU (eBPF sched_switch): %s in all; %" PRIu64
		" interval(s) still open at the end, %" PRIu64 " without a "
		"stack, %" PRIu64 " dropped\n",
		lat_fmt_ns(b, sizeof(b), (double)st->offcpu_ns),
		st->offcpu_open, st->offcpu_stack_errors, st->offcpu_dropped);
	if (!off->total)
		return 0;
	rc = print_tally(out, "off CPU, threads:", off, 0, true, 20);
	fprintf(out, "\n");
	if (!rc)
		rc = print_tally(out, "off CPU, why:", off, 1, true, 3);
	fprintf(out, "\n");
	if (!rc)
		rc = print_tally(out, "off CPU, where it left user space:", off,
				 USER_LEAF, true, 10);
	return rc;
}

static int json_tally(struct lat_json *j, const char *key,
		      const struct lat_prof_folded *f, int depth,
		      const char *wkey, size_t max)
{
	struct tally *t;
	size_t n;
	int rc = tally_frames(f, depth, &t, &n);

	if (rc)
		return rc;
	lat_json_arr_begin(j, key);
	for (size_t i = 0; i < n && i < max; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "frame", t[i].name);
		lat_json_uint(j, wkey, t[i].w);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	free_tally(t, n);
	return 0;
}

int lat_prof_json(struct lat_json *j, pid_t pid,
		  const struct lat_prof_stats *st,
		  const struct lat_prof_folded *on,
		  const struct lat_prof_folded *off, bool offcpu,
		  double wall_s)
{
	int rc;

	lat_json_obj_begin(j, NULL);
	lat_json_int(j, "pid", pid);
	lat_json_int(j, "threads", st->threads);
	lat_json_double(j, "wall_s", wall_s);
	lat_json_double(j, "freq_hz", st->freq_hz);
	lat_json_str(j, "event", st->hardware ? "cycles" : "cpu-clock");
	lat_json_str(j, "event_note", st->event_note);
	lat_json_uint(j, "samples", st->samples);
	lat_json_uint(j, "lost", st->lost);
	lat_json_uint(j, "truncated", st->truncated);
	lat_json_uint(j, "throttled", st->throttled);
	lat_json_bool(j, "kernel_frames", st->kernel);
	lat_json_str(j, "kernel_note", st->kernel_note);
	lat_json_str(j, "symbols_note", lat_prof_symbols_note());
	lat_json_uint(j, "reader_cpu_ns", st->reader_cpu_ns);
	lat_json_uint(j, "stacks", on->n);
	rc = json_tally(j, "threads", on, 0, "samples", 100);
	if (!rc)
		rc = json_tally(j, "hottest", on, LEAF, "self", 20);
	lat_json_obj_begin(j, "offcpu");
	lat_json_bool(j, "asked", offcpu);
	lat_json_bool(j, "traced", st->offcpu);
	lat_json_str(j, "note", st->offcpu_note);
	lat_json_uint(j, "total_ns", st->offcpu_ns);
	lat_json_uint(j, "open_intervals", st->offcpu_open);
	lat_json_uint(j, "without_stack", st->offcpu_stack_errors);
	lat_json_uint(j, "dropped", st->offcpu_dropped);
	if (!rc)
		rc = json_tally(j, "threads", off, 0, "ns", 100);
	if (!rc)
		rc = json_tally(j, "reasons", off, 1, "ns", 3);
	if (!rc)
		rc = json_tally(j, "waits", off, USER_LEAF, "ns", 20);
	lat_json_obj_end(j);
	lat_json_obj_end(j);
	return rc;
}
