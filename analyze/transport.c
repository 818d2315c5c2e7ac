/* Per-flow transport: request PSN tracking, resends and their causes, responses (ACK/NAK/RNR), round trips, UD. */
#include "analyze/transport.h"

#include <stdlib.h>

#include "analyze/hist.h"
#include "dissect/opcodes.h"

/* A request with AckReq waits for its ACK; `frame` (0: none) is kept when a note asks for it. */
static void ackreq_push(struct an_flow *f, uint32_t psn, uint64_t ts, uint64_t frame)
{
	struct an_xport *x = an_xport(f);
	if (!x)
		return;
	if (frame && !x->ar_frame)
		x->ar_frame = calloc(AN_ACKRING, sizeof(*x->ar_frame)); /* NULL: no frame named */
	if (x->ar_count == AN_ACKRING) { /* oldest never answered: forget it */
		x->ar_head = (uint8_t)((x->ar_head + 1) % AN_ACKRING);
		x->ar_count--;
	}
	unsigned i = (x->ar_head + x->ar_count) % AN_ACKRING;
	x->ar_psn[i] = psn;
	x->ar_ts[i] = ts;
	if (x->ar_frame)
		x->ar_frame[i] = frame;
	x->ar_count++;
}

/* An ACK of `psn`: a round trip per request it acknowledges; the note gets the newest one. */
static void ackreq_ack(struct an_flow *f, uint32_t psn, uint64_t ts, struct rt_an_note *note)
{
	struct an_xport *x = f->x;
	if (!x)
		return;
	while (x->ar_count && rt_psn_diff(x->ar_psn[x->ar_head], psn) <= 0) {
		uint8_t i = x->ar_head;
		if (ts >= x->ar_ts[i]) {
			an_hist_addp(&x->rtt, ts - x->ar_ts[i]);
			if (note) {
				note->rtt_ns = ts - x->ar_ts[i];
				note->rtt_frame = x->ar_frame ? x->ar_frame[i] : 0;
			}
		}
		x->ar_head = (uint8_t)((i + 1) % AN_ACKRING);
		x->ar_count--;
	}
}

void an_tr_response(struct an_transport *t, uint32_t ri, const struct rt_record *rec, uint16_t opf,
                    uint64_t frame, struct rt_an_note *note, int point, unsigned feed)
{
	uint64_t ts = rec->ts_ns;
	struct an_flow *r = &t->ft->flows[ri];
	bool count = feed & AN_FEED_COUNT;
	if (count)
		r->responses++;
	bool has_aeth = (rec->hdrs & RT_H_AETH) != 0;
	uint8_t type = has_aeth ? (uint8_t)rt_aeth_type(rec->aeth_syndrome) : RT_AETH_ACK;
	if (count && r->reverse == AN_NONE && (has_aeth || (opf & RT_OPF_MIDDLE)))
		an_pair_response(t->pair, ri, rec->psn, ts,
		                 (opf & RT_OPF_READ) ? AN_PAIR_RESPONSE : AN_PAIR_ACK);
	uint32_t fi = t->ft->flows[ri].reverse;
	struct an_flow *f = fi != AN_NONE ? &t->ft->flows[fi] : NULL;
	/* the requester's round trips and the NAKs it acts on: from the point it is followed at */
	bool follow = f && (feed & AN_FEED_FOLLOW) && an_follows(&t->fw, f, point);
	if (count && note && f)
		note->peer_flow_id = f->id;
	if (!has_aeth)
		return;
	uint8_t code = rec->aeth_syndrome & 0x1f;
	if (count && note && (type == RT_AETH_NAK || type == RT_AETH_RNR_NAK)) {
		note->flags |= type == RT_AETH_NAK ? RT_AN_NOTE_NAK : RT_AN_NOTE_RNR_NAK;
		note->nak_code = code;
	}
	if (type == RT_AETH_ACK) {
		if (follow)
			ackreq_ack(f, rec->psn, ts, count ? note : NULL);
		return;
	}
	if (type != RT_AETH_NAK && type != RT_AETH_RNR_NAK)
		return;
	if (count)
		t->tot->c.nak += type == RT_AETH_NAK;
	if (count)
		t->tot->c.rnr_nak += type == RT_AETH_RNR_NAK;
	struct an_xport *x = f ? an_xport(f) : NULL;
	if (!x) {
		t->tot->nak_unattributed += count;
		return;
	}
	if (count && type == RT_AETH_NAK) {
		x->naks_received++;
		an_bk_mark(t->bk, f, fi);
		if (!x->nak_codes)
			x->nak_codes = calloc(32, sizeof(*x->nak_codes));
		if (x->nak_codes)
			x->nak_codes[code]++;
	} else if (count) {
		x->rnr_naks_received++;
		x->rnr_timer = code;
	}
	/* only a PSN sequence error makes the requester go back; the other codes are fatal */
	if (!follow || (type == RT_AETH_NAK && code != 0))
		return;
	f->nak_pending = type == RT_AETH_NAK ? AN_NAK_SEQ : AN_NAK_RNR;
	x->nak_psn = rec->psn;
	x->nak_ts = ts;
	x->nak_frame = frame;
}

/* A resent request: counted, and the start of a resend run tells what caused it. */
static void resend(struct an_transport *t, struct an_flow *f, uint32_t prev, uint32_t p,
                   const struct rt_record *rec, struct rt_an_note *note)
{
	struct an_xport *x = an_xport(f);
	uint64_t ts = rec->ts_ns;
	t->tot->c.retransmitted++;
	if (x) {
		x->retransmitted++;
		x->resend_ts = ts;
		x->retransmitted_bytes += rec->wirelen;
	}
	/* a resend run starts at the first backward PSN, or when a run goes back again */
	if (!(f->flags & AN_FLOW_IN_RETRANS) || rt_psn_diff(p, prev) <= 0) {
		f->flags |= AN_FLOW_IN_RETRANS;
		if (x) {
			uint64_t since = f->nak_pending ? x->nak_ts : f->last_req_ts;
			/* a wait from a later frame (the capture's time went backwards) is unknown:
			 * no sample, and no wait in the note */
			bool known = ts >= since;
			uint64_t wait = known ? ts - since : 0;
			x->run_nak_frame = f->nak_pending ? x->nak_frame : 0;
			if (f->nak_pending == AN_NAK_RNR) {
				x->rnr_retries++;
				if (known)
					an_hist_addp(&x->rnr_wait, wait);
			} else if (f->nak_pending) {
				x->go_back_n++;
				if (known)
					an_hist_addp(&x->gbn_delay, wait);
			} else {
				x->timeouts++;
				if (known)
					an_hist_addp(&x->timeout_gap, wait);
			}
			x->ar_count = 0; /* Karn: no RTT from resent requests */
			if (note)
				note->resend_wait_ns = wait;
		}
		f->nak_pending = AN_NAK_NONE;
	}
	if (note) {
		note->flags |= RT_AN_NOTE_RETRANS;
		note->nak_frame = x ? x->run_nak_frame : 0;
	}
	f->last_req_ts = ts;
}

/*
 * A request from before the flow's previous one (the capture's time went
 * backwards) whose PSN the latest gap is missing: a frame the capture put
 * out of time order (frames of several queues or interfaces written late),
 * not a resend. It fills the gap: one PSN less missing, the gap gone once
 * all came.
 */
static bool late_in_gap(struct an_flow *f, uint32_t p, uint32_t span, uint64_t ts)
{
	struct an_xport *x = f->x;
	uint32_t at = x ? (uint32_t)rt_psn_diff(p, x->gap_lo) : 0;
	if (!x || !x->gap_open || ts >= f->last_req_ts || at >= x->gap_open)
		return false;
	if (span > x->gap_open - at)
		span = x->gap_open - at; /* a READ's PSNs: those in the gap */
	x->gap_psns -= span;
	if (at == 0 || at + span == x->gap_open) {
		if (at == 0)
			x->gap_lo = (x->gap_lo + span) & AN_PSN_MASK;
		x->gap_open -= span;
		if (!x->gap_open) { /* all of it came: no gap, and the RP windows' latest is the one before */
			x->gaps--;
			x->gap_ts = x->gap_ts_before;
		}
	} else {
		x->gap_open = 0; /* came in its middle: what is left of it is no longer followed */
	}
	return true;
}

void an_tr_request(struct an_transport *t, uint32_t fi, const struct rt_record *rec, uint8_t tr,
                   uint16_t opf, struct rt_an_note *note, int point, unsigned feed)
{
	struct an_flow *f = &t->ft->flows[fi];
	uint64_t ts = rec->ts_ns;
	uint32_t p = rec->psn & AN_PSN_MASK;
	if (feed & AN_FEED_COUNT)
		f->requests++;
	/* the PSN order, resends, round trips: from the point the flow is followed at */
	if (!(feed & AN_FEED_FOLLOW) || !an_follows(&t->fw, f, point)) {
		if (f->reverse == AN_NONE)
			an_pair_request(t->pair, fi);
		return;
	}
	if (!(feed & AN_FEED_COUNT))
		note = NULL; /* a copy: its note says so, nothing more */
	/* path MTU from full-size first/middle packets */
	if ((opf & (RT_OPF_SEND | RT_OPF_WRITE)) && (opf & (RT_OPF_FIRST | RT_OPF_MIDDLE)) &&
	    rec->payload_len >= 256 && rec->payload_len <= 4096 &&
	    !(rec->payload_len & (rec->payload_len - 1)))
		f->pmtu = (uint16_t)rec->payload_len;
	uint32_t span_min = 1, span_max = 1;
	if ((opf & RT_OPF_READ) && (rec->hdrs & RT_H_RETH)) {
		uint32_t len = rec->reth_len;
		if (f->pmtu)
			span_min = span_max = len ? (uint32_t)((len + f->pmtu - 1) / f->pmtu) : 1;
		else
			span_max = len ? (uint32_t)(((uint64_t)len + 255) / 256) : 1;
		if (span_max > AN_PSN_JUMP)
			span_max = AN_PSN_JUMP;
		if (span_min > span_max)
			span_min = span_max;
	}
	bool first = !(f->flags & AN_FLOW_HAS_REQ);
	uint32_t prev = f->last_psn;
	f->last_psn = p;
	if (first) {
		f->flags |= AN_FLOW_HAS_REQ;
		f->psn_lo = p;
	} else if (rt_psn_diff(p, f->next_psn) >= 0 && rt_psn_diff(p, f->next_psn_max) <= 0) {
		/* in order */
	} else if (rt_psn_diff(p, f->next_psn_max) > 0) {
		uint32_t gap = (uint32_t)rt_psn_diff(p, f->next_psn_max);
		struct an_xport *x = an_xport(f);
		if (gap > AN_PSN_JUMP) {
			if (x)
				x->psn_jumps++;
			f->psn_lo = p;
			if (note)
				note->flags |= RT_AN_NOTE_PSN_JUMP;
		} else {
			if (x) {
				x->gaps++;
				x->gap_psns += gap;
				x->gap_ts_before = x->gap_ts;
				x->gap_ts = rec->ts_ns;
				x->gap_lo = f->next_psn_max;
				x->gap_open = gap;
			}
			if (note)
				note->psn_gap = gap;
		}
	} else if ((uint32_t)-rt_psn_diff(p, f->next_psn) > AN_PSN_JUMP) {
		struct an_xport *x = an_xport(f);
		if (x)
			x->psn_jumps++;
		f->psn_lo = p;
		f->psn_hi = p;
		if (note)
			note->flags |= RT_AN_NOTE_PSN_JUMP;
	} else if (tr == RT_TR_UC) {
		struct an_xport *x = an_xport(f);
		if (x)
			x->duplicates++;
		if (note)
			note->flags |= RT_AN_NOTE_DUPLICATE;
		return;
	} else if (late_in_gap(f, p, span_min, ts)) {
		f->last_psn = prev; /* the capture's order, not the sender's: no resend */
		return;
	} else {
		resend(t, f, prev, p, rec, note);
		if (f->reverse == AN_NONE)
			an_pair_request(t->pair, fi);
		return;
	}
	f->flags &= (uint16_t)~AN_FLOW_IN_RETRANS;
	f->next_psn = (p + span_min) & AN_PSN_MASK;
	f->next_psn_max = (p + span_max) & AN_PSN_MASK;
	uint32_t hi = (p + span_max - 1) & AN_PSN_MASK;
	if (first || rt_psn_diff(hi, f->psn_hi) > 0)
		f->psn_hi = hi;
	if ((uint32_t)rt_psn_diff(f->psn_hi, f->psn_lo) > (1u << 22))
		f->psn_lo = (f->psn_hi - (1u << 22)) & AN_PSN_MASK;
	f->last_req_ts = ts;
	if (rec->ackreq && tr != RT_TR_UC)
		ackreq_push(f, p, ts, note ? note->frame : 0);
	if (f->reverse == AN_NONE)
		an_pair_request(t->pair, fi);
}

void an_tr_ud(struct an_transport *t, uint32_t fi, const struct rt_record *rec)
{
	struct an_flow *f = &t->ft->flows[fi];
	f->requests++;
	if ((rec->hdrs & RT_H_DETH) && f->reverse == AN_NONE)
		an_pair_deth(t->pair, fi, rec->deth_src_qp);
}
