/* A partial collected while the analyzer is fed: its CE-marked and sampled packets, and the view taken at the end. */
#include "analyze/partial_collect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "analyze/partial_buckets.h"
#include "analyze/results_build.h"
#include "dissect/opcodes.h"

void an_pp_init(struct an_pp *pp, const struct rt_analyzer_opts *o)
{
	memset(pp, 0, sizeof(*pp));
	pp->on = o->partial;
	bool given = o->vantage_sample_k && o->vantage_sample_m;
	pp->k = given ? o->vantage_sample_k : RT_PARTIAL_SAMPLE_K;
	pp->m = given ? o->vantage_sample_m : RT_PARTIAL_SAMPLE_M;
	if (pp->k >= pp->m) /* every packet */
		pp->k = pp->m = 1;
}

void an_pp_free(struct an_pp *pp)
{
	free(pp->v);
	free(pp->frame);
	pp->v = NULL;
	pp->frame = NULL;
	pp->n = pp->cap = 0;
}

/* Room for `more` packets beyond n. False when out of memory. */
static bool pp_room(struct an_pp *pp, uint64_t more)
{
	if (pp->n + more <= pp->cap)
		return true;
	uint64_t cap = pp->cap ? pp->cap : 1024;
	while (cap < pp->n + more)
		cap *= 2;
	struct rt_partial_packet *v = realloc(pp->v, cap * sizeof(*v));
	if (v)
		pp->v = v;
	uint64_t *frame = v ? realloc(pp->frame, cap * sizeof(*frame)) : NULL;
	if (!frame)
		return false;
	pp->frame = frame;
	pp->cap = cap;
	return true;
}

void an_pp_frame(struct rt_analyzer *an, const struct rt_record *rec,
                 const struct rt_an_flow_key *k, uint32_t h, uint64_t fp, bool copy,
                 uint8_t counted_ecn)
{
	struct an_pp *pp = &an->pk;
	bool ce = (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) && (rec->ecn & 3) == 3;
	/* a copy matters only when it made the packet CE (analyze.c handle_copy) */
	bool sampled = !copy && an_vp_fp_sampled(pp->k, pp->m, fp);
	/* every CNP counted: a merge counts a CNP seen at two points once in its episodes */
	bool cnp = !copy && rec->opcode == RT_OPCODE_CNP;
	if (copy ? !ce || counted_ecn == 3 : !ce && !sampled && !cnp)
		return;
	if (!pp_room(pp, 1)) {
		pp->nomem = true;
		return;
	}
	uint32_t fi = an_flow_get_hashed(&an->ft, k, h, false);
	struct rt_partial_packet *p = &pp->v[pp->n];
	*p = (struct rt_partial_packet){
	    .fp = fp,
	    .ts_ns = rec->ts_ns,
	    .flow = fi == AN_NONE ? RT_AN_NONE : an->ft.flows[fi].id,
	    .flags = (uint8_t)((ce ? RT_PP_CE : 0) | (sampled ? RT_PP_SAMPLED : 0) |
	                       (cnp ? RT_PP_CNP : 0)),
	    .ecn = (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) ? (uint8_t)(rec->ecn & 3) : 0,
	    .ttl = rec->ttl,
	    .ipver = k->ipver};
	memcpy(p->src, k->src, sizeof(p->src));
	memcpy(p->dst, k->dst, sizeof(p->dst));
	pp->frame[pp->n++] = an->frame;
}

static uint32_t remap(const uint32_t *map, uint32_t id)
{
	return id == RT_AN_NONE || !map ? id : map[id];
}

int an_pp_merge(struct an_pp *dst, struct an_pp *src, const uint32_t *map_dst,
                const uint32_t *map_src)
{
	if (!dst->on)
		return 0;
	dst->nomem |= src->nomem;
	uint64_t n = dst->n + src->n;
	struct rt_partial_packet *v = malloc((n ? n : 1) * sizeof(*v));
	uint64_t *frame = malloc((n ? n : 1) * sizeof(*frame));
	if (!v || !frame) {
		free(v);
		free(frame);
		return -ENOMEM;
	}
	/* each side in frame order: the two interleaved by it (dst's first on a tie) */
	uint64_t i = 0, j = 0;
	for (uint64_t o = 0; o < n; o++) {
		bool from_dst = j == src->n || (i < dst->n && dst->frame[i] <= src->frame[j]);
		const struct an_pp *s = from_dst ? dst : src;
		uint64_t at = from_dst ? i++ : j++;
		v[o] = s->v[at];
		v[o].flow = remap(from_dst ? map_dst : map_src, v[o].flow);
		frame[o] = s->frame[at];
	}
	an_pp_free(dst);
	an_pp_free(src);
	dst->v = v;
	dst->frame = frame;
	dst->n = dst->cap = n;
	return 0;
}

/* ---- the partial taken ---- */

static int by_time(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b; /* {time, frame, index} */
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The packets in time order (this point's clock), those of one time in frame order. 0 or -ENOMEM. */
static int time_order(struct an_pp *pp)
{
	uint64_t i = 1;
	while (i < pp->n && pp->v[i - 1].ts_ns <= pp->v[i].ts_ns)
		i++;
	if (i >= pp->n)
		return 0;
	uint64_t(*key)[3] = malloc(pp->n * sizeof(*key));
	struct rt_partial_packet *v = malloc(pp->n * sizeof(*v));
	if (!key || !v) {
		free(key);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < pp->n; i++) {
		key[i][0] = pp->v[i].ts_ns;
		key[i][1] = pp->frame[i];
		key[i][2] = i;
	}
	qsort(key, pp->n, sizeof(*key), by_time);
	for (i = 0; i < pp->n; i++)
		v[i] = pp->v[key[i][2]];
	free(key);
	free(pp->v);
	pp->v = v;
	return 0;
}

/* s in the view's memory (NULL stays NULL); *ok false when out of memory. */
static const char *res_str(struct an_results *res, const char *s, bool *ok)
{
	if (!s)
		return NULL;
	size_t len = strlen(s) + 1;
	char *c = an_res_alloc(res, len);
	if (!c) {
		*ok = false;
		return NULL;
	}
	return memcpy(c, s, len);
}

/* The vantage points' description in the view's memory; each old name's copy into names[]. */
static bool detach_points(struct an_results *res, const char **names)
{
	struct rt_results *r = &res->r;
	bool ok = true;
	struct rt_an_vantage *vp = an_res_alloc(res, (r->nvantage + 1) * sizeof(*vp));
	if (!vp)
		return false;
	for (unsigned i = 0; i < r->nvantage; i++) {
		vp[i] = r->vantage[i];
		vp[i].name = names[i] = res_str(res, r->vantage[i].name, &ok);
		const char **files = an_res_alloc(res, (vp[i].nfiles + 1) * sizeof(*files));
		if (!files)
			return false;
		for (unsigned f = 0; f < vp[i].nfiles; f++)
			files[f] = res_str(res, r->vantage[i].files[f], &ok);
		vp[i].files = files;
	}
	r->vantage = vp;
	return ok;
}

/* A name of the analyzer's points (old[]) as copied (new[]); another string copied. */
static const char *point_name(struct an_results *res, const struct rt_an_vantage *old,
                              const char **copied, unsigned n, const char *s, bool *ok)
{
	for (unsigned i = 0; i < n; i++)
		if (s == old[i].name)
			return copied[i];
	return res_str(res, s, ok);
}

/*
 * The view's strings that live in the analyzer (the points, the selector,
 * the input's error, the counters' names) copied into the view's memory:
 * the view outlives the analyzer. False when out of memory.
 */
static bool detach(struct an_results *res)
{
	struct rt_results *r = &res->r;
	const struct rt_an_vantage *old = r->vantage;
	unsigned nold = r->nvantage;
	const char *names[RT_AN_VANTAGE_MAX + 1] = {0};
	bool ok = nold <= RT_AN_VANTAGE_MAX && detach_points(res, names);
	r->flow_selector = res_str(res, r->flow_selector, &ok);
	r->input_error = res_str(res, r->input_error, &ok);
	struct rt_res_path *paths = (struct rt_res_path *)r->paths;
	for (unsigned i = 0; ok && i < r->npaths; i++) {
		paths[i].from = point_name(res, old, names, nold, paths[i].from, &ok);
		paths[i].to = point_name(res, old, names, nold, paths[i].to, &ok);
	}
	struct rt_res_flow *flows = (struct rt_res_flow *)r->flows;
	for (uint32_t id = 0; ok && id < r->nflows; id++)
		if (flows[id].followed_at)
			flows[id].followed_at =
			    point_name(res, old, names, nold, flows[id].followed_at, &ok);
	struct rt_res_counter_dev *d = (struct rt_res_counter_dev *)r->counter_devs;
	for (size_t k = 0; ok && k < r->ncounter_devs; k++) {
		const char **cn = an_res_alloc(res, (d[k].ncounters + 1) * sizeof(*cn));
		ok = cn != NULL;
		for (size_t i = 0; ok && i < d[k].ncounters; i++)
			cn[i] = res_str(res, d[k].names[i], &ok);
		d[k].name = res_str(res, d[k].name, &ok);
		d[k].names = cn;
	}
	return ok;
}

int rt_partial_take(struct rt_analyzer *an, const char *point, const char *const *files,
                    unsigned nfiles, struct rt_partial **out, char *errbuf)
{
	*out = NULL;
	struct an_pp *pp = &an->pk;
	if (!pp->on)
		return rt_errmsg(
		    errbuf, EINVAL,
		    "the analysis kept no packets for a partial (it was not asked to)");
	if (pp->nomem)
		return rt_errorf(errbuf, ENOMEM, "the partial's packets");
	struct rt_partial *p = calloc(1, sizeof(*p));
	bool ok =
	    p && (p->point = strdup(point)) && (p->files = calloc(nfiles + 1, sizeof(char *)));
	for (unsigned i = 0; ok && i < nfiles; i++, p->nfiles++)
		ok = (p->files[i] = strdup(files[i])) != NULL;
	ok = ok && rt_analyzer_results(an) && detach(an->res) && time_order(pp) == 0 &&
	     (!pp->bk || (p->buckets = an_pbk_take(pp->bk)));
	if (!ok) {
		rt_partial_free(p);
		return rt_errorf(errbuf, ENOMEM, "the partial");
	}
	p->res = an->res;
	an->res = NULL; /* the analyzer builds another view if asked */
	p->r = &p->res->r;
	p->sample_k = pp->k;
	p->sample_m = pp->m;
	p->npackets = pp->n;
	p->packets = pp->v;
	pp->v = NULL;
	an_pp_free(pp);
	*out = p;
	return 0;
}
