/* PFC (802.1Qbb) and PAUSE (802.3x): XOFF/XON counts, paused time from quanta and link speed, storms, incidents. */
#include "analyze/pfc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	free(p->mac_slots);
	free(p->runs);
	free(p->ended);
	free(p->storms);
	free(p->inc);
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		free(p->run[c].members);
		p->run[c].members = NULL;
	}
	p->macs = NULL;
	p->mac_slots = NULL;
	p->runs = p->ended = NULL;
	p->storms = NULL;
	p->inc = NULL;
}

/* ---- sending MACs: an array in the order they came, found through a hash table ---- */

static uint32_t mac_hash(const uint8_t mac[6])
{
	uint64_t v = 0;
	memcpy(&v, mac, 6);
	return (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> 32);
}

/* The table slot holding `mac`, or the empty one where it would go. */
static uint32_t *mac_slot(const struct an_pfc *p, const uint8_t mac[6])
{
	uint32_t mask = p->nslots - 1;
	for (uint32_t i = mac_hash(mac) & mask;; i = (i + 1) & mask) {
		uint32_t *s = &p->mac_slots[i];
		if (!*s || !memcmp(p->macs[*s - 1].mac, mac, 6))
			return s;
	}
}

/* Room for one more MAC: in the array, in the running pauses (sized by it), in a table kept at most half full. */
static bool mac_room(struct an_pfc *p)
{
	if (p->nmacs == p->cap_macs) {
		uint32_t ncap = p->cap_macs ? p->cap_macs * 2 : 8;
		size_t nruns = (size_t)ncap * RT_AN_PFC_CLASSES;
		struct an_pfc_mac *nm = realloc(p->macs, ncap * sizeof(*nm));
		if (nm)
			p->macs = nm;
		uint32_t *nr = nm ? realloc(p->runs, nruns * sizeof(*nr)) : NULL;
		if (nr)
			p->runs = nr;
		uint32_t *ne = nr ? realloc(p->ended, nruns * sizeof(*ne)) : NULL;
		if (!ne)
			return false; /* what grew stays grown, unused until the next try */
		p->ended = ne;
		p->cap_macs = ncap;
	}
	if (2 * (p->nmacs + 1) > p->nslots) {
		uint32_t n = p->nslots ? p->nslots * 2 : 16;
		uint32_t *slots = calloc(n, sizeof(*slots));
		if (!slots)
			return false;
		free(p->mac_slots);
		p->mac_slots = slots;
		p->nslots = n;
		for (uint32_t i = 0; i < p->nmacs; i++)
			*mac_slot(p, p->macs[i].mac) = i + 1;
	}
	return true;
}

struct an_pfc_mac *an_pfc_mac_get(struct an_pfc *p, const uint8_t mac[6], uint64_t ts)
{
	if (p->nslots) {
		uint32_t *s = mac_slot(p, mac);
		if (*s)
			return &p->macs[*s - 1];
	}
	if (p->nmacs == AN_PFC_MACS)
		return &p->macs[p->nmacs - 1];
	if (!mac_room(p))
		return p->nmacs ? &p->macs[p->nmacs - 1] : NULL;
	struct an_pfc_mac *m = &p->macs[p->nmacs++];
	memset(m, 0, sizeof(*m));
	memcpy(m->mac, mac, 6);
	m->first_ts = ts;
	*mac_slot(p, mac) = p->nmacs;
	return m;
}

/* ---- the running pauses: a binary heap by end, of mac index * RT_AN_PFC_CLASSES + class ---- */

static struct an_pfc_class *run_class(const struct an_pfc *p, uint32_t run)
{
	return &p->macs[run / RT_AN_PFC_CLASSES].cls[run % RT_AN_PFC_CLASSES];
}

static uint64_t run_end(const struct an_pfc *p, uint32_t at)
{
	return run_class(p, p->runs[at])->until;
}

static void run_put(struct an_pfc *p, uint32_t at, uint32_t run)
{
	p->runs[at] = run;
	run_class(p, run)->run_at = at;
}

/* The run at `at` moved toward the top or the bottom while its end is out of order. */
static void run_sift(struct an_pfc *p, uint32_t at)
{
	uint32_t run = p->runs[at];
	uint64_t end = run_class(p, run)->until;
	while (at && run_end(p, (at - 1) / 2) > end) {
		run_put(p, at, p->runs[(at - 1) / 2]);
		at = (at - 1) / 2;
	}
	for (;;) {
		uint32_t l = 2 * at + 1, m = l;
		if (l >= p->active)
			break;
		if (l + 1 < p->active && run_end(p, l + 1) < run_end(p, l))
			m = l + 1;
		if (run_end(p, m) >= end)
			break;
		run_put(p, at, p->runs[m]);
		at = m;
	}
	run_put(p, at, run);
}

static void run_add(struct an_pfc *p, uint32_t run)
{
	unsigned c = run % RT_AN_PFC_CLASSES;
	p->runs[p->active] = run;
	run_sift(p, p->active++);
	p->running[c]++;
	p->running_classes |= (uint16_t)(1u << c);
}

static void run_remove(struct an_pfc *p, uint32_t run)
{
	unsigned c = run % RT_AN_PFC_CLASSES;
	uint32_t at = run_class(p, run)->run_at, last = p->runs[--p->active];
	if (at < p->active) {
		run_put(p, at, last);
		run_sift(p, at);
	}
	if (!--p->running[c])
		p->running_classes &= (uint16_t) ~(1u << c);
}

/* ---- pause incidents of a class: their MACs listed as they join ---- */

/* MAC index mi pauses class c: it joins the class's incident, which starts when none paused it. */
static void incident_join(struct an_pfc *p, uint32_t mi, unsigned c, uint64_t ts)
{
	struct an_pfc_run *run = &p->run[c];
	struct an_pfc_class *cl = &p->macs[mi].cls[c];
	if (!run->active++) {
		run->seq++;
		run->start = run->end = ts;
		run->storm = false;
		run->nmembers = run->joined = 0;
	}
	if (cl->inc_seq == run->seq)
		return;
	cl->inc_seq = run->seq;
	cl->inc_first = ts;
	cl->inc_paused = cl->inc_longest = 0;
	run->joined++;
	if (run->nmembers == run->cap_members) {
		uint32_t ncap = run->cap_members ? run->cap_members * 2 : 8;
		uint32_t *nm = realloc(run->members, ncap * sizeof(*nm));
		if (!nm)
			return; /* counted in joined, not named */
		run->members = nm;
		run->cap_members = ncap;
	}
	run->members[run->nmembers++] = mi;
}

void an_pfc_inc_name(struct an_incident *out, const struct an_inc_mac *e)
{
	uint32_t k = out->nmacs < AN_INC_MACS ? out->nmacs++ : AN_INC_MACS;
	while (k && out->macs[k - 1].first > e->first) {
		if (k < AN_INC_MACS)
			out->macs[k] = out->macs[k - 1];
		k--;
	}
	if (k < AN_INC_MACS)
		out->macs[k] = *e;
}

void an_pfc_inc_name_longest(struct an_incident *out, const struct an_inc_mac *longest)
{
	bool named = false;
	for (uint32_t k = 0; k < out->nmacs; k++)
		named |= !memcmp(out->macs[k].mac, longest->mac, 6);
	if (!named && out->nmacs)
		out->macs[out->nmacs - 1] = *longest;
}

/*
 * Class c's incident as it stands at `at` (its pauses still running counted
 * up to then) into *out: its MACs by their first XOFF, the first
 * AN_INC_MACS of them and the one that paused longest.
 */
static void incident(const struct an_pfc *p, unsigned c, uint64_t at, struct an_incident *out)
{
	const struct an_pfc_run *run = &p->run[c];
	memset(out, 0, sizeof(*out));
	out->cls = (uint8_t)c;
	out->start = run->start;
	out->end = at;
	out->macs_total = run->joined;
	struct an_inc_mac longest = {0};
	for (uint32_t i = 0; i < run->nmembers; i++) {
		const struct an_pfc_mac *m = &p->macs[run->members[i]];
		const struct an_pfc_class *cl = &m->cls[c];
		struct an_inc_mac e = {
		    .first = cl->inc_first, .paused = cl->inc_paused, .longest = cl->inc_longest};
		memcpy(e.mac, m->mac, 6);
		if (cl->paused) {
			uint64_t upto = at < cl->until ? at : cl->until;
			uint64_t len = upto > cl->run_start ? upto - cl->run_start : 0;
			e.paused += len;
			if (len > e.longest)
				e.longest = len;
		}
		if (e.longest > longest.longest)
			longest = e;
		an_pfc_inc_name(out, &e);
	}
	an_pfc_inc_name_longest(out, &longest);
}

/* A pause of class c ended at `end`: when it was the incident's last, the incident is kept if it held a storm. */
static void incident_leave(struct an_pfc *p, unsigned c, uint64_t end)
{
	struct an_pfc_run *run = &p->run[c];
	if (end > run->end)
		run->end = end;
	if (--run->active || !run->storm)
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
	incident(p, c, run->end, &p->inc[p->ninc++]);
}

unsigned an_pfc_ongoing(const struct an_pfc *p, uint64_t at, struct an_incident *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES && n < max; c++) {
		const struct an_pfc_run *run = &p->run[c];
		if (!run->active)
			continue;
		bool storm = run->storm;
		for (uint32_t i = 0; i < run->nmembers && !storm; i++) {
			const struct an_pfc_class *cl = &p->macs[run->members[i]].cls[c];
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

/* A run, out of the heap, ended at `end`; `paused`: other pauses still run. */
static void end_run(struct an_pfc *p, uint32_t run, uint64_t end, bool paused)
{
	struct an_pfc_mac *m = &p->macs[run / RT_AN_PFC_CLASSES];
	unsigned c = run % RT_AN_PFC_CLASSES;
	struct an_pfc_class *cl = &m->cls[c];
	uint64_t len = end - cl->run_start;
	cl->paused = false;
	cl->paused_ns += len; /* counted continuously from its start */
	cl->inc_paused += len;
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
	incident_leave(p, c, end);
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
	if (p->ep)
		an_ep_event(p->ep, end, NULL, AN_EP_PAUSE_END, paused);
}

static int by_run(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

void an_pfc_advance(struct an_pfc *p, uint64_t now)
{
	if (!p->active) {
		p->next_expiry = UINT64_MAX;
		return;
	}
	/* the pauses that ended by now, in sending MAC and class order (storms are listed so) */
	uint32_t n = 0;
	while (p->active && run_end(p, 0) <= now) {
		p->ended[n++] = p->runs[0];
		run_remove(p, p->runs[0]);
	}
	if (n > 1)
		qsort(p->ended, n, sizeof(*p->ended), by_run);
	for (uint32_t k = 0; k < n; k++) {
		struct an_pfc_class *cl = run_class(p, p->ended[k]);
		if (cl->until > p->accounted) {
			uint64_t d = cl->until - p->accounted;
			p->paused_ns[p->ended[k] % RT_AN_PFC_CLASSES] += d;
			if (p->ep)
				an_ep_paused(p->ep, cl->until, d);
		}
		end_run(p, p->ended[k], cl->until, p->active + (n - k - 1) > 0);
	}
	/* the others run on to now: each of a class adds the same time */
	if (now > p->accounted) {
		uint64_t d = now - p->accounted, all = 0;
		for (unsigned m = p->running_classes; m; m &= m - 1) {
			unsigned c = (unsigned)__builtin_ctz(m);
			p->paused_ns[c] += d * p->running[c];
			all += d * p->running[c];
		}
		if (all && p->ep)
			an_ep_paused(p->ep, now, all);
		p->accounted = now;
	}
	p->next_expiry = p->active ? run_end(p, 0) : UINT64_MAX;
}

static void class_frame(struct an_pfc *p, struct an_pfc_mac *m, unsigned c, uint16_t quanta,
                        uint64_t ts, struct rt_an_note *note)
{
	struct an_pfc_class *cl = &m->cls[c];
	uint32_t run = (uint32_t)(m - p->macs) * RT_AN_PFC_CLASSES + c;
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
		cl->until = ts + asked;
		if (cl->paused) {
			run_sift(p, cl->run_at); /* its end moved */
			return;
		}
		incident_join(p, run / RT_AN_PFC_CLASSES, c, ts);
		cl->paused = true;
		cl->run_start = ts;
		if (!p->active)
			p->accounted =
			    ts; /* (while pauses run, an_pfc_frame counted them up to ts) */
		run_add(p, run);
		if (p->ep)
			an_ep_event(p->ep, ts, NULL, AN_EP_XOFF, true);
	} else {
		cl->xon++;
		p->xon[c]++;
		if (cl->paused) {
			run_remove(p, run);
			end_run(p, run, ts, p->active > 0);
		}
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
	struct an_pfc_mac *m = an_pfc_mac_get(p, rec->src_mac, now);
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
	for (uint32_t i = 0; i < p->active; i++) {
		uint64_t e = at < run_end(p, i) ? at : run_end(p, i);
		if (e > p->accounted)
			out[p->runs[i] % RT_AN_PFC_CLASSES] += e - p->accounted;
	}
}

uint64_t an_pfc_last_expiry(const struct an_pfc *p)
{
	uint64_t last = 0;
	for (uint32_t i = 0; i < p->active; i++)
		if (run_end(p, i) > last)
			last = run_end(p, i);
	return last;
}
