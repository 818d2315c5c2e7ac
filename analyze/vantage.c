/* Vantage points: the same RoCE packet matched across capture places, their clock offsets, one-way delays, losses and CE marks between them. */
#include "analyze/vantage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

/*
 * A packet is known by the fingerprint duplicate detection gives it (what
 * no hop changes: addresses, destination QP, PSN, opcode, lengths, UDP
 * source port, IPv4 id; ECN, TTL and the link layer left out). Its frames
 * at the vantage points are gathered in one entry for `window_ns` after
 * the first; then the window closes and the entry is settled: each pair
 * of points that both saw it gets a time difference d (in their own
 * clocks) and a CE mark picked up between them; a point that did not see
 * it logs it as a miss, by the time the other saw it. At the end, the
 * delays between the points (d, the clock offset in it) tell when a missed
 * packet would have passed the point that missed it: lost when that point
 * was capturing from before to after then, else not judged
 * (vantage_paths.c).
 *
 * Identical packets (CNPs to one QP, a resend) in flight at once are
 * separate entries: a frame joins the oldest one its point has not seen
 * yet (frames reach the next point in the order they passed the first).
 * A frame again at a point all of them have seen starts a new entry,
 * unless duplicate detection calls it a copy (the same point seeing a
 * packet twice: a port mirrored twice).
 *
 * Memory: the packets of one window (a ring, and a hash from fingerprint
 * to the newest of them) and, per class of packets (one direction between
 * two hosts) and pair of points, a link with two quantile sketches.
 *
 * One point alone: settling an entry does nothing while one point was
 * seen, so none is made. The packets of the window wait in a plain ring
 * instead (32 bytes each, the addresses of non-IPv4 ones 32 more), closed
 * and copies left out as the entries would be; a second point's first
 * frame turns them into entries, in order, and matching begins: its
 * frames match the first point's packets of the window before it came.
 * When the source says no other point can come (alone), nothing waits.
 */

void an_vp_init(struct an_vantage *v, bool on, uint64_t window_ns)
{
	memset(v, 0, sizeof(*v));
	v->on = on;
	v->window_ns = window_ns;
	v->sample_k = v->sample_m = 1;
	v->only = -1;
}

void an_vp_sample(struct an_vantage *v, uint32_t k, uint32_t m)
{
	v->sample_k = k && k < m ? k : 1;
	v->sample_m = k && k < m ? m : 1;
}

/*
 * Whether trajectory sampling keeps the packet of fingerprint fp: a hash of
 * what every point sees alike, so that every point keeps the same packets.
 * Mixed again: the tables below index by the fingerprint's low bits.
 */
bool an_vp_fp_sampled(uint32_t k, uint32_t m, uint64_t fp)
{
	return m <= 1 || rt_hash_mix(0x6a09e667f3bcc909ull, fp) % m < k;
}

static bool sampled(const struct an_vantage *v, uint64_t fp)
{
	return an_vp_fp_sampled(v->sample_k, v->sample_m, fp);
}

void an_vp_free(struct an_vantage *v)
{
	free(v->e);
	free(v->h);
	free(v->pre);
	free(v->pre6);
	for (uint32_t c = 0; c < v->ncls; c++)
		for (unsigned p = 0; p < AN_VP_PAIRS; p++) {
			struct an_vp_link *l = v->cls[c].link[p];
			if (l) {
				free(l->pos);
				free(l->neg);
				free(l->miss[0].t);
				free(l->miss[1].t);
				free(l);
			}
		}
	free(v->cls);
	free(v->cidx);
	for (unsigned i = 0; i < v->nvp; i++) {
		free((char *)v->vp[i].name);
		for (unsigned k = 0; k < v->vp[i].nfiles; k++)
			free((char *)v->vp[i].files[k]);
		free((void *)v->vp[i].files);
	}
	free(v->vp);
	memset(v, 0, sizeof(*v));
}

/* ---- the hash from fingerprint to the newest live entry ---- */

static uint32_t hslot(const struct an_vantage *v, uint64_t fp)
{
	return (uint32_t)((fp ^ (fp >> 29)) & (v->hcap - 1));
}

/* The slot holding fp, or hcap. */
static uint32_t hfind(const struct an_vantage *v, uint64_t fp)
{
	for (uint32_t i = hslot(v, fp);; i = (i + 1) & (v->hcap - 1)) {
		if (v->h[i].fp == fp)
			return i;
		if (!v->h[i].fp)
			return v->hcap;
	}
}

static void hset(struct an_vantage *v, uint64_t fp, uint64_t seq)
{
	uint32_t i = hslot(v, fp);
	while (v->h[i].fp && v->h[i].fp != fp)
		i = (i + 1) & (v->hcap - 1);
	v->h[i].fp = fp;
	v->h[i].seq = seq;
}

/* Remove slot i, moving later members of its run back (linear probing). */
static void hdel(struct an_vantage *v, uint32_t i)
{
	uint32_t mask = v->hcap - 1, j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!v->h[j].fp)
			break;
		uint32_t home = hslot(v, v->h[j].fp);
		/* j's entry may fill the hole at i when its home is not in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			v->h[i] = v->h[j];
			i = j;
		}
	}
	v->h[i].fp = 0;
}

static struct an_vp_entry *entry(const struct an_vantage *v, uint64_t seq)
{
	return &v->e[seq & (v->cap - 1)];
}

/* ---- classes: one direction between two hosts ---- */

static uint64_t cls_hash(uint8_t ipver, const uint8_t *src, const uint8_t *dst)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ ipver;
	unsigned n = ipver == 4 ? 4 : 16;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ src[i]) * 0x100000001b3ull;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ dst[i]) * 0x100000001b3ull;
	return h ^ (h >> 32);
}

static int cls_grow(struct an_vantage *v)
{
	uint32_t ncap = v->ccap ? v->ccap * 2 : 64;
	uint32_t *idx = calloc(ncap, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (uint32_t c = 0; c < v->ncls; c++) {
		const struct an_vp_class *k = &v->cls[c];
		uint32_t i = (uint32_t)cls_hash(k->ipver, k->src, k->dst) & (ncap - 1);
		while (idx[i])
			i = (i + 1) & (ncap - 1);
		idx[i] = c + 1;
	}
	free(v->cidx);
	v->cidx = idx;
	v->ccap = ncap;
	return 0;
}

/* The slot of class (ipver, src, dst) in the index: it, or the empty slot it would take. */
static uint32_t class_slot(const struct an_vantage *v, uint8_t ipver, const uint8_t *src,
                           const uint8_t *dst)
{
	unsigned n = ipver == 4 ? 4 : 16;
	uint32_t i = (uint32_t)cls_hash(ipver, src, dst) & (v->ccap - 1);
	for (; v->cidx[i]; i = (i + 1) & (v->ccap - 1)) {
		const struct an_vp_class *k = &v->cls[v->cidx[i] - 1];
		if (k->ipver == ipver && !memcmp(k->src, src, n) && !memcmp(k->dst, dst, n))
			break;
	}
	return i;
}

/* The class of packets from src to dst, or AN_VP_CLS_NONE. */
uint32_t an_vp_find_class(const struct an_vantage *v, uint8_t ipver, const uint8_t *src,
                          const uint8_t *dst)
{
	if (!v->ccap)
		return AN_VP_CLS_NONE;
	uint32_t i = class_slot(v, ipver, src, dst);
	return v->cidx[i] ? v->cidx[i] - 1 : AN_VP_CLS_NONE;
}

/* The class of packets from src to dst, made at its first packet; AN_VP_CLS_NONE when out of memory. */
static uint32_t class_of(struct an_vantage *v, uint8_t ipver, const uint8_t *src,
                         const uint8_t *dst)
{
	unsigned n = ipver == 4 ? 4 : 16;
	if ((v->ncls + 1) * 2 > v->ccap && cls_grow(v) < 0)
		return AN_VP_CLS_NONE;
	uint32_t i = class_slot(v, ipver, src, dst);
	if (v->cidx[i])
		return v->cidx[i] - 1;
	if (v->ncls == v->capcls) {
		uint32_t nc = v->capcls ? v->capcls * 2 : 16;
		struct an_vp_class *cl = realloc(v->cls, (size_t)nc * sizeof(*cl));
		if (!cl)
			return AN_VP_CLS_NONE;
		v->cls = cl;
		v->capcls = nc;
	}
	struct an_vp_class *k = &v->cls[v->ncls];
	memset(k, 0, sizeof(*k));
	k->ipver = ipver;
	memcpy(k->src, src, n);
	memcpy(k->dst, dst, n);
	v->cidx[i] = ++v->ncls;
	return v->ncls - 1;
}

static struct an_vp_link *link_of(struct an_vantage *v, uint32_t c, unsigned pair)
{
	struct an_vp_link **l = &v->cls[c].link[pair];
	if (!*l && !(*l = calloc(1, sizeof(**l))))
		v->nomem = true;
	return *l;
}

/* ---- settling a packet whose window closed ---- */

/* A packet the other point did not see, by the time `t` the point that saw it saw it. */
static void add_miss(struct an_vantage *v, struct an_vp_misses *m, uint64_t t)
{
	if (m->n == m->cap && m->cap < AN_VP_MISS_LOG) {
		uint32_t nc = m->cap ? m->cap * 2 : 64;
		uint64_t *nt = realloc(m->t, (size_t)nc * sizeof(*nt));
		if (!nt) {
			v->nomem = true;
			return;
		}
		m->t = nt;
		m->cap = nc;
	}
	if (m->n < m->cap) {
		m->t[m->n++] = t;
		return;
	}
	if (!m->over || t < m->over_min)
		m->over_min = t;
	if (t > m->over_max)
		m->over_max = t;
	m->over++;
}

static bool ect(uint8_t ecn)
{
	return ecn == 1 || ecn == 2;
}

static void matched(struct an_vp_link *l, const struct an_vp_entry *x, unsigned i, unsigned j)
{
	int64_t d = (int64_t)(x->t[j] - x->t[i]);
	if (!l->matched++)
		l->dmin = l->dmax = l->ref = d;
	else if (d < l->dmin)
		l->dmin = d;
	else if (d > l->dmax)
		l->dmax = d;
	int64_t r = d - l->ref;
	if (r >= 0)
		an_hist_addp(&l->pos, (uint64_t)r);
	else
		an_hist_addp(&l->neg, (uint64_t)-r);
	l->ce[0] += ect(x->ecn[i]) && x->ecn[j] == 3;
	l->ce[1] += ect(x->ecn[j]) && x->ecn[i] == 3;
	l->ttl_lower[0] += x->ttl[j] < x->ttl[i];
	l->ttl_lower[1] += x->ttl[i] < x->ttl[j];
}

/* Entry x's window closed (judge: a point that missed it may be judged to have lost it). */
static void settle(struct an_vantage *v, const struct an_vp_entry *x, bool judge)
{
	for (unsigned i = 0; i < AN_VP_POINTS; i++) {
		if (!v->pt[i].seen)
			continue;
		for (unsigned j = i + 1; j < AN_VP_POINTS; j++) {
			bool si = x->seen & (1u << i), sj = x->seen & (1u << j);
			if (!v->pt[j].seen || (!si && !sj) || (!(si && sj) && !judge))
				continue;
			unsigned pair = an_vp_pair_of(i, j);
			struct an_vp_link *l = link_of(v, x->cls, pair);
			if (!l)
				continue;
			if (si && sj) {
				matched(l, x, i, j);
				continue;
			}
			/* judged at the end, when the delays show whether the other point was capturing */
			add_miss(v, &l->miss[si ? 0 : 1], x->t[si ? i : j]);
		}
	}
}

/* The oldest entry leaves the window. */
static void pop(struct an_vantage *v, bool judge)
{
	const struct an_vp_entry *x = entry(v, v->head);
	settle(v, x, judge);
	uint32_t s = hfind(v, x->fp);
	if (s < v->hcap && v->h[s].seq == v->head) /* the newest of its fingerprint: none is left */
		hdel(v, s);
	v->head++;
}

static int grow(struct an_vantage *v)
{
	uint32_t ncap = v->cap ? v->cap * 2 : 1024;
	struct an_vp_entry *e = malloc((size_t)ncap * sizeof(*e));
	void *h = calloc((size_t)ncap * 2, sizeof(*v->h));
	if (!e || !h) {
		free(e);
		free(h);
		return -ENOMEM;
	}
	for (uint64_t s = v->head; s < v->tail; s++)
		e[s & (ncap - 1)] = *entry(v, s);
	free(v->e);
	free(v->h);
	v->e = e;
	v->h = h;
	v->cap = ncap;
	v->hcap = ncap * 2;
	for (uint64_t s = v->head; s < v->tail; s++)
		hset(v, entry(v, s)->fp, s);
	return 0;
}

/*
 * A new entry for a packet of fingerprint fp whose first frame came at ts
 * (the oldest one is settled early when the window holds too many), or
 * NULL when out of memory.
 */
static struct an_vp_entry *add_entry(struct an_vantage *v, uint64_t fp, uint64_t ts, uint8_t ipver,
                                     const uint8_t *src, const uint8_t *dst)
{
	if (v->tail - v->head == v->cap && (v->cap >= AN_VP_MAX_ENTRIES || grow(v) < 0)) {
		v->forgotten_early++;
		pop(v, false);
	}
	uint32_t c = class_of(v, ipver, src, dst);
	if (c == AN_VP_CLS_NONE) {
		v->nomem = true;
		return NULL;
	}
	uint32_t s = hfind(v, fp);
	uint64_t newest = s < v->hcap ? v->h[s].seq : AN_VP_NONE;
	struct an_vp_entry *x = entry(v, v->tail);
	memset(x, 0, sizeof(*x));
	x->fp = fp;
	x->t0 = ts;
	x->older = newest != AN_VP_NONE && newest >= v->head ? newest : AN_VP_NONE;
	x->cls = c;
	hset(v, fp, v->tail++);
	return x;
}

/* ---- one point so far: the window's packets wait in a ring, unmatched ---- */

static int pre_grow(struct an_vantage *v)
{
	uint32_t ncap = v->pcap ? v->pcap * 2 : 1024;
	struct an_vp_pre *pre = malloc((size_t)ncap * sizeof(*pre));
	uint8_t(*pre6)[32] = v->pre6 ? malloc((size_t)ncap * sizeof(*pre6)) : NULL;
	if (!pre || (v->pre6 && !pre6)) {
		free(pre);
		free(pre6);
		return -ENOMEM;
	}
	for (uint64_t s = v->phead; s < v->ptail; s++) {
		pre[s & (ncap - 1)] = v->pre[s & (v->pcap - 1)];
		if (pre6)
			memcpy(pre6[s & (ncap - 1)], v->pre6[s & (v->pcap - 1)], sizeof(*pre6));
	}
	free(v->pre);
	free(v->pre6);
	v->pre = pre;
	v->pre6 = pre6;
	v->pcap = ncap;
	return 0;
}

/*
 * Whether a packet of fingerprint fp waits in the ring (a frame of it
 * came in the window). Asked only for the copies duplicate detection
 * finds, which mostly follow their packet closely: the walk from the
 * newest is short.
 */
static bool pre_holds(const struct an_vantage *v, uint64_t fp)
{
	for (uint64_t s = v->ptail; s > v->phead; s--)
		if (v->pre[(s - 1) & (v->pcap - 1)].fp == fp)
			return true;
	return false;
}

/*
 * A frame at the only point seen so far: what the entries would do (the
 * window closes on the oldest packets; a copy of a packet in the window
 * is left out; a packet starts an entry), kept in the ring instead.
 */
static void pre_frame(struct an_vantage *v, const struct rt_record *rec, uint64_t fp, bool copy,
                      uint64_t now)
{
	while (v->phead < v->ptail && v->pre[v->phead & (v->pcap - 1)].ts + v->window_ns < now)
		v->phead++;
	if (!fp || (copy && pre_holds(v, fp)))
		return;
	if (v->ptail - v->phead == v->pcap && (v->pcap >= AN_VP_MAX_ENTRIES || pre_grow(v) < 0)) {
		if (!v->pcap) {
			v->nomem = true;
			return;
		}
		v->forgotten_early++;
		v->phead++;
	}
	if (rec->ip_version != 4 && !v->pre6 &&
	    !(v->pre6 = malloc((size_t)v->pcap * sizeof(*v->pre6)))) {
		v->nomem = true;
		return;
	}
	uint32_t i = (uint32_t)(v->ptail++ & (v->pcap - 1));
	struct an_vp_pre *r = &v->pre[i];
	r->fp = fp;
	r->ts = rec->ts_ns;
	r->ipver = rec->ip_version;
	r->ecn = rec->ip_version ? rec->ecn & 3 : 0;
	r->ttl = rec->ttl;
	if (rec->ip_version == 4) {
		memcpy(r->src4, rec->src_ip, 4);
		memcpy(r->dst4, rec->dst_ip, 4);
	} else {
		memcpy(v->pre6[i], rec->src_ip, 16);
		memcpy(v->pre6[i] + 16, rec->dst_ip, 16);
	}
}

/*
 * A second point's first frame: the packets the first one saw in the
 * window become entries, as if they had been matched all along (with one
 * point, settling one does nothing), and matching begins.
 */
static void start_matching(struct an_vantage *v)
{
	v->matching = true;
	while (v->cap < 1024 || v->cap < v->ptail - v->phead)
		if (grow(v) < 0) {
			v->nomem = true;
			break;
		}
	unsigned p = (unsigned)v->only;
	for (uint64_t s = v->phead; v->cap && s < v->ptail; s++) {
		uint32_t i = (uint32_t)(s & (v->pcap - 1));
		const struct an_vp_pre *r = &v->pre[i];
		const uint8_t *src = r->src4, *dst = r->dst4;
		if (r->ipver != 4) {
			src = v->pre6[i];
			dst = v->pre6[i] + 16;
		}
		struct an_vp_entry *x = add_entry(v, r->fp, r->ts, r->ipver, src, dst);
		if (!x)
			continue;
		x->seen = (uint8_t)(1u << p);
		x->t[p] = r->ts;
		x->ecn[p] = r->ecn;
		x->ttl[p] = r->ttl;
	}
	free(v->pre);
	free(v->pre6);
	v->pre = NULL;
	v->pre6 = NULL;
	v->pcap = 0;
	v->phead = v->ptail = 0;
}

/* A frame at point p. */
static void point_frame(struct an_vantage *v, int p, const struct rt_record *rec, uint64_t fp,
                        bool copy, uint64_t now)
{
	struct an_vp_point *pt = &v->pt[p];
	uint64_t ts = rec->ts_ns;
	if (!pt->seen) {
		pt->seen = true;
		pt->first = ts;
	}
	if (ts > pt->last)
		pt->last = ts;
	pt->frames++;
	if (!v->matching) {
		if (v->only < 0)
			v->only = p;
		if (v->only == p) {
			if (!v->alone)
				pre_frame(v, rec, fp, copy, now);
			return;
		}
		start_matching(v);
	}
	if (!v->cap) { /* memory ran out when matching began */
		v->nomem = true;
		return;
	}
	while (v->head < v->tail && entry(v, v->head)->t0 + v->window_ns < now)
		pop(v, true);
	if (!fp)
		return;
	/*
	 * The oldest live instance this point has not seen; whether it saw one.
	 * The instances a point saw are the oldest ones (it fills the oldest it
	 * lacks, or starts a new one when it lacks none): from the newest back,
	 * the walk ends at the first one it saw.
	 */
	uint32_t s = hfind(v, fp);
	uint64_t newest = s < v->hcap ? v->h[s].seq : AN_VP_NONE, cand = AN_VP_NONE;
	bool here = false;
	for (uint64_t q = newest; q != AN_VP_NONE && q >= v->head; q = entry(v, q)->older) {
		if (entry(v, q)->seen & (1u << p)) {
			here = true;
			break;
		}
		cand = q;
	}
	struct an_vp_entry *x;
	if (cand != AN_VP_NONE) {
		x = entry(v, cand);
	} else if (copy && here) {
		return; /* the same packet again at the same point: a copy duplicate detection counted once */
	} else if (!(x = add_entry(v, fp, ts, rec->ip_version, rec->src_ip, rec->dst_ip))) {
		return;
	}
	x->seen |= (uint8_t)(1u << p);
	x->t[p] = ts;
	x->ecn[p] = rec->ip_version ? rec->ecn & 3 : 0;
	x->ttl[p] = rec->ttl;
}

void an_vp_frame(struct an_vantage *v, const struct rt_record *rec, uint64_t fp, bool copy,
                 uint64_t now)
{
	if (rec->point >= AN_VP_POINTS)
		v->frames_unknown++;
	else
		point_frame(v, rec->point, rec, fp && sampled(v, fp) ? fp : 0, copy, now);
}

void an_vp_finish(struct an_vantage *v)
{
	if (!v->on)
		return;
	while (v->head < v->tail)
		pop(v, true);
}

const char *an_vp_merge_refused(const struct an_vantage *dst, const struct an_vantage *src)
{
	if (dst->head != dst->tail || src->head != src->tail)
		return "an analyzer with packets still in their vantage window is not finished: it "
		       "does not merge";
	if (dst->sample_k != src->sample_k || dst->sample_m != src->sample_m)
		return "analyzers that sampled other packets across vantage points do not merge";
	for (uint32_t c = 0; c < src->ncls; c++) {
		const struct an_vp_class *k = &src->cls[c];
		if (an_vp_find_class(dst, k->ipver, k->src, k->dst) != AN_VP_CLS_NONE)
			return "analyzers that both matched packets of one host pair across "
			       "vantage "
			       "points do not merge (split by host pair)";
	}
	return NULL;
}

int an_vp_merge(struct an_vantage *dst, struct an_vantage *src)
{
	for (uint32_t c = 0; c < src->ncls; c++) {
		struct an_vp_class *k = &src->cls[c];
		uint32_t d = class_of(dst, k->ipver, k->src, k->dst);
		if (d == AN_VP_CLS_NONE)
			return -ENOMEM;
		memcpy(dst->cls[d].link, k->link, sizeof(k->link));
		memset(k->link, 0, sizeof(k->link));
	}
	for (unsigned i = 0; i < AN_VP_POINTS; i++) {
		const struct an_vp_point *sp = &src->pt[i];
		struct an_vp_point *dp = &dst->pt[i];
		if (!sp->seen)
			continue;
		if (!dp->seen || sp->first < dp->first)
			dp->first = sp->first;
		if (!dp->seen || sp->last > dp->last)
			dp->last = sp->last;
		dp->seen = true;
		dp->frames += sp->frames;
	}
	dst->matching |= src->matching;
	dst->frames_unknown += src->frames_unknown;
	dst->forgotten_early += src->forgotten_early;
	dst->nomem |= src->nomem;
	return 0;
}

static char *dup_str(const char *s)
{
	return s ? strdup(s) : strdup("");
}

int an_vp_describe(struct an_vantage *v, const struct rt_an_vantage *vp, unsigned n)
{
	if (n > AN_VP_POINTS)
		n = AN_VP_POINTS;
	struct rt_an_vantage *d = calloc(n ? n : 1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (unsigned i = 0; i < v->nvp; i++) { /* described again: the new description counts */
		free((char *)v->vp[i].name);
		for (unsigned k = 0; k < v->vp[i].nfiles; k++)
			free((char *)v->vp[i].files[k]);
		free((void *)v->vp[i].files);
	}
	free(v->vp);
	v->vp = d;
	v->nvp = n;
	for (unsigned i = 0; i < n; i++) {
		const char **files = calloc(vp[i].nfiles ? vp[i].nfiles : 1, sizeof(*files));
		d[i].name = dup_str(vp[i].name);
		d[i].frames = vp[i].frames;
		d[i].files = files;
		if (!files || !d[i].name)
			return -ENOMEM;
		for (unsigned k = 0; k < vp[i].nfiles; k++) {
			if (!(files[k] = dup_str(vp[i].files[k])))
				return -ENOMEM;
			d[i].nfiles = k + 1;
		}
	}
	return 0;
}
