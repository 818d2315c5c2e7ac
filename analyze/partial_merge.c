/* Merging partials across vantage points: the merge begun and checked, its flows (home point, CE marks seen elsewhere, the NP side) and its totals. */
#include "analyze/partial_merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/flows.h"
#include "analyze/internal.h"
#include "analyze/types.h"

/* ---- the merge begun ---- */

/* The setting both partials must share, or NULL: its name when they differ. */
static const char *setting_differs(const struct rt_partial *a, const struct rt_partial *b)
{
	const struct rt_results *x = a->r, *y = b->r;
	if (x->link_speed_bps != y->link_speed_bps)
		return "the link speed (--link-speed)";
	if (x->episode_gap_ns != y->episode_gap_ns)
		return "the episode gap (--episode-gap)";
	if (x->rate_window_ns != y->rate_window_ns)
		return "the rate window (--rate-window)";
	if (x->storm_ns != y->storm_ns)
		return "the storm threshold (--storm-threshold)";
	if (x->dup_window_ns != y->dup_window_ns)
		return "the duplicates' window (--dup-window)";
	if (a->sample_k != b->sample_k || a->sample_m != b->sample_m)
		return "the trajectory sample (--vantage-sample)";
	if (x->max_flows != y->max_flows)
		return "the flows kept (--max-flows)";
	if (strcmp(x->flow_selector ? x->flow_selector : "",
	           y->flow_selector ? y->flow_selector : ""))
		return "the flows selected (--flow, --conversation, --kind)";
	return NULL;
}

/* Why p[0..n-1] cannot be merged (errbuf filled, -EINVAL), or 0. */
static int refused(struct rt_partial *const *p, unsigned n, char *errbuf)
{
	if (n < 2)
		return rt_errmsg(errbuf, EINVAL,
		                 "merging partial results needs two of them at least");
	if (n > RT_PARTIAL_MERGE_MAX)
		return rt_errmsg(errbuf, EINVAL,
		                 "%u partial results: at most %u vantage points are merged", n,
		                 RT_PARTIAL_MERGE_MAX);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(p[i]->point, p[j]->point))
				return rt_errmsg(
				    errbuf, EINVAL,
				    "two partial results of one vantage point, %s: give "
				    "each host's once (or name the points apart: "
				    "--point)",
				    p[i]->point);
			const char *what = setting_differs(p[j], p[i]);
			if (what)
				return rt_errmsg(errbuf, EINVAL,
				                 "the partial results of %s and %s were made with "
				                 "other settings: %s differs; make them alike",
				                 p[j]->point, p[i]->point, what);
		}
	return 0;
}

int an_pm_start(struct an_pm *m, struct rt_partial *const *p, unsigned n, char *errbuf)
{
	memset(m, 0, sizeof(*m));
	int rc = refused(p, n, errbuf);
	if (rc < 0)
		return rc;
	m->p = p;
	m->n = n;
	m->out = calloc(1, sizeof(*m->out));
	m->flow_id = calloc(n, sizeof(*m->flow_id));
	bool ok = m->out && m->flow_id;
	for (unsigned i = 0; ok && i < n; i++) {
		uint32_t nf = p[i]->r->nflows;
		ok = (m->flow_id[i] = malloc((nf ? nf : 1) * sizeof(uint32_t))) != NULL;
	}
	if (!ok) {
		an_pm_end(m);
		an_results_free(m->out);
		m->out = NULL;
		return rt_errorf(errbuf, ENOMEM, "merging partial results");
	}
	return 0;
}

void an_pm_end(struct an_pm *m)
{
	for (unsigned i = 0; m->flow_id && i < m->n; i++)
		free(m->flow_id[i]);
	free(m->flow_id);
	free(m->home);
	m->flow_id = NULL;
	m->home = NULL;
}

const char *an_pm_str(struct an_pm *m, const char *s)
{
	if (!s)
		return NULL;
	unsigned kept = m->nstr < 32 ? m->nstr : 32;
	for (unsigned i = 0; i < kept; i++)
		if (!strcmp(m->str[i], s))
			return m->str[i];
	size_t len = strlen(s) + 1;
	char *c = an_res_alloc(m->out, len);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	m->str[m->nstr++ % 32] = c;
	return c;
}

/* ---- the flows ---- */

uint32_t *an_pm_key_index(const struct rt_results *r, uint64_t *size)
{
	*size = 16;
	while (*size < 2 * (uint64_t)r->nflows)
		*size *= 2;
	uint32_t *slot = malloc(*size * sizeof(*slot));
	if (!slot)
		return NULL;
	memset(slot, 0xff, *size * sizeof(*slot));
	for (uint32_t id = 0; id < r->nflows; id++) {
		uint64_t s = an_flow_hash(&r->flows[id].key) & (*size - 1);
		while (slot[s] != RT_AN_NONE)
			s = (s + 1) & (*size - 1);
		slot[s] = id;
	}
	return slot;
}

uint32_t an_pm_key_find(const struct rt_results *r, const uint32_t *slot, uint64_t size,
                        const struct rt_an_flow_key *k)
{
	uint64_t s = an_flow_hash(k) & (size - 1);
	while (slot[s] != RT_AN_NONE && memcmp(&r->flows[slot[s]].key, k, sizeof(*k)))
		s = (s + 1) & (size - 1);
	return slot[s];
}

/* A merged flow while the ids are given: its home point and the home's id of it. */
struct group {
	unsigned home;
	uint32_t id;
	uint64_t first;
};

/*
 * The flows of every point grouped by key: group[g] for each, and
 * m->flow_id[i][id] = g. Returns the number of groups, or -ENOMEM.
 */
static int64_t group_flows(struct an_pm *m, struct group *group)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < m->n; i++)
		total += m->p[i]->r->nflows;
	uint64_t size = 16;
	while (size < 2 * total)
		size *= 2;
	uint32_t *slot = malloc(size * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	memset(slot, 0xff, size * sizeof(*slot));
	int64_t ng = 0;
	for (unsigned i = 0; i < m->n; i++) {
		const struct rt_results *r = m->p[i]->r;
		for (uint32_t id = 0; id < r->nflows; id++) {
			const struct rt_res_flow *f = &r->flows[id];
			uint64_t s = an_flow_hash(&f->key) & (size - 1);
			while (slot[s] != UINT32_MAX) {
				const struct group *g = &group[slot[s]];
				if (!memcmp(&m->p[g->home]->r->flows[g->id].key, &f->key,
				            sizeof(f->key)))
					break;
				s = (s + 1) & (size - 1);
			}
			if (slot[s] == UINT32_MAX) {
				slot[s] = (uint32_t)ng;
				group[ng++] =
				    (struct group){.home = i, .id = id, .first = f->first_ns};
			} else if (f->first_ns < group[slot[s]].first) { /* ties: the lower point */
				group[slot[s]] =
				    (struct group){.home = i, .id = id, .first = f->first_ns};
			}
			m->flow_id[i][id] = slot[s];
		}
	}
	free(slot);
	return ng;
}

static int by_first(const void *a, const void *b, void *ctx)
{
	const struct group *g = ctx, *x = &g[*(const uint32_t *)a], *y = &g[*(const uint32_t *)b];
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->home != y->home)
		return x->home < y->home ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* `size` bytes of `from` in the merged view's memory (NULL stays NULL); *ok false when out of memory. */
static void *copy_in(struct an_pm *m, const void *from, size_t size, bool *ok)
{
	if (!from)
		return NULL;
	void *to = an_res_alloc(m->out, size);
	if (!to) {
		*ok = false;
		return NULL;
	}
	return memcpy(to, from, size);
}

/* A string of a point's view into the merged view. */
static const char *str_in(struct an_pm *m, const char *s, bool *ok)
{
	const char *c = an_pm_str(m, s);
	*ok &= !s || c;
	return c;
}

/* The home's figures of a flow, with what hangs off it, in the merged view's memory. False: out of memory. */
static bool home_flow(struct an_pm *m, struct rt_res_flow *o, const struct rt_res_flow *f,
                      uint32_t id, unsigned home)
{
	bool ok = true;
	*o = *f;
	o->id = id;
	o->pairing = str_in(m, f->pairing, &ok);
	o->transport = str_in(m, f->transport, &ok);
	o->followed_at = str_in(m, m->p[home]->point, &ok);
	o->npaths = 0; /* the paths' part gives them */
	o->paths = NULL;
	o->path_lost = NULL;
	struct rt_res_transport *x = copy_in(m, f->xport, sizeof(*x), &ok);
	for (unsigned k = 0; x && k < x->nnak_codes; k++)
		x->nak_codes[k].name = str_in(m, x->nak_codes[k].name, &ok);
	struct rt_res_rp *rp = copy_in(m, f->rp, sizeof(*rp), &ok);
	if (rp) {
		rp->drop_null_reason = str_in(m, rp->drop_null_reason, &ok);
		rp->capture_side = str_in(m, rp->capture_side, &ok);
		rp->capture_side_how = str_in(m, rp->capture_side_how, &ok);
	}
	o->xport = x;
	o->rp = rp;
	o->source = copy_in(m, f->source, sizeof(*f->source), &ok);
	return ok;
}

/* A CE-marked packet of some point: its merged flow, fingerprint, point. */
struct ce_mark {
	uint32_t flow;
	unsigned point;
	uint64_t fp;
};

static int by_flow_fp(const void *a, const void *b)
{
	const struct ce_mark *x = a, *y = b;
	if (x->flow != y->flow)
		return x->flow < y->flow ? -1 : 1;
	if (x->fp != y->fp)
		return x->fp < y->fp ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

/*
 * Per merged flow, the CE-marked packets other points saw that its home
 * did not see CE (each packet once, by fingerprint) into added[id]. 0 or
 * -ENOMEM.
 */
static int ce_elsewhere(const struct an_pm *m, uint64_t *added)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < m->n; i++)
		for (uint64_t k = 0; k < m->p[i]->npackets; k++)
			n += (m->p[i]->packets[k].flags & RT_PP_CE) &&
			     m->p[i]->packets[k].flow < m->p[i]->r->nflows;
	struct ce_mark *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (unsigned i = 0; i < m->n; i++)
		for (uint64_t k = 0; k < m->p[i]->npackets; k++) {
			const struct rt_partial_packet *pk = &m->p[i]->packets[k];
			if ((pk->flags & RT_PP_CE) && pk->flow < m->p[i]->r->nflows)
				v[n++] = (struct ce_mark){m->flow_id[i][pk->flow], i, pk->fp};
		}
	qsort(v, n, sizeof(*v), by_flow_fp);
	for (uint64_t a = 0; a < n;) {
		uint64_t b = a;
		bool at_home = false;
		for (; b < n && v[b].flow == v[a].flow && v[b].fp == v[a].fp; b++)
			at_home |= v[b].point == m->home[v[a].flow];
		added[v[a].flow] += !at_home;
		a = b;
	}
	free(v);
	return 0;
}

/*
 * What the other points add to merged flow o (home's figures; at[i]: point
 * i's id of each merged flow, RT_AN_NONE: none): the CE marks they saw on
 * packets its home saw not CE (`added`), moved from the ECT codepoint home
 * counted them with (the one it counted most, where the packets the home
 * missed are counted first; none left: the mark added); the NP side from
 * the point that saw the most of its CE marks (ties: the home, then the
 * lower point); the packets they saw beyond the home's. False: out of
 * memory.
 */
static bool other_points(struct an_pm *m, struct rt_res_flow *o, uint32_t id, uint32_t *const *at,
                         uint64_t added)
{
	unsigned home = m->home[id];
	const struct rt_res_np *np = o->np;
	uint64_t most_ce = o->ecn[3], frames = 0;
	for (unsigned i = 0; i < m->n; i++) {
		if (at[i][id] == RT_AN_NONE)
			continue;
		const struct rt_res_flow *f = &m->p[i]->r->flows[at[i][id]];
		frames += f->packets + (f->xport ? f->xport->duplicates : 0);
		if (i == home)
			continue;
		if (f->packets > o->packets && f->packets - o->packets > o->packets_home_missed)
			o->packets_home_missed = f->packets - o->packets;
		if (f->ecn[3] > most_ce) {
			most_ce = f->ecn[3];
			np = f->np;
		}
	}
	/* the packets the home missed, at the codepoint it counted most (CE aside: marked below) */
	if (o->packets_home_missed && o->ecn[0] + o->ecn[1] + o->ecn[2] + o->ecn[3]) {
		unsigned most = o->ecn[2] >= o->ecn[1] ? 2 : 1;
		o->ecn[o->ecn[0] > o->ecn[most] ? 0 : most] += o->packets_home_missed;
	}
	for (unsigned pass = 0; pass < 2 && added; pass++) {
		unsigned ect = (o->ecn[2] >= o->ecn[1]) == (pass == 0) ? 2 : 1;
		uint64_t moved = added < o->ecn[ect] ? added : o->ecn[ect];
		o->ecn[ect] -= moved;
		o->ecn[3] += moved;
		added -= moved;
	}
	o->ecn[3] += added; /* marks no ECT count is left for: counted, as one pass counts them */
	o->ce_fraction = an_ce_share(o->ecn);
	o->ect_fraction = an_ect_share(o->ecn);
	bool ok = true;
	o->np = copy_in(m, np, sizeof(*np), &ok);
	/* the frames of its packets beyond the first of each: copies, as one pass counts them */
	uint64_t copies = frames - o->packets - o->packets_home_missed;
	struct rt_res_transport *x = (struct rt_res_transport *)o->xport;
	if (copies && !x && (x = an_res_alloc(m->out, sizeof(*x))))
		o->xport = x;
	if (x)
		x->duplicates = copies;
	return ok && (x || !copies);
}

/* Each merged flow's id at each point (at[i][id], RT_AN_NONE: none), from m->flow_id. NULL: out of memory. */
static uint32_t **ids_at(const struct an_pm *m)
{
	uint32_t **at = calloc(m->n, sizeof(*at));
	for (unsigned i = 0; at && i < m->n; i++) {
		if (!(at[i] = malloc((m->nflows ? m->nflows : 1) * sizeof(uint32_t)))) {
			for (unsigned j = 0; j < i; j++)
				free(at[j]);
			free(at);
			return NULL;
		}
		memset(at[i], 0xff, (m->nflows ? m->nflows : 1) * sizeof(uint32_t));
		for (uint32_t k = 0; k < m->p[i]->r->nflows; k++)
			at[i][m->flow_id[i][k]] = k;
	}
	return at;
}

/*
 * The CNPs other points saw beyond the flows' homes (an_pm_cnps): on the
 * carrier's cnp_sent and the throttled flow's cnp_received, whose rate then
 * comes from the point that saw the most of them. 0 or -ENOMEM.
 */
static int cnps_elsewhere(struct an_pm *m, uint32_t *const *at)
{
	struct an_pm_cnp *v;
	uint64_t n;
	int rc = an_pm_cnps(m->p, m->n, &m->out->r, m->flow_id, m->home, &v, &n);
	if (rc < 0)
		return rc;
	for (uint64_t k = 0; k < n; k++) {
		m->flows[v[k].carrier].cnp_sent += (v[k].flags & AN_PM_CNP_CARRIER) != 0;
		if (v[k].flags & AN_PM_CNP_DATA)
			m->flows[v[k].data].cnp_received++;
	}
	free(v);
	for (uint32_t id = 0; id < m->nflows; id++) {
		struct rt_res_flow *o = &m->flows[id];
		uint64_t most = m->p[m->home[id]]->r->flows[at[m->home[id]][id]].cnp_received;
		if (o->cnp_received == most) /* its home saw them all */
			continue;
		for (unsigned i = 0; i < m->n; i++) {
			const struct rt_res_flow *f =
			    at[i][id] == RT_AN_NONE ? NULL : &m->p[i]->r->flows[at[i][id]];
			if (f && f->cnp_received > most) {
				most = f->cnp_received;
				o->cnp_rate_per_s = f->cnp_rate_per_s;
			}
		}
	}
	return 0;
}

/* The merged flows' figures, once their ids and homes are given. 0 or -ENOMEM. */
static int flow_figures(struct an_pm *m)
{
	uint64_t *added = calloc(m->nflows ? m->nflows : 1, sizeof(*added));
	uint32_t **at = added ? ids_at(m) : NULL;
	int rc = at ? ce_elsewhere(m, added) : -ENOMEM;
	struct rt_results *r = &m->out->r;
	for (uint32_t id = 0; rc == 0 && id < m->nflows; id++) {
		struct rt_res_flow *o = &m->flows[id];
		unsigned home = m->home[id];
		if (!home_flow(m, o, &m->p[home]->r->flows[at[home][id]], id, home) ||
		    !other_points(m, o, id, at, added[id]))
			rc = -ENOMEM;
		r->nselected += o->selected;
		r->npaired += o->peer_qp != RT_AN_NONE;
		r->packets_home_missed += o->packets_home_missed;
		r->flows_home_missed += o->packets_home_missed > 0;
	}
	if (rc == 0)
		rc = cnps_elsewhere(m, at);
	for (unsigned i = 0; at && i < m->n; i++)
		free(at[i]);
	free(at);
	free(added);
	return rc;
}

int an_pm_flows(struct an_pm *m, char *errbuf)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < m->n; i++)
		total += m->p[i]->r->nflows;
	struct group *group = malloc((total ? total : 1) * sizeof(*group));
	int64_t ng = group ? group_flows(m, group) : -ENOMEM;
	uint32_t *order = ng >= 0 ? malloc((ng ? (size_t)ng : 1) * sizeof(*order)) : NULL;
	uint32_t *new_id = order ? malloc((ng ? (size_t)ng : 1) * sizeof(*new_id)) : NULL;
	m->home = new_id ? malloc((ng ? (size_t)ng : 1) * sizeof(*m->home)) : NULL;
	m->flows = m->home ? an_res_alloc(m->out, (ng ? (size_t)ng : 1) * sizeof(*m->flows)) : NULL;
	int rc = m->flows ? 0 : -ENOMEM;
	if (rc == 0) {
		/* ids in the order of the flows' first frames at their homes (raw clocks) */
		for (uint32_t g = 0; g < (uint32_t)ng; g++)
			order[g] = g;
		qsort_r(order, (size_t)ng, sizeof(*order), by_first, group);
		for (uint32_t id = 0; id < (uint32_t)ng; id++) {
			new_id[order[id]] = id;
			m->home[id] = group[order[id]].home;
		}
		for (unsigned i = 0; i < m->n; i++)
			for (uint32_t k = 0; k < m->p[i]->r->nflows; k++)
				m->flow_id[i][k] = new_id[m->flow_id[i][k]];
		m->nflows = (uint32_t)ng;
		m->out->r.flows = m->flows;
		m->out->r.nflows = m->nflows;
		rc = flow_figures(m);
	}
	free(group);
	free(order);
	free(new_id);
	return rc < 0 ? rt_errorf(errbuf, -rc, "merging the flows of partial results") : 0;
}

/* ---- the totals ---- */

/* A RoCE count of the totals and its share on a flow. */
enum count { C_PACKETS, C_BYTES, C_CE, C_CNP, C_NAK, C_RNR_NAK, C_RESENT, C_COUNTS };

static uint64_t total_of(const struct rt_an_counts *c, enum count k)
{
	const uint64_t v[C_COUNTS] = {c->roce_packets, c->roce_bytes, c->ce,           c->cnp,
	                              c->nak,          c->rnr_nak,    c->retransmitted};
	return v[k];
}

static uint64_t flow_of(const struct rt_res_flow *f, enum count k)
{
	const struct rt_res_transport *x = f->xport;
	const uint64_t v[C_COUNTS] = {f->packets,
	                              f->bytes,
	                              f->ecn[3],
	                              f->cnp_sent,
	                              x ? x->naks_received : 0,
	                              x ? x->rnr_naks_received : 0,
	                              x ? x->retransmitted : 0};
	return v[k];
}

/*
 * count[k]: the merged flows' counts plus what each point counted outside
 * its flows (packets without a BTH, NAKs and CNPs no flow took); ecn[] the
 * same way.
 */
static void roce_counts(const struct an_pm *m, uint64_t count[C_COUNTS], uint64_t ecn[4])
{
	memset(count, 0, C_COUNTS * sizeof(count[0]));
	memset(ecn, 0, 4 * sizeof(ecn[0]));
	for (unsigned i = 0; i <= m->n; i++) {
		const struct rt_results *r = i < m->n ? m->p[i]->r : NULL;
		const struct rt_res_flow *flows = r ? r->flows : m->flows;
		uint32_t nflows = r ? r->nflows : m->nflows;
		uint64_t in[C_COUNTS] = {0}, ecn_in[4] = {0};
		for (uint32_t id = 0; id < nflows; id++) {
			for (unsigned k = 0; k < C_COUNTS; k++)
				in[k] += flow_of(&flows[id], (enum count)k);
			for (unsigned c = 0; c < 4; c++)
				ecn_in[c] += flows[id].ecn[c];
		}
		for (unsigned k = 0; k < C_COUNTS; k++) {
			uint64_t all = r ? total_of(&r->c, (enum count)k) : 0;
			count[k] += r ? (all > in[k] ? all - in[k] : 0) : in[k];
		}
		for (unsigned c = 0; c < 4; c++)
			ecn[c] +=
			    r ? (r->ecn[c] > ecn_in[c] ? r->ecn[c] - ecn_in[c] : 0) : ecn_in[c];
	}
}

#define MAX_OF(a, b) ((a) > (b) ? (a) : (b))

int an_pm_totals(struct an_pm *m, char *errbuf)
{
	struct rt_results *o = &m->out->r;
	const struct rt_results *r0 = m->p[0]->r;
	o->link_speed_bps = r0->link_speed_bps;
	o->episode_gap_ns = r0->episode_gap_ns;
	o->rate_window_ns = r0->rate_window_ns;
	o->storm_ns = r0->storm_ns;
	o->rate_window_gaps = r0->rate_window_gaps;
	o->flow_selector = an_pm_str(m, r0->flow_selector);
	for (unsigned i = 0; i < m->n; i++) {
		const struct rt_results *r = m->p[i]->r;
		/* every frame is its point's own */
		o->c.packets += r->c.packets;
		o->c.bytes += r->c.bytes;
		o->c.icrc_bad += r->c.icrc_bad;
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			o->c.pfc_xoff[c] += r->c.pfc_xoff[c];
			o->c.pfc_xon[c] += r->c.pfc_xon[c];
			o->c.pfc_paused_ns[c] += r->c.pfc_paused_ns[c];
		}
		o->malformed += r->malformed;
		o->truncated += r->truncated;
		o->other += r->other;
		o->ecn_not_ect += r->ecn_not_ect;
		o->ecn_data_packets += r->ecn_data_packets;
		if (r->any_frame) {
			o->start_ns =
			    !o->any_frame || r->start_ns < o->start_ns ? r->start_ns : o->start_ns;
			o->end_ns = MAX_OF(o->end_ns, r->end_ns);
			o->any_frame = true;
		}
		/* what names no flow, seen at several points: the most any saw */
		o->cnp_unattributed = MAX_OF(o->cnp_unattributed, r->cnp_unattributed);
		o->nak_unattributed = MAX_OF(o->nak_unattributed, r->nak_unattributed);
		o->cm_pairs = MAX_OF(o->cm_pairs, r->cm_pairs);
		if (!o->input_error && r->input_error) { /* the first point's, named */
			char said[RT_ERRBUF_SIZE + 128];
			snprintf(said, sizeof(said), "at %s: %s", m->p[i]->point, r->input_error);
			o->input_error = an_pm_str(m, said);
		}
	}
	o->ecn_off = o->ecn_data_packets && o->ecn_not_ect * 2 > o->ecn_data_packets;
	uint64_t count[C_COUNTS];
	roce_counts(m, count, o->ecn);
	o->c.roce_packets = count[C_PACKETS];
	o->c.roce_bytes = count[C_BYTES];
	o->c.ce = count[C_CE];
	o->c.cnp = count[C_CNP];
	o->c.nak = count[C_NAK];
	o->c.rnr_nak = count[C_RNR_NAK];
	o->c.retransmitted = count[C_RESENT];
	for (uint32_t id = 0; id < m->nflows; id++) {
		const struct rt_res_transport *x = m->flows[id].xport;
		if (!x)
			continue;
		o->go_back_n += x->go_back_n;
		o->timeouts += x->timeouts;
		o->gaps += x->gaps;
		o->gap_psns += x->gap_psns;
		o->psn_jumps += x->psn_jumps;
	}
	bool strings = (!r0->flow_selector || o->flow_selector);
	return strings ? 0 : rt_errorf(errbuf, ENOMEM, "merging the totals of partial results");
}
