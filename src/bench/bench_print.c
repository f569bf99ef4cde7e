/*
 * The suite's figures for people and for scripts (what `latlab bench`
 * prints), with what they mean: the dead-code verdict, the floors, the
 * handoffs against them.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>

#include "latlab/bench.h"
#include "latlab/fmt.h"
#include "latlab/json.h"

static void print_figure(FILE *out, const struct lat_bench_figure *f)
{
	char med[LAT_FMT_LEN], lo[LAT_FMT_LEN], hi[LAT_FMT_LEN];

	if (!f->measured) {
		fprintf(out, "  %-34s skipped: needs two CPUs\n", f->label);
		return;
	}
	if (!f->plausible) {
		fprintf(out, "  %-34s IMPLAUSIBLE (below the physical floor: a "
			     "harness bug, not a result)\n", f->label);
		return;
	}
	if (f->rate) {
		lat_fmt_rate(med, sizeof(med), f->st.median);
		lat_fmt_rate(lo, sizeof(lo), f->st.min);
		lat_fmt_rate(hi, sizeof(hi), f->st.max);
	} else {
		lat_fmt_ns(med, sizeof(med), f->st.median);
		lat_fmt_ns(lo, sizeof(lo), f->st.min);
		lat_fmt_ns(hi, sizeof(hi), f->st.max);
	}
	fprintf(out, "  %-34s %11s  (min %s, max %s)\n", f->label, med, lo,
		hi);
}

static void json_figure(struct lat_json *j, const struct lat_bench_figure *f)
{
	lat_json_obj_begin(j, f->key);
	lat_json_str(j, "label", f->label);
	lat_json_str(j, "unit", f->rate ? "messages/s" : "ns");
	lat_json_bool(j, "measured", f->measured);
	lat_json_bool(j, "plausible", f->plausible);
	if (f->measured && f->plausible) {
		lat_json_double(j, "median", f->st.median);
		lat_json_double(j, "min", f->st.min);
		lat_json_double(j, "max", f->st.max);
		lat_json_int(j, "reps", f->st.reps);
	}
	lat_json_obj_end(j);
}

/* The sentence under the DCE pair, derived from the two figures. */
void lat_bench_dce_verdict(const struct lat_bench_suite *s, char *buf,
			   size_t len)
{
	const struct lat_bench_figure *dead = &s->fig[LAT_BENCH_DCE_UNUSED];
	const struct lat_bench_figure *kept = &s->fig[LAT_BENCH_DCE_KEPT];
	char d[LAT_FMT_LEN], k[LAT_FMT_LEN];

	lat_fmt_ns(d, sizeof(d), dead->st.median);
	lat_fmt_ns(k, sizeof(k), kept->st.median);
	if (dead->st.median < kept->st.median / 10) /* loop_deleted */
		snprintf(buf, len, "the compiler deleted the loop whose "
			 "result is unused: %s/op times nothing at all; the "
			 "barrier (an empty asm that claims to read the "
			 "value) keeps the same work alive at %s/op.", d, k);
	else
		snprintf(buf, len, "this build kept the unused loop (%s/op vs "
			 "%s/op; unoptimized?): with -O2 it would time "
			 "nothing.", d, k);
}

/*
 * The floor each latency-ring hand-off is judged by, and why it is not
 * the one-line floor. A hand-off timed as a round trip through two rings
 * moves a line each way: its floor is the two-line floor (8 B). A 64-byte
 * message plus its "full" mark do not fit one line: its floor moves a
 * payload line and a mark line each way (the 64-byte floor). The
 * one-line floor bounces one line that each side reads and then writes,
 * which the cache protocol can hand over writable at once; no pair of
 * one-way channels can do that, and the two-line floor's own ratio to it
 * (1.5x and more when the two vCPUs sit near each other, docs/ring.md)
 * is printed so the reader can see it.
 */
static bool honest_floors(const struct lat_bench_figure *f)
{
	return f[LAT_BENCH_FLOOR].measured && f[LAT_BENCH_FLOOR].st.median > 0 &&
	       f[LAT_BENCH_FLOOR2].st.median > 0 &&
	       f[LAT_BENCH_FLOOR64].st.median > 0;
}

/* The limit the issue set for a hand-off over its floor. */
#define HONEST_FLOOR_LIMIT 1.5

/* True when the five figures of the verdict are plausible: a time-sliced
 * run (a loaded machine) gives ratios of scheduler slices, no verdict. */
static bool honest_plausible(const struct lat_bench_figure *f)
{
	static const int used[] = { LAT_BENCH_FLOOR, LAT_BENCH_FLOOR2,
				    LAT_BENCH_FLOOR64,
				    LAT_BENCH_SEQ_HANDOFF_8B,
				    LAT_BENCH_SEQ_HANDOFF_64B };

	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		if (!f[used[i]].plausible)
			return false;
	return true;
}

/* Both hand-offs within the limit of their honest floors. */
static bool honest_within(const struct lat_bench_figure *f, double r8,
			  double r64)
{
	return honest_plausible(f) && r8 <= HONEST_FLOOR_LIMIT &&
	       r64 <= HONEST_FLOOR_LIMIT;
}

static double over(const struct lat_bench_figure *f, int num, int den)
{
	return f[num].st.median / f[den].st.median;
}

static void honest_floor_verdict(const struct lat_bench_suite *s, char *buf,
				 size_t len)
{
	const struct lat_bench_figure *f = s->fig;
	double r8, r64;

	if (!honest_floors(f)) {
		snprintf(buf, len, "floors not measured: no verdict");
		return;
	}
	r8 = over(f, LAT_BENCH_SEQ_HANDOFF_8B, LAT_BENCH_FLOOR2);
	r64 = over(f, LAT_BENCH_SEQ_HANDOFF_64B, LAT_BENCH_FLOOR64);
	snprintf(buf, len, "handoff / its honest floor: %.2fx (8 B, over the "
		 "two-line floor: a round trip through two rings moves a line "
		 "each way), %.2fx (64 B, over the 64-byte floor: a payload "
		 "line and a mark line each way): %s %.1fx. Over the one-line "
		 "floor: %.2fx (8 B), %.2fx (64 B), but the two-line floor "
		 "alone is %.2fx the one-line floor in these rounds: a line "
		 "each side reads and then writes can be handed over writable "
		 "at once, and no pair of rings moves one like that. The "
		 "throughput-mode ring's 8 B handoff: %.2fx the one-line "
		 "floor.",
		 r8, r64,
		 !honest_plausible(f) ? "some figures implausible (time "
					"slices), no verdict on" :
		 honest_within(f, r8, r64) ? "both within" :
					     "NOT both within",
		 HONEST_FLOOR_LIMIT,
		 over(f, LAT_BENCH_SEQ_HANDOFF_8B, LAT_BENCH_FLOOR),
		 over(f, LAT_BENCH_SEQ_HANDOFF_64B, LAT_BENCH_FLOOR),
		 over(f, LAT_BENCH_FLOOR2, LAT_BENCH_FLOOR),
		 over(f, LAT_BENCH_HANDOFF, LAT_BENCH_FLOOR));
}

/* The latency ring's hand-offs over floor @fl, keys ending in @suffix. */
static void json_over_floor(struct lat_json *j,
			    const struct lat_bench_figure *f, int fl,
			    const char *suffix)
{
	char key[64];

	if (!f[fl].measured || f[fl].st.median <= 0)
		return;
	snprintf(key, sizeof(key), "handoff_8B_over_floor%s", suffix);
	lat_json_double(j, key, f[LAT_BENCH_SEQ_HANDOFF_8B].st.median /
					f[fl].st.median);
	snprintf(key, sizeof(key), "handoff_64B_over_floor%s", suffix);
	lat_json_double(j, key, f[LAT_BENCH_SEQ_HANDOFF_64B].st.median /
					f[fl].st.median);
}

void lat_bench_suite_json(struct lat_json *j, const struct lat_bench_suite *s)
{
	const struct lat_bench_figure *f = s->fig;
	char verdict[320];

	lat_bench_dce_verdict(s, verdict, sizeof(verdict));
	lat_json_obj_begin(j, NULL);
	lat_json_obj_begin(j, "placement");
	lat_json_bool(j, "pinned", s->place.pinned);
	lat_json_int(j, "cpu_a", s->place.cpu[0]);
	lat_json_int(j, "cpu_b", s->place.cpu[1]);
	lat_json_int(j, "usable_cpus", s->place.usable);
	lat_json_bool(j, "smt_siblings", s->place.siblings);
	lat_json_str(j, "desc", s->place.desc);
	lat_json_obj_end(j);
	lat_json_double(j, "loadavg", s->loadavg);
	lat_json_int(j, "reps", s->reps);
	lat_json_uint(j, "messages_per_round", s->iters);
	lat_json_obj_begin(j, "dce");
	json_figure(j, &f[LAT_BENCH_DCE_UNUSED]);
	json_figure(j, &f[LAT_BENCH_DCE_KEPT]);
	lat_json_bool(j, "loop_deleted", s->loop_deleted);
	lat_json_str(j, "verdict", verdict);
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "same_thread");
	json_figure(j, &f[LAT_BENCH_ST_8B]);
	json_figure(j, &f[LAT_BENCH_ST_64B]);
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "cross_thread");
	for (int i = LAT_BENCH_FLOOR; i <= LAT_BENCH_TPUT_BATCH; i++)
		json_figure(j, &f[i]);
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "latency_ring");
	for (int i = LAT_BENCH_SEQ_HANDOFF_8B; i < LAT_BENCH_NFIGS; i++)
		json_figure(j, &f[i]);
	json_over_floor(j, f, LAT_BENCH_FLOOR, "");
	json_over_floor(j, f, LAT_BENCH_FLOOR2, "_two_lines");
	if (f[LAT_BENCH_FLOOR64].measured &&
	    f[LAT_BENCH_FLOOR64].st.median > 0)
		lat_json_double(j, "handoff_64B_over_floor_64B",
				f[LAT_BENCH_SEQ_HANDOFF_64B].st.median /
					f[LAT_BENCH_FLOOR64].st.median);
	if (honest_floors(f)) {
		/* the floors the handoffs are judged by (see
		 * honest_floor_verdict) and how far the two-line floor sits
		 * above the one-line floor in the same rounds */
		double r8 = over(f, LAT_BENCH_SEQ_HANDOFF_8B, LAT_BENCH_FLOOR2);
		double r64 = over(f, LAT_BENCH_SEQ_HANDOFF_64B,
				  LAT_BENCH_FLOOR64);

		lat_json_str(j, "honest_floor_8B", "floor_two_lines_ns");
		lat_json_str(j, "honest_floor_64B", "floor_64B_ns");
		lat_json_double(j, "handoff_8B_over_honest_floor", r8);
		lat_json_double(j, "handoff_64B_over_honest_floor", r64);
		lat_json_bool(j, "within_1_5x_of_honest_floor",
			      honest_within(f, r8, r64));
		lat_json_double(j, "floor_two_lines_over_floor",
				over(f, LAT_BENCH_FLOOR2, LAT_BENCH_FLOOR));
	}
	if (f[LAT_BENCH_FLOOR].measured && f[LAT_BENCH_FLOOR].st.median > 0)
		lat_json_double(j, "throughput_ring_handoff_over_floor",
				f[LAT_BENCH_HANDOFF].st.median /
					f[LAT_BENCH_FLOOR].st.median);
	lat_json_obj_end(j);
	lat_json_obj_end(j);
}

void lat_bench_suite_print(FILE *out, const struct lat_bench_suite *s)
{
	const struct lat_bench_figure *f = s->fig;
	char verdict[320];

	lat_bench_dce_verdict(s, verdict, sizeof(verdict));

	fprintf(out, "placement: %s\n", s->place.desc);
	fprintf(out, "each figure: median of %u rounds (min, max), warm-up "
		"round excluded\n", s->reps);
	if (s->loadavg > s->place.usable) {
		char warn[200];

		snprintf(warn, sizeof(warn), "warning: load average %.1f on "
			 "%d usable CPUs: other processes take turns on these "
			 "cores and every figure below includes their time "
			 "slices", s->loadavg, s->place.usable);
		lat_fmt_paragraph(out, warn, 0);
	}
	fprintf(out, "\ndead-code trap (ns per iteration)\n");
	print_figure(out, &f[LAT_BENCH_DCE_UNUSED]);
	print_figure(out, &f[LAT_BENCH_DCE_KEPT]);
	fprintf(out, "  -> ");
	lat_fmt_paragraph(out, verdict, 5);
	fprintf(out, "\nSPSC ring, same thread (ns per push+pop pair, hot in "
		"L1)\n");
	print_figure(out, &f[LAT_BENCH_ST_8B]);
	print_figure(out, &f[LAT_BENCH_ST_64B]);
	if (s->place.pinned)
		fprintf(out, "\nSPSC ring, cross thread, 8 B messages (cpu %d -> "
			     "cpu %d)\n", s->place.cpu[0], s->place.cpu[1]);
	else /* not "cpu -1 -> cpu -1" */
		fprintf(out, "\nSPSC ring, cross thread, 8 B messages (%s)\n",
			     s->place.desc);
	for (int i = LAT_BENCH_FLOOR; i <= LAT_BENCH_TPUT_BATCH; i++)
		print_figure(out, &f[i]);
	if (s->place.pinned) {
		fprintf(out, "  -> ");
		lat_fmt_paragraph(out, "a handoff costs at least one "
				  "cache-line transfer (the floor); throughput "
				  "beats 1/latency because the producer runs "
				  "ahead and cached indices let many messages "
				  "share each transfer.", 5);
	}
	fprintf(out, "\nlatency-mode ring (lat_seqring: each slot carries its "
		     "own sequence)\n");
	for (int i = LAT_BENCH_SEQ_HANDOFF_8B; i < LAT_BENCH_NFIGS; i++)
		print_figure(out, &f[i]);
	if (s->place.pinned) {
		char msg[640];

		honest_floor_verdict(s, msg, sizeof(msg));
		fprintf(out, "  -> ");
		lat_fmt_paragraph(out, msg, 5);
	}
}

/* lat_json_or_text's shapes, typed */
static void suite_text(FILE *out, const void *s)
{
	lat_bench_suite_print(out, s);
}

static void suite_doc(struct lat_json *j, const void *s)
{
	lat_bench_suite_json(j, s);
}

int lat_bench_suite_write(FILE *out, bool json,
			  const struct lat_bench_suite *s)
{
	return lat_json_or_text(out, json, s, suite_text, suite_doc);
}
