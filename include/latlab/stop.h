/*
 * lat_stop: Ctrl-C as a request to stop a long run, not to lose it.
 *
 * The library's long runs ask a stop callback between steps (the .stop
 * of lat_qsim_config, lat_co_config and the lat_mem_* configs,
 * lat_pipe_stop_fn, lat_qsim_stop_fn, lat_knee_stop_fn,
 * lat_prof_sample_until, lat_clock_report_measure, ...) and, told to
 * stop, end with the results so far, marked partial. These are such
 * callbacks, true once SIGINT or SIGTERM has arrived after
 * lat_stop_catch_signals(): a program calls that before its run, and
 * after it prints what it has and exits 128 + lat_stop_signal(), as a
 * shell expects of a process ended by that signal.
 *
 *     lat_stop_catch_signals();
 *     rc = lat_qsim_sweep_run(&sweep, &cfg, lat_stop_sweep, NULL);
 *     ...print the points done...
 *     return lat_stop_signal() ? 128 + lat_stop_signal() : 0;
 *
 * The handlers only store the signal number (async-signal-safe); @ctx is
 * ignored. One process-wide flag: catching is the program's choice, the
 * library never installs a handler on its own.
 */
#ifndef LATLAB_STOP_H
#define LATLAB_STOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SIGINT and SIGTERM set the flag from now on (sigaction without
 * SA_RESTART: a blocking call returns EINTR, so the run sees the request
 * instead of sleeping on). */
void lat_stop_catch_signals(void);

/* 0 while no signal has arrived, else the last one's number. */
int lat_stop_signal(void);

/* The callbacks, one per shape the library asks with. */
bool lat_stop_requested(void *ctx);
bool lat_stop_pipe(void *ctx, uint64_t produced, double elapsed_s);
bool lat_stop_sweep(void *ctx, size_t done, size_t n);

#endif
