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
	free(p->inc);
	p->macs = NULL;
	p->storms = NULL;
	p->inc = NULL;
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

static int by_first(const void *a, const void *b)
{
	const struct an_inc_mac *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * Class c's incident under way as it stands at `at` (its pauses still
 * running counted up to then) into *out: its MACs by their first XOFF,
 * the first AN_INC_MACS of them and the one that paused longest.
 */
static void incident(const struct an_pfc *p, unsigned c, uint64_t at, struct an_incident *out)
{
	const struct an_pfc_run *run = &p->run[c];
	memset(out, 0, sizeof(*out));
	out->cls = (uint8_t)c;
	out->start = run->start;
	out->end = at;
	struct an_inc_mac longest = {0};
	for (uint32_t i = 0; i < p->nmacs; i++) {
		const struct an_pfc_class *cl = &p->macs[i].cls[c];
		if (cl->inc_seq != run->seq)
			continue;
		struct an_inc_mac e = {
		    .first = cl->inc_first, .paused = cl->inc_paused, .longest = cl->inc_longest};
		memcpy(e.mac, p->macs[i].mac, 6);
		if (cl->paused) {
			uint64_t upto = at < cl->until ? at : cl->until;
			e.paused += upto > cl->from ? upto - cl->from : 0;
			if (upto > cl->run_start && upto - cl->run_start > e.longest)
				e.longest = upto - cl->run_start;
		}
		if (e.longest > longest.longest)
			longest = e;
		out->macs_total++;
		if (out->nmacs < AN_INC_MACS)
			out->macs[out->nmacs++] = e;
		else if (e.first < out->macs[AN_INC_MACS - 1].first)
			out->macs[AN_INC_MACS - 1] = e;
		qsort(out->macs, out->nmacs, sizeof(out->macs[0]), by_first);
	}
	bool named = false;
	for (uint32_t k = 0; k < out->nmacs; k++)
		named |= !memcmp(out->macs[k].mac, longest.mac, 6);
	if (!named && out->nmacs)
		out->macs[out->nmacs - 1] = longest;
}

/* Class c's incident ended at `end`: kept when it held a storm. */
static void incident_end(struct an_pfc *p, unsigned c, uint64_t end)
{
	if (!p->run[c].storm)
		return;
	if (p->ninc == AN_INCIDENTS_MAX) {
		p->inc_beyond++;
		return;
	}
	if (p->ninc == p->cap_inc) {
		uint32_t ncap = p->cap_inc ? p->cap_inc * 2 : 4;
		struct an_incident *ni = realloc(p->inc, ncap * sizeof(*ni));
		if (!ni) {
			p->inc_beyond++;
			return;
		}
		p->inc = ni;
		p->cap_inc = ncap;
	}
	incident(p, c, end, &p->inc[p->ninc++]);
}

unsigned an_pfc_ongoing(const struct an_pfc *p, uint64_t at, struct an_incident *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES && n < max; c++) {
		const struct an_pfc_run *run = &p->run[c];
		if (!run->active)
			continue;
		bool storm = run->storm;
		for (uint32_t i = 0; i < p->nmacs && !storm; i++) {
			const struct an_pfc_class *cl = &p->macs[i].cls[c];
			uint64_t upto = at < cl->until ? at : cl->until;
			storm = cl->paused && upto > cl->run_start &&
			        upto - cl->run_start >= p->storm_ns;
		}
		if (!storm)
			continue;
		incident(p, c, at, &out[n]);
		out[n++].ongoing = true;
	}
	return n;
}

static void end_run(struct an_pfc *p, struct an_pfc_mac *m, unsigned c, uint64_t end)
{
	struct an_pfc_class *cl = &m->cls[c];
	uint64_t len = end - cl->run_start;
	cl->paused = false;
	p->active--;
	if (len > cl->longest_ns) {
		cl->longest_ns = len;
		cl->longest_start = cl->run_start;
	}
	if (len > cl->inc_longest)
		cl->inc_longest = len;
	if (end > p->last_run_end)
		p->last_run_end = end;
	if (len >= p->storm_ns)
		p->run[c].storm = true;
	if (!--p->run[c].active)
		incident_end(p, c, end);
	if (len >= p->storm_ns) {
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
				cl->inc_paused += d;
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
		if (!cl->xoff++)
			cl->first_xoff = ts;
		p->xoff[c]++;
		if (!cl->paused) {
			struct an_pfc_run *run = &p->run[c];
			if (!run->active++) { /* a new incident of the class */
				run->seq++;
				run->start = ts;
				run->storm = false;
			}
			if (cl->inc_seq != run->seq) {
				cl->inc_seq = run->seq;
				cl->inc_first = ts;
				cl->inc_paused = cl->inc_longest = 0;
			}
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

void an_pfc_frame(struct an_pfc *p, const struct rt_record *rec, uint64_t now, int point,
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
	if (point >= 0 && point < 8)
		m->points |= (uint8_t)(1u << point);
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
