/*
 * latlab mem: what the command's files share. cmd_mem.c parses the
 * options and runs the experiments in order; mem_chase_out.c measures
 * and prints the chase (table, plateaus, SVG); mem_contend_out.c does
 * the core-to-core matrix, false sharing and read-mostly.
 */
#ifndef LATLAB_CLI_MEM_H
#define LATLAB_CLI_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "latlab/clock.h"
#include "latlab/json.h"
#include "latlab/mem.h"
#include "latlab/topo.h"

#define MEM_CMD "mem"
#define MEM_MAX_SIZES LAT_MEM_CHASE_MAX_SIZES
#define MEM_MAX_THREADS 8

enum mem_what {
	MEM_CHASE = 1 << 0,
	MEM_C2C = 1 << 1,
	MEM_SHARE = 1 << 2,
	MEM_RM = 1 << 3,
	MEM_ALL = MEM_CHASE | MEM_C2C | MEM_SHARE | MEM_RM,
};

struct mem_opts {
	unsigned what;             /* enum mem_what */
	bool json;
	bool quick;
	bool hugepages;
	bool rt;                   /* two-thread loops at SCHED_FIFO */
	const char *svg;
	const char *cpu_list;      /* --cpus as given, checked in parse() */
	uint64_t min_size, max_size;
	unsigned steps;
	unsigned samples;          /* chase samples per size */
	unsigned loads;            /* loads per sample */
	unsigned rounds;           /* c2c, false sharing, read-mostly */
	uint64_t c2c_iters;
	double share_ns;           /* per false-sharing run (two CPUs) */
	double rm_ns;              /* per read-mostly run */
	double write_interval_ns;
	int threads[MEM_MAX_THREADS];
	int n_threads;
	int cpus[LAT_TOPO_MAX_CPUS]; /* usable CPUs in use, user's order */
	int n_cpus;
};

/* What every experiment knows about the machine. */
struct mem_env {
	struct lat_topo topo;
	struct lat_mem_machine m;  /* caches, clocks, load, usable CPUs */
	double l1_ns;              /* from the chase, 0 when not run */
};

/*
 * A run failed after the output began: with @j (--json), close the
 * document so it stays well-formed, with "error" (the message),
 * "failed_in" (@experiment) and "complete": false beside whatever
 * finished; then the message on stderr and exit 1 (cli_fail).
 */
_Noreturn void mem_fail(struct lat_json *j, const char *experiment,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Each returns true when it finished, false when a signal stopped it
 * (what was finished is printed either way). */
bool mem_chase(const struct mem_opts *o, struct mem_env *env,
	       struct lat_json *j);
bool mem_c2c(const struct mem_opts *o, const struct mem_env *env,
	     struct lat_json *j);
bool mem_share(const struct mem_opts *o, const struct mem_env *env,
	       struct lat_json *j);
bool mem_rm(const struct mem_opts *o, const struct mem_env *env,
	    struct lat_json *j);

#endif
