/* Internals of traffic/ (not for use outside it): shared parts, the udp sender and server. */
#ifndef RT_TRAFFIC_INTERNAL_H
#define RT_TRAFFIC_INTERNAL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "traffic/evlog.h"
#include "traffic/gen.h"
#include "traffic/pfc.h"
#include "traffic/responder.h"

/* The sender's "start" event: role (send or lat), backend, op, msg_size, qps, sweep. */
void rt_gen_log_start(struct rt_evlog *log, uint64_t now, const struct rt_gen_config *cfg,
                      const char *backend, unsigned nqp);

/* ---- the run loop both backends' senders share (send_loop.c) ---- */

struct rt_perf_run;

/*
 * A backend's sender as the run loop drives it. The loop runs each message
 * size the configuration asks for (one, or each of a sweep) until the run
 * ends (its messages or bytes, its time, Ctrl-C), takes the peak rate per
 * slice and the interval lines on time, and leaves to the backend what
 * moves data. Every callback gets the backend's own state.
 */
struct rt_gen_send_ops {
	/* Before the first run: the "start" and "qp" events, what the runs start from. */
	void (*start)(void *backend, uint64_t now);
	/* A run of `size`-byte messages starts at now: each QP's counts and pacing from zero,
	 * with `intervals` the interval table's header. */
	void (*run_begin)(void *backend, uint32_t size, bool intervals, uint64_t now);
	/* No new message from now on; returns until when the loop waits for those in flight
	 * (UINT64_MAX: as long as they take). */
	uint64_t (*stop)(void *backend, uint64_t now);
	/* What came in (replies, pauses), res->t_last when messages completed; NULL: step takes it. */
	void (*receive)(void *backend, struct rt_perf_run *res);
	/* Payload bytes of the messages the run completed so far, all QPs. */
	uint64_t (*run_payload)(const void *backend);
	/* One round over the QPs at now: completions, timers, what may be sent (nothing new once
	 * `stopping`). 0 with *done once every message of the run completed, or -errno. */
	int (*step)(void *backend, uint64_t now, bool stopping, struct rt_perf_run *res, bool *done,
	            char *errbuf);
	/* One interval line (t: seconds into the run, dt: since the last one) and its events. */
	void (*interval)(void *backend, double t, double dt, uint64_t now);
	/* After the run: whether a last, partial interval line is due. */
	bool (*interval_left)(const void *backend, uint64_t now, uint64_t last_iv, uint64_t iv_ns);
	/* Sleep until `due` at the latest, or until something comes in; NULL: the loop polls. */
	void (*wait)(void *backend, uint64_t now, uint64_t due);
	/* After the run: its completed messages, all QPs (each QP's counts carried on). */
	uint64_t (*run_end)(void *backend);
	/* After the last run (the first began at t0): the "end" events and the summary line. */
	void (*finish)(void *backend, uint64_t t0);
};

/* What the run loop and a backend's sender share. */
struct rt_gen_sender {
	const struct rt_gen_send_ops *ops;
	void *backend; /* the callbacks' argument */
	const struct rt_gen_config *cfg;
	FILE *report;
	uint64_t
	    *lat; /* latency samples of the run (ns), with cfg->latency; the backend frees it */
	size_t nlat;
};

/* Every run the configuration asks for, the table of their results, then the backend's finish.
 * 0 or -errno. */
int rt_gen_send_runs(struct rt_gen_sender *snd, char *errbuf);

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

/* ---- udp backend sender (udp_send.c: setup and teardown; udp_send_run.c: the runs) ---- */

#define RT_GEN_SND_BATCH     32
#define RT_GEN_SND_SLOT_SIZE 4352 /* largest UDP payload: BTH + RETH + 4096 + pad + ICRC */

/* One QP of the sender. */
struct rt_gen_snd_qp {
	int fd;
	uint16_t sport;
	uint32_t local_qp, remote_qp, start_psn;
	struct rt_evflow flow;
	/* go-back-N state, in 64-bit packet sequence numbers (PSN = start + seq mod 2^24) */
	uint64_t next_seq;     /* next to (re)send */
	uint64_t una;          /* oldest not acknowledged */
	uint64_t max_sent;     /* one past the highest ever sent */
	uint64_t end_seq;      /* stop after this many packets */
	uint64_t base_seq;     /* the first packet of this run (a sweep runs one per size) */
	uint64_t msgs_before;  /* messages completed in the runs before this one */
	uint64_t lat_start_ns; /* latency: when the first packet of the message in flight went */
	uint64_t progress_ns;  /* last forward progress, for the retransmission timer */
	/* pacing */
	double tokens; /* bytes */
	uint64_t refill_ns;
	struct rt_dcqcn cc;
	double logged_mbps;
	/* totals */
	uint64_t packets, bytes, retransmitted, cnps, naks, timeouts;
	uint64_t iv_packets, iv_bytes; /* at the last interval */
	uint64_t iv_msgs;
};

/* The sender: its sockets, QPs and the run in progress. */
struct rt_gen_snd {
	struct rt_gen_sender snd; /* the run loop's view: configuration, report, latency samples */
	struct rt_evlog log;
	struct in_addr local, remote;
	int ctl, rfd;
	int pfd;               /* PFC listener, -1 without --pfc */
	uint64_t paused_until; /* PFC: no data before this time */
	uint64_t pfc_frames;
	unsigned nqp;
	struct rt_gen_snd_qp *qp;
	uint32_t msg_size; /* bytes per message of this run */
	uint32_t ppm;      /* packets per message */
	double max_mbps;   /* line rate, or the rate cap */
	uint8_t slots[RT_GEN_SND_BATCH][RT_GEN_SND_SLOT_SIZE];
	uint8_t payload[4096];
	uint8_t rxbuf[64][256];
};

/* The udp sender's part of the run loop (udp_send_run.c). */
extern const struct rt_gen_send_ops rt_gen_udp_send_ops;

/* ---- udp backend server (udp_serve.c: the loop; udp_serve_data.c; udp_serve_setup.c) ---- */

#define RT_GEN_SRV_RX_BATCH 64
#define RT_GEN_SRV_RX_SLOT  4608
/* Server QP numbers run from RT_GEN_SRV_QP_BASE to RT_GEN_SRV_QPN_MAX and wrap; QP n lives in slot (n - RT_GEN_SRV_QP_BASE) % 256 */
#define RT_GEN_SRV_QP_BASE 0x200u
#define RT_GEN_SRV_QPN_MAX 0xffffffu
/*
 * Setup connections: sessions (senders whose HELLO was accepted) and connections
 * still owing their HELLO, each with its own budget, so peers that connect and
 * say nothing can only push out each other (oldest first), never a session.
 */
#define RT_GEN_SRV_MAX_SESSIONS 64
#define RT_GEN_SRV_MAX_WAITING  16
#define RT_GEN_SRV_MAX_CONNS    (RT_GEN_SRV_MAX_SESSIONS + RT_GEN_SRV_MAX_WAITING)

/* A QP the server handed out to a sender. */
struct rt_gen_srv_qp {
	bool active;
	unsigned owner; /* its session's slot in server.conns */
	struct rt_resp_state rs;
	uint32_t client_qp;
	uint16_t client_sport;
	struct in_addr client;
	struct rt_evflow flow;
	uint64_t packets, bytes, messages, ce, cnps, naks, acks, dups, ooo;
	uint64_t iv_packets, iv_bytes;
	/* ACK coalescing: the newest ACK of a receive batch stands for the earlier ones */
	bool ack_pending;
	uint32_t ack_psn, ack_msn;
	struct in_addr ack_from;
};

/* A setup connection (slot free when fd is -1). */
struct rt_gen_srv_conn {
	int fd;             /* -1: a free slot */
	bool session;       /* its HELLO was accepted and QPs handed out */
	uint64_t opened_ns; /* accepted: the HELLO is due within hello_timeout_ns */
	uint64_t active_ns; /* session: its HELLO, latest setup line or latest data packet */
	struct in_addr local, peer;
	char name[INET_ADDRSTRLEN]; /* the peer's address as text */
	size_t len;
	char buf[RT_GEN_CTL_MAX];
};

/* Counts of a set of QPs: those whose session ended, or a total. */
struct rt_gen_srv_totals {
	uint64_t packets, bytes, messages, ce, cnps, naks, acks, dups, ooo;
};

/* The server: its sockets, setup connections, QPs and counts. */
struct rt_gen_srv {
	const struct rt_gen_config *cfg;
	FILE *report;
	struct rt_evlog log;
	struct in_addr addr; /* where the data and setup ports listen */
	int lfd, ufd;
	struct rt_gen_srv_conn conns[RT_GEN_SRV_MAX_CONNS];
	unsigned nwaiting, nsessions;
	unsigned finished;              /* sessions that ended with DONE */
	uint64_t dropped;               /* sessions that ended without DONE */
	uint64_t refused;               /* connections closed before they became a session */
	unsigned notices;               /* setup notices printed in the current second */
	uint64_t notice_ns, suppressed; /* start of that second; notices not printed */
	struct rt_gen_srv_qp qp[RT_GEN_MAX_QPS];
	unsigned nqp, qp_in_use; /* QPs handed out so far; QPs of live sessions */
	uint32_t next_qpn;
	struct rt_gen_srv_totals gone; /* QPs of ended sessions */
	uint64_t last_iv_ns, iv_gone_bytes;
	bool started;
	uint64_t unknown_qp;
	/* PFC: XOFF while the receive backlog is above the threshold */
	struct rt_pfc_tx pfc;
	int rx_ifindex; /* interface the data arrives on */
	bool xoff;
	uint64_t last_xoff_ns, xoffs, xons;
	bool stalling, stall_over; /* --stall: reading no data now; that time has passed */
	uint64_t iv_msgs;
	/* receive and reply batches */
	uint8_t rx[RT_GEN_SRV_RX_BATCH][RT_GEN_SRV_RX_SLOT];
	uint8_t rxctl[RT_GEN_SRV_RX_BATCH][64];
	struct sockaddr_in rxfrom[RT_GEN_SRV_RX_BATCH];
	uint8_t tx[2 * RT_GEN_SRV_RX_BATCH][64];
	uint8_t txctl[2 * RT_GEN_SRV_RX_BATCH][64];
	struct sockaddr_in txto[2 * RT_GEN_SRV_RX_BATCH];
	struct iovec txiov[2 * RT_GEN_SRV_RX_BATCH];
	struct mmsghdr txmsg[2 * RT_GEN_SRV_RX_BATCH];
	unsigned ntx;
};

/* The data path (udp_serve_data.c). */
/* Send the replies queued so far. */
void rt_gen_srv_flush_replies(struct rt_gen_srv *s);
/* Slots that ever held a QP: they are handed out in order, from slot 0. */
unsigned rt_gen_srv_slots_used(const struct rt_gen_srv *s);
/* Take the data packets waiting (a bounded number of batches) and answer them. */
void rt_gen_srv_receive(struct rt_gen_srv *s);
/* After a drain: XOFF (sent again each quarter pause) above the threshold, XON at half of it. */
int rt_gen_srv_pfc_check(struct rt_gen_srv *s, char *errbuf);
/* How often an XOFF is sent again while the backlog stays above the threshold: a quarter of its
 * pause, so that a wake-up late by up to 3/4 of it breaks no pause. */
uint64_t rt_gen_srv_pfc_refresh_ns(const struct rt_gen_srv *s);

/* The setup connections and their sessions' QPs (udp_serve_setup.c). */
/* The gone QPs plus the live ones. */
struct rt_gen_srv_totals rt_gen_srv_totals(const struct rt_gen_srv *s);
/* Log a QP's traffic since the last interval (dt seconds); returns its new frame bytes. */
uint64_t rt_gen_srv_qp_interval(struct rt_gen_srv *s, struct rt_gen_srv_qp *q, double dt,
                                uint64_t now);
/* Read what connection i sent and act on each whole line. */
void rt_gen_srv_on_conn_readable(struct rt_gen_srv *s, unsigned i, uint64_t now);
/* Accept pending setup connections (half the waiting budget per call at most). */
void rt_gen_srv_on_accept(struct rt_gen_srv *s, uint64_t now);
/* Close connections past their HELLO timeout and silent sessions; returns the next deadline. */
uint64_t rt_gen_srv_sweep(struct rt_gen_srv *s, uint64_t now);

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
