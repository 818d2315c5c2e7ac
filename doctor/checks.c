/* The checks: facts in, verdicts out (status, value found, value expected, the fix, what it means). Reads nothing itself. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "doctor/facts.h"

#define SYS "/sys" /* fixes name the real paths, whatever --sysfs-root was */

__attribute__((format(printf, 3, 4))) static void put(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}
#define VALUE(c, ...)    put((c)->value, sizeof((c)->value), __VA_ARGS__)
#define EXPECTED(c, ...) put((c)->expected, sizeof((c)->expected), __VA_ARGS__)
#define FIX(c, ...)      put((c)->fix, sizeof((c)->fix), __VA_ARGS__)
#define NOTE(c, ...)     put((c)->note, sizeof((c)->note), __VA_ARGS__)

static struct rt_doc_check *add(struct rt_doc_target *t, const char *name, enum rt_doc_status st)
{
	static struct rt_doc_check overflow;
	if (t->nchecks >= RT_DOC_MAX_CHECKS)
		return memset(&overflow, 0, sizeof(overflow));
	struct rt_doc_check *c = &t->checks[t->nchecks++];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->status = st;
	return c;
}

static struct rt_doc_check *unchecked(struct rt_doc_target *t, const char *name, const char *why)
{
	struct rt_doc_check *c = add(t, name, RT_DOC_UNCHECKED);
	VALUE(c, "could not check: %s", why);
	return c;
}

unsigned rt_doc_roce_mtu(int64_t netdev_mtu)
{
	int64_t room = netdev_mtu - RT_DOC_ROCE_HEADERS;
	for (unsigned m = 4096; m >= 256; m /= 2)
		if (room >= (int64_t)m)
			return m;
	return 0;
}

/* "3,4" or "none" */
static const char *prio_list(uint8_t mask, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int p = 0; p < 8; p++)
		if (mask & (1u << p))
			rt_doc_appendf(buf, size, "%s%d", buf[0] ? "," : "", p);
	if (!buf[0])
		snprintf(buf, size, "none");
	return buf;
}

/* A GID in the form the kernel prints IPv4-mapped and IPv6 addresses. */
static const char *gid_text(const uint8_t gid[16], char *buf, size_t size)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (!memcmp(gid, v4mapped, 12)) {
		char a[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, gid + 12, a, sizeof(a));
		snprintf(buf, size, "::ffff:%s", a);
	} else {
		inet_ntop(AF_INET6, gid, buf, (socklen_t)size);
	}
	return buf;
}

static const char *addr_text(const struct rt_doc_addr *a, char *buf, size_t size)
{
	inet_ntop(a->family, a->addr, buf, (socklen_t)size);
	return buf;
}

/* The GID an address has on a RoCE port: itself for IPv6, ::ffff:a.b.c.d for IPv4. */
static void addr_gid(const struct rt_doc_addr *a, uint8_t gid[16])
{
	if (a->family == AF_INET) {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, a->addr, 4);
	} else {
		memcpy(gid, a->addr, 16);
	}
}

static bool is_link_local6(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static bool is_v4mapped(const uint8_t g[16])
{
	static const uint8_t p[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return !memcmp(g, p, 12);
}

static const char *sysfs_dev(const struct rt_doc_facts *f)
{
	return f->netdev[0] ? f->netdev : "NETDEV";
}

/* ---- link ---- */

static void check_link(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                       struct rt_doc_target *t)
{
	struct rt_doc_check *c;
	if (f->rdma) {
		if (!f->state.known) {
			unchecked(t, "link.state", f->state.why);
		} else if (!strcmp(f->state.v, "ACTIVE")) {
			c = add(t, "link.state", RT_DOC_PASS);
			VALUE(c, "ACTIVE%s%s%s", f->phys_state.known ? " (phys_state " : "",
			      f->phys_state.known ? f->phys_state.v : "", f->phys_state.known ? ")" : "");
			EXPECTED(c, "ACTIVE");
		} else {
			c = add(t, "link.state", RT_DOC_FAIL);
			VALUE(c, "%s%s%s%s", f->state.v, f->phys_state.known ? " (phys_state " : "",
			      f->phys_state.known ? f->phys_state.v : "", f->phys_state.known ? ")" : "");
			EXPECTED(c, "ACTIVE");
			FIX(c, "ip link set dev %s up; if the port stays down, check the cable or "
			       "transceiver and the switch port",
			    sysfs_dev(f));
			NOTE(c, "a RoCE port is ACTIVE when its netdev has link; phys_state Polling means "
			        "no link partner answers, Disabled that the port is switched off");
		}
		if (!f->link_layer.known) {
			unchecked(t, "link.layer", f->link_layer.why);
		} else if (!strcmp(f->link_layer.v, "Ethernet")) {
			c = add(t, "link.layer", RT_DOC_PASS);
			VALUE(c, "Ethernet");
			EXPECTED(c, "Ethernet");
		} else {
			c = add(t, "link.layer", RT_DOC_FAIL);
			VALUE(c, "%s", f->link_layer.v);
			EXPECTED(c, "Ethernet");
			FIX(c, "use an Ethernet port; on a VPI adapter switch this port to Ethernet: "
			       "mlxconfig -d %s set LINK_TYPE_P%u=2, then reboot",
			    f->pci[0] ? f->pci : f->dev, f->port);
			NOTE(c, "RoCE runs on Ethernet ports only");
		}
	}

	/* speed: the RDMA port's rate, else the netdev's */
	uint64_t bps = 0;
	bool known = false;
	if (f->rdma && f->rate.known && rt_doc_parse_rate(f->rate.v, &bps) == 0 && bps)
		known = true;
	else if (f->speed_mbps.known && f->speed_mbps.v > 0) {
		bps = (uint64_t)f->speed_mbps.v * 1000000u;
		known = true;
	}
	if (!known) {
		const char *why = f->rdma && !f->rate.known ? f->rate.why
		                  : f->speed_mbps.known     ? "the netdev reports no speed (virtual, or no link)"
		                                            : f->speed_mbps.why;
		if (f->netdev[0] || f->rdma)
			unchecked(t, "link.speed", why);
	} else {
		bool slow = cfg->speed_bps && bps < cfg->speed_bps;
		c = add(t, "link.speed", slow ? RT_DOC_FAIL : RT_DOC_PASS);
		VALUE(c, "%g Gb/s", (double)bps / 1e9);
		if (cfg->speed_bps)
			EXPECTED(c, ">= %g Gb/s", (double)cfg->speed_bps / 1e9);
		if (slow) {
			FIX(c, "check the cable or transceiver and the switch port's speed (ethtool %s "
			       "shows the supported and negotiated modes)",
			    sysfs_dev(f));
			NOTE(c, "a link that negotiated a lower speed slows every flow through it and "
			        "makes it the congestion point of the job");
		}
	}

	if (!f->netdev[0] || !f->netdev_exists) {
		unchecked(t, "link.netdev", f->netdev_why);
		return;
	}
	if (!f->operstate.known) {
		unchecked(t, "link.netdev", f->operstate.why);
	} else if (!strcmp(f->operstate.v, "up")) {
		c = add(t, "link.netdev", RT_DOC_PASS);
		VALUE(c, "%s up", f->netdev);
		EXPECTED(c, "up");
	} else if (!strcmp(f->operstate.v, "unknown")) {
		c = add(t, "link.netdev", RT_DOC_WARN);
		VALUE(c, "%s operstate unknown", f->netdev);
		EXPECTED(c, "up");
		NOTE(c, "the driver does not report the link state of %s", f->netdev);
	} else {
		c = add(t, "link.netdev", RT_DOC_FAIL);
		VALUE(c, "%s %s", f->netdev, f->operstate.v);
		EXPECTED(c, "up");
		FIX(c, "ip link set dev %s up", f->netdev);
	}
}

/* ---- MTU ---- */

static void check_mtu(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                      struct rt_doc_target *t)
{
	if (!f->netdev[0] || !f->netdev_exists) {
		unchecked(t, "mtu", f->netdev_why);
		return;
	}
	if (!f->mtu.known) {
		unchecked(t, "mtu", f->mtu.why);
		return;
	}
	unsigned roce = rt_doc_roce_mtu(f->mtu.v);
	unsigned need = cfg->min_mtu + RT_DOC_ROCE_HEADERS;
	struct rt_doc_check *c = add(t, "mtu", roce >= cfg->min_mtu ? RT_DOC_PASS : RT_DOC_FAIL);
	VALUE(c, "netdev MTU %lld -> RoCE MTU %u", (long long)f->mtu.v, roce);
	EXPECTED(c, "RoCE MTU %u: netdev MTU >= %u%s", cfg->min_mtu, need,
	         cfg->min_mtu == 4096 ? " (4200 is customary)" : "");
	NOTE(c, "the kernel gives RoCE the largest MTU of 256..4096 that fits the netdev MTU "
	        "less %d bytes of headers; a connection uses the smaller MTU of its two ends, and a "
	        "switch port with a smaller MTU drops the frames",
	     RT_DOC_ROCE_HEADERS);
	if (roce < cfg->min_mtu)
		FIX(c, "ip link set dev %s mtu %u (and at least as large on the switch ports and every "
		       "peer)",
		    f->netdev, cfg->min_mtu == 4096 ? 4200 : need);
}

/* ---- GIDs ---- */

/* The GID index to use: RoCE v2 on this netdev, IPv4-mapped first, then global IPv6, then link-local. */
static const struct rt_doc_gid *best_gid(const struct rt_doc_facts *f)
{
	const struct rt_doc_gid *best = NULL;
	int best_rank = 99;
	for (unsigned i = 0; i < f->ngids; i++) {
		const struct rt_doc_gid *g = &f->gids[i];
		if (g->type != RT_GID_ROCE_V2 || (g->ndev[0] && f->netdev[0] && strcmp(g->ndev, f->netdev)))
			continue;
		int rank = is_v4mapped(g->gid) ? 0 : is_link_local6(g->gid) ? 2 : 1;
		if (rank < best_rank) {
			best = g;
			best_rank = rank;
		}
	}
	return best;
}

static void check_gids(const struct rt_doc_facts *f, struct rt_doc_target *t)
{
	char a[64], g[64];
	struct rt_doc_check *c;
	t->gid_index = -1;
	if (!f->gids_known) {
		unchecked(t, "gid.roce_v2", f->gids_why);
		unchecked(t, "gid.index", f->gids_why);
		return;
	}
	bool types_known = false;
	for (unsigned i = 0; i < f->ngids; i++)
		types_known |= f->gids[i].type != RT_GID_UNKNOWN;

	/* every address has its RoCE v2 GID */
	if (!types_known && f->ngids) {
		unchecked(t, "gid.roce_v2", "the GID types (gid_attrs/types) are unreadable");
	} else if (!f->addrs_known) {
		unchecked(t, "gid.roce_v2", f->addrs_why);
	} else {
		char missing[200] = "", have[200] = "";
		unsigned routable = 0, nmissing = 0;
		const struct rt_doc_addr *first_missing = NULL;
		for (unsigned i = 0; i < f->naddrs; i++) {
			const struct rt_doc_addr *x = &f->addrs[i];
			if (x->family == AF_INET6 && is_link_local6(x->addr))
				continue;
			routable++;
			uint8_t want[16];
			addr_gid(x, want);
			const struct rt_doc_gid *hit = NULL;
			bool v1_only = false;
			for (unsigned k = 0; k < f->ngids; k++) {
				if (memcmp(f->gids[k].gid, want, 16))
					continue;
				if (f->gids[k].type == RT_GID_ROCE_V2)
					hit = &f->gids[k];
				else
					v1_only = true;
			}
			addr_text(x, a, sizeof(a));
			if (hit) {
				rt_doc_appendf(have, sizeof(have), "%s%s at %u", have[0] ? ", " : "", a, hit->index);
			} else {
				nmissing++;
				if (!first_missing)
					first_missing = x;
				rt_doc_appendf(missing, sizeof(missing), "%s%s%s", missing[0] ? ", " : "", a,
				       v1_only ? " (RoCE v1 only)" : "");
			}
		}
		if (!routable) {
			c = add(t, "gid.roce_v2", RT_DOC_WARN);
			VALUE(c, "%s has no IPv4 or global IPv6 address", f->netdev);
			EXPECTED(c, "a RoCE v2 GID for every address of %s", f->netdev);
			FIX(c, "ip address add ADDRESS/PREFIX dev %s", f->netdev);
			NOTE(c, "without an address only the link-local GIDs exist: rdma_cm cannot resolve "
			        "this host and RoCE v2 cannot be routed");
		} else if (nmissing) {
			c = add(t, "gid.roce_v2", RT_DOC_FAIL);
			VALUE(c, "no RoCE v2 GID for %s", missing);
			EXPECTED(c, "a RoCE v2 GID for every address of %s", f->netdev);
			addr_text(first_missing, a, sizeof(a));
			FIX(c, "the kernel adds the GIDs when an address appears on %s: re-add it (ip address "
			       "del %s/%u dev %s; ip address add %s/%u dev %s); if it stays missing, check "
			       "with 'rdma link show' that %s is the netdev of %s port %u",
			    f->netdev, a, first_missing->prefix, f->netdev, a, first_missing->prefix,
			    f->netdev, f->netdev, f->dev, f->port);
			NOTE(c, "a peer that connects to this address (rdma_cm, or a GID index chosen for "
			        "it) finds no RoCE v2 GID and fails to connect");
		} else {
			c = add(t, "gid.roce_v2", RT_DOC_PASS);
			VALUE(c, "%s", have);
			EXPECTED(c, "a RoCE v2 GID for every address of %s", f->netdev);
		}
	}

	/* which index to hand to perftest and NCCL */
	const struct rt_doc_gid *best = best_gid(f);
	if (!best) {
		c = add(t, "gid.index", types_known || !f->ngids ? RT_DOC_FAIL : RT_DOC_UNCHECKED);
		VALUE(c, "%s", types_known || !f->ngids ? "no RoCE v2 GID on this port"
		                                        : "could not check: GID types unreadable");
		EXPECTED(c, "a RoCE v2 GID of %s", f->netdev[0] ? f->netdev : "the port's netdev");
		if (c->status == RT_DOC_FAIL)
			FIX(c, "give %s an IPv4 address (ip address add ADDRESS/PREFIX dev %s)",
			    sysfs_dev(f), sysfs_dev(f));
		return;
	}
	t->gid_index = (int)best->index;
	c = add(t, "gid.index", RT_DOC_PASS);
	VALUE(c, "%u (RoCE v2, %s)", best->index, gid_text(best->gid, g, sizeof(g)));
	NOTE(c, "pass it to perftest as -x %u and to NCCL as NCCL_IB_GID_INDEX=%u%s", best->index,
	     best->index,
	     is_link_local6(best->gid) ? "; it is link-local, so the traffic cannot be routed" : "");
	if (is_link_local6(best->gid))
		c->status = RT_DOC_WARN;
}

/* ---- ECN ---- */

static void check_ecn_side(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                           struct rt_doc_target *t, bool np)
{
	const char *name = np ? "ecn.np" : "ecn.rp";
	const struct rt_doc_int *sw = np ? f->ecn_np : f->ecn_rp;
	unsigned p = cfg->priority;
	if (!f->netdev[0] || !f->netdev_exists) {
		unchecked(t, name, f->netdev_why);
		return;
	}
	if (!sw[p].known) {
		struct rt_doc_check *c = unchecked(t, name, sw[p].why);
		NOTE(c, "per-priority ECN switches are in sysfs with MLNX_OFED's mlx5 driver; where "
		        "they are absent the NIC uses its firmware's setting");
		return;
	}
	uint8_t mask = 0;
	for (int i = 0; i < 8; i++)
		if (sw[i].known && sw[i].v)
			mask |= (uint8_t)(1u << i);
	char list[32];
	bool on = sw[p].v != 0;
	struct rt_doc_check *c = add(t, name, on ? RT_DOC_PASS : RT_DOC_FAIL);
	VALUE(c, "%s on priority %u (enabled on: %s)", on ? "enabled" : "disabled", p,
	      prio_list(mask, list, sizeof(list)));
	EXPECTED(c, "enabled on priority %u", p);
	if (!on)
		FIX(c, "echo 1 > " SYS "/class/net/%s/ecn/%s/enable/%u", f->netdev,
		    np ? "roce_np" : "roce_rp", p);
	if (np)
		NOTE(c, "the notification point: the receiving NIC answers CE-marked packets with "
		        "CNPs; without it the senders never slow down and the switch queue grows until "
		        "PFC pauses the link or packets drop");
	else
		NOTE(c, "the reaction point: the sending NIC cuts a QP's rate on each CNP (DCQCN); "
		        "without it CNPs are ignored (hw counter rp_cnp_ignored) and congestion persists");
}

static void check_cnp(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                      struct rt_doc_target *t)
{
	if (!f->netdev[0] || !f->netdev_exists) {
		unchecked(t, "ecn.cnp", f->netdev_why);
		return;
	}
	if (!f->cnp_dscp.known && !f->cnp_prio.known) {
		unchecked(t, "ecn.cnp", f->cnp_dscp.why);
		return;
	}
	struct rt_doc_check *c = add(t, "ecn.cnp", RT_DOC_PASS);
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
		NOTE(c, "with trust dscp a peer configured like this host queues CNPs on priority %d; "
		        "CNPs should ride a high, uncongested priority (commonly DSCP 48, priority 6), "
		        "not the RoCE data priority %u",
		     cp, cfg->priority);
		if (cp == (int)cfg->priority)
			c->status = RT_DOC_WARN;
	} else {
		NOTE(c, "CNPs should ride a high, uncongested priority (commonly DSCP 48, priority 6)");
	}
	if (c->status == RT_DOC_WARN)
		FIX(c, "give CNPs their own priority: echo 48 > " SYS "/class/net/%s/ecn/roce_np/cnp_dscp; "
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
		unchecked(t, "pfc.enabled", f->netdev_why);
		unchecked(t, "pfc.trust", f->netdev_why);
		return;
	}
	if (!q->pfc_known) {
		unchecked(t, "pfc.enabled", q->why);
	} else {
		bool on = q->pfc_en & (1u << p);
		c = add(t, "pfc.enabled", on ? RT_DOC_PASS : RT_DOC_FAIL);
		VALUE(c, "PFC %s for priority %u (enabled on: %s; %s)", on ? "on" : "off", p,
		      prio_list(q->pfc_en, list, sizeof(list)), q->pfc_source);
		EXPECTED(c, "PFC on priority %u", p);
		if (!on)
			FIX(c, "dcb pfc set dev %s prio-pfc %u:on (or: mlnx_qos -i %s --pfc %s)", f->netdev, p,
			    f->netdev, pfc_vector((uint8_t)(q->pfc_en | 1u << p), vec));
		NOTE(c, "PFC makes the RoCE priority lossless: a full receive buffer pauses the sender "
		        "instead of dropping; without it every drop costs a go-back-N retransmission");
	}

	if (!q->trust_known) {
		unchecked(t, "pfc.trust", q->pfc_known ? q->why : "no source answered (see pfc.enabled)");
	} else if (q->trust == RT_TRUST_DSCP) {
		c = add(t, "pfc.trust", RT_DOC_PASS);
		VALUE(c, "dscp (%s)", q->trust_source);
		EXPECTED(c, "dscp, or pcp with VLAN-tagged RoCE");
		NOTE(c, "received packets are classified by their DSCP");
	} else {
		bool vlan = has_vlan_gids(f);
		c = add(t, "pfc.trust", vlan ? RT_DOC_PASS : RT_DOC_WARN);
		VALUE(c, "pcp (%s)%s", q->trust_source,
		      vlan ? ", RoCE GIDs on VLAN netdevs carry a PCP" : ", RoCE runs untagged");
		EXPECTED(c, "dscp, or pcp with VLAN-tagged RoCE");
		if (!vlan) {
			FIX(c, "mlnx_qos -i %s --trust dscp (or: dcb app add dev %s dscp-prio %u:%u, whose "
			       "DSCP entries switch mlx5 to trust dscp)",
			    f->netdev, f->netdev, cfg->dscp, p);
			NOTE(c, "untagged frames carry no PCP: with trust pcp the NIC and the switch put "
			        "them on priority 0, which is not lossless");
		}
	}

	/* the DSCP map matters under trust dscp */
	if (q->trust_known && q->trust == RT_TRUST_PCP)
		return;
	if (!q->map_known) {
		unchecked(t, "pfc.dscp_map",
		          q->pfc_known || q->trust_known ? q->why : "no source answered (see pfc.enabled)");
		return;
	}
	int got = q->dscp2prio[cfg->dscp];
	if (got < 0) {
		c = add(t, "pfc.dscp_map", RT_DOC_WARN);
		VALUE(c, "no entry for DSCP %u (%s)", cfg->dscp, q->map_source);
	} else {
		c = add(t, "pfc.dscp_map", got == (int)p ? RT_DOC_PASS : RT_DOC_FAIL);
		VALUE(c, "DSCP %u -> priority %d (%s)", cfg->dscp, got, q->map_source);
	}
	EXPECTED(c, "DSCP %u -> priority %u", cfg->dscp, p);
	if (c->status != RT_DOC_PASS)
		FIX(c, "dcb app replace dev %s dscp-prio %u:%u (or: mlnx_qos -i %s --dscp2prio set,%u,%u)",
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
		struct rt_doc_check *c = unchecked(t, "pfc.peer", q->peer_why);
		NOTE(c, "the link partner's PFC is known only from DCBX/LLDP (a driver that reports "
		        "the peer, or lldpad)");
		return;
	}
	char list[32];
	bool on = q->peer_pfc_en & (1u << cfg->priority);
	struct rt_doc_check *c = add(t, "pfc.peer", on ? RT_DOC_PASS : RT_DOC_FAIL);
	VALUE(c, "the link partner has PFC on: %s (%s)", prio_list(q->peer_pfc_en, list, sizeof(list)),
	      q->peer_source);
	EXPECTED(c, "PFC on priority %u at the link partner", cfg->priority);
	if (!on)
		FIX(c, "enable PFC for priority %u on the switch port facing %s, with a lossless buffer "
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
		unchecked(t, "rdma_cm.tos", f->roce_tos.why);
		return;
	}
	bool dflt = !f->cm_group;
	if (!dflt && !f->roce_tos.known) {
		unchecked(t, "rdma_cm.tos", f->roce_tos.why);
	} else {
		long long tos = dflt ? 0 : f->roce_tos.v;
		int dscp = (int)((tos >> 2) & 63);
		bool dscp_trust = f->qos.trust_known && f->qos.trust == RT_TRUST_DSCP;
		int prio = dscp_trust && f->qos.map_known ? f->qos.dscp2prio[dscp] : -1;
		if (dscp == (int)cfg->dscp)
			c = add(t, "rdma_cm.tos", RT_DOC_PASS);
		else if (prio == (int)p)
			c = add(t, "rdma_cm.tos", RT_DOC_WARN);
		else if (dflt)
			c = add(t, "rdma_cm.tos", RT_DOC_WARN);
		else
			c = add(t, "rdma_cm.tos", RT_DOC_FAIL);
		char pr[48] = "";
		if (prio >= 0)
			snprintf(pr, sizeof(pr), " -> priority %d", prio);
		VALUE(c, "ToS %lld (DSCP %d%s)%s", tos, dscp, pr,
		      dflt ? ", the default: no configfs group for this device" : "");
		EXPECTED(c, "ToS %u (DSCP %u -> priority %u, ECT(0))", want_tos, cfg->dscp, p);
		if (c->status != RT_DOC_PASS)
			FIX(c, "mkdir -p " SYS "/kernel/config/rdma_cm/%s && echo %u > " SYS
			       "/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos",
			    f->dev, want_tos, f->dev, f->port);
		NOTE(c, "rdma_cm connections (perftest -R, MPI/UCX, NVMe-oF, storage) that set no ToS "
		        "of their own carry this one; NCCL does not use rdma_cm: give it "
		        "NCCL_IB_TC=%u",
		     want_tos);
	}
	if (!f->cm_group)
		return;
	if (!f->roce_mode.known) {
		unchecked(t, "rdma_cm.mode", f->roce_mode.why);
	} else {
		bool v2 = !strcmp(f->roce_mode.v, "RoCE v2");
		c = add(t, "rdma_cm.mode", v2 ? RT_DOC_PASS : RT_DOC_FAIL);
		VALUE(c, "%s", f->roce_mode.v);
		EXPECTED(c, "RoCE v2");
		if (!v2)
			FIX(c, "echo 'RoCE v2' > " SYS "/kernel/config/rdma_cm/%s/ports/%u/default_roce_mode",
			    f->dev, f->port);
		NOTE(c, "RoCE v1 has no IP header: no DSCP, no ECN, no routing");
	}
}

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
			snprintf(why, sizeof(why), "hw_counters/%s: absent or unreadable (not counted by "
			                           "this driver?)",
			         name);
		unchecked(t, check, why);
		return NULL;
	}
	struct rt_doc_check *c = add(t, check, RT_DOC_PASS);
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

static void check_counters(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                           struct rt_doc_target *t)
{
	unsigned p = cfg->priority;
	const char *nd = sysfs_dev(f);
	struct rt_doc_check *c;
	if (f->rdma) {
		uint64_t marked = delta(counter(f, "np_ecn_marked_roce_packets"));
		c = counter_check(f, t, "counters.ecn_marked", "np_ecn_marked_roce_packets");
		if (c)
			NOTE(c, marked ? "CE-marked RoCE packets arrive: a switch queue toward this host is "
			                 "congested and marks, as DCQCN needs"
			               : "no CE-marked RoCE packet arrived: no congestion toward this host "
			                 "(or no traffic) while sampled");
		c = counter_check(f, t, "counters.cnp_sent", "np_cnp_sent");
		if (c) {
			if (f->counters.sampled && marked && !delta(counter(f, "np_cnp_sent"))) {
				c->status = RT_DOC_FAIL;
				EXPECTED(c, "CNPs sent while CE-marked packets arrive");
				FIX(c, "enable the notification point on the priority the traffic uses: echo 1 > " SYS
				       "/class/net/%s/ecn/roce_np/enable/%u",
				    nd, p);
				NOTE(c, "%llu CE-marked packets arrived but no CNP went out: the senders are not "
				        "told to slow down",
				     (unsigned long long)marked);
			} else {
				NOTE(c, "CNPs this NIC sent to slow down the senders of CE-marked packets");
			}
		}
		c = counter_check(f, t, "counters.cnp_handled", "rp_cnp_handled");
		if (c) {
			uint64_t ign = delta(counter(f, "rp_cnp_ignored"));
			if (ign) {
				c->status = RT_DOC_WARN;
				FIX(c, "enable the reaction point: echo 1 > " SYS
				       "/class/net/%s/ecn/roce_rp/enable/%u",
				    nd, p);
				NOTE(c, "%llu CNPs were ignored (rp_cnp_ignored): the reaction point is off for "
				        "their priority, so the senders here never slow down",
				     (unsigned long long)ign);
			} else {
				NOTE(c, delta(counter(f, "rp_cnp_handled"))
				            ? "CNPs arrived and cut this host's sending rate (DCQCN reacting)"
				            : "no CNP arrived: this host's flows were not asked to slow down");
			}
		}
		c = counter_check(f, t, "counters.out_of_buffer", "out_of_buffer");
		if (c) {
			uint64_t d = delta(counter(f, "out_of_buffer"));
			if (d) {
				c->status = RT_DOC_WARN;
				FIX(c, "the receiving application must keep more receive requests posted (a "
				       "deeper receive queue or a shared receive queue)");
			}
			NOTE(c, d ? "packets dropped because no receive request was posted (the receive "
			            "queue ran empty); the sender retries after an RNR NAK"
			          : "no packet found an empty receive queue");
		}
		c = counter_check(f, t, "counters.seq_err", "packet_seq_err");
		if (c) {
			uint64_t d = delta(counter(f, "packet_seq_err"));
			uint64_t oos = delta(counter(f, "out_of_sequence"));
			if (d || oos) {
				c->status = RT_DOC_WARN;
				FIX(c, "find the drop: PFC on priority %u here, at the peers and on every switch "
				       "hop (pfc.enabled, pfc.peer), and the switch's lossless buffers",
				    p);
				NOTE(c, "PSN sequence errors (NAKs received %llu, out-of-sequence packets "
				        "received %llu): packets were lost on the way, which a lossless fabric "
				        "never does; each loss forces a go-back-N retransmission",
				     (unsigned long long)d, (unsigned long long)oos);
			} else {
				NOTE(c, "no packet was lost in flight while sampled");
			}
		}
	}

	/* the netdev's ethtool statistics: PFC pause frames per priority, NIC buffer drops */
	if (!f->netdev[0] || !f->netdev_exists)
		return;
	if (!f->counters.neth) {
		unchecked(t, "counters.pfc_pause", f->counters.eth_why);
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
		c = add(t, "counters.pfc_pause", other ? RT_DOC_WARN : RT_DOC_PASS);
		if (f->counters.sampled)
			VALUE(c, "priority %u: received +%llu, sent +%llu pause frames in %g s%s%s", p,
			      (unsigned long long)rx, (unsigned long long)tx,
			      (double)f->counters.interval_ns / 1e9, other ? "; other priorities: " : "",
			      other ? prio_list(other_mask, list, sizeof(list)) : "");
		else {
			VALUE(c, "sampled once: movement not measured");
			c->status = RT_DOC_UNCHECKED;
		}
		if (other) {
			EXPECTED(c, "pause frames on priority %u only", p);
			FIX(c, "compare PFC on both ends of the link (pfc.enabled here, the switch port "
			       "facing %s): pausing priorities other than %u means the two disagree",
			    nd, p);
		}
		NOTE(c, "received: the link partner paused this host (its buffer for the priority "
		        "filled); sent: this host paused the partner; both mean congestion that PFC "
		        "absorbed");
	} else {
		unchecked(t, "counters.pfc_pause", f->counters.eth_why);
	}
	if (discards) {
		uint64_t d = delta(discards);
		c = add(t, "counters.discards", d ? RT_DOC_WARN : RT_DOC_PASS);
		if (f->counters.sampled)
			VALUE(c, "rx_discards_phy +%llu in %g s (total %llu)", (unsigned long long)d,
			      (double)f->counters.interval_ns / 1e9, (unsigned long long)discards->second);
		else {
			VALUE(c, "rx_discards_phy total %llu (sampled once)",
			      (unsigned long long)discards->second);
			c->status = RT_DOC_UNCHECKED;
		}
		if (d)
			FIX(c, "make the RoCE priority lossless (pfc.enabled, pfc.dscp_map) so the NIC "
			       "pauses instead of dropping");
		NOTE(c, "frames the NIC dropped for lack of receive buffer");
	}
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
		unchecked(t, names[0], tr->why);
		for (size_t i = 1; i < 4; i++)
			unchecked(t, names[i], "no capture (see traffic.ecn)");
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
		unchecked(t, "traffic.ecn", why);
		unchecked(t, "traffic.dscp", why);
	} else {
		uint64_t not_ect = tr->ecn[0];
		c = add(t, "traffic.ecn", not_ect ? RT_DOC_FAIL : RT_DOC_PASS);
		VALUE(c, "%llu RoCEv2 data packets: Not-ECT %llu, ECT(0) %llu, ECT(1) %llu, CE %llu",
		      (unsigned long long)tr->roce, (unsigned long long)tr->ecn[0],
		      (unsigned long long)tr->ecn[2], (unsigned long long)tr->ecn[1],
		      (unsigned long long)tr->ecn[3]);
		EXPECTED(c, "every RoCE data packet ECN-capable (ECT)");
		if (not_ect) {
			FIX(c, "enable the reaction point on the sending host (%s): echo 1 > " SYS
			       "/class/net/NETDEV/ecn/roce_rp/enable/%u there, and check its ToS",
			    tr->not_ect_src, cfg->priority);
			NOTE(c, "switches cannot CE-mark Not-ECT packets: they drop or pause them instead, "
			        "and DCQCN never slows their sender");
		} else if (tr->ecn[3]) {
			NOTE(c, "CE-marked packets show congestion on the path, marked as DCQCN needs");
		}
		uint64_t off = tr->roce - tr->dscp[cfg->dscp];
		uint64_t off_pcp = tr->tagged - tr->pcp[cfg->priority];
		c = add(t, "traffic.dscp", off || off_pcp ? RT_DOC_FAIL : RT_DOC_PASS);
		c->value[0] = '\0';
		for (int d = 0; d < 64; d++)
			if (tr->dscp[d])
				rt_doc_appendf(c->value, sizeof(c->value), "%sDSCP %d: %llu", c->value[0] ? ", " : "", d,
				       (unsigned long long)tr->dscp[d]);
		if (!tr->tagged)
			rt_doc_appendf(c->value, sizeof(c->value), " (untagged)");
		for (int q = 0; q < 8; q++)
			if (tr->pcp[q])
				rt_doc_appendf(c->value, sizeof(c->value), "; PCP %d: %llu", q,
				       (unsigned long long)tr->pcp[q]);
		EXPECTED(c, "DSCP %u%s", cfg->dscp, tr->tagged ? "" : " on every RoCE data packet");
		if (tr->tagged)
			rt_doc_appendf(c->expected, sizeof(c->expected), ", PCP %u where VLAN-tagged", cfg->priority);
		if (off || off_pcp) {
			FIX(c, "set the sender's (%s) traffic class: rdma_cm.tos for rdma_cm applications, "
			       "NCCL_IB_TC=%u for NCCL",
			    tr->off_dscp_src[0] ? tr->off_dscp_src : "?", cfg->dscp << 2 | 2);
			NOTE(c, "RoCE packets with another DSCP land on another, usually lossy, priority");
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
	c = add(t, "traffic.pfc", elsewhere ? RT_DOC_WARN : RT_DOC_PASS);
	if (!tr->pfc)
		VALUE(c, "no PFC frame %s", span);
	else
		VALUE(c, "%llu PFC frames: %llu pausing priority %u%s%s", (unsigned long long)tr->pfc,
		      (unsigned long long)on_p, cfg->priority, elsewhere ? ", others pausing " : "",
		      elsewhere ? prio_list(mask, list, sizeof(list)) : "");
	EXPECTED(c, "pauses on priority %u only", cfg->priority);
	if (elsewhere)
		FIX(c, "make PFC agree on both ends of the link: pfc.enabled here, the switch port's "
		       "PFC priorities there");
	NOTE(c, "a host's MAC consumes PFC frames, so a host capture rarely shows them (a switch "
	        "mirror does); counters.pfc_pause counts them");

	c = add(t, "traffic.cnp", RT_DOC_PASS);
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
			NOTE(c, "the CNPs seen carry another DSCP than this host sends: the peers are "
			        "configured differently");
		}
	}
}

void rt_doc_judge(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                  struct rt_doc_target *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->dev, sizeof(t->dev), "%s", f->rdma ? f->dev : "");
	t->port = f->rdma ? f->port : 0;
	snprintf(t->netdev, sizeof(t->netdev), "%s", f->netdev);
	t->gid_index = -1;
	check_link(f, cfg, t);
	check_mtu(f, cfg, t);
	if (f->rdma)
		check_gids(f, t);
	check_ecn_side(f, cfg, t, true);
	check_ecn_side(f, cfg, t, false);
	check_cnp(f, cfg, t);
	check_pfc(f, cfg, t);
	check_peer(f, cfg, t);
	if (f->rdma)
		check_rdma_cm(f, cfg, t);
	check_counters(f, cfg, t);
	check_traffic(f, cfg, t);
}
