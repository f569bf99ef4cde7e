/*
 * Two threads, one SPSC ring, a flight recorder: the shape of an
 * instrumented hand-off in your own program.
 *
 *   cc spsc_flight.c $(pkg-config --cflags --libs latlab) -o spsc_flight
 *   ./spsc_flight
 *
 * The producer stamps each event with the cycle clock and pushes it; the
 * consumer pops it, does a little work and records two deltas per event
 * (time in the queue, time in the work) into a flight recorder, armed at
 * 500 us after a warm-up of 1000 events (thread start-up is not the
 * news). Event 20000's work stalls for 2 ms, so the recorder triggers,
 * keeps 64 more events (the backlog the stall left behind) and freezes;
 * the window is printed as a table with the slow cells starred. (On a
 * busy machine a preemption may trigger it earlier: that is what it is
 * for.)
 * Every event is accounted for: produced = consumed.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include <latlab/clock.h>
#include <latlab/flight.h>
#include <latlab/spsc.h>

#define EVENTS 50000
#define GAP_NS 2000          /* one event every 2 us */
#define STALL_AT 20000
#define STALL_NS 2000000
#define THRESHOLD_NS 500000
#define WARMUP 1000

struct event {
	uint64_t seq;
	lat_cycles_t sent;
};

static struct lat_clock_cal cal;
static struct lat_spsc *ring;
static uint64_t produced;

static void spin_until(lat_cycles_t t)
{
	while (lat_clock_now() < t)
		;
}

static void *producer(void *arg)
{
	lat_cycles_t next = lat_clock_now(), gap = lat_clock_from_ns(&cal,
								      GAP_NS);

	(void)arg;
	for (uint64_t i = 0; i < EVENTS; i++) {
		struct event e = { i, 0 };

		spin_until(next);
		next += gap;
		e.sent = lat_clock_now();
		while (!lat_spsc_try_push(ring, &e))
			sched_yield(); /* full: let the consumer run */
		produced++;
	}
	return NULL;
}

int main(void)
{
	static const char *const names[] = { "queue", "work" };
	struct lat_flight fr;
	pthread_t t;
	uint64_t consumed = 0;
	int rc;

	rc = lat_clock_calibrate(&cal, 200);
	if (!rc)
		rc = lat_spsc_create(1024, sizeof(struct event), &ring);
	if (!rc)
		rc = lat_flight_init(&fr, 4096, 2, names, 64, 0);
	if (rc || pthread_create(&t, NULL, producer, NULL)) {
		fprintf(stderr, "spsc_flight: setup failed: %s\n",
			lat_strerror(rc));
		return 1;
	}
	while (consumed < EVENTS) {
		struct event e;
		lat_cycles_t got, done;
		uint64_t d[2];

		if (!lat_spsc_try_pop(ring, &e)) {
			sched_yield(); /* empty: let the producer run */
			continue;
		}
		got = lat_clock_now();
		spin_until(got + lat_clock_from_ns(&cal, e.seq == STALL_AT ?
						   STALL_NS : 200));
		done = lat_clock_now();
		d[0] = lat_clock_to_ns(&cal, got - e.sent);
		d[1] = lat_clock_to_ns(&cal, done - got);
		lat_flight_push(&fr, e.seq, lat_clock_to_ns(&cal, e.sent),
				d, d[0] + d[1]);
		if (++consumed == WARMUP)
			lat_flight_arm(&fr, THRESHOLD_NS);
	}
	pthread_join(t, NULL);
	printf("spsc_flight: produced %llu, consumed %llu; flight recorder "
	       "%s\n", (unsigned long long)produced,
	       (unsigned long long)consumed, lat_flight_state_name(fr.state));
	if (fr.state != LAT_FLIGHT_RECORDING)
		lat_flight_dump_table(&fr, stdout, 8);
	lat_flight_destroy(&fr);
	lat_spsc_free(ring);
	return produced == consumed ? 0 : 1;
}
