/*
 * lat_mem real-time windows: a measuring thread may raise itself to
 * SCHED_FIFO for a bounded loop, so ordinary processes on a loaded
 * machine cannot keep two threads that must run at once from running.
 * Only for loops that end by their own deadline: a real-time thread
 * spinning for a peer that never runs would otherwise hold its CPU.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "mem_int.h"

bool lat_mem_fifo_enter(int cpu)
{
	struct sched_param sp = { .sched_priority = 1 };

	/* only on the CPU it was pinned to: two real-time spinners sharing
	 * one CPU would run one after the other, not together */
	return sched_getcpu() == cpu &&
	       pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
}

void lat_mem_fifo_leave(bool entered)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (entered)
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}
