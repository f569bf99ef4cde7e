/*
 * The per-CPU perf rings: map them, and drain their records into the
 * sampler's tables. The kernel is the producer (it advances data_head),
 * we are the consumer (we advance data_tail); a record that runs past the
 * end of the ring is copied out whole before it is parsed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof_int.h"

int prof_ring_map(struct lat_prof *p, int cpu, int fd)
{
	struct prof_ring *r = &p->rings[cpu];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = p->cfg.ring_pages * page;
	void *base;

	base = mmap(NULL, data + page, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	r->scratch = malloc(1u << 16); /* header.size is 16 bits */
	if (!r->scratch) {
		munmap(base, data + page);
		return -ENOMEM;
	}
	r->fd = fd;
	r->base = base;
	r->data_size = data;
	return 0;
}

void prof_rings_unmap(struct lat_prof *p)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int c = 0; p->rings && c < p->ncpu; c++) {
		struct prof_ring *r = &p->rings[c];

		if (r->base)
			munmap(r->base, r->data_size + page);
		free(r->scratch);
		r->base = NULL;
		r->scratch = NULL;
	}
}

/* The fields of the records we asked for, as the kernel lays them out. */
struct rec_sample {                   /* TID | TIME | CALLCHAIN */
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t nr;
	uint64_t ips[];
};

struct rec_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct rec_comm {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct rec_lost {
	struct perf_event_header h;
	uint64_t id, lost;
};

/*
 * After the callchain, when the leaf fix-up is on (x86-64): u64 abi, the
 * user sp and ip (PROF_REGS_USER, in bit order), u64 size, the stack
 * bytes, u64 dyn_size. Keep the stack words that point into code.
 */
static void leaf_words(const struct lat_prof *p, pid_t pid,
		       const uint64_t *w, const uint64_t *end, uint64_t *ra)
{
	uint64_t size, dyn;

	memset(ra, 0, PROF_LEAF_WORDS * sizeof(*ra));
	if (!p->leaf_fixup || w >= end || *w++ == PERF_SAMPLE_REGS_ABI_NONE)
		return; /* no user registers: a kernel thread */
	if (end - w < 3)
		return;
	w += 2; /* sp, ip: the stack dump starts at sp */
	size = *w++;
	if (size / 8 + 1 > (uint64_t)(end - w))
		return;
	dyn = w[size / 8];
	for (uint64_t i = 0; i < PROF_LEAF_WORDS && i < size / 8 &&
			     i * 8 < dyn; i++)
		if (prof_is_code(p, pid, w[i]))
			ra[i] = w[i];
}

static int on_sample(struct lat_prof *p, const struct rec_sample *s)
{
	uint64_t max = (s->h.size - sizeof(*s)) / sizeof(uint64_t);
	uint64_t ra[PROF_LEAF_WORDS];
	bool in_user = false;
	uint32_t user = 0;

	if (s->h.size < sizeof(*s) || s->nr > max)
		return -EPROTO;
	for (uint64_t i = 0; i < s->nr; i++) {
		if (s->ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			in_user = s->ips[i] == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		user += in_user;
	}
	/* the kernel stops the user walk at sample_max_stack frames */
	if (user >= p->max_stack)
		p->st.truncated++;
	leaf_words(p, (pid_t)s->pid, s->ips + s->nr,
		   (const uint64_t *)((const char *)s + s->h.size), ra);
	p->st.samples++;
	return prof_raw_add(&p->on, (pid_t)s->pid, (pid_t)s->tid, 0, ra,
			    s->ips, (uint32_t)s->nr, 1);
}

static int on_mmap2(struct lat_prof *p, const struct rec_mmap2 *m)
{
	size_t room = m->h.size - sizeof(*m);
	char path[4096];
	size_t n;

	if (m->h.size < sizeof(*m) || !(m->prot & PROT_EXEC))
		return 0;
	n = strnlen(m->filename, room);
	if (n == room || n >= sizeof(path))
		return 0; /* no terminator inside the record: not a name */
	memcpy(path, m->filename, n + 1);
	return prof_map_add(p, (pid_t)m->pid, m->addr, m->addr + m->len,
			    m->pgoff, path);
}

static int on_comm(struct lat_prof *p, const struct rec_comm *c)
{
	size_t room = c->h.size - sizeof(*c);
	char name[17];
	size_t n;

	if (c->h.size < sizeof(*c))
		return 0;
	n = strnlen(c->comm, room < 16 ? room : 16);
	memcpy(name, c->comm, n);
	name[n] = '\0';
	if (c->h.misc & PERF_RECORD_MISC_COMM_EXEC)
		prof_maps_forget(p, (pid_t)c->pid);
	return n ? prof_name_set(p, (pid_t)c->pid, (pid_t)c->tid, name,
				 false) : 0;
}

/*
 * Two passes over the rings, both up to the heads read before the first:
 * the mapping and thread-name records of every ring first, then the
 * samples. A sample's mapping may have been recorded on another CPU's
 * ring; handled in ring order, the sample would come first and its leaf
 * fix-up (which needs to know what is code) would be lost.
 */
enum pass { PASS_MAPS, PASS_SAMPLES };

static int on_record(struct lat_prof *p, const struct perf_event_header *h,
		     enum pass pass)
{
	if (pass == PASS_MAPS) {
		if (h->type == PERF_RECORD_MMAP2)
			return on_mmap2(p, (const void *)h);
		if (h->type == PERF_RECORD_COMM)
			return on_comm(p, (const void *)h);
		return 0;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(p, (const void *)h);
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(struct rec_lost))
			p->st.lost += ((const struct rec_lost *)h)->lost;
		return 0;
	case PERF_RECORD_THROTTLE:
		p->st.throttled++;
		return 0;
	}
	return 0;
}

/* Walk @r's records in [tail, head); the sample pass also frees them. */
static int walk(struct lat_prof *p, struct prof_ring *r, uint64_t head,
		enum pass pass)
{
	struct perf_event_mmap_page *meta = r->base;
	unsigned char *data = (unsigned char *)r->base + meta->data_offset;
	uint64_t tail = meta->data_tail;
	int rc = 0;

	if (!meta->data_offset) /* kernels before 4.1 */
		data = (unsigned char *)r->base + sysconf(_SC_PAGESIZE);
	while (tail < head) {
		size_t off = tail % r->data_size;
		struct perf_event_header hdr;
		const struct perf_event_header *h;

		if (off + sizeof(hdr) <= r->data_size) {
			memcpy(&hdr, data + off, sizeof(hdr));
		} else {
			size_t a = r->data_size - off;

			memcpy(&hdr, data + off, a);
			memcpy((char *)&hdr + a, data, sizeof(hdr) - a);
		}
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail) {
			rc = -EPROTO; /* a torn ring: stop, do not guess */
			break;
		}
		if (off + hdr.size <= r->data_size) {
			h = (const void *)(data + off);
		} else {
			size_t a = r->data_size - off;

			memcpy(r->scratch, data + off, a);
			memcpy(r->scratch + a, data, hdr.size - a);
			h = (const void *)r->scratch;
		}
		rc = on_record(p, h, pass);
		if (rc)
			break;
		tail += hdr.size;
	}
	/* our reads are done before the kernel may reuse the space */
	if (pass == PASS_SAMPLES)
		__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return rc;
}

int prof_rings_drain(struct lat_prof *p)
{
	uint64_t before = p->st.samples;
	int rc = 0;

	for (int c = 0; c < p->ncpu; c++) {
		struct prof_ring *r = &p->rings[c];

		if (!r->base)
			continue;
		/* pairs with the kernel's barrier before it moves data_head */
		r->head = __atomic_load_n(
			&((struct perf_event_mmap_page *)r->base)->data_head,
			__ATOMIC_ACQUIRE);
	}
	for (int pass = PASS_MAPS; !rc && pass <= PASS_SAMPLES; pass++)
		for (int c = 0; !rc && c < p->ncpu; c++)
			if (p->rings[c].base)
				rc = walk(p, &p->rings[c], p->rings[c].head,
					  (enum pass)pass);
	return rc ? rc : (int)(p->st.samples - before);
}
