/* Internals of the traffic source (not for use outside traffic/): what each backend's sender and
 * server share. */
#ifndef RT_TRAFFIC_INTERNAL_H
#define RT_TRAFFIC_INTERNAL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traffic/evlog.h"
#include "traffic/gen.h"

/* The sender's "start" event: role (send or lat), backend, op, msg_size, qps, sweep. */
void rt_gen_log_start(struct rt_evlog *log, uint64_t now, const struct rt_gen_config *cfg,
		      const char *backend, unsigned nqp);

/* ---- udp backend: sockets, the setup exchange, frame sizes ---- */

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
/* Read one '\n'-terminated line (without it) within timeout_ms. 0, -ETIMEDOUT, -ECONNRESET, -errno.
 */
int rt_gen_read_line(int fd, char *line, size_t cap, int timeout_ms);
/*
 * Text a peer sent, made safe for a terminal or a log: printable ASCII stays,
 * backslash and double quote get a backslash, tab, CR and LF read \t \r \n, and
 * every other byte (escape sequences, UTF-8, NUL) reads \xNN. The result fits in
 * cap bytes (at least 5) with its NUL; text that does not ends in "...". Returns dst.
 */
char *rt_gen_escape(char *dst, size_t cap, const char *src, size_t len);

/* Frame bytes (Ethernet + IPv4 + UDP) of a UDP payload of len bytes, as a capture counts them. */
static inline uint64_t rt_gen_wire_bytes(size_t udp_payload_len)
{
	return 14 + 20 + 8 + (uint64_t)udp_payload_len;
}

#if RT_HAVE_RDMACM
#include <rdma/rdma_cma.h>

/* ---- verbs backend: the connection private data and RDMA CM ---- */

/*
 * Connection private data, big-endian fields.
 *   sender -> server: magic[4] op[1] pad[3] msg_size[4] qps[4] index[4] token[4] qdepth[4]
 *   server -> sender: magic[4] addr[8] rkey[4] len[4]
 */
#define RT_GEN_PD_MAGIC "RTG1"
enum { RT_GEN_PD_REQ_LEN = 28, RT_GEN_PD_REP_LEN = 20 };
static inline uint32_t rt_gen_pd_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* errno (EIO when unset) of the failed call `what`, into errbuf; returns -errno. */
int rt_gen_cm_err(char *errbuf, const char *what);
/* Wait for the next CM event within timeout_ms; expect `want` (or any when want < 0). 0 or -errno.
 */
int rt_gen_cm_event(struct rdma_event_channel *ch, int want, int timeout_ms,
                    struct rdma_cm_event **ev, char *errbuf);
/* An IPv4/IPv6 socket address as text ("?" for others). */
void rt_gen_addr_str(const struct sockaddr *sa, char *buf, size_t len);
/* One hw_counters value of the id's device and port (cfg->ib_dev if set); -1 when not readable. */
int64_t rt_gen_hw_counter(const struct rt_gen_config *cfg, struct rdma_cm_id *id, const char *name);
#endif

#endif
