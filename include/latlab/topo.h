/*
 * lat_topo: CPU topology from sysfs and the process affinity mask, and the
 * placement of a pipeline's hot threads on it.
 *
 * Invariants:
 *  - "Usable" means online AND in the process's affinity mask (taskset,
 *    cgroup cpusets). Nothing outside the mask is ever chosen.
 *  - A physical core is named by the lowest CPU number among its SMT
 *    siblings (thread_siblings_list); a last-level cache by the lowest CPU
 *    in its shared_cpu_list.
 *  - Placement never fails for lack of CPUs: with fewer usable CPUs than hot
 *    threads it shares CPUs and says so in lat_topo_place.flags. Every
 *    compromise it makes is a flag; none is silent.
 *  - The sysfs root is a parameter so tests can model any machine with a
 *    directory of fake files (see tests/test_topo.c).
 *  - Nothing here is for hot paths: loading reads files and allocates
 *    nothing (struct lat_topo is caller storage, about 24 KiB).
 *
 * Thread-safety: lat_topo_load/lat_topo_place are reentrant on distinct
 * structs; lat_topo_pin_self affects only the calling thread.
 */
#ifndef LATLAB_TOPO_H
#define LATLAB_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/common.h"

/* CPUs numbered 0 .. LAT_TOPO_MAX_CPUS-1 (glibc's CPU_SETSIZE). */
#define LAT_TOPO_MAX_CPUS 1024
/* Hot threads one placement can hold (producer + stages + consumer). */
#define LAT_TOPO_MAX_HOT 64

struct lat_topo_cpu {
	bool online;
	bool allowed;   /* in the affinity mask given to lat_topo_load */
	bool isolated;  /* listed in <root>/isolated (isolcpus=) */
	int core;       /* lowest CPU among its SMT siblings */
	int package;    /* physical_package_id, 0 when unknown */
	int llc;        /* lowest CPU sharing its last-level cache, -1 if
			 * unknown */
};

struct lat_topo {
	int n_cpus;          /* highest CPU number seen + 1 */
	int n_online;
	int n_usable;        /* online and allowed */
	int n_usable_cores;  /* physical cores with at least one usable CPU */
	int n_isolated;      /* isolated CPUs, usable or not */
	int n_isolated_usable;
	int max_smt;         /* most usable siblings on one core (1 = no SMT) */
	int llc_level;       /* cache level used for llc, 0 when unknown */
	struct lat_topo_cpu cpu[LAT_TOPO_MAX_CPUS];
};

/*
 * Read the topology under @sysfs_root (NULL: "/sys/devices/system/cpu")
 * and mark CPUs in @allowed (array of LAT_TOPO_MAX_CPUS bools; NULL: the
 * calling thread's sched_getaffinity mask). Per-CPU files and the
 * "isolated" list that do not exist (ENOENT, ENOTDIR) or do not parse are
 * tolerated (a CPU without topology is its own core and package); a file
 * that exists but cannot be read (ENOMEM, EMFILE, EACCES, EIO...) returns
 * that -errno, since guessing would misplace threads silently. A missing
 * "online" list returns -ENOENT, an unparsable one -LAT_EFORMAT. Returns 0
 * on success; on error *@t is not a usable topology.
 */
int lat_topo_load(struct lat_topo *t, const char *sysfs_root,
		  const bool *allowed);

/*
 * Parse a kernel CPU list ("0-3,8,10-11", "" or "\n" = empty) into @set
 * (LAT_TOPO_MAX_CPUS bools, cleared first). Returns the number of CPUs in
 * it, -LAT_EFORMAT for bad syntax or a descending range, -ERANGE for a CPU
 * >= LAT_TOPO_MAX_CPUS.
 */
int lat_topo_list_parse(const char *s, bool *set);

/*
 * Parse a CPU list keeping the user's order and repeats ("3,1,2-4" gives
 * 3 1 2 3 4) into @out (@max entries). Returns the count, the errors of
 * lat_topo_list_parse, or -E2BIG when more than @max CPUs are listed.
 */
int lat_topo_list_parse_seq(const char *s, int *out, int max);

/*
 * Write @set as a compact CPU list ("0-3,8") into @buf (always
 * NUL-terminated; "-" for an empty set). Returns @buf.
 */
char *lat_topo_list_format(const bool *set, char *buf, size_t len);

/* Compromises a placement made; each one is printed by the CLI. */
enum lat_topo_flags {
	LAT_TOPO_SHARED_CPU = 1 << 0,  /* two hot threads on one logical CPU */
	LAT_TOPO_SMT = 1 << 1,         /* two hot threads on SMT siblings */
	LAT_TOPO_CPU0 = 1 << 2,        /* a hot thread on CPU 0 */
	LAT_TOPO_CROSS_LLC = 1 << 3,   /* hot threads span last-level caches */
	LAT_TOPO_NOT_ISOLATED = 1 << 4,/* usable isolated CPUs exist, but a
					* hot thread is on a non-isolated one */
	LAT_TOPO_ISOLATED_OUTSIDE = 1 << 5, /* isolated CPUs exist but none
					* is in the affinity mask */
	LAT_TOPO_CHOSEN = 1 << 6,      /* CPUs came from the user (--cpus) */
};

struct lat_topo_place {
	int n;                    /* hot threads placed */
	int cpu[LAT_TOPO_MAX_HOT];/* CPU of hot thread i (0 = producer) */
	unsigned flags;           /* enum lat_topo_flags */
	int n_cpus_used;          /* distinct logical CPUs */
	int n_cores_used;         /* distinct physical cores */
};

/*
 * Choose CPUs for @n hot threads (1..LAT_TOPO_MAX_HOT), in pipeline order
 * (neighbours in the order talk to each other):
 *  - one physical core each, isolated cores first, CPU 0's core last,
 *    cores sharing one last-level cache before spilling to another;
 *  - if there are fewer usable cores than threads, SMT siblings next;
 *  - if there are fewer usable CPUs than threads, thread 0 (the open-loop
 *    producer, which busy-waits for its send times) keeps a CPU to itself
 *    when there are at least two, and the rest are packed in pipeline
 *    order onto the remaining CPUs, neighbours together.
 * Returns 0, -EINVAL for @n out of range, -ENODEV when no CPU is usable.
 */
int lat_topo_place(const struct lat_topo *t, int n,
		   struct lat_topo_place *p);

/*
 * Narrow @t's usable CPUs to those also in @set (LAT_TOPO_MAX_CPUS bools)
 * and recount, so lat_topo_place chooses among them ("use CPUs 4-7").
 * Returns the number of usable CPUs left.
 */
int lat_topo_restrict(struct lat_topo *t, const bool *set);

/*
 * Place @n hot threads on the user's @cpus (@n_cpus entries, in order;
 * fewer than @n are packed as lat_topo_place does when short of CPUs).
 * Returns 0, -EINVAL for bad counts, or -ESRCH when a CPU is not usable:
 * then *@bad_cpu names it (@bad_cpu may be NULL).
 */
int lat_topo_place_cpus(const struct lat_topo *t, const int *cpus,
			int n_cpus, int n, struct lat_topo_place *p,
			int *bad_cpu);

/*
 * The usable CPUs of @t (online, in the affinity mask), lowest first:
 * writes at most @cap of them to @cpus and returns how many there are.
 */
int lat_topo_usable_cpus(const struct lat_topo *t, int *cpus, int cap);

/*
 * A usable CPU (online, in the affinity mask) that placement @p does not
 * use, for a helper thread that must not disturb the hot ones (lowest
 * number first); -1 when every usable CPU holds a hot thread.
 */
int lat_topo_unused_cpu(const struct lat_topo *t,
			const struct lat_topo_place *p);

/*
 * One lowercase sentence (no final period) for a single flag of enum
 * lat_topo_flags, e.g. "hot threads share logical CPUs". NULL for 0 or an
 * unknown bit.
 */
const char *lat_topo_flag_text(unsigned flag);

/* ---- caches, as sysfs describes them (lat_mem names the plateaus of
 *      its pointer chase after them) ----------------------------------- */

#define LAT_TOPO_MAX_CACHES 8

struct lat_topo_cache {
	int level;            /* 1, 2, 3, ... */
	char type[16];        /* "Data", "Unified" (instruction caches are
			       * left out: data never lives in them) */
	uint64_t size;        /* bytes */
	int line;             /* coherency_line_size, bytes (0: unknown) */
	int shared_cpus;      /* CPUs in shared_cpu_list (0: unknown) */
};

struct lat_topo_caches {
	int n;                /* data and unified caches, ascending size */
	struct lat_topo_cache c[LAT_TOPO_MAX_CACHES];
};

/*
 * Read @cpu's data and unified caches under @sysfs_root (NULL:
 * "/sys/devices/system/cpu"): cpu<N>/cache/index<i>/{level,type,size,
 * coherency_line_size,shared_cpu_list}. Sizes accept K, M and G suffixes
 * (binary, as the kernel writes them). Returns 0 (n may be 0 on a machine
 * that exposes no caches), -EINVAL for a bad cpu, -LAT_EFORMAT for a
 * size that does not parse. Reads files; no allocation.
 */
int lat_topo_caches_load(struct lat_topo_caches *c, const char *sysfs_root,
			 int cpu);

/* Size of the largest (last-level) cache in @c, 0 when none. */
uint64_t lat_topo_caches_llc(const struct lat_topo_caches *c);

/* "L1d", "L2", "L3", ... for cache @i of @c ("L1d" for a level-1 data
 * cache, "L<n>" otherwise). Static or @c-owned storage; never NULL. */
const char *lat_topo_cache_name(const struct lat_topo_caches *c, int i);
/*
 * Pin the calling thread to @cpu. Returns 0 or -errno from
 * pthread_setaffinity_np (-EINVAL: cpu outside the mask or offline).
 * One syscall; call before the measured run, never inside it.
 */
int lat_topo_pin_self(int cpu);

/* The CPU the calling thread runs on now, or -1 (sched_getcpu). */
int lat_topo_current_cpu(void);

#endif
