/*
 * lat_sched: who took the CPU. An eBPF scheduler probe for chosen threads
 * and CPUs, with run-queue latency in HdrHistograms, off-CPU time by
 * reason, and the "silence check" of hot CPUs.
 *
 * What it sees. Kernel programs on the scheduler tracepoints
 * (sched_wakeup, sched_wakeup_new, sched_switch, sched_migrate_task;
 * tp_btf, or raw_tp when the kernel refuses tp_btf) and, on watched CPUs,
 * the interrupt tracepoints (irq_handler_*, softirq_*, x86 system vectors
 * such as the local timer) send a 72-byte record per event through a BPF
 * ring buffer. They filter in the kernel: only events of the followed
 * threads (a TID set, or every thread of a followed process, including
 * threads created later) and every switch and interrupt of the watched
 * CPUs reach user space; nothing streams every switch of the machine.
 * A consumer thread in the library turns the records into:
 *
 *   per followed thread
 *     rq_wakeup   run-queue latency after a wakeup: woken -> on a CPU;
 *     rq_preempt  run-queue latency after a preemption: switched out while
 *                 still runnable -> back on a CPU (kept apart: the first
 *                 is the wake-up path, the second is CPU contention);
 *     blocked     off-CPU time blocked by choice: switched out sleeping ->
 *                 woken (nanosleep, futex, I/O);
 *     switches, voluntary (blocked) and involuntary (preempted, yielded),
 *     counted the way the kernel counts voluntary_ctxt_switches and
 *     nonvoluntary_ctxt_switches in /proc/<tid>/status; migrations;
 *     preempted_by (who took the CPU when it was preempted, and how long
 *     until it was back) and, when its CPU is watched, waited_behind
 *     (which tasks held its CPU while it was runnable, exact overlap);
 *   per watched CPU
 *     every interval a foreign task (neither followed nor idle) held it:
 *     count, total, the longest, the top intruders by time; time held by
 *     our threads and idle; interrupt and softirq counts and time. The
 *     CPU is "silent" when no foreign task held it in the window.
 *
 * Time. Records carry bpf_ktime_get_ns(), which is CLOCK_MONOTONIC (NTP
 * slews it; latlab's cycle clock is calibrated against
 * CLOCK_MONOTONIC_RAW). Everything here stays in CLOCK_MONOTONIC ns; the
 * attribution (lat_sched_attr_*) maps cycle stamps onto it with its own
 * pairs of (cycles, CLOCK_MONOTONIC) readings taken during the run.
 *
 * Accounting. Records the ring had no room for are counted per CPU in
 * the kernel (lost), records the consumer could not pair (a wakeup of a
 * thread still on its CPU, a wakeup out of order) in unpaired, records
 * it had no memory for in dropped, events the kernel never reported in
 * hidden / chain_breaks: all printed, never silent.
 *
 * Privilege. Loading needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN),
 * not uid 0, and the kernel's BTF (/sys/kernel/btf/vmlinux).
 * lat_sched_available() says exactly which is missing; the fallback,
 * lat_sched_proc_*, reads per-thread totals from /proc (no histogram, no
 * attribution). A load that fails while everything is present is an
 * error (a verifier rejection is our bug), never "unavailable".
 *
 * Threading: open/start/stop/close and the result from one controlling
 * thread; lat_sched_follow_tid, lat_sched_set_window and
 * lat_sched_records from any thread. The hot paths of the traced
 * program are untouched: the cost is in the kernel, per scheduler event.
 */
#ifndef LATLAB_SCHED_H
#define LATLAB_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "latlab/common.h"
#include "latlab/hist.h"
#include "latlab/spawn.h"
#include "latlab/json.h"

/* Histogram range: 1 ns .. 1 hour at 3 significant digits. */
#define LAT_SCHED_HIST_MAX_NS 3600000000000LL
#define LAT_SCHED_HIST_SIG_FIGS 3
/* Tasks kept by name in each "who" table; the rest are summed in other. */
#define LAT_SCHED_TOP 8
/* Default ring buffer size (a power of two, page multiple). */
#define LAT_SCHED_RING_BYTES (16u << 20)

/* ---- Can it run here? ---- */

struct lat_sched_avail {
	bool built;          /* compiled with libbpf (LATLAB_HAVE_BPF) */
	bool btf;            /* /sys/kernel/btf/vmlinux readable */
	bool cap_bpf;        /* CAP_BPF effective (or CAP_SYS_ADMIN) */
	bool cap_perfmon;    /* CAP_PERFMON effective (or CAP_SYS_ADMIN) */
	int unpriv_disabled; /* /proc/sys/kernel/unprivileged_bpf_disabled,
			      * -1 unknown */
	bool ok;             /* all of the above: the probe can load */
	/* When !ok: every missing piece and the fallback, one line, e.g.
	 * "no CAP_BPF+CAP_PERFMON (not root; unprivileged_bpf_disabled=2)". */
	char reason[256];
	/* When !built: the install line. */
	const char *install;
};

/* Fill @a. Reads /proc and sysfs; never fails. */
void lat_sched_available(struct lat_sched_avail *a);

/* ---- The probe ---- */

struct lat_sched_opts {
	const pid_t *tids;   /* follow these threads (any process) */
	int n_tids;
	const pid_t *pids;   /* follow every thread of these processes */
	int n_pids;
	const int *cpus;     /* watch these CPUs */
	int n_cpus;
	bool per_thread;     /* histograms per thread (else only totals) */
	bool timeline;       /* keep every interval for lat_sched_attr_* */
	size_t ring_bytes;   /* 0: LAT_SCHED_RING_BYTES */
	/*
	 * Decode later: while the probe runs, its reader only copies the
	 * raw records (about 10 bytes per batched hand-off, 72 per other
	 * record) into memory, up to this many bytes, and decodes them in
	 * lat_sched_stop. On a machine with no CPU to spare the reader's
	 * decoding (histograms, timeline, ~0.2 µs a record) otherwise runs
	 * on the CPUs of the threads it watches, while they run. Past the
	 * cap it decodes what it holds and goes on live: nothing is lost.
	 * 0: decode live (what `latlab sched` wants: it prints while it
	 * runs). With deferral, lat_sched_set_window and lat_sched_records
	 * see the records only when they are decoded.
	 */
	size_t defer_bytes;
	/* 0: tp_btf when the kernel takes it, else raw_tp; 1: tp_btf only;
	 * 2: raw_tp only (tests). */
	int flavour;
	/*
	 * The reader thread's nice value, 0 to leave it: threads it watches
	 * that run at a lower nice on its CPU starve a nice-0 reader, and
	 * the ring fills (records lost, counted). Refused (no CAP_SYS_NICE):
	 * the reader runs at its default, as with 0.
	 */
	int reader_nice;
};

/* A task named in a "who" table. */
struct lat_sched_who {
	pid_t pid, tgid;
	char comm[16];
	uint64_t count;      /* intervals / preemptions */
	uint64_t ns;         /* time */
};

struct lat_sched_whos {
	int n;                              /* entries used, by ns desc */
	struct lat_sched_who top[LAT_SCHED_TOP];
	uint64_t other_count, other_ns;     /* tasks that did not fit */
};

struct lat_sched_thread {
	pid_t tid, tgid;
	char comm[16];
	uint64_t wakeups;
	uint64_t switches_vol, switches_invol;
	uint64_t preempted;   /* switched out still runnable */
	uint64_t migrations;
	/* Off-CPU stretches whose end the kernel did not report (a wakeup
	 * or switch-in while a task it does not trace was current; see
	 * chain_breaks, inferred), and their time, which is in none of
	 * the three below: oncpu + runnable + blocked + hidden_ns is the
	 * time the thread was seen. */
	uint64_t hidden, hidden_ns;
	uint64_t oncpu_ns, runnable_ns, blocked_ns;
	bool exited;          /* its last switch was its exit */
	/* Histograms (ns): per thread only with opts.per_thread. */
	struct lat_hist *rq_wakeup, *rq_preempt, *blocked;
	struct lat_sched_whos preempted_by;
	struct lat_sched_whos waited_behind; /* only when its CPU is watched */
};

/* Softirq vectors (HI .. RCU) and kinds of hard interrupt (device irq,
 * x86 local timer, reschedule IPI, call-function IPIs, irq_work). */
enum { LAT_SCHED_NSOFTIRQ = 10, LAT_SCHED_NIRQKIND = 6 };

struct lat_sched_cpu {
	int cpu;
	uint64_t switches;
	uint64_t own_ns, foreign_ns, idle_ns;
	uint64_t unknown_ns;  /* no switch seen at all, or after a break */
	uint64_t chain_breaks, break_ns; /* see lat_sched_result */
	uint64_t intrusions;  /* intervals a foreign task held it */
	uint64_t longest_ns;  /* the longest such interval ... */
	pid_t longest_pid;    /* ... and who */
	char longest_comm[16];
	struct lat_sched_whos intruders;
	uint64_t irq_count[LAT_SCHED_NIRQKIND]; /* lat_sched_irq_kind_name */
	uint64_t irq_ns[LAT_SCHED_NIRQKIND];
	uint64_t softirq_count[LAT_SCHED_NSOFTIRQ];
	uint64_t softirq_ns[LAT_SCHED_NSOFTIRQ];
};

struct lat_sched_result {
	const char *flavour;  /* "tp_btf" or "raw_tp" */
	bool irqs;            /* interrupt tracepoints attached */
	uint64_t from_ns, to_ns; /* window, CLOCK_MONOTONIC ns */
	uint64_t records;     /* consumed */
	uint64_t lost;        /* the ring was full: records never seen */
	uint64_t missed;      /* the kernel skipped a program run (it was
			       * already running on that CPU): events never
			       * seen */
	uint64_t unpaired;    /* wakeups of a thread still on its CPU, stale
			       * wakeups (arrived too late to order),
			       * malformed records */
	uint64_t dropped;     /* records the reader had no memory for:
			       * those its reorder buffer could not hold
			       * (never applied, so not in records) and
			       * those whose thread its table could not
			       * add (in records, their effect lost) */
	/* Switches on watched CPUs whose prev was not the task we saw come
	 * on: the kernel reported no switch-out for it (this VM's agent
	 * threads never get one; perf sees none either). */
	uint64_t chain_breaks;
	uint64_t inferred;    /* followed threads' switch-ins missing for
			       * that reason, placed at the earliest time
			       * possible (the last reported switch) */
	uint64_t timeline_dropped; /* intervals not kept (memory cap) */
	uint64_t timeline_cut_ns;  /* the first of them began here
				    * (CLOCK_MONOTONIC; 0: none) */
	/* The probe's own cost in user space: CPU time of its reader thread
	 * while the probe ran (copying only, with opts.defer_bytes), and the
	 * time lat_sched_stop took to decode what was deferred. */
	uint64_t reader_cpu_ns, decode_ns;
	uint64_t deferred_bytes; /* the most held at once (0: live) */
	/* Totals over every followed thread. */
	struct lat_sched_thread total;
	int n_threads;
	struct lat_sched_thread *threads; /* by tid */
	int n_cpus;
	struct lat_sched_cpu *cpus;       /* the watched CPUs, by number */
};

struct lat_sched;

/*
 * Load the programs (the verifier runs here: 60-220 ms on a small VM) and
 * fill the filter maps from @o. Nothing is attached yet. Returns 0 and
 * *out, -EINVAL (bad options: a TID or CPU out of range, too many),
 * -LAT_EUNSUPP when lat_sched_available() says no (built without libbpf,
 * no BTF, no privilege), -ESRCH for a followed pid/tid that does not
 * exist, -ENOMEM, or the -errno of a failed load (with everything
 * present: a bug, to be reported as a failure).
 */
int lat_sched_open(const struct lat_sched_opts *o, struct lat_sched **out);

/*
 * Attach the programs and start the consumer thread. The window opens
 * now (CLOCK_MONOTONIC). Returns 0 or the -errno of the attach.
 */
int lat_sched_start(struct lat_sched *s);

/*
 * Pin the probe's reader thread (named latlab-sched) to @cpu when it
 * starts, or -1 (the default) to leave it where the scheduler puts it.
 * Call before lat_sched_start. Returns 0 or -EINVAL (started, or @cpu
 * out of range). A pin the kernel refuses leaves it unpinned.
 */
int lat_sched_set_reader_cpu(struct lat_sched *s, int cpu);

/* Change opts.defer_bytes (0: decode live) before lat_sched_start.
 * Returns 0 or -EINVAL (started). */
int lat_sched_set_defer(struct lat_sched *s, size_t bytes);

/* Time every batched hand-off by CLOCK_MONOTONIC (a clock read each,
 * ~70 ns in a VM) instead of the run-queue clock from its batch's first
 * (the default; see sched_event.h): for a benchmark of the difference.
 * Before lat_sched_start; 0, -EINVAL or -LAT_EUNSUPP. */
int lat_sched_set_hop_mono(struct lat_sched *s, bool on);

/*
 * Follow thread @tid from now on (e.g. a pipeline thread, from its own
 * prepare hook). Any thread. Returns 0, -EINVAL, -ENOSPC (set full).
 */
int lat_sched_follow_tid(struct lat_sched *s, pid_t tid);

/*
 * Count only what happens in [from_ns, to_ns] (CLOCK_MONOTONIC; to_ns 0 =
 * open end). A new from_ns zeroes the counts before the first record at
 * or after it is counted; the state of each thread and CPU is kept, so a
 * thread runnable at from_ns is measured right. Any thread, before the
 * events it bounds happen.
 */
void lat_sched_set_window(struct lat_sched *s, uint64_t from_ns,
			  uint64_t to_ns);

/* "tp_btf" or "raw_tp": the programs that loaded. */
const char *lat_sched_flavour(const struct lat_sched *s);

/* Records consumed so far (any thread): to wait for events in tests. */
uint64_t lat_sched_records(const struct lat_sched *s);

/*
 * Detach, drain the ring, stop the consumer and close the window (now, or
 * its to_ns). The result is then final. Returns 0 or -errno.
 */
int lat_sched_stop(struct lat_sched *s);

/* The result (after lat_sched_stop; owned by @s). */
const struct lat_sched_result *lat_sched_result(const struct lat_sched *s);

/* Thread @tid in @r, or NULL. */
const struct lat_sched_thread *lat_sched_find_thread(
	const struct lat_sched_result *r, pid_t tid);

/* Watched CPU @cpu in @r, or NULL. */
const struct lat_sched_cpu *lat_sched_find_cpu(
	const struct lat_sched_result *r, int cpu);

/* Detach if needed and free everything. Accepts NULL. */
void lat_sched_close(struct lat_sched *s);

/*
 * The silence verdict of @c: true when no foreign task held it, and no
 * unreported switch-out leaves a stretch whose holder is unknown.
 */
static inline bool lat_sched_cpu_silent(const struct lat_sched_cpu *c)
{
	return c->intrusions == 0 && c->chain_breaks == 0;
}

/* "HI", "TIMER", ... for softirq vector @v; "?" when unknown. */
const char *lat_sched_softirq_name(int v);
/* "irq", "timer", "resched", "callfn", "callfn1", "irq_work". */
const char *lat_sched_irq_kind_name(int kind);

/* ---- Printing ---- */

/*
 * The report: totals (or, with per_thread, one block per thread): run
 * queue latency percentiles p50..p99.99 and max for both kinds, off-CPU
 * by reason, switches, migrations, who preempted it; then one line per
 * watched CPU with the silence verdict; then the accounting (records,
 * lost, unpaired). Returns 0 or -EIO.
 */
int lat_sched_print(FILE *out, const struct lat_sched_result *r);

/* The same facts as members of the JSON object open in @j. */
void lat_sched_write_json(struct lat_json *j, const struct lat_sched_result *r);

/*
 * The run's histograms as an .hlog on @out, one interval spanning the
 * trace: "rq_wakeup", "rq_preempt", "blocked" for the total, then
 * "tid<N>.<name>" per thread. Returns 0 or the hlog writer's error.
 */
int lat_sched_write_hlog(FILE *out, const struct lat_sched_result *r);

/* One line per watched CPU: "cpu 1: silent: 0 foreign switches ..." */
int lat_sched_print_cpus(FILE *out, const struct lat_sched_result *r);

/* ---- Fallback without the probe: /proc totals ---- */

struct lat_sched_proc {
	pid_t tid;
	char comm[16];
	uint64_t oncpu_ns, run_delay_ns, timeslices; /* schedstat */
	uint64_t vol, invol;                         /* status */
};

/*
 * Read thread @tid of process @pid (pid == tid for the main thread) from
 * /proc/<pid>/task/<tid>/{schedstat,stat,status}. Returns 0, -ESRCH (gone),
 * -LAT_EFORMAT (a file we could not parse), or -errno.
 */
int lat_sched_proc_read(pid_t pid, pid_t tid, struct lat_sched_proc *p);

/*
 * Every thread of @pid into @out (up to @max); *n gets the count.
 * Returns 0, -ESRCH, -ENOSPC (more threads than @max: the first @max
 * kept), or -errno.
 */
int lat_sched_proc_read_all(pid_t pid, struct lat_sched_proc *out, int max,
			    int *n);

/*
 * Turn the snapshot @after into what happened since @before, thread by
 * thread (matched by tid): on-CPU time, run delay, slices and switches.
 * A thread absent from @before was born during the window and keeps its
 * totals. No allocation.
 */
void lat_sched_proc_delta(const struct lat_sched_proc *before, int n_before,
			  struct lat_sched_proc *after, int n_after);

/* The per-thread table for people: tid, comm, on CPU and run delay in
 * ms, voluntary and involuntary switches; a header line first. */
void lat_sched_proc_print(FILE *out, const struct lat_sched_proc *d, int n);

/* The same rows as a JSON array @key (times in ns) written into @j. */
struct lat_json;
void lat_sched_proc_json(struct lat_json *j, const char *key,
			 const struct lat_sched_proc *d, int n);

/* Threads a snapshot holds at most (a process with more is cut there). */
#define LAT_SCHED_PROC_MAX_THREADS 4096

/* Every thread of one process at one moment (lat_sched_proc_snapshot). */
struct lat_sched_proc_snap {
	struct lat_sched_proc *v; /* LAT_SCHED_PROC_MAX_THREADS rows */
	int n;                    /* rows read */
};

/*
 * Allocate @s and read every thread of @pid into it. Returns 0, -ENOMEM
 * (nothing left allocated), or lat_sched_proc_read_all's error with the
 * rows read kept (-ESRCH: the process is gone, n = 0). The window's
 * totals are lat_sched_proc_delta(before.v, before.n, after.v, after.n).
 */
int lat_sched_proc_snapshot(pid_t pid, struct lat_sched_proc_snap *s);
void lat_sched_proc_snap_free(struct lat_sched_proc_snap *s);

/*
 * The fallback's report for people on @out: that the probe is
 * unavailable and @why, what /proc gives instead (totals, no histogram,
 * no attribution), then the per-thread table of @d (a window's delta).
 */
void lat_sched_proc_report(FILE *out, const char *why,
			   const struct lat_sched_proc_snap *d);

/* The same as JSON members written into the open object of @j:
 * "source": "proc", "probe_unavailable": @why, "threads": [...]. */
void lat_sched_proc_report_json(struct lat_json *j, const char *why,
				const struct lat_sched_proc_snap *d);

/* ---- The traced process: one we start, or one already running ---- */

/*
 * What `latlab sched` traces: a command started held before its exec
 * (latlab/spawn.h), released once the probe is attached so its first
 * instruction is traced, or a running process. Not for hot paths.
 */
struct lat_sched_target {
	pid_t pid;
	bool child;          /* started by lat_sched_target_spawn */
	bool exited;         /* seen gone (a child: its status is known) */
	bool reaped;         /* a child's status collected */
	int status;          /* a child's wait status, once exited */
	int pidfd;           /* -1: watched with kill(pid, 0) */
	struct lat_spawn sp;
};

/* Start @argv held before exec. Returns 0 or -errno (pipe, fork). */
int lat_sched_target_spawn(struct lat_sched_target *t, char *const *argv);

/* Follow running process @pid. Returns 0 or -ESRCH (no such process). */
int lat_sched_target_follow(struct lat_sched_target *t, pid_t pid);

/*
 * Let a held command exec (nothing for a followed process) and start
 * watching for its exit. Returns 0, or -errno of the exec that failed
 * (-ENOENT: no such command; the child is reaped).
 */
int lat_sched_target_release(struct lat_sched_target *t);

/*
 * Wait until @duration_ns has passed (0: no limit), the target exits or
 * @stop(@ctx) (may be NULL, asked every 50 ms) says so. A child that
 * exits is reaped, unless @keep_zombie: then it stays a zombie, its
 * /proc entries readable, until lat_sched_target_end(). Returns true when
 * the target is gone.
 */
bool lat_sched_target_wait(struct lat_sched_target *t, double duration_ns,
			   bool keep_zombie, bool (*stop)(void *ctx),
			   void *ctx);

/*
 * After the trace: a child still running is sent @sig (0: none; a
 * terminal's Ctrl-C reached it already) and reaped, as is a zombie kept
 * by lat_sched_target_wait; a signal to us during that wait leaves it
 * running and its status unknown (t->reaped false: nothing is printed
 * as its exit). Closes what the target held.
 */
void lat_sched_target_end(struct lat_sched_target *t, int sig);

/* "command: <name> (pid N), exited S" / "process: N (exited during the
 * trace)": one line on @out. */
void lat_sched_target_print(FILE *out, const struct lat_sched_target *t,
			    const char *name);


/* ---- A whole trace: what `latlab sched` does, for any program ---- */

/* Where lat_sched_session_start stopped when it failed. */
enum lat_sched_session_step {
	LAT_SCHED_AT_TARGET,  /* starting the command / finding the pid */
	LAT_SCHED_AT_PROC,    /* the first /proc snapshot (fallback) */
	LAT_SCHED_AT_LOAD,    /* lat_sched_open */
	LAT_SCHED_AT_ATTACH,  /* lat_sched_start */
	LAT_SCHED_AT_RELEASE, /* the held command's exec */
};

/*
 * One process traced from start to report, with the probe when it can
 * load and the /proc totals when it cannot (or @proc_only):
 *
 *     struct lat_sched_session s = { .argv = cmd, .stop = my_stop };
 *     if (!lat_sched_session_start(&s)) {
 *             lat_sched_session_wait(&s);
 *             lat_sched_session_finish(&s, 0);
 *             lat_sched_session_print(stdout, &s);
 *     }
 *     lat_sched_session_close(&s);
 */
struct lat_sched_session {
	/* in */
	char *const *argv;    /* a command to start, held until traced */
	pid_t pid;            /* or a running process (argv NULL) */
	double duration_ns;   /* 0: until it exits or @stop; a command
			       * traced through /proc always runs to its
			       * exit */
	const int *cpus;      /* CPUs to watch (the probe only) */
	int n_cpus;
	bool per_thread;
	bool proc_only;       /* skip the probe: /proc totals */
	bool (*stop)(void *ctx); /* asked every 50 ms; may be NULL */
	void *stop_ctx;
	/* out */
	enum lat_sched_session_step at; /* the step a start error is from */
	struct lat_sched_target t;
	bool started;         /* t holds a process */
	struct lat_sched *probe; /* NULL: the /proc fallback */
	struct lat_sched_avail avail;
	const char *why;      /* the fallback's reason (avail.reason, or
			       * that the /proc totals were asked for) */
	struct lat_sched_proc_snap before, after; /* the fallback's; after
			       * holds the window's delta once finished */
	bool interrupted;     /* finish was given a signal */
};

/*
 * Start or find the target, then load and attach the probe (or take the
 * first /proc snapshot), then let a held command exec, so that its
 * first instruction is traced. Returns 0, or a negative errno with s->at
 * the step that failed (-ESRCH at TARGET or LOAD: no such process; at
 * RELEASE: the exec's error). Call lat_sched_session_close either way.
 */
int lat_sched_session_start(struct lat_sched_session *s);

/* Wait for s->duration_ns, the target's exit or s->stop. */
void lat_sched_session_wait(struct lat_sched_session *s);

/*
 * End the window: stop the probe (or take the second snapshot and make
 * the delta), then end the target: a command still running is sent
 * @sig (0: none: a terminal's Ctrl-C reached it already; a signal sent
 * to the caller alone is passed on, else the caller would wait for the
 * whole command) and reaped. Returns 0 or the probe's or snapshot's
 * -errno.
 */
int lat_sched_session_finish(struct lat_sched_session *s, int sig);

/* The report for people: the target line, then the probe's report
 * (lat_sched_print) or the fallback's (lat_sched_proc_report). */
void lat_sched_session_print(FILE *out, const struct lat_sched_session *s);

/* The same as members of the object open in @j: "pid", and "exited",
 * "interrupted", "source": "bpf" and the probe's facts, or the
 * fallback's members (lat_sched_proc_report_json). */
void lat_sched_session_json(struct lat_json *j,
			    const struct lat_sched_session *s);

/* Free what the session holds; a target still held or running is
 * killed (SIGKILL) and reaped. Safe after a failed start. */
void lat_sched_session_close(struct lat_sched_session *s);

#endif
