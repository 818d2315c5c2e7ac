/* 802.1Qbb PFC for the traffic source: build/parse pause frames, send them and listen for them (AF_PACKET). */
#ifndef RT_GEN_PFC_H
#define RT_GEN_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_PFC_FRAME_LEN 60 /* minimum Ethernet frame without FCS */

/* A PFC frame from src_mac pausing `priority` for `quanta` (0: resume). Returns RT_PFC_FRAME_LEN or -ENOSPC. */
int rt_pfc_build(uint8_t *frame, size_t cap, const uint8_t src_mac[6], unsigned priority,
		 uint16_t quanta);

/* True when frame is a PFC frame that names `priority`; its pause time goes to *quanta. */
bool rt_pfc_parse(const uint8_t *frame, size_t len, unsigned priority, uint16_t *quanta);

/* How long `quanta` pause a link of link_gbps (one quantum = 512 bit times). */
uint64_t rt_pfc_quanta_ns(uint16_t quanta, double link_gbps);

/* A raw socket that sends PFC frames on one interface. */
struct rt_pfc_tx {
	int fd;
	int ifindex;
	uint8_t mac[6];
};

/* Open for interface ifindex. Returns 0 or -errno with errbuf filled (CAP_NET_RAW needed). */
int rt_pfc_tx_open(struct rt_pfc_tx *tx, int ifindex, char *errbuf);
/* Send one frame; returns 0 or -errno. */
int rt_pfc_tx_send(struct rt_pfc_tx *tx, unsigned priority, uint16_t quanta);
void rt_pfc_tx_close(struct rt_pfc_tx *tx);

/* A non-blocking raw socket receiving MAC control frames on the interface that holds
 * IPv4 address `addr` (network order). Returns the fd or -errno with errbuf filled. */
int rt_pfc_rx_open(uint32_t addr, char *errbuf);

#endif
