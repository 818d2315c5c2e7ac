/* The slotted ring: a running number addresses a slot, the newest slots are kept, storage grows on demand. */
#include "analyze/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define AN_SRING_FIRST 4u /* slots a growing ring starts with */

void an_sring_init_fixed(struct an_sring *r, uint64_t *storage, uint32_t n)
{
	r->v = storage;
	r->cap = r->max = n;
	r->heap = false;
	r->next = 0;
}

void an_sring_init(struct an_sring *r, uint32_t max)
{
	r->v = NULL;
	r->cap = 0;
	r->max = max;
	r->heap = true;
	r->next = 0;
}

void an_sring_free(struct an_sring *r)
{
	if (r->heap)
		free(r->v);
	r->v = NULL;
	r->cap = 0;
}

/* Double the ring (at least AN_SRING_FIRST slots), the held slots moved to their new places. */
static int grow(struct an_sring *r)
{
	uint32_t ncap = r->cap ? r->cap * 2 : AN_SRING_FIRST;
	if (ncap > r->max)
		ncap = r->max;
	uint64_t *nv = calloc(ncap, sizeof(*nv)); /* slots never pushed read 0 */
	if (!nv)
		return -ENOMEM;
	for (uint64_t n = an_sring_oldest(r); n < r->next; n++)
		nv[n & (ncap - 1)] = *an_sring_at(r, n);
	free(r->v);
	r->v = nv;
	r->cap = ncap;
	return 0;
}

int an_sring_push(struct an_sring *r, uint64_t v)
{
	if (r->next >= r->cap && r->cap < r->max && grow(r) < 0)
		return -ENOMEM;
	*an_sring_at(r, r->next) = v;
	r->next++;
	return 0;
}

void an_sring_advance(struct an_sring *r, uint64_t n)
{
	if (n < r->next)
		return;
	if (n - r->next + 1 >= r->cap)
		memset(r->v, 0, (size_t)r->cap * sizeof(*r->v));
	else
		for (uint64_t k = r->next; k <= n; k++)
			*an_sring_at(r, k) = 0;
	r->next = n + 1;
}
