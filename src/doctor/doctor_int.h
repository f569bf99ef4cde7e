/*
 * Doctor internals shared by the files of src/doctor. Not a public header.
 */
#ifndef LATLAB_DOCTOR_INT_H
#define LATLAB_DOCTOR_INT_H

#include "latlab/doctor.h"

/* "could not read <what>: <lat_strerror(rc)>" into @why. */
void doctor_why(char *why, const char *what, int rc);

/* The CPU group's readers (doctor_cpu.c); @root is never NULL. */
void doctor_read_cpus(struct lat_doctor_facts *f, const char *root,
		      const bool *allowed);
void doctor_read_irqs(struct lat_doctor_facts *f, const char *root);

/* cgroup, memory, privileges, latlab (doctor_sys.c). */
void doctor_read_cgroup(struct lat_doctor_facts *f, const char *root);
void doctor_read_memory(struct lat_doctor_facts *f, const char *root);
void doctor_read_privileges(struct lat_doctor_facts *f, const char *root);
void doctor_probe_counters(struct lat_doctor_facts *f);
void doctor_probe_bpf(struct lat_doctor_facts *f);

/* Does capability @bit show in the facts' CapEff? */
static inline bool doctor_has_cap(const struct lat_doctor_facts *f, int bit)
{
	return f->caps_known && ((f->cap_eff >> bit) & 1u);
}

#endif
