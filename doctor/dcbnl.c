/* DCB netlink (rtnetlink RTM_GETDCB, IEEE 802.1Qaz): PFC enables, the DSCP APP table and the peer's PFC of one netdev. */
#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <net/if.h>
#include <stddef.h>
#include <sys/time.h>
#include <unistd.h>

#include "doctor/facts.h"

#define NLA_OK_LEN(len, nla)                                                                       \
	((len) >= (int)sizeof(struct nlattr) && (nla)->nla_len >= sizeof(struct nlattr) &&         \
	 (nla)->nla_len <= (len))
#define NLA_DATA(nla) ((const uint8_t *)(nla) + NLA_HDRLEN)
#define NLA_NEXT(nla, len)                                                                         \
	((len) -= NLA_ALIGN((nla)->nla_len),                                                       \
	 (const struct nlattr *)((const uint8_t *)(nla) + NLA_ALIGN((nla)->nla_len)))

/* struct ieee_pfc as the kernel lays it out: pfc_cap, pfc_en, mbc, pad, delay (u16), ... */
static int read_pfc_en(const struct nlattr *a, uint8_t *en)
{
	if (a->nla_len < NLA_HDRLEN + 2)
		return -EINVAL;
	*en = NLA_DATA(a)[offsetof(struct ieee_pfc, pfc_en)];
	return 0;
}

static void read_app_table(const struct nlattr *table, struct rt_doc_qos *q)
{
	int len = (int)table->nla_len - NLA_HDRLEN;
	const struct nlattr *a = (const struct nlattr *)NLA_DATA(table);
	int8_t map[64];
	memset(map, -1, sizeof(map));
	int dscp_entries = 0;
	for (; NLA_OK_LEN(len, a); a = NLA_NEXT(a, len)) {
		if ((a->nla_type & NLA_TYPE_MASK) != DCB_ATTR_IEEE_APP ||
		    a->nla_len < NLA_HDRLEN + sizeof(struct dcb_app))
			continue;
		struct dcb_app app;
		memcpy(&app, NLA_DATA(a), sizeof(app));
		if (app.selector != IEEE_8021QAZ_APP_SEL_DSCP || app.protocol > 63 ||
		    app.priority > 7)
			continue;
		if (map[app.protocol] < 0)
			map[app.protocol] = (int8_t)app.priority;
		dscp_entries++;
	}
	if (!q->map_known) {
		memcpy(q->dscp2prio, map, sizeof(map));
		q->map_known = true;
		snprintf(q->map_source, sizeof(q->map_source), "DCB netlink APP table");
	}
	if (!q->trust_known) {
		/* the mlx5 rule: DSCP entries in the APP table switch the port to trust dscp */
		q->trust = dscp_entries ? RT_TRUST_DSCP : RT_TRUST_PCP;
		q->trust_known = true;
		snprintf(q->trust_source, sizeof(q->trust_source),
		         "DCB netlink: APP table %s DSCP entries",
		         dscp_entries ? "has" : "without");
	}
}

int rt_doc_dcbnl_parse(const void *msg, size_t len, struct rt_doc_qos *q)
{
	const struct nlmsghdr *nh = msg;
	if (len < sizeof(*nh) || nh->nlmsg_len > len || nh->nlmsg_len < sizeof(*nh))
		return -EINVAL;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nh);
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EINVAL;
		return e->error < 0 ? e->error : -EINVAL;
	}
	if (nh->nlmsg_type != RTM_GETDCB || nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct dcbmsg)))
		return -EINVAL;
	int alen = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(struct dcbmsg));
	const struct nlattr *a = (const struct nlattr *)((const uint8_t *)NLMSG_DATA(nh) +
	                                                 NLMSG_ALIGN(sizeof(struct dcbmsg)));
	bool ieee = false;
	for (; NLA_OK_LEN(alen, a); a = NLA_NEXT(a, alen)) {
		if ((a->nla_type & NLA_TYPE_MASK) != DCB_ATTR_IEEE)
			continue;
		ieee = true;
		int ilen = (int)a->nla_len - NLA_HDRLEN;
		const struct nlattr *i = (const struct nlattr *)NLA_DATA(a);
		for (; NLA_OK_LEN(ilen, i); i = NLA_NEXT(i, ilen)) {
			switch (i->nla_type & NLA_TYPE_MASK) {
			case DCB_ATTR_IEEE_PFC:
				if (read_pfc_en(i, &q->pfc_en) == 0) {
					q->pfc_known = true;
					snprintf(q->pfc_source, sizeof(q->pfc_source),
					         "DCB netlink");
				}
				break;
			case DCB_ATTR_IEEE_PEER_PFC:
				if (read_pfc_en(i, &q->peer_pfc_en) == 0) {
					q->peer_known = true;
					snprintf(q->peer_source, sizeof(q->peer_source),
					         "DCB netlink (peer, from DCBX)");
				}
				break;
			case DCB_ATTR_IEEE_APP_TABLE:
				read_app_table(i, q);
				break;
			default:
				break;
			}
		}
	}
	return ieee ? 0 : -EOPNOTSUPP;
}

int rt_doc_dcbnl_query(const char *netdev, struct rt_doc_qos *q)
{
	size_t nl = strlen(netdev);
	if (nl == 0 || nl >= IFNAMSIZ)
		return -ENODEV;
	uint8_t req[NLMSG_SPACE(sizeof(struct dcbmsg)) + NLA_HDRLEN + NLA_ALIGN(IFNAMSIZ)];
	memset(req, 0, sizeof(req));
	struct nlmsghdr *nh = (struct nlmsghdr *)req;
	struct dcbmsg *dm = NLMSG_DATA(nh);
	dm->dcb_family = AF_UNSPEC;
	dm->cmd = DCB_CMD_IEEE_GET;
	struct nlattr *na = (struct nlattr *)(req + NLMSG_SPACE(sizeof(*dm)));
	na->nla_type = DCB_ATTR_IFNAME;
	na->nla_len = (uint16_t)(NLA_HDRLEN + nl + 1);
	memcpy((uint8_t *)na + NLA_HDRLEN, netdev, nl + 1);
	nh->nlmsg_len = (uint32_t)(NLMSG_SPACE(sizeof(*dm)) + NLA_ALIGN(na->nla_len));
	nh->nlmsg_type = RTM_GETDCB;
	nh->nlmsg_flags = NLM_F_REQUEST;
	nh->nlmsg_seq = 1;

	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	struct timeval tv = {.tv_sec = 2};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	int rc;
	if (sendto(fd, req, nh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	static _Thread_local uint8_t reply[65536] __attribute__((aligned(8)));
	for (;;) {
		ssize_t n = recv(fd, reply, sizeof(reply), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno == EAGAIN ? -ETIMEDOUT : -errno;
			break;
		}
		const struct nlmsghdr *r = (const struct nlmsghdr *)reply;
		if ((size_t)n < sizeof(*r) || r->nlmsg_seq != 1)
			continue;
		rc = rt_doc_dcbnl_parse(reply, (size_t)n, q);
		break;
	}
	close(fd);
	return rc;
}
