/* doctor's checks of what moved: NIC counters over the sample, the live traffic captured. */
#include <stdio.h>
#include <string.h>

#include "doctor/internal.h"
#include "common/textfmt.h"

/* ---- counters ---- */

static const struct rt_doc_counter *counter(const struct rt_doc_facts *f, const char *name)
{
	for (unsigned i = 0; i < f->counters.n; i++)
		if (!strcmp(f->counters.c[i].name, name))
			return &f->counters.c[i];
	return NULL;
}

static uint64_t delta(const struct rt_doc_counter *c)
{
	return c && c->known && c->second >= c->first ? c->second - c->first : 0;
}

/* Adds the check for one counter; returns it with value set, or NULL when unchecked. */
static struct rt_doc_check *counter_check(const struct rt_doc_facts *f, struct rt_doc_target *t,
                                          const char *check, const char *name)
{
	const struct rt_doc_counter *k = counter(f, name);
	if (!k || !k->known) {
		char why[RT_DOC_WHY];
		if (f->counters.why[0])
			rt_doc_copy(why, sizeof(why), f->counters.why);
		else
			snprintf(why, sizeof(why),
			         "hw_counters/%s: absent or unreadable (not counted by "
			         "this driver?)",
			         name);
		rt_doc_unchecked(t, check, why);
		return NULL;
	}
	struct rt_doc_check *c = rt_doc_add(t, check, RT_DOC_PASS);
	if (f->counters.sampled)
		VALUE(c, "%s +%llu in %g s (total %llu)", name, (unsigned long long)delta(k),
		      (double)f->counters.interval_ns / 1e9, (unsigned long long)k->second);
	else
		VALUE(c, "%s total %llu (sampled once: movement not measured)", name,
		      (unsigned long long)k->second);
	if (!f->counters.sampled)
		c->status = RT_DOC_UNCHECKED;
	return c;
}

/* The RDMA port's hw_counters: ECN marks, CNPs sent, handled and ignored, receive queues run
 * empty, sequence errors. */
static void check_rdma_counters(const struct rt_doc_facts *f, unsigned p, const char *nd,
                                struct rt_doc_target *t)
{
	struct rt_doc_check *c;
	uint64_t marked = delta(counter(f, "np_ecn_marked_roce_packets"));
	c = counter_check(f, t, "counters.ecn_marked", "np_ecn_marked_roce_packets");
	if (c)
		NOTE(c, marked ? "CE-marked RoCE packets arrive: a switch queue toward "
		                 "this host is "
		                 "congested and marks, as DCQCN needs"
		               : "no CE-marked RoCE packet arrived: no congestion toward "
		                 "this host "
		                 "(or no traffic) while sampled");
	c = counter_check(f, t, "counters.cnp_sent", "np_cnp_sent");
	if (c) {
		if (f->counters.sampled && marked && !delta(counter(f, "np_cnp_sent"))) {
			c->status = RT_DOC_FAIL;
			EXPECTED(c, "CNPs sent while CE-marked packets arrive");
			FIX(c,
			    "enable the notification point on the priority the traffic "
			    "uses: echo 1 > " SYS "/class/net/%s/ecn/roce_np/enable/%u",
			    nd, p);
			NOTE(c,
			     "%llu CE-marked packets arrived but no CNP went out: the "
			     "senders are not "
			     "told to slow down",
			     (unsigned long long)marked);
		} else {
			NOTE(c, "CNPs this NIC sent to slow down the senders of CE-marked "
			        "packets");
		}
	}
	c = counter_check(f, t, "counters.cnp_handled", "rp_cnp_handled");
	if (c) {
		uint64_t ign = delta(counter(f, "rp_cnp_ignored"));
		if (ign) {
			c->status = RT_DOC_WARN;
			FIX(c,
			    "enable the reaction point: echo 1 > " SYS
			    "/class/net/%s/ecn/roce_rp/enable/%u",
			    nd, p);
			NOTE(c,
			     "%llu CNPs were ignored (rp_cnp_ignored): the reaction point "
			     "is off for "
			     "their priority, so the senders here never slow down",
			     (unsigned long long)ign);
		} else {
			NOTE(c, delta(counter(f, "rp_cnp_handled"))
			            ? "CNPs arrived and cut this host's sending rate "
			              "(DCQCN reacting)"
			            : "no CNP arrived: this host's flows were not asked to "
			              "slow down");
		}
	}
	c = counter_check(f, t, "counters.out_of_buffer", "out_of_buffer");
	if (c) {
		uint64_t d = delta(counter(f, "out_of_buffer"));
		if (d) {
			c->status = RT_DOC_WARN;
			FIX(c, "the receiving application must keep more receive requests "
			       "posted (a "
			       "deeper receive queue or a shared receive queue)");
		}
		NOTE(c, d ? "packets dropped because no receive request was posted (the "
		            "receive "
		            "queue ran empty); the sender retries after an RNR NAK"
		          : "no packet found an empty receive queue");
	}
	c = counter_check(f, t, "counters.seq_err", "packet_seq_err");
	if (c) {
		uint64_t d = delta(counter(f, "packet_seq_err"));
		uint64_t oos = delta(counter(f, "out_of_sequence"));
		if (d || oos) {
			c->status = RT_DOC_WARN;
			FIX(c,
			    "find the drop: PFC on priority %u here, at the peers and on "
			    "every switch "
			    "hop (pfc.enabled, pfc.peer), and the switch's lossless "
			    "buffers",
			    p);
			NOTE(c,
			     "PSN sequence errors (NAKs received %llu, out-of-sequence "
			     "packets "
			     "received %llu): packets were lost on the way, which a "
			     "lossless fabric "
			     "never does; each loss forces a go-back-N retransmission",
			     (unsigned long long)d, (unsigned long long)oos);
		} else {
			NOTE(c, "no packet was lost in flight while sampled");
		}
	}
}

/* The netdev's ethtool statistics: PFC pause frames per priority, NIC buffer drops. */
static void check_eth_counters(const struct rt_doc_facts *f, unsigned p, const char *nd,
                               struct rt_doc_target *t)
{
	struct rt_doc_check *c;
	if (!f->netdev[0] || !f->netdev_exists)
		return;
	if (!f->counters.neth) {
		rt_doc_unchecked(t, "counters.pfc_pause", f->counters.eth_why);
		return;
	}
	uint64_t rx = 0, tx = 0, other = 0;
	uint8_t other_mask = 0;
	const struct rt_doc_counter *discards = NULL;
	bool have_prio = false;
	for (unsigned i = 0; i < f->counters.neth; i++) {
		const struct rt_doc_counter *k = &f->counters.eth[i];
		unsigned q;
		char dir[3];
		if (!strcmp(k->name, "rx_discards_phy")) {
			discards = k;
			continue;
		}
		if (sscanf(k->name, "%2[rt]x_prio%u_pause", dir, &q) != 2 || q > 7)
			continue;
		have_prio = true;
		uint64_t d = delta(k);
		if (q == p)
			*(dir[0] == 'r' ? &rx : &tx) += d;
		else if (d) {
			other += d;
			other_mask |= (uint8_t)(1u << q);
		}
	}
	if (have_prio) {
		char list[32];
		c = rt_doc_add(t, "counters.pfc_pause", other ? RT_DOC_WARN : RT_DOC_PASS);
		if (f->counters.sampled)
			VALUE(c, "priority %u: received +%llu, sent +%llu pause frames in %g s%s%s",
			      p, (unsigned long long)rx, (unsigned long long)tx,
			      (double)f->counters.interval_ns / 1e9,
			      other ? "; other priorities: " : "",
			      other ? rt_doc_prio_list(other_mask, list, sizeof(list)) : "");
		else {
			VALUE(c, "sampled once: movement not measured");
			c->status = RT_DOC_UNCHECKED;
		}
		if (other) {
			EXPECTED(c, "pause frames on priority %u only", p);
			FIX(c,
			    "compare PFC on both ends of the link (pfc.enabled here, the switch "
			    "port "
			    "facing %s): pausing priorities other than %u means the two disagree",
			    nd, p);
		}
		NOTE(c,
		     "received: the link partner paused this host (its buffer for the priority "
		     "filled); sent: this host paused the partner; both mean congestion that PFC "
		     "absorbed");
	} else {
		rt_doc_unchecked(t, "counters.pfc_pause", f->counters.eth_why);
	}
	if (discards) {
		uint64_t d = delta(discards);
		c = rt_doc_add(t, "counters.discards", d ? RT_DOC_WARN : RT_DOC_PASS);
		if (f->counters.sampled)
			VALUE(c, "rx_discards_phy +%llu in %g s (total %llu)",
			      (unsigned long long)d, (double)f->counters.interval_ns / 1e9,
			      (unsigned long long)discards->second);
		else {
			VALUE(c, "rx_discards_phy total %llu (sampled once)",
			      (unsigned long long)discards->second);
			c->status = RT_DOC_UNCHECKED;
		}
		if (d)
			FIX(c, "make the RoCE priority lossless (pfc.enabled, pfc.dscp_map) so the "
			       "NIC "
			       "pauses instead of dropping");
		NOTE(c, "frames the NIC dropped for lack of receive buffer");
	}
}

static void check_counters(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                           struct rt_doc_target *t)
{
	const char *nd = rt_doc_sysfs_dev(f);
	if (f->rdma)
		check_rdma_counters(f, cfg->priority, nd, t);
	check_eth_counters(f, cfg->priority, nd, t);
}

/* ---- live traffic ---- */

static void check_traffic(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                          struct rt_doc_target *t)
{
	const struct rt_doc_traffic *tr = &f->traffic;
	static const char *const names[] = {"traffic.ecn", "traffic.dscp", "traffic.pfc",
	                                    "traffic.cnp"};
	if (!cfg->traffic_ns)
		return;
	if (!tr->ran) {
		rt_doc_unchecked(t, names[0], tr->why);
		for (size_t i = 1; i < 4; i++)
			rt_doc_unchecked(t, names[i], "no capture (see traffic.ecn)");
		return;
	}
	char span[48];
	if (tr->duration_ns)
		snprintf(span, sizeof(span), "in %g s", (double)tr->duration_ns / 1e9);
	else
		snprintf(span, sizeof(span), "in the capture");
	struct rt_doc_check *c;
	if (!tr->roce) {
		char why[RT_DOC_WHY + 120];
		snprintf(why, sizeof(why),
		         "no RoCEv2 data packet %s from %s (idle; or kernel-bypass traffic, which "
		         "only the RDMA device's sniffer sees)",
		         span, tr->source);
		rt_doc_unchecked(t, "traffic.ecn", why);
		rt_doc_unchecked(t, "traffic.dscp", why);
	} else {
		uint64_t not_ect = tr->ecn[0];
		c = rt_doc_add(t, "traffic.ecn", not_ect ? RT_DOC_FAIL : RT_DOC_PASS);
		VALUE(c,
		      "%llu RoCEv2 data packets: Not-ECT %llu, ECT(0) %llu, ECT(1) %llu, CE %llu",
		      (unsigned long long)tr->roce, (unsigned long long)tr->ecn[0],
		      (unsigned long long)tr->ecn[2], (unsigned long long)tr->ecn[1],
		      (unsigned long long)tr->ecn[3]);
		EXPECTED(c, "every RoCE data packet ECN-capable (ECT)");
		if (not_ect) {
			FIX(c,
			    "enable the reaction point on the sending host (%s): echo 1 > " SYS
			    "/class/net/NETDEV/ecn/roce_rp/enable/%u there, and check its ToS",
			    tr->not_ect_src, cfg->priority);
			NOTE(c, "switches cannot CE-mark Not-ECT packets: they drop or pause them "
			        "instead, "
			        "and DCQCN never slows their sender");
		} else if (tr->ecn[3]) {
			NOTE(
			    c,
			    "CE-marked packets show congestion on the path, marked as DCQCN needs");
		}
		uint64_t off = tr->roce - tr->dscp[cfg->dscp];
		uint64_t off_pcp = tr->tagged - tr->pcp[cfg->priority];
		c = rt_doc_add(t, "traffic.dscp", off || off_pcp ? RT_DOC_FAIL : RT_DOC_PASS);
		c->value[0] = '\0';
		for (int d = 0; d < 64; d++)
			if (tr->dscp[d])
				rt_text_appendf(c->value, sizeof(c->value), "%sDSCP %d: %llu",
				                c->value[0] ? ", " : "", d,
				                (unsigned long long)tr->dscp[d]);
		if (!tr->tagged)
			rt_text_appendf(c->value, sizeof(c->value), " (untagged)");
		for (int q = 0; q < 8; q++)
			if (tr->pcp[q])
				rt_text_appendf(c->value, sizeof(c->value), "; PCP %d: %llu", q,
				                (unsigned long long)tr->pcp[q]);
		EXPECTED(c, "DSCP %u%s", cfg->dscp, tr->tagged ? "" : " on every RoCE data packet");
		if (tr->tagged)
			rt_text_appendf(c->expected, sizeof(c->expected),
			                ", PCP %u where VLAN-tagged", cfg->priority);
		if (off || off_pcp) {
			FIX(c,
			    "set the sender's (%s) traffic class: rdma_cm.tos for rdma_cm "
			    "applications, "
			    "NCCL_IB_TC=%u for NCCL",
			    tr->off_dscp_src[0] ? tr->off_dscp_src : "?", cfg->dscp << 2 | 2);
			NOTE(c, "RoCE packets with another DSCP land on another, usually lossy, "
			        "priority");
		}
	}

	uint64_t on_p = tr->pfc_xoff[cfg->priority], elsewhere = 0;
	uint8_t mask = 0;
	for (int q = 0; q < 8; q++)
		if (q != (int)cfg->priority && tr->pfc_xoff[q]) {
			elsewhere += tr->pfc_xoff[q];
			mask |= (uint8_t)(1u << q);
		}
	char list[32];
	c = rt_doc_add(t, "traffic.pfc", elsewhere ? RT_DOC_WARN : RT_DOC_PASS);
	if (!tr->pfc)
		VALUE(c, "no PFC frame %s", span);
	else
		VALUE(c, "%llu PFC frames: %llu pausing priority %u%s%s",
		      (unsigned long long)tr->pfc, (unsigned long long)on_p, cfg->priority,
		      elsewhere ? ", others pausing " : "",
		      elsewhere ? rt_doc_prio_list(mask, list, sizeof(list)) : "");
	EXPECTED(c, "pauses on priority %u only", cfg->priority);
	if (elsewhere)
		FIX(c,
		    "make PFC agree on both ends of the link: pfc.enabled here, the switch port's "
		    "PFC priorities there");
	NOTE(c, "a host's MAC consumes PFC frames, so a host capture rarely shows them (a switch "
	        "mirror does); counters.pfc_pause counts them");

	c = rt_doc_add(t, "traffic.cnp", RT_DOC_PASS);
	if (!tr->cnp) {
		VALUE(c, "no CNP %s", span);
	} else {
		int top = 0;
		for (int d = 1; d < 64; d++)
			if (tr->cnp_dscp[d] > tr->cnp_dscp[top])
				top = d;
		VALUE(c, "%llu CNPs, mostly DSCP %d", (unsigned long long)tr->cnp, top);
		if (f->cnp_dscp.known && tr->cnp_dscp[top] && top != f->cnp_dscp.v) {
			c->status = RT_DOC_WARN;
			EXPECTED(c, "DSCP %lld (ecn.cnp)", (long long)f->cnp_dscp.v);
			NOTE(c,
			     "the CNPs seen carry another DSCP than this host sends: the peers are "
			     "configured differently");
		}
	}
}

void rt_doc_judge_counters(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                           struct rt_doc_target *t)
{
	check_counters(f, cfg, t);
	check_traffic(f, cfg, t);
}
