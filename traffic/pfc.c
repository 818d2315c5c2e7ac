/* 802.1Qbb PFC for the traffic source: send pause frames and listen for them (AF_PACKET), through dissect/. */
#include "traffic/pfc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/errbuf.h"
#include "dissect/build.h"
#include "dissect/dissect.h"

#define ETH_P_MACC 0x8808

bool rt_pfc_parse(const uint8_t *frame, size_t len, unsigned priority, uint16_t *quanta)
{
	struct rt_dissect_opts opts;
	struct rt_record rec;

	rt_dissect_opts_init(&opts);
	if (priority > 7 || len > UINT32_MAX ||
	    rt_dissect_buf(&opts, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len, &rec) <
	        0 ||
	    rec.kind != RT_KIND_PFC || rec.truncated || !(rec.pfc_enable & (1u << priority)))
		return false;
	*quanta = rec.pfc_quanta[priority];
	return true;
}

static int fail(char *errbuf, const char *what)
{
	int e = errno;
	return rt_errorf(errbuf, e, "PFC %s", what);
}

int rt_pfc_tx_open(struct rt_pfc_tx *tx, int ifindex, char *errbuf)
{
	tx->ifindex = ifindex;
	tx->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx->fd < 0)
		return fail(errbuf, "raw socket");
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	if (!if_indextoname((unsigned)ifindex, ifr.ifr_name) ||
	    ioctl(tx->fd, SIOCGIFHWADDR, &ifr) < 0) {
		int rc = fail(errbuf, "interface address");
		rt_pfc_tx_close(tx);
		return rc;
	}
	memcpy(tx->mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

int rt_pfc_tx_send(struct rt_pfc_tx *tx, unsigned priority, uint16_t quanta)
{
	uint8_t frame[RT_MACC_FRAME_LEN];
	uint16_t q[8] = {0};

	if (priority > 7)
		return -EINVAL;
	q[priority] = quanta;
	rt_build_pfc(frame, sizeof(frame), tx->mac, (uint8_t)(1u << priority), q);
	struct sockaddr_ll to = {.sll_family = AF_PACKET,
	                         .sll_protocol = htons(ETH_P_MACC),
	                         .sll_ifindex = tx->ifindex,
	                         .sll_halen = 6};
	memcpy(to.sll_addr, frame, 6); /* the frame's destination, 01:80:c2:00:00:01 */
	if (sendto(tx->fd, frame, sizeof(frame), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

void rt_pfc_tx_close(struct rt_pfc_tx *tx)
{
	if (tx->fd >= 0)
		close(tx->fd);
	tx->fd = -1;
}

int rt_pfc_rx_open(uint32_t addr, char *errbuf)
{
	struct ifaddrs *ifs;
	if (getifaddrs(&ifs) < 0)
		return fail(errbuf, "getifaddrs");
	unsigned ifindex = 0;
	for (struct ifaddrs *i = ifs; i && !ifindex; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == addr)
			ifindex = if_nametoindex(i->ifa_name);
	freeifaddrs(ifs);
	if (!ifindex) {
		return rt_errmsg(errbuf, ENODEV, "PFC: no interface holds the sender's address");
	}
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_MACC));
	if (fd < 0)
		return fail(errbuf, "raw socket");
	struct sockaddr_ll sll = {.sll_family = AF_PACKET,
	                          .sll_protocol = htons(ETH_P_MACC),
	                          .sll_ifindex = (int)ifindex};
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int rc = fail(errbuf, "bind");
		close(fd);
		return rc;
	}
	return fd;
}
