/* doctor's checks of the port itself: link state and speed, the netdev, MTU, RoCE v2 GIDs. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "doctor/internal.h"
#include "common/textfmt.h"

unsigned rt_doc_roce_mtu(int64_t netdev_mtu)
{
	int64_t room = netdev_mtu - RT_DOC_ROCE_HEADERS;
	for (unsigned m = 4096; m >= 256; m /= 2)
		if (room >= (int64_t)m)
			return m;
	return 0;
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

/* ---- link ---- */

static void check_link(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                       struct rt_doc_target *t)
{
	struct rt_doc_check *c;
	if (f->rdma) {
		if (!f->state.known) {
			rt_doc_unchecked(t, "link.state", f->state.why);
		} else if (!strcmp(f->state.v, "ACTIVE")) {
			c = rt_doc_add(t, "link.state", RT_DOC_PASS);
			VALUE(c, "ACTIVE%s%s%s", f->phys_state.known ? " (phys_state " : "",
			      f->phys_state.known ? f->phys_state.v : "",
			      f->phys_state.known ? ")" : "");
			EXPECTED(c, "ACTIVE");
		} else {
			c = rt_doc_add(t, "link.state", RT_DOC_FAIL);
			VALUE(c, "%s%s%s%s", f->state.v, f->phys_state.known ? " (phys_state " : "",
			      f->phys_state.known ? f->phys_state.v : "",
			      f->phys_state.known ? ")" : "");
			EXPECTED(c, "ACTIVE");
			FIX(c,
			    "ip link set dev %s up; if the port stays down, check the cable or "
			    "transceiver and the switch port",
			    rt_doc_sysfs_dev(f));
			NOTE(c, "a RoCE port is ACTIVE when its netdev has link; phys_state "
			        "Polling means "
			        "no link partner answers, Disabled that the port is switched off");
		}
		if (!f->link_layer.known) {
			rt_doc_unchecked(t, "link.layer", f->link_layer.why);
		} else if (!strcmp(f->link_layer.v, "Ethernet")) {
			c = rt_doc_add(t, "link.layer", RT_DOC_PASS);
			VALUE(c, "Ethernet");
			EXPECTED(c, "Ethernet");
		} else {
			c = rt_doc_add(t, "link.layer", RT_DOC_FAIL);
			VALUE(c, "%s", f->link_layer.v);
			EXPECTED(c, "Ethernet");
			FIX(c,
			    "use an Ethernet port; on a VPI adapter switch this port to Ethernet: "
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
		                  : f->speed_mbps.known
		                      ? "the netdev reports no speed (virtual, or no link)"
		                      : f->speed_mbps.why;
		if (f->netdev[0] || f->rdma)
			rt_doc_unchecked(t, "link.speed", why);
	} else {
		bool slow = cfg->speed_bps && bps < cfg->speed_bps;
		c = rt_doc_add(t, "link.speed", slow ? RT_DOC_FAIL : RT_DOC_PASS);
		VALUE(c, "%g Gb/s", (double)bps / 1e9);
		if (cfg->speed_bps)
			EXPECTED(c, ">= %g Gb/s", (double)cfg->speed_bps / 1e9);
		if (slow) {
			FIX(c,
			    "check the cable or transceiver and the switch port's speed (ethtool "
			    "%s "
			    "shows the supported and negotiated modes)",
			    rt_doc_sysfs_dev(f));
			NOTE(c,
			     "a link that negotiated a lower speed slows every flow through it and "
			     "makes it the congestion point of the job");
		}
	}

	if (!f->netdev[0] || !f->netdev_exists) {
		rt_doc_unchecked(t, "link.netdev", f->netdev_why);
		return;
	}
	if (!f->operstate.known) {
		rt_doc_unchecked(t, "link.netdev", f->operstate.why);
	} else if (!strcmp(f->operstate.v, "up")) {
		c = rt_doc_add(t, "link.netdev", RT_DOC_PASS);
		VALUE(c, "%s up", f->netdev);
		EXPECTED(c, "up");
	} else if (!strcmp(f->operstate.v, "unknown")) {
		c = rt_doc_add(t, "link.netdev", RT_DOC_WARN);
		VALUE(c, "%s operstate unknown", f->netdev);
		EXPECTED(c, "up");
		NOTE(c, "the driver does not report the link state of %s", f->netdev);
	} else {
		c = rt_doc_add(t, "link.netdev", RT_DOC_FAIL);
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
		rt_doc_unchecked(t, "mtu", f->netdev_why);
		return;
	}
	if (!f->mtu.known) {
		rt_doc_unchecked(t, "mtu", f->mtu.why);
		return;
	}
	unsigned roce = rt_doc_roce_mtu(f->mtu.v);
	unsigned need = cfg->min_mtu + RT_DOC_ROCE_HEADERS;
	struct rt_doc_check *c =
	    rt_doc_add(t, "mtu", roce >= cfg->min_mtu ? RT_DOC_PASS : RT_DOC_FAIL);
	VALUE(c, "netdev MTU %lld -> RoCE MTU %u", (long long)f->mtu.v, roce);
	EXPECTED(c, "RoCE MTU %u: netdev MTU >= %u%s", cfg->min_mtu, need,
	         cfg->min_mtu == 4096 ? " (4200 is customary)" : "");
	NOTE(c,
	     "the kernel gives RoCE the largest MTU of 256..4096 that fits the netdev MTU "
	     "less %d bytes of headers; a connection uses the smaller MTU of its two ends, and a "
	     "switch port with a smaller MTU drops the frames",
	     RT_DOC_ROCE_HEADERS);
	if (roce < cfg->min_mtu)
		FIX(c,
		    "ip link set dev %s mtu %u (and at least as large on the switch ports and "
		    "every "
		    "peer)",
		    f->netdev, cfg->min_mtu == 4096 ? 4200 : need);
}

/* ---- GIDs ---- */

/* The GID index to use: RoCE v2 on this netdev, IPv4-mapped first, then global IPv6, then
 * link-local. */
static const struct rt_doc_gid *best_gid(const struct rt_doc_facts *f)
{
	const struct rt_doc_gid *best = NULL;
	int best_rank = 99;
	for (unsigned i = 0; i < f->ngids; i++) {
		const struct rt_doc_gid *g = &f->gids[i];
		if (g->type != RT_GID_ROCE_V2 ||
		    (g->ndev[0] && f->netdev[0] && strcmp(g->ndev, f->netdev)))
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
		rt_doc_unchecked(t, "gid.roce_v2", f->gids_why);
		rt_doc_unchecked(t, "gid.index", f->gids_why);
		return;
	}
	bool types_known = false;
	for (unsigned i = 0; i < f->ngids; i++)
		types_known |= f->gids[i].type != RT_GID_UNKNOWN;

	/* every address has its RoCE v2 GID */
	if (!types_known && f->ngids) {
		rt_doc_unchecked(t, "gid.roce_v2",
		                 "the GID types (gid_attrs/types) are unreadable");
	} else if (!f->addrs_known) {
		rt_doc_unchecked(t, "gid.roce_v2", f->addrs_why);
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
				rt_text_appendf(have, sizeof(have), "%s%s at %u",
				                have[0] ? ", " : "", a, hit->index);
			} else {
				nmissing++;
				if (!first_missing)
					first_missing = x;
				rt_text_appendf(missing, sizeof(missing), "%s%s%s",
				                missing[0] ? ", " : "", a,
				                v1_only ? " (RoCE v1 only)" : "");
			}
		}
		if (!routable) {
			c = rt_doc_add(t, "gid.roce_v2", RT_DOC_WARN);
			VALUE(c, "%s has no IPv4 or global IPv6 address", f->netdev);
			EXPECTED(c, "a RoCE v2 GID for every address of %s", f->netdev);
			FIX(c, "ip address add ADDRESS/PREFIX dev %s", f->netdev);
			NOTE(c, "without an address only the link-local GIDs exist: rdma_cm cannot "
			        "resolve "
			        "this host and RoCE v2 cannot be routed");
		} else if (nmissing) {
			c = rt_doc_add(t, "gid.roce_v2", RT_DOC_FAIL);
			VALUE(c, "no RoCE v2 GID for %s", missing);
			EXPECTED(c, "a RoCE v2 GID for every address of %s", f->netdev);
			addr_text(first_missing, a, sizeof(a));
			FIX(c,
			    "the kernel adds the GIDs when an address appears on %s: re-add it (ip "
			    "address "
			    "del %s/%u dev %s; ip address add %s/%u dev %s); if it stays missing, "
			    "check "
			    "with 'rdma link show' that %s is the netdev of %s port %u",
			    f->netdev, a, first_missing->prefix, f->netdev, a,
			    first_missing->prefix, f->netdev, f->netdev, f->dev, f->port);
			NOTE(c, "a peer that connects to this address (rdma_cm, or a GID index "
			        "chosen for "
			        "it) finds no RoCE v2 GID and fails to connect");
		} else {
			c = rt_doc_add(t, "gid.roce_v2", RT_DOC_PASS);
			VALUE(c, "%s", have);
			EXPECTED(c, "a RoCE v2 GID for every address of %s", f->netdev);
		}
	}

	/* which index to hand to perftest and NCCL */
	const struct rt_doc_gid *best = best_gid(f);
	if (!best) {
		c = rt_doc_add(t, "gid.index",
		               types_known || !f->ngids ? RT_DOC_FAIL : RT_DOC_UNCHECKED);
		VALUE(c, "%s",
		      types_known || !f->ngids ? "no RoCE v2 GID on this port"
		                               : "could not check: GID types unreadable");
		EXPECTED(c, "a RoCE v2 GID of %s", f->netdev[0] ? f->netdev : "the port's netdev");
		if (c->status == RT_DOC_FAIL)
			FIX(c, "give %s an IPv4 address (ip address add ADDRESS/PREFIX dev %s)",
			    rt_doc_sysfs_dev(f), rt_doc_sysfs_dev(f));
		return;
	}
	t->gid_index = (int)best->index;
	c = rt_doc_add(t, "gid.index", RT_DOC_PASS);
	VALUE(c, "%u (RoCE v2, %s)", best->index, gid_text(best->gid, g, sizeof(g)));
	NOTE(c, "pass it to perftest as -x %u and to NCCL as NCCL_IB_GID_INDEX=%u%s", best->index,
	     best->index,
	     is_link_local6(best->gid) ? "; it is link-local, so the traffic cannot be routed"
	                               : "");
	if (is_link_local6(best->gid))
		c->status = RT_DOC_WARN;
}

void rt_doc_judge_port(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                       struct rt_doc_target *t)
{
	check_link(f, cfg, t);
	check_mtu(f, cfg, t);
	if (f->rdma)
		check_gids(f, t);
}
