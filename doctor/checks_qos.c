/* doctor's checks of the lossless setup: ECN, CNPs, PFC, trust, DSCP map, peer, rdma_cm. */
#include <stdio.h>
#include <string.h>

#include "doctor/internal.h"

/* ---- ECN ---- */

static void check_ecn_side(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                           struct rt_doc_target *t, bool np)
{
	const char *name = np ? "ecn.np" : "ecn.rp";
	const struct rt_doc_int *sw = np ? f->ecn_np : f->ecn_rp;
	unsigned p = cfg->priority;
	if (!f->netdev[0] || !f->netdev_exists) {
		rt_doc_unchecked(t, name, f->netdev_why);
		return;
	}
	if (!sw[p].known) {
		struct rt_doc_check *c = rt_doc_unchecked(t, name, sw[p].why);
		NOTE(c,
		     "per-priority ECN switches are in sysfs with MLNX_OFED's mlx5 driver; where "
		     "they are absent the NIC uses its firmware's setting");
		return;
	}
	uint8_t mask = 0;
	for (int i = 0; i < 8; i++)
		if (sw[i].known && sw[i].v)
			mask |= (uint8_t)(1u << i);
	char list[32];
	bool on = sw[p].v != 0;
	struct rt_doc_check *c = rt_doc_add(t, name, on ? RT_DOC_PASS : RT_DOC_FAIL);
	VALUE(c, "%s on priority %u (enabled on: %s)", on ? "enabled" : "disabled", p,
	      rt_doc_prio_list(mask, list, sizeof(list)));
	EXPECTED(c, "enabled on priority %u", p);
	if (!on)
		FIX(c, "echo 1 > " SYS "/class/net/%s/ecn/%s/enable/%u", f->netdev,
		    np ? "roce_np" : "roce_rp", p);
	if (np)
		NOTE(
		    c,
		    "the notification point: the receiving NIC answers CE-marked packets with "
		    "CNPs; without it the senders never slow down and the switch queue grows until "
		    "PFC pauses the link or packets drop");
	else
		NOTE(c, "the reaction point: the sending NIC cuts a QP's rate on each CNP (DCQCN); "
		        "without it CNPs are ignored (hw counter rp_cnp_ignored) and congestion "
		        "persists");
}

static void check_cnp(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                      struct rt_doc_target *t)
{
	if (!f->netdev[0] || !f->netdev_exists) {
		rt_doc_unchecked(t, "ecn.cnp", f->netdev_why);
		return;
	}
	if (!f->cnp_dscp.known && !f->cnp_prio.known) {
		rt_doc_unchecked(t, "ecn.cnp", f->cnp_dscp.why);
		return;
	}
	struct rt_doc_check *c = rt_doc_add(t, "ecn.cnp", RT_DOC_PASS);
	char d[16] = "?", p[16] = "?";
	if (f->cnp_dscp.known)
		snprintf(d, sizeof(d), "%lld", (long long)f->cnp_dscp.v);
	if (f->cnp_prio.known)
		snprintf(p, sizeof(p), "%lld", (long long)f->cnp_prio.v);
	VALUE(c, "CNPs leave with DSCP %s, priority %s (%s)", d, p, f->cnp_source);
	/* under trust dscp the peer classifies the CNP by its DSCP */
	if (f->cnp_dscp.known && f->cnp_dscp.v >= 0 && f->cnp_dscp.v < 64 && f->qos.map_known &&
	    f->qos.trust_known && f->qos.trust == RT_TRUST_DSCP &&
	    f->qos.dscp2prio[f->cnp_dscp.v] >= 0) {
		int cp = f->qos.dscp2prio[f->cnp_dscp.v];
		NOTE(
		    c,
		    "with trust dscp a peer configured like this host queues CNPs on priority %d; "
		    "CNPs should ride a high, uncongested priority (commonly DSCP 48, priority 6), "
		    "not the RoCE data priority %u",
		    cp, cfg->priority);
		if (cp == (int)cfg->priority)
			c->status = RT_DOC_WARN;
	} else {
		NOTE(
		    c,
		    "CNPs should ride a high, uncongested priority (commonly DSCP 48, priority 6)");
	}
	if (c->status == RT_DOC_WARN)
		FIX(c,
		    "give CNPs their own priority: echo 48 > " SYS
		    "/class/net/%s/ecn/roce_np/cnp_dscp; "
		    "echo 6 > " SYS "/class/net/%s/ecn/roce_np/cnp_802p_prio",
		    f->netdev, f->netdev);
}

/* ---- PFC, trust, DSCP map ---- */

/* "0,0,0,1,0,0,0,0" for mlnx_qos --pfc with priority p added to mask */
static const char *pfc_vector(uint8_t mask, char *buf)
{
	for (int i = 0; i < 8; i++) {
		buf[2 * i] = (mask & (1u << i)) ? '1' : '0';
		buf[2 * i + 1] = i < 7 ? ',' : '\0';
	}
	return buf;
}

static bool has_vlan_gids(const struct rt_doc_facts *f)
{
	for (unsigned i = 0; i < f->ngids; i++)
		if (f->gids[i].ndev[0] && f->netdev[0] && strcmp(f->gids[i].ndev, f->netdev))
			return true;
	return false;
}

static void check_pfc(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                      struct rt_doc_target *t)
{
	const struct rt_doc_qos *q = &f->qos;
	unsigned p = cfg->priority;
	char list[32], vec[16];
	struct rt_doc_check *c;
	if (!f->netdev[0] || !f->netdev_exists) {
		rt_doc_unchecked(t, "pfc.enabled", f->netdev_why);
		rt_doc_unchecked(t, "pfc.trust", f->netdev_why);
		return;
	}
	if (!q->pfc_known) {
		rt_doc_unchecked(t, "pfc.enabled", q->why);
	} else {
		bool on = q->pfc_en & (1u << p);
		c = rt_doc_add(t, "pfc.enabled", on ? RT_DOC_PASS : RT_DOC_FAIL);
		VALUE(c, "PFC %s for priority %u (enabled on: %s; %s)", on ? "on" : "off", p,
		      rt_doc_prio_list(q->pfc_en, list, sizeof(list)), q->pfc_source);
		EXPECTED(c, "PFC on priority %u", p);
		if (!on)
			FIX(c, "dcb pfc set dev %s prio-pfc %u:on (or: mlnx_qos -i %s --pfc %s)",
			    f->netdev, p, f->netdev,
			    pfc_vector((uint8_t)(q->pfc_en | 1u << p), vec));
		NOTE(
		    c,
		    "PFC makes the RoCE priority lossless: a full receive buffer pauses the sender "
		    "instead of dropping; without it every drop costs a go-back-N retransmission");
	}

	if (!q->trust_known) {
		rt_doc_unchecked(t, "pfc.trust",
		                 q->pfc_known ? q->why : "no source answered (see pfc.enabled)");
	} else if (q->trust == RT_TRUST_DSCP) {
		c = rt_doc_add(t, "pfc.trust", RT_DOC_PASS);
		VALUE(c, "dscp (%s)", q->trust_source);
		EXPECTED(c, "dscp, or pcp with VLAN-tagged RoCE");
		NOTE(c, "received packets are classified by their DSCP");
	} else {
		bool vlan = has_vlan_gids(f);
		c = rt_doc_add(t, "pfc.trust", vlan ? RT_DOC_PASS : RT_DOC_WARN);
		VALUE(c, "pcp (%s)%s", q->trust_source,
		      vlan ? ", RoCE GIDs on VLAN netdevs carry a PCP" : ", RoCE runs untagged");
		EXPECTED(c, "dscp, or pcp with VLAN-tagged RoCE");
		if (!vlan) {
			FIX(c,
			    "mlnx_qos -i %s --trust dscp (or: dcb app add dev %s dscp-prio %u:%u, "
			    "whose "
			    "DSCP entries switch mlx5 to trust dscp)",
			    f->netdev, f->netdev, cfg->dscp, p);
			NOTE(c, "untagged frames carry no PCP: with trust pcp the NIC and the "
			        "switch put "
			        "them on priority 0, which is not lossless");
		}
	}

	/* the DSCP map matters under trust dscp */
	if (q->trust_known && q->trust == RT_TRUST_PCP)
		return;
	if (!q->map_known) {
		rt_doc_unchecked(t, "pfc.dscp_map",
		                 q->pfc_known || q->trust_known
		                     ? q->why
		                     : "no source answered (see pfc.enabled)");
		return;
	}
	int got = q->dscp2prio[cfg->dscp];
	if (got < 0) {
		c = rt_doc_add(t, "pfc.dscp_map", RT_DOC_WARN);
		VALUE(c, "no entry for DSCP %u (%s)", cfg->dscp, q->map_source);
	} else {
		c = rt_doc_add(t, "pfc.dscp_map", got == (int)p ? RT_DOC_PASS : RT_DOC_FAIL);
		VALUE(c, "DSCP %u -> priority %d (%s)", cfg->dscp, got, q->map_source);
	}
	EXPECTED(c, "DSCP %u -> priority %u", cfg->dscp, p);
	if (c->status != RT_DOC_PASS)
		FIX(c,
		    "dcb app replace dev %s dscp-prio %u:%u (or: mlnx_qos -i %s --dscp2prio "
		    "set,%u,%u)",
		    f->netdev, cfg->dscp, p, f->netdev, cfg->dscp, p);
	NOTE(c, "RoCE data marked DSCP %u must land on the lossless priority %u", cfg->dscp, p);
}

static void check_peer(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                       struct rt_doc_target *t)
{
	const struct rt_doc_qos *q = &f->qos;
	if (!f->netdev[0] || !f->netdev_exists)
		return;
	if (!q->peer_known) {
		struct rt_doc_check *c = rt_doc_unchecked(t, "pfc.peer", q->peer_why);
		NOTE(c,
		     "the link partner's PFC is known only from DCBX/LLDP (a driver that reports "
		     "the peer, or lldpad)");
		return;
	}
	char list[32];
	bool on = q->peer_pfc_en & (1u << cfg->priority);
	struct rt_doc_check *c = rt_doc_add(t, "pfc.peer", on ? RT_DOC_PASS : RT_DOC_FAIL);
	VALUE(c, "the link partner has PFC on: %s (%s)",
	      rt_doc_prio_list(q->peer_pfc_en, list, sizeof(list)), q->peer_source);
	EXPECTED(c, "PFC on priority %u at the link partner", cfg->priority);
	if (!on)
		FIX(c,
		    "enable PFC for priority %u on the switch port facing %s, with a lossless "
		    "buffer "
		    "for it",
		    cfg->priority, f->netdev);
	NOTE(c, "PFC works per link: both ends must pause the same priority");
}

/* ---- rdma_cm ---- */

static void check_rdma_cm(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                          struct rt_doc_target *t)
{
	unsigned p = cfg->priority;
	unsigned want_tos = cfg->dscp << 2 | 2; /* DSCP and ECT(0) */
	struct rt_doc_check *c;
	if (!f->cm_configfs) {
		rt_doc_unchecked(t, "rdma_cm.tos", f->roce_tos.why);
		return;
	}
	bool dflt = !f->cm_group;
	if (!dflt && !f->roce_tos.known) {
		rt_doc_unchecked(t, "rdma_cm.tos", f->roce_tos.why);
	} else {
		long long tos = dflt ? 0 : f->roce_tos.v;
		int dscp = (int)((tos >> 2) & 63);
		bool dscp_trust = f->qos.trust_known && f->qos.trust == RT_TRUST_DSCP;
		int prio = dscp_trust && f->qos.map_known ? f->qos.dscp2prio[dscp] : -1;
		if (dscp == (int)cfg->dscp)
			c = rt_doc_add(t, "rdma_cm.tos", RT_DOC_PASS);
		else if (prio == (int)p)
			c = rt_doc_add(t, "rdma_cm.tos", RT_DOC_WARN);
		else if (dflt)
			c = rt_doc_add(t, "rdma_cm.tos", RT_DOC_WARN);
		else
			c = rt_doc_add(t, "rdma_cm.tos", RT_DOC_FAIL);
		char pr[48] = "";
		if (prio >= 0)
			snprintf(pr, sizeof(pr), " -> priority %d", prio);
		VALUE(c, "ToS %lld (DSCP %d%s)%s", tos, dscp, pr,
		      dflt ? ", the default: no configfs group for this device" : "");
		EXPECTED(c, "ToS %u (DSCP %u -> priority %u, ECT(0))", want_tos, cfg->dscp, p);
		if (c->status != RT_DOC_PASS)
			FIX(c,
			    "mkdir -p " SYS "/kernel/config/rdma_cm/%s && echo %u > " SYS
			    "/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos",
			    f->dev, want_tos, f->dev, f->port);
		NOTE(c,
		     "rdma_cm connections (perftest -R, MPI/UCX, NVMe-oF, storage) that set no ToS "
		     "of their own carry this one; NCCL does not use rdma_cm: give it "
		     "NCCL_IB_TC=%u",
		     want_tos);
	}
	if (!f->cm_group)
		return;
	if (!f->roce_mode.known) {
		rt_doc_unchecked(t, "rdma_cm.mode", f->roce_mode.why);
	} else {
		bool v2 = !strcmp(f->roce_mode.v, "RoCE v2");
		c = rt_doc_add(t, "rdma_cm.mode", v2 ? RT_DOC_PASS : RT_DOC_FAIL);
		VALUE(c, "%s", f->roce_mode.v);
		EXPECTED(c, "RoCE v2");
		if (!v2)
			FIX(c,
			    "echo 'RoCE v2' > " SYS
			    "/kernel/config/rdma_cm/%s/ports/%u/default_roce_mode",
			    f->dev, f->port);
		NOTE(c, "RoCE v1 has no IP header: no DSCP, no ECN, no routing");
	}
}

void rt_doc_judge_qos(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                      struct rt_doc_target *t)
{
	check_ecn_side(f, cfg, t, true);
	check_ecn_side(f, cfg, t, false);
	check_cnp(f, cfg, t);
	check_pfc(f, cfg, t);
	check_peer(f, cfg, t);
	if (f->rdma)
		check_rdma_cm(f, cfg, t);
}
