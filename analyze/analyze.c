/* Analyzer core: per-frame dispatch, request PSN tracking, responses (ACK/NAK/RNR), pairing, ECN and CNPs. */
#include "analyze/analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "dissect/opcodes.h"

void rt_analyzer_opts_init(struct rt_analyzer_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->link_speed_bps = 100000000000ull;
	opts->storm_ns = 100000000ull;
	opts->episode_gap_ns = 1000000ull;
	opts->rate_window_ns = 100000ull;
	opts->dup_window_ns = 10000ull;
	opts->udp_port = RT_ROCEV2_PORT;
}

struct rt_analyzer *rt_analyzer_new(const struct rt_analyzer_opts *opts, char *errbuf)
{
	struct rt_analyzer *an = calloc(1, sizeof(*an));
	if (!an) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "analyzer: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	an->o = *opts;
	if (!an->o.link_speed_bps)
		an->o.link_speed_bps = 100000000000ull;
	if (!an->o.episode_gap_ns)
		an->o.episode_gap_ns = 1000000ull;
	if (an->o.rate_window_ns < 4)
		an->o.rate_window_ns = 100000ull;
	if (!an->o.storm_ns)
		an->o.storm_ns = 100000000ull;
	an->tl_bucket = UINT64_MAX;
	an->dirty_head = AN_NONE;
	if (an_flows_init(an) < 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "analyzer: out of memory");
		rt_analyzer_free(an);
		errno = ENOMEM;
		return NULL;
	}
	if (an_dup_init(&an->dups, an->o.dup_window_ns) < 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "analyzer: out of memory");
		rt_analyzer_free(an);
		errno = ENOMEM;
		return NULL;
	}
	if (rt_flowsel_parse(&an->sel, an->o.flow) < 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "bad flow selector '%s' (want %s)", an->o.flow,
			 RT_FLOWSEL_FORMS);
		rt_analyzer_free(an);
		errno = EINVAL;
		return NULL;
	}
	if (an_tl_init(an, errbuf) < 0) {
		rt_analyzer_free(an);
		errno = EINVAL;
		return NULL;
	}
	return an;
}

void rt_analyzer_free(struct rt_analyzer *an)
{
	if (!an)
		return;
	an_flows_free(an);
	free(an->macs);
	free(an->storms);
	free(an->eps);
	free(an->cm);
	an_tl_free(an);
	an_side_free(an);
	an_dup_free(&an->dups);
	free(an);
}

uint64_t rt_analyzer_flow_count(const struct rt_analyzer *an)
{
	return an->next_id;
}

void rt_analyzer_totals(const struct rt_analyzer *an, struct rt_an_counts *out)
{
	*out = an->tot;
}

void rt_analyzer_interval(struct rt_analyzer *an, struct rt_an_counts *out, bool reset)
{
	*out = an->ivc;
	if (reset)
		memset(&an->ivc, 0, sizeof(an->ivc));
}

/* ---- pairing ---- */

static void try_pair(struct rt_analyzer *an, uint32_t ri, uint32_t psn, uint64_t ts, enum an_pairing how)
{
	struct an_flow *r = &an->flows[ri];
	if (r->pair_tries >= 64 && (r->pair_tries & 63)) {
		if (r->pair_tries < UINT16_MAX)
			r->pair_tries++;
		return;
	}
	if (r->pair_tries < UINT16_MAX)
		r->pair_tries++;
	uint32_t best = AN_NONE;
	uint64_t best_ts = 0;
	for (uint32_t fi = an_hosts_head(an, r->key.dst, r->key.src, r->key.ipver); fi != AN_NONE;
	     fi = an->flows[fi].next_hosts) {
		const struct an_flow *f = &an->flows[fi];
		if (fi == ri || f->reverse != AN_NONE || !f->has_req || f->first_ts > ts)
			continue;
		if (rt_psn_diff(psn, f->psn_lo) < 0 || rt_psn_diff(psn, f->psn_hi) > 1)
			continue;
		if (best == AN_NONE || f->last_req_ts > best_ts) {
			best = fi;
			best_ts = f->last_req_ts;
		}
	}
	if (best != AN_NONE)
		an_link(an, best, ri, how);
}

/* Append `ts` (and `frame`, once notes asked for frames) to a pending-event log of AN_PENDING_LOG entries. */
static void log_time(uint64_t **log, uint64_t **frames, uint32_t *n, uint64_t ts, uint64_t frame)
{
	if (!*log && !(*log = malloc(AN_PENDING_LOG * sizeof(**log))))
		return;
	if (frames && frame && !*frames)
		*frames = calloc(AN_PENDING_LOG, sizeof(**frames));
	if (*n < AN_PENDING_LOG) {
		if (frames && *frames)
			(*frames)[*n] = frame;
		(*log)[(*n)++] = ts;
	}
}

void an_cnp_settle(struct rt_analyzer *an, uint32_t data, uint32_t carrier)
{
	struct an_flow *d = &an->flows[data], *c = &an->flows[carrier];
	struct an_flow_ext *de = d->ext, *ce = c->ext;
	if (c->cnp_pending) {
		d->cnp_received += c->cnp_pending;
		d->iv.cnp += c->cnp_pending;
		an_tl_mark(an, d);
		an->cnp_unattributed -= c->cnp_pending;
		c->cnp_pending = 0;
	}
	/* NP reaction: the CE marks the data flow logged and the CNPs the carrier logged, in time order */
	if ((de && de->ce_log) || (ce && ce->cnp_log_n && (de = an_ext(d))))
		an_np_settle(de, ce);
	if (ce) {
		free(ce->cnp_log);
		ce->cnp_log = NULL;
		ce->cnp_log_n = 0;
	}
	if (de) { /* paired: CE marks go to the NP history and CNPs find this flow at once */
		free(de->ce_log);
		free(de->ce_log_frame);
		de->ce_log = de->ce_log_frame = NULL;
		de->ce_log_n = 0;
	}
}

/*
 * The data flow a CNP in flow ri throttles: its pair if known, else the flow
 * the other way whose sender QP (DETH, CM) is the CNP's destination QP, else
 * the only CE-marked unpaired flow the other way, else the only unpaired one.
 */
static uint32_t cnp_target(struct rt_analyzer *an, uint32_t ri)
{
	struct an_flow *r = &an->flows[ri];
	if (r->reverse != AN_NONE)
		return r->reverse;
	uint32_t only = AN_NONE, only_ce = AN_NONE;
	unsigned n = 0, n_ce = 0;
	for (uint32_t fi = an_hosts_head(an, r->key.dst, r->key.src, r->key.ipver); fi != AN_NONE;
	     fi = an->flows[fi].next_hosts) {
		const struct an_flow *f = &an->flows[fi];
		if (fi == ri || f->reverse != AN_NONE || !f->packets)
			continue;
		if (f->peer_qp == r->key.dest_qp) {
			an_link(an, fi, ri, AN_PAIR_CNP);
			return fi;
		}
		n++;
		only = fi;
		if (f->ecn[3]) {
			n_ce++;
			only_ce = fi;
		}
	}
	uint32_t pick = n_ce == 1 ? only_ce : n == 1 ? only : AN_NONE;
	if (pick != AN_NONE)
		an_link(an, pick, ri, AN_PAIR_CNP);
	return pick;
}

/* ---- per-packet handlers ---- */

static void handle_cnp(struct rt_analyzer *an, uint32_t ri, const struct rt_record *rec)
{
	uint64_t ts = rec->ts_ns;
	an->tot.cnp++;
	an->ivc.cnp++;
	an->tl_all.cnp++;
	an->flows[ri].cnp_sent++;
	uint32_t fi = cnp_target(an, ri);
	if (fi == AN_NONE) {
		/* counted on its data flow once a pairing names it (an_cnp_settle) */
		struct an_flow *r = &an->flows[ri];
		struct an_flow_ext *re = an_ext(r);
		an->cnp_unattributed++;
		r->cnp_pending++;
		if (re)
			log_time(&re->cnp_log, NULL, &re->cnp_log_n, ts, 0);
		an_ep_event(an, ts, r, AN_EV_CNP);
		return;
	}
	struct an_flow *f = &an->flows[fi];
	f->cnp_received++;
	f->iv.cnp++;
	an_tl_mark(an, f);
	struct an_flow_ext *e = an_ext(f);
	if (an->note)
		an->note->peer_flow_id = f->id;
	if (e) {
		uint64_t answers = an_np_cnp(e, ts);
		if (an->note)
			an->note->cnp_for_frame = answers;
		an_rp_cnp(an, f, ts);
	}
	an_ep_event(an, ts, f, AN_EV_CNP);
}

static void ackreq_push(struct an_flow *f, uint32_t psn, uint64_t ts)
{
	struct an_flow_ext *e = an_ext(f);
	if (!e)
		return;
	if (e->ar_count == AN_ACKRING) { /* oldest never answered: forget it */
		e->ar_head = (uint8_t)((e->ar_head + 1) % AN_ACKRING);
		e->ar_count--;
	}
	unsigned i = (e->ar_head + e->ar_count) % AN_ACKRING;
	e->ar_psn[i] = psn;
	e->ar_ts[i] = ts;
	e->ar_count++;
}

static void ackreq_ack(struct an_flow *f, uint32_t psn, uint64_t ts)
{
	struct an_flow_ext *e = f->ext;
	if (!e)
		return;
	while (e->ar_count && rt_psn_diff(e->ar_psn[e->ar_head], psn) <= 0) {
		if (ts >= e->ar_ts[e->ar_head])
			an_hist_addp(&e->rtt, ts - e->ar_ts[e->ar_head]);
		e->ar_head = (uint8_t)((e->ar_head + 1) % AN_ACKRING);
		e->ar_count--;
	}
}

static void handle_response(struct rt_analyzer *an, uint32_t ri, const struct rt_record *rec,
			    uint16_t opf)
{
	uint64_t ts = rec->ts_ns;
	an->flows[ri].responses++;
	bool has_aeth = (rec->hdrs & RT_H_AETH) != 0;
	uint8_t type = has_aeth ? (uint8_t)rt_aeth_type(rec->aeth_syndrome) : RT_AETH_ACK;
	if (an->flows[ri].reverse == AN_NONE && (has_aeth || (opf & RT_OPF_MIDDLE)))
		try_pair(an, ri, rec->psn, ts, (opf & RT_OPF_READ) ? AN_PAIR_RESPONSE : AN_PAIR_ACK);
	uint32_t fi = an->flows[ri].reverse;
	struct an_flow *f = fi != AN_NONE ? &an->flows[fi] : NULL;
	struct rt_an_note *note = an->note;
	if (note && f)
		note->peer_flow_id = f->id;
	if (!has_aeth)
		return;
	if (note && (type == RT_AETH_NAK || type == RT_AETH_RNR_NAK)) {
		note->flags |= type == RT_AETH_NAK ? RT_AN_NOTE_NAK : RT_AN_NOTE_RNR_NAK;
		note->nak_code = rec->aeth_syndrome & 0x1f;
	}
	if (type == RT_AETH_NAK) {
		an->tot.nak++;
		an->ivc.nak++;
		an->tl_all.nak++;
		if (!f) {
			an->nak_unattributed++;
			return;
		}
		f->naks_received++;
		f->iv.nak++;
		an_tl_mark(an, f);
		struct an_flow_ext *e = an_ext(f);
		if (e)
			e->nak_codes[rec->aeth_syndrome & 0x1f]++;
		/* only a PSN sequence error makes the requester go back; the other codes are fatal */
		if ((rec->aeth_syndrome & 0x1f) == 0) {
			f->nak_pending = 1;
			f->nak_psn = rec->psn;
			f->nak_ts = ts;
			if (e)
				e->nak_frame = an->tot.packets;
		}
	} else if (type == RT_AETH_RNR_NAK) {
		an->tot.rnr_nak++;
		an->ivc.rnr_nak++;
		if (!f) {
			an->nak_unattributed++;
			return;
		}
		f->rnr_naks_received++;
		f->nak_pending = 2;
		f->nak_psn = rec->psn;
		f->nak_ts = ts;
		struct an_flow_ext *e = an_ext(f);
		if (e)
			e->nak_frame = an->tot.packets;
	} else if (type == RT_AETH_ACK && f) {
		ackreq_ack(f, rec->psn, ts);
	}
}

static void count_retransmit(struct rt_analyzer *an, struct an_flow *f)
{
	f->retransmitted++;
	f->iv.retransmitted++;
	an->tot.retransmitted++;
	an->ivc.retransmitted++;
	an->tl_all.retransmitted++;
}

static void handle_request(struct rt_analyzer *an, struct an_flow *f, const struct rt_record *rec,
			   uint8_t tr, uint16_t opf)
{
	uint64_t ts = rec->ts_ns;
	uint32_t p = rec->psn & AN_PSN_MASK;
	f->requests++;
	/* path MTU from full-size first/middle packets */
	if ((opf & (RT_OPF_SEND | RT_OPF_WRITE)) && (opf & (RT_OPF_FIRST | RT_OPF_MIDDLE)) &&
	    rec->payload_len >= 256 && rec->payload_len <= 4096 &&
	    !(rec->payload_len & (rec->payload_len - 1)))
		f->pmtu = rec->payload_len;
	uint32_t span_min = 1, span_max = 1;
	if ((opf & RT_OPF_READ) && (rec->hdrs & RT_H_RETH)) {
		uint32_t len = rec->reth_len;
		if (f->pmtu) {
			span_min = span_max = len ? (uint32_t)((len + f->pmtu - 1) / f->pmtu) : 1;
		} else {
			span_max = len ? (uint32_t)(((uint64_t)len + 255) / 256) : 1;
		}
		if (span_max > AN_PSN_JUMP)
			span_max = AN_PSN_JUMP;
		if (span_min > span_max)
			span_min = span_max;
	}
	bool retrans = false, first = !f->has_req;
	uint32_t prev = f->last_psn;
	f->last_psn = p;
	if (first) {
		f->has_req = true;
		f->psn_lo = p;
	} else if (rt_psn_diff(p, f->next_psn) >= 0 && rt_psn_diff(p, f->next_psn_max) <= 0) {
		/* in order */
	} else if (rt_psn_diff(p, f->next_psn_max) > 0) {
		uint32_t gap = (uint32_t)rt_psn_diff(p, f->next_psn_max);
		if (gap > AN_PSN_JUMP) {
			f->psn_jumps++;
			f->psn_lo = p;
			if (an->note)
				an->note->flags |= RT_AN_NOTE_PSN_JUMP;
		} else {
			f->gaps++;
			f->gap_psns += gap;
			if (an->note)
				an->note->psn_gap = gap;
		}
	} else if ((uint32_t)-rt_psn_diff(p, f->next_psn) > AN_PSN_JUMP) {
		f->psn_jumps++;
		f->psn_lo = p;
		f->psn_hi = p;
		if (an->note)
			an->note->flags |= RT_AN_NOTE_PSN_JUMP;
	} else if (tr == RT_TR_UC) {
		f->duplicates++;
		if (an->note)
			an->note->flags |= RT_AN_NOTE_DUPLICATE;
		return;
	} else {
		retrans = true;
	}
	if (retrans) {
		count_retransmit(an, f);
		/* a resend run starts at the first backward PSN, or when a run goes back again */
		if (!f->in_retrans || rt_psn_diff(p, prev) <= 0) {
			f->in_retrans = true;
			struct an_flow_ext *e = an_ext(f);
			if (e)
				e->run_nak_frame = f->nak_pending ? e->nak_frame : 0;
			if (f->nak_pending == 2) {
				f->rnr_retries++;
				f->nak_pending = 0;
			} else if (f->nak_pending) {
				f->go_back_n++;
				if (e)
					an_hist_addp(&e->gbn_delay, ts - f->nak_ts);
				f->nak_pending = 0;
			} else {
				f->timeouts++;
				if (e)
					an_hist_addp(&e->timeout_gap, ts - f->last_req_ts);
			}
			if (e)
				e->ar_count = 0; /* Karn: no RTT from resent requests */
		}
		if (an->note) {
			an->note->flags |= RT_AN_NOTE_RETRANS;
			an->note->nak_frame = f->ext ? f->ext->run_nak_frame : 0;
		}
		f->last_req_ts = ts;
		return;
	}
	f->in_retrans = false;
	f->next_psn = (p + span_min) & AN_PSN_MASK;
	f->next_psn_max = (p + span_max) & AN_PSN_MASK;
	uint32_t hi = (p + span_max - 1) & AN_PSN_MASK;
	if (first || rt_psn_diff(hi, f->psn_hi) > 0)
		f->psn_hi = hi;
	if ((uint32_t)rt_psn_diff(f->psn_hi, f->psn_lo) > (1u << 22))
		f->psn_lo = (f->psn_hi - (1u << 22)) & AN_PSN_MASK;
	f->last_req_ts = ts;
	if (rec->ackreq && tr != RT_TR_UC)
		ackreq_push(f, p, ts);
}

static void handle_ud(struct rt_analyzer *an, uint32_t fi, const struct rt_record *rec)
{
	struct an_flow *f = &an->flows[fi];
	f->requests++;
	if (!(rec->hdrs & RT_H_DETH) || f->reverse != AN_NONE)
		return;
	uint32_t s = rec->deth_src_qp & AN_PSN_MASK;
	if (f->peer_qp == AN_NONE) {
		f->peer_qp = s;
		f->pairing = AN_PAIR_DETH;
	}
	struct an_key rk;
	an_key_from(&rk, f->key.ipver, f->key.dst, f->key.src, f->peer_qp);
	uint32_t ri = an_flow_get(an, &rk, false);
	if (ri == AN_NONE || ri == fi)
		return;
	struct an_flow *r = &an->flows[ri];
	if (r->reverse == AN_NONE && (r->peer_qp == AN_NONE || r->peer_qp == f->key.dest_qp))
		an_link(an, fi, ri, AN_PAIR_DETH);
}

/* A CE-marked packet of flow f (counted in its ECN codepoints here). */
static void count_ce(struct rt_analyzer *an, struct an_flow *f, const struct rt_record *rec)
{
	uint64_t ts = rec->ts_ns;
	f->ecn[3]++;
	an->ecn[3]++;
	an->tot.ce++;
	an->ivc.ce++;
	an->tl_all.ce++;
	if (an->tl_out) {
		f->iv.ce++;
		an_tl_mark(an, f); /* a copy's CE mark: its flow may have nothing else in this bucket */
	}
	/* an NP answers CE-marked data, never a CE-marked CNP: only data enters the NP history */
	struct an_flow_ext *e = rec->opcode != RT_OPCODE_CNP ? an_ext(f) : NULL;
	uint64_t frame = an->note ? an->tot.packets : 0;
	if (e) {
		e->ce_data++;
		if (f->reverse == AN_NONE) /* CNPs may name this flow only later */
			log_time(&e->ce_log, &e->ce_log_frame, &e->ce_log_n, ts, frame);
		else
			an_np_ce(e, ts, frame);
	}
	if (an->note)
		an->note->flags |= RT_AN_NOTE_CE;
	an_ep_event(an, ts, f, AN_EV_CE);
}

/*
 * A copy of a packet already counted (an_dup_check): counted apart on its
 * flow. A CE mark the packet picked up between the two capture points is
 * counted now, in place of the codepoint it was counted with.
 */
static void handle_copy(struct rt_analyzer *an, const struct rt_record *rec, const struct an_dup_hit *hit)
{
	struct an_key k;
	an_key_from(&k, rec->ip_version == 4 ? 4 : 6, rec->src_ip, rec->dst_ip, rec->dest_qp);
	uint32_t fi = an_flow_get(an, &k, false);
	if (an->note) {
		an->note->flags |= RT_AN_NOTE_COPY;
		an->note->copy_of_frame = hit->frame;
	}
	if (fi == AN_NONE)
		return;
	struct an_flow *f = &an->flows[fi];
	if (an->note)
		an->note->flow_id = f->id;
	f->duplicates++;
	if (hit->ecn != 3 && (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) && (rec->ecn & 3) == 3 &&
	    f->ecn[hit->ecn]) {
		f->ecn[hit->ecn]--;
		an->ecn[hit->ecn]--;
		count_ce(an, f, rec);
	}
}

static void handle_roce(struct rt_analyzer *an, const struct rt_record *rec)
{
	uint64_t ts = rec->ts_ns;
	an->tot.roce_packets++;
	an->ivc.roce_packets++;
	if (rec->icrc == RT_ICRC_BAD) {
		an->tot.icrc_bad++;
		an->ivc.icrc_bad++;
	}
	if (!rt_record_has_bth(rec))
		return;
	uint8_t ipver = rec->ip_version == 4 ? 4 : 6;
	struct an_key k;
	an_key_from(&k, ipver, rec->src_ip, rec->dst_ip, rec->dest_qp);
	uint32_t fi = an_flow_get(an, &k, true);
	if (fi == AN_NONE)
		return;
	struct an_flow *f = &an->flows[fi];
	if (f->id == AN_NONE)
		an_assign_id(an, fi);
	if (an->note)
		an->note->flow_id = f->id;
	if (!f->packets)
		f->first_ts = ts;
	an_rp_packet(an, f, ts, rec->wirelen);
	f->last_ts = ts;
	f->packets++;
	f->bytes += rec->wirelen;
	if (an->tl_out) {
		f->iv.packets++;
		f->iv.bytes += rec->wirelen;
		an_tl_mark(an, f);
	}
	f->dscp = rec->dscp;
	if (rec->nvlan) {
		f->pcp = rec->pcp[rec->nvlan - 1];
		f->tagged = true;
	}
	if (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) {
		unsigned ecn = rec->ecn & 3u;
		if (ecn == 3) {
			count_ce(an, f, rec);
		} else {
			f->ecn[ecn]++;
			an->ecn[ecn]++;
		}
	}
	if (rec->opcode == RT_OPCODE_CNP) {
		handle_cnp(an, fi, rec);
		return;
	}
	uint8_t tr = (uint8_t)rt_opcode_transport(rec->opcode);
	uint16_t opf = rt_opcode_flags(rec->opcode);
	if (f->transport == 0xff && tr != RT_TR_CNP)
		f->transport = tr;
	if (tr == RT_TR_UD) {
		handle_ud(an, fi, rec);
	} else if (tr == RT_TR_RC || tr == RT_TR_UC || tr == RT_TR_XRC) {
		if (opf & RT_OPF_RESP)
			handle_response(an, fi, rec, opf);
		else
			handle_request(an, f, rec, tr, opf);
	}
}

void rt_analyzer_feed(struct rt_analyzer *an, const struct rt_record *rec)
{
	uint64_t ts = rec->ts_ns;
	if (!an->tot.packets || ts < an->first_ts)
		an->first_ts = ts;
	if (ts > an->last_ts)
		an->last_ts = ts;
	if (ts > an->now)
		an->now = ts;
	an->tot.packets++;
	an->tot.bytes += rec->wirelen;
	an->ivc.packets++;
	an->ivc.bytes += rec->wirelen;
	if (an->tl_out)
		an_tl_advance(an, an->now);
	if (an->pfc_active && an->now >= an->pfc_next_expiry)
		an_pfc_advance(an, an->now);
	an_find_frame(an, rec);
	struct an_dup_hit hit;
	if (an->dups.nsets && (rec->kind == RT_KIND_ROCE || rec->kind == RT_KIND_CNP) && rt_record_has_bth(rec) &&
	    an_dup_check(an, rec, &hit)) {
		handle_copy(an, rec, &hit); /* counted once: the frame counts, the packet does not */
		return;
	}
	an_ep_packet(an, an->now, rec->wirelen);
	an->tl_all.packets++;
	an->tl_all.bytes += rec->wirelen;
	if (rec->truncated)
		an->truncated++;
	switch (rec->kind) {
	case RT_KIND_ROCE:
	case RT_KIND_CNP:
		handle_roce(an, rec);
		if (rec->layers & RT_L_CM)
			an_cm_mad(an, rec);
		break;
	case RT_KIND_PFC:
	case RT_KIND_PAUSE:
		an_pfc_frame(an, rec);
		break;
	case RT_KIND_MALFORMED:
		an->malformed++;
		break;
	default:
		an->other++;
		break;
	}
}

void rt_analyzer_feed_note(struct rt_analyzer *an, const struct rt_record *rec,
			   struct rt_an_note *note)
{
	memset(note, 0, sizeof(*note));
	note->frame = an->tot.packets + 1;
	note->flow_id = RT_AN_NONE;
	note->peer_flow_id = RT_AN_NONE;
	an->note = note;
	rt_analyzer_feed(an, rec);
	an->note = NULL;
}

/* Pair what only the end of the capture can pair: one unpaired flow each way between two hosts. */
static void pair_sole(struct rt_analyzer *an)
{
	for (uint32_t fi = 0; fi < an->nflows; fi++) {
		struct an_flow *f = &an->flows[fi];
		if (f->reverse != AN_NONE || !f->packets || f->peer_qp != AN_NONE)
			continue;
		uint32_t mine = 0, theirs = 0, cand = AN_NONE;
		for (uint32_t gi = an_hosts_head(an, f->key.src, f->key.dst, f->key.ipver); gi != AN_NONE;
		     gi = an->flows[gi].next_hosts)
			if (an->flows[gi].reverse == AN_NONE && an->flows[gi].packets)
				mine++;
		for (uint32_t gi = an_hosts_head(an, f->key.dst, f->key.src, f->key.ipver); gi != AN_NONE;
		     gi = an->flows[gi].next_hosts)
			if (an->flows[gi].reverse == AN_NONE && an->flows[gi].packets &&
			    an->flows[gi].peer_qp == AN_NONE) {
				theirs++;
				cand = gi;
			}
		if (mine == 1 && theirs == 1 && cand != fi &&
		    an->flows[cand].transport == f->transport && f->transport != RT_TR_UD)
			an_link(an, fi, cand, AN_PAIR_SOLE);
	}
}

int rt_analyzer_finish(struct rt_analyzer *an)
{
	int rc = an_tl_finish(an);
	an_pfc_advance(an, UINT64_MAX);
	an_ep_finish(an);
	pair_sole(an);
	for (uint32_t fi = 0; fi < an->nflows; fi++) {
		struct an_flow *f = &an->flows[fi];
		if (!f->ext)
			continue;
		an_rp_finish(f);
		an_np_finish(f->ext);
	}
	return rc;
}
