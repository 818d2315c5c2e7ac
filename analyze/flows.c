/* Flow table (open addressing, grows by doubling), host-pair index, flow pairing and the quantile sketch. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"

#define AN_INITIAL_FLOWS 1024u

static uint32_t hash_bytes(const void *p, size_t n)
{
	/* FNV-1a, then a finalizer so low bits are well mixed for the mask */
	const uint8_t *b = p;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint32_t hash_key(const struct an_key *k)
{
	uint64_t h = 0x243f6a8885a308d3ull ^ k->dest_qp;
	uint64_t w[4];
	if (k->ipver == 4) {
		uint32_t a, b;
		memcpy(&a, k->src, 4);
		memcpy(&b, k->dst, 4);
		h = mix(h, (uint64_t)a << 32 | b);
	} else {
		memcpy(w, k->src, 16);
		memcpy(w + 2, k->dst, 16);
		for (int i = 0; i < 4; i++)
			h = mix(h, w[i]);
	}
	h = mix(h, k->ipver);
	return (uint32_t)(h ^ (h >> 32));
}

static bool same_key(const struct an_key *a, const struct an_key *b)
{
	if (a->dest_qp != b->dest_qp || a->ipver != b->ipver)
		return false;
	if (a->ipver == 4)
		return !memcmp(a->src, b->src, 4) && !memcmp(a->dst, b->dst, 4);
	return !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

static uint32_t hash_hosts(const uint8_t *src, const uint8_t *dst, uint8_t ipver)
{
	uint8_t tmp[33];
	size_t n = ipver == 4 ? 4 : 16;
	memcpy(tmp, src, n);
	memcpy(tmp + n, dst, n);
	tmp[2 * n] = ipver;
	return hash_bytes(tmp, 2 * n + 1) ^ 0x5bd1e995u;
}

int an_flows_init(struct rt_analyzer *an)
{
	an->cap_flows = AN_INITIAL_FLOWS;
	an->flows = aligned_alloc(_Alignof(struct an_flow), an->cap_flows * sizeof(*an->flows));
	if (an->flows)
		memset(an->flows, 0, an->cap_flows * sizeof(*an->flows));
	an->tab_mask = 2 * AN_INITIAL_FLOWS - 1;
	an->tab = malloc((size_t)(an->tab_mask + 1) * sizeof(*an->tab));
	an->htab_mask = 2 * AN_INITIAL_FLOWS - 1;
	an->htab_flow = malloc((size_t)(an->htab_mask + 1) * sizeof(*an->htab_flow));
	an->order_cap = AN_INITIAL_FLOWS;
	an->order = malloc(an->order_cap * sizeof(*an->order));
	if (!an->flows || !an->tab || !an->htab_flow || !an->order)
		return -ENOMEM;
	memset(an->tab, 0xff, (size_t)(an->tab_mask + 1) * sizeof(*an->tab));
	memset(an->htab_flow, 0xff, (size_t)(an->htab_mask + 1) * sizeof(*an->htab_flow));
	return 0;
}

void an_flows_free(struct rt_analyzer *an)
{
	for (uint32_t i = 0; i < an->nflows; i++)
		an_ext_free(an->flows[i].ext);
	free(an->flows);
	free(an->tab);
	free(an->htab_flow);
	free(an->order);
}

static bool same_hosts(const struct an_flow *f, const uint8_t *src, const uint8_t *dst, uint8_t ipver)
{
	size_t n = ipver == 4 ? 4 : 16;
	return f->key.ipver == ipver && !memcmp(f->key.src, src, n) && !memcmp(f->key.dst, dst, n);
}

/* Slot in the host-pair table for (src, dst): its chain head or an empty slot. */
static uint32_t hosts_slot(const struct rt_analyzer *an, const uint8_t *src, const uint8_t *dst,
			   uint8_t ipver)
{
	uint32_t i = hash_hosts(src, dst, ipver) & an->htab_mask;
	for (;;) {
		uint32_t fi = an->htab_flow[i];
		if (fi == AN_NONE || same_hosts(&an->flows[fi], src, dst, ipver))
			return i;
		i = (i + 1) & an->htab_mask;
	}
}

uint32_t an_hosts_head(const struct rt_analyzer *an, const uint8_t *src, const uint8_t *dst, uint8_t ipver)
{
	return an->htab_flow[hosts_slot(an, src, dst, ipver)];
}

static int grow_tables(struct rt_analyzer *an)
{
	uint32_t nmask = an->tab_mask * 2 + 1;
	uint32_t *nt = malloc((size_t)(nmask + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	memset(nt, 0xff, (size_t)(nmask + 1) * sizeof(*nt));
	for (uint32_t fi = 0; fi < an->nflows; fi++) {
		uint32_t i = an->flows[fi].hash & nmask;
		while (nt[i] != AN_NONE)
			i = (i + 1) & nmask;
		nt[i] = fi;
	}
	free(an->tab);
	an->tab = nt;
	an->tab_mask = nmask;
	return 0;
}

static int grow_hosts(struct rt_analyzer *an)
{
	uint32_t nmask = an->htab_mask * 2 + 1;
	uint32_t *nt = malloc((size_t)(nmask + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	memset(nt, 0xff, (size_t)(nmask + 1) * sizeof(*nt));
	for (uint32_t i = 0; i <= an->htab_mask; i++) {
		uint32_t fi = an->htab_flow[i];
		if (fi == AN_NONE)
			continue;
		const struct an_flow *f = &an->flows[fi];
		uint32_t j = hash_hosts(f->key.src, f->key.dst, f->key.ipver) & nmask;
		while (nt[j] != AN_NONE)
			j = (j + 1) & nmask;
		nt[j] = fi;
	}
	free(an->htab_flow);
	an->htab_flow = nt;
	an->htab_mask = nmask;
	return 0;
}

uint32_t an_flow_get(struct rt_analyzer *an, const struct an_key *key, bool create)
{
	uint32_t h = hash_key(key);
	uint32_t i = h & an->tab_mask;
	for (;;) {
		uint32_t fi = an->tab[i];
		if (fi == AN_NONE)
			break;
		if (an->flows[fi].hash == h && same_key(&an->flows[fi].key, key))
			return fi;
		i = (i + 1) & an->tab_mask;
	}
	if (!create)
		return AN_NONE;
	if (an->nflows == AN_NONE - 1)
		return AN_NONE;
	if (an->nflows == an->cap_flows) {
		uint32_t ncap = an->cap_flows * 2;
		struct an_flow *nf = aligned_alloc(_Alignof(struct an_flow), (size_t)ncap * sizeof(*nf));
		if (!nf)
			return AN_NONE;
		memcpy(nf, an->flows, (size_t)an->cap_flows * sizeof(*nf));
		free(an->flows);
		an->flows = nf;
		an->cap_flows = ncap;
	}
	/* keep the load factor at most 1/2 */
	if ((an->nflows + 1) * 2 > an->tab_mask + 1) {
		if (grow_tables(an) < 0)
			return AN_NONE;
		i = h & an->tab_mask;
		while (an->tab[i] != AN_NONE)
			i = (i + 1) & an->tab_mask;
	}
	if ((an->nhosts + 1) * 2 > an->htab_mask + 1 && grow_hosts(an) < 0)
		return AN_NONE;
	uint32_t fi = an->nflows++;
	struct an_flow *f = &an->flows[fi];
	memset(f, 0, sizeof(*f));
	f->key = *key;
	f->hash = h;
	f->id = AN_NONE;
	f->reverse = AN_NONE;
	f->next_dirty = AN_NONE;
	f->peer_qp = AN_NONE;
	f->transport = 0xff;
	an->tab[i] = fi;
	uint32_t hs = hosts_slot(an, key->src, key->dst, key->ipver);
	if (an->htab_flow[hs] == AN_NONE)
		an->nhosts++;
	f->next_hosts = an->htab_flow[hs];
	an->htab_flow[hs] = fi;
	return fi;
}

void an_assign_id(struct rt_analyzer *an, uint32_t fi)
{
	struct an_flow *f = &an->flows[fi];
	if (f->id != AN_NONE)
		return;
	if (an->next_id == an->order_cap) {
		uint32_t *no = realloc(an->order, (size_t)an->order_cap * 2 * sizeof(*no));
		if (!no)
			return; /* stays without an id: counted, not listed */
		an->order = no;
		an->order_cap *= 2;
	}
	f->id = an->next_id++;
	an->order[f->id] = fi;
	f->selected = rt_flowsel_match(&an->sel, f->id, f->key.ipver, f->key.src, f->key.dst,
				       f->key.dest_qp);
}

struct an_flow_ext *an_ext(struct an_flow *f)
{
	if (!f->ext)
		f->ext = calloc(1, sizeof(*f->ext));
	return f->ext;
}

void an_ext_free(struct an_flow_ext *e)
{
	if (!e)
		return;
	free(e->rtt);
	free(e->np_reaction);
	free(e->gbn_delay);
	free(e->timeout_gap);
	free(e->recover);
	free(e->ce_log);
	free(e->ce_log_frame);
	free(e->cnp_log);
	if (e->np) {
		free(e->np->ce_frame);
		free(e->np->v);
		free(e->np);
	}
	free(e);
}

void an_link(struct rt_analyzer *an, uint32_t a, uint32_t b, enum an_pairing how)
{
	struct an_flow *fa = &an->flows[a], *fb = &an->flows[b];
	if (a == b)
		return;
	fa->reverse = b;
	fb->reverse = a;
	fa->peer_qp = fb->key.dest_qp;
	fb->peer_qp = fa->key.dest_qp;
	fa->pairing = (uint8_t)how;
	fb->pairing = (uint8_t)how;
	an_cnp_settle(an, a, b);
	an_cnp_settle(an, b, a);
}

const char *an_pairing_name(enum an_pairing p)
{
	static const char *const names[] = {"none", "ack", "response", "deth", "cm", "cnp", "sole"};
	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "none";
}

/* ---- quantile sketch ---- */

static unsigned hist_index(uint64_t v)
{
	if (v < 16)
		return (unsigned)v;
	unsigned o = 63u - (unsigned)__builtin_clzll(v);
	if (o > 40)
		return AN_HIST_BUCKETS - 1;
	unsigned sub = (unsigned)(v >> (o - 3)) & 7u;
	return 16u + (o - 4u) * 8u + sub;
}

static uint64_t hist_value(unsigned idx)
{
	if (idx < 16)
		return idx;
	unsigned o = (idx - 16u) / 8u + 4u, sub = (idx - 16u) % 8u;
	uint64_t lo = (8ull + sub) << (o - 3);
	uint64_t width = 1ull << (o - 3);
	return lo + width / 2;
}

void an_hist_add(struct an_hist *h, uint64_t v)
{
	if (h->n < AN_HIST_EXACT)
		h->exact[h->n] = v;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->bucket[hist_index(v)]++;
	h->sumsq += (unsigned __int128)v * v;
}

double an_hist_stddev(const struct an_hist *h)
{
	if (!h->n)
		return 0.0;
	long double n = (long double)h->n, mean = (long double)h->sum / n;
	long double var = (long double)h->sumsq / n - mean * mean;
	return var > 0 ? (double)sqrtl(var) : 0.0;
}

void an_hist_addp(struct an_hist **h, uint64_t v)
{
	if (!*h)
		*h = calloc(1, sizeof(**h));
	if (*h)
		an_hist_add(*h, v);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t an_hist_quantile(const struct an_hist *h, double q)
{
	if (!h->n)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)h->n + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	if (h->n <= AN_HIST_EXACT) {
		uint64_t tmp[AN_HIST_EXACT];
		memcpy(tmp, h->exact, h->n * sizeof(tmp[0]));
		qsort(tmp, h->n, sizeof(tmp[0]), cmp_u64);
		return tmp[rank - 1];
	}
	if (rank == 1)
		return h->min;
	if (rank == h->n)
		return h->max;
	uint64_t seen = 0;
	for (unsigned i = 0; i < AN_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t v = hist_value(i);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}
