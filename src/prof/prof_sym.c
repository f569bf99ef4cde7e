/*
 * User-space symbols with elfutils' libdwfl: one Dwfl per target process,
 * one module per executable file mapped, placed at the load bias the
 * mapping implies. The bias is computed from the mapping we saw (address,
 * file offset) and the file's own program headers, not from
 * /proc/<pid>/maps at symbolization time: a command profiled with
 * `latlab profile -- cmd` has exited by then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab_config.h"
#include "prof_int.h"

#if LATLAB_HAVE_DW
#include <elfutils/libdwfl.h>
#include <gelf.h>
#endif

struct prof_sym {
	const struct lat_prof *p;
	pid_t pid;
#if LATLAB_HAVE_DW
	Dwfl *dwfl;
#endif
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The mapping of @pid that holds @ip, or NULL. */
static const struct prof_map *map_of(const struct lat_prof *p, pid_t pid,
				     uint64_t ip)
{
	const struct prof_map *hit = NULL;

	/* the newest mapping wins: an address may have been remapped */
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct prof_map *m = &p->maps[i];

		if (m->pid == pid && ip >= m->start && ip < m->end)
			hit = m;
	}
	return hit;
}

#if LATLAB_HAVE_DW
static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/*
 * The load bias of @m: the file offset it maps sits in an executable
 * PT_LOAD whose p_vaddr - p_offset is the link-time distance between
 * address and offset. Returns false when the file cannot say.
 */
static bool load_bias(const struct prof_map *m, uint64_t *bias)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	bool ok = false;
	size_t nph = 0;
	Elf *elf;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF &&
	    elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph && !ok; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			/* pgoff is p_offset rounded down to a page */
			if (m->pgoff + page <= ph.p_offset ||
			    m->pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = m->start - m->pgoff - (ph.p_vaddr - ph.p_offset);
			ok = true;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ok;
}

static void report_modules(struct prof_sym *s)
{
	const struct lat_prof *p = s->p;

	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct prof_map *m = &p->maps[i];
		bool dup = false;
		uint64_t bias;

		if (m->pid != s->pid || m->path[0] != '/')
			continue; /* [vdso], [anon]: nothing to open */
		for (size_t j = 0; j < i && !dup; j++)
			dup = p->maps[j].pid == s->pid &&
			      !strcmp(p->maps[j].path, m->path);
		if (dup || !load_bias(m, &bias))
			continue;
		/* a failed report (overlap, unreadable) leaves the frames
		 * in that mapping "[unknown] (module)" */
		dwfl_report_elf(s->dwfl, base_name(m->path), m->path, -1,
				bias, true);
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
}
#endif

int prof_sym_open(const struct lat_prof *p, pid_t pid, struct prof_sym **out)
{
	struct prof_sym *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->p = p;
	s->pid = pid;
#if LATLAB_HAVE_DW
	elf_version(EV_CURRENT);
	s->dwfl = dwfl_begin(&dwfl_callbacks);
	if (s->dwfl)
		report_modules(s);
#endif
	*out = s;
	return 0;
}

void prof_sym_user(struct prof_sym *s, uint64_t ip, bool exact, char *buf,
		   size_t len)
{
	/* a return address may be one past the call's function: look up
	 * the call instruction instead */
	uint64_t at = exact ? ip : ip - 1;
	const struct prof_map *m = map_of(s->p, s->pid, at);

#if LATLAB_HAVE_DW
	if (s->dwfl) {
		Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, at);
		const char *name = mod ? dwfl_module_addrname(mod, at) : NULL;

		if (name && *name) {
			/* "memcpy@@GLIBC_2.14": the version is noise here */
			int n = (int)strcspn(name + 1, "@") + 1;

			snprintf(buf, len, "%.*s", n, name);
			return;
		}
	}
#endif
	if (m)
		snprintf(buf, len, "[unknown] (%s)", base_name(m->path));
	else
		snprintf(buf, len, "[unknown]");
}

#if LATLAB_HAVE_DW && defined(__x86_64__)
#include <dwarf.h>
#define PROF_DWARF_SP 7 /* x86-64 DWARF register number of rsp */

/* k when the CFA at @pc is sp + k, else -1. */
static int64_t cfa_sp_offset(Dwfl_Module *mod, uint64_t pc)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	int64_t k = -1;

	if (!cfi)
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
		return -1;
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom == DW_OP_bregx &&
		    ops[0].number == PROF_DWARF_SP)
			k = (int64_t)ops[0].number2;
		else if (ops[0].atom == DW_OP_breg0 + PROF_DWARF_SP)
			k = (int64_t)ops[0].number;
	}
	free(frame);
	return k;
}
#endif

uint64_t prof_sym_leaf_ra(struct prof_sym *s, uint64_t pc,
			  const uint64_t *ra)
{
#if LATLAB_HAVE_DW && defined(__x86_64__)
	Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
	int64_t k = mod ? cfa_sp_offset(mod, pc) : -1;

	/* the return address sits just below the CFA */
	if (k >= 8 && k % 8 == 0 && k / 8 <= PROF_LEAF_WORDS)
		return ra[k / 8 - 1];
#else
	(void)s;
	(void)pc;
	(void)ra;
#endif
	return 0;
}

void prof_sym_close(struct prof_sym *s)
{
	if (!s)
		return;
#if LATLAB_HAVE_DW
	if (s->dwfl)
		dwfl_end(s->dwfl);
#endif
	free(s);
}

const char *lat_prof_symbols_note(void)
{
#if LATLAB_HAVE_DW
	return "";
#else
	return "user frames print as [unknown] (module): this latlab was "
	       "built without elfutils libdw (apt-get install -y libdw-dev)";
#endif
}
