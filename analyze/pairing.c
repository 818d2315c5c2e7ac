/* Pairing of a QP's two flows: indexes of unpaired flows per host pair, so every packet costs O(1) however many QPs. */
#include "analyze/pairing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "dissect/opcodes.h"

/* an_pairflow.in */
enum {
	IN_OPEN = 1u << 0,   /* counted in its host pair's open flows */
	IN_NOPEER = 1u << 1, /* ... and open_nopeer */
	IN_CE = 1u << 2,     /* ... and open_ce */
	IN_PSN = 1u << 3,    /* filed in the PSN index */
	IN_PEER = 1u << 4,   /* filed in the peer index */
};

#define AN_PSN_LEVELS 24u
#define KEY_USED      (1ull << 63) /* set in every stored key: 0 marks an empty slot */

/* ---- the maps from a key to a list head ---- */

static int pmap_init(struct an_pmap *m)
{
	m->mask = 255;
	m->n = 0;
	m->s = calloc(m->mask + 1, sizeof(*m->s));
	return m->s ? 0 : -ENOMEM;
}

static uint32_t slot_of(const struct an_pmap *m, uint64_t key)
{
	return (uint32_t)rt_hash_mix(0x243f6a8885a308d3ull, key) & m->mask;
}

/* The head of key's list, or NULL. */
static uint32_t *pmap_find(const struct an_pmap *m, uint64_t key)
{
	key |= KEY_USED;
	for (uint32_t i = slot_of(m, key);; i = (i + 1) & m->mask) {
		if (m->s[i].key == key)
			return &m->s[i].head;
		if (!m->s[i].key)
			return NULL;
	}
}

static int pmap_grow(struct an_pmap *m)
{
	struct an_pmap old = *m;
	m->mask = old.mask * 2 + 1;
	m->s = calloc((size_t)m->mask + 1, sizeof(*m->s));
	if (!m->s) {
		*m = old;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i <= old.mask; i++) {
		if (!old.s[i].key)
			continue;
		uint32_t j = slot_of(m, old.s[i].key);
		while (m->s[j].key)
			j = (j + 1) & m->mask;
		m->s[j] = old.s[i];
	}
	free(old.s);
	return 0;
}

/* The head of key's list, a new empty list (AN_NONE) when absent; NULL when out of memory. */
static uint32_t *pmap_add(struct an_pmap *m, uint64_t key)
{
	uint32_t *h = pmap_find(m, key);
	if (h)
		return h;
	if ((m->n + 1) * 2 > m->mask + 1 && pmap_grow(m) < 0)
		return NULL;
	key |= KEY_USED;
	uint32_t i = slot_of(m, key);
	while (m->s[i].key)
		i = (i + 1) & m->mask;
	m->s[i].key = key;
	m->s[i].head = AN_NONE;
	m->n++;
	return &m->s[i].head;
}

/* Remove key (linear probing: the entries after it move back into the gap). */
static void pmap_del(struct an_pmap *m, uint64_t key)
{
	key |= KEY_USED;
	uint32_t i = slot_of(m, key);
	while (m->s[i].key != key) {
		if (!m->s[i].key)
			return;
		i = (i + 1) & m->mask;
	}
	for (uint32_t j = (i + 1) & m->mask; m->s[j].key; j = (j + 1) & m->mask) {
		uint32_t home = slot_of(m, m->s[j].key);
		/* the entry at j may move to the gap at i when its home is not within (i, j] */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->s[i] = m->s[j];
			i = j;
		}
	}
	m->s[i].key = 0;
	m->n--;
}

/* ---- host pairs ---- */

static uint32_t hash_hosts(const uint8_t *src, const uint8_t *dst, uint8_t ipver)
{
	uint64_t a[2] = {0, 0}, b[2] = {0, 0};
	memcpy(a, src, ipver == 4 ? 4 : 16);
	memcpy(b, dst, ipver == 4 ? 4 : 16);
	uint64_t h = rt_hash_mix(rt_hash_mix(rt_hash_mix(0x5bd1e995ull ^ ipver, a[0]), a[1]), b[0]);
	h = rt_hash_mix(h, b[1]);
	return (uint32_t)(h ^ (h >> 32));
}

static bool same_hosts(const struct an_hostpair *h, const uint8_t *src, const uint8_t *dst,
                       uint8_t ipver)
{
	size_t n = ipver == 4 ? 4 : 16;
	return h->ipver == ipver && !memcmp(h->src, src, n) && !memcmp(h->dst, dst, n);
}

static int grow_hosts(struct an_pairing *p)
{
	uint32_t nmask = p->hp_mask * 2 + 1;
	uint32_t *nt = malloc(((size_t)nmask + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	memset(nt, 0xff, ((size_t)nmask + 1) * sizeof(*nt));
	for (uint32_t hi = 0; hi < p->nhp; hi++) {
		const struct an_hostpair *h = &p->hp[hi];
		uint32_t j = hash_hosts(h->src, h->dst, h->ipver) & nmask;
		while (nt[j] != AN_NONE)
			j = (j + 1) & nmask;
		nt[j] = hi;
	}
	free(p->hp_tab);
	p->hp_tab = nt;
	p->hp_mask = nmask;
	return 0;
}

/* Host pair (src, dst), created when absent and `create`; AN_NONE when absent or out of memory. */
static uint32_t hosts_get(struct an_pairing *p, const uint8_t *src, const uint8_t *dst,
                          uint8_t ipver, bool create)
{
	uint32_t i = hash_hosts(src, dst, ipver) & p->hp_mask;
	for (; p->hp_tab[i] != AN_NONE; i = (i + 1) & p->hp_mask)
		if (same_hosts(&p->hp[p->hp_tab[i]], src, dst, ipver))
			return p->hp_tab[i];
	if (!create)
		return AN_NONE;
	if (p->nhp == p->cap_hp) {
		uint32_t ncap = p->cap_hp * 2;
		struct an_hostpair *nh = realloc(p->hp, (size_t)ncap * sizeof(*nh));
		if (!nh)
			return AN_NONE;
		p->hp = nh;
		p->cap_hp = ncap;
	}
	if ((p->nhp + 1) * 2 > p->hp_mask + 1) {
		if (grow_hosts(p) < 0)
			return AN_NONE;
		i = hash_hosts(src, dst, ipver) & p->hp_mask;
		while (p->hp_tab[i] != AN_NONE)
			i = (i + 1) & p->hp_mask;
	}
	struct an_hostpair *h = &p->hp[p->nhp];
	memset(h, 0, sizeof(*h));
	memcpy(h->src, src, 16);
	memcpy(h->dst, dst, 16);
	h->ipver = ipver;
	p->hp_tab[i] = p->nhp;
	return p->nhp++;
}

/* ---- per flow ---- */

/* Pairing's state of flow fi (grown to cover it), NULL when out of memory. */
static struct an_pairflow *pf_of(struct an_pairing *p, uint32_t fi)
{
	if (fi >= p->cap_pf) {
		uint32_t ncap = p->cap_pf ? p->cap_pf : 1024;
		while (ncap <= fi)
			ncap *= 2;
		struct an_pairflow *n = realloc(p->pf, (size_t)ncap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + p->cap_pf, 0, (size_t)(ncap - p->cap_pf) * sizeof(*n));
		for (uint32_t i = p->cap_pf; i < ncap; i++)
			n[i].hosts = AN_NONE;
		p->pf = n;
		p->cap_pf = ncap;
	}
	struct an_pairflow *pf = &p->pf[fi];
	if (pf->hosts == AN_NONE) {
		const struct rt_an_flow_key *k = &p->ft->flows[fi].key;
		pf->hosts = hosts_get(p, k->src, k->dst, k->ipver, true);
		if (pf->hosts == AN_NONE)
			return NULL;
	}
	return pf;
}

/* The host pair the other way of flow f; AN_NONE when no flow goes that way. */
static uint32_t reverse_hosts(struct an_pairing *p, const struct an_flow *f)
{
	return hosts_get(p, f->key.dst, f->key.src, f->key.ipver, false);
}

/* ---- the PSN index ---- */

static uint64_t psn_key(uint32_t hosts, unsigned level, uint32_t blk)
{
	return (uint64_t)hosts << 32 | (uint64_t)level << 24 | blk;
}

static struct an_pairflow *node_pf(struct an_pairing *p, uint32_t node)
{
	return &p->pf[node >> 1];
}

static void psn_unlink(struct an_pairing *p, uint32_t fi, unsigned k)
{
	struct an_pairflow *pf = &p->pf[fi];
	uint32_t next = pf->next[k], prev = pf->prev[k];
	if (prev != AN_NONE) {
		node_pf(p, prev)->next[prev & 1] = next;
	} else {
		uint64_t key = psn_key(pf->hosts, pf->level, pf->blk[k]);
		if (next == AN_NONE)
			pmap_del(&p->psn, key);
		else
			*pmap_find(&p->psn, key) = next;
	}
	if (next != AN_NONE)
		node_pf(p, next)->prev[next & 1] = prev;
}

/* Put node k of fi at the front of its list; false when out of memory. */
static bool psn_push(struct an_pairing *p, uint32_t fi, unsigned k)
{
	uint32_t *head =
	    pmap_add(&p->psn, psn_key(p->pf[fi].hosts, p->pf[fi].level, p->pf[fi].blk[k]));
	if (!head)
		return false;
	struct an_pairflow *pf = &p->pf[fi];
	uint32_t node = fi * 2 + k;
	pf->next[k] = *head;
	pf->prev[k] = AN_NONE;
	if (*head != AN_NONE)
		node_pf(p, *head)->prev[*head & 1] = node;
	*head = node;
	return true;
}

/* The blocks of fi's range: registrations 0 and, when the range spans two, 1. */
static unsigned psn_nodes(const struct an_pairflow *pf)
{
	return pf->blk[1] != pf->blk[0] ? 2 : 1;
}

static void psn_remove(struct an_pairing *p, uint32_t fi)
{
	struct an_pairflow *pf = &p->pf[fi];
	if (!(pf->in & IN_PSN))
		return;
	for (unsigned k = 0; k < psn_nodes(pf); k++)
		psn_unlink(p, fi, k);
	pf->in &= (uint8_t)~IN_PSN;
}

/* File fi (unpaired, with requests) under its range, as the newest requester of its lists. */
static void psn_file(struct an_pairing *p, uint32_t fi)
{
	const struct an_flow *f = &p->ft->flows[fi];
	struct an_pairflow *pf = pf_of(p, fi);
	if (!pf)
		return;
	uint32_t lo = f->psn_lo, top = (f->psn_hi + 1) & AN_PSN_MASK;
	uint32_t width = ((top - lo) & AN_PSN_MASK) + 1;
	unsigned level = width <= 1 ? 0 : 32u - (unsigned)__builtin_clz(width - 1);
	uint32_t b0 = lo >> level, b1 = top >> level;
	if ((pf->in & IN_PSN) && pf->level == level && pf->blk[0] == b0 && pf->blk[1] == b1) {
		/* the same lists: to their fronts (a node at the front stays: no lookup; a list that holds a
		 * node is in the map, so putting it back needs no memory) */
		for (unsigned k = 0; k < psn_nodes(pf); k++)
			if (pf->prev[k] != AN_NONE) {
				psn_unlink(p, fi, k);
				(void)psn_push(p, fi, k);
			}
		return;
	}
	psn_remove(p, fi);
	pf->level = (uint8_t)level;
	pf->blk[0] = b0;
	pf->blk[1] = b1;
	if (!psn_push(p, fi, 0))
		return;
	if (b1 != b0 && !psn_push(p, fi, 1)) {
		psn_unlink(p, fi, 0);
		return;
	}
	pf->in |= IN_PSN;
}

/* Does f's request range [psn_lo, psn_hi + 1] hold psn? */
static bool range_holds(const struct an_flow *f, uint32_t psn)
{
	return rt_psn_diff(psn, f->psn_lo) >= 0 && rt_psn_diff(psn, f->psn_hi) <= 1;
}

/* ---- the peer index ---- */

static uint64_t peer_key(uint32_t hosts, uint32_t qp)
{
	return (uint64_t)hosts << 32 | qp;
}

/* File open flow fi under its peer QP; each list keeps the highest flow index first. */
static void peer_file(struct an_pairing *p, uint32_t fi)
{
	struct an_pairflow *pf = &p->pf[fi];
	uint32_t *head = pmap_add(&p->peer, peer_key(pf->hosts, p->ft->flows[fi].peer_qp));
	if (!head)
		return;
	uint32_t prev = AN_NONE, next = *head;
	while (next != AN_NONE && next > fi) {
		prev = next;
		next = p->pf[next].peer_next;
	}
	pf->peer_prev = prev;
	pf->peer_next = next;
	if (prev != AN_NONE)
		p->pf[prev].peer_next = fi;
	else
		*head = fi;
	if (next != AN_NONE)
		p->pf[next].peer_prev = fi;
	pf->in |= IN_PEER;
}

static void peer_remove(struct an_pairing *p, uint32_t fi)
{
	struct an_pairflow *pf = &p->pf[fi];
	if (!(pf->in & IN_PEER))
		return;
	uint32_t next = pf->peer_next, prev = pf->peer_prev;
	if (prev != AN_NONE) {
		p->pf[prev].peer_next = next;
	} else {
		uint64_t key = peer_key(pf->hosts, p->ft->flows[fi].peer_qp);
		if (next == AN_NONE)
			pmap_del(&p->peer, key);
		else
			*pmap_find(&p->peer, key) = next;
	}
	if (next != AN_NONE)
		p->pf[next].peer_prev = prev;
	pf->in &= (uint8_t)~IN_PEER;
}

/* ---- open flows: unpaired, with packets ---- */

static void count(struct an_pairing *p, uint32_t fi, uint8_t bit, int dir)
{
	struct an_pairflow *pf = &p->pf[fi];
	struct an_hostpair *h = &p->hp[pf->hosts];
	uint32_t *n = bit == IN_OPEN ? &h->open : bit == IN_NOPEER ? &h->open_nopeer : &h->open_ce;
	uint64_t *sum = bit == IN_OPEN     ? &h->sum_open
	                : bit == IN_NOPEER ? &h->sum_nopeer
	                                   : &h->sum_ce;
	if (dir > 0 && !(pf->in & bit)) {
		(*n)++;
		*sum += fi;
		pf->in |= bit;
	} else if (dir < 0 && (pf->in & bit)) {
		(*n)--;
		*sum -= fi;
		pf->in &= (uint8_t)~bit;
	}
}

/* Flow fi is unpaired with packets: counted and filed as such. */
static void open_flow(struct an_pairing *p, uint32_t fi)
{
	const struct an_flow *f = &p->ft->flows[fi];
	if (!pf_of(p, fi))
		return;
	count(p, fi, IN_OPEN, 1);
	if (f->peer_qp == AN_NONE)
		count(p, fi, IN_NOPEER, 1);
	else if (!(p->pf[fi].in & IN_PEER))
		peer_file(p, fi);
	if (f->ecn[3])
		count(p, fi, IN_CE, 1);
	if (f->flags & AN_FLOW_HAS_REQ)
		psn_file(p, fi);
}

/* Flow fi is paired: out of every count and index. */
static void close_flow(struct an_pairing *p, uint32_t fi)
{
	if (fi >= p->cap_pf || p->pf[fi].hosts == AN_NONE)
		return;
	count(p, fi, IN_OPEN, -1);
	count(p, fi, IN_NOPEER, -1);
	count(p, fi, IN_CE, -1);
	psn_remove(p, fi);
	peer_remove(p, fi);
}

/* ---- the interface ---- */

int an_pair_init(struct an_pairing *p, struct an_flowtab *ft,
                 void (*linked)(void *ctx, uint32_t a, uint32_t b), void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->ft = ft;
	p->linked = linked;
	p->ctx = ctx;
	p->cap_hp = 256;
	p->hp = malloc(p->cap_hp * sizeof(*p->hp));
	p->hp_mask = 2 * 256 - 1;
	p->hp_tab = malloc(((size_t)p->hp_mask + 1) * sizeof(*p->hp_tab));
	if (!p->hp || !p->hp_tab || pmap_init(&p->psn) < 0 || pmap_init(&p->peer) < 0)
		return -ENOMEM;
	memset(p->hp_tab, 0xff, ((size_t)p->hp_mask + 1) * sizeof(*p->hp_tab));
	return 0;
}

void an_pair_free(struct an_pairing *p)
{
	free(p->hp);
	free(p->hp_tab);
	free(p->pf);
	free(p->psn.s);
	free(p->peer.s);
	memset(p, 0, sizeof(*p));
}

void an_pair_link(struct an_pairing *p, uint32_t a, uint32_t b, enum an_pair_how how)
{
	struct an_flow *fa = &p->ft->flows[a], *fb = &p->ft->flows[b];
	if (a == b)
		return;
	close_flow(p, a);
	close_flow(p, b);
	fa->reverse = b;
	fb->reverse = a;
	fa->peer_qp = fb->key.dest_qp;
	fb->peer_qp = fa->key.dest_qp;
	fa->pairing = (uint8_t)how;
	fb->pairing = (uint8_t)how;
	if (p->linked) {
		p->linked(p->ctx, a, b);
		p->linked(p->ctx, b, a);
	}
}

void an_pair_first_packet(struct an_pairing *p, uint32_t fi)
{
	if (p->ft->flows[fi].reverse == AN_NONE)
		open_flow(p, fi);
}

void an_pair_first_ce(struct an_pairing *p, uint32_t fi)
{
	if (fi < p->cap_pf && (p->pf[fi].in & IN_OPEN))
		count(p, fi, IN_CE, 1);
}

void an_pair_request(struct an_pairing *p, uint32_t fi)
{
	if (fi < p->cap_pf && (p->pf[fi].in & IN_OPEN))
		psn_file(p, fi);
}

void an_pair_response(struct an_pairing *p, uint32_t ri, uint32_t psn, uint64_t ts,
                      enum an_pair_how how)
{
	struct an_pairflow *rp = pf_of(p, ri);
	if (!rp)
		return;
	/* a flow that keeps failing tries once per 64 responses */
	if (rp->tries >= 64 && (rp->tries & 63)) {
		if (rp->tries < UINT16_MAX)
			rp->tries++;
		return;
	}
	if (rp->tries < UINT16_MAX)
		rp->tries++;
	const struct an_flow *r = &p->ft->flows[ri];
	uint32_t hosts = reverse_hosts(p, r);
	if (hosts == AN_NONE)
		return;
	psn &= AN_PSN_MASK;
	/* the requester that sent last (then the newest flow) among those whose range holds psn */
	uint32_t best = AN_NONE;
	uint64_t best_ts = 0;
	for (unsigned level = 0; level < AN_PSN_LEVELS; level++) {
		const uint32_t *head = pmap_find(&p->psn, psn_key(hosts, level, psn >> level));
		if (!head)
			continue;
		uint64_t hit_ts = 0;
		bool hit = false;
		for (uint32_t node = *head; node != AN_NONE;
		     node = node_pf(p, node)->next[node & 1]) {
			uint32_t fi = node >> 1;
			const struct an_flow *f = &p->ft->flows[fi];
			/* newest requester first: past the first that holds psn only its equals can win */
			if (hit && !p->disordered && f->last_req_ts != hit_ts)
				break;
			if (fi == ri || f->first_ts > ts || !range_holds(f, psn))
				continue;
			if (!hit) {
				hit = true;
				hit_ts = f->last_req_ts;
			}
			if (best == AN_NONE || f->last_req_ts > best_ts ||
			    (f->last_req_ts == best_ts && fi > best)) {
				best = fi;
				best_ts = f->last_req_ts;
			}
		}
	}
	if (best != AN_NONE)
		an_pair_link(p, best, ri, how);
}

uint32_t an_pair_cnp_target(struct an_pairing *p, uint32_t ri)
{
	const struct an_flow *r = &p->ft->flows[ri];
	if (r->reverse != AN_NONE)
		return r->reverse;
	uint32_t hosts = reverse_hosts(p, r);
	if (hosts == AN_NONE)
		return AN_NONE;
	const uint32_t *head = pmap_find(&p->peer, peer_key(hosts, r->key.dest_qp));
	for (uint32_t fi = head ? *head : AN_NONE; fi != AN_NONE; fi = p->pf[fi].peer_next)
		if (fi != ri) {
			an_pair_link(p, fi, ri, AN_PAIR_CNP);
			return fi;
		}
	/* the CNP's own flow is among them when both ends are one host */
	const struct an_hostpair *h = &p->hp[hosts];
	uint8_t self = ri < p->cap_pf && p->pf[ri].hosts == hosts ? p->pf[ri].in : 0;
	uint32_t n = h->open - !!(self & IN_OPEN), n_ce = h->open_ce - !!(self & IN_CE);
	uint64_t only = h->sum_open - ((self & IN_OPEN) ? ri : 0),
	         only_ce = h->sum_ce - ((self & IN_CE) ? ri : 0);
	uint32_t pick = n_ce == 1 ? (uint32_t)only_ce : n == 1 ? (uint32_t)only : AN_NONE;
	if (pick != AN_NONE)
		an_pair_link(p, pick, ri, AN_PAIR_CNP);
	return pick;
}

void an_pair_deth(struct an_pairing *p, uint32_t fi, uint32_t src_qp)
{
	struct an_flow *f = &p->ft->flows[fi];
	if (f->reverse != AN_NONE)
		return;
	if (f->peer_qp == AN_NONE) {
		f->peer_qp = src_qp & AN_PSN_MASK;
		f->pairing = AN_PAIR_DETH;
		if (fi < p->cap_pf && (p->pf[fi].in & IN_OPEN)) {
			count(p, fi, IN_NOPEER, -1);
			peer_file(p, fi);
		}
	}
	struct rt_an_flow_key rk;
	an_key_from(&rk, f->key.ipver, f->key.dst, f->key.src, f->peer_qp);
	uint32_t ri = an_flow_get(p->ft, &rk, false);
	if (ri == AN_NONE || ri == fi)
		return;
	const struct an_flow *r = &p->ft->flows[ri];
	if (r->reverse == AN_NONE && (r->peer_qp == AN_NONE || r->peer_qp == f->key.dest_qp))
		an_pair_link(p, fi, ri, AN_PAIR_DETH);
}

/* Flow fi leaves its pair: the other flow is unpaired again, with no peer QP. */
static void unlink_flow(struct an_pairing *p, uint32_t fi)
{
	struct an_flow *f = &p->ft->flows[fi];
	if (f->reverse == AN_NONE)
		return;
	uint32_t oi = f->reverse;
	struct an_flow *o = &p->ft->flows[oi];
	o->reverse = AN_NONE;
	o->peer_qp = AN_NONE;
	o->pairing = AN_PAIR_NONE;
	f->reverse = AN_NONE;
	if (o->packets)
		open_flow(p, oi);
}

bool an_pair_cm(struct an_pairing *p, const struct rt_an_flow_key *ka,
                const struct rt_an_flow_key *kb)
{
	uint32_t a = an_flow_get(p->ft, ka, true);
	if (a == AN_NONE)
		return false;
	uint32_t b = an_flow_get(p->ft, kb, true);
	if (b == AN_NONE || a == b)
		return false;
	if (p->ft->flows[a].reverse != b) {
		unlink_flow(p, a);
		unlink_flow(p, b);
	}
	an_pair_link(p, a, b, AN_PAIR_CM);
	return true;
}

bool an_pair_finish(struct an_pairing *p, const volatile sig_atomic_t *stop)
{
	for (uint32_t fi = 0; fi < p->ft->n; fi++) {
		if ((fi & 4095) == 0 && stop && *stop)
			return false;
		const struct an_flow *f = &p->ft->flows[fi];
		if (f->reverse != AN_NONE || !f->packets || f->peer_qp != AN_NONE)
			continue;
		if (fi >= p->cap_pf || p->pf[fi].hosts == AN_NONE)
			continue;
		uint32_t theirs = reverse_hosts(p, f);
		if (theirs == AN_NONE)
			continue;
		const struct an_hostpair *mine = &p->hp[p->pf[fi].hosts], *other = &p->hp[theirs];
		uint32_t cand = (uint32_t)other->sum_nopeer;
		if (mine->open == 1 && other->open_nopeer == 1 && cand != fi &&
		    p->ft->flows[cand].transport == f->transport && f->transport != RT_TR_UD)
			an_pair_link(p, fi, cand, AN_PAIR_SOLE);
	}
	return true;
}
