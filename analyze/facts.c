/* Rare per-flow facts for the findings, by flow index: CNP priorities, the longest stall during a pause. */
#include "analyze/facts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

void an_facts_free(struct an_facts *s)
{
	free(s->e);
	free(s->tab);
	memset(s, 0, sizeof(*s));
}

static uint32_t slot(const struct an_facts *s, uint32_t fi)
{
	uint32_t k = (uint32_t)rt_hash_mix(0, fi) & s->mask;
	while (s->tab[k] != UINT32_MAX && s->e[s->tab[k]].fi != fi)
		k = (k + 1) & s->mask;
	return k;
}

const struct an_fact *an_facts_find(const struct an_facts *s, uint32_t fi)
{
	if (!s->n)
		return NULL;
	uint32_t i = s->tab[slot(s, fi)];
	return i == UINT32_MAX ? NULL : &s->e[i];
}

static bool grow(struct an_facts *s)
{
	uint32_t cap = s->cap ? s->cap * 2 : 16, size = cap * 2;
	struct an_fact *e = realloc(s->e, cap * sizeof(*e));
	if (!e)
		return false;
	s->e = e;
	uint32_t *tab = malloc(size * sizeof(*tab));
	if (!tab)
		return false;
	s->cap = cap;
	memset(tab, 0xff, size * sizeof(*tab));
	free(s->tab);
	s->tab = tab;
	s->mask = size - 1;
	for (uint32_t i = 0; i < s->n; i++)
		s->tab[slot(s, s->e[i].fi)] = i;
	return true;
}

struct an_fact *an_facts_get(struct an_facts *s, uint32_t fi)
{
	uint32_t i = s->n ? s->tab[slot(s, fi)] : UINT32_MAX;
	if (i != UINT32_MAX)
		return &s->e[i];
	if (s->n == s->cap && !grow(s))
		return NULL;
	i = s->n++;
	s->tab[slot(s, fi)] = i;
	memset(&s->e[i], 0, sizeof(s->e[i]));
	s->e[i].fi = fi;
	return &s->e[i];
}

void an_facts_cnp(struct an_facts *s, uint32_t fi, uint8_t dscp, bool tagged, uint8_t pcp)
{
	struct an_fact *f = an_facts_get(s, fi);
	if (!f)
		return;
	if (f->cnp_seen &&
	    (f->cnp_dscp != dscp || f->cnp_tagged != tagged || (tagged && f->cnp_pcp != pcp)))
		f->cnp_mixed = true;
	f->cnp_seen = true;
	f->cnp_dscp = dscp;
	f->cnp_tagged = tagged;
	f->cnp_pcp = tagged ? pcp : 0;
}

void an_facts_stall(struct an_facts *s, uint32_t fi, uint64_t from, uint64_t ns)
{
	struct an_fact *f = an_facts_get(s, fi);
	if (f && ns > f->stall_ns) {
		f->stall_from = from;
		f->stall_ns = ns;
	}
}

int an_facts_merge(struct an_facts *dst, const struct an_facts *src, const uint32_t *at)
{
	for (uint32_t i = 0; i < src->n; i++) {
		const struct an_fact *e = &src->e[i];
		bool had = an_facts_find(dst, at[e->fi]) != NULL;
		struct an_fact *d = an_facts_get(dst, at[e->fi]);
		if (!d)
			return -ENOMEM;
		if (!had) {
			*d = *e;
			d->fi = at[e->fi];
			continue;
		}
		if (e->cnp_seen && d->cnp_seen &&
		    (e->cnp_mixed || d->cnp_dscp != e->cnp_dscp || d->cnp_tagged != e->cnp_tagged ||
		     d->cnp_pcp != e->cnp_pcp))
			d->cnp_mixed = true;
		else if (e->cnp_seen && !d->cnp_seen) {
			d->cnp_seen = true;
			d->cnp_mixed = e->cnp_mixed;
			d->cnp_dscp = e->cnp_dscp;
			d->cnp_tagged = e->cnp_tagged;
			d->cnp_pcp = e->cnp_pcp;
		}
		if (e->stall_ns > d->stall_ns) {
			d->stall_from = e->stall_from;
			d->stall_ns = e->stall_ns;
		}
	}
	return 0;
}
