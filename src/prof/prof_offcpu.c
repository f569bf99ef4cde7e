/*
 * Off-CPU time with eBPF: load bpf/prof_offcpu.bpf.c, follow the target
 * process, and at the end turn its per-(thread, stacks, reason) sums into
 * raw stacks beside the on-CPU samples, so the same symbolizer names both.
 * Without BPF in the build, or without the privilege to load it, the
 * off-CPU profile is unavailable and lat_prof_stats.offcpu_note says why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latlab_config.h"
#include "latlab/common.h"
#include "prof_int.h"
#include "prof_offcpu.h"

#if LATLAB_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "skel/prof_offcpu.skel.h"

struct prof_offcpu {
	struct lat_prof_offcpu_bpf *skel;
	bool attached;
};

/* The library never prints: libbpf's chatter goes nowhere. */
static int quiet(enum libbpf_print_level level, const char *fmt,
		 va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

static void note(struct lat_prof *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct lat_prof *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->st.offcpu_note, sizeof(p->st.offcpu_note), fmt, ap);
	va_end(ap);
}

/* Load one flavour (tp_btf or raw_tp); returns the skeleton or NULL with
 * *err set. */
static struct lat_prof_offcpu_bpf *load(bool btf, int *err)
{
	struct lat_prof_offcpu_bpf *s = lat_prof_offcpu_bpf__open();

	if (!s) {
		*err = -errno;
		return NULL;
	}
	bpf_program__set_autoload(s->progs.btf_sched_switch, btf);
	bpf_program__set_autoload(s->progs.raw_sched_switch, !btf);
	*err = lat_prof_offcpu_bpf__load(s);
	if (*err) {
		lat_prof_offcpu_bpf__destroy(s);
		return NULL;
	}
	return s;
}

int prof_offcpu_open(struct lat_prof *p)
{
	libbpf_print_fn_t old;
	struct prof_offcpu *o;
	int err = 0, err2;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		note(p, "unavailable: no kernel BTF (/sys/kernel/btf/vmlinux)");
		return -LAT_EUNSUPP;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	old = libbpf_set_print(quiet);
	o->skel = load(true, &err);
	if (!o->skel && err != -EPERM && err != -EACCES) {
		o->skel = load(false, &err2); /* a kernel without tp_btf */
		if (o->skel)
			err = 0;
	}
	libbpf_set_print(old);
	if (!o->skel) {
		free(o);
		if (err == -EPERM || err == -EACCES)
			note(p, "unavailable: loading eBPF needs root or "
				"CAP_BPF and CAP_PERFMON (%s)",
			     err == -EPERM ? "EPERM" : "EACCES");
		else
			note(p, "unavailable: the off-CPU program did not "
				"load: %s", strerror(-err));
		return err == -EPERM || err == -EACCES ? err : -LAT_EUNSUPP;
	}
	p->offcpu = o;
	return 0;
}

int prof_offcpu_follow(struct lat_prof *p, pid_t tgid)
{
	uint32_t key = (uint32_t)tgid;
	uint8_t one = 1;

	if (!p->offcpu)
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(p->offcpu->skel->maps.tgids),
				&key, &one, BPF_ANY))
		return -errno;
	return 0;
}

int prof_offcpu_attach(struct lat_prof *p)
{
	int rc;

	if (!p->offcpu || p->offcpu->attached)
		return 0;
	rc = lat_prof_offcpu_bpf__attach(p->offcpu->skel);
	if (rc)
		return rc;
	p->offcpu->attached = true;
	return 0;
}

/* One context of a chain from the stack map: a marker, then the ips. */
static uint32_t put_stack(int stacks_fd, int id, uint64_t marker,
			  uint64_t *out)
{
	uint64_t ips[PROF_OFF_STACK_DEPTH];
	uint32_t n = 0;

	if (id < 0 || bpf_map_lookup_elem(stacks_fd, &id, ips))
		return 0;
	out[n++] = marker;
	for (int i = 0; i < PROF_OFF_STACK_DEPTH && ips[i]; i++)
		out[n++] = ips[i];
	return n;
}

static int add_interval(struct lat_prof *p, int stacks_fd, pid_t tgid,
			pid_t tid, int kstack, int ustack, uint32_t reason,
			uint64_t ns)
{
	uint64_t chain[2 * (PROF_OFF_STACK_DEPTH + 1)];
	uint32_t nr;

	/* leaf first, as perf lays a callchain out: kernel, then user */
	nr = put_stack(stacks_fd, kstack, (uint64_t)PERF_CONTEXT_KERNEL,
		       chain);
	nr += put_stack(stacks_fd, ustack, (uint64_t)PERF_CONTEXT_USER,
			chain + nr);
	p->st.offcpu_ns += ns;
	return prof_raw_add(&p->off, tgid, tid, reason, NULL, chain, nr, ns);
}

int prof_offcpu_collect(struct lat_prof *p)
{
	struct lat_prof_offcpu_bpf *s;
	struct prof_off_key key, next;
	struct prof_off_start st;
	uint32_t tid, ntid;
	uint64_t now, ns;
	int stacks_fd, rc = 0;
	bool first = true;

	if (!p->offcpu)
		return 0;
	s = p->offcpu->skel;
	lat_prof_offcpu_bpf__detach(s);
	p->offcpu->attached = false;
	now = lat_mono_ns();
	stacks_fd = bpf_map__fd(s->maps.stacks);
	while (!rc && !bpf_map_get_next_key(bpf_map__fd(s->maps.sums),
					    first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(bpf_map__fd(s->maps.sums), &key, &ns))
			continue;
		rc = add_interval(p, stacks_fd, (pid_t)key.tgid,
				  (pid_t)key.tid, key.kstack, key.ustack,
				  key.reason, ns);
	}
	/* threads still off CPU when we stopped: their time so far counts */
	first = true;
	while (!rc && !bpf_map_get_next_key(bpf_map__fd(s->maps.start),
					    first ? NULL : &tid, &ntid)) {
		first = false;
		tid = ntid;
		if (bpf_map_lookup_elem(bpf_map__fd(s->maps.start), &tid, &st) ||
		    st.ts > now)
			continue;
		rc = add_interval(p, stacks_fd, (pid_t)st.tgid, (pid_t)tid,
				  st.kstack, st.ustack, st.reason, now - st.ts);
		p->st.offcpu_open++;
	}
	for (uint32_t c = 0; c < PROF_OFF_NCOUNTERS; c++) {
		uint64_t v = 0;

		bpf_map_lookup_elem(bpf_map__fd(s->maps.counters), &c, &v);
		if (c == PROF_OFF_C_STACK_ERR)
			p->st.offcpu_stack_errors = v;
		else
			p->st.offcpu_dropped += v;
	}
	/* a second collect would add everything again */
	lat_prof_offcpu_bpf__destroy(s);
	free(p->offcpu);
	p->offcpu = NULL;
	return rc;
}

void prof_offcpu_close(struct lat_prof *p)
{
	if (!p->offcpu)
		return;
	lat_prof_offcpu_bpf__destroy(p->offcpu->skel);
	free(p->offcpu);
	p->offcpu = NULL;
}

#else /* !LATLAB_HAVE_BPF */

int prof_offcpu_open(struct lat_prof *p)
{
	snprintf(p->st.offcpu_note, sizeof(p->st.offcpu_note),
		 "unavailable: this latlab was built without eBPF "
		 "(apt-get install -y libbpf-dev bpftool clang)");
	return -LAT_EUNSUPP;
}

int prof_offcpu_follow(struct lat_prof *p, pid_t tgid)
{
	(void)p;
	(void)tgid;
	return 0;
}

int prof_offcpu_attach(struct lat_prof *p)
{
	(void)p;
	return 0;
}

int prof_offcpu_collect(struct lat_prof *p)
{
	(void)p;
	return 0;
}

void prof_offcpu_close(struct lat_prof *p)
{
	(void)p;
}

#endif
