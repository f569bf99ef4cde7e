/*
 * lat_clock_info: what CPUID, the kernel and sysfs say about the cycle
 * counter. Kept apart from calibration because it only reads and parses.
 */
#include <stdio.h>
#include <string.h>

#include "latlab/clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define CLOCKSOURCE_PATH \
	"%s/sys/devices/system/clocksource/clocksource0/current_clocksource"

/* True when @word appears as a whole space-separated token in @list. */
static bool has_token(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n) {
		bool starts = p == list || p[-1] == ' ' || p[-1] == '\t';
		char after = p[n];

		if (starts && (after == ' ' || after == '\n' || after == '\0'))
			return true;
	}
	return false;
}

/*
 * The first "flags" line of /proc/cpuinfo (x86; aarch64 has "Features",
 * which says nothing about the counter). Lines run to ~1.5 kB today, so
 * the buffer has room; a longer line is read in pieces and a flag cut at
 * a boundary is missed, which leaves a field false, never true.
 */
static void read_cpuinfo_flags(struct lat_clock_info *info, const char *root)
{
	char line[8192];
	FILE *f;

	snprintf(line, sizeof(line), "%s/proc/cpuinfo", root);
	f = fopen(line, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		info->constant_tsc = has_token(line, "constant_tsc");
		info->nonstop_tsc = has_token(line, "nonstop_tsc");
		info->tsc_reliable = has_token(line, "tsc_reliable");
		info->tsc_known_freq = has_token(line, "tsc_known_freq");
		info->rdtscp_cpuinfo = has_token(line, "rdtscp");
		break;
	}
	fclose(f);
}

static void read_clocksource(struct lat_clock_info *info, const char *root)
{
	char path[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), CLOCKSOURCE_PATH, root);
	f = fopen(path, "r");

	strcpy(info->clocksource, "unknown");
	if (!f)
		return;
	if (fgets(info->clocksource, sizeof(info->clocksource), f)) {
		n = strcspn(info->clocksource, "\n");
		info->clocksource[n] = '\0';
		if (n == 0)
			strcpy(info->clocksource, "unknown");
	}
	fclose(f);
}

int lat_clock_info(struct lat_clock_info *info)
{
	return lat_clock_info_at(info, NULL);
}

int lat_clock_info_at(struct lat_clock_info *info, const char *root)
{
	if (!root)
		root = "";
	memset(info, 0, sizeof(*info));
	read_cpuinfo_flags(info, root);
	read_clocksource(info, root);
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a, b, c, d;

		if (__get_cpuid(0x80000007, &a, &b, &c, &d))
			info->invariant_cpuid = (d >> 8) & 1;
		if (__get_cpuid(0x80000001, &a, &b, &c, &d))
			info->rdtscp_cpuid = (d >> 27) & 1;
	}
	strcpy(info->source, "tsc");
	info->invariant = info->invariant_cpuid ||
			  (info->constant_tsc && info->nonstop_tsc);
	info->kernel_uses_counter = !strcmp(info->clocksource, "tsc");
#elif defined(__aarch64__)
	{
		uint64_t hz;

		__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
		info->hw_hz = (double)hz;
	}
	strcpy(info->source, "cntvct_el0");
	/* The generic timer counts at a fixed frequency by architecture. */
	info->invariant = true;
	info->kernel_uses_counter =
		!strcmp(info->clocksource, "arch_sys_counter");
#endif
	return 0;
}
