/* 802.1Qbb PFC for the traffic source: send pause frames and listen for them (AF_PACKET), through dissect/. */
#ifndef RT_GEN_PFC_H
#define RT_GEN_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when the Ethernet frame is a PFC frame that names `priority`; its pause time goes to *quanta. */
bool rt_pfc_parse(const uint8_t *frame, size_t len, unsigned priority, uint16_t *quanta);

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
