/* Rare per-flow facts for the findings, by flow index: CNP priorities, the longest stall during a pause. */
#include "analyze/facts.h"

#include <stdlib.h>
#include <string.h>

void an_facts_free(struct an_facts *s)
{
	free(s->e);
	free(s->tab);
	memset(s, 0, sizeof(*s));
}

static uint32_t slot(const struct an_facts *s, uint32_t fi)
{
	uint32_t k = (fi * 2654435761u) & s->mask;
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
