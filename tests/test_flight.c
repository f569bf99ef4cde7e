/*
 * Description: flight recorder. A synthetic spike freezes the window; the
 * dump holds the spike and its neighbours with their exact deltas; the
 * post-trigger count is honoured; nothing pushed after the freeze changes
 * the window; the analysis tells an isolated slow stage from a run of
 * consecutive slow queue deltas.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/flight.h"
#include "latlab/fmt.h"
#include "t_test.h"

static const char *const names[] = { "pace", "q1+wake", "work1",
				      "q2+wake" };
#define ND 4
#define CAP 64
#define POST 5
#define SPIKE 500      /* work1 is slow on this one event only */
#define BACKLOG 502    /* q1+wake slow on 3 consecutive events from here */
static uint64_t backlog = BACKLOG; /* where deltas_of puts it */
#define LATE 700       /* a spike after the freeze: must not appear */

/* The deltas of event @seq: a pure function, so the dump can be checked. */
static void deltas_of(uint64_t seq, uint64_t *d)
{
	d[0] = 50 + seq % 7;
	d[1] = 500 + seq % 11;
	d[2] = 100 + seq % 3;
	d[3] = 400 + seq % 5;
	if (seq == SPIKE || seq == LATE)
		d[2] = 50000;
	if (seq >= backlog && seq < backlog + 3)
		d[1] = 20000 - 4000 * (seq - backlog); /* draining */
}

static uint64_t e2e_of(const uint64_t *d)
{
	return d[0] + d[1] + d[2] + d[3];
}

static bool push_seq(struct lat_flight *f, uint64_t seq)
{
	uint64_t d[ND];

	deltas_of(seq, d);
	return lat_flight_push(f, seq, seq * 5000, d, e2e_of(d));
}

static void test_bad_init(void)
{
	struct lat_flight f;

	T_EQ_I64(lat_flight_init(&f, 1, ND, names, 0, 1), -EINVAL);
	T_EQ_I64(lat_flight_init(&f, CAP, 0, names, 0, 1), -EINVAL);
	T_EQ_I64(lat_flight_init(&f, CAP, LAT_FLIGHT_MAX_DELTAS + 1, names,
				 0, 1), -EINVAL);
	T_EQ_I64(lat_flight_init(&f, CAP, ND, names, CAP, 1), -EINVAL);
	T_EQ_I64(lat_flight_init(&f, CAP, ND, NULL, 0, 1), -EINVAL);
	lat_flight_destroy(&f);
	lat_flight_destroy(&f);
}

/* Every window entry is the event pushed with that seq, in order. */
static void check_window(struct lat_flight *f, uint64_t first, size_t n)
{
	struct lat_flight_rec r;
	uint64_t d[ND];

	T_EQ_I64(lat_flight_count(f), n);
	for (size_t i = 0; i < n; i++) {
		T_EQ_I64(lat_flight_get(f, i, &r), 0);
		T_EQ_I64(r.seq, first + i);
		T_EQ_I64(r.t0_ns, (first + i) * 5000);
		deltas_of(first + i, d);
		for (int k = 0; k < ND; k++)
			T_EQ_I64(r.delta_ns[k], d[k]);
		T_EQ_I64(r.e2e_ns, e2e_of(d));
		T_EQ_I64(r.trigger, r.seq == SPIKE);
	}
	T_EQ_I64(lat_flight_get(f, n, &r), -ERANGE);
}

static char *dump(struct lat_flight *f, bool csv, size_t before)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	T_EQ_I64(csv ? lat_flight_dump_csv(f, out) :
		       lat_flight_dump_table(f, out, before), 0);
	fclose(out);
	return buf;
}

static int count_lines(const char *s, const char *prefix_not)
{
	int n = 0;

	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, prefix_not, strlen(prefix_not)))
			n++;
	return n;
}

static void test_spike(void)
{
	struct lat_flight f;
	struct lat_flight_col cols[ND + 1];
	struct lat_flight_rec r;
	uint64_t *frozen_copy;
	char line[160], *csv, *table;
	uint64_t d[ND];
	uint64_t seq;

	T_EQ_I64(lat_flight_init(&f, CAP, ND, names, POST, 10000), 0);
	for (seq = 0; seq < 1000; seq++)
		if (push_seq(&f, seq))
			break;
	/* Frozen exactly POST samples after the spike. */
	T_EQ_I64(seq, SPIKE + POST);
	T_EQ_I64(f.state, LAT_FLIGHT_FROZEN);
	T_EQ_I64(lat_flight_trigger_index(&f), CAP - 1 - POST);
	check_window(&f, SPIKE + POST + 1 - CAP, CAP);

	/* Nothing after the freeze touches the window, and it is counted. */
	frozen_copy = malloc(CAP * f.stride * sizeof(uint64_t));
	memcpy(frozen_copy, f.ring, CAP * f.stride * sizeof(uint64_t));
	for (seq = SPIKE + POST + 1; seq < 1000; seq++)
		T_CHECK(push_seq(&f, seq));
	T_EQ_I64(f.after_freeze, 1000 - (SPIKE + POST + 1));
	T_EQ_I64(f.seen + f.after_freeze, 1000);
	T_CHECK(!memcmp(frozen_copy, f.ring,
			CAP * f.stride * sizeof(uint64_t)));
	free(frozen_copy);
	check_window(&f, SPIKE + POST + 1 - CAP, CAP);
	T_EQ_I64(lat_flight_arm(&f, 1), -EBUSY);

	/* The analysis: one isolated slow work1, a run of 3 slow q1+wake. */
	T_EQ_I64(lat_flight_analyze(&f, cols), ND + 1);
	T_EQ_I64(cols[2].slow, 1);
	T_EQ_I64(cols[2].longest_run, 1);
	T_EQ_I64(cols[2].at_trigger_ns, 50000);
	T_CHECK(cols[2].slow_at_trigger);
	T_EQ_I64(cols[2].after_trigger, 0);
	T_EQ_I64(cols[1].after_trigger, 0); /* 501 is not slow */
	T_CHECK(cols[2].median_ns >= 100 && cols[2].median_ns <= 102);
	T_EQ_I64(cols[1].slow, 3);
	T_EQ_I64(cols[1].longest_run, 3);
	T_EQ_I64(cols[1].run_first_seq, BACKLOG);
	T_EQ_I64(cols[0].slow, 0);
	T_EQ_I64(cols[3].slow, 0);
	T_CHECK(!strcmp(cols[ND].name, "e2e"));

	/* CSV: every row, the spike and its neighbours exact. */
	csv = dump(&f, true, 0);
	T_CHECK(!strncmp(csv, "seq,t0_ns,pace,q1+wake,work1,q2+wake,e2e_ns,"
			 "mark\n", 45));
	T_EQ_I64(count_lines(csv, "seq,"), CAP);
	for (seq = SPIKE - 1; seq <= SPIKE + 1; seq++) {
		deltas_of(seq, d);
		snprintf(line, sizeof(line), "\n%llu,%llu,%llu,%llu,%llu,%llu,"
			 "%llu,%s\n", (unsigned long long)seq,
			 (unsigned long long)seq * 5000,
			 (unsigned long long)d[0], (unsigned long long)d[1],
			 (unsigned long long)d[2], (unsigned long long)d[3],
			 (unsigned long long)e2e_of(d),
			 seq == SPIKE ? "trigger slow:work1" : "");
		T_CHECK(strstr(csv, line) != NULL);
		if (!strstr(csv, line))
			fprintf(stderr, "missing csv row:%s", line);
	}
	T_CHECK(strstr(csv, "\n502,2510000,55,20000,101,402,20558,"
			 "slow:q1+wake\n") != NULL);
	T_CHECK(strstr(csv, "\n700,") == NULL);
	free(csv);

	/* Table: 3 rows before the trigger, all after, findings in words. */
	table = dump(&f, false, 3);
	fputs(table, stdout);
	T_CHECK(strstr(table, "<- trigger") != NULL);
	T_CHECK(strstr(table, "frozen on seq 500") != NULL);
	T_CHECK(strstr(table, "work1: slow at the trigger only: one slow "
			   "event, no backlog; 1 slow in the window") != NULL);
	T_CHECK(strstr(table, "q1+wake: 3 slow in the window (>= 4x median "
			   "505 ns), longest run 3 from seq 502") != NULL);
	T_CHECK(strstr(table, "work1 +49.9 µs (100%)") != NULL);
	T_CHECK(strstr(table, "\n         497 ") != NULL);
	T_CHECK(strstr(table, "\n         496 ") == NULL);
	T_CHECK(strstr(table, "\n         505 ") != NULL);
	T_EQ_I64(count_lines(table, "#") - 1, 3 + 1 + POST); /* - header */
	free(table);

	T_EQ_I64(lat_flight_get(&f, CAP - 1 - POST, &r), 0);
	T_CHECK(r.trigger && r.seq == SPIKE);
	lat_flight_destroy(&f);
}

/* lat_flight_print_outcome into a string. */
static char *outcome(struct lat_flight *f, bool auto_thr, const char *csv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	lat_flight_print_outcome(out, f, auto_thr, csv);
	fclose(out);
	return buf;
}

/* Disarmed until armed; post = 0 freezes on the trigger itself. */
static void test_arm_and_short_window(void)
{
	struct lat_flight f;
	uint64_t seq;
	char *text;

	T_EQ_I64(lat_flight_init(&f, CAP, ND, names, 0, 0), 0);
	for (seq = 0; seq < BACKLOG + 3; seq++)
		T_CHECK(!push_seq(&f, seq));     /* spike and backlog ignored */
	T_EQ_I64(f.state, LAT_FLIGHT_RECORDING);
	T_EQ_I64(lat_flight_trigger_index(&f), -1);
	text = outcome(&f, true, NULL); /* no threshold yet: not "auto" */
	T_CHECK(!strcmp(text, "flight recorder: never triggered (no e2e "
			"above the threshold: the warm-up did not finish)\n"));
	free(text);
	T_EQ_I64(lat_flight_arm(&f, 10000), 0);
	text = outcome(&f, true, "w.csv");
	T_CHECK(strstr(text, "never triggered (no e2e above 10") != NULL);
	T_CHECK(strstr(text, ", auto); last window written to w.csv\n"));
	free(text);
	for (; seq < 1000 && !push_seq(&f, seq); seq++)
		;
	T_EQ_I64(seq, LATE);
	T_EQ_I64(lat_flight_trigger_index(&f), CAP - 1); /* the last one */
	text = outcome(&f, false, "w.csv");
	T_CHECK(strstr(text, " on seq ") && strstr(text, "; window written "
						   "to w.csv\n"));
	free(text);
	text = outcome(&f, false, NULL); /* the table itself */
	T_CHECK(strstr(text, "<- trigger") != NULL);
	free(text);
	lat_flight_destroy(&f);

	/* Trigger before the ring fills: the window is what was seen. */
	T_EQ_I64(lat_flight_init(&f, 4096, ND, names, POST, 10000), 0);
	for (seq = SPIKE - 3; !push_seq(&f, seq); seq++)
		;
	T_EQ_I64(lat_flight_count(&f), 3 + 1 + POST);
	T_EQ_I64(lat_flight_trigger_index(&f), 3);
	check_window(&f, SPIKE - 3, 3 + 1 + POST);
	lat_flight_destroy(&f);
}

/* The stall's lesson: a backlog right behind the slow event. */
static void test_backlog_after_trigger(void)
{
	struct lat_flight f;
	struct lat_flight_col cols[ND + 1];
	uint64_t seq;
	char *table;

	backlog = SPIKE + 1;
	T_EQ_I64(lat_flight_init(&f, CAP, ND, names, 3, 10000), 0);
	for (seq = 0; !push_seq(&f, seq); seq++)
		;
	T_EQ_I64(seq, SPIKE + 3);
	lat_flight_analyze(&f, cols);
	T_EQ_I64(cols[1].after_trigger, 3);
	T_CHECK(!cols[1].slow_at_trigger);
	T_EQ_I64(cols[2].after_trigger, 0);
	table = dump(&f, false, 0);
	T_CHECK(strstr(table, "q1+wake: slow in the 3 samples right after "
			   "the trigger (all kept): events queued behind it")
		!= NULL);
	free(table);
	lat_flight_destroy(&f);
	backlog = BACKLOG;
}

static void test_json(void)
{
	struct lat_flight f;
	struct lat_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	T_EQ_I64(lat_flight_init(&f, CAP, ND, names, POST, 10000), 0);
	for (uint64_t seq = 0; !push_seq(&f, seq); seq++)
		;
	lat_json_init(&j, out);
	lat_flight_json(&f, &j, NULL);
	T_EQ_I64(lat_json_finish(&j), 0);
	fclose(out);
	T_CHECK(strstr(buf, "\"state\":\"frozen\"") != NULL);
	T_CHECK(strstr(buf, "\"trigger\":{\"seq\":500,\"e2e_ns\":50958")
		!= NULL);
	free(buf);
	lat_flight_destroy(&f);
}

int main(void)
{
	T_EQ_I64(lat_fmt_width("12.4 µs"), 7); /* the table's alignment */
	test_bad_init();
	test_spike();
	test_arm_and_short_window();
	test_backlog_after_trigger();
	test_json();
	T_DONE();
}
