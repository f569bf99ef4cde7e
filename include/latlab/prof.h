/*
 * lat_prof: where the time goes. On-CPU sampling with perf_event_open,
 * stacks symbolized with elfutils, folded stacks and interactive SVG
 * flame graphs (plain and differential).
 *
 * The pieces, in the order a profile flows through them:
 *
 *   lat_prof_create/attach/start/poll/stop   sample the target's threads:
 *       the software cpu-clock event (the hardware cycles event where a
 *       PMU exists), PERF_SAMPLE_TID|TIME|CALLCHAIN, one mmap ring per
 *       CPU shared by every target thread's event on that CPU; stacks by
 *       frame pointers (build the target with -fno-omit-frame-pointer).
 *   lat_prof_fold                           symbolize the raw stacks into
 *       a struct lat_prof_folded: libdwfl over the target's mappings
 *       (executable, PIE, shared libraries) and /proc/kallsyms for kernel
 *       frames.
 *   lat_prof_folded_*                       the interchange format
 *       ("root;caller;leaf count" lines, read by FlameGraph, inferno,
 *       speedscope): add, read, write.
 *   lat_prof_svg_write / _diff              a self-contained SVG flame
 *       graph (embedded script: hover, click to zoom, search), and the
 *       differential graph of two profiles.
 *
 * Invariants:
 *  - Nothing is dropped. A sample whose frame cannot be named keeps the
 *    frame as "[unknown] (module)" (or "[unknown]" when no mapping holds
 *    the address); a sample the kernel could not write to the ring is
 *    counted in lat_prof_stats.lost; a callchain cut at the kernel's
 *    depth limit is counted in .truncated. Every sample read lands in
 *    exactly one folded stack: folded total == stats.samples.
 *  - Kernel frames are sampled only when perf_event_paranoid and the
 *    process's privileges allow it; otherwise the profile is user-only and
 *    lat_prof_stats.kernel_note says why.
 *  - Every stack's root frame is its thread's name (the comm, or the name
 *    given with lat_prof_name_thread()), so threads never merge with each
 *    other's stacks below the root.
 *  - The sampler is not on any hot path: it runs on the caller's thread,
 *    allocates and makes syscalls. The profiled threads pay only the
 *    kernel's cost of taking a sample (measured by `latlab profile
 *    --overhead`). One struct lat_prof is used by one thread at a time.
 *  - Errors: 0 or a negative errno-style code (lat_strerror()).
 *    -LAT_EUNSUPP where the machine cannot do it (no perf_event_open, no
 *    libdw in this build); the reason is in lat_prof_stats or the note
 *    functions.
 */
#ifndef LATLAB_PROF_H
#define LATLAB_PROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "latlab/common.h"

/* The default rate: odd, so it does not alias with 100 Hz / 1 kHz timers. */
#define LAT_PROF_DEFAULT_HZ 99
#define LAT_PROF_MAX_HZ 100000
/* Above this the profiler's own cost starts to show (see docs/profile.md). */
#define LAT_PROF_COSTLY_HZ 1000

/* Deepest stack accepted (a folded line of more frames is refused). */
#define LAT_PROF_MAX_FRAMES 4096

/* Room for a one-line reason ("perf_event_paranoid=2 ..."). */
#define LAT_PROF_NOTE_LEN 160

/* ------------------------------------------------------------------ */
/* Folded stacks                                                       */
/* ------------------------------------------------------------------ */

/* One distinct stack, root first, frames joined by ';'. */
struct lat_prof_stack {
	char *frames;
	uint64_t weight;        /* samples (on-CPU) or ns (off-CPU) */
};

/*
 * A set of distinct stacks with their weights; adding an existing stack
 * adds to its weight. Caller storage: zero it (or lat_prof_folded_init())
 * and lat_prof_folded_release() it.
 */
struct lat_prof_folded {
	struct lat_prof_stack *v;
	size_t n, cap;
	uint64_t total;         /* sum of the weights */
	size_t *hash;           /* open addressing index into v (+1; 0 empty) */
	size_t hash_cap;
};

void lat_prof_folded_init(struct lat_prof_folded *f);
void lat_prof_folded_release(struct lat_prof_folded *f);

/*
 * Add @weight to the stack @frames (root first, ';'-separated, no
 * newline; copied). A frame may not be empty. Returns 0, -EINVAL (empty
 * stack or frame, a newline in it, more than LAT_PROF_MAX_FRAMES frames,
 * total overflow) or -ENOMEM.
 */
int lat_prof_folded_add(struct lat_prof_folded *f, const char *frames,
			uint64_t weight);

/*
 * Read folded lines ("a;b;c 123") from @in and add them to @f. Blank lines
 * are skipped; anything else that is not a stack, a space and a decimal
 * count is refused. Returns 0, -LAT_EFORMAT with @line (if not NULL) set
 * to the 1-based line at fault, -ENOMEM, or -EIO on a read error.
 */
int lat_prof_folded_read(struct lat_prof_folded *f, FILE *in, size_t *line);

/*
 * lat_prof_folded_read of the file at @path: also -errno when it cannot
 * be opened (-ENOENT, -EACCES, ...).
 */
int lat_prof_folded_load(struct lat_prof_folded *f, const char *path,
			 size_t *line);

/*
 * Write @f as folded lines sorted by stack (the order FlameGraph uses, so
 * two runs diff cleanly). Returns 0 or -EIO.
 */
int lat_prof_folded_write(const struct lat_prof_folded *f, FILE *out);

/*
 * @f's size as an object named @name (NULL inside an array or at the top)
 * in the JSON open in @j: "total" (the weights' sum: samples or ns) and
 * "stacks" (distinct stacks).
 */
struct lat_json;
void lat_prof_folded_json(struct lat_json *j, const char *name,
			  const struct lat_prof_folded *f);

/*
 * Sum of the weights of the stacks whose frames, root first, start with
 * the frames of @prefix (frame-aligned: "a;b" matches "a;b;c" and "a;b",
 * not "a;bc") and contain a frame equal to @frame when @frame is not
 * NULL. The query behind "how much of this thread's time is in hot_a".
 */
uint64_t lat_prof_folded_weight(const struct lat_prof_folded *f,
				const char *prefix, const char *frame);

/* ------------------------------------------------------------------ */
/* Flame graphs                                                        */
/* ------------------------------------------------------------------ */

enum lat_prof_palette {
	LAT_PROF_HOT,           /* on-CPU: reds, oranges, yellows */
	LAT_PROF_COLD,          /* off-CPU: blues, greens, purples */
};

struct lat_prof_svg_opts {
	const char *title;      /* shown on top; NULL: "Flame graph" */
	const char *subtitle;   /* a line under it (command, rate); may be NULL */
	const char *unit;       /* "samples" or "ns"; NULL: "samples" */
	enum lat_prof_palette palette;
	int width;              /* px; 0: 1200 */
};

/*
 * Write @f as a standalone interactive SVG flame graph: root at the
 * bottom, each frame's width proportional to its inclusive weight, frames
 * narrower than 0.1 px merged away (their weight stays in the parent).
 * The embedded script (no external file or font) shows name, weight and
 * percentage on hover, zooms to a frame on click (and back with "Reset
 * zoom"), and highlights frames matching a search with the matched share.
 * Colours are a hash of the name, so a function keeps its colour across
 * graphs. Every frame is a <g class="f"> holding <title>, <rect> and
 * <text>; the rect carries data-w (the weight) for scripts and tests.
 * Returns 0, -EINVAL (empty profile), -ENOMEM or -EIO.
 */
int lat_prof_svg_write(const struct lat_prof_folded *f,
		       const struct lat_prof_svg_opts *o, FILE *out);

/*
 * The differential flame graph: the shape of @after; each frame coloured
 * by the change of its share of the total between @before and @after
 * (inclusive weight / total, so two runs of different length compare):
 * red grew, blue shrank, the deeper the colour the larger the change;
 * white exactly when the share did not change. A frame present only in
 * @before has no width in @after: those are counted in the subtitle.
 * Each rect carries data-delta (the change in share, -1..1).
 * Returns 0, -EINVAL (either profile empty), -ENOMEM or -EIO.
 */
int lat_prof_svg_write_diff(const struct lat_prof_folded *before,
			    const struct lat_prof_folded *after,
			    const struct lat_prof_svg_opts *o, FILE *out);

/* A frame whose share of the total changed between two profiles. */
struct lat_prof_change {
	char *frames;           /* its path from the root, ';'-separated */
	double before_share;    /* inclusive weight / total, 0..1 */
	double after_share;
};

/*
 * Every frame of @before and @after whose share changed (the frames a
 * differential graph colours), largest change first, into a new array
 * *@out of *@n entries (free with lat_prof_changes_free). Returns 0,
 * -EINVAL (either profile empty) or -ENOMEM.
 */
int lat_prof_diff_changes(const struct lat_prof_folded *before,
			  const struct lat_prof_folded *after,
			  struct lat_prof_change **out, size_t *n);
void lat_prof_changes_free(struct lat_prof_change *v, size_t n);

/*
 * The comparison as one JSON object into @j (the caller owns
 * lat_json_init / lat_json_finish): before_total, after_total,
 * before_stacks, after_stacks and changed[] ({frames, before_share,
 * after_share}, largest change first). Returns 0, -EINVAL or -ENOMEM
 * (nothing written then).
 */
struct lat_json;
int lat_prof_diff_json(struct lat_json *j, const struct lat_prof_folded *b,
		       const struct lat_prof_folded *a);

/* ------------------------------------------------------------------ */
/* On-CPU sampling                                                     */
/* ------------------------------------------------------------------ */

struct lat_prof;

struct lat_prof_config {
	double freq_hz;         /* samples per CPU-second per thread; 0: 99 */
	bool user_only;         /* never sample kernel frames */
	size_t ring_pages;      /* data pages per CPU ring, a power of two;
				 * 0: 64 (256 KiB with 4 KiB pages) */
	/*
	 * Also trace off-CPU time with eBPF: at each sched_switch, the time a
	 * target thread spends off its CPU, summed per (thread, kernel stack,
	 * user stack, reason). Needs a build with BPF, the kernel's BTF and
	 * root (or CAP_BPF + CAP_PERFMON); when any is missing the on-CPU
	 * profile goes on and lat_prof_stats.offcpu_note says why.
	 */
	bool offcpu;
};

/* What a profile run counted, and the reasons behind what it could not. */
struct lat_prof_stats {
	uint64_t samples;       /* samples read and kept */
	uint64_t lost;          /* samples the kernel dropped (ring full) */
	uint64_t truncated;     /* callchains cut at the depth limit */
	uint64_t throttled;     /* times the kernel throttled the event */
	int threads;            /* threads attached, and the inherited ones
				 * seen in a sample or off-CPU interval */
	int cpus;               /* rings */
	bool kernel;            /* kernel frames sampled */
	bool hardware;          /* cycles (true) or cpu-clock (false) */
	double freq_hz;
	uint64_t reader_cpu_ns; /* CPU time of the sampling thread */
	double sampled_s;       /* wall time lat_prof_sample_until took, its
				 * stop and the command's end included (the
				 * time `latlab profile` shows); else 0 */
	/* why kernel frames are excluded ("" when they are sampled) */
	char kernel_note[LAT_PROF_NOTE_LEN];
	/* why the event is cpu-clock and not cycles */
	char event_note[LAT_PROF_NOTE_LEN];

	bool offcpu;            /* off-CPU time traced */
	uint64_t offcpu_ns;     /* total off-CPU time of the target threads */
	uint64_t offcpu_open;   /* intervals still open at the stop (counted
				 * up to the stop) */
	uint64_t offcpu_stack_errors; /* intervals kept without a stack */
	uint64_t offcpu_dropped;      /* intervals the kernel maps had no
				       * room for (not in offcpu_ns) */
	/* why off-CPU time is not traced ("" when it is, or not asked) */
	char offcpu_note[LAT_PROF_NOTE_LEN];
};

/*
 * Allocate a profiler. @cfg may be NULL for the defaults. Returns 0,
 * -EINVAL (freq outside (0, LAT_PROF_MAX_HZ], ring_pages not a power of
 * two) or -ENOMEM. Nothing is opened yet.
 */
int lat_prof_create(const struct lat_prof_config *cfg, struct lat_prof **out);

/*
 * Sample every thread of process @pid, and the threads and processes they
 * start after this call (the events are inherited). Reads the process's
 * mappings now (for symbols) and follows new ones through the ring.
 * @enable_on_exec: the events start counting at the process's next exec
 * (for a child stopped before exec; see lat_prof_spawn).
 * May be called once per profiler, before lat_prof_start().
 * Returns 0, -ESRCH (no such process), -EACCES/-EPERM (not allowed to
 * profile it: the reason is in lat_prof_stats().kernel_note's neighbour,
 * lat_prof_error_note()), -LAT_EUNSUPP (no perf_event_open, or no event
 * can sample on this machine), -EMFILE, -ENOMEM.
 */
int lat_prof_attach_pid(struct lat_prof *p, pid_t pid, bool enable_on_exec);

/*
 * Give thread @tid the root frame @name instead of its comm (for threads
 * of one process that share a comm, like latlab's pipeline). Copied.
 * Returns 0, -EINVAL or -ENOMEM.
 */
int lat_prof_name_thread(struct lat_prof *p, pid_t tid, const char *name);

/* Enable the events (not needed after enable_on_exec). Returns 0/-errno. */
int lat_prof_start(struct lat_prof *p);

/*
 * Wait up to @timeout_ms (0: do not wait, -1: forever) for ring data and
 * drain every ring into the profiler's raw stack table. Call often enough
 * that a ring never fills (every 100 ms is plenty at 99 Hz; the ring
 * wakes the poll at a quarter full). Returns the number of samples read
 * (>= 0), or -EINTR when a signal interrupted the wait, or -errno.
 */
int lat_prof_poll(struct lat_prof *p, int timeout_ms);

/* Disable the events and drain the rings one last time. Returns 0/-errno. */
int lat_prof_stop(struct lat_prof *p);

/* The counts so far. */
void lat_prof_get_stats(const struct lat_prof *p, struct lat_prof_stats *s);

/*
 * Why the last lat_prof_attach_pid() failed, as one line ("" if it did
 * not): "perf_event_paranoid=3 forbids profiling (EACCES)", ...
 */
const char *lat_prof_error_note(const struct lat_prof *p);

/*
 * Symbolize every raw stack and add it to @f, root first: the thread's
 * name, then user frames (outermost first), then kernel frames suffixed
 * "_[k]" (the FlameGraph convention). User frames are named by libdwfl
 * over the target's mappings; without libdw in the build they are
 * "[unknown] (module)" and lat_prof_symbols_note() says so. Call after
 * lat_prof_stop() (may be called again: each call adds the same stacks).
 * Returns 0 or -ENOMEM.
 */
int lat_prof_fold(struct lat_prof *p, struct lat_prof_folded *f);

/*
 * The off-CPU profile (lat_prof_config.offcpu): like lat_prof_fold, with
 * weights in ns and, right above the thread's root frame, why it was off
 * its CPU: "[blocked]" (asleep: I/O, a lock, a sleep), "[runnable:
 * preempted]" (the scheduler took the CPU away) or "[runnable: yielded]"
 * (it gave the CPU up and waited to get it back). Adds nothing when
 * off-CPU tracing did not run. Returns 0 or -ENOMEM.
 */
int lat_prof_fold_offcpu(struct lat_prof *p, struct lat_prof_folded *f);

/*
 * "" when user symbols are available in this build, else the reason and
 * the install line.
 */
const char *lat_prof_symbols_note(void);

/* Close everything and free. NULL is fine. */
void lat_prof_free(struct lat_prof *p);

/* ------------------------------------------------------------------ */
/* Profiling a command or a running process                            */
/* ------------------------------------------------------------------ */

/*
 * Start @argv (argv[0] searched in PATH) with @p attached from its first
 * instruction: the child waits until the events are open (enable_on_exec),
 * then execs, and exec's errno comes back on a close-on-exec pipe, so a
 * command that cannot run is an error here, not a silent empty profile.
 * Returns 0 with *@pid set, -ENOENT/-EACCES/-ENOEXEC/... when the command
 * cannot be executed (the child is reaped), or lat_prof_attach_pid()'s
 * error (the child exits without exec and is reaped).
 */
int lat_prof_spawn(struct lat_prof *p, char **argv, pid_t *pid);

/*
 * Drain @p every 100 ms until @duration_ns passes (0: no limit), process
 * @pid is gone, or @stop (may be NULL) returns true, then lat_prof_stop().
 * @child: @pid is the caller's child (lat_prof_spawn): it is reaped, its
 * wait status in *@status, and it gets SIGTERM when time is up or @stop
 * asked first (the command ends with its profile). Returns 0, or the
 * first error of lat_prof_poll() (other than -EINTR) or lat_prof_stop().
 */
int lat_prof_sample_until(struct lat_prof *p, pid_t pid, bool child,
			  double duration_ns, bool (*stop)(void *ctx),
			  void *ctx, int *status);

/* ------------------------------------------------------------------ */
/* A whole profile, as `latlab profile` takes it                       */
/* ------------------------------------------------------------------ */

/* Where lat_prof_run() failed (run->failed), for the caller to word. */
enum lat_prof_run_step {
	LAT_PROF_RUN_OK,
	LAT_PROF_RUN_CREATE,        /* lat_prof_create */
	LAT_PROF_RUN_ATTACH,        /* spawning or attaching: run->why */
	LAT_PROF_RUN_SAMPLE,        /* starting or sampling */
	LAT_PROF_RUN_FOLD,          /* symbolizing */
	LAT_PROF_RUN_FOLDED,        /* writing run->folded */
	LAT_PROF_RUN_OFFCPU_FOLDED, /* writing run->offcpu_folded */
	LAT_PROF_RUN_SVG,           /* writing run->svg */
	LAT_PROF_RUN_OFFCPU_SVG,    /* writing run->offcpu_svg */
	LAT_PROF_RUN_OUT,           /* writing the summary on run->out */
};

struct lat_prof_run {
	/* what to profile: set before lat_prof_run */
	struct lat_prof_config cfg;
	pid_t pid;                  /* a running process, or ... */
	char **argv;                /* ... a command started and profiled
				     * from its first instruction (then pid
				     * is set to its pid) */
	double duration_ns;         /* 0: until the process ends */
	bool (*stop)(void *ctx);    /* polled; true ends the sampling */
	void *stop_ctx;
	const char *title;          /* the flame graphs' title, or NULL */

	/* where the results go: NULL = not wanted */
	FILE *folded, *svg;         /* on-CPU folded stacks, flame graph */
	FILE *offcpu_folded, *offcpu_svg; /* the same off CPU */
	FILE *out;                  /* the summary: lat_prof_print, or with
				     * .json lat_prof_json's object */
	bool json;
	FILE *note;                 /* commentary (stderr), or NULL */
	const char *note_prefix;    /* e.g. "latlab profile: " */

	/* filled by lat_prof_run */
	enum lat_prof_run_step failed;
	char why[LAT_PROF_NOTE_LEN]; /* LAT_PROF_RUN_ATTACH: the reason
				     * (lat_prof_error_note), or "" */
	struct lat_prof_stats st;   /* what was sampled */
	int status;                 /* a command's wait status */
};

/*
 * Take a whole profile: create, spawn @run->argv or attach to @run->pid,
 * start (a note "sampling pid <pid> ..." once sampling runs, which a
 * caller can wait for), sample until the time is up, the process ends or
 * @run->stop says so, fold on and off CPU, and write every output asked
 * for, then the summary; a note says why off-CPU time is missing when
 * asked for and not traced. Returns 0 or an error with @run->failed set
 * (the outputs before it are written). Everything it allocated is freed.
 */
int lat_prof_run(struct lat_prof_run *run);

/* ------------------------------------------------------------------ */
/* Profiling this process                                              */
/* ------------------------------------------------------------------ */

struct lat_prof_self;

/*
 * Profile this process (every thread, and the ones it starts) from now
 * on: create, attach to getpid(), start, and a reader thread
 * ("prof-reader", itself in the profile) that drains the rings every
 * 50 ms so the caller's threads never have to. Signals are blocked in the
 * reader. On failure returns the error of the step that failed and, when
 * @why is not NULL, the reason in it ("" if none). Name threads before
 * this call (pthread_setname_np) or with lat_prof_name_thread.
 */
int lat_prof_self_begin(const struct lat_prof_config *cfg,
			struct lat_prof_self **out, char *why, size_t len);

/*
 * Stop the reader and the sampling; *@out receives the profiler (fold
 * it, read its stats, lat_prof_free it). @s is freed. Returns 0 or the
 * first sampling error (the profile up to it is still in *@out).
 */
int lat_prof_self_end(struct lat_prof_self *s, struct lat_prof **out);

/*
 * Write the profile into directory @dir: oncpu.folded and oncpu.svg,
 * and, when off-CPU time was traced, offcpu.folded and offcpu.svg (an
 * empty profile gets its folded file and no graph). @what heads the
 * graphs' subtitles ("latlab pipeline, 2000000 events"). Returns 0,
 * -ENOTDIR, or the first write error.
 */
int lat_prof_write_dir(struct lat_prof *p, const char *dir,
		       const char *what);

/*
 * @f as a flame graph (lat_prof_svg_write) titled @title (NULL: "On-CPU
 * flame graph", or "Off-CPU flame graph" with @off), hot or cold palette,
 * whose subtitle says what @st counted: "<what>: 99 Hz cpu-clock, 812
 * samples, 0 lost" or "<what>: time off CPU (eBPF sched_switch), 1.234 s
 * in all, 0 dropped". An empty profile still gets a graph, of one frame
 * saying so. Returns 0, -ENOMEM or -EIO.
 */
int lat_prof_svg_write_run(const struct lat_prof_folded *f,
			   const struct lat_prof_stats *st, bool off,
			   const char *what, const char *title, FILE *out);

/*
 * One line on @out saying where lat_prof_write_dir() put the graphs of
 * @dir and what they hold (samples, rate, lost; off-CPU time, or why
 * there is none).
 */
void lat_prof_print_dir(FILE *out, const char *dir,
			const struct lat_prof_stats *st);

/*
 * The summary of a profile of @pid, for people on @out: the event and
 * what was lost, then the threads and the hottest functions (self) on
 * CPU from @on, and with @offcpu the off-CPU total, threads, reasons
 * (the frame above the thread) and where each wait left user space from
 * @off, each heaviest first. @wall_s is the time sampled. Returns 0 or
 * -ENOMEM (what was printed stays).
 */
int lat_prof_print(FILE *out, pid_t pid, const struct lat_prof_stats *st,
		   const struct lat_prof_folded *on,
		   const struct lat_prof_folded *off, bool offcpu,
		   double wall_s);

/*
 * The same facts as one JSON object written into @j (the caller owns
 * lat_json_init / lat_json_finish). Returns 0 or -ENOMEM.
 */
struct lat_json;
int lat_prof_json(struct lat_json *j, pid_t pid,
		  const struct lat_prof_stats *st,
		  const struct lat_prof_folded *on,
		  const struct lat_prof_folded *off, bool offcpu,
		  double wall_s);

#endif
