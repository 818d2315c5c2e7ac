/* Findings about priorities: RoCE data on a priority PFC does not pause, CNPs on the wrong priority. */
#include <stdio.h>
#include <string.h>

#include "analyze/finding.h"
#include "analyze/wording.h"
#include "common/outbuf.h"
#include "common/textfmt.h"

/* The priorities PFC paused (bit c: XOFF frames on priority c): PFC is on there. */
static unsigned pfc_on(const struct rt_results *r)
{
	unsigned on = 0;
	for (unsigned c = 0; c < 8; c++)
		if (r->pfc[c].xoff)
			on |= 1u << c;
	return on;
}

/* "3, 4" */
static const char *list(unsigned mask, char buf[32])
{
	buf[0] = 0;
	for (unsigned c = 0; c < 8; c++)
		if ((mask >> c) & 1)
			rt_text_appendf(buf, 32, "%s%u", buf[0] ? ", " : "", c);
	return buf;
}

/* The data flows whose priority is told by their own packets (a flow that also carried CNPs is not). */
static bool priced(const struct rt_res_flow *f)
{
	return an_fd_data_flow(f) && !f->cnp_carried;
}

/* The figures of the data on one priority. */
struct on_prio {
	uint64_t flows, lossy_flows, resent, naks, timeouts, gap_psns;
	bool by_dscp;
	uint64_t dscps; /* bit d: DSCP d carried it */
};

static void lossy(struct an_fd *l, unsigned p, const struct on_prio *d, unsigned on)
{
	const struct rt_results *r = l->r;
	bool lost = d->lossy_flows > 0;
	struct rt_finding *f = an_fd_add(l, "lossy_priority", lost ? RT_SEV_ERROR : RT_SEV_WARNING,
	                                 d->by_dscp ? "medium" : "high");
	if (!f)
		return;
	char pl[32], how[96] = "", a[32], b[32], c[32];
	if (d->by_dscp) {
		rt_text_appendf(how, sizeof(how), "DSCP");
		for (unsigned k = 0; k < 64; k++)
			if ((d->dscps >> k) & 1)
				rt_text_appendf(how, sizeof(how), " %u", k);
		rt_text_appendf(how, sizeof(how), ", its priority taken as DSCP / 8");
	} else {
		snprintf(how, sizeof(how), "PCP %u", p);
	}
	an_fd_summary(f,
	              "RoCE data rides priority %u (%s), which PFC never paused while it paused "
	              "priority %s",
	              p, how, list(on, pl));
	if (lost)
		rt_text_appendf(f->summary, sizeof(f->summary),
		                ", and %s of its %s flows lost packets (%s resent, %s NAKs, %llu "
		                "timeouts): priority %u is lossy.",
		                an_w_int(a, d->lossy_flows), an_w_int(b, d->flows),
		                an_w_int(c, d->resent), an_w_int(pl, d->naks),
		                (unsigned long long)d->timeouts, p);
	else
		rt_text_appendf(f->summary, sizeof(f->summary),
		                ": priority %u may be lossy (no loss seen yet).", p);
	an_fd_priority(f, p);
	an_fd_u64(f, "priority", p);
	an_fd_text(f, "priority_from", d->by_dscp ? "dscp" : "pcp");
	an_fd_text(f, "pfc_priorities", "%s", list(on, pl));
	an_fd_u64(f, "flows", d->flows);
	an_fd_u64(f, "flows_with_losses", d->lossy_flows);
	an_fd_u64(f, "retransmitted", d->resent);
	an_fd_u64(f, "naks", d->naks);
	an_fd_u64(f, "timeouts", d->timeouts);
	an_fd_u64(f, "gap_psns", d->gap_psns);
	/* the flows and their senders, the ones that lost packets first */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t id = 0; id < r->nflows; id++) {
			const struct rt_res_flow *fl = &r->flows[id];
			bool dscp;
			if (!priced(fl) || an_fd_flow_priority(fl, &dscp) != p)
				continue;
			bool had = fl->xport && (fl->xport->retransmitted ||
			                         fl->xport->naks_received || fl->xport->gap_psns);
			if (had == !pass) {
				an_fd_flow(f, fl);
				an_fd_host(f, fl->key.ipver, fl->key.src);
			}
		}
	an_fd_fix(
	    f, "checks pfc.enabled and pfc.dscp_map (traffic.dscp with --traffic)",
	    "Carry RoCE on the lossless priority (its DSCP/PCP mapped to priority %s: "
	    "rdma_cm.tos, NCCL_IB_TC), or turn PFC on for priority %u on every NIC and switch "
	    "port of the path.",
	    list(on, pl), p);
}

static void lossy_priorities(struct an_fd *l)
{
	const struct rt_results *r = l->r;
	unsigned on = pfc_on(r);
	if (!on)
		return; /* no pause: what PFC covers cannot be told */
	struct on_prio d[8] = {0};
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		bool dscp;
		if (!priced(fl))
			continue;
		unsigned p = an_fd_flow_priority(fl, &dscp);
		const struct rt_res_transport *x = fl->xport;
		d[p].flows++;
		d[p].by_dscp |= dscp;
		d[p].dscps |= 1ull << fl->dscp;
		if (x && (x->retransmitted || x->naks_received || x->gap_psns)) {
			d[p].lossy_flows++;
			d[p].resent += x->retransmitted;
			d[p].naks += x->naks_received;
			d[p].timeouts += x->timeouts;
			d[p].gap_psns += x->gap_psns;
		}
	}
	for (unsigned p = 0; p < 8; p++)
		if (d[p].flows && !((on >> p) & 1))
			lossy(l, p, &d[p], on);
}

/* ---- CNPs: on their own high priority, the same on every host ---- */

/* The priority most RoCE data packets ride (-1: none). */
static int data_priority(const struct rt_results *r)
{
	uint64_t n[8] = {0};
	for (uint32_t id = 0; id < r->nflows; id++) {
		bool dscp;
		if (priced(&r->flows[id]))
			n[an_fd_flow_priority(&r->flows[id], &dscp)] += r->flows[id].packets;
	}
	int best = -1;
	for (int p = 0; p < 8; p++)
		if (n[p] && (best < 0 || n[p] > n[best]))
			best = p;
	return best;
}

static unsigned cnp_priority_of(const struct rt_res_flow *f)
{
	return f->cnp_tagged ? f->cnp_pcp : f->cnp_dscp >> 3;
}

/*
 * CNPs on the priority of the data they slow (`below` false: behind it in
 * the same queues), or on a lower one (`below`: behind bulk traffic, where
 * PFC, pausing the data's, does not pause theirs).
 */
static void cnps_low(struct an_fd *l, int dp, bool below)
{
	const struct rt_results *r = l->r;
	struct rt_finding *f = NULL;
	uint64_t cnps = 0;
	unsigned cp = 0;
	for (uint32_t id = 0; id < r->nflows && dp >= 0; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (!fl->cnp_carried || (below ? cnp_priority_of(fl) >= (unsigned)dp
		                               : cnp_priority_of(fl) != (unsigned)dp))
			continue;
		cp = cnp_priority_of(fl);
		if (!f && !(f = an_fd_add(l, "cnp_priority", RT_SEV_WARNING,
		                          fl->cnp_tagged ? "high" : "medium")))
			return;
		an_fd_host(f, fl->key.ipver, fl->key.src);
		cnps += fl->cnp_sent;
		if (!f->nevidence) {
			an_fd_u64(f, "cnp_priority", cp);
			an_fd_u64(f, "cnp_dscp", fl->cnp_dscp);
			an_fd_u64(f, "data_priority", (unsigned)dp);
		}
	}
	if (!f)
		return;
	bool lossless = r->pfc[cp].xoff > 0;
	an_fd_u64(f, "cnps", cnps);
	an_fd_bool(f, "priority_paused_by_pfc", lossless);
	an_fd_priority(f, cp);
	char who[256];
	if (below)
		an_fd_summary(
		    f,
		    "CNPs from %s leave on priority %u, below the priority %d of the RoCE "
		    "data they slow: they wait behind bulk traffic%s.",
		    an_fd_hosts_words(f, 0, who), cp, dp,
		    lossless ? "" : ", on a priority PFC does not pause, where they can be lost");
	else
		an_fd_summary(
		    f,
		    "CNPs from %s leave on priority %d, the priority of the RoCE data they "
		    "slow: they wait behind that data in the congested queues%s.",
		    an_fd_hosts_words(f, 0, who), dp,
		    lossless ? "" : ", on a priority PFC does not pause, where they can be lost");
	an_fd_fix(
	    f, "check ecn.cnp (traffic.cnp with --traffic)",
	    "Send CNPs on the network's CNP priority, a high, strict-priority class (commonly "
	    "DSCP 48 / priority 6): on mlx5, echo 48 > "
	    "/sys/class/net/NETDEV/ecn/roce_np/cnp_dscp and echo 6 > "
	    ".../ecn/roce_np/cnp_802p_prio.");
}

/* CNPs of some hosts on another DSCP than most CNPs carry (the network's). */
static void cnps_disagree(struct an_fd *l)
{
	const struct rt_results *r = l->r;
	uint64_t by[64] = {0};
	for (uint32_t id = 0; id < r->nflows; id++)
		if (r->flows[id].cnp_carried)
			by[r->flows[id].cnp_dscp] += r->flows[id].cnp_sent;
	unsigned common = 0, kinds = 0;
	for (unsigned d = 0; d < 64; d++) {
		kinds += by[d] > 0;
		if (by[d] > by[common])
			common = d;
	}
	if (kinds < 2)
		return;
	struct rt_finding *f = an_fd_add(l, "cnp_priority", RT_SEV_WARNING, "medium");
	if (!f)
		return;
	uint64_t odd = 0;
	char dscps[96] = "";
	uint64_t listed = 0;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (!fl->cnp_carried || fl->cnp_dscp == common)
			continue;
		odd += fl->cnp_sent;
		an_fd_host(f, fl->key.ipver, fl->key.src);
		if (!((listed >> fl->cnp_dscp) & 1))
			rt_text_appendf(dscps, sizeof(dscps), "%s%u", listed ? ", " : "",
			                fl->cnp_dscp);
		listed |= 1ull << fl->cnp_dscp;
	}
	char who[256];
	an_fd_summary(f,
	              "CNPs from %s carry DSCP %s, not the DSCP %u most CNPs carry (the "
	              "network's CNP class): they take another queue, maybe a congested or lossy "
	              "one.",
	              an_fd_hosts_words(f, 0, who), dscps, common);
	an_fd_u64(f, "common_cnp_dscp", common);
	an_fd_text(f, "other_cnp_dscps", "%s", dscps);
	an_fd_u64(f, "cnps_other", odd);
	an_fd_u64(f, "cnps_common", by[common]);
	an_fd_fix(f, "check ecn.cnp on each of these hosts (doctor --hosts compares cnp_dscp)",
	          "Give every host the same CNP DSCP and priority (commonly DSCP 48 / priority 6): "
	          "on mlx5, /sys/class/net/NETDEV/ecn/roce_np/cnp_dscp and cnp_802p_prio.");
}

void an_fd_priorities(struct an_fd *l)
{
	lossy_priorities(l);
	int dp = data_priority(l->r);
	cnps_low(l, dp, false);
	cnps_low(l, dp, true);
	cnps_disagree(l);
}
