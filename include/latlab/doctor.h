/*
 * lat_doctor: is this machine fit to measure latency on, and what can
 * latlab do here?
 *
 * Two steps, kept apart so each can be tested on its own:
 *
 *   lat_doctor_gather()  reads the machine into struct lat_doctor_facts:
 *                        clock, CPUs, virtualisation, cgroup, memory,
 *                        privileges, and what latlab can therefore use;
 *   lat_doctor_judge()   turns facts into findings, one per check, each
 *                        with what was found, a level and the fix.
 *
 * Invariants:
 *  - Findings are data (struct lat_doctor_finding); the text printer and
 *    the JSON writer render the same list.
 *  - Every `warn` and `bad` finding carries a fix. A fact that could not
 *    be read is never guessed: its finding has level LAT_DOCTOR_UNKNOWN
 *    and says what was not read and why ("Permission denied").
 *  - Every file is read under a root prefix (opts.root; NULL = the real
 *    /proc and /sys), so tests can model any machine with a directory of
 *    fake files. CPUID, the affinity mask, rlimits and the perf probe are
 *    this process's own and are not redirected (opts.probe = false skips
 *    the perf probe).
 *  - Nothing here prints except to a FILE * it is given; gathering takes
 *    about opts.steal_ms (the steal and clock measurements overlap) and
 *    allocates nothing (struct lat_doctor_facts is caller storage, ~40 KiB).
 */
#ifndef LATLAB_DOCTOR_H
#define LATLAB_DOCTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/cgroup.h"
#include "latlab/clock.h"
#include "latlab/json.h"
#include "latlab/perfctr.h"
#include "latlab/topo.h"

enum lat_doctor_level {
	LAT_DOCTOR_OK,       /* fit for measuring */
	LAT_DOCTOR_INFO,     /* a fact, neither good nor bad (what latlab
			      * can do) */
	LAT_DOCTOR_WARN,     /* numbers will carry this machine's noise */
	LAT_DOCTOR_BAD,      /* numbers will mislead */
	LAT_DOCTOR_UNKNOWN,  /* could not be checked; found says why */
};

#define LAT_DOCTOR_TEXT_LEN 320
#define LAT_DOCTOR_MAX_FINDINGS 40

struct lat_doctor_finding {
	char id[32];         /* stable key, "clock.invariant_tsc" */
	const char *group;   /* "clock", "cpu", "virtualisation", "cgroup",
			      * "memory", "privileges", "latlab" */
	const char *check;   /* what was checked, "invariant TSC" */
	enum lat_doctor_level level;
	char found[LAT_DOCTOR_TEXT_LEN];
	char fix[LAT_DOCTOR_TEXT_LEN]; /* "" for ok and info */
};

struct lat_doctor_report {
	int n;
	struct lat_doctor_finding f[LAT_DOCTOR_MAX_FINDINGS];
};

struct lat_doctor_opts {
	const char *root;    /* prefix for /proc and /sys; NULL = real */
	const bool *allowed; /* CPUs usable (LAT_TOPO_MAX_CPUS bools);
			      * NULL = this thread's affinity mask */
	unsigned steal_ms;   /* steal measuring window; 0 = do not measure */
	unsigned clock_ms;   /* TSC vs CLOCK_MONOTONIC_RAW window (<= steal_ms
			      * is free); 0 = do not measure */
	bool probe;          /* open perf counters to see which work */
	int hot_threads;     /* threads to place, as `latlab pipeline` does
			      * by default (3) */
};

/* Defaults: real root, 1 s of steal, 400 ms of clock, probe, 3 threads. */
void lat_doctor_opts_init(struct lat_doctor_opts *o);

/* Room for "could not read /proc/irq: Permission denied". */
#define LAT_DOCTOR_WHY_LEN 160
/* Idle states and IRQs kept per machine (the rest are counted). */
#define LAT_DOCTOR_MAX_IDLE 10
#define LAT_DOCTOR_MAX_IRQS 8

struct lat_doctor_irq {
	int irq;
	char name[40];
	uint64_t count_on_hot; /* interrupts so far on the hot CPUs */
};

struct lat_doctor_facts {
	/* clock */
	struct lat_clock_info clock;
	char clocksources[128];     /* available_clocksource */
	bool tsc_raw_measured;
	double tsc_raw_ppm;         /* |drift| over the window's second half
				     * with the ratio fitted over its first */
	double tsc_raw_noise_ppm;   /* what the brackets allow */
	double tsc_raw_seconds;
	double cycles_per_ns;

	/* CPUs */
	int topo_err;               /* lat_topo_load's code */
	struct lat_topo topo;
	char online[128], isolated[128], nohz_full[128], rcu_nocbs[128];
	int smt_active;             /* /sys/.../smt/active, -1 unknown */
	struct lat_topo_place place;/* default placement, place_err */
	int place_err;
	char hot_cpus[128];         /* the placement's CPUs as a list */
	char governor[32];          /* "" when no cpufreq */
	int boost;                  /* 1 on, 0 off, -1 no such knob */
	int n_idle;
	struct {
		char name[24];
		unsigned latency_us;
		bool disabled;
	} idle[LAT_DOCTOR_MAX_IDLE];
	bool cpuidle_present;
	int idle_cpu;               /* the hot CPU whose states are kept: the
				     * one with the slowest enabled state */
	int n_irqs;                 /* device IRQs allowed on a hot CPU that
				     * fired there */
	struct lat_doctor_irq irq[LAT_DOCTOR_MAX_IRQS]; /* busiest first */
	uint64_t irq_total_on_hot;
	int numa_nodes;             /* -1 unknown */
	int numa_nodes_hot;         /* nodes the hot CPUs span, -1 unknown */

	/* virtualisation */
	bool hypervisor;            /* CPUID 1 ECX[31] or the cpuinfo flag */
	char hv_vendor[16];         /* CPUID 0x40000000 signature, "" */
	double steal_pct;           /* of all CPUs' time over the window,
				     * -1 unknown */
	double steal_max_cpu_pct;   /* worst single CPU */
	int steal_worst_cpu;
	double steal_seconds;

	/* cgroup */
	int cg_err;                 /* lat_cgroup_self for "cpu" */
	struct lat_cgroup cg;
	double quota_cpus;          /* tightest quota, CPUs; < 0 none */
	int64_t quota_us;
	uint64_t period_us;
	char quota_where[LAT_CGROUP_PATH_LEN];
	bool cg_stat_known;
	struct lat_cgroup_cpu_stat cg_stat;
	char cpuset[128];           /* effective CPUs of its cpuset, "" */
	bool cg_writable;           /* the quota experiment's child could be
				     * made (lat_cgroup_quota_ready) */
	struct lat_cgroup cg_child_parent; /* where it would go */

	/* memory */
	char thp[16];               /* "always", "madvise", "never", "" */
	int swap_devices;           /* -1 unknown */
	uint64_t swap_total_kb;
	uint64_t memlock_bytes;     /* UINT64_MAX = unlimited */

	/* privileges */
	int paranoid;               /* INT32_MIN unknown */
	int uid;                    /* from status, -1 unknown */
	bool caps_known;
	uint64_t cap_eff;
	bool btf;
	int unpriv_bpf;             /* -1 unknown */

	/* what latlab can do */
	bool probed;                /* counters opened on this thread */
	enum lat_perf_source counter_src[LAT_PERF_NCOUNTERS];
	char counter_why[LAT_PERF_NCOUNTERS][LAT_PERF_REASON_LEN];
	bool have_bpf_build;        /* built with libbpf */
	int bpf_probe;              /* bpf(BPF_MAP_CREATE) of a tiny array:
				     * 0 works, -errno refused, 1 not tried */
	int hot_threads;

	/* why a fact is unknown: "could not read <file>: <reason>", or "" */
	char why_topo[LAT_DOCTOR_WHY_LEN], why_irq[LAT_DOCTOR_WHY_LEN];
	char why_steal[LAT_DOCTOR_WHY_LEN], why_cg[LAT_DOCTOR_WHY_LEN];
	char why_cg_stat[LAT_DOCTOR_WHY_LEN], why_cpuset[LAT_DOCTOR_WHY_LEN];
	char why_thp[LAT_DOCTOR_WHY_LEN], why_swap[LAT_DOCTOR_WHY_LEN];
	char why_paranoid[LAT_DOCTOR_WHY_LEN], why_caps[LAT_DOCTOR_WHY_LEN];
	char why_bpf[LAT_DOCTOR_WHY_LEN], why_numa[LAT_DOCTOR_WHY_LEN];
};

/* Linux capability bits the doctor looks at. */
#define LAT_DOCTOR_CAP_IPC_LOCK 14
#define LAT_DOCTOR_CAP_SYS_ADMIN 21
#define LAT_DOCTOR_CAP_PERFMON 38
#define LAT_DOCTOR_CAP_BPF 39

/*
 * Read everything into @f. Never fails for a missing or unreadable file
 * (that is a fact too); returns 0, or -EINVAL for bad @o.
 */
int lat_doctor_gather(struct lat_doctor_facts *f,
		      const struct lat_doctor_opts *o);

/* Findings from facts, in group order. */
void lat_doctor_judge(const struct lat_doctor_facts *f,
		      struct lat_doctor_report *r);

/* "ok", "info", "warn", "bad", "n/a". */
const char *lat_doctor_level_name(enum lat_doctor_level l);

/* Findings at level @l. */
int lat_doctor_count(const struct lat_doctor_report *r,
		     enum lat_doctor_level l);

/* The finding with id @id, or NULL. */
const struct lat_doctor_finding *
lat_doctor_find(const struct lat_doctor_report *r, const char *id);

/*
 * The fixes are worded without naming any program's options; a caller
 * that has its own way to act on finding @id (a command line) appends it
 * here as " (@how)": to the fix, or with @to_found to the found text
 * when that says "yes ..." (an info line saying what is possible). Cut
 * at LAT_DOCTOR_TEXT_LEN; nothing when the text is empty or @id absent.
 */
void lat_doctor_add_hint(struct lat_doctor_report *r, const char *id,
			 bool to_found, const char *how);

/*
 * The report for people: a heading per group, one line per finding
 * (level, check, found) and an indented "fix:" line under each warn and
 * bad, then a summary line. Returns 0 or -EIO.
 */
int lat_doctor_print(FILE *out, const struct lat_doctor_report *r);

/*
 * Members "findings" (array of {id, group, check, level, found, fix}),
 * "summary" (counts per level, n/a as "not_checked") and "facts" (the
 * numbers behind them) of the JSON object open in @j.
 */
void lat_doctor_write_json(struct lat_json *j,
			   const struct lat_doctor_facts *f,
			   const struct lat_doctor_report *r);

#endif
