/*
 * lat_lab_plan / lat_lab_configure: where each run goes and what it runs.
 * The placements come from the pipeline's own placement
 * (lat_pipe_place_pool), so the lab never second-guesses the topology: it
 * only moves stage 1 or the consumer where a disease needs them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/lab.h"

void lat_lab_opts_init(struct lat_lab_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->events = 200000;
	o->rate = 200000;
	o->rounds = 1;
	o->seed = 1;
	for (int e = 0; e < LAT_LAB_N_EXP; e++)
		o->want[e] = true;
	o->calibrate_ms = 200;
	o->apart_wait_ms = LAT_LAB_APART_WAIT_MS;
	o->counters = true;
}

int lat_lab_opts_check(const struct lat_lab_opts *o, const char **why)
{
	const char *msg = NULL;
	bool disease = false;

	for (int e = 0; e < LAT_LAB_N_EXP; e++)
		disease |= e != LAT_LAB_NULL && o->want[e];
	if (o->rounds < 1 || o->rounds > LAT_LAB_MAX_ROUNDS)
		msg = "rounds must be between 1 and 20";
	else if (o->events < 1000 || o->events > 1000000000ULL)
		msg = "events must be between 1000 and 10^9";
	else if (!(o->rate >= 100 && o->rate <= 1e9))
		msg = "rate must be between 100 and 10^9 events/s";
	else if (!disease && !o->sham_only)
		msg = "want names no disease: null runs in every lab";
	else if (disease && o->sham_only)
		msg = "sham_only runs null alone: want must name no disease";
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

/* The placement of each arm, derived from the default one. */
static int find_places(struct lat_lab_place *pl)
{
	struct lat_pipe_placement got;
	struct lat_pipe_config c;
	int *d = pl->cpu[LAT_LAB_ARM_DEFAULT], rc;

	memset(pl, 0, sizeof(*pl));
	lat_pipe_config_init(&c);
	rc = lat_pipe_place_pool(&c, NULL, 0, false, &got);
	if (rc)
		return rc;
	pl->n_usable = got.n_usable;
	pl->oversubscribed = got.oversubscribed;
	for (int i = 0; i < 3; i++)
		d[i] = c.cpu[i];
	memcpy(pl->cpu[LAT_LAB_ARM_SLOW], d, sizeof(pl->cpu[0]));
	if (d[1] != d[2]) {
		/* writers already apart: join them for the control */
		memcpy(pl->cpu[LAT_LAB_ARM_SPLIT], d, sizeof(pl->cpu[0]));
		pl->cpu[LAT_LAB_ARM_JOINED][0] = d[0];
		pl->cpu[LAT_LAB_ARM_JOINED][1] = d[1];
		pl->cpu[LAT_LAB_ARM_JOINED][2] = d[1];
		pl->can_split = true;
	} else {
		/* two CPUs, three hot threads: the producer doubles up with
		 * stage 1 so the consumer gets the other CPU */
		memcpy(pl->cpu[LAT_LAB_ARM_JOINED], d, sizeof(pl->cpu[0]));
		pl->cpu[LAT_LAB_ARM_SPLIT][0] = d[0];
		pl->cpu[LAT_LAB_ARM_SPLIT][1] = d[0];
		pl->cpu[LAT_LAB_ARM_SPLIT][2] = d[1];
		pl->can_split = d[0] != d[1];
	}
	for (int a = 0; a < LAT_LAB_N_ARMS; a++)
		pl->same_as_default[a] = !memcmp(pl->cpu[a], d,
						 sizeof(pl->cpu[0]));
	return 0;
}

/* The arm an experiment is compared within, on this machine. */
static enum lat_lab_arm arm_of(const struct lat_lab_place *pl,
			       enum lat_lab_exp e)
{
	enum lat_lab_arm a = e == LAT_LAB_ALLOC_MMAP ? LAT_LAB_ARM_SLOW :
			     e == LAT_LAB_SHARE_LINE ? LAT_LAB_ARM_SPLIT :
			     e == LAT_LAB_SHARE_LINE_1CPU ? LAT_LAB_ARM_JOINED :
			     LAT_LAB_ARM_DEFAULT;

	/* the same placement at the same rate is the default baseline */
	if (a != LAT_LAB_ARM_SLOW && pl->same_as_default[a])
		a = LAT_LAB_ARM_DEFAULT;
	return a;
}

static bool runnable(const struct lat_lab *L, enum lat_lab_exp e)
{
	if (e != LAT_LAB_NULL && (!L->opts.want[e] || L->opts.sham_only))
		return false;
	if (e == LAT_LAB_SHARE_LINE && !L->place.can_split)
		return false; /* judged "cannot show" without a run */
	if (e == LAT_LAB_NO_PIN && L->place.n_usable < 2)
		return false;
	return true;
}

static void add_row(struct lat_lab *L, bool baseline, enum lat_lab_arm a,
		    enum lat_lab_exp e, int round)
{
	struct lat_lab_row *r = &L->row[L->n_plan++];

	memset(r, 0, sizeof(*r));
	r->baseline = baseline;
	r->arm = a;
	r->exp = e;
	r->round = round;
	r->flight.trigger_part = -1;
	if (!baseline)
		snprintf(r->name, sizeof(r->name), "%s", lat_lab_exp_name(e));
	else if (a == LAT_LAB_ARM_DEFAULT)
		snprintf(r->name, sizeof(r->name), "baseline");
	else
		snprintf(r->name, sizeof(r->name), "baseline %s",
			 lat_lab_arm_name(a));
}

int lat_lab_plan(struct lat_lab *L)
{
	int order[LAT_LAB_N_EXP], n = 0, rc;
	unsigned seed = (unsigned)(L->opts.seed ^ (L->opts.seed >> 32));

	rc = find_places(&L->place);
	if (rc)
		return rc;
	L->n_plan = L->n_rows = 0;
	for (int e = 0; e < LAT_LAB_N_EXP; e++)
		if (runnable(L, e))
			order[n++] = e;
	for (int round = 0; round < L->opts.rounds; round++) {
		/* later rounds in a shuffled order, so no experiment always
		 * follows the same one (Fisher-Yates) */
		for (int i = n - 1; round && i > 0; i--) {
			int j = rand_r(&seed) % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (int k = 0; k < n; k++) {
			enum lat_lab_arm a = arm_of(&L->place, order[k]);
			const struct lat_lab_row *last =
				L->n_plan ? &L->row[L->n_plan - 1] : NULL;

			if (!last || !last->baseline || last->arm != a)
				add_row(L, true, a, 0, round);
			add_row(L, false, a, order[k], round);
			add_row(L, true, a, 0, round);
		}
	}
	return 0;
}

/*
 * The stall: 4x the largest max e2e of the baselines run before row @i,
 * within 2 ms .. 200 ms, so that half of it is still above anything those
 * baselines did, on a quiet machine or a loaded one.
 */
static double stall_ns_before(const struct lat_lab *L, int i)
{
	double worst = 0, s;

	for (int j = 0; j < i; j++)
		if (L->row[j].baseline && L->row[j].max_ns > worst)
			worst = L->row[j].max_ns;
	s = 4 * worst;
	return s < 2e6 ? 2e6 : s > 2e8 ? 2e8 : s;
}

int lat_lab_configure(const struct lat_lab *L, int i,
		      struct lat_pipe_config *c, double *freeze_ns)
{
	const struct lat_lab_row *r = &L->row[i];
	const struct lat_lab_opts *o = &L->opts;
	enum lat_lab_arm a = r->arm;
	enum lat_lab_exp e = r->baseline ? LAT_LAB_NULL : r->exp;

	lat_pipe_config_init(c);
	c->events = o->events;
	c->rate = o->rate;
	c->calibrate_ms = o->calibrate_ms;
	if (a == LAT_LAB_ARM_SLOW) {
		c->events /= LAT_LAB_SLOW_DIV;
		c->events = c->events < 1000 ? 1000 : c->events;
		c->rate /= LAT_LAB_SLOW_DIV;
	}
	if (freeze_ns)
		*freeze_ns = 0;
	switch (e) {
	case LAT_LAB_ALLOC:
		c->alloc_bytes = LAT_LAB_ALLOC_BYTES;
		break;
	case LAT_LAB_ALLOC_MMAP:
		c->alloc_bytes = LAT_LAB_ALLOC_MMAP_BYTES;
		break;
	case LAT_LAB_NO_PIN:
		c->pin = false;
		break;
	case LAT_LAB_NOISE:
		c->noise = true;
		break;
	case LAT_LAB_STALL:
		/* early in the run, so few ordinary outliers come first */
		c->stall_seq = c->events / 20;
		c->stall_ns = stall_ns_before(L, i);
		/* half the stall is twice the baselines' worst: nothing they
		 * did would freeze the recorder */
		if (freeze_ns)
			*freeze_ns = c->stall_ns / 2;
		break;
	case LAT_LAB_SHARE_LINE:
	case LAT_LAB_SHARE_LINE_1CPU:
		c->share_line = true;
		break;
	default:
		break;
	}
	return lat_pipe_place_pool(c, a == LAT_LAB_ARM_DEFAULT ||
				      a == LAT_LAB_ARM_SLOW ? NULL :
				      L->place.cpu[a], a == LAT_LAB_ARM_DEFAULT ||
				      a == LAT_LAB_ARM_SLOW ? 0 : 3, false,
				   NULL);
}
