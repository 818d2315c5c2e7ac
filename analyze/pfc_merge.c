/* PFC/PAUSE split and merge: a finished part's sending MACs, storms and storm incidents merged into another's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/pfc.h"

/* Class s of one part merged into the same class d of the MAC in the merged table. */
static void class_merge(struct an_pfc_class *d, const struct an_pfc_class *s)
{
	if (s->xoff && (!d->xoff || s->first_xoff < d->first_xoff))
		d->first_xoff = s->first_xoff;
	if (s->longest_ns > d->longest_ns || (s->longest_ns && s->longest_ns == d->longest_ns &&
	                                      s->longest_start < d->longest_start)) {
		d->longest_ns = s->longest_ns;
		d->longest_start = s->longest_start;
	}
	if (s->note_frame > d->note_frame) {
		d->note_frame = s->note_frame;
		d->note_ts = s->note_ts;
		d->note_ns = s->note_ns;
	}
	d->xoff += s->xoff;
	d->xon += s->xon;
	d->storms += s->storms;
	d->paused_ns += s->paused_ns;
}

/* MAC s of one part into the merged table t. 0 or -ENOMEM. */
static int mac_merge(struct an_pfc *t, const struct an_pfc_mac *s)
{
	struct an_pfc_mac *m = an_pfc_mac_get(t, s->mac, s->first_ts);
	if (!m || (memcmp(m->mac, s->mac, 6) && t->nmacs < AN_PFC_MACS))
		return -ENOMEM; /* another MAC's entry short of the cap: out of memory */
	if (s->first_ts < m->first_ts)
		m->first_ts = s->first_ts;
	m->points |= s->points;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++)
		class_merge(&m->cls[c], &s->cls[c]);
	return 0;
}

/*
 * The sending MACs of both into t (empty): each part's in its own order,
 * the two interleaved by the time of their first frames (dst's first on a
 * tie), a MAC of both in one entry. 0 or -ENOMEM.
 */
static int macs_merge(struct an_pfc *t, const struct an_pfc *dst, const struct an_pfc *src)
{
	uint32_t i = 0, j = 0;
	int rc = 0;
	while (rc == 0 && (i < dst->nmacs || j < src->nmacs))
		rc = mac_merge(t, j == src->nmacs || (i < dst->nmacs && dst->macs[i].first_ts <=
		                                                            src->macs[j].first_ts)
		                      ? &dst->macs[i++]
		                      : &src->macs[j++]);
	return rc;
}

/* The storms of both in the order of their ends (dst's first on a tie), into *out (allocated). 0 or -ENOMEM. */
static int storms_merge(const struct an_pfc *dst, const struct an_pfc *src, struct an_storm **out)
{
	uint32_t n = dst->nstorms + src->nstorms, i = 0, j = 0, k = 0;
	struct an_storm *st = malloc((size_t)(n ? n : 1) * sizeof(*st));
	if (!st)
		return -ENOMEM;
	while (i < dst->nstorms || j < src->nstorms)
		st[k++] = j == src->nstorms ||
		                  (i < dst->nstorms && dst->storms[i].end <= src->storms[j].end)
		              ? dst->storms[i++]
		              : src->storms[j++];
	*out = st;
	return 0;
}

/*
 * The incident b, of a's class, joined into a: from the earlier start to
 * the later end, a MAC both name with its first XOFF the earlier, its
 * paused time summed and its longest pause the longer; the MACs named as an
 * incident names them (the first AN_INC_MACS by their first XOFF, the one
 * that paused longest among them, the earlier on a tie), macs_total the
 * MACs of both less those both name.
 */
static void join_incidents(struct an_incident *a, const struct an_incident *b)
{
	struct an_inc_mac e[2 * AN_INC_MACS];
	uint32_t n = a->nmacs, both = 0;
	memcpy(e, a->macs, n * sizeof(*e));
	for (uint32_t k = 0; k < b->nmacs; k++) {
		const struct an_inc_mac *x = &b->macs[k];
		uint32_t i = 0;
		while (i < n && memcmp(e[i].mac, x->mac, 6))
			i++;
		if (i == n) {
			e[n++] = *x;
			continue;
		}
		both++;
		if (x->first < e[i].first)
			e[i].first = x->first;
		e[i].paused += x->paused;
		if (x->longest > e[i].longest)
			e[i].longest = x->longest;
	}
	if (b->start < a->start)
		a->start = b->start;
	if (b->end > a->end)
		a->end = b->end;
	a->macs_total += b->macs_total - both;
	a->nmacs = 0;
	uint32_t longest = 0;
	for (uint32_t i = 0; i < n; i++) {
		an_pfc_inc_name(a, &e[i]);
		if (e[i].longest > e[longest].longest ||
		    (e[i].longest == e[longest].longest && e[i].first < e[longest].first))
			longest = i;
	}
	if (n)
		an_pfc_inc_name_longest(a, &e[longest]);
}

/* An incident's place when they are grouped: by class, then start, then at. */
struct inc_key {
	uint64_t start;
	uint32_t at;
	uint8_t cls;
};

/*
 * The incidents of both parts, dst's then src's (their index: `at`), and
 * for each the group it ends up in: incidents of one class, of the two
 * parts, that overlap in time (one starts before the other ends) are one
 * group, the group's incident them joined; the group is listed where the
 * member that ends last (the earlier on a tie) is.
 */
struct inc_merge {
	const struct an_pfc *dst, *src;
	uint32_t n, ngroups;
	struct inc_key *keys;       /* by class, start, at */
	uint32_t *group;            /* per at */
	struct an_incident *joined; /* per group */
	uint32_t *listed_at;        /* per group: the at it is listed at */
	uint8_t *parts;             /* per group: bit 0 dst's, bit 1 src's */
};

static const struct an_incident *inc_at(const struct inc_merge *m, uint32_t at)
{
	return at < m->dst->ninc ? &m->dst->inc[at] : &m->src->inc[at - m->dst->ninc];
}

static int by_class_start(const void *x, const void *y)
{
	const struct inc_key *a = x, *b = y;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* Each incident into its group: joined to the group before when that holds the other part's and they overlap. */
static void group_incidents(struct inc_merge *m)
{
	for (uint32_t at = 0; at < m->n; at++) {
		const struct an_incident *in = inc_at(m, at);
		m->keys[at] = (struct inc_key){.start = in->start, .at = at, .cls = in->cls};
	}
	qsort(m->keys, m->n, sizeof(*m->keys), by_class_start);
	m->ngroups = 0;
	for (uint32_t k = 0; k < m->n; k++) {
		uint32_t at = m->keys[k].at, g = m->ngroups - 1;
		const struct an_incident *in = inc_at(m, at);
		uint8_t part = at < m->dst->ninc ? 1 : 2;
		if (m->ngroups && m->joined[g].cls == in->cls && in->start < m->joined[g].end &&
		    (m->parts[g] & ~part)) {
			if (in->end > m->joined[g].end ||
			    (in->end == m->joined[g].end && at < m->listed_at[g]))
				m->listed_at[g] = at;
			join_incidents(&m->joined[g], in);
			m->parts[g] |= part;
		} else {
			g = m->ngroups++;
			m->joined[g] = *in;
			m->listed_at[g] = at;
			m->parts[g] = part;
		}
		m->group[at] = g;
	}
}

/*
 * The groups into out (room for AN_INCIDENTS_MAX), each part's in its own
 * order, the two interleaved by the end of each group (dst's first on a
 * tie); returns how many are listed, *beyond those past the cap.
 */
static uint32_t list_incidents(const struct inc_merge *m, struct an_incident *out, uint64_t *beyond)
{
	uint32_t nd = m->dst->ninc, i = 0, j = nd, k = 0;
	*beyond = 0;
	for (;;) {
		while (i < nd && m->listed_at[m->group[i]] != i)
			i++;
		while (j < m->n && m->listed_at[m->group[j]] != j)
			j++;
		if (i == nd && j == m->n)
			return k;
		uint32_t at = j == m->n || (i < nd && m->joined[m->group[i]].end <=
		                                          m->joined[m->group[j]].end)
		                  ? i++
		                  : j++;
		if (k < AN_INCIDENTS_MAX)
			out[k++] = m->joined[m->group[at]];
		else
			++*beyond;
	}
}

/*
 * The storm incidents of both, joined and listed, into *out (allocated,
 * room for *cap) and *nout, *beyond those past the cap. 0 or -ENOMEM.
 */
static int incidents_merge(const struct an_pfc *dst, const struct an_pfc *src,
                           struct an_incident **out, uint32_t *nout, uint32_t *cap,
                           uint64_t *beyond)
{
	struct inc_merge m = {.dst = dst, .src = src, .n = dst->ninc + src->ninc};
	size_t n = m.n ? m.n : 1;
	*cap = n < AN_INCIDENTS_MAX ? (uint32_t)n : AN_INCIDENTS_MAX;
	m.keys = malloc(n * sizeof(*m.keys));
	m.group = malloc(n * sizeof(*m.group));
	m.joined = malloc(n * sizeof(*m.joined));
	m.listed_at = malloc(n * sizeof(*m.listed_at));
	m.parts = malloc(n);
	*out = malloc(*cap * sizeof(**out));
	int rc = m.keys && m.group && m.joined && m.listed_at && m.parts && *out ? 0 : -ENOMEM;
	if (rc == 0) {
		group_incidents(&m);
		*nout = list_incidents(&m, *out, beyond);
		*beyond += dst->inc_beyond + src->inc_beyond;
	} else {
		free(*out);
		*out = NULL;
	}
	free(m.keys);
	free(m.group);
	free(m.joined);
	free(m.listed_at);
	free(m.parts);
	return rc;
}

int an_pfc_merge(struct an_pfc *dst, const struct an_pfc *src)
{
	if (dst->active || src->active)
		return -EINVAL;
	struct an_pfc t;
	an_pfc_init(&t, dst->link_speed_bps, dst->storm_ns, NULL);
	struct an_storm *st = NULL;
	struct an_incident *inc = NULL;
	uint32_t ninc = 0, cap_inc = 0;
	uint64_t beyond = 0;
	int rc = macs_merge(&t, dst, src);
	if (rc == 0)
		rc = storms_merge(dst, src, &st);
	if (rc == 0)
		rc = incidents_merge(dst, src, &inc, &ninc, &cap_inc, &beyond);
	if (rc < 0) {
		an_pfc_free(&t);
		free(st);
		return rc;
	}
	free(dst->macs);
	free(dst->mac_slots);
	free(dst->runs);
	free(dst->ended);
	dst->macs = t.macs;
	dst->nmacs = t.nmacs;
	dst->cap_macs = t.cap_macs;
	dst->mac_slots = t.mac_slots;
	dst->nslots = t.nslots;
	dst->runs = t.runs;
	dst->ended = t.ended;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		dst->xoff[c] += src->xoff[c];
		dst->xon[c] += src->xon[c];
		dst->paused_ns[c] += src->paused_ns[c];
		dst->run[c].nmembers = 0; /* (MAC indexes of an incident under way: none) */
	}
	dst->pfc_frames += src->pfc_frames;
	dst->pause_frames += src->pause_frames;
	if (src->last_run_end > dst->last_run_end)
		dst->last_run_end = src->last_run_end;
	free(dst->storms);
	dst->storms = st;
	dst->nstorms += src->nstorms;
	dst->cap_storms = dst->nstorms ? dst->nstorms : 1;
	free(dst->inc);
	dst->inc = inc;
	dst->ninc = ninc;
	dst->cap_inc = cap_inc;
	dst->inc_beyond = beyond;
	return 0;
}
