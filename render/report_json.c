/* The JSON report sink: one document with every key analyze/README.md lists, through the common JSON writer. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analyze/results.h"
#include "common/satmath.h"
#include "common/json.h"
#include "render/report_json.h"
#include "render/report_json_values.h"
#include "render/sinks.h"

static void totals_json(const struct rt_results *r, struct rt_json *j)
{
	RT_JSON_KEY(j, "totals");
	rt_json_obj(j);
	RT_JSON_U64(j, "ce", r->c.ce);
	RT_JSON_U64(j, "cnp", r->c.cnp);
	RT_JSON_U64(j, "nak", r->c.nak);
	RT_JSON_U64(j, "rnr_nak", r->c.rnr_nak);
	RT_JSON_U64(j, "retransmitted", r->c.retransmitted);
	RT_JSON_U64(j, "icrc_bad", r->c.icrc_bad);
	RT_JSON_U64(j, "cnp_unattributed", r->cnp_unattributed);
	RT_JSON_U64(j, "nak_unattributed", r->nak_unattributed);
	RT_JSON_U64(j, "go_back_n", r->go_back_n);
	RT_JSON_U64(j, "timeouts", r->timeouts);
	RT_JSON_U64(j, "gaps", r->gaps);
	RT_JSON_U64(j, "gap_psns", r->gap_psns);
	RT_JSON_U64(j, "psn_jumps", r->psn_jumps);
	RT_JSON_U64(j, "malformed", r->malformed);
	RT_JSON_U64(j, "truncated", r->truncated);
	RT_JSON_U64(j, "other", r->other);
	RT_JSON_U64(j, "cm_pairs", r->cm_pairs);
	RT_JSON_KEY(j, "ecn");
	an_report_json_ecn(j, r->ecn);
	rt_json_obj_end(j);
}

static void pfc_json(const struct rt_results *r, struct rt_json *j)
{
	const struct rt_res_pfc_class *p = r->pfc;
	uint64_t xoff = 0, xon = 0;
	char nb[2];
	for (unsigned c = 0; c < 8; c++) {
		xoff += p[c].xoff;
		xon += p[c].xon;
	}
	RT_JSON_KEY(j, "pfc");
	rt_json_obj(j);
	RT_JSON_U64(j, "frames", r->pfc_frames);
	RT_JSON_U64(j, "xoff", xoff);
	RT_JSON_U64(j, "xon", xon);
	RT_JSON_KEY(j, "priorities");
	rt_json_obj(j);
	for (unsigned c = 0; c < 8; c++) {
		if (!p[c].xoff && !p[c].xon)
			continue;
		rt_json_key(j, rt_res_class_name(c, nb));
		rt_json_obj(j);
		RT_JSON_U64(j, "xoff", p[c].xoff);
		RT_JSON_U64(j, "xon", p[c].xon);
		RT_JSON_U64(j, "paused_ns", p[c].paused_ns);
		RT_JSON_U64(j, "storms", p[c].storms);
		rt_json_obj_end(j);
	}
	rt_json_obj_end(j);
	RT_JSON_KEY(j, "sources");
	rt_json_arr(j);
	for (uint32_t i = 0; i < r->npfc_sources; i++) {
		const struct rt_res_pfc_source *src = &r->pfc_sources[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_KEY(j, "mac");
		rt_json_mac(j, src->mac);
		RT_JSON_KEY(j, "priority");
		rt_json_str(j, rt_res_class_name(src->cls, nb));
		RT_JSON_U64(j, "xoff", src->xoff);
		RT_JSON_U64(j, "xon", src->xon);
		RT_JSON_U64(j, "paused_ns", src->paused_ns);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
	rt_json_obj_end(j);

	const struct rt_res_pfc_class *pause = &p[RT_AN_PAUSE_CLASS];
	RT_JSON_KEY(j, "pause");
	rt_json_obj(j);
	RT_JSON_U64(j, "frames", r->pause_frames);
	RT_JSON_U64(j, "xoff", pause->xoff);
	RT_JSON_U64(j, "xon", pause->xon);
	RT_JSON_U64(j, "paused_ns", pause->paused_ns);
	RT_JSON_U64(j, "storms", pause->storms);
	rt_json_obj_end(j);

	RT_JSON_KEY(j, "storms");
	rt_json_arr(j);
	for (uint32_t i = 0; i < r->nstorms; i++) {
		const struct rt_res_storm *s = &r->storms[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_KEY(j, "mac");
		rt_json_mac(j, s->mac);
		RT_JSON_KEY(j, "priority");
		rt_json_str(j, rt_res_class_name(s->cls, nb));
		TS_NS(j, "start", s->start_ns);
		TS_NS(j, "end", s->end_ns);
		RT_JSON_U64(j, "duration_ns", s->end_ns - s->start_ns);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}

static void episodes_json(const struct rt_results *r, struct rt_json *j)
{
	RT_JSON_KEY(j, "episodes");
	rt_json_arr(j);
	for (uint32_t i = 0; i < r->nepisodes; i++) {
		const struct rt_res_episode *ep = &r->episodes[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_TS(j, "start", ep->start_ns);
		RT_JSON_TS(j, "end", ep->end_ns);
		RT_JSON_U64(j, "start_ns", ep->start_ns);
		RT_JSON_U64(j, "end_ns", ep->end_ns);
		RT_JSON_U64(j, "duration_ns", ep->end_ns - ep->start_ns);
		RT_JSON_U64(j, "flow_count", ep->flow_count);
		RT_JSON_KEY(j, "flows");
		rt_json_arr(j);
		for (unsigned k = 0; k < ep->nflows; k++) {
			rt_json_next(j);
			rt_json_u64(j, ep->flows[k]);
		}
		rt_json_arr_end(j);
		RT_JSON_U64(j, "ce", ep->ce);
		RT_JSON_U64(j, "cnp", ep->cnp);
		RT_JSON_U64(j, "pfc_xoff", ep->pfc_xoff);
		RT_JSON_U64(j, "paused_ns", ep->paused_ns);
		NUM(j, "peak_ce_per_s", ep->peak_ce_per_s, 0, true);
		NUM(j, "gbps_before", ep->gbps_before, 3, true);
		NUM(j, "gbps_during", ep->gbps_during, 3, true);
		NUM(j, "gbps_after", ep->gbps_after, 3, true);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}

/* "ecn_off", "incast_null_reason", "incast" (with its "evidence"). */
static void incast_json(const struct rt_results *r, struct rt_json *j)
{
	RT_JSON_BOOL(j, "ecn_off", r->ecn_off);
	RT_JSON_KEY(j, "incast_null_reason");
	rt_json_str_or_null(j, r->incast_null_reason); /* set only when there is no incast */
	RT_JSON_KEY(j, "incast");
	if (!r->incast) {
		rt_json_null(j);
		return;
	}
	rt_json_obj(j);
	RT_JSON_KEY(j, "receiver");
	rt_json_ip(j, r->incast_ipver, r->incast_receiver);
	RT_JSON_U64(j, "senders", r->incast_senders);
	RT_JSON_U64(j, "flows", r->incast_flows);
	RT_JSON_U64(j, "bytes", r->incast_bytes);
	NUM(j, "gbps", r->incast_gbps, 6, true);
	RT_JSON_U64(j, "ce", r->incast_ce);
	RT_JSON_KEY(j, "evidence");
	rt_json_arr(j);
	for (unsigned k = 0; k < RT_INCAST_EVIDENCE_KINDS; k++)
		if (r->incast_evidence & (1u << k)) {
			rt_json_next(j);
			rt_json_name(j, rt_incast_evidence_name(k));
		}
	rt_json_arr_end(j);
	rt_json_obj_end(j);
}

/* A counter delta: null when unknown (a reset, or no device had the counter). */
static void delta_json(struct rt_json *j, const struct rt_res_counter_sum *v)
{
	an_json_num_or_null(j, v->value, 0, v->known);
}

static void counters_json(const struct rt_results *r, struct rt_json *j)
{
	RT_JSON_KEY(j, "counters");
	rt_json_obj(j);
	RT_JSON_U64(j, "lines", r->counter_lines);
	RT_JSON_U64(j, "bad_lines", r->counter_bad_lines);
	RT_JSON_KEY(j, "devices");
	rt_json_arr(j);
	for (size_t k = 0; k < r->ncounter_devs; k++) {
		const struct rt_res_counter_dev *d = &r->counter_devs[k];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_STR(j, "name", d->name);
		RT_JSON_U64(j, "samples", d->samples);
		RT_JSON_U64(j, "duration_ns", d->duration_ns);
		RT_JSON_KEY(j, "deltas");
		rt_json_obj(j);
		for (size_t i = 0; i < d->ncounters; i++) {
			rt_json_key(j, d->names[i]);
			an_json_num_or_null(j, d->deltas[i], 0, d->deltas[i] >= 0);
		}
		rt_json_obj_end(j);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
	RT_JSON_KEY(j, "cnp");
	rt_json_obj(j);
	RT_JSON_KEY(j, "np_cnp_sent");
	delta_json(j, &r->np_cnp_sent);
	RT_JSON_KEY(j, "rp_cnp_handled");
	delta_json(j, &r->rp_cnp_handled);
	RT_JSON_U64(j, "seen_on_wire", r->c.cnp);
	rt_json_obj_end(j);
	RT_JSON_KEY(j, "pfc");
	rt_json_obj(j);
	for (unsigned p = 0; p < 8; p++) {
		static const char *const keys[] = {"rx_pause", "tx_pause", "rx_pause_duration",
		                                   "tx_pause_duration"};
		const struct rt_res_counter_sum *v = r->counter_pause[p];
		if (!v[0].found && !v[1].found && !v[2].found && !v[3].found)
			continue;
		char prio[4];
		snprintf(prio, sizeof(prio), "%u", p);
		rt_json_key(j, prio);
		rt_json_obj(j);
		for (unsigned k = 0; k < 4; k++) {
			rt_json_key(j, keys[k]);
			delta_json(j, &v[k]);
		}
		rt_json_obj_end(j);
	}
	rt_json_obj_end(j);
	rt_json_obj_end(j);
}

/* "capture", "duplicates", "flow_limit" and "warnings": what is said about the capture itself. */
static void capture_json(const struct rt_results *r, struct rt_json *j)
{
	bool known = r->drops_source != NULL;
	RT_JSON_KEY(j, "capture");
	rt_json_obj(j);
	U64_OR_NULL(j, "dropped", rt_sat_add_u64(r->if_dropped, r->os_dropped), known);
	U64_OR_NULL(j, "if_dropped", r->if_dropped, known);
	U64_OR_NULL(j, "os_dropped", r->os_dropped, known);
	RT_JSON_KEY(j, "source");
	if (known)
		rt_json_name(j, r->drops_source);
	else
		rt_json_null(j);
	/* the snap length: frames cut after their headers (a fact), frames whose headers it cut */
	RT_JSON_U64(j, "icrc_unchecked", r->icrc_unchecked);
	RT_JSON_U64(j, "headers_cut", r->headers_cut);
	/* the time order: within a point (the time_backwards warning says when it hurts), across */
	RT_JSON_U64(j, "time_backwards", r->time_backwards);
	RT_JSON_U64(j, "time_backwards_max_ns", r->time_backwards_max_ns);
	RT_JSON_U64(j, "time_backwards_across_points", r->time_backwards_across);
	/* what stopped the reading (a file cut short, Ctrl-C): the figures cover the frames before it */
	RT_JSON_KEY(j, "input_error");
	rt_json_str_or_null(j, r->input_error);
	rt_json_obj_end(j);

	RT_JSON_KEY(j, "duplicates");
	if (r->dup_on) {
		rt_json_obj(j);
		RT_JSON_U64(j, "packets", r->dup_other_point + r->dup_same_point);
		RT_JSON_U64(j, "other_capture_point", r->dup_other_point);
		RT_JSON_U64(j, "same_capture_point", r->dup_same_point);
		RT_JSON_U64(j, "window_ns", r->dup_window_ns);
		RT_JSON_U64(j, "forgotten_early", r->dup_forgotten_early);
		rt_json_obj_end(j);
	} else {
		rt_json_null(j);
	}

	RT_JSON_KEY(j, "flow_limit");
	if (r->max_flows) {
		rt_json_obj(j);
		RT_JSON_U64(j, "max_flows", r->max_flows);
		RT_JSON_BOOL(j, "reached", r->max_flows_reached);
		RT_JSON_U64(j, "packets_beyond", r->packets_beyond);
		RT_JSON_U64(j, "bytes_beyond", r->bytes_beyond);
		rt_json_obj_end(j);
	} else {
		rt_json_null(j);
	}

	RT_JSON_KEY(j, "warnings");
	rt_json_arr(j);
	for (unsigned i = 0; i < r->nwarnings; i++) {
		const struct rt_an_warning *w = &r->warnings[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_KEY(j, "code");
		rt_json_name(j, w->code);
		RT_JSON_STR(j, "message", w->message);
		for (unsigned k = 0; k < w->nvalues; k++) {
			rt_json_key(j, w->values[k].name);
			rt_json_u64(j, w->values[k].value);
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

int an_report_flows_listed(const struct rt_results *r, uint64_t max, bool **listed,
                           uint64_t *selected)
{
	uint32_t n = r->nflows;
	uint64_t sel = r->nselected;
	*listed = NULL;
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
	for (uint32_t id = 0; id < n; id++)
		if (r->flows[id].selected)
			bytes[k++] = r->flows[id].bytes;
	/* the max-th most bytes: every flow above it, then the first seen of those at it */
	uint64_t at = kth_largest(bytes, sel, max - 1), above = 0;
	free(bytes);
	for (uint32_t id = 0; id < n; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (f->selected && f->bytes > at) {
			keep[id] = true;
			above++;
		}
	}
	for (uint32_t id = 0; id < n && above < max; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (f->selected && f->bytes == at) {
			keep[id] = true;
			above++;
		}
	}
	*listed = keep;
	return 0;
}

/* vantage_points and paths (analyze/README.md, "Vantage points"). */
static void vantage_json(const struct rt_results *r, struct rt_json *j)
{
	RT_JSON_KEY(j, "vantage_points");
	rt_json_arr(j);
	for (unsigned i = 0; i < r->nvantage; i++) {
		const struct rt_an_vantage *v = &r->vantage[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_STR(j, "name", v->name);
		RT_JSON_KEY(j, "files");
		rt_json_arr(j);
		for (unsigned k = 0; k < v->nfiles; k++) {
			rt_json_next(j);
			rt_json_str(j, v->files[k]);
		}
		rt_json_arr_end(j);
		RT_JSON_U64(j, "frames", v->frames);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
	RT_JSON_KEY(j, "paths");
	rt_json_arr(j);
	for (unsigned i = 0; i < r->npaths; i++) {
		const struct rt_res_path *p = &r->paths[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_STR(j, "from", p->from);
		RT_JSON_STR(j, "to", p->to);
		RT_JSON_U64(j, "matched", p->matched);
		RT_JSON_KEY(j, "offset_ns");
		if (p->offset_known)
			rt_json_i64(j, p->offset_ns);
		else
			rt_json_null(j);
		RT_JSON_KEY(j, "offset_null_reason");
		rt_json_str_or_null(j, p->offset_known ? NULL : p->offset_null_reason);
		RT_JSON_KEY(j, "delay_ns");
		if (p->delay_known) {
			rt_json_obj(j);
			RT_JSON_KEY(j, "min");
			rt_json_i64(j, p->delay_min);
			RT_JSON_KEY(j, "median");
			rt_json_i64(j, p->delay_median);
			RT_JSON_KEY(j, "p99");
			rt_json_i64(j, p->delay_p99);
			rt_json_obj_end(j);
		} else {
			rt_json_null(j);
		}
		RT_JSON_KEY(j, "delay_null_reason");
		rt_json_str_or_null(j, p->delay_known ? NULL : p->delay_null_reason);
		RT_JSON_BOOL(j, "delay_includes_offset", p->delay_includes_offset);
		RT_JSON_U64(j, "lost", p->lost);
		RT_JSON_U64(j, "judged", p->judged);
		RT_JSON_U64(j, "not_judged", p->not_judged);
		RT_JSON_KEY(j, "not_judged_reason");
		rt_json_str_or_null(j, p->not_judged_reason);
		RT_JSON_U64(j, "ce_marked", p->ce_marked);
		RT_JSON_KEY(j, "sample");
		rt_json_obj(j);
		RT_JSON_U64(j, "k", p->sample_k);
		RT_JSON_U64(j, "m", p->sample_m);
		rt_json_obj_end(j);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}

/* "verdict": its state and parts, each a sentence or null (analyze/README.md, "Verdict"). */
static void verdict_json(const struct rt_results *r, struct rt_json *j)
{
	const struct rt_verdict *v = &r->verdict;
	RT_JSON_KEY(j, "verdict");
	rt_json_obj(j);
	RT_JSON_KEY(j, "state");
	rt_json_name(j, rt_verdict_state_name(v->state));
	for (unsigned p = 0; p < RT_VERDICT_PARTS; p++) {
		rt_json_key(j, rt_verdict_part_name(p));
		rt_json_str_or_null(j, v->part[p][0] ? v->part[p] : NULL);
	}
	rt_json_obj_end(j);
}

void an_report_json(const struct rt_results *r, struct rt_json *j, const bool *listed)
{
	rt_json_obj(j);
	RT_JSON_U64(j, "schema", RT_JSON_SCHEMA);
	RT_JSON_U64(j, "packets", r->c.packets);
	RT_JSON_U64(j, "roce_packets", r->c.roce_packets);
	RT_JSON_U64(j, "roce_bytes", r->c.roce_bytes);
	if (r->any_frame) {
		TS_NS(j, "start", r->start_ns);
		TS_NS(j, "end", r->end_ns);
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
	RT_JSON_U64(j, "bytes", r->c.bytes);
	RT_JSON_U64(j, "link_speed_bps", r->link_speed_bps);
	RT_JSON_U64(j, "storm_threshold_ns", r->storm_ns);
	RT_JSON_U64(j, "flow_count", r->nflows);
	totals_json(r, j);
	pfc_json(r, j);
	episodes_json(r, j);
	incast_json(r, j);
	if (r->counters_loaded)
		counters_json(r, j);
	capture_json(r, j);
	vantage_json(r, j);
	if (r->source_log_loaded) {
		RT_JSON_KEY(j, "source_log");
		rt_json_obj(j);
		RT_JSON_U64(j, "lines", r->source_log_lines);
		RT_JSON_U64(j, "bad_lines", r->source_log_bad_lines);
		RT_JSON_U64(j, "unmatched_events", r->source_log_unmatched);
		rt_json_obj_end(j);
	}
	an_report_json_findings(r, j);
	verdict_json(r, j);
	RT_JSON_KEY(j, "flows");
	rt_json_arr(j);
	bool first_flow = true;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (!f->selected || (listed && !listed[id])) /* --flow, the page's bound */
			continue;
		rt_json_next(j);
		if (!first_flow) /* a flow a line */
			rt_out_char(j->o, '\n');
		first_flow = false;
		an_report_json_flow(r, j, f);
	}
	rt_json_arr_end(j);
	rt_json_obj_end(j);
	rt_out_char(j->o, '\n');
}

struct json_sink {
	FILE *fp;
};

static int json_report(void *ctx, const struct rt_results *r, char *errbuf)
{
	struct json_sink *s = ctx;
	struct rt_outbuf *o = malloc(sizeof(*o));
	struct rt_json j;
	if (!o)
		return rt_errorf(errbuf, ENOMEM, "writing the report");
	rt_out_init(o, s->fp);
	rt_json_init(&j, o);
	an_report_json(r, &j, NULL);
	int ferr = rt_out_flush(o);
	free(o);
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
