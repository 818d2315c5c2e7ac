/* The JSON report sink: one document with every key analyze/README.md lists, through the common JSON writer. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analyze/analyze.h"
#include "analyze/figures.h"
#include "analyze/incast.h"
#include "analyze/internal.h"
#include "analyze/report_json.h"
#include "analyze/sinks.h"
#include "analyze/warnings.h"
#include "common/json.h"

void an_json_num_or_null(struct rt_json *j, double v, int dec, bool known)
{
	if (known && isfinite(v))
		rt_json_double(j, v, dec);
	else
		rt_json_null(j);
}

void an_json_u64_or_null(struct rt_json *j, uint64_t v, bool known)
{
	if (known)
		rt_json_u64(j, v);
	else
		rt_json_null(j);
}

static void totals_json(const struct rt_analyzer *an, struct rt_json *j)
{
	struct an_xport_sum x;
	an_flows_xport_sum(&an->ft, &x);
	const struct an_totals *t = &an->tot;
	RT_JSON_KEY(j, "totals");
	rt_json_obj(j);
	RT_JSON_U64(j, "ce", t->c.ce);
	RT_JSON_U64(j, "cnp", t->c.cnp);
	RT_JSON_U64(j, "nak", t->c.nak);
	RT_JSON_U64(j, "rnr_nak", t->c.rnr_nak);
	RT_JSON_U64(j, "retransmitted", t->c.retransmitted);
	RT_JSON_U64(j, "icrc_bad", t->c.icrc_bad);
	RT_JSON_U64(j, "cnp_unattributed", t->cnp_unattributed);
	RT_JSON_U64(j, "nak_unattributed", t->nak_unattributed);
	RT_JSON_U64(j, "go_back_n", x.go_back_n);
	RT_JSON_U64(j, "timeouts", x.timeouts);
	RT_JSON_U64(j, "gaps", x.gaps);
	RT_JSON_U64(j, "gap_psns", x.gap_psns);
	RT_JSON_U64(j, "psn_jumps", x.psn_jumps);
	RT_JSON_U64(j, "malformed", t->malformed);
	RT_JSON_U64(j, "truncated", t->truncated);
	RT_JSON_U64(j, "other", t->other);
	RT_JSON_U64(j, "cm_pairs", an->cm.pairs);
	RT_JSON_KEY(j, "ecn");
	an_report_json_ecn(j, t->ecn);
	rt_json_obj_end(j);
}

static void pfc_json(const struct rt_analyzer *an, struct rt_json *j)
{
	const struct an_pfc *p = &an->pfc;
	uint64_t xoff = 0, xon = 0;
	char nb[2];
	for (unsigned c = 0; c < 8; c++) {
		xoff += p->xoff[c];
		xon += p->xon[c];
	}
	RT_JSON_KEY(j, "pfc");
	rt_json_obj(j);
	RT_JSON_U64(j, "frames", p->pfc_frames);
	RT_JSON_U64(j, "xoff", xoff);
	RT_JSON_U64(j, "xon", xon);
	RT_JSON_KEY(j, "priorities");
	rt_json_obj(j);
	for (unsigned c = 0; c < 8; c++) {
		if (!p->xoff[c] && !p->xon[c])
			continue;
		rt_json_key(j, an_class_name(c, nb));
		rt_json_obj(j);
		RT_JSON_U64(j, "xoff", p->xoff[c]);
		RT_JSON_U64(j, "xon", p->xon[c]);
		RT_JSON_U64(j, "paused_ns", p->paused_ns[c]);
		RT_JSON_U64(j, "storms", an_pfc_class_storms(p, c));
		rt_json_obj_end(j);
	}
	rt_json_obj_end(j);
	RT_JSON_KEY(j, "sources");
	rt_json_arr(j);
	for (uint32_t i = 0; i < p->nmacs; i++)
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			const struct an_pfc_class *cl = &p->macs[i].cls[c];
			if (!cl->xoff && !cl->xon)
				continue;
			rt_json_next(j);
			rt_json_obj(j);
			RT_JSON_KEY(j, "mac");
			rt_json_mac(j, p->macs[i].mac);
			RT_JSON_KEY(j, "priority");
			rt_json_str(j, an_class_name(c, nb));
			RT_JSON_U64(j, "xoff", cl->xoff);
			RT_JSON_U64(j, "xon", cl->xon);
			RT_JSON_U64(j, "paused_ns", cl->paused_ns);
			rt_json_obj_end(j);
		}
	rt_json_arr_end(j);
	rt_json_obj_end(j);

	RT_JSON_KEY(j, "pause");
	rt_json_obj(j);
	RT_JSON_U64(j, "frames", p->pause_frames);
	RT_JSON_U64(j, "xoff", p->xoff[RT_AN_PAUSE_CLASS]);
	RT_JSON_U64(j, "xon", p->xon[RT_AN_PAUSE_CLASS]);
	RT_JSON_U64(j, "paused_ns", p->paused_ns[RT_AN_PAUSE_CLASS]);
	RT_JSON_U64(j, "storms", an_pfc_class_storms(p, RT_AN_PAUSE_CLASS));
	rt_json_obj_end(j);

	RT_JSON_KEY(j, "storms");
	rt_json_arr(j);
	for (uint32_t i = 0; i < p->nstorms; i++) {
		const struct an_storm *s = &p->storms[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_KEY(j, "mac");
		rt_json_mac(j, s->mac);
		RT_JSON_KEY(j, "priority");
		rt_json_str(j, an_class_name(s->cls, nb));
		TS_NS(j, "start", s->start);
		TS_NS(j, "end", s->end);
		RT_JSON_U64(j, "duration_ns", s->end - s->start);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}

static void episodes_json(const struct rt_analyzer *an, struct rt_json *j)
{
	const struct an_episodes *eps = &an->ep;
	uint64_t gap = eps->gap_ns, slot = an_ep_slot_ns(eps);
	RT_JSON_KEY(j, "episodes");
	rt_json_arr(j);
	for (uint32_t i = 0; i < eps->n; i++) {
		const struct an_episode *ep = &eps->list[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_TS(j, "start", ep->start);
		RT_JSON_TS(j, "end", ep->end);
		RT_JSON_U64(j, "start_ns", ep->start);
		RT_JSON_U64(j, "end_ns", ep->end);
		RT_JSON_U64(j, "duration_ns", ep->end - ep->start);
		RT_JSON_U64(j, "flow_count", ep->flows);
		RT_JSON_KEY(j, "flows");
		rt_json_arr(j);
		for (uint64_t k = 0; k < ep->flows && k < AN_EP_FLOWS; k++) {
			rt_json_next(j);
			rt_json_u64(j, ep->flow_ids[k]);
		}
		rt_json_arr_end(j);
		RT_JSON_U64(j, "ce", ep->ce);
		RT_JSON_U64(j, "cnp", ep->cnp);
		RT_JSON_U64(j, "pfc_xoff", ep->pfc_xoff);
		RT_JSON_U64(j, "paused_ns", ep->paused_ns);
		RT_JSON_KEY(j, "peak_ce_per_s");
		rt_json_double(j, (double)ep->peak_ce_slot * 1e9 / (double)slot, 0);
		/* the gaps before and after lie inside the capture, or are unknown */
		NUM(j, "gbps_before", an_gbps(ep->bytes_before, gap), 3,
		    ep->start - an->first_ts >= gap);
		NUM(j, "gbps_during", an_gbps(ep->bytes_during, ep->end - ep->start), 3, true);
		NUM(j, "gbps_after", an_gbps(ep->bytes_after, gap), 3,
		    an->last_ts >= ep->end && an->last_ts - ep->end >= gap);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}

/* "incast" (with its "evidence"), "incast_null_reason", "ecn_off". */
static void incast_json(const struct rt_analyzer *an, struct rt_json *j)
{
	struct an_incast ic, quiet;
	uint64_t not_ect, data;
	RT_JSON_BOOL(j, "ecn_off", an_ecn_off(an, &not_ect, &data));
	bool found = an_incast_find(&an->ft, an_paused_any(an->pfc.paused_ns), an->o.link_speed_bps,
	                            &ic, &quiet);
	RT_JSON_KEY(j, "incast_null_reason");
	if (found)
		rt_json_null(j);
	else
		rt_json_str(j, quiet.any
		                   ? "receivers with two senders or more show no congestion: no "
		                     "CE mark, pause, loss, nor a full link"
		                   : "no receiver has two senders");
	RT_JSON_KEY(j, "incast");
	if (!found) {
		rt_json_null(j);
		return;
	}
	rt_json_obj(j);
	RT_JSON_KEY(j, "receiver");
	rt_json_ip(j, ic.any->key.ipver, ic.any->key.dst);
	RT_JSON_U64(j, "senders", ic.senders);
	RT_JSON_U64(j, "flows", ic.flows);
	RT_JSON_U64(j, "bytes", ic.bytes);
	NUM(j, "gbps", an_rate_gbps(ic.bytes, ic.first, ic.last), 6, true);
	RT_JSON_U64(j, "ce", ic.ce);
	RT_JSON_KEY(j, "evidence");
	rt_json_arr(j);
	for (unsigned k = 0; k < AN_INCAST_EVIDENCE_KINDS; k++)
		if (ic.evidence & (1u << k)) {
			rt_json_next(j);
			rt_json_name(j, an_incast_evidence_name(k));
		}
	rt_json_arr_end(j);
	rt_json_obj_end(j);
}

/* A counter delta: null when unknown (a reset, or no device had the counter). */
static void delta_json(struct rt_json *j, double v, bool found)
{
	an_json_num_or_null(j, v, 0, found && v >= 0);
}

static void counters_json(const struct an_side *s, const struct an_totals *t, struct rt_json *j)
{
	RT_JSON_KEY(j, "counters");
	rt_json_obj(j);
	RT_JSON_U64(j, "lines", s->counter_lines);
	RT_JSON_U64(j, "bad_lines", s->counter_bad);
	RT_JSON_KEY(j, "devices");
	rt_json_arr(j);
	for (size_t k = 0; k < s->ncdev; k++) {
		const struct an_counter_dev *d = &s->cdev[k];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_STR(j, "name", d->name);
		RT_JSON_U64(j, "samples", d->samples);
		RT_JSON_U64(j, "duration_ns", d->last_ts - d->first_ts);
		RT_JSON_KEY(j, "deltas");
		rt_json_obj(j);
		for (size_t i = 0; i < d->n; i++) {
			rt_json_key(j, d->names[i]);
			delta_json(j, an_side_delta(d, i), true);
		}
		rt_json_obj_end(j);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
	bool f_sent = false, f_handled = false;
	double sent = an_side_sum_delta(s, "np_cnp_sent", &f_sent);
	double handled = an_side_sum_delta(s, "rp_cnp_handled", &f_handled);
	RT_JSON_KEY(j, "cnp");
	rt_json_obj(j);
	RT_JSON_KEY(j, "np_cnp_sent");
	delta_json(j, sent, f_sent);
	RT_JSON_KEY(j, "rp_cnp_handled");
	delta_json(j, handled, f_handled);
	RT_JSON_U64(j, "seen_on_wire", t->c.cnp);
	rt_json_obj_end(j);
	RT_JSON_KEY(j, "pfc");
	rt_json_obj(j);
	for (unsigned p = 0; p < 8; p++) {
		static const char *const keys[] = {"rx_pause", "tx_pause", "rx_pause_duration",
		                                   "tx_pause_duration"};
		double v[4];
		bool any = false, found[4] = {false, false, false, false};
		for (unsigned k = 0; k < 4; k++) {
			char name[40];
			snprintf(name, sizeof(name), "%s_prio%u_pause%s", k % 2 ? "tx" : "rx", p,
			         k < 2 ? "" : "_duration");
			v[k] = an_side_sum_delta(s, name, &found[k]);
			any |= found[k];
		}
		if (!any)
			continue;
		char prio[4];
		snprintf(prio, sizeof(prio), "%u", p);
		rt_json_key(j, prio);
		rt_json_obj(j);
		for (unsigned k = 0; k < 4; k++) {
			rt_json_key(j, keys[k]);
			delta_json(j, v[k], found[k]);
		}
		rt_json_obj_end(j);
	}
	rt_json_obj_end(j);
	rt_json_obj_end(j);
}

/* "capture", "duplicates", "flow_limit" and "warnings": what is said about the capture itself. */
static void findings_json(const struct rt_analyzer *an, struct rt_json *j)
{
	uint64_t ifd, osd;
	const char *from = an_capture_drops(an, &ifd, &osd);
	RT_JSON_KEY(j, "capture");
	rt_json_obj(j);
	U64_OR_NULL(j, "dropped", ifd + osd, from);
	U64_OR_NULL(j, "if_dropped", ifd, from);
	U64_OR_NULL(j, "os_dropped", osd, from);
	RT_JSON_KEY(j, "source");
	if (from)
		rt_json_name(j, from);
	else
		rt_json_null(j);
	/* the snap length: frames cut after their headers (a fact), frames whose headers it cut */
	RT_JSON_U64(j, "icrc_unchecked", an->find.icrc_cut);
	RT_JSON_U64(j, "headers_cut", an->find.headers_cut);
	/* the time order: within a point (the time_backwards warning says when it hurts), across */
	RT_JSON_U64(j, "time_backwards", an->find.ts_back);
	RT_JSON_U64(j, "time_backwards_max_ns", an->find.ts_back_max);
	RT_JSON_U64(j, "time_backwards_across_points", an->find.ts_back_across);
	rt_json_obj_end(j);

	const struct an_dups *d = &an->dups;
	RT_JSON_KEY(j, "duplicates");
	if (d->nsets) {
		rt_json_obj(j);
		RT_JSON_U64(j, "packets", d->other_interface + d->same_interface);
		RT_JSON_U64(j, "other_capture_point", d->other_interface);
		RT_JSON_U64(j, "same_capture_point", d->same_interface);
		RT_JSON_U64(j, "window_ns", d->window_ns);
		RT_JSON_U64(j, "forgotten_early", d->evicted);
		rt_json_obj_end(j);
	} else {
		rt_json_null(j);
	}

	const struct an_flowtab *ft = &an->ft;
	RT_JSON_KEY(j, "flow_limit");
	if (ft->max) {
		rt_json_obj(j);
		RT_JSON_U64(j, "max_flows", ft->max);
		RT_JSON_BOOL(j, "reached", ft->full);
		RT_JSON_U64(j, "packets_beyond", ft->beyond_packets);
		RT_JSON_U64(j, "bytes_beyond", ft->beyond_bytes);
		rt_json_obj_end(j);
	} else {
		rt_json_null(j);
	}

	struct rt_an_warning w[RT_AN_WARNINGS_MAX];
	unsigned n = rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX);
	if (n > RT_AN_WARNINGS_MAX)
		n = RT_AN_WARNINGS_MAX;
	RT_JSON_KEY(j, "warnings");
	rt_json_arr(j);
	for (unsigned i = 0; i < n; i++) {
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_KEY(j, "code");
		rt_json_name(j, w[i].code);
		RT_JSON_STR(j, "message", w[i].message);
		for (unsigned k = 0; k < w[i].nvalues; k++) {
			rt_json_key(j, w[i].values[k].name);
			rt_json_u64(j, w[i].values[k].value);
		}
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}

/* The k-th largest (0: the largest) of v[0..n), k < n; v is reordered (a quickselect). */
static uint64_t kth_largest(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint64_t pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		/* Hoare's partition, largest first: v[lo..j] >= pivot >= v[i..hi] at the end */
		for (;;) {
			while (v[i] > pivot)
				i++;
			while (v[j] < pivot)
				j--;
			if (i >= j)
				break;
			uint64_t t = v[i];
			v[i++] = v[j];
			v[j--] = t;
		}
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return v[k];
}

int an_report_flows_listed(const struct rt_analyzer *an, uint64_t max, bool **listed,
                           uint64_t *selected)
{
	uint32_t n = an->ft.next_id;
	uint64_t sel = 0;
	*listed = NULL;
	for (uint32_t id = 0; id < n; id++)
		sel += (an_flow_by_id(&an->ft, id)->flags & AN_FLOW_SELECTED) != 0;
	*selected = sel;
	if (!max || sel <= max)
		return 0;
	uint64_t *bytes = malloc(sel * sizeof(*bytes));
	bool *keep = calloc(n, sizeof(*keep));
	if (!bytes || !keep) {
		free(bytes);
		free(keep);
		return -ENOMEM;
	}
	size_t k = 0;
	for (uint32_t id = 0; id < n; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		if (f->flags & AN_FLOW_SELECTED)
			bytes[k++] = f->bytes;
	}
	/* the max-th most bytes: every flow above it, then the first seen of those at it */
	uint64_t at = kth_largest(bytes, sel, max - 1), above = 0;
	free(bytes);
	for (uint32_t id = 0; id < n; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		if ((f->flags & AN_FLOW_SELECTED) && f->bytes > at) {
			keep[id] = true;
			above++;
		}
	}
	for (uint32_t id = 0; id < n && above < max; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		if ((f->flags & AN_FLOW_SELECTED) && f->bytes == at) {
			keep[id] = true;
			above++;
		}
	}
	*listed = keep;
	return 0;
}

/* A string, or null. */
static void str_or_null(struct rt_json *j, const char *s)
{
	if (s)
		rt_json_str(j, s);
	else
		rt_json_null(j);
}

/* vantage_points and paths (analyze/README.md, "Vantage points"). */
static void vantage_json(const struct rt_analyzer *an, struct rt_json *j,
                         const struct an_vp_result *vr)
{
	const struct an_vantage *v = &an->vp;
	RT_JSON_KEY(j, "vantage_points");
	rt_json_arr(j);
	for (unsigned i = 0; i < v->nvp; i++) {
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_STR(j, "name", v->vp[i].name);
		RT_JSON_KEY(j, "files");
		rt_json_arr(j);
		for (unsigned k = 0; k < v->vp[i].nfiles; k++) {
			rt_json_next(j);
			rt_json_str(j, v->vp[i].files[k]);
		}
		rt_json_arr_end(j);
		RT_JSON_U64(j, "frames", v->vp[i].frames);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
	const struct an_vp_path *p = vr->path;
	unsigned n = vr->npaths;
	RT_JSON_KEY(j, "paths");
	rt_json_arr(j);
	for (unsigned i = 0; i < n; i++) {
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_STR(j, "from", v->vp[p[i].from].name);
		RT_JSON_STR(j, "to", v->vp[p[i].to].name);
		RT_JSON_U64(j, "matched", p[i].matched);
		RT_JSON_KEY(j, "offset_ns");
		if (p[i].offset_known)
			rt_json_i64(j, p[i].offset_ns);
		else
			rt_json_null(j);
		RT_JSON_KEY(j, "offset_null_reason");
		str_or_null(j, p[i].offset_known ? NULL : p[i].offset_null_reason);
		RT_JSON_KEY(j, "delay_ns");
		if (p[i].delay_known) {
			rt_json_obj(j);
			RT_JSON_KEY(j, "min");
			rt_json_i64(j, p[i].delay_min);
			RT_JSON_KEY(j, "median");
			rt_json_i64(j, p[i].delay_median);
			RT_JSON_KEY(j, "p99");
			rt_json_i64(j, p[i].delay_p99);
			rt_json_obj_end(j);
		} else {
			rt_json_null(j);
		}
		RT_JSON_KEY(j, "delay_null_reason");
		str_or_null(j, p[i].delay_known ? NULL : p[i].delay_null_reason);
		RT_JSON_BOOL(j, "delay_includes_offset", p[i].delay_includes_offset);
		RT_JSON_U64(j, "lost", p[i].lost);
		RT_JSON_U64(j, "judged", p[i].judged);
		RT_JSON_U64(j, "not_judged", p[i].not_judged);
		RT_JSON_KEY(j, "not_judged_reason");
		str_or_null(j, p[i].not_judged ? AN_VP_NOT_JUDGED : NULL);
		RT_JSON_U64(j, "ce_marked", p[i].ce_marked);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}

/* The document, its paths computed into vr. */
static void report(const struct rt_analyzer *an, struct rt_json *j, const bool *listed,
                   const struct an_vp_result *vr)
{
	const struct an_totals *t = &an->tot;
	rt_json_obj(j);
	RT_JSON_U64(j, "schema", RT_JSON_SCHEMA);
	RT_JSON_U64(j, "packets", t->c.packets);
	RT_JSON_U64(j, "roce_packets", t->c.roce_packets);
	RT_JSON_U64(j, "roce_bytes", t->c.roce_bytes);
	if (t->c.packets) {
		TS_NS(j, "start", an->first_ts);
		TS_NS(j, "end", an->last_ts);
	} else {
		RT_JSON_KEY(j, "start");
		rt_json_null(j);
		RT_JSON_KEY(j, "start_ns");
		rt_json_null(j);
		RT_JSON_KEY(j, "end");
		rt_json_null(j);
		RT_JSON_KEY(j, "end_ns");
		rt_json_null(j);
	}
	RT_JSON_U64(j, "bytes", t->c.bytes);
	RT_JSON_U64(j, "link_speed_bps", an->o.link_speed_bps);
	RT_JSON_U64(j, "flow_count", an->ft.next_id);
	totals_json(an, j);
	pfc_json(an, j);
	episodes_json(an, j);
	incast_json(an, j);
	if (an->side.counters_loaded)
		counters_json(&an->side, t, j);
	findings_json(an, j);
	vantage_json(an, j, vr);
	if (an->side.srclog_loaded) {
		RT_JSON_KEY(j, "source_log");
		rt_json_obj(j);
		RT_JSON_U64(j, "lines", an->side.srclog_lines);
		RT_JSON_U64(j, "bad_lines", an->side.srclog_bad);
		bool matched;
		RT_JSON_U64(j, "unmatched_events", an_side_srclog_unmatched(&an->side, &matched));
		rt_json_obj_end(j);
	}
	RT_JSON_KEY(j, "flows");
	rt_json_arr(j);
	bool first_flow = true;
	for (uint32_t id = 0; id < an->ft.next_id; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		if (!(f->flags & AN_FLOW_SELECTED) ||
		    (listed && !listed[id])) /* --flow, the page's bound */
			continue;
		rt_json_next(j);
		if (!first_flow) /* a flow a line */
			rt_out_char(j->o, '\n');
		first_flow = false;
		an_report_json_flow(an, j, f, vr);
	}
	rt_json_arr_end(j);
	rt_json_obj_end(j);
	rt_out_char(j->o, '\n');
}

int an_report_json(const struct rt_analyzer *an, struct rt_json *j, const bool *listed)
{
	struct an_vp_result *vr = malloc(sizeof(*vr));
	if (!vr || an_vp_compute(&an->vp, vr) < 0) {
		free(vr);
		return -ENOMEM;
	}
	report(an, j, listed, vr);
	an_vp_result_free(vr);
	free(vr);
	return 0;
}

struct json_sink {
	FILE *fp;
};

static int json_report(void *ctx, const struct rt_analyzer *an, char *errbuf)
{
	struct json_sink *s = ctx;
	struct rt_outbuf *o = malloc(sizeof(*o));
	struct rt_json j;
	if (!o)
		return rt_errorf(errbuf, ENOMEM, "writing the report");
	rt_out_init(o, s->fp);
	rt_json_init(&j, o);
	int err = an_report_json(an, &j, NULL);
	int ferr = rt_out_flush(o);
	free(o);
	if (err < 0)
		return rt_errorf(errbuf, -err, "writing the report");
	return ferr ? rt_errorf(errbuf, ferr, "writing the report") : 0;
}

static void json_free(void *ctx)
{
	free(ctx);
}

int rt_an_report_json_sink(FILE *fp, struct rt_an_sink *out, char *errbuf)
{
	struct json_sink *s = malloc(sizeof(*s));
	if (!s)
		return rt_errorf(errbuf, ENOMEM, "report");
	s->fp = fp;
	*out = (struct rt_an_sink){.report = json_report, .free = json_free, .ctx = s};
	return 0;
}
