/* capture --trigger: the live figures each trigger watches, evaluated frame by frame as the analysis goes. */
#include "tools/capture_triggers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/textfmt.h"

/* One slot's counts (RT_TRIGGERS_SLOT_NS of capture time). */
struct slot {
	uint64_t cnp, roce, ce;
};

/* A class's pause run, as its XOFF frames make it. */
struct run {
	uint64_t start, until; /* paused since start, up to until (capture time) */
	bool fired;            /* pfc_storm fired for this run */
};

struct rt_triggers {
	const struct rt_trigger *t;
	unsigned n;
	uint64_t storm_ns;
	bool started;
	uint64_t cur;      /* the current slot's number (ts / slot) */
	unsigned complete; /* complete slots before it, up to RT_TRIGGERS_SLOTS */
	struct slot slot[RT_TRIGGERS_SLOTS];
	/* paused time per class when each of the last slots began (index: slot number % 11) */
	uint64_t paused_at[RT_TRIGGERS_SLOTS + 1][RT_AN_PFC_CLASSES];
	struct run runs[RT_AN_PFC_CLASSES];
	uint64_t dropped; /* drops seen so far */
	bool *above;      /* per trigger: its figure is above the threshold (fired, not re-armed) */
	uint64_t *findings; /* per trigger: bit 0, its finding was reported at the last call */
};

struct rt_triggers *rt_triggers_new(const struct rt_trigger *t, unsigned n, uint64_t storm_ns)
{
	struct rt_triggers *tr = calloc(1, sizeof(*tr));
	if (!tr || !(tr->findings = calloc(n ? n : 1, sizeof(*tr->findings))) ||
	    !(tr->above = calloc(n ? n : 1, sizeof(*tr->above)))) {
		rt_triggers_free(tr);
		return NULL;
	}
	tr->t = t;
	tr->n = n;
	tr->storm_ns = storm_ns;
	return tr;
}

void rt_triggers_free(struct rt_triggers *tr)
{
	if (!tr)
		return;
	free(tr->findings);
	free(tr->above);
	free(tr);
}

static bool hit_it(const struct rt_trigger *t, uint64_t ts, struct rt_trigger_hit *hit, bool *fired)
{
	if (*fired)
		return false;
	hit->t = t;
	hit->ts_ns = ts;
	*fired = true;
	return true;
}

/*
 * A threshold trigger fires as its figure rises above the threshold, and
 * again only after the figure fell back to it or below.
 */
static bool rises(struct rt_triggers *tr, const struct rt_trigger *t, bool above)
{
	bool *was = &tr->above[t - tr->t];
	bool rose = above && !*was;
	*was = above;
	return rose;
}

/* The slots' sums: the complete ones, with the current one when `partial`. */
static struct slot sums(const struct rt_triggers *tr, bool partial)
{
	struct slot s = {0};
	unsigned last = partial ? RT_TRIGGERS_SLOTS - 1 : RT_TRIGGERS_SLOTS;
	for (unsigned k = partial ? 0 : 1; k <= tr->complete && k <= last; k++) {
		const struct slot *x = &tr->slot[(tr->cur - k) % RT_TRIGGERS_SLOTS];
		s.cnp += x->cnp;
		s.roce += x->roce;
		s.ce += x->ce;
	}
	return s;
}

/* The paused share (percent) of class c (or the most paused one) over the complete slots. */
static double paused_share(const struct rt_triggers *tr, int c, int *which)
{
	unsigned span = tr->complete;
	const uint64_t *now = tr->paused_at[tr->cur % (RT_TRIGGERS_SLOTS + 1)];
	const uint64_t *then = tr->paused_at[(tr->cur - span) % (RT_TRIGGERS_SLOTS + 1)];
	double best = 0;
	if (!span)
		return 0;
	for (int k = c < 0 ? 0 : c; k < (c < 0 ? RT_AN_PFC_CLASSES : c + 1); k++) {
		double share =
		    100.0 * (double)(now[k] - then[k]) / ((double)span * RT_TRIGGERS_SLOT_NS);
		if (share > best || k == c) {
			best = share;
			*which = k;
		}
	}
	return best;
}

/* The second ending where the current slot begins: ce_share and pfc_paused. */
static bool second_ended(struct rt_triggers *tr, uint64_t ts, struct rt_trigger_hit *hit)
{
	bool fired = false;
	struct slot s = sums(tr, false);
	for (unsigned i = 0; i < tr->n; i++) {
		const struct rt_trigger *t = &tr->t[i];
		int c = 0;
		char name[4];
		if (t->kind == RT_TRIG_CNP_RATE && (double)s.cnp <= t->threshold)
			tr->above[i] = false; /* the rate fell back: re-armed even without a CNP */
		if (t->kind == RT_TRIG_CE_SHARE &&
		    rises(tr, t, s.roce && 100.0 * (double)s.ce / (double)s.roce > t->threshold) &&
		    hit_it(t, ts, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures),
			         "%.1f%% of the last %.1f s's %llu RoCE packets CE-marked",
			         100.0 * (double)s.ce / (double)s.roce,
			         tr->complete * (RT_TRIGGERS_SLOT_NS / 1e9),
			         (unsigned long long)s.roce);
		double share;
		if (t->kind == RT_TRIG_PFC_PAUSED &&
		    rises(tr, t, (share = paused_share(tr, t->pclass, &c)) > t->threshold) &&
		    hit_it(t, ts, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures),
			         "priority %s paused %.1f%% of the last %.1f s",
			         rt_res_class_name((unsigned)c, name), share,
			         tr->complete * (RT_TRIGGERS_SLOT_NS / 1e9));
	}
	return fired;
}

/* Move to the slot of `ts`: each slot passed ends (its second evaluated), the new one empty. */
static bool advance(struct rt_triggers *tr, uint64_t ts, const struct rt_analyzer *an,
                    struct rt_trigger_hit *hit)
{
	uint64_t s = ts / RT_TRIGGERS_SLOT_NS;
	struct rt_an_counts c;
	bool fired = false;
	if (tr->started && s <= tr->cur)
		return false;
	rt_analyzer_totals(an, &c);
	if (!tr->started || s - tr->cur > RT_TRIGGERS_SLOTS) { /* a start, or a long gap: anew */
		memset(tr->slot, 0, sizeof(tr->slot));
		for (unsigned k = 0; k <= RT_TRIGGERS_SLOTS; k++)
			memcpy(tr->paused_at[k], c.pfc_paused_ns, sizeof(c.pfc_paused_ns));
		tr->complete = 0;
		tr->cur = s;
		tr->started = true;
		return false;
	}
	while (tr->cur < s) {
		tr->cur++;
		if (tr->complete < RT_TRIGGERS_SLOTS)
			tr->complete++;
		memcpy(tr->paused_at[tr->cur % (RT_TRIGGERS_SLOTS + 1)], c.pfc_paused_ns,
		       sizeof(c.pfc_paused_ns));
		if (!fired)
			fired = second_ended(tr, tr->cur * RT_TRIGGERS_SLOT_NS, hit);
		tr->slot[tr->cur % RT_TRIGGERS_SLOTS] = (struct slot){0};
	}
	return fired;
}

/* pfc_storm: the XOFF and XON of this frame extend or end each class's run. */
static bool storms(struct rt_triggers *tr, const struct rt_an_note *note, uint64_t ts,
                   struct rt_trigger_hit *hit)
{
	bool fired = false;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		struct run *r = &tr->runs[c];
		if (!(note->pause_classes & (1u << c)))
			continue;
		if (!note->paused_ns[c]) { /* XON: the run ends */
			r->until = ts;
			continue;
		}
		if (ts > r->until)
			*r = (struct run){.start = ts};
		if (ts + note->paused_ns[c] > r->until)
			r->until = ts + note->paused_ns[c];
		if (r->fired || ts - r->start < tr->storm_ns)
			continue;
		for (unsigned i = 0; i < tr->n && !r->fired; i++) {
			const struct rt_trigger *t = &tr->t[i];
			char name[4];
			if (t->kind != RT_TRIG_PFC_STORM ||
			    (t->pclass >= 0 && (unsigned)t->pclass != c))
				continue;
			r->fired = true;
			if (hit_it(t, ts, hit, &fired))
				snprintf(hit->figures, sizeof(hit->figures),
				         "priority %s paused without a break for %.1f ms (storm: "
				         "%.1f ms)",
				         rt_res_class_name(c, name), (double)(ts - r->start) / 1e6,
				         (double)tr->storm_ns / 1e6);
		}
	}
	return fired;
}

/* The triggers one record fires by itself: cnp, cnp_rate, nak, rnr, timeout. */
static bool per_record(struct rt_triggers *tr, const struct rt_record *rec,
                       const struct rt_an_note *note, struct rt_trigger_hit *hit)
{
	bool fired = false, cnp = rec->kind == RT_KIND_CNP;
	bool timeout =
	    (note->flags & RT_AN_NOTE_RETRANS) && !note->nak_frame && note->resend_wait_ns;
	uint64_t ts = rec->ts_ns;
	char qp[RT_QP_TEXT_MAX];
	for (unsigned i = 0; i < tr->n; i++) {
		const struct rt_trigger *t = &tr->t[i];
		uint64_t last_second;
		if (t->kind == RT_TRIG_CNP && cnp && hit_it(t, ts, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures), "a CNP to QP %s (frame %llu)",
			         rt_fmt_qp(qp, rec->dest_qp), (unsigned long long)note->frame);
		if (t->kind == RT_TRIG_CNP_RATE && cnp &&
		    rises(tr, t, (double)(last_second = sums(tr, true).cnp) > t->threshold) &&
		    hit_it(t, ts, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures), "%llu CNPs in the last second",
			         (unsigned long long)last_second);
		if (t->kind == RT_TRIG_NAK && (note->flags & RT_AN_NOTE_NAK) &&
		    hit_it(t, ts, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures),
			         "a NAK (code %u) to QP %s (frame %llu)", note->nak_code,
			         rt_fmt_qp(qp, rec->dest_qp), (unsigned long long)note->frame);
		if (t->kind == RT_TRIG_RNR && (note->flags & RT_AN_NOTE_RNR_NAK) &&
		    hit_it(t, ts, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures),
			         "an RNR NAK (timer %u) to QP %s (frame %llu)", note->nak_code,
			         rt_fmt_qp(qp, rec->dest_qp), (unsigned long long)note->frame);
		if (t->kind == RT_TRIG_TIMEOUT && timeout && hit_it(t, ts, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures),
			         "a resend to QP %s after %.3f ms without a NAK (frame %llu)",
			         rt_fmt_qp(qp, rec->dest_qp), (double)note->resend_wait_ns / 1e6,
			         (unsigned long long)note->frame);
	}
	return fired;
}

bool rt_triggers_record(struct rt_triggers *tr, const struct rt_record *rec,
                        const struct rt_an_note *note, const struct rt_analyzer *an,
                        struct rt_trigger_hit *hit)
{
	bool fired = advance(tr, rec->ts_ns, an, hit);
	struct slot *s = &tr->slot[tr->cur % RT_TRIGGERS_SLOTS];
	if (rec->kind == RT_KIND_CNP)
		s->cnp++;
	else if (rec->kind == RT_KIND_ROCE && !(note->flags & RT_AN_NOTE_COPY)) {
		s->roce++;
		s->ce += (note->flags & RT_AN_NOTE_CE) != 0;
	}
	struct rt_trigger_hit h;
	if (per_record(tr, rec, note, fired ? &h : hit))
		fired = true;
	if (note->pause_classes && storms(tr, note, rec->ts_ns, fired ? &h : hit))
		fired = true;
	return fired;
}

bool rt_triggers_drops(struct rt_triggers *tr, uint64_t dropped, uint64_t now_ns,
                       struct rt_trigger_hit *hit)
{
	bool fired = false;
	if (dropped <= tr->dropped)
		return false;
	for (unsigned i = 0; i < tr->n; i++)
		if (tr->t[i].kind == RT_TRIG_DROP && hit_it(&tr->t[i], now_ns, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures),
			         "the capture dropped %llu frames (%llu so far)",
			         (unsigned long long)(dropped - tr->dropped),
			         (unsigned long long)dropped);
	tr->dropped = dropped;
	return fired;
}

bool rt_triggers_findings(struct rt_triggers *tr, const char *const *codes, unsigned n,
                          uint64_t ts_ns, struct rt_trigger_hit *hit)
{
	bool fired = false;
	for (unsigned i = 0; i < tr->n; i++) {
		const struct rt_trigger *t = &tr->t[i];
		bool now = false;
		if (t->kind != RT_TRIG_FINDING)
			continue;
		for (unsigned k = 0; k < n && !now; k++)
			now = codes[k] && !strcmp(codes[k], t->finding);
		if (now && !tr->findings[i] && hit_it(t, ts_ns, hit, &fired))
			snprintf(hit->figures, sizeof(hit->figures), "the analysis reports %s",
			         t->finding);
		tr->findings[i] = now;
	}
	return fired;
}
