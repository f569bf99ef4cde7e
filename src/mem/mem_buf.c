/*
 * lat_mem buffers: anonymous mappings on base or huge pages, touched
 * before use, and an honest count of how much the kernel really backed
 * with huge pages (asking is not getting: THP is best effort).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "latlab/mem.h"
#include "latlab/sysfile.h"

#define HUGE_2M (2u << 20)

/* Touch one byte per page so the faults are paid now. */
static void touch(void *base, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *p = base;

	for (size_t off = 0; off < len; off += (size_t)(pg > 0 ? pg : 4096))
		p[off] = 0;
}

/*
 * AnonHugePages (THP) or the mapping's size when it is a hugetlb one:
 * the smaps entry whose range contains @addr. 0 when not found.
 */
static size_t smaps_huge(const void *addr)
{
	char line[512];
	uintptr_t a = (uintptr_t)addr;
	bool inside = false;
	size_t out = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, kb;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (inside)
				break;
			inside = a >= lo && a < hi;
			continue;
		}
		if (!inside)
			continue;
		if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1 ||
		    sscanf(line, "Private_Hugetlb: %lu kB", &kb) == 1)
			out += (size_t)kb * 1024;
	}
	fclose(f);
	return out;
}

int lat_mem_buf_map(struct lat_mem_buf *b, size_t len, bool huge)
{
	void *p;

	if (!b || len == 0 || len > SIZE_MAX / 2)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	if (huge) {
		size_t ml = (len + HUGE_2M - 1) / HUGE_2M * HUGE_2M;

		p = mmap(NULL, ml, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED) {
			b->base = p;
			b->map_len = ml;
			b->pages = LAT_MEM_PAGES_HUGETLB;
			goto done;
		}
		b->huge_err = -errno;
		/* THP: map 2 MiB more, use the 2 MiB-aligned part, so every
		 * 2 MiB of the buffer can be one huge page */
		p = mmap(NULL, ml + HUGE_2M, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		b->map_len = ml + HUGE_2M;
		b->base = (void *)(((uintptr_t)p + HUGE_2M - 1) &
				   ~(uintptr_t)(HUGE_2M - 1));
		/* remember the mapping's start in the gap before base */
		if (madvise(b->base, ml, MADV_HUGEPAGE) == 0) {
			b->pages = LAT_MEM_PAGES_THP;
		} else {
			b->huge_err = -errno;
			b->pages = LAT_MEM_PAGES_BASE;
		}
		b->map_base = p;
		goto done;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	/* base pages must mean base pages, even under THP "always" */
	madvise(p, len, MADV_NOHUGEPAGE);
	b->base = p;
	b->map_len = len;
	b->pages = LAT_MEM_PAGES_BASE;
done:
	if (!b->map_base)
		b->map_base = b->base;
	b->len = len;
	touch(b->base, len);
	if (b->pages != LAT_MEM_PAGES_BASE)
		b->huge_bytes = smaps_huge(b->base);
	if (b->huge_bytes > len)
		b->huge_bytes = len;
	return 0;
}

void lat_mem_buf_unmap(struct lat_mem_buf *b)
{
	if (b && b->map_base)
		munmap(b->map_base, b->map_len);
	if (b)
		memset(b, 0, sizeof(*b));
}

int lat_mem_thp_mode(const char *sys_root, char *out, size_t len)
{
	char buf[128], *a, *b;
	int rc;

	if (!out || len == 0)
		return -EINVAL;
	out[0] = '\0';
	rc = lat_sysfile_read(buf, sizeof(buf), 1,
			      "%s/kernel/mm/transparent_hugepage/enabled",
			      sys_root ? sys_root : "/sys");
	if (rc < 0)
		return rc;
	/* "always [madvise] never": the bracketed word is the mode */
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b || (size_t)(b - a - 1) >= len)
		return -LAT_EFORMAT;
	memcpy(out, a + 1, (size_t)(b - a - 1));
	out[b - a - 1] = '\0';
	return 0;
}
