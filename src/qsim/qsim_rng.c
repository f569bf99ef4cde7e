/*
 * lat_qsim random numbers: xoshiro256** (Blackman & Vigna) seeded through
 * splitmix64, so that every 64-bit seed, including 0, gives a well-mixed
 * non-zero state.
 */
#include "latlab/qsim.h"
#include "latlab/stats.h"

void lat_qsim_rng_seed(struct lat_qsim_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = lat_splitmix64(&seed);
}
