/*
 * Internals of lat_prof shared by the sampler (prof_open.c, prof_ring.c),
 * the raw tables (prof_raw.c) and the symbolizer (prof_sym.c, prof_fold.c).
 */
#ifndef LATLAB_PROF_INT_H
#define LATLAB_PROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "latlab/prof.h"

/*
 * The leaf fix-up. Frame pointers name a function's caller only once the
 * function has set up its frame; a leaf that never does (GCC 12 drops
 * leaf frames even with -mno-omit-leaf-frame-pointer), or a sample in a
 * prologue or epilogue, loses its caller. So each sample also carries the
 * first PROF_LEAF_WORDS words of the user stack, of which we keep those
 * that point into an executable mapping: at fold time the leaf's CFI says
 * which of them is its return address (see prof_sym_leaf_ra()).
 */
#define PROF_LEAF_WORDS 8

/* One distinct raw stack of one thread: instruction pointers leaf first,
 * with the kernel's PERF_CONTEXT_* markers still in place. */
struct prof_raw {
	pid_t pid, tid;
	uint32_t tag;           /* off-CPU: the enum prof_offcpu_reason */
	uint64_t count;         /* samples, or ns off CPU */
	uint64_t ra[PROF_LEAF_WORDS]; /* code-like stack words at sp, or 0 */
	uint32_t nr;
	uint64_t ips[];
};

/* Distinct raw stacks: open addressing, index + 1, 0 empty. */
struct prof_rawtab {
	struct prof_raw **v;
	size_t n, cap;
	size_t *hash;
	size_t hash_cap;
};

/* An executable mapping of a target process, from /proc/<pid>/maps or a
 * PERF_RECORD_MMAP2. */
struct prof_map {
	pid_t pid;
	uint64_t start, end, pgoff;
	char *path;
};

struct prof_name {
	pid_t tid;
	pid_t pid;
	bool fixed;             /* given by lat_prof_name_thread: keep it */
	char *name;
};

/* One ring per CPU; every event on that CPU writes into it. */
struct prof_ring {
	int fd;                 /* the event that owns the mmap */
	void *base;             /* metadata page, then data pages */
	size_t data_size;
	uint64_t head;          /* data_head read at the start of a drain */
	unsigned char *scratch; /* a record that wraps the ring end */
};

struct lat_prof {
	struct lat_prof_config cfg;
	pid_t pid;
	bool attached;
	bool enable_on_exec;
	uint32_t event_type;
	uint64_t event_config;
	int ncpu;
	uint32_t max_stack;     /* user frames the kernel walks at most */
	bool leaf_fixup;        /* samples carry sp and the stack top */
	struct prof_ring *rings;
	int *fds;
	size_t nfds, capfds;

	struct prof_rawtab on;   /* on-CPU samples */
	struct prof_rawtab off;  /* off-CPU intervals (weights in ns) */
	struct prof_offcpu *offcpu;

	struct prof_map *maps;
	size_t nmaps, capmaps;
	struct prof_name *names;
	size_t nnames, capnames;
	pid_t *tids;            /* threads attached (to count and dedupe) */
	size_t ntids, captids;

	struct lat_prof_stats st;
	char error_note[LAT_PROF_NOTE_LEN];
};

/* prof_raw.c */
/* Add @weight to the stack (@pid, @tid, @tag, @ra, @ips); @ra may be
 * NULL (no leaf words). */
int prof_raw_add(struct prof_rawtab *t, pid_t pid, pid_t tid, uint32_t tag,
		 const uint64_t *ra, const uint64_t *ips, uint32_t nr,
		 uint64_t weight);
void prof_rawtab_release(struct prof_rawtab *t);
bool prof_is_code(const struct lat_prof *p, pid_t pid, uint64_t addr);
int prof_map_add(struct lat_prof *p, pid_t pid, uint64_t start,
		 uint64_t end, uint64_t pgoff, const char *path);
void prof_maps_forget(struct lat_prof *p, pid_t pid);
int prof_maps_read_proc(struct lat_prof *p, pid_t pid);
int prof_name_set(struct lat_prof *p, pid_t pid, pid_t tid,
		  const char *name, bool fixed);
const char *prof_name_of(const struct lat_prof *p, pid_t tid);
void prof_raw_release(struct lat_prof *p);

/* prof_ring.c */
int prof_ring_map(struct lat_prof *p, int cpu, int fd);
int prof_rings_drain(struct lat_prof *p);
void prof_rings_unmap(struct lat_prof *p);

/* prof_sym.c: names for the addresses of one process */
struct prof_sym;
int prof_sym_open(const struct lat_prof *p, pid_t pid, struct prof_sym **out);
/* Write the name of @ip (@exact: a sampled pc, else a return address)
 * into @buf: "func", "[unknown] (module)" or "[unknown]". */
void prof_sym_user(struct prof_sym *s, uint64_t ip, bool exact, char *buf,
		   size_t len);
/* The return address of the leaf at @pc when its CFI puts it at one of
 * the stack words in @ra (CFA = sp + k), else 0 (the frame pointer chain
 * already has it). */
uint64_t prof_sym_leaf_ra(struct prof_sym *s, uint64_t pc,
			  const uint64_t *ra);
void prof_sym_close(struct prof_sym *s);

/* prof_offcpu.c: the eBPF off-CPU tracer (compiled away without BPF) */
struct prof_offcpu;
/* Load the program; on failure fill p->st.offcpu_note and return < 0. */
int prof_offcpu_open(struct lat_prof *p);
int prof_offcpu_follow(struct lat_prof *p, pid_t tgid);
int prof_offcpu_attach(struct lat_prof *p);
/* Detach, and move the sums (and the intervals still open) into p->off. */
int prof_offcpu_collect(struct lat_prof *p);
void prof_offcpu_close(struct lat_prof *p);
/* "[blocked]", "[runnable: preempted]", ... (prof_fold.c) */
const char *prof_offcpu_reason_frame(uint32_t reason);

/* prof_kallsyms.c */
struct prof_ksyms;
int prof_ksyms_load(struct prof_ksyms **out);
void prof_ksyms_name(const struct prof_ksyms *k, uint64_t ip, char *buf,
		     size_t len);
void prof_ksyms_free(struct prof_ksyms *k);

#endif
