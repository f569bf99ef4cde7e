/*
 * lat_mem internals shared by the chase and the contention runs.
 */
#ifndef LATLAB_MEM_INT_H
#define LATLAB_MEM_INT_H

#include <stdbool.h>
#include <stdint.h>

/* Sleep @ns on CLOCK_MONOTONIC, resuming after signals. */
void lat_mem_sleep_ns(double ns);

/*
 * Raise the calling thread to SCHED_FIFO priority 1 if it runs on @cpu;
 * true when it did (needs CAP_SYS_NICE). Callers loop to a deadline.
 */
bool lat_mem_fifo_enter(int cpu);

/* Back to SCHED_OTHER when @entered. */
void lat_mem_fifo_leave(bool entered);

#endif
