/* Timeline and report from partial results: the points' buckets merged by the rules of analyze/README.md ("Merging partials"), handed to an analyzer's sinks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "analyze/partial.h"
#include "analyze/partial_buckets.h"
#include "analyze/partial_merge.h"
#include "common/textfmt.h"

/* A merge of the points' buckets under way. */
struct replay {
	struct rt_partial *const *p;
	unsigned n;
	const struct rt_results *r; /* the merged view */
	uint64_t len;               /* the merged buckets' length */
	const struct rt_flowsel_set *flow;
	uint32_t **map; /* map[i][id]: the merged id of point i's flow id */
	unsigned *home; /* by merged id: the point its rows come from */
	/* by merged bucket number: CE marks other points saw on packets their flow's home saw not CE
	 * (ce[k]: the flow), and CNPs: copies off the all row, those a home missed onto rows (cnp_elsewhere) */
	uint64_t (*ce)[2], nce, ce_at;
	uint64_t (*cnp)[2], ncnp, cnp_at;
	struct an_pbk_iter *it;     /* by point: its buckets ... */
	struct rt_an_bucket *next;  /* ... the next one ... */
	int *state;                 /* ... there (1), none left (0), or a negative errno */
	struct rt_an_flow_row *acc; /* by merged id: its row in the bucket being made */
	uint32_t *touched, ntouched;
	struct rt_an_flow_row *rows; /* the rows handed over, by id */
};

/* map[i][id] from the flows' keys, and each merged flow's home: the point the view says followed it. */
static int flow_maps(struct replay *R)
{
	const struct rt_results *r = R->r;
	uint64_t size;
	uint32_t *slot = an_pm_key_index(r, &size);
	if (!slot || !(R->map = calloc(R->n, sizeof(*R->map))) ||
	    !(R->home = calloc(r->nflows ? r->nflows : 1, sizeof(*R->home)))) {
		free(slot);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < R->n; i++) {
		const struct rt_results *v = R->p[i]->r;
		if (!(R->map[i] = malloc((v->nflows ? v->nflows : 1) * sizeof(uint32_t)))) {
			free(slot);
			return -ENOMEM;
		}
		for (uint32_t id = 0; id < v->nflows; id++)
			R->map[i][id] = an_pm_key_find(r, slot, size, &v->flows[id].key);
	}
	free(slot);
	for (uint32_t id = 0; id < r->nflows; id++) {
		const char *at = r->flows[id].followed_at;
		for (unsigned i = 0; R->n > 1 && at && i < R->n; i++)
			if (!strcmp(R->p[i]->point, at))
				R->home[id] = i;
	}
	return 0;
}

static int by_u64x3(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	for (unsigned i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static int by_u64x2(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * The CE marks of other points (each packet once, by fingerprint, in the
 * bucket of its first CE-marked copy: where one pass counts it) on packets
 * their flow's home saw not CE-marked, as the merged flows add them. 0 or
 * -ENOMEM.
 */
static int ce_elsewhere(struct replay *R)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < R->n; i++)
		for (uint64_t k = 0; k < R->p[i]->npackets; k++)
			n += (R->p[i]->packets[k].flags & RT_PP_CE) &&
			     R->p[i]->packets[k].flow < R->p[i]->r->nflows;
	/* {flow, fp, time}, the home's copy at time 0: first */
	uint64_t(*v)[3] = malloc((n ? n : 1) * sizeof(*v));
	R->ce = malloc((n ? n : 1) * sizeof(*R->ce));
	if (!v || !R->ce) {
		free(v);
		return -ENOMEM;
	}
	n = 0;
	for (unsigned i = 0; i < R->n; i++)
		for (uint64_t k = 0; k < R->p[i]->npackets; k++) {
			const struct rt_partial_packet *pk = &R->p[i]->packets[k];
			if (!(pk->flags & RT_PP_CE) || pk->flow >= R->p[i]->r->nflows)
				continue;
			uint32_t id = R->map[i][pk->flow];
			if (id == RT_AN_NONE)
				continue;
			v[n][0] = id;
			v[n][1] = pk->fp;
			v[n++][2] = R->home[id] == i ? 0 : pk->ts_ns + 1;
		}
	qsort(v, n, sizeof(*v), by_u64x3);
	for (uint64_t a = 0, b; a < n; a = b) {
		for (b = a; b < n && v[b][0] == v[a][0] && v[b][1] == v[a][1]; b++)
			;
		if (v[a][2]) { /* the home saw no copy CE-marked: its earliest copy elsewhere */
			R->ce[R->nce][0] = (v[a][2] - 1) / R->len;
			R->ce[R->nce++][1] = v[a][0];
		}
	}
	free(v);
	qsort(R->ce, R->nce, sizeof(*R->ce), by_u64x2);
	return 0;
}

/*
 * The CNPs as the merged flows count them (an_pm_cnps), by merged bucket
 * number: {bucket, RT_AN_NONE} for a copy a point counted of a CNP its
 * carrier's home saw (off the all row), {bucket, flow} for one the throttled
 * flow's home missed (onto its row). 0 or -ENOMEM.
 */
static int cnp_elsewhere(struct replay *R)
{
	struct an_pm_cnp *v;
	uint64_t n;
	int rc = an_pm_cnps(R->p, R->n, R->r, R->map, R->home, &v, &n);
	if (rc < 0)
		return rc;
	if (!(R->cnp = malloc((n ? 2 * n : 1) * sizeof(*R->cnp)))) {
		free(v);
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < n; k++) {
		uint64_t at = v[k].ts / R->len;
		if (v[k].point != R->home[v[k].carrier] && !(v[k].flags & AN_PM_CNP_CARRIER)) {
			R->cnp[R->ncnp][0] = at;
			R->cnp[R->ncnp++][1] = RT_AN_NONE;
		}
		if (v[k].flags & AN_PM_CNP_DATA) {
			R->cnp[R->ncnp][0] = at;
			R->cnp[R->ncnp++][1] = v[k].data;
		}
	}
	free(v);
	qsort(R->cnp, R->ncnp, sizeof(*R->cnp), by_u64x2);
	return 0;
}

/* Merged flow id's row in the bucket being made. */
static struct rt_an_flow_row *touch(struct replay *R, uint32_t id)
{
	struct rt_an_flow_row *a = &R->acc[id];
	if (a->id !=
	    id) { /* not touched yet: ids are set when touched, cleared (RT_AN_NONE) after */
		memset(a, 0, sizeof(*a));
		a->id = id;
		R->touched[R->ntouched++] = id;
	}
	return a;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Point i's bucket b into the merged bucket o: all it counted, its home flows' rows; outside[]: its CE, NAKs, resends outside its rows. */
static void add_bucket(struct replay *R, unsigned i, const struct rt_an_bucket *b,
                       struct rt_an_bucket *o, uint64_t outside[3])
{
	o->all.packets += b->all.packets; /* every frame is its point's own */
	o->all.bytes += b->all.bytes;
	o->all.cnp += b->all.cnp;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		o->pfc_xoff[c] += b->pfc_xoff[c];
		o->pfc_paused_ns[c] += b->pfc_paused_ns[c];
	}
	o->source_cnp += b->source_cnp;
	o->nic_cnp_sent += b->nic_cnp_sent;
	o->nic_cnp_handled += b->nic_cnp_handled;
	o->nic_pause_frames += b->nic_pause_frames;
	uint64_t in[3] = {0};
	for (uint32_t k = 0; k < b->nrows; k++) {
		const struct rt_an_flow_row *row = &b->rows[k];
		in[0] += row->d.ce;
		in[1] += row->d.nak;
		in[2] += row->d.retransmitted;
		uint32_t id = R->map[i][row->id];
		if (id == RT_AN_NONE || R->home[id] != i)
			continue;
		struct rt_an_flow_row *a = touch(R, id);
		a->d.packets += row->d.packets;
		a->d.bytes += row->d.bytes;
		a->d.ce += row->d.ce;
		a->d.cnp += row->d.cnp;
		a->d.nak += row->d.nak;
		a->d.retransmitted += row->d.retransmitted;
		a->rtt_samples += row->rtt_samples;
		a->rtt_sum_ns += row->rtt_sum_ns;
		a->source_cnp += row->source_cnp;
		if (row->source_rate_known) { /* at the end of the bucket: the latest */
			a->source_rate_known = true;
			a->source_rate_mbps = row->source_rate_mbps;
		}
	}
	outside[0] += less(b->all.ce, in[0]);
	outside[1] += less(b->all.nak, in[1]);
	outside[2] += less(b->all.retransmitted, in[2]);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The rows of the merged bucket o by id, its RoCE counts made of them and of outside[]; the rows' state cleared. */
static void rows_out(struct replay *R, struct rt_an_bucket *o, const uint64_t outside[3])
{
	qsort(R->touched, R->ntouched, sizeof(*R->touched), cmp_u32);
	o->all.ce = outside[0];
	o->all.nak = outside[1];
	o->all.retransmitted = outside[2];
	for (uint32_t k = 0; k < R->ntouched; k++) {
		uint32_t id = R->touched[k];
		struct rt_an_flow_row *row = &R->rows[k];
		*row = R->acc[id];
		R->acc[id].id = RT_AN_NONE;
		const struct rt_res_flow *f = &R->r->flows[id];
		row->selected = R->flow && R->flow->n
		                    ? rt_flowsel_set_match(R->flow, id, f->key.ipver, f->key.src,
		                                           f->key.dst, f->key.dest_qp)
		                    : f->selected;
		o->all.ce += row->d.ce;
		o->all.nak += row->d.nak;
		o->all.retransmitted += row->d.retransmitted;
	}
	o->rows = R->rows;
	o->nrows = R->ntouched;
	R->ntouched = 0;
}

/* Whether anything happened in bucket o (the analyzer hands over no other). */
static bool eventful(const struct rt_an_bucket *o)
{
	bool any = o->all.packets || o->all.ce || o->all.cnp || o->nrows || o->source_cnp ||
	           o->nic_cnp_sent || o->nic_cnp_handled || o->nic_pause_frames;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++)
		any |= o->pfc_xoff[c] || o->pfc_paused_ns[c];
	return any;
}

/* The merged bucket number `idx`, made of what falls in it (a point whose buckets fail to decode: their state says so). */
static void merged_bucket(struct replay *R, uint64_t idx, struct rt_an_bucket *o)
{
	uint64_t outside[3] = {0};
	memset(o, 0, sizeof(*o));
	o->t_ns = idx * R->len;
	o->len_ns = R->len;
	for (unsigned i = 0; i < R->n; i++) {
		o->source_log |= R->p[i]->buckets->source_log;
		o->counters |= R->p[i]->buckets->counters;
		while (R->state[i] == 1 && R->next[i].t_ns / R->len == idx) {
			add_bucket(R, i, &R->next[i], o, outside);
			R->state[i] = an_pbk_next(&R->it[i], &R->next[i]);
		}
	}
	for (; R->ce_at < R->nce && R->ce[R->ce_at][0] == idx; R->ce_at++)
		touch(R, (uint32_t)R->ce[R->ce_at][1])->d.ce++;
	uint64_t copies = 0;
	for (; R->cnp_at < R->ncnp && R->cnp[R->cnp_at][0] == idx; R->cnp_at++) {
		if (R->cnp[R->cnp_at][1] == RT_AN_NONE)
			copies++;
		else
			touch(R, (uint32_t)R->cnp[R->cnp_at][1])->d.cnp++;
	}
	o->all.cnp = less(o->all.cnp, copies);
	rows_out(R, o, outside);
}

/* The merged buckets in time order to deliver(ctx, b). 0, a point's decoding failure, or deliver's. */
static int run(struct replay *R, int (*deliver)(void *ctx, const struct rt_an_bucket *b), void *ctx,
               char *errbuf)
{
	for (unsigned i = 0; i < R->n; i++) {
		an_pbk_iter_init(&R->it[i], R->p[i]->buckets, R->p[i]->r->nflows);
		R->state[i] = an_pbk_next(&R->it[i], &R->next[i]);
	}
	for (;;) {
		uint64_t idx = UINT64_MAX;
		for (unsigned i = 0; i < R->n; i++) {
			if (R->state[i] < 0)
				return rt_errmsg(errbuf, -R->state[i],
				                 "the buckets of point %s: %s", R->p[i]->point,
				                 R->it[i].c.why);
			if (R->state[i] == 1 && R->next[i].t_ns / R->len < idx)
				idx = R->next[i].t_ns / R->len;
		}
		if (R->ce_at < R->nce && R->ce[R->ce_at][0] < idx)
			idx = R->ce[R->ce_at][0];
		if (R->cnp_at < R->ncnp && R->cnp[R->cnp_at][0] < idx)
			idx = R->cnp[R->cnp_at][0];
		if (idx == UINT64_MAX)
			return 0;
		struct rt_an_bucket o;
		merged_bucket(R, idx, &o);
		int rc = eventful(&o) ? deliver(ctx, &o) : 0;
		if (rc < 0)
			return rc;
	}
}

static void replay_free(struct replay *R)
{
	for (unsigned i = 0; R->map && i < R->n; i++)
		free(R->map[i]);
	for (unsigned i = 0; R->it && i < R->n; i++)
		an_pbk_iter_free(&R->it[i]);
	free(R->map);
	free(R->home);
	free(R->ce);
	free(R->cnp);
	free(R->it);
	free(R->next);
	free(R->state);
	free(R->acc);
	free(R->touched);
	free(R->rows);
}

int rt_partials_buckets(struct rt_partial *const *p, unsigned n, const struct rt_results *r,
                        uint64_t len_ns, const struct rt_flowsel_set *flow,
                        int (*deliver)(void *ctx, const struct rt_an_bucket *b), void *ctx,
                        char *errbuf)
{
	for (unsigned i = 0; i < n; i++)
		if (!p[i]->buckets || !len_ns || len_ns % p[i]->buckets->len_ns)
			return rt_errmsg(
			    errbuf, EINVAL,
			    "the partial of point %s holds no buckets that make %llu ns ones",
			    p[i]->point, (unsigned long long)len_ns);
	struct replay R = {.p = p, .n = n, .r = r, .len = len_ns, .flow = flow};
	size_t nf = r->nflows ? r->nflows : 1;
	int rc = flow_maps(&R);
	if (rc == 0 &&
	    (!(R.it = calloc(n, sizeof(*R.it))) || !(R.next = calloc(n, sizeof(*R.next))) ||
	     !(R.state = calloc(n, sizeof(*R.state))) || !(R.acc = malloc(nf * sizeof(*R.acc))) ||
	     !(R.touched = malloc(nf * sizeof(*R.touched))) ||
	     !(R.rows = malloc(nf * sizeof(*R.rows)))))
		rc = -ENOMEM;
	if (rc == 0 && (rc = ce_elsewhere(&R)) == 0)
		rc = cnp_elsewhere(&R);
	if (rc == 0) {
		for (size_t id = 0; id < nf; id++)
			R.acc[id].id = RT_AN_NONE;
		rc = run(&R, deliver, ctx, errbuf);
	} else {
		rt_errorf(errbuf, -rc, "merging the partials' buckets");
	}
	replay_free(&R);
	return rc;
}

/* A merged bucket to the replaying analyzer's sinks; a sink's failure stops the replay. */
static int replay_deliver(void *ctx, const struct rt_an_bucket *b)
{
	struct rt_analyzer *an = ctx;
	an->bk.deliver(an->bk.ctx, b);
	return an->sinks.err;
}

int rt_analyzer_replay(struct rt_analyzer *an, struct rt_partial *const *p, unsigned n,
                       const struct rt_results *r, char *errbuf)
{
	/* the keys, and their chunks as rt_analyzer_flow_key() reads them */
	size_t nchunks = r->nflows / AN_KEY_CHUNK + 1;
	struct rt_an_flow_key *keys = malloc((r->nflows ? r->nflows : 1) * sizeof(*keys));
	struct rt_an_flow_key **chunks = malloc(nchunks * sizeof(*chunks));
	if (!keys || !chunks) {
		free(keys);
		free(chunks);
		return rt_errorf(errbuf, ENOMEM, "the flows of the partial results");
	}
	for (uint32_t id = 0; id < r->nflows; id++)
		keys[id] = r->flows[id].key;
	for (size_t c = 0; c < nchunks; c++)
		chunks[c] = keys + c * AN_KEY_CHUNK;
	free(an->replay_keys);
	free(an->replay_key_chunks);
	an->replay_keys = keys;
	an->replay_key_chunks = chunks;
	an->stage_keys = chunks;
	an->nstage_keys = r->nflows;
	an->replay_view = r;
	for (unsigned i = 0; i < n; i++)
		if (p[i]->buckets) {
			an->bk.srclog |= p[i]->buckets->source_log;
			an->bk.counters |= p[i]->buckets->counters;
		}
	int rc =
	    an->bk.len && an->bk.deliver
	        ? rt_partials_buckets(p, n, r, an->bk.len, an->sel.flow.n ? &an->sel.flow : NULL,
	                              replay_deliver, an, errbuf)
	        : 0;
	if (rc < 0 && an->sinks.err)
		return rt_analyzer_status(an, errbuf);
	return rc < 0 ? rc : rt_analyzer_finish(an, errbuf);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The partials' bucket lengths, for a message: "20.0 us at before, 50.0 us at after". */
static void lengths_text(struct rt_partial *const *p, unsigned n, char *buf, size_t size)
{
	buf[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		char d[32];
		size_t at = strlen(buf);
		snprintf(buf + at, size - at, "%s%s at %s", i ? ", " : "",
		         rt_fmt_duration(d, sizeof(d), p[i]->buckets->len_ns), p[i]->point);
	}
}

int rt_partials_bucket_len(struct rt_partial *const *p, unsigned n, uint64_t asked, uint64_t want,
                           uint64_t *len, char *errbuf)
{
	for (unsigned i = 0; i < n; i++) /* each, before their multiple stops at an overflow */
		if (!p[i]->buckets)
			return rt_errmsg(errbuf, EINVAL,
			                 "the partial of point %s holds no time buckets (an older "
			                 "rocetrace made it): make it again with analyze --partial",
			                 p[i]->point);
	uint64_t lcm = 1;
	for (unsigned i = 0; i < n; i++) {
		uint64_t l = p[i]->buckets->len_ns, g = gcd(lcm, l);
		lcm = lcm / g > UINT64_MAX / l ? 0 : lcm / g * l;
		if (!lcm)
			break;
	}
	char lens[512], d[32];
	lengths_text(p, n, lens, sizeof(lens));
	if (asked) {
		for (unsigned i = 0; i < n; i++)
			if (asked % p[i]->buckets->len_ns)
				return rt_errmsg(
				    errbuf, EINVAL,
				    "--bucket %s is not a multiple of the partials' buckets "
				    "(%s): give a multiple of each",
				    rt_fmt_duration(d, sizeof(d), asked), lens);
		*len = asked;
		return 0;
	}
	if (!lcm)
		return rt_errmsg(
		    errbuf, EINVAL,
		    "the partials' buckets (%s) have no common multiple to merge them in", lens);
	/* 1, 2 or 5 times a power of ten, the first that is a multiple of each */
	for (uint64_t decade = 1; decade <= UINT64_MAX / 10; decade *= 10)
		for (uint64_t s = 1; s <= 5; s += s == 1 ? 1 : 3)
			if (s * decade >= want && s * decade % lcm == 0) {
				*len = s * decade;
				return 0;
			}
	uint64_t k = want / lcm + (want % lcm != 0);
	*len = k && k <= UINT64_MAX / lcm ? k * lcm : lcm;
	return 0;
}
