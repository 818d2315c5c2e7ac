/* ECN marks and CNPs: per-flow counts, the CNP's data flow, the NP and RP reactions, episodes. */
#include "analyze/ecn.h"

#include "analyze/reaction.h"
#include "dissect/opcodes.h"

void an_ecn_ce(struct an_ecn *e, uint32_t fi, const struct rt_record *rec, uint64_t frame,
               struct rt_an_note *note)
{
	struct an_flow *f = &e->ft->flows[fi];
	uint64_t ts = rec->ts_ns;
	if (!f->ecn[3]++)
		an_pair_first_ce(e->pair, fi);
	e->tot->ecn[3]++;
	e->tot->c.ce++;
	an_rp_links_on(e->rpx); /* CNPs follow marks: the links toward receivers matter now */
	an_bk_mark(e->bk, f,
	           fi); /* a copy's CE mark: its flow may have nothing else in this bucket */
	/* an NP answers CE-marked data, never a CE-marked CNP: only data enters the NP history */
	struct an_np *np = rec->opcode != RT_OPCODE_CNP ? an_np_of(f) : NULL;
	if (np) {
		np->ce_data++;
		if (f->reverse == AN_NONE) /* CNPs may name this flow only later */
			an_np_log_ce(np, ts, note ? frame : 0);
		else
			an_np_ce(np, ts, note ? frame : 0);
	}
	if (note)
		note->flags |= RT_AN_NOTE_CE;
	an_ep_event(e->ep, ts, f, AN_EP_CE, e->pfc->active > 0);
}

void an_ecn_cnp(struct an_ecn *e, uint32_t ri, const struct rt_record *rec, struct rt_an_note *note,
                int point, unsigned feed)
{
	uint64_t ts = rec->ts_ns;
	uint32_t fi = an_pair_cnp_target(e->pair, ri);
	if (!(feed & AN_FEED_COUNT)) { /* a copy at another point: the RP windows where followed */
		struct an_flow *f = fi != AN_NONE ? &e->ft->flows[fi] : NULL;
		if (f && (feed & AN_FEED_FOLLOW) && an_follows(&e->fw, f, point))
			an_rp_cnp(e->rpx, f, ts, point < 0 ? 0u : (unsigned)point);
		return;
	}
	e->tot->c.cnp++;
	e->ft->flows[ri].cnp_sent++;
	bool paused = e->pfc->active > 0;
	if (fi == AN_NONE) {
		/* counted on its data flow once a pairing names it (an_ecn_settle) */
		struct an_flow *r = &e->ft->flows[ri];
		struct an_np *rn = an_np_of(r);
		e->tot->cnp_unattributed++;
		if (rn) {
			rn->cnp_pending++;
			an_np_log_cnp(rn, ts);
		}
		an_ep_event(e->ep, ts, r, AN_EP_CNP, paused);
		return;
	}
	struct an_flow *f = &e->ft->flows[fi];
	f->cnp_received++;
	an_bk_mark(e->bk, f, fi);
	if (note)
		note->peer_flow_id = f->id;
	struct an_np *np = an_np_of(f);
	if (np) {
		uint64_t lag;
		uint64_t answers = an_np_cnp(np, ts, &lag);
		if (note) {
			note->cnp_for_frame = answers;
			note->cnp_delay_ns = answers ? lag : 0;
		}
		if ((feed & AN_FEED_FOLLOW) && an_follows(&e->fw, f, point))
			an_rp_cnp(e->rpx, f, ts, point < 0 ? 0u : (unsigned)point);
	}
	an_ep_event(e->ep, ts, f, AN_EP_CNP, paused);
}

void an_ecn_settle(void *ctx, uint32_t data, uint32_t carrier)
{
	struct an_ecn *e = ctx;
	struct an_flow *d = &e->ft->flows[data], *c = &e->ft->flows[carrier];
	struct an_np *dn = d->np, *cn = c->np;
	if (cn && cn->cnp_pending) {
		d->cnp_received += cn->cnp_pending;
		an_bk_mark(e->bk, d, data);
		e->tot->cnp_unattributed -= cn->cnp_pending;
		cn->cnp_pending = 0;
	}
	/* NP reaction: the CE marks the data flow logged and the CNPs the carrier logged, in time order */
	if (!dn && cn && cn->cnp_log.n)
		dn = an_np_of(d);
	an_np_settle(dn, cn);
}
