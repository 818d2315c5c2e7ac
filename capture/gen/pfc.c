/* 802.1Qbb PFC for the traffic source: build/parse pause frames, send them and listen for them (AF_PACKET). */
#include "capture/gen/pfc.h"

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
#include "dissect/dissect.h"

#define ETH_P_MACC 0x8808

static const uint8_t pfc_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

int rt_pfc_build(uint8_t *frame, size_t cap, const uint8_t src_mac[6], unsigned priority,
		 uint16_t quanta)
{
	if (cap < RT_PFC_FRAME_LEN || priority > 7)
		return -ENOSPC;
	memset(frame, 0, RT_PFC_FRAME_LEN);
	memcpy(frame, pfc_dst, 6);
	memcpy(frame + 6, src_mac, 6);
	frame[12] = ETH_P_MACC >> 8;
	frame[13] = ETH_P_MACC & 0xff;
	frame[14] = RT_MACC_PFC >> 8;
	frame[15] = RT_MACC_PFC & 0xff;
	frame[17] = (uint8_t)(1u << priority); /* class-enable vector, low byte */
	frame[18 + 2 * priority] = (uint8_t)(quanta >> 8);
	frame[19 + 2 * priority] = (uint8_t)quanta;
	return RT_PFC_FRAME_LEN;
}

bool rt_pfc_parse(const uint8_t *frame, size_t len, unsigned priority, uint16_t *quanta)
{
	if (len < 34 || priority > 7 || (frame[12] << 8 | frame[13]) != ETH_P_MACC ||
	    (frame[14] << 8 | frame[15]) != RT_MACC_PFC)
		return false;
	unsigned enable = (unsigned)(frame[16] << 8 | frame[17]);
	if (!(enable & (1u << priority)))
		return false;
	*quanta = (uint16_t)(frame[18 + 2 * priority] << 8 | frame[19 + 2 * priority]);
	return true;
}

uint64_t rt_pfc_quanta_ns(uint16_t quanta, double link_gbps)
{
	return (uint64_t)((double)quanta * 512.0 / link_gbps);
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
	uint8_t frame[RT_PFC_FRAME_LEN];
	rt_pfc_build(frame, sizeof(frame), tx->mac, priority, quanta);
	struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_MACC),
				 .sll_ifindex = tx->ifindex, .sll_halen = 6};
	memcpy(to.sll_addr, pfc_dst, 6);
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
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_MACC),
				  .sll_ifindex = (int)ifindex};
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int rc = fail(errbuf, "bind");
		close(fd);
		return rc;
	}
	return fd;
}
