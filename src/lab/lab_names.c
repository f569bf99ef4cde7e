/*
 * lat_lab: the experiments, their expected fingerprints, and the names of
 * every enum (stable for JSON). See include/latlab/lab.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "latlab/lab.h"

static const struct {
	const char *name;
	const char *what;
	enum lat_lab_fp fp;
} exps[LAT_LAB_N_EXP] = {
	[LAT_LAB_NULL] = { "null", "the baseline itself, run as an experiment "
			   "(the lab's false-positive check)",
			   LAT_LAB_FP_NO_EFFECT },
	[LAT_LAB_ALLOC] = { "alloc", "malloc+free of 256 bytes per event in "
			    "stage 1 (glibc's fast path)", LAT_LAB_FP_ALLOCS },
	[LAT_LAB_ALLOC_MMAP] = { "alloc-mmap", "malloc+free of 140 KiB per "
				 "event, above malloc's mmap threshold, at "
				 "1/40 of the rate", LAT_LAB_FP_FAULTS },
	[LAT_LAB_NO_PIN] = { "no-pin", "the scheduler places the threads",
			     LAT_LAB_FP_SCHED },
	[LAT_LAB_NOISE] = { "noise", "a thread streaming writes over 64 MiB "
			    "beside the pipeline", LAT_LAB_FP_BODY },
	[LAT_LAB_STALL] = { "stall", "stage 1 busy-waits once (4x the worst "
			    "e2e of the baselines so far, at least 2 ms); the "
			    "flight recorder freezes on it", LAT_LAB_FP_STALL },
	[LAT_LAB_SHARE_LINE] = { "share-line", "stage 1's and the consumer's "
				 "counters on one cache line, the two on "
				 "different CPUs", LAT_LAB_FP_LINE },
	[LAT_LAB_SHARE_LINE_1CPU] = { "share-line-1cpu", "the same shared "
				      "line, both writers on one CPU (the "
				      "control)", LAT_LAB_FP_NO_LINE },
};

int lat_lab_exp_by_name(const char *name)
{
	for (int e = 0; e < LAT_LAB_N_EXP; e++)
		if (!strcmp(name, exps[e].name))
			return e;
	return -1;
}

int lat_lab_want_parse(struct lat_lab_opts *o, const char *list,
		       char *bad, size_t len)
{
	const char *p = list;

	memset(o->want, 0, sizeof(o->want));
	while (*p) {
		size_t n = strcspn(p, ",");
		char name[32];
		int e = -1;

		if (n && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			e = lat_lab_exp_by_name(name);
		}
		if (e < 0 && n) {
			snprintf(bad, len, "%.*s", (int)n, p);
			return -ENOENT;
		}
		if (e >= 0)
			o->want[e] = true;
		p += n + (p[n] == ',');
	}
	return 0;
}

const char *lat_lab_exp_name(enum lat_lab_exp e)
{
	return (unsigned)e < LAT_LAB_N_EXP ? exps[e].name : "?";
}

const char *lat_lab_exp_what(enum lat_lab_exp e)
{
	return (unsigned)e < LAT_LAB_N_EXP ? exps[e].what : "?";
}

enum lat_lab_fp lat_lab_exp_fp(enum lat_lab_exp e)
{
	return (unsigned)e < LAT_LAB_N_EXP ? exps[e].fp : LAT_LAB_FP_NO_EFFECT;
}

const char *lat_lab_fp_name(enum lat_lab_fp f)
{
	static const char *const n[LAT_LAB_N_FP] = {
		"no_effect", "allocs_per_event", "faults_per_event",
		"sched_counters", "body_shift", "stall_window", "line_growth",
		"no_line_growth",
	};

	return (unsigned)f < LAT_LAB_N_FP ? n[f] : "?";
}

const char *lat_lab_fp_text(enum lat_lab_fp f)
{
	static const char *const t[LAT_LAB_N_FP] = {
		"none of the lab's fingerprints: no body shift (e2e p50 and "
		"p90), no work1 p50 move, no scheduler-counter move",
		"1 allocation per event, none in the baselines",
		"at least 1 page fault per event, almost none in the baselines",
		"context switches or migrations leave the baselines' range",
		"body shift: e2e p50 and p90 grow",
		"flight recorder: one slow work1 at the freeze, a backlog of "
		"slow q1+wake behind it",
		"work1 p50 grows: a miss on every event on the shared line",
		"no growth in work1 p50",
	};

	return (unsigned)f < LAT_LAB_N_FP ? t[f] : "?";
}

const char *lat_lab_outcome_name(enum lat_lab_outcome o)
{
	static const char *const n[LAT_LAB_N_OUTCOMES] = {
		"seen", "not_seen", "within_drift", "cannot_show", "no_data",
	};

	return (unsigned)o < LAT_LAB_N_OUTCOMES ? n[o] : "?";
}

const char *lat_lab_effect_name(enum lat_lab_effect e)
{
	switch (e) {
	case LAT_LAB_EFFECT_NONE:
		return "none";
	case LAT_LAB_EFFECT_UP:
		return "up";
	case LAT_LAB_EFFECT_DOWN:
		return "down";
	case LAT_LAB_EFFECT_DRIFT:
		return "within_drift";
	}
	return "?";
}

const char *lat_lab_arm_name(enum lat_lab_arm a)
{
	static const char *const n[LAT_LAB_N_ARMS] = {
		"default", "split", "joined", "slow",
	};

	return (unsigned)a < LAT_LAB_N_ARMS ? n[a] : "?";
}

const char *lat_lab_metric_name(enum lat_lab_metric m)
{
	static const char *const n[LAT_LAB_NMETRICS] = {
		"ctx_switches", "migrations", "page_faults", "allocations",
		"run_delay_ns",
	};

	return (unsigned)m < LAT_LAB_NMETRICS ? n[m] : "?";
}
