/* The slotted ring: values addressed by a running number, the newest ones kept (episodes' byte slots, NP's CE marks). */
#ifndef RT_ANALYZE_RING_H
#define RT_ANALYZE_RING_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Slot n (n = 0, 1, ...: a time slot, a mark's number) lives at n mod cap;
 * the newest `cap` slots are held. A ring on its own storage grows
 * geometrically up to `max` slots as slots are pushed, so a flow with few
 * marks keeps few.
 */
struct an_sring {
	uint64_t *v;       /* cap slots; NULL until the first push (heap) */
	uint32_t cap, max; /* powers of 2: slots held now, and the most it grows to */
	bool heap; /* v is the ring's own (grown, freed); else the caller's storage of max slots */
	uint64_t
	    next; /* number of the slot after the newest: slots next - cap .. next - 1 are held */
};

/* A ring on caller storage of `n` slots (n a power of 2, zeroed). */
void an_sring_init_fixed(struct an_sring *r, uint64_t *storage, uint32_t n);
/* A ring on its own storage, growing up to `max` slots (a power of 2). */
void an_sring_init(struct an_sring *r, uint32_t max);
void an_sring_free(struct an_sring *r);

/* The oldest slot held (next when none is). */
static inline uint64_t an_sring_oldest(const struct an_sring *r)
{
	return r->next > r->cap ? r->next - r->cap : 0;
}

static inline bool an_sring_held(const struct an_sring *r, uint64_t n)
{
	return n < r->next && n >= an_sring_oldest(r);
}

/* Slot n, held. */
static inline uint64_t *an_sring_at(const struct an_sring *r, uint64_t n)
{
	return &r->v[n & (r->cap - 1)];
}

/* Append slot `next` with value v; -ENOMEM when it cannot grow to hold it (nothing changes). */
int an_sring_push(struct an_sring *r, uint64_t v);
/*
 * Make slot n the newest (n >= next; an older n changes nothing), the slots
 * it skips zeroed. Fixed rings only.
 */
void an_sring_advance(struct an_sring *r, uint64_t n);

#endif
