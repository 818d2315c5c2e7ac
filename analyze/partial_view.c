/* The partial format's sections of the view but the flows: totals, warnings, vantage points, PFC, MACs, episodes, counters, findings. */
#include <errno.h>
#include <string.h>

#include "analyze/partial_codec.h"
#include "analyze/types.h"

/* Paths between vantage points at most: one each way per pair. */
#define PATHS_MAX (RT_AN_VANTAGE_MAX * (RT_AN_VANTAGE_MAX - 1))

void pc_part(struct pc *c, struct rt_partial *p)
{
	pc_str(c, (const char **)&p->point, true, "point name");
	uint64_t n = p->nfiles;
	pc_count(c, &n, UINT32_MAX, 4, "files");
	char **files = pc_items(c, p->files, n, sizeof(*files));
	for (uint64_t i = 0; files && i < n; i++)
		pc_str(c, (const char **)&files[i], true, "file name");
	if (c->reading) {
		p->nfiles = (unsigned)n;
		p->files = files;
	}
	pc_u32(c, &p->sample_k);
	pc_u32(c, &p->sample_m);
	pc_check(c, p->sample_m >= 1 && p->sample_k <= p->sample_m, "sample");
}

static void counts(struct pc *c, struct rt_an_counts *t)
{
	pc_u64(c, &t->packets);
	pc_u64(c, &t->bytes);
	pc_u64(c, &t->roce_packets);
	pc_u64(c, &t->roce_bytes);
	pc_u64(c, &t->ce);
	pc_u64(c, &t->cnp);
	pc_u64(c, &t->nak);
	pc_u64(c, &t->rnr_nak);
	pc_u64(c, &t->retransmitted);
	pc_u64(c, &t->icrc_bad);
	pc_u64s(c, t->pfc_xoff, RT_AN_PFC_CLASSES);
	pc_u64s(c, t->pfc_xon, RT_AN_PFC_CLASSES);
	pc_u64s(c, t->pfc_paused_ns, RT_AN_PFC_CLASSES);
}

/* The capture's figures and settings, up to the flows. */
static void capture(struct pc *c, struct rt_results *r)
{
	counts(c, &r->c);
	pc_bool(c, &r->any_frame);
	pc_u64(c, &r->start_ns);
	pc_u64(c, &r->end_ns);
	pc_u64(c, &r->link_speed_bps);
	pc_u64(c, &r->episode_gap_ns);
	pc_u64(c, &r->rate_window_ns);
	pc_u64(c, &r->storm_ns);
	pc_uint(c, &r->rate_window_gaps);
	pc_str(c, &r->flow_selector, false, "flow selector");
	pc_str(c, &r->input_error, false, "input error");
	pc_u64s(c, r->ecn, 4);
	pc_u64(c, &r->cnp_unattributed);
	pc_u64(c, &r->nak_unattributed);
	pc_u64(c, &r->malformed);
	pc_u64(c, &r->truncated);
	pc_u64(c, &r->other);
	pc_u64(c, &r->cm_pairs);
	pc_u64(c, &r->go_back_n);
	pc_u64(c, &r->timeouts);
	pc_u64(c, &r->gaps);
	pc_u64(c, &r->gap_psns);
	pc_u64(c, &r->psn_jumps);
	pc_bool(c, &r->ecn_off);
	pc_u64(c, &r->ecn_not_ect);
	pc_u64(c, &r->ecn_data_packets);
	pc_u32(c, &r->nselected);
	pc_u32(c, &r->npaired);
}

/* What the capture says about itself. */
static void capture_facts(struct pc *c, struct rt_results *r)
{
	pc_str(c, &r->drops_source, false, "drops source");
	pc_u64(c, &r->if_dropped);
	pc_u64(c, &r->os_dropped);
	pc_bool(c, &r->dup_on);
	pc_u64(c, &r->dup_other_point);
	pc_u64(c, &r->dup_same_point);
	pc_u64(c, &r->dup_window_ns);
	pc_u64(c, &r->dup_forgotten_early);
	pc_u32(c, &r->max_flows);
	pc_bool(c, &r->max_flows_reached);
	pc_u64(c, &r->packets_beyond);
	pc_u64(c, &r->bytes_beyond);
	pc_u64(c, &r->icrc_unchecked);
	pc_u64(c, &r->headers_cut);
	pc_u64(c, &r->time_backwards);
	pc_u64(c, &r->time_backwards_max_ns);
	pc_u64(c, &r->time_backwards_across);
}

static void incast(struct pc *c, struct rt_results *r)
{
	pc_bool(c, &r->incast);
	pc_bool(c, &r->fan_in);
	pc_str(c, &r->incast_null_reason, false, "incast reason");
	pc_uint(c, &r->incast_evidence);
	pc_u8(c, &r->incast_ipver);
	pc_bytes(c, r->incast_receiver, sizeof(r->incast_receiver));
	pc_u32(c, &r->incast_senders);
	pc_u32(c, &r->incast_flows);
	pc_u64(c, &r->incast_bytes);
	pc_u64(c, &r->incast_ce);
	pc_f64(c, &r->incast_gbps);
}

static void counter_sum(struct pc *c, struct rt_res_counter_sum *s)
{
	pc_bool(c, &s->found);
	pc_bool(c, &s->known);
	pc_f64(c, &s->value);
}

static void side_files(struct pc *c, struct rt_results *r)
{
	pc_bool(c, &r->counters_loaded);
	pc_u64(c, &r->counter_lines);
	pc_u64(c, &r->counter_bad_lines);
	counter_sum(c, &r->np_cnp_sent);
	counter_sum(c, &r->rp_cnp_handled);
	for (unsigned p = 0; p < 8; p++)
		for (unsigned k = 0; k < 4; k++)
			counter_sum(c, &r->counter_pause[p][k]);
	pc_bool(c, &r->source_log_loaded);
	pc_u64(c, &r->source_log_lines);
	pc_u64(c, &r->source_log_bad_lines);
	pc_u64(c, &r->source_log_unmatched);
}

void pc_totals(struct pc *c, struct rt_results *r)
{
	capture(c, r);
	capture_facts(c, r);
	incast(c, r);
	side_files(c, r);
}

static void warning(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_an_warning *w = item;
	(void)r, (void)i;
	pc_str(c, &w->code, true, "warning code");
	pc_text(c, w->message, sizeof(w->message), "warning message");
	uint64_t nv = w->nvalues;
	pc_count(c, &nv, RT_AN_WARNING_VALUES, 12, "warning values");
	w->nvalues = (unsigned)nv;
	for (unsigned k = 0; k < w->nvalues; k++) {
		pc_str(c, &w->values[k].name, true, "warning value name");
		pc_u64(c, &w->values[k].value);
	}
}

void pc_warnings(struct pc *c, struct rt_results *r)
{
	uint64_t n = r->nwarnings;
	struct rt_an_warning *w =
	    pc_list(c, r->warnings, &n, sizeof(*w), RT_AN_WARNINGS_MAX, "warnings", warning, r);
	if (c->reading && w)
		memcpy(r->warnings, w, (size_t)n * sizeof(*w));
	r->nwarnings = (unsigned)n;
}

static void path(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_res_path *p = item;
	(void)r, (void)i;
	pc_str(c, &p->from, true, "path point");
	pc_str(c, &p->to, true, "path point");
	pc_u32(c, &p->sample_k);
	pc_u32(c, &p->sample_m);
	pc_u64(c, &p->matched);
	pc_u64(c, &p->lost);
	pc_u64(c, &p->ce_marked);
	pc_u64(c, &p->judged);
	pc_u64(c, &p->not_judged);
	pc_str(c, &p->not_judged_reason, false, "reason");
	pc_bool(c, &p->offset_known);
	pc_i64(c, &p->offset_ns);
	pc_str(c, &p->offset_null_reason, false, "reason");
	pc_bool(c, &p->delay_known);
	pc_bool(c, &p->delay_includes_offset);
	pc_i64(c, &p->delay_min);
	pc_i64(c, &p->delay_median);
	pc_i64(c, &p->delay_p99);
	pc_str(c, &p->delay_null_reason, false, "reason");
}

static void vantage_point(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_an_vantage *v = item;
	(void)r, (void)i;
	pc_str(c, &v->name, true, "vantage point name");
	uint64_t n = v->nfiles;
	pc_count(c, &n, UINT32_MAX, 4, "vantage point files");
	const char **files = pc_items(c, v->files, n, sizeof(*files));
	for (uint64_t k = 0; files && k < n; k++)
		pc_str(c, &files[k], true, "vantage point file");
	v->nfiles = (unsigned)n;
	v->files = files;
	pc_u64(c, &v->frames);
}

void pc_vantage(struct pc *c, struct rt_results *r)
{
	uint64_t n = r->nvantage;
	r->vantage = pc_list(c, r->vantage, &n, sizeof(*r->vantage), RT_AN_VANTAGE_MAX,
	                     "vantage points", vantage_point, r);
	r->nvantage = (unsigned)n;
	n = r->npaths;
	r->paths = pc_list(c, r->paths, &n, sizeof(*r->paths), PATHS_MAX, "paths", path, r);
	r->npaths = (unsigned)n;
}

/*
 * A set of vantage points as a u8 (bit p: point p) that fits the points the
 * view has: a partial's view has at most RT_AN_VANTAGE_MAX points, and
 * mostly one (a merged view of more is never written).
 */
static void points(struct pc *c, const struct rt_results *r, struct rt_res_points *set)
{
	uint8_t bits = 0;
	bool fits = true;
	for (unsigned w = 0; !c->reading && w < set->nwords; w++)
		fits &= set->words[w] >> (w ? 0 : 8) == 0;
	if (!c->reading && set->nwords)
		bits = (uint8_t)set->words[0];
	pc_check(c, fits, "vantage point set");
	pc_u8(c, &bits);
	unsigned n = r->nvantage ? r->nvantage : 1;
	pc_check(c, n >= 8 || (bits >> n) == 0, "vantage point set");
	if (c->reading && an_res_points(c->res, set, bits) < 0)
		pc_fail(c, ENOMEM, "out of memory");
}

static void pfc_source(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_res_pfc_source *s = item;
	(void)i;
	pc_bytes(c, s->mac, 6);
	pc_u8(c, &s->cls);
	pc_check(c, s->cls < RT_AN_PFC_CLASSES, "class");
	points(c, r, &s->points);
	pc_u64(c, &s->xoff);
	pc_u64(c, &s->xon);
	pc_u64(c, &s->paused_ns);
	pc_u64(c, &s->first_xoff_ns);
	pc_u64(c, &s->longest_start_ns);
	pc_u64(c, &s->longest_ns);
}

static void storm(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_res_storm *st = item;
	(void)r, (void)i;
	pc_bytes(c, st->mac, 6);
	pc_u8(c, &st->cls);
	pc_check(c, st->cls < RT_AN_PFC_CLASSES, "class");
	pc_u64(c, &st->start_ns);
	pc_u64(c, &st->end_ns);
}

static void incident(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_res_incident *in = item;
	(void)r, (void)i;
	pc_u8(c, &in->cls);
	pc_check(c, in->cls < RT_AN_PFC_CLASSES, "class");
	pc_bool(c, &in->ongoing);
	pc_u64(c, &in->start_ns);
	pc_u64(c, &in->end_ns);
	uint64_t n = in->nmacs;
	pc_count(c, &n, RT_RES_INCIDENT_MACS, 30, "incident MACs");
	in->nmacs = (unsigned)n;
	pc_u32(c, &in->macs_total);
	for (unsigned k = 0; k < in->nmacs; k++) {
		pc_bytes(c, in->macs[k].mac, 6);
		pc_u64(c, &in->macs[k].first_ns);
		pc_u64(c, &in->macs[k].paused_ns);
		pc_u64(c, &in->macs[k].longest_ns);
	}
}

void pc_pfc(struct pc *c, struct rt_results *r)
{
	pc_u64(c, &r->pfc_frames);
	pc_u64(c, &r->pause_frames);
	for (unsigned k = 0; k < RT_AN_PFC_CLASSES; k++) {
		pc_u64(c, &r->pfc[k].xoff);
		pc_u64(c, &r->pfc[k].xon);
		pc_u64(c, &r->pfc[k].paused_ns);
		pc_u64(c, &r->pfc[k].storms);
	}
	uint64_t n = r->npfc_sources;
	r->pfc_sources = pc_list(c, r->pfc_sources, &n, sizeof(*r->pfc_sources), UINT32_MAX,
	                         "PFC sources", pfc_source, r);
	r->npfc_sources = (uint32_t)n;
	n = r->nstorms;
	r->storms = pc_list(c, r->storms, &n, sizeof(*r->storms), UINT32_MAX, "storms", storm, r);
	r->nstorms = (uint32_t)n;
	n = r->nincidents;
	r->incidents = pc_list(c, r->incidents, &n, sizeof(*r->incidents), UINT32_MAX, "incidents",
	                       incident, r);
	r->nincidents = (uint32_t)n;
	pc_u64(c, &r->incidents_beyond);
}

static void mac(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_res_mac *e = item;
	(void)i;
	pc_bytes(c, e->mac, 6);
	points(c, r, &e->points);
	points(c, r, &e->src_points);
	pc_u8(c, &e->ipver);
	pc_check(c, !e->ipver || e->ipver == 4 || e->ipver == 6, "IP version");
	pc_bool(c, &e->several);
	pc_bytes(c, e->ip, sizeof(e->ip));
	pc_u64(c, &e->frames);
}

void pc_macs(struct pc *c, struct rt_results *r)
{
	uint64_t n = r->nmacs;
	r->macs = pc_list(c, r->macs, &n, sizeof(*r->macs), UINT32_MAX, "MACs", mac, r);
	r->nmacs = (uint32_t)n;
}

static void episode(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_res_episode *e = item;
	(void)i;
	pc_u64(c, &e->start_ns);
	pc_u64(c, &e->end_ns);
	pc_u64(c, &e->ce);
	pc_u64(c, &e->cnp);
	pc_u64(c, &e->pfc_xoff);
	pc_u64(c, &e->paused_ns);
	pc_u64(c, &e->flow_count);
	uint64_t n = e->nflows;
	pc_count(c, &n, RT_RES_EPISODE_FLOWS, 4, "episode flows");
	e->nflows = (unsigned)n;
	for (unsigned k = 0; k < e->nflows; k++) {
		pc_u32(c, &e->flows[k]);
		pc_check(c, e->flows[k] < r->nflows, "episode flow id");
	}
	pc_f64(c, &e->peak_ce_per_s);
	pc_f64(c, &e->gbps_before);
	pc_f64(c, &e->gbps_during);
	pc_f64(c, &e->gbps_after);
}

void pc_episodes(struct pc *c, struct rt_results *r)
{
	uint64_t n = r->nepisodes;
	r->episodes =
	    pc_list(c, r->episodes, &n, sizeof(*r->episodes), UINT32_MAX, "episodes", episode, r);
	r->nepisodes = (uint32_t)n;
}

static void counter_dev(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_res_counter_dev *d = item;
	(void)r, (void)i;
	pc_str(c, &d->name, true, "device name");
	pc_u64(c, &d->samples);
	pc_u64(c, &d->duration_ns);
	uint64_t n = d->ncounters;
	pc_count(c, &n, SIZE_MAX, 12, "counters");
	const char **names = pc_items(c, d->names, n, sizeof(*names));
	double *deltas = pc_items(c, d->deltas, n, sizeof(*deltas));
	for (uint64_t k = 0; names && deltas && k < n; k++) {
		pc_str(c, &names[k], true, "counter name");
		pc_f64(c, &deltas[k]);
	}
	d->ncounters = (size_t)n;
	d->names = names;
	d->deltas = deltas;
}

void pc_counter_devs(struct pc *c, struct rt_results *r)
{
	uint64_t n = r->ncounter_devs;
	r->counter_devs = pc_list(c, r->counter_devs, &n, sizeof(*r->counter_devs), SIZE_MAX,
	                          "counter devices", counter_dev, r);
	r->ncounter_devs = (size_t)n;
}

static void names(struct pc *c, struct rt_finding_names *n, const char *what)
{
	uint64_t k = n->n;
	pc_count(c, &k, RT_FINDING_NAMES, 4, what);
	n->n = (unsigned)k;
	pc_bool(c, &n->more);
	for (unsigned i = 0; i < n->n; i++)
		pc_text(c, n->v[i], sizeof(n->v[i]), what);
}

static void finding(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	struct rt_finding *f = item;
	(void)r, (void)i;
	pc_str(c, &f->code, true, "finding code");
	uint8_t sev = (uint8_t)f->severity;
	pc_u8(c, &sev);
	pc_check(c, sev <= RT_SEV_ERROR, "severity");
	f->severity = (enum rt_severity)sev;
	pc_str(c, &f->confidence, false, "confidence");
	pc_text(c, f->summary, sizeof(f->summary), "finding summary");
	pc_text(c, f->fix, sizeof(f->fix), "finding fix");
	names(c, &f->hosts, "finding hosts");
	names(c, &f->macs, "finding MACs");
	names(c, &f->flows, "finding flows");
	pc_uint(c, &f->flows_unselected);
	uint64_t n = f->npriorities;
	pc_count(c, &n, RT_AN_PFC_CLASSES, 1, "finding priorities");
	f->npriorities = (unsigned)n;
	for (unsigned k = 0; k < f->npriorities; k++) {
		pc_u8(c, &f->priorities[k]);
		pc_check(c, f->priorities[k] < RT_AN_PFC_CLASSES, "finding priority");
	}
	n = f->nevidence;
	pc_count(c, &n, RT_FINDING_EVIDENCE, 25, "finding evidence");
	f->nevidence = (unsigned)n;
	for (unsigned k = 0; k < f->nevidence; k++) {
		struct rt_evidence *e = &f->evidence[k];
		pc_str(c, &e->name, true, "evidence name");
		uint8_t kind = (uint8_t)e->kind;
		pc_u8(c, &kind);
		pc_check(c, kind <= RT_EV_NULL, "evidence kind");
		e->kind = (enum rt_evidence_kind)kind;
		pc_u64(c, &e->u);
		pc_f64(c, &e->d);
		pc_pooled(c, &e->text, f->pool, &f->pool_used, sizeof(f->pool));
		pc_check(c, (e->kind == RT_EV_TEXT) == (e->text != NULL), "evidence text");
	}
}

void pc_findings(struct pc *c, struct rt_results *r)
{
	uint64_t n = r->nfindings;
	r->findings = pc_list(c, r->findings, &n, sizeof(*r->findings), RT_FINDINGS_MAX, "findings",
	                      finding, r);
	r->nfindings = (unsigned)n;
	struct rt_verdict *v = &r->verdict;
	uint8_t state = (uint8_t)v->state;
	pc_u8(c, &state);
	pc_check(c, state <= RT_VERDICT_ECN_OFF, "verdict state");
	v->state = (enum rt_verdict_state)state;
	/* its parts in order; a later version's parts beyond those known are skipped */
	uint64_t parts = RT_VERDICT_PARTS;
	pc_count(c, &parts, UINT32_MAX, 4, "verdict parts");
	for (uint64_t k = 0; k < parts; k++) {
		const char *skip;
		if (k < RT_VERDICT_PARTS)
			pc_text(c, v->part[k], sizeof(v->part[k]), "verdict part");
		else
			pc_str(c, &skip, true, "verdict part");
	}
}
