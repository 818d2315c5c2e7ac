/* The one hash mixer of the hash tables and fingerprints: 64 bits folded into a running hash. */
#ifndef RT_HASH_H
#define RT_HASH_H

#include <stdint.h>

/*
 * Fold v into the running hash h: xor, a multiply by 2^64 / phi (Fibonacci
 * hashing, which carries every input bit into the high bits) and an
 * xor-shift that brings the high bits back down, so the low bits a table
 * masks depend on all of them. Chain it over the words of a key from a
 * constant seed.
 */
static inline uint64_t rt_hash_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

#endif
