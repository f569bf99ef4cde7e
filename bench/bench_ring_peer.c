/*
 * bench_ring_peer: latlab's SPSC ring against Concurrency Kit's ck_ring
 * (SPSC, typed via CK_RING_PROTOTYPE so both copy a constant size) in the
 * same harness (include/latlab/bench_ring.h), the same process and the
 * same run, rounds interleaved so drift hits both alike.
 *
 * Prints, for 8- and 64-byte elements: same-thread push+pop, cross-core
 * throughput and one-way handoff latency (and beside them the
 * latency-mode ring, lat_seqring, with its ratio to ck_ring), each the
 * median of the rounds with min and max, and the latlab/ck ratio (> 1
 * means latlab is better: for times the ratio is ck/latlab). The
 * cache-line ping-pong floor of the same two CPUs is printed first and
 * measured again inside the handoff rounds, with the two-line floor
 * (lat_bench_two_line_pingpong) beside it, and at 64 bytes the 64-byte
 * floor (a payload line and a mark line each way,
 * lat_bench_line64_pingpong); a latency
 * below the one-line floor is a harness bug.
 *
 * usage: bench_ring_peer [reps [iters]]   (defaults 7 and 2000000)
 */
#include <stdio.h>
#include <stdlib.h>

#include "latlab_config.h"

#if LATLAB_HAVE_CK
#include <ck_ring.h>

#include "latlab/bench.h"
#include "latlab/seqring.h"
#include "bench/bench_ring.h"
#include "latlab/spsc.h"

#define RING_SLOTS 1024
#define HANDOFF_SLOTS 64
#define BURST 32

struct e8 {
	uint64_t seq;
};
struct e64 {
	uint64_t seq;
	uint64_t pad[7];
};

LAT_SPSC_TYPED(l8, struct e8)
LAT_SPSC_TYPED(l64, struct e64)
CK_RING_PROTOTYPE(e8, e8)
CK_RING_PROTOTYPE(e64, e64)

/* ck_ring keeps the buffer apart from the ring; bundle them. */
struct ck8 {
	ck_ring_t ring;
	struct e8 *buf;
};
struct ck64 {
	ck_ring_t ring;
	struct e64 *buf;
};

#define CK8_PUSH(r, e) ck_ring_enqueue_spsc_e8(&(r)->ring, (r)->buf, (e))
#define CK8_POP(r, e) ck_ring_dequeue_spsc_e8(&(r)->ring, (r)->buf, (e))
#define CK64_PUSH(r, e) ck_ring_enqueue_spsc_e64(&(r)->ring, (r)->buf, (e))
#define CK64_POP(r, e) ck_ring_dequeue_spsc_e64(&(r)->ring, (r)->buf, (e))

LAT_BENCH_RING(lat8, struct lat_spsc, struct e8, l8_try_push, l8_try_pop)
LAT_BENCH_RING_BURST(lat8, struct lat_spsc, struct e8, l8_push_burst,
		     l8_pop_burst, BURST)
LAT_BENCH_RING(lat64, struct lat_spsc, struct e64, l64_try_push, l64_try_pop)
LAT_BENCH_RING_BURST(lat64, struct lat_spsc, struct e64, l64_push_burst,
		     l64_pop_burst, BURST)
/* the latency-mode ring, timed beside both */
LAT_SEQRING_TYPED(q8, struct e8)
LAT_SEQRING_TYPED(q64, struct e64)
LAT_BENCH_RING(seq8, struct lat_seqring, struct e8, q8_try_push, q8_try_pop)
LAT_BENCH_RING(seq64, struct lat_seqring, struct e64, q64_try_push,
	       q64_try_pop)
LAT_BENCH_RING(ck8, struct ck8, struct e8, CK8_PUSH, CK8_POP)
LAT_BENCH_RING(ck64, struct ck64, struct e64, CK64_PUSH, CK64_POP)

static struct lat_bench_place place;
static uint64_t iters = 2000000;

/* Both rings of each kind, fresh for the run. */
static struct lat_spsc *lat_r[2][2]; /* [8|64][fwd|back] */
static struct lat_seqring *seq_r[2][2]; /* [8|64][fwd|back] */
static struct ck8 ck8_r[2];
static struct ck64 ck64_r[2];

static void *xalloc(size_t size)
{
	void *p = aligned_alloc(LAT_PAD_BYTES,
				(size + LAT_PAD_BYTES - 1) / LAT_PAD_BYTES *
					LAT_PAD_BYTES);

	if (!p) {
		fprintf(stderr, "bench_ring_peer: out of memory\n");
		exit(1);
	}
	return p;
}

static void setup(void)
{
	for (int d = 0; d < 2; d++) {
		if (l8_create(RING_SLOTS, &lat_r[0][d]) ||
		    l64_create(RING_SLOTS, &lat_r[1][d]) ||
		    q8_create(RING_SLOTS, &seq_r[0][d]) ||
		    q64_create(RING_SLOTS, &seq_r[1][d])) {
			fprintf(stderr, "bench_ring_peer: ring create failed\n");
			exit(1);
		}
		ck_ring_init(&ck8_r[d].ring, RING_SLOTS);
		ck8_r[d].buf = xalloc(sizeof(struct e8) * RING_SLOTS);
		ck_ring_init(&ck64_r[d].ring, RING_SLOTS);
		ck64_r[d].buf = xalloc(sizeof(struct e64) * RING_SLOTS);
	}
}

/* Same-thread: a short loop count, the figure is a few ns. */
#define ST_ITERS (iters * 5)

static int st_lat8(void *c, double *v)
{
	(void)c;
	*v = lat8_same_thread_ns(lat_r[0][0], ST_ITERS);
	return *v < 0 ? -1 : 0;
}
static int st_ck8(void *c, double *v)
{
	(void)c;
	*v = ck8_same_thread_ns(&ck8_r[0], ST_ITERS);
	return *v < 0 ? -1 : 0;
}
static int st_lat64(void *c, double *v)
{
	(void)c;
	*v = lat64_same_thread_ns(lat_r[1][0], ST_ITERS);
	return *v < 0 ? -1 : 0;
}
static int st_ck64(void *c, double *v)
{
	(void)c;
	*v = ck64_same_thread_ns(&ck64_r[0], ST_ITERS);
	return *v < 0 ? -1 : 0;
}
static int st_seq8(void *c, double *v)
{
	(void)c;
	*v = seq8_same_thread_ns(seq_r[0][0], ST_ITERS);
	return *v < 0 ? -1 : 0;
}
static int st_seq64(void *c, double *v)
{
	(void)c;
	*v = seq64_same_thread_ns(seq_r[1][0], ST_ITERS);
	return *v < 0 ? -1 : 0;
}
static int tp_seq8(void *c, double *v)
{
	(void)c;
	return seq8_throughput(&place, seq_r[0][0], iters, v);
}
static int tp_seq64(void *c, double *v)
{
	(void)c;
	return seq64_throughput(&place, seq_r[1][0], iters, v);
}
static int ho_seq8(void *c, double *v)
{
	(void)c;
	return seq8_handoff_ns(&place, seq_r[0][0], seq_r[0][1], iters / 20,
			       v);
}
static int ho_seq64(void *c, double *v)
{
	(void)c;
	return seq64_handoff_ns(&place, seq_r[1][0], seq_r[1][1], iters / 20,
				v);
}
static int tp_lat8(void *c, double *v)
{
	(void)c;
	return lat8_throughput(&place, lat_r[0][0], iters, v);
}
static int tp_ck8(void *c, double *v)
{
	(void)c;
	return ck8_throughput(&place, &ck8_r[0], iters, v);
}
static int tpb_lat8(void *c, double *v)
{
	(void)c;
	return lat8_throughput_burst(&place, lat_r[0][0], iters, v);
}
static int tp_lat64(void *c, double *v)
{
	(void)c;
	return lat64_throughput(&place, lat_r[1][0], iters, v);
}
static int tp_ck64(void *c, double *v)
{
	(void)c;
	return ck64_throughput(&place, &ck64_r[0], iters, v);
}
static int tpb_lat64(void *c, double *v)
{
	(void)c;
	return lat64_throughput_burst(&place, lat_r[1][0], iters, v);
}
static int ho_lat8(void *c, double *v)
{
	(void)c;
	return lat8_handoff_ns(&place, lat_r[0][0], lat_r[0][1], iters / 20,
			       v);
}
static int ho_ck8(void *c, double *v)
{
	(void)c;
	return ck8_handoff_ns(&place, &ck8_r[0], &ck8_r[1], iters / 20, v);
}
static int ho_lat64(void *c, double *v)
{
	(void)c;
	return lat64_handoff_ns(&place, lat_r[1][0], lat_r[1][1],
				iters / 20, v);
}
static int ho_ck64(void *c, double *v)
{
	(void)c;
	return ck64_handoff_ns(&place, &ck64_r[0], &ck64_r[1], iters / 20,
			       v);
}
static int floor_ns(void *c, double *v)
{
	(void)c;
	return lat_bench_line_pingpong(&place, iters / 20, v);
}

static int floor2_ns(void *c, double *v)
{
	(void)c;
	return lat_bench_two_line_pingpong(&place, iters / 20, v);
}

/* The 64-byte floor: a payload line and a mark line each way. */
static int floor64_ns(void *c, double *v)
{
	(void)c;
	return lat_bench_line64_pingpong(&place, iters / 20, v);
}

enum kind { TIME_NS, RATE };

static void show(const char *what, enum kind kind,
		 const struct lat_bench_stat *s)
{
	if (kind == TIME_NS)
		printf("  %-9s %8.2f ns   (min %.2f, max %.2f)\n", what,
		       s->median, s->min, s->max);
	else
		printf("  %-9s %8.2f M/s  (min %.2f, max %.2f)\n", what,
		       s->median / 1e6, s->min / 1e6, s->max / 1e6);
}

/*
 * One comparison: latlab, ck (and optionally latlab batched), printed
 * with the ratio oriented so that > 1 means latlab does better. With
 * @check_floor the cache-line floor is measured again in the same rounds,
 * interleaved with the two rings: the host moves the two vCPUs about, so
 * a floor taken earlier in the run can sit 2x above a later, honest
 * handoff and flag it as a harness bug when it is not.
 */
static void compare(const char *title, enum kind kind, unsigned reps,
		    lat_bench_measure_fn f_lat, lat_bench_measure_fn f_ck,
		    lat_bench_measure_fn f_lat_burst, lat_bench_measure_fn f_seq,
		    bool check_floor, lat_bench_measure_fn f_floor64,
		    double vs_ck[2])
{
	lat_bench_measure_fn fns[7] = { f_lat, f_ck, f_lat_burst };
	struct lat_bench_stat st[7];
	unsigned k = f_lat_burst ? 3 : 2, seq = 0;
	double ratio, floor = 0;
	int rc;

	fns[k] = f_seq;
	seq = k++;
	if (f_floor64)
		fns[k++] = f_floor64;
	if (check_floor) {
		fns[k++] = floor2_ns;
		fns[k++] = floor_ns;
	}
	rc = lat_bench_repeat(fns, NULL, k, 1, reps, st);

	vs_ck[0] = vs_ck[1] = 0;
	printf("%s\n", title);
	if (rc) {
		printf("  failed: %s\n", lat_strerror(rc));
		return;
	}
	show("latlab", kind, &st[0]);
	show("ck_ring", kind, &st[1]);
	if (f_lat_burst) {
		char label[16];

		snprintf(label, sizeof(label), "latlab/%d", BURST);
		show(label, kind, &st[2]);
	}
	show("seqring", kind, &st[seq]);
	if (check_floor) {
		show("floor", kind, &st[k - 1]);
		show("floor/2ln", kind, &st[k - 2]);
		floor = st[k - 1].min;
	}
	if (f_floor64)
		show("floor/64B", kind, &st[seq + 1]);
	for (unsigned i = 0; floor > 0 && i <= seq; i++)
		if (i != 2 && st[i].min < floor)
			printf("  IMPLAUSIBLE: %s min %.2f ns is below the "
			       "%.2f ns cache-line floor: harness bug\n",
			       i == seq ? "seqring" : i ? "ck_ring" : "latlab",
			       st[i].min, floor);
	ratio = kind == TIME_NS ? st[1].median / st[0].median
				: st[0].median / st[1].median;
	vs_ck[0] = ratio;
	printf("  latlab/ck: %.2fx %s\n", ratio,
	       kind == TIME_NS ? "(ck time / latlab time)"
			       : "(latlab rate / ck rate)");
	ratio = kind == TIME_NS ? st[1].median / st[seq].median
				: st[seq].median / st[1].median;
	vs_ck[1] = ratio;
	printf("  seqring/ck: %.2fx", ratio);
	if (check_floor && st[k - 1].median > 0)
		printf("; seqring / floor %.2fx, latlab / floor %.2fx; "
		       "seqring / two-line floor %.2fx",
		       st[seq].median / st[k - 1].median,
		       st[0].median / st[k - 1].median,
		       st[seq].median / st[k - 2].median);
	if (f_floor64)
		printf("; seqring / 64-byte floor %.2fx",
		       st[seq].median / st[seq + 1].median);
	printf("\n");
}

int main(int argc, char **argv)
{
	unsigned reps = 7;
	struct lat_bench_stat fl;
	lat_bench_measure_fn ffl = floor_ns;
	double r[2], st64[2], tp64[2];

	if (argc > 1)
		reps = (unsigned)strtoul(argv[1], NULL, 10);
	if (argc > 2)
		iters = strtoull(argv[2], NULL, 10);
	if (reps < 1 || reps > 64 || iters < 1000) {
		fprintf(stderr, "usage: bench_ring_peer [reps 1..64 "
			"[iters >= 1000]]\n");
		return 2;
	}
	setup();
	if (lat_bench_place_pair(&place) || !place.pinned) {
		fprintf(stderr, "bench_ring_peer: needs two CPUs (%s)\n",
			place.desc);
		return 77;
	}
	printf("latlab ring vs ck_ring SPSC: %u rounds (+1 warm-up), "
	       "%llu messages per cross-core round\n", reps,
	       (unsigned long long)iters);
	printf("placement: %s\n", place.desc);
	if (lat_bench_repeat(&ffl, NULL, 1, 1, reps, &fl)) {
		fprintf(stderr, "bench_ring_peer: floor measurement failed\n");
		return 1;
	}
	printf("cache-line ping-pong floor (one way): %.1f ns (min %.1f, "
	       "max %.1f)\n\n", fl.median, fl.min, fl.max);

	compare("same-thread push+pop, 8 B (ns per pair)", TIME_NS, reps,
		st_lat8, st_ck8, NULL, st_seq8, false, NULL, r);
	compare("same-thread push+pop, 64 B (ns per pair)", TIME_NS, reps,
		st_lat64, st_ck64, NULL, st_seq64, false, NULL, st64);
	compare("cross-core throughput, 8 B", RATE, reps, tp_lat8, tp_ck8,
		tpb_lat8, tp_seq8, false, NULL, r);
	compare("cross-core throughput, 64 B", RATE, reps, tp_lat64, tp_ck64,
		tpb_lat64, tp_seq64, false, NULL, tp64);
	compare("one-way handoff, 8 B (ping-pong round trip / 2)", TIME_NS,
		reps, ho_lat8, ho_ck8, NULL, ho_seq8, true, NULL, r);
	compare("one-way handoff, 64 B (ping-pong round trip / 2)", TIME_NS,
		reps, ho_lat64, ho_ck64, NULL, ho_seq64, true,
		floor64_ns, r);
	/* the 64-byte targets, each ring where it is meant to win:
	 * >= 1.0x means at least ck_ring's rate / at most its time */
	printf("\n64 B against ck_ring (>= 1.00x: target met)\n"
	       "  cross-core throughput: lat_spsc %.2fx, lat_seqring %.2fx\n"
	       "  same-thread push+pop:  lat_spsc %.2fx, lat_seqring %.2fx\n",
	       tp64[0], tp64[1], st64[0], st64[1]);
	return 0;
}

#else

int main(void)
{
	printf("bench_ring_peer: Concurrency Kit not found at configure time "
	       "(apt-get install -y libck-dev, then re-run cmake)\n");
	return 77;
}

#endif
