/*
 * Can the probe load here? The capabilities the kernel checks (not uid
 * 0: a process given CAP_BPF+CAP_PERFMON must work, and root without them
 * must not be told it can), the kernel's BTF, and whether the build has
 * libbpf at all. Each missing piece is named, with the fallback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab_config.h"
#include "latlab/sched.h"

/* Capability numbers (linux/capability.h; CAP_BPF and CAP_PERFMON are
 * from Linux 5.8, before which CAP_SYS_ADMIN covered both). */
#define LAT_CAP_SYS_ADMIN 21
#define LAT_CAP_PERFMON 38
#define LAT_CAP_BPF 39

#define LAT_SCHED_BTF_PATH "/sys/kernel/btf/vmlinux"
#define LAT_SCHED_INSTALL "apt-get install -y libbpf-dev bpftool clang"

/* Effective capability set of this process, from /proc/self/status. */
static int cap_eff(uint64_t *out)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CapEff:", 7)) {
			char *end;

			*out = strtoull(line + 7, &end, 16);
			rc = end == line + 7 ? -EINVAL : 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

static int read_int(const char *path, int def)
{
	FILE *f = fopen(path, "r");
	int v = def;

	if (!f)
		return def;
	if (fscanf(f, "%d", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

static void add_reason(struct lat_sched_avail *a, const char *s)
{
	size_t n = strlen(a->reason);

	snprintf(a->reason + n, sizeof(a->reason) - n, "%s%s", n ? "; " : "",
		 s);
}

void lat_sched_available(struct lat_sched_avail *a)
{
	uint64_t caps = 0;
	bool admin;
	char buf[160];

	memset(a, 0, sizeof(*a));
	a->built = LATLAB_HAVE_BPF;
	a->install = LAT_SCHED_INSTALL;
	a->btf = access(LAT_SCHED_BTF_PATH, R_OK) == 0;
	a->unpriv_disabled =
		read_int("/proc/sys/kernel/unprivileged_bpf_disabled", -1);
	if (cap_eff(&caps) == 0) {
		admin = (caps >> LAT_CAP_SYS_ADMIN) & 1;
		a->cap_bpf = admin || ((caps >> LAT_CAP_BPF) & 1);
		a->cap_perfmon = admin || ((caps >> LAT_CAP_PERFMON) & 1);
	}
	if (!a->built)
		add_reason(a, "built without libbpf (" LAT_SCHED_INSTALL
			      ", then rebuild)");
	if (!a->btf)
		add_reason(a, "no kernel BTF at " LAT_SCHED_BTF_PATH
			      " (a kernel built without CONFIG_DEBUG_INFO_BTF)");
	if (!a->cap_bpf || !a->cap_perfmon) {
		snprintf(buf, sizeof(buf),
			 "no %s%s%s (effective capabilities 0x%llx%s)",
			 a->cap_bpf ? "" : "CAP_BPF",
			 !a->cap_bpf && !a->cap_perfmon ? "+" : "",
			 a->cap_perfmon ? "" : "CAP_PERFMON",
			 (unsigned long long)caps,
			 a->unpriv_disabled > 0
				 ? "; unprivileged_bpf_disabled refuses bpf() "
				   "without CAP_BPF"
				 : "");
		add_reason(a, buf);
	}
	a->ok = a->built && a->btf && a->cap_bpf && a->cap_perfmon;
}
