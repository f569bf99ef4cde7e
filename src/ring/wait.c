/*
 * lat_wait: the slow paths (yield, futex sleep and wake) and parsing.
 *
 * The block protocol, and why no wake-up is lost. Waiter W wants
 * condition C (e.g. "tail != head"); notifier N makes C true by a release
 * store (the ring's index) and then calls lat_wait_notify. @sleepers is a
 * flag: 1 while W has announced itself and no notifier has taken the
 * announcement yet.
 *
 *   W: key = seq; swap(sleepers, 1) (acq_rel); if C: sleepers = 0,
 *      leave; futex_wait(seq, key); repeat
 *   N: publish C; if swap(sleepers, 0) (acq_rel) == 1:
 *      seq += 1 (release); futex_wake(seq)
 *
 * Both sides read-modify-write the one word @sleepers, so their two RMWs
 * are totally ordered in its modification order:
 *  - N's swap first: W's swap reads N's value (N's release sequence), so
 *    W synchronizes with N and its check of C sees the publication: W
 *    does not sleep on a stale view.
 *  - W's swap first: N reads 1 and bumps seq. W read key before its
 *    swap, and its swap (release) synchronizes with N's (acquire), so
 *    key is older than the bump: futex_wait finds seq != key and returns
 *    at once, or W is already asleep and the wake reaches it. Either way
 *    W looks at C again and, if it must still wait, announces afresh.
 * Why key is read before the announcement: a notifier may take it on
 * behalf of an earlier publication that did not make C true (the ring
 * was refilled in between). With key read after the announcement, W
 * could read the bumped seq, find C false, sleep on that value with its
 * announcement already taken, and no later publication would wake it:
 * test_spsc_threads hung that way under `block` (a producer asleep on
 * "space" beside an empty ring, the flag 0, seq equal to its key).
 * This is the store-buffer (Dekker) pattern done with RMWs on one word
 * instead of two seq_cst fences: same cost on x86 (a locked instruction
 * either way), and ThreadSanitizer, which does not model fences, sees the
 * happens-before edges. N's swap also clears the flag, so while W is
 * still waking up the next notifies see 0 and pay no second FUTEX_WAKE
 * (a counter here cost ~5 wakes per sleep on an 8-slot ring). The price:
 * one waiter per struct lat_wait, since W clears the flag when it leaves
 * and would clear another waiter's announcement. Every write of the word
 * is an RMW, so the modification-order argument above holds across
 * episodes. W re-checks C after every return (wakes may be spurious).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "latlab/wait.h"

static const char *const kind_names[] = {
	[LAT_WAIT_SPIN] = "spin",
	[LAT_WAIT_YIELD] = "yield",
	[LAT_WAIT_BLOCK] = "block",
};

int lat_wait_kind_parse(const char *s, enum lat_wait_kind *out)
{
	if (!s || !out)
		return -EINVAL;
	for (size_t k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]);
	     k++) {
		if (!strcmp(s, kind_names[k])) {
			*out = (enum lat_wait_kind)k;
			return 0;
		}
	}
	return -EINVAL;
}

const char *lat_wait_kind_name(enum lat_wait_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "unknown";
	return kind_names[kind];
}

int lat_wait_init(struct lat_wait *w, enum lat_wait_kind kind,
		  uint32_t spins)
{
	if (!w || (unsigned)kind > LAT_WAIT_BLOCK)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	atomic_init(&w->seq, 0);
	atomic_init(&w->sleepers, 0);
	w->kind = kind;
	w->spins = spins ? spins : LAT_WAIT_DEFAULT_SPINS;
	return 0;
}

int lat_wait_pair_init(struct lat_wait_pair *p, enum lat_wait_kind kind,
		       uint32_t spins)
{
	int rc;

	if (!p)
		return -EINVAL;
	rc = lat_wait_init(&p->data, kind, spins);
	return rc ? rc : lat_wait_init(&p->space, kind, spins);
}

static void futex_wait(_Atomic uint32_t *word, uint32_t key)
{
	/* EAGAIN (word != key), EINTR and spurious returns all mean "look
	 * again", which the caller's loop does */
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, key, NULL,
		NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX,
		NULL, NULL, 0);
}

static void sleep_until(struct lat_wait *w, lat_wait_ready_fn ready,
			void *ctx, struct lat_wait_stats *st)
{
	for (;;) {
		/* the key first, then the announcement (see the top: a
		 * key read after it could already count a wake that took
		 * the announcement). Acquire pairs with the notifier's seq
		 * increment */
		uint32_t key = atomic_load_explicit(&w->seq,
						    memory_order_acquire);

		/* announce; acq_rel pairs with the notifier's swap of
		 * sleepers in lat_wait_notify_slow: acquire, so a swap
		 * that came first makes its publication visible to the
		 * check of C; release, so a swap that comes after is
		 * ordered after our read of key */
		atomic_exchange_explicit(&w->sleepers, 1, memory_order_acq_rel);
		if (ready(ctx)) {
			/* withdraw; relaxed, but an RMW so that every
			 * write of the word is one and release sequences
			 * stay unbroken (see the top); a notifier that took
			 * the flag first pays one idle wake */
			atomic_exchange_explicit(&w->sleepers, 0,
						 memory_order_relaxed);
			return;
		}
		if (st)
			st->sleeps++;
		futex_wait(&w->seq, key);
		if (ready(ctx)) {
			/* withdraw, as above (the wake may have been
			 * spurious and the flag still set) */
			atomic_exchange_explicit(&w->sleepers, 0,
						 memory_order_relaxed);
			return;
		}
	}
}

void lat_wait_slow(struct lat_wait *w, lat_wait_ready_fn ready, void *ctx,
		   struct lat_wait_stats *st)
{
	if (w->kind == LAT_WAIT_BLOCK) {
		sleep_until(w, ready, ctx, st);
		return;
	}
	while (!ready(ctx)) {
		if (st)
			st->yields++;
		sched_yield();
	}
}

bool lat_wait_notify_slow(struct lat_wait *w, struct lat_wait_stats *st)
{
	/* an RMW, not a load: acq_rel pairs with the waiter's acq_rel swap
	 * of sleepers in sleep_until, so whichever comes second in the
	 * word's modification order sees the other (see the top) */
	if (atomic_exchange_explicit(&w->sleepers, 0,
				     memory_order_acq_rel) == 0)
		return false;
	/* release pairs with the waiter's acquire load of seq (key) */
	atomic_fetch_add_explicit(&w->seq, 1, memory_order_release);
	futex_wake_all(&w->seq);
	if (st)
		st->wakes++;
	return true;
}
