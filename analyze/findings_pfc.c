/* Findings about PFC: storms (their origin, spread and victims) and deadlocks (cycles of pauses between MACs). */
#include <stdio.h>
#include <string.h>

#include "analyze/finding.h"
#include "analyze/wording.h"
#include "common/outbuf.h"
#include "common/textfmt.h"

/* A class's name in sentences: "priority 3", "802.3x PAUSE". */
static const char *class_words(unsigned cls, char buf[16])
{
	if (cls == RT_AN_PAUSE_CLASS)
		return "802.3x PAUSE";
	snprintf(buf, 16, "priority %u", cls);
	return buf;
}

/* The priority as evidence: its number, or "pause". */
static void class_evidence(struct rt_finding *f, unsigned cls)
{
	if (cls == RT_AN_PAUSE_CLASS)
		an_fd_text(f, "priority", "pause");
	else
		an_fd_u64(f, "priority", cls);
	an_fd_priority(f, cls);
}

/* " (10.0.0.5)" when the MAC's RoCE frames are one host's, else "". */
static const char *mac_host(const struct rt_results *r, const uint8_t mac[6], char buf[64])
{
	const struct rt_res_mac *m = an_fd_mac_entry(r, mac);
	char ip[48];
	buf[0] = 0;
	if (m && m->ipver && !m->several)
		snprintf(buf, 64, " (%s)", rt_ip_to_str(m->ipver, m->ip, ip, sizeof(ip)));
	return buf;
}

/* How long [a0, a1) and [b0, b1) overlap. */
static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/*
 * Whether a data flow stalled in a storm: silent, while a pause ran, for
 * at least half of the storm (or of the threshold, when the storm is
 * longer), from no earlier than half the threshold before the storm began
 * (it was sending until then), and sending again after it unless the storm
 * lasted to the end (a flow that never sends again may just have ended).
 */
static bool stalled(const struct rt_results *r, const struct rt_res_incident *in,
                    const struct rt_res_flow *fl)
{
	uint64_t dur = in->end_ns - in->start_ns,
	         need = (dur < r->storm_ns ? dur : r->storm_ns) / 2;
	uint64_t slack = r->storm_ns / 2, from = fl->stall_from_ns, to = from + fl->stall_ns;
	bool tail = to >= r->end_ns;
	return an_fd_data_flow(fl) && fl->stall_ns &&
	       overlap(from, to, in->start_ns, in->end_ns) >= need &&
	       from + slack >= in->start_ns && (!tail || in->end_ns + slack >= r->end_ns);
}

/*
 * The data flows a storm stalled. A flow into the origin's host stalls
 * because its receiver stopped: counted apart (`direct`); the others are
 * victims of head-of-line blocking.
 */
static uint64_t victims(const struct rt_results *r, const struct rt_res_incident *in,
                        const struct rt_res_mac *origin, struct rt_finding *f, uint64_t *direct)
{
	uint64_t n = 0;
	*direct = 0;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (!stalled(r, in, fl))
			continue;
		if (origin && origin->ipver && !origin->several &&
		    an_fd_same_ip(fl->key.ipver, fl->key.dst, origin->ipver, origin->ip)) {
			(*direct)++;
			continue;
		}
		n++;
		an_fd_flow(f, fl);
	}
	return n;
}

static void storm(struct an_fd *l, const struct rt_res_incident *in)
{
	const struct rt_results *r = l->r;
	const struct rt_res_incident_mac *first = &in->macs[0], *longest = first;
	for (unsigned k = 1; k < in->nmacs; k++)
		if (in->macs[k].longest_ns > longest->longest_ns)
			longest = &in->macs[k];
	const struct rt_res_mac *om = an_fd_mac_entry(r, first->mac);
	bool host = om && om->ipver && !om->several, same = first == longest;
	struct rt_finding *f =
	    an_fd_add(l, "pfc_storm", RT_SEV_ERROR, same && host ? "high" : "medium");
	if (!f)
		return;
	char cw[16], m1[18], m2[18], h1[64], h2[64], d[48], at[48], ip[48], all[48];
	uint64_t direct, nvict = victims(r, in, om, f, &direct);
	uint64_t dur = in->end_ns - in->start_ns;
	an_fd_summary(f, "PFC storm on %s from %s ms: %s%s paused it without a break for %s",
	              class_words(in->cls, cw),
	              an_w_num(at, (double)(in->start_ns - r->start_ns) / 1e6, 3),
	              an_w_mac(m1, first->mac), mac_host(r, first->mac, h1),
	              an_w_dur(d, longest->longest_ns));
	if (!same)
		rt_text_appendf(f->summary, sizeof(f->summary),
		                " (%s%s first, then %s%s the longest)", m1, h1,
		                an_w_mac(m2, longest->mac), mac_host(r, longest->mac, h2));
	rt_text_appendf(f->summary, sizeof(f->summary), "%s; ",
	                in->ongoing ? ", and still does" : "");
	if (in->macs_total > 1)
		rt_text_appendf(f->summary, sizeof(f->summary), "it spread to %u more MAC%s, ",
		                in->macs_total - 1, in->macs_total == 2 ? "" : "s");
	else
		rt_text_appendf(f->summary, sizeof(f->summary), "no other MAC paused it, ");
	rt_text_appendf(
	    f->summary, sizeof(f->summary),
	    "%llu flow%s whose receiver is not the origin stalled (%s of pausing in all).",
	    (unsigned long long)nvict, nvict == 1 ? "" : "s", an_w_dur(all, dur));
	if (host)
		an_fd_host(f, om->ipver, om->ip);
	for (unsigned k = 0; k < in->nmacs; k++)
		an_fd_mac(f, in->macs[k].mac);
	class_evidence(f, in->cls);
	an_fd_time(f, r, "start", in->start_ns);
	an_fd_u64(f, "duration_ns", dur);
	an_fd_bool(f, "ongoing", in->ongoing);
	an_fd_text(f, "origin_mac", "%s", m1);
	if (host)
		an_fd_text(f, "origin_ip", "%s", rt_ip_to_str(om->ipver, om->ip, ip, sizeof(ip)));
	else
		an_fd_null(f, "origin_ip");
	an_fd_u64(f, "origin_paused_ns", first->paused_ns);
	an_fd_text(f, "longest_mac", "%s", an_w_mac(m2, longest->mac));
	an_fd_u64(f, "longest_pause_ns", longest->longest_ns);
	an_fd_u64(f, "spread_macs", in->macs_total - 1);
	an_fd_u64(f, "victim_flows", nvict);
	an_fd_u64(f, "stalled_into_origin", direct);
	an_fd_u64(f, "threshold_ns", r->storm_ns);
	an_fd_fix(f, "check counters.pfc_pause on the origin host (its pause frames stop growing)",
	          "Find why %s%s stopped draining its receive queue (a stuck NIC, driver or host: "
	          "its NIC's firmware and error counters, or reset the port), and turn on the PFC "
	          "watchdog (storm prevention) on the switch port it hangs off, so one receiver "
	          "cannot pause the fabric.",
	          m1, h1);
}

/* ---- deadlocks: a cycle of MACs, each pausing the next while it is paused ---- */

#define EDGES_MAX 64
struct edge {
	const uint8_t *from, *to;
	unsigned cls;
	uint64_t start, end; /* the sender's longest pause */
};

/* The edges: X paused its link partner Y (the only other MAC sending where X's pauses were seen). */
static unsigned edges(const struct rt_results *r, struct edge *e)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < r->npfc_sources && n < EDGES_MAX; i++) {
		const struct rt_res_pfc_source *s = &r->pfc_sources[i];
		if (s->longest_ns < r->storm_ns)
			continue;
		for (unsigned p = 0; p < 64 * s->points.nwords && n < EDGES_MAX; p++) {
			if (!rt_res_points_has(&s->points, p))
				continue;
			const uint8_t *partner = NULL;
			unsigned others = 0;
			for (uint32_t k = 0; k < r->nmacs; k++)
				if (rt_res_points_has(&r->macs[k].src_points, p) &&
				    memcmp(r->macs[k].mac, s->mac, 6)) {
					others++;
					partner = r->macs[k].mac;
				}
			if (others == 1)
				e[n++] = (struct edge){s->mac, partner, s->cls, s->longest_start_ns,
				                       s->longest_start_ns + s->longest_ns};
		}
	}
	return n;
}

/* A cycle back to `home` through edges of one class, all paused together for the threshold. */
static bool cycle(const struct edge *e, unsigned n, unsigned at, const uint8_t *home, uint64_t lo,
                  uint64_t hi, uint64_t need, unsigned *path, unsigned depth)
{
	path[depth] = at;
	if (!memcmp(e[at].to, home, 6))
		return true;
	if (depth + 1 == 8)
		return false;
	for (unsigned k = 0; k < n; k++) {
		uint64_t l2 = lo > e[k].start ? lo : e[k].start, h2 = hi < e[k].end ? hi : e[k].end;
		bool seen = false;
		for (unsigned d = 0; d <= depth; d++)
			seen |= path[d] == k;
		if (seen || e[k].cls != e[at].cls || memcmp(e[k].from, e[at].to, 6) ||
		    h2 < l2 + need)
			continue;
		if (cycle(e, n, k, home, l2, h2, need, path, depth + 1))
			return true;
	}
	return false;
}

static void deadlocks(struct an_fd *l)
{
	const struct rt_results *r = l->r;
	struct edge e[EDGES_MAX];
	unsigned n = edges(r, e), path[8], found = 0;
	bool done[RT_AN_PFC_CLASSES] = {false};
	for (unsigned i = 0; i < n; i++) {
		if (done[e[i].cls] ||
		    !cycle(e, n, i, e[i].from, e[i].start, e[i].end, r->storm_ns, path, 0))
			continue;
		unsigned len = 0;
		while (memcmp(e[path[len]].to, e[i].from, 6))
			len++;
		len++;
		done[e[i].cls] = true;
		struct rt_finding *f = an_fd_add(l, "pfc_deadlock_suspect", RT_SEV_ERROR, "medium");
		if (!f)
			return;
		found++;
		char ring[8 * 20 + 20] = "", m[18], cw[16], d[48];
		uint64_t lo = e[path[0]].start, hi = e[path[0]].end;
		for (unsigned k = 0; k < len; k++) {
			const struct edge *x = &e[path[k]];
			rt_text_appendf(ring, sizeof(ring), "%s -> ", an_w_mac(m, x->from));
			an_fd_mac(f, x->from);
			lo = lo > x->start ? lo : x->start;
			hi = hi < x->end ? hi : x->end;
		}
		rt_text_appendf(ring, sizeof(ring), "%s", an_w_mac(m, e[i].from));
		an_fd_summary(f,
		              "PFC deadlock suspected on %s: %u MACs pause each other in a cycle "
		              "(%s), all paused together for %s.",
		              class_words(e[i].cls, cw), len, ring, an_w_dur(d, hi - lo));
		class_evidence(f, e[i].cls);
		an_fd_text(f, "cycle", "%s", ring);
		an_fd_u64(f, "macs", len);
		an_fd_time(f, r, "start", lo);
		an_fd_u64(f, "together_ns", hi - lo);
		an_fd_u64(f, "vantage_points", r->nvantage);
		an_fd_fix(
		    f,
		    "check counters.pfc_pause on the hosts behind these ports (their pauses stop)",
		    "Break the cyclic buffer dependency: a route that loops (a flap, a path that "
		    "is not up-down), or a lossless priority on links that close a cycle; turn on "
		    "the switches' PFC watchdog so a deadlocked queue is dropped, not held.");
	}
	if (found || !r->nincidents || r->nvantage > 1)
		return;
	struct rt_finding *f = an_fd_add(l, "pfc_deadlock_suspect", RT_SEV_INFO, NULL);
	if (!f)
		return;
	an_fd_summary(f,
	              "Cannot tell whether the PFC storm is a deadlock: a deadlock is a cycle of "
	              "pauses across links, and this capture has one vantage point.");
	for (uint32_t i = 0; i < r->nincidents; i++)
		an_fd_priority(f, r->incidents[i].cls);
	an_fd_u64(f, "vantage_points", r->nvantage);
	an_fd_u64(f, "storms", r->nincidents);
	an_fd_fix(
	    f, NULL,
	    "Capture the links around the paused ports at the same time and analyze the files "
	    "together (--vantage NAME=FILE for each), so the pauses between them show.");
}

void an_fd_pfc(struct an_fd *l)
{
	for (uint32_t i = 0; i < l->r->nincidents; i++)
		if (l->r->incidents[i].nmacs)
			storm(l, &l->r->incidents[i]);
	deadlocks(l);
}
