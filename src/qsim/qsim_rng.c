/*
 * lat_qsim random numbers: xoshiro256** (Blackman & Vigna) seeded through
 * splitmix64, so that every 64-bit seed, including 0, gives a well-mixed
 * non-zero state.
 */
#include "latlab/qsim.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void lat_qsim_rng_seed(struct lat_qsim_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}
