/*
 * lat_doctor_gather: read the machine. The steal window (1 s by default)
 * is spent on the other readers and the clock measurement, so the whole
 * gathering takes about as long as the window.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doctor_int.h"
#include "latlab/sysfile.h"
#include "latlab_config.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

void lat_doctor_opts_init(struct lat_doctor_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->steal_ms = 1000;
	o->clock_ms = 400;
	o->probe = true;
	o->hot_threads = 3;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* steal and total ticks: index 0 all CPUs, 1 + n CPU n */
struct ticks {
	int n;
	unsigned long long steal[LAT_TOPO_MAX_CPUS + 1];
	unsigned long long total[LAT_TOPO_MAX_CPUS + 1];
};

static int read_ticks(const char *root, struct ticks *t)
{
	char path[1024], line[512];
	FILE *in;

	snprintf(path, sizeof(path), "%s/proc/stat", root);
	in = fopen(path, "r");
	if (!in)
		return -errno;
	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), in) && !strncmp(line, "cpu", 3)) {
		unsigned long long v[8] = { 0 };
		int cpu = -1, slot;
		const char *s = line + 3;

		if (*s != ' ' && sscanf(s, "%d", &cpu) != 1)
			continue;
		s = strchr(s, ' ');
		if (!s || sscanf(s, "%llu %llu %llu %llu %llu %llu %llu %llu",
				 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
				 &v[6], &v[7]) != 8)
			continue;
		slot = cpu + 1;
		if (slot < 0 || slot > LAT_TOPO_MAX_CPUS)
			continue;
		for (int i = 0; i < 8; i++)
			t->total[slot] += v[i];
		t->steal[slot] = v[7];
		if (slot >= t->n)
			t->n = slot + 1;
	}
	fclose(in);
	return t->n ? 0 : -LAT_EFORMAT;
}

static void steal_between(struct lat_doctor_facts *f, const struct ticks *a,
			  const struct ticks *b, double seconds)
{
	f->steal_seconds = seconds;
	f->steal_worst_cpu = -1;
	for (int i = 0; i < a->n && i < b->n; i++) {
		unsigned long long dt = b->total[i] - a->total[i];
		double pct;

		if (b->total[i] < a->total[i] || !dt)
			continue;
		pct = 100.0 * (double)(b->steal[i] - a->steal[i]) / (double)dt;
		if (i == 0)
			f->steal_pct = pct;
		else if (pct > f->steal_max_cpu_pct ||
			 f->steal_worst_cpu < 0) {
			f->steal_max_cpu_pct = pct;
			f->steal_worst_cpu = i - 1;
		}
	}
	if (f->steal_pct < 0)
		snprintf(f->why_steal, sizeof(f->why_steal),
			 "could not measure steal: /proc/stat did not move");
}

/* Is @word a whole token of the first "flags" line of cpuinfo? */
static bool cpuinfo_flag(const char *root, const char *word)
{
	char path[1024], line[8192];
	size_t n = strlen(word);
	bool found = false;
	FILE *in;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	in = fopen(path, "r");
	if (!in)
		return false;
	while (fgets(line, sizeof(line), in)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (char *p = line; (p = strstr(p, word)); p += n)
			if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' ||
					     !p[n]))
				found = true;
		break;
	}
	fclose(in);
	return found;
}

static void read_hypervisor(struct lat_doctor_facts *f, const char *root,
			    bool real)
{
#if defined(__x86_64__) || defined(__i386__)
	if (real) {
		unsigned a, b, c, d;

		if (__get_cpuid(1, &a, &b, &c, &d) && ((c >> 31) & 1)) {
			f->hypervisor = true;
			/* leaf 0x40000000 is the hypervisor's own range,
			 * past the basic maximum __get_cpuid checks */
			__cpuid(0x40000000, a, b, c, d);
			memcpy(f->hv_vendor, &b, 4);
			memcpy(f->hv_vendor + 4, &c, 4);
			memcpy(f->hv_vendor + 8, &d, 4);
			f->hv_vendor[12] = '\0';
			for (int i = 0; i < 12; i++)
				if (f->hv_vendor[i] &&
				    (f->hv_vendor[i] < ' ' ||
				     f->hv_vendor[i] > '~'))
					f->hv_vendor[i] = '?';
		}
	}
#else
	(void)real;
#endif
	/* the kernel's word too (and the only one in a fake tree) */
	if (!f->hypervisor)
		f->hypervisor = cpuinfo_flag(root, "hypervisor");
}

/*
 * TSC vs CLOCK_MONOTONIC_RAW: calibrate the ratio over the first half of
 * the window (the clock module's fit), then see how far the counter,
 * converted with it, drifts from the kernel's clock over the second. A
 * steady counter stays within what the reading brackets allow.
 */
static void measure_clock(struct lat_doctor_facts *f, unsigned ms)
{
	struct lat_clock_cal cal;
	struct lat_clock_drift d;
	unsigned half = ms / 2 < 10 ? 10 : ms / 2;

	if (lat_clock_calibrate_fit(&cal, half) ||
	    lat_clock_drift(&cal, half / 1e3, &d))
		return;
	f->tsc_raw_measured = true;
	f->cycles_per_ns = cal.cycles_per_ns;
	f->tsc_raw_ppm = fabs(d.ppm);
	f->tsc_raw_noise_ppm = d.uncertainty_ppm;
	f->tsc_raw_seconds = 2 * d.seconds;
}

int lat_doctor_gather(struct lat_doctor_facts *f,
		      const struct lat_doctor_opts *o)
{
	struct ticks t0, t1; /* 16 KiB each */
	const char *root = o->root ? o->root : "";
	bool real = !*root, have_t0;
	double start;
	int rc;

	if (o->hot_threads < 1 || o->hot_threads > LAT_TOPO_MAX_HOT ||
	    o->steal_ms > 60000 || o->clock_ms > 60000)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->hot_threads = o->hot_threads;
	f->steal_pct = -1;
	f->steal_worst_cpu = -1;
	start = mono_s();
	rc = o->steal_ms ? read_ticks(root, &t0) : 0;
	have_t0 = o->steal_ms && !rc;
	if (o->steal_ms && rc)
		doctor_why(f->why_steal, "/proc/stat", rc);

	lat_clock_info_at(&f->clock, root);
	if (lat_sysfile_read(f->clocksources, sizeof(f->clocksources), 1,
			     "%s/sys/devices/system/clocksource/clocksource0/"
			     "available_clocksource", root) < 0)
		f->clocksources[0] = '\0';
	read_hypervisor(f, root, real);
	doctor_read_cpus(f, root, o->allowed);
	doctor_read_irqs(f, root);
	doctor_read_cgroup(f, root);
	doctor_read_memory(f, root);
	doctor_read_privileges(f, root);
	f->have_bpf_build = LATLAB_HAVE_BPF;
	f->bpf_probe = 1;
	if (o->probe) {
		doctor_probe_counters(f);
		doctor_probe_bpf(f);
	}
	if (o->clock_ms)
		measure_clock(f, o->clock_ms);
	if (have_t0) {
		sleep_s(start + o->steal_ms / 1e3 - mono_s());
		rc = read_ticks(root, &t1);
		if (rc)
			doctor_why(f->why_steal, "/proc/stat", rc);
		else
			steal_between(f, &t0, &t1, mono_s() - start);
	}
	return 0;
}
