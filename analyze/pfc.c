/* PFC (802.1Qbb) and PAUSE (802.3x): XOFF/XON counts, paused time from quanta and link speed, storms. */
#include "analyze/pfc.h"

#include <stdlib.h>
#include <string.h>

/* Sending MACs tracked one by one; beyond this the last entry collects the rest. */
#define AN_MAX_MACS 4096

void an_pfc_init(struct an_pfc *p, uint64_t link_speed_bps, uint64_t storm_ns,
                 struct an_episodes *ep)
{
	memset(p, 0, sizeof(*p));
	p->link_speed_bps = link_speed_bps;
	p->storm_ns = storm_ns;
	p->ep = ep;
	p->next_expiry = UINT64_MAX;
}

void an_pfc_free(struct an_pfc *p)
{
	free(p->macs);
	free(p->storms);
	p->macs = NULL;
	p->storms = NULL;
}

static struct an_pfc_mac *mac_get(struct an_pfc *p, const uint8_t mac[6])
{
	for (uint32_t i = 0; i < p->nmacs; i++)
		if (!memcmp(p->macs[i].mac, mac, 6))
			return &p->macs[i];
	if (p->nmacs == AN_MAX_MACS)
		return &p->macs[p->nmacs - 1];
	if (p->nmacs == p->cap_macs) {
		uint32_t ncap = p->cap_macs ? p->cap_macs * 2 : 8;
		struct an_pfc_mac *nm = realloc(p->macs, ncap * sizeof(*nm));
		if (!nm)
			return p->nmacs ? &p->macs[p->nmacs - 1] : NULL;
		p->macs = nm;
		p->cap_macs = ncap;
	}
	struct an_pfc_mac *m = &p->macs[p->nmacs++];
	memset(m, 0, sizeof(*m));
	memcpy(m->mac, mac, 6);
	return m;
}

static void end_run(struct an_pfc *p, struct an_pfc_mac *m, unsigned c, uint64_t end)
{
	struct an_pfc_class *cl = &m->cls[c];
	cl->paused = false;
	p->active--;
	if (end - cl->run_start >= p->storm_ns) {
		cl->storms++;
		if (p->nstorms == p->cap_storms) {
			uint32_t ncap = p->cap_storms ? p->cap_storms * 2 : 8;
			struct an_storm *ns = realloc(p->storms, ncap * sizeof(*ns));
			if (!ns)
				goto out;
			p->storms = ns;
			p->cap_storms = ncap;
		}
		struct an_storm *s = &p->storms[p->nstorms++];
		memcpy(s->mac, m->mac, 6);
		s->cls = (uint8_t)c;
		s->start = cl->run_start;
		s->end = end;
	}
out:
	an_ep_event(p->ep, end, NULL, AN_EP_PAUSE_END, p->active > 0);
}

void an_pfc_advance(struct an_pfc *p, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	if (!p->active) {
		p->next_expiry = next;
		return;
	}
	for (uint32_t i = 0; i < p->nmacs; i++) {
		struct an_pfc_mac *m = &p->macs[i];
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			struct an_pfc_class *cl = &m->cls[c];
			if (!cl->paused)
				continue;
			uint64_t e = now < cl->until ? now : cl->until;
			if (e > cl->from) {
				uint64_t d = e - cl->from;
				cl->paused_ns += d;
				p->paused_ns[c] += d;
				an_ep_paused(p->ep, e, d);
				cl->from = e;
			}
			if (cl->until <= now)
				end_run(p, m, c, cl->until);
			else if (cl->until < next)
				next = cl->until;
		}
	}
	p->next_expiry = next;
}

static void class_frame(struct an_pfc *p, struct an_pfc_mac *m, unsigned c, uint16_t quanta,
                        uint64_t ts, struct rt_an_note *note)
{
	struct an_pfc_class *cl = &m->cls[c];
	uint64_t asked = rt_pause_ns(quanta, p->link_speed_bps);
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
		p->xoff[c]++;
		if (!cl->paused) {
			cl->paused = true;
			cl->run_start = ts;
			cl->from = ts;
			p->active++;
			an_ep_event(p->ep, ts, NULL, AN_EP_XOFF, true);
		}
		cl->until = ts + asked;
	} else {
		cl->xon++;
		p->xon[c]++;
		if (cl->paused)
			end_run(p, m, c, ts);
	}
}

void an_pfc_frame(struct an_pfc *p, const struct rt_record *rec, uint64_t now,
                  struct rt_an_note *note)
{
	bool pfc = rec->kind == RT_KIND_PFC;
	if (pfc)
		p->pfc_frames++;
	else
		p->pause_frames++;
	if (rec->events & RT_EV_MACC_TRUNCATED)
		return;
	an_pfc_advance(p, now);
	struct an_pfc_mac *m = mac_get(p, rec->src_mac);
	if (!m)
		return;
	if (pfc) {
		for (unsigned c = 0; c < 8; c++)
			if (rec->pfc_enable & (1u << c))
				class_frame(p, m, c, rec->pfc_quanta[c], now, note);
	} else {
		class_frame(p, m, RT_AN_PAUSE_CLASS, rec->pause_quanta, now, note);
	}
	/* the expiry may have moved later (a refresh): recompute */
	an_pfc_advance(p, now);
}

uint64_t an_pfc_class_storms(const struct an_pfc *p, unsigned c)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < p->nmacs; i++)
		s += p->macs[i].cls[c].storms;
	return s;
}

void an_pfc_paused_at(const struct an_pfc *p, uint64_t at, uint64_t out[RT_AN_PFC_CLASSES])
{
	memcpy(out, p->paused_ns, sizeof(p->paused_ns));
	for (uint32_t i = 0; p->active && i < p->nmacs; i++)
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			const struct an_pfc_class *cl = &p->macs[i].cls[c];
			uint64_t e = at < cl->until ? at : cl->until;
			if (cl->paused && e > cl->from)
				out[c] += e - cl->from;
		}
}

uint64_t an_pfc_last_expiry(const struct an_pfc *p)
{
	uint64_t last = 0;
	for (uint32_t i = 0; p->active && i < p->nmacs; i++)
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++)
			if (p->macs[i].cls[c].paused && p->macs[i].cls[c].until > last)
				last = p->macs[i].cls[c].until;
	return last;
}
