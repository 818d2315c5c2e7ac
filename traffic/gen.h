/* The active traffic source: configuration and the serve/send entry points of each backend. */
#ifndef RT_GEN_H
#define RT_GEN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "traffic/dcqcn.h"
#include "common/errbuf.h"
#include "dissect/dissect.h"
#include "rt_config.h"

enum rt_gen_op { RT_GEN_OP_WRITE = 0, RT_GEN_OP_SEND, RT_GEN_OP_READ };
enum rt_gen_backend { RT_GEN_BACKEND_UDP = 0, RT_GEN_BACKEND_VERBS };

/* Most QPs one sender opens and one server keeps. */
#define RT_GEN_MAX_QPS 256
/* Largest message and deepest queue a sender asks for (and a server accepts). */
#define RT_GEN_MAX_MSG    (1u << 30)
#define RT_GEN_MAX_QDEPTH 4096

struct rt_gen_config {
	enum rt_gen_backend backend;
	enum rt_gen_op op;
	const char *server;        /* send: the server's IPv4 address or name */
	const char *bind_addr;     /* local IPv4 address; NULL: udp serve 127.0.0.1, verbs serve
				      any, send the route's */
	uint16_t port;             /* RoCEv2 UDP port (4791) */
	uint16_t control_port;     /* TCP port of the setup exchange (18515) */
	uint32_t msg_size;         /* bytes per message (65536) */
	uint32_t mtu;              /* RoCE path MTU: payload bytes per packet (1024) */
	unsigned qps;              /* QPs of this sender (1) */
	unsigned qdepth;           /* messages outstanding per QP (16) */
	double duration_s;         /* send: seconds of traffic (each size with sweep; 0: no limit
				      when iters is set); serve: give up after (0: never) */
	uint64_t iters;            /* send: messages per QP (each size with sweep), 0: by time */
	bool sweep;                /* send: every size 2, 4, .. msg_size (2^23) in turn, one table
				      row each */
	bool latency;              /* send: ping-pong, one QP at depth 1: time each message until
				      it completes (udp: the ACK of its last packet comes back);
				      a latency table, no intervals */
	bool report_gbits;         /* send: the table in Gb/sec, not MB/sec (2^20 bytes) */
	uint64_t bytes;            /* send: message bytes per QP, then stop (0: no cap) */
	double rate_gbps;          /* per-QP rate cap (0: none) */
	double line_gbps;          /* line rate: DCQCN's maximum (100) */
	double interval_s;         /* report interval (1) */
	const char *log_path;      /* JSON Lines event log, NULL: none */
	uint8_t dscp;              /* data DSCP (26) */
	uint8_t cnp_dscp;          /* serve: CNP DSCP (48) */
	uint64_t cnp_interval_ns;  /* serve: minimum time between CNPs per QP (50 us) */
	uint64_t timeout_ns;       /* send: retransmission timeout (4 ms) */
	unsigned clients;          /* serve: senders to serve before exiting (1); udp: those ending
				      with DONE */
	uint64_t hello_timeout_ns; /* udp serve: a setup connection's HELLO is due within (5 s) */
	uint64_t idle_timeout_ns;  /* udp serve: drop a sender silent for this long (60 s) */
	bool dcqcn;                /* send: react to CNPs (true) */
	struct rt_dcqcn_params dcqcn_params; /* line_mbps is set from line_gbps/rate_gbps */
	const char *ib_dev;     /* verbs: device for the hw_counters (NULL: the CM id's) */
	const char *sysfs_root; /* verbs: where sysfs is mounted (NULL: /sys) */
	bool pfc;              /* udp: serve sends PFC XOFF/XON on its backlog; send honours them */
	unsigned pfc_priority; /* priority of the data traffic (3) */
	uint64_t pfc_xoff_bytes; /* serve: receive backlog that sends XOFF (0: half the buffer) */
	uint64_t stall_at_ns;    /* udp serve: when the stall begins, from the start of serving */
	uint64_t stall_ns;       /* udp serve: how long it then reads no data (0: no stall) */
	volatile sig_atomic_t *stop; /* set asynchronously to end the run early; may be NULL */
};

void rt_gen_config_default(struct rt_gen_config *cfg);

/* "write", "send", "read" */
const char *rt_gen_op_name(enum rt_gen_op op);
/* Parses "write"/"send"/"read"; returns 0 or -EINVAL. */
int rt_gen_op_parse(const char *s, enum rt_gen_op *op);

/*
 * The IPv4 address held by GID `index` of RDMA port dev:port (a RoCE v2 GID
 * is the address, IPv4-mapped), as text into addr. 0 or -errno with errbuf
 * filled (no such GID, or one that holds no IPv4 address).
 */
int rt_gen_gid_addr(const char *sysfs_root, const char *dev, unsigned port, unsigned index,
                    char addr[16], char *errbuf);

/* Run a sender/server until done; interval lines and the summary go to `report`. 0 or -errno. */
int rt_gen_udp_send(const struct rt_gen_config *cfg, FILE *report, char *errbuf);
int rt_gen_udp_serve(const struct rt_gen_config *cfg, FILE *report, char *errbuf);
#if RT_HAVE_RDMACM
int rt_gen_verbs_send(const struct rt_gen_config *cfg, FILE *report, char *errbuf);
int rt_gen_verbs_serve(const struct rt_gen_config *cfg, FILE *report, char *errbuf);
#endif

#endif
