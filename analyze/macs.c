/* The MAC table: each MAC that sent or received RoCE, or sent PFC, with its vantage points and its IP. */
#include "analyze/macs.h"

#include <stdlib.h>

#include "common/hash.h"

void an_macs_free(struct an_macs *m)
{
	free(m->e);
	free(m->tab);
	memset(m, 0, sizeof(*m));
}

static uint32_t mac_hash(const uint8_t mac[6])
{
	uint64_t v = 0;
	memcpy(&v, mac, 6);
	uint64_t h = rt_hash_mix(0x9e3779b97f4a7c15ull, v);
	return (uint32_t)(h ^ (h >> 32));
}

/* The hash index of e[0..all) in tab, of `size` slots (a power of two), which it clears first. */
static void index_all(struct an_macs *m, uint32_t *tab, uint32_t size)
{
	memset(tab, 0xff, size * sizeof(*tab));
	for (uint32_t i = 0; i < m->all; i++) {
		uint32_t k = mac_hash(m->e[i].mac) & (size - 1);
		while (tab[k] != UINT32_MAX)
			k = (k + 1) & (size - 1);
		tab[k] = i;
	}
}

/* Room for one more entry (the table at most half full). False when out of memory. */
static bool grow(struct an_macs *m)
{
	if (m->all < m->cap && (m->all + 1) * 2 <= m->mask + 1)
		return true;
	uint32_t cap = m->cap ? m->cap * 2 : 16;
	struct an_mac *e = realloc(m->e, cap * sizeof(*e));
	if (!e)
		return false;
	m->e = e;
	m->cap = cap;
	uint32_t size = cap * 2;
	uint32_t *tab = malloc(size * sizeof(*tab));
	if (!tab)
		return false;
	index_all(m, tab, size);
	free(m->tab);
	m->tab = tab;
	m->mask = size - 1;
	return true;
}

/* The slot of `mac` in the table (holding its index, or UINT32_MAX where it would go). */
static uint32_t slot(const struct an_macs *m, const uint8_t mac[6])
{
	uint32_t k = mac_hash(mac) & m->mask;
	while (m->tab[k] != UINT32_MAX && memcmp(m->e[m->tab[k]].mac, mac, 6))
		k = (k + 1) & m->mask;
	return k;
}

/* A new entry for `mac` at e[all] (n grows with all), first seen at `first`; NULL when it holds `max` or out of memory. */
static struct an_mac *add_new(struct an_macs *m, const uint8_t mac[6], uint64_t first, uint32_t max)
{
	if (m->all >= max || !grow(m))
		return NULL;
	uint32_t i = m->all++;
	m->n++;
	m->tab[slot(m, mac)] = i;
	memset(&m->e[i], 0, sizeof(m->e[i]));
	memcpy(m->e[i].mac, mac, 6);
	m->e[i].first = first;
	return &m->e[i];
}

static bool same_ip(uint8_t ver, const uint8_t *ip, const struct an_mac *e)
{
	return e->ipver == ver && !memcmp(e->ip, ip, ver == 4 ? 4 : 16);
}

void an_macs_add(struct an_macs *m, unsigned which, const uint8_t mac[6], int point, uint8_t ipver,
                 const uint8_t *ip, uint64_t frame, bool part)
{
	uint64_t at = frame * 2 + which;
	uint32_t i = m->all ? m->tab[slot(m, mac)] : UINT32_MAX;
	struct an_mac *e;
	if (i != UINT32_MAX) /* one a merge put past AN_MACS_MAX is not in the table */
		e = i < m->n ? &m->e[i] : NULL;
	else /* a table a merge cut at AN_MACS_MAX takes no more */
		e = m->all == m->n ? add_new(m, mac, at, part ? AN_MACS_HELD : AN_MACS_MAX) : NULL;
	if (!e) {
		m->beyond++;
		return;
	}
	e->frames++;
	if (point >= 0 && point < 8) {
		e->points |= (uint8_t)(1u << point);
		if (!which)
			e->src_points |= (uint8_t)(1u << point);
	}
	if (ip && !e->ipver) {
		e->ipver = ipver;
		memcpy(e->ip, ip, ipver == 4 ? 4 : 16);
		e->ip_first = at;
	} else if (ip && !e->several && !same_ip(ipver, ip, e)) {
		e->several = true;
	}
	m->last[which] = (uint32_t)(e - m->e);
}

/* A MAC of both: frames, points, the IP first seen and whether it is a router's. */
static void unite(struct an_mac *d, const struct an_mac *s)
{
	d->frames += s->frames;
	d->points |= s->points;
	d->src_points |= s->src_points;
	d->several |= s->several || (s->ipver && d->ipver && !same_ip(s->ipver, s->ip, d));
	if (s->first < d->first)
		d->first = s->first;
	if (s->ipver && (!d->ipver || s->ip_first < d->ip_first)) {
		d->ipver = s->ipver;
		memcpy(d->ip, s->ip, sizeof(d->ip));
		d->ip_first = s->ip_first;
	}
}

/* The frames of the MACs a merge put past AN_MACS_MAX. */
static uint64_t frames_past(const struct an_macs *m)
{
	uint64_t f = 0;
	for (uint32_t i = m->n; i < m->all; i++)
		f += m->e[i].frames;
	return f;
}

static int by_first(const void *a, const void *b)
{
	const struct an_mac *x = a, *y = b;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return memcmp(x->mac, y->mac, 6);
}

void an_macs_merge(struct an_macs *dst, const struct an_macs *src)
{
	/* those past AN_MACS_MAX come back: a MAC of the other may come before them */
	dst->beyond -= frames_past(dst);
	dst->beyond += src->beyond - frames_past(src);
	dst->n = dst->all;
	for (uint32_t j = 0; j < src->all; j++) {
		const struct an_mac *s = &src->e[j];
		uint32_t i = dst->all ? dst->tab[slot(dst, s->mac)] : UINT32_MAX;
		struct an_mac *d =
		    i != UINT32_MAX ? &dst->e[i] : add_new(dst, s->mac, s->first, AN_MACS_HELD);
		if (!d)
			dst->beyond += s->frames;
		else if (i == UINT32_MAX)
			*d = *s;
		else
			unite(d, s);
	}
	if (dst->all) {
		qsort(dst->e, dst->all, sizeof(*dst->e), by_first);
		index_all(dst, dst->tab, dst->mask + 1);
	}
	dst->n = dst->all < AN_MACS_MAX ? dst->all : AN_MACS_MAX;
	dst->beyond += frames_past(dst);
	dst->last[0] = dst->last[1] = UINT32_MAX;
}
