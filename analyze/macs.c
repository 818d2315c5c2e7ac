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

/* Room for one more entry (the table at most half full). False when out of memory. */
static bool grow(struct an_macs *m)
{
	if (m->n < m->cap && (m->n + 1) * 2 <= m->mask + 1)
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
	memset(tab, 0xff, size * sizeof(*tab));
	for (uint32_t i = 0; i < m->n; i++) {
		uint32_t k = mac_hash(m->e[i].mac) & (size - 1);
		while (tab[k] != UINT32_MAX)
			k = (k + 1) & (size - 1);
		tab[k] = i;
	}
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

void an_macs_add(struct an_macs *m, unsigned which, const uint8_t mac[6], int point, uint8_t ipver,
                 const uint8_t *ip)
{
	uint32_t i = m->n ? m->tab[slot(m, mac)] : UINT32_MAX;
	if (i == UINT32_MAX) {
		if (m->n == AN_MACS_MAX || !grow(m)) {
			m->beyond++;
			return;
		}
		i = m->n++;
		m->tab[slot(m, mac)] = i;
		memset(&m->e[i], 0, sizeof(m->e[i]));
		memcpy(m->e[i].mac, mac, 6);
	}
	struct an_mac *e = &m->e[i];
	e->frames++;
	if (point >= 0 && point < 8) {
		e->points |= (uint8_t)(1u << point);
		if (!which)
			e->src_points |= (uint8_t)(1u << point);
	}
	if (ip && !e->ipver) {
		e->ipver = ipver;
		memcpy(e->ip, ip, ipver == 4 ? 4 : 16);
	} else if (ip && !e->several &&
	           (e->ipver != ipver || memcmp(e->ip, ip, ipver == 4 ? 4 : 16))) {
		e->several = true;
	}
	m->last[which] = i;
}
