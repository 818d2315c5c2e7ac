/* PFC (802.1Qbb) and PAUSE (802.3x): XOFF/XON counts, paused time from quanta and link speed, storms. */
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"

/* Sending MACs tracked one by one; beyond this the last entry collects the rest. */
#define AN_MAX_MACS 4096

static struct an_pfc_mac *mac_get(struct rt_analyzer *an, const uint8_t mac[6])
{
	for (uint32_t i = 0; i < an->nmacs; i++)
		if (!memcmp(an->macs[i].mac, mac, 6))
			return &an->macs[i];
	if (an->nmacs == AN_MAX_MACS)
		return &an->macs[an->nmacs - 1];
	if (an->nmacs == an->cap_macs) {
		uint32_t ncap = an->cap_macs ? an->cap_macs * 2 : 8;
		struct an_pfc_mac *nm = realloc(an->macs, ncap * sizeof(*nm));
		if (!nm)
			return an->nmacs ? &an->macs[an->nmacs - 1] : NULL;
		an->macs = nm;
		an->cap_macs = ncap;
	}
	struct an_pfc_mac *m = &an->macs[an->nmacs++];
	memset(m, 0, sizeof(*m));
	memcpy(m->mac, mac, 6);
	return m;
}

static void end_run(struct rt_analyzer *an, struct an_pfc_mac *m, unsigned c, uint64_t end)
{
	struct an_pfc_class *cl = &m->cls[c];
	cl->paused = false;
	an->pfc_active--;
	if (end - cl->run_start >= an->o.storm_ns) {
		cl->storms++;
		if (an->nstorms == an->cap_storms) {
			uint32_t ncap = an->cap_storms ? an->cap_storms * 2 : 8;
			struct an_storm *ns = realloc(an->storms, ncap * sizeof(*ns));
			if (!ns)
				goto out;
			an->storms = ns;
			an->cap_storms = ncap;
		}
		struct an_storm *s = &an->storms[an->nstorms++];
		memcpy(s->mac, m->mac, 6);
		s->cls = (uint8_t)c;
		s->start = cl->run_start;
		s->end = end;
	}
out:
	an_ep_event(an, end, NULL, AN_EV_PAUSE_END);
}

void an_pfc_advance(struct rt_analyzer *an, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	if (!an->pfc_active) {
		an->pfc_next_expiry = next;
		return;
	}
	for (uint32_t i = 0; i < an->nmacs; i++) {
		struct an_pfc_mac *m = &an->macs[i];
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			struct an_pfc_class *cl = &m->cls[c];
			if (!cl->paused)
				continue;
			uint64_t e = now < cl->until ? now : cl->until;
			if (e > cl->from) {
				uint64_t d = e - cl->from;
				cl->paused_ns += d;
				an->tl_paused_ns += d;
				an_ep_paused(an, e, d);
				cl->from = e;
			}
			if (cl->until <= now)
				end_run(an, m, c, cl->until);
			else if (cl->until < next)
				next = cl->until;
		}
	}
	an->pfc_next_expiry = next;
}

static void class_frame(struct rt_analyzer *an, struct an_pfc_mac *m, unsigned c, uint16_t quanta,
			uint64_t ts)
{
	struct an_pfc_class *cl = &m->cls[c];
	uint64_t asked = rt_pause_ns(quanta, an->o.link_speed_bps);
	struct rt_an_note *note = an->note;
	if (note) {
		/* this frame replaces the class's running pause: an XON ends it, an XOFF restarts it */
		if (cl->note_frame && ts >= cl->note_ts && ts - cl->note_ts < cl->note_ns) {
			note->pause_cut |= (uint16_t)(1u << c);
			note->pause_cut_frame[c] = cl->note_frame;
			note->pause_cut_ns[c] = ts - cl->note_ts;
		}
		note->pause_classes |= (uint16_t)(1u << c);
		note->paused_ns[c] = asked;
		cl->note_frame = note->frame;
		cl->note_ts = ts;
		cl->note_ns = asked;
	}
	if (quanta) {
		cl->xoff++;
		an->tot.pfc_xoff[c]++;
		an->ivc.pfc_xoff[c]++;
		an->tl_pfc_xoff++;
		if (!cl->paused) {
			cl->paused = true;
			cl->run_start = ts;
			cl->from = ts;
			an->pfc_active++;
			an_ep_event(an, ts, NULL, AN_EV_XOFF);
		}
		cl->until = ts + asked;
	} else {
		cl->xon++;
		an->tot.pfc_xon[c]++;
		an->ivc.pfc_xon[c]++;
		if (cl->paused)
			end_run(an, m, c, ts);
	}
}

void an_pfc_frame(struct rt_analyzer *an, const struct rt_record *rec)
{
	uint64_t ts = an->now;
	bool pfc = rec->kind == RT_KIND_PFC;
	if (pfc)
		an->pfc_frames++;
	else
		an->pause_frames++;
	if (rec->events & RT_EV_MACC_TRUNCATED)
		return;
	an_pfc_advance(an, ts);
	struct an_pfc_mac *m = mac_get(an, rec->src_mac);
	if (!m)
		return;
	if (pfc) {
		for (unsigned c = 0; c < 8; c++)
			if (rec->pfc_enable & (1u << c))
				class_frame(an, m, c, rec->pfc_quanta[c], ts);
	} else {
		class_frame(an, m, RT_AN_PAUSE_CLASS, rec->pause_quanta, ts);
	}
	/* the expiry may have moved later (a refresh): recompute */
	an_pfc_advance(an, ts);
}
