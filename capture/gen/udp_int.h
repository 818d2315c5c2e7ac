/* Internals shared by the udp backend's sender and server: sockets, the setup exchange, frame sizes. */
#ifndef RT_GEN_UDP_INT_H
#define RT_GEN_UDP_INT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/gen/gen.h"

/* Setup exchange over TCP, one text line each way:
 *   sender: HELLO 1 OP MSG_SIZE MTU NQPS QPN:PSN:SPORT ...
 *   server: READY SERVER_QPN ...   (or ERROR TEXT)
 * and at the end  sender: DONE   server: BYE. */
#define RT_GEN_CTL_MAX 8192


/* Resolve an IPv4 host name or address into addr (network order). 0 or -errno. */
int rt_gen_resolve4(const char *host, struct in_addr *addr, char *errbuf);
/* The local address the kernel would send from toward dst. 0 or -errno. */
int rt_gen_route_src(struct in_addr dst, struct in_addr *src, char *errbuf);
/*
 * A non-blocking UDP socket bound to addr:port (port 0: any), with DF set
 * (IP_PMTUDISC_DO, so the kernel leaves the IP id 0 on unconnected sends),
 * the given TOS byte and large buffers. Returns the fd or -errno.
 */
int rt_gen_udp_socket(struct in_addr addr, uint16_t port, int tos, bool reuse, char *errbuf);
/* Write all of s to fd. 0 or -errno. */
int rt_gen_write_all(int fd, const char *s, size_t len);
/* Read one '\n'-terminated line (without it) within timeout_ms. 0, -ETIMEDOUT, -ECONNRESET, -errno. */
int rt_gen_read_line(int fd, char *line, size_t cap, int timeout_ms);

/* Frame bytes (Ethernet + IPv4 + UDP) of a UDP payload of len bytes, as a capture counts them. */
static inline uint64_t rt_gen_wire_bytes(size_t udp_payload_len)
{
	return 14 + 20 + 8 + (uint64_t)udp_payload_len;
}

#endif
