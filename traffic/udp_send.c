/* udp backend sender: paced RoCEv2 writes/sends per QP, DCQCN reaction, go-back-N, event log. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "traffic/evlog.h"
#include "traffic/perf.h"
#include "traffic/pfc.h"
#include "traffic/internal.h"
#include "dissect/build.h"
#include "dissect/opcodes.h"

#define BATCH 32
#define SLOT_SIZE 4352 /* largest UDP payload: BTH + RETH + 4096 + pad + ICRC */
#define NO_END UINT64_MAX

struct sqp {
	int fd;
	uint16_t sport;
	uint32_t local_qp, remote_qp, start_psn;
	struct rt_evflow flow;
	/* go-back-N state, in 64-bit packet sequence numbers (PSN = start + seq mod 2^24) */
	uint64_t next_seq; /* next to (re)send */
	uint64_t una;	   /* oldest not acknowledged */
	uint64_t max_sent; /* one past the highest ever sent */
	uint64_t end_seq;  /* stop after this many packets */
	uint64_t base_seq; /* the first packet of this run (a sweep runs one per size) */
	uint64_t msgs_before; /* messages completed in the runs before this one */
	uint64_t lat_start_ns; /* latency: when the first packet of the message in flight went */
	uint64_t progress_ns; /* last forward progress, for the retransmission timer */
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

struct sender {
	const struct rt_gen_config *cfg;
	FILE *report;
	struct rt_evlog log;
	struct in_addr local, remote;
	int ctl, rfd;
	int pfd;		 /* PFC listener, -1 without --pfc */
	uint64_t paused_until;	 /* PFC: no data before this time */
	uint64_t pfc_frames;
	unsigned nqp;
	struct sqp *qp;
	uint32_t msg_size;  /* bytes per message of this run */
	uint32_t ppm;	    /* packets per message */
	/* latency samples of this run (ns), with cfg->latency */
	uint64_t *lat;
	size_t nlat;
	double max_mbps;    /* line rate, or the rate cap */
	uint8_t slots[BATCH][SLOT_SIZE];
	uint8_t payload[4096];
	uint8_t rxbuf[64][256];
};

static uint64_t seq_of(const struct sqp *q, uint32_t psn, uint64_t base)
{
	uint32_t base_psn = (q->start_psn + (uint32_t)base) & 0xffffff;
	int64_t s = (int64_t)base + rt_psn_diff(psn, base_psn);
	return s < 0 ? 0 : (uint64_t)s;
}

static uint32_t psn_of(const struct sqp *q, uint64_t seq)
{
	return (q->start_psn + (uint32_t)seq) & 0xffffff;
}

static double rate_mbps(const struct sender *s, const struct sqp *q)
{
	return s->cfg->dcqcn ? q->cc.rc : s->max_mbps;
}

static void log_rate(struct sender *s, struct sqp *q, uint64_t now, const char *reason)
{
	double r = rate_mbps(s, q);
	rt_evlog_begin_flow(&s->log, now, "rate", &q->flow);
	rt_evlog_double(&s->log, "rate_mbps", r, 3);
	rt_evlog_str(&s->log, "reason", reason);
	rt_evlog_end(&s->log);
	q->logged_mbps = r;
}

/* Recovery steps are logged when the rate moved by 2% since the last line, or reached the line rate. */
static void maybe_log_increase(struct sender *s, struct sqp *q, uint64_t now, const char *reason)
{
	double r = q->cc.rc;
	if (fabs(r - q->logged_mbps) >= 0.02 * q->logged_mbps ||
	    (r >= s->max_mbps && q->logged_mbps < s->max_mbps))
		log_rate(s, q, now, reason);
}

/* Build the packet with sequence number seq of QP q into buf; returns its length. */
static int build(struct sender *s, struct sqp *q, uint64_t seq, uint8_t *buf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t msg = (seq - q->base_seq) / s->ppm;
	uint32_t k = (uint32_t)((seq - q->base_seq) % s->ppm);
	bool first = k == 0, last = k == s->ppm - 1;
	struct rt_record p = {
		.pkey = 0xffff,
		.dest_qp = q->remote_qp,
		.psn = psn_of(q, seq),
		.ackreq = last,
	};
	uint32_t off = k * cfg->mtu;
	p.payload_len = s->msg_size - off < cfg->mtu ? s->msg_size - off : cfg->mtu;
	if (cfg->op == RT_GEN_OP_WRITE) {
		p.opcode = s->ppm == 1 ? RT_OPCODE_RC_RDMA_WRITE_ONLY
			   : first     ? RT_OPCODE_RC_RDMA_WRITE_FIRST
			   : last      ? RT_OPCODE_RC_RDMA_WRITE_LAST
				       : RT_OPCODE_RC_RDMA_WRITE_MIDDLE;
		/* the RETH of the first packet (the table gives the opcode its headers) */
		p.reth_va = 0x7f0000000000ull + (msg % cfg->qdepth) * s->msg_size;
		p.reth_rkey = q->remote_qp ^ 0x5a5a00u;
		p.reth_len = s->msg_size;
	} else {
		p.opcode = s->ppm == 1 ? RT_OPCODE_RC_SEND_ONLY
			   : first     ? RT_OPCODE_RC_SEND_FIRST
			   : last      ? RT_OPCODE_RC_SEND_LAST
				       : RT_OPCODE_RC_SEND_MIDDLE;
		p.se = last;
	}
	struct rt_build_net net = {.ip_version = 4, .udp_sport = q->sport, .udp_dport = cfg->port,
				   .df = true};
	memcpy(net.src_ip, &s->local, 4);
	memcpy(net.dst_ip, &s->remote, 4);
	return rt_build_udp_payload(&net, &p, s->payload, buf, SLOT_SIZE);
}

static void go_back(struct sender *s, struct sqp *q, uint64_t seq, uint64_t now)
{
	if (q->max_sent > seq) {
		rt_evlog_begin_flow(&s->log, now, "retransmit", &q->flow);
		rt_evlog_u64(&s->log, "psn", psn_of(q, seq));
		rt_evlog_u64(&s->log, "count", q->max_sent - seq);
		rt_evlog_end(&s->log);
	}
	q->next_seq = seq;
	q->progress_ns = now;
}

static void on_reply(struct sender *s, const uint8_t *buf, size_t len, uint64_t now)
{
	struct rt_record rx;
	rt_dissect_roce(buf, (uint32_t)len, &rx);
	if (rx.kind == RT_KIND_MALFORMED || !rt_record_has_bth(&rx))
		return;
	uint32_t idx = rx.dest_qp - s->qp[0].local_qp;
	if (idx >= s->nqp)
		return;
	struct sqp *q = &s->qp[idx];
	if (rx.opcode == RT_OPCODE_CNP) {
		q->cnps++;
		rt_evlog_begin_flow(&s->log, now, "cnp", &q->flow);
		rt_evlog_end(&s->log);
		if (s->cfg->dcqcn) {
			rt_dcqcn_on_cnp(&q->cc, now);
			log_rate(s, q, now, "cnp");
		}
		return;
	}
	if (rx.opcode != RT_OPCODE_RC_ACK || !(rx.hdrs & RT_H_AETH))
		return;
	uint64_t seq = seq_of(q, rx.psn, q->una);
	enum rt_aeth_type t = rt_aeth_type(rx.aeth_syndrome);
	if (t == RT_AETH_ACK) {
		if (seq >= q->una && seq < q->max_sent) {
			/* latency: the ACK of the message's last packet ends one ping-pong */
			if (s->cfg->latency && q->lat_start_ns && (seq + 1 - q->base_seq) % s->ppm == 0 &&
			    s->nlat < RT_PERF_MAX_LAT) {
				s->lat[s->nlat++] = now - q->lat_start_ns;
				q->lat_start_ns = 0;
			}
			q->una = seq + 1;
			q->progress_ns = now;
			if (q->next_seq < q->una)
				q->next_seq = q->una;
		}
	} else if (t == RT_AETH_NAK) {
		q->naks++;
		rt_evlog_begin_flow(&s->log, now, "nak", &q->flow);
		rt_evlog_u64(&s->log, "psn", rx.psn);
		rt_evlog_u64(&s->log, "code", rx.aeth_syndrome & 0x1f);
		rt_evlog_end(&s->log);
		if (seq >= q->una && seq <= q->max_sent) {
			q->una = seq;
			go_back(s, q, seq, now);
		}
	}
}

static void drain_replies(struct sender *s)
{
	struct mmsghdr msgs[64];
	struct iovec iov[64];
	for (;;) {
		for (int i = 0; i < 64; i++) {
			iov[i].iov_base = s->rxbuf[i];
			iov[i].iov_len = sizeof(s->rxbuf[i]);
			memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		int n = recvmmsg(s->rfd, msgs, 64, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		uint64_t now = rt_gen_now_ns();
		for (int i = 0; i < n; i++)
			on_reply(s, s->rxbuf[i], msgs[i].msg_len, now);
		if (n < 64)
			return;
	}
}

/* PFC frames for our priority pause (quanta > 0) or resume (0) all data. */
static void drain_pfc(struct sender *s)
{
	uint8_t frame[128];
	ssize_t n;
	while (s->pfd >= 0 && (n = recv(s->pfd, frame, sizeof(frame), MSG_DONTWAIT)) > 0) {
		uint16_t quanta;
		if (!rt_pfc_parse(frame, (size_t)n, s->cfg->pfc_priority, &quanta))
			continue;
		uint64_t now = rt_gen_now_ns();
		s->paused_until = now + rt_pause_ns(quanta, (uint64_t)(s->cfg->line_gbps * 1e9));
		s->pfc_frames++;
		rt_evlog_begin(&s->log, now, "pfc");
		rt_evlog_u64(&s->log, "priority", s->cfg->pfc_priority);
		rt_evlog_u64(&s->log, "quanta", quanta);
		rt_evlog_bool(&s->log, "sent", false);
		rt_evlog_end(&s->log);
	}
}

static double burst_bytes(double mbps)
{
	double b = mbps * 1e6 / 8.0 * 100e-6; /* 100 us at the current rate */
	return b < 4 * 1100.0 ? 4 * 1100.0 : b;
}

/* Send what the window and the token bucket allow on one QP; returns packets sent. */
static int pump(struct sender *s, struct sqp *q, uint64_t now)
{
	double mbps = rate_mbps(s, q);
	q->tokens += (double)(now - q->refill_ns) * mbps / 8000.0;
	q->refill_ns = now;
	double burst = burst_bytes(mbps);
	if (q->tokens > burst)
		q->tokens = burst;
	uint64_t window = (uint64_t)s->cfg->qdepth * s->ppm;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(s->cfg->port),
				 .sin_addr = s->remote};
	int n = 0;
	uint64_t seq = q->next_seq;
	double tokens = q->tokens;
	while (n < BATCH && seq < q->end_seq && seq - q->una < window && tokens >= 0) {
		int len = build(s, q, seq, s->slots[n]);
		iov[n].iov_base = s->slots[n];
		iov[n].iov_len = (size_t)len;
		memset(&msgs[n].msg_hdr, 0, sizeof(msgs[n].msg_hdr));
		msgs[n].msg_hdr.msg_name = &to;
		msgs[n].msg_hdr.msg_namelen = sizeof(to);
		msgs[n].msg_hdr.msg_iov = &iov[n];
		msgs[n].msg_hdr.msg_iovlen = 1;
		tokens -= (double)rt_gen_wire_bytes((size_t)len);
		seq++;
		n++;
	}
	if (n == 0)
		return 0;
	/* latency: a message starts with this batch (a resend of it keeps its first time) */
	bool starts = s->cfg->latency && (q->next_seq - q->base_seq) % s->ppm == 0 &&
		      q->next_seq == q->max_sent;
	uint64_t t_send = starts ? rt_gen_now_ns() : 0;
	int sent = sendmmsg(q->fd, msgs, (unsigned)n, 0);
	if (starts && sent > 0)
		q->lat_start_ns = t_send;
	if (sent <= 0)
		return 0; /* EAGAIN/ENOBUFS: try again on the next round */
	/*
	 * The retransmission timer runs from the last ACK or packet sent: a window
	 * that takes longer than --timeout to pace out (or to resend) is no
	 * reason to go back.
	 */
	q->progress_ns = now;
	for (int i = 0; i < sent; i++) {
		uint64_t w = rt_gen_wire_bytes(iov[i].iov_len);
		q->tokens -= (double)w;
		q->packets++;
		q->bytes += w;
		if (q->next_seq < q->max_sent)
			q->retransmitted++;
		q->next_seq++;
		if (q->next_seq > q->max_sent)
			q->max_sent = q->next_seq;
		if (s->cfg->dcqcn && rt_dcqcn_on_bytes(&q->cc, w))
			maybe_log_increase(s, q, now, "byte");
	}
	return sent;
}

/* Time when QP q can next do something on its own (ignoring replies). */
static uint64_t next_due(struct sender *s, struct sqp *q, uint64_t now)
{
	uint64_t due = UINT64_MAX;
	uint64_t window = (uint64_t)s->cfg->qdepth * s->ppm;
	if (q->next_seq < q->end_seq && q->next_seq - q->una < window) {
		if (q->tokens >= 0)
			return now;
		double mbps = rate_mbps(s, q);
		due = now + (uint64_t)(-q->tokens * 8000.0 / mbps) + 1;
	}
	if (q->una < q->max_sent && q->progress_ns + s->cfg->timeout_ns < due)
		due = q->progress_ns + s->cfg->timeout_ns;
	if (s->cfg->dcqcn && q->cc.rc < s->max_mbps && rt_dcqcn_next_due(&q->cc) < due)
		due = rt_dcqcn_next_due(&q->cc);
	return due;
}

static int handshake(struct sender *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	char *line = malloc(RT_GEN_CTL_MAX);
	if (!line) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	int len = snprintf(line, RT_GEN_CTL_MAX, "HELLO 1 %s %u %u %u", rt_gen_op_name(cfg->op),
			   cfg->msg_size, cfg->mtu, s->nqp);
	for (unsigned i = 0; i < s->nqp && len < RT_GEN_CTL_MAX - 40; i++)
		len += snprintf(line + len, (size_t)(RT_GEN_CTL_MAX - len), " %u:%u:%u",
				s->qp[i].local_qp, s->qp[i].start_psn, s->qp[i].sport);
	line[len++] = '\n';
	int rc = rt_gen_write_all(s->ctl, line, (size_t)len);
	if (!rc)
		rc = rt_gen_read_line(s->ctl, line, RT_GEN_CTL_MAX, 5000);
	if (rc) {
		free(line);
		return rt_errorf(errbuf, -rc, "setup exchange with the server");
	}
	if (strncmp(line, "READY", 5) != 0) {
		char quote[128];
		rc = rt_errmsg(errbuf, ECONNREFUSED, "server refused: %s",
			       rt_gen_escape(quote, sizeof(quote), line, strlen(line)));
		free(line);
		return rc;
	}
	char *p = line + 5;
	for (unsigned i = 0; i < s->nqp; i++) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || v == 0 || v > 0xffffff) {
			free(line);
			return rt_errmsg(errbuf, EPROTO, "bad READY line from the server");
		}
		s->qp[i].remote_qp = (uint32_t)v;
		p = end;
	}
	free(line);
	return 0;
}

static int connect_ctl(struct sender *s, char *errbuf)
{
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr = s->local};
	struct sockaddr_in srv = {.sin_family = AF_INET, .sin_port = htons(s->cfg->control_port),
				  .sin_addr = s->remote};
	/* the server may still be starting: retry refused connections for 5 s */
	for (int attempt = 0;; attempt++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			int e = errno;
			return rt_errorf(errbuf, e, "socket");
		}
		if (bind(fd, (struct sockaddr *)&me, sizeof(me)) == 0 &&
		    connect(fd, (struct sockaddr *)&srv, sizeof(srv)) == 0) {
			s->ctl = fd;
			return 0;
		}
		int e = errno;
		close(fd);
		if (e != ECONNREFUSED || attempt >= 100 || (s->cfg->stop && *s->cfg->stop)) {
			return rt_errorf(errbuf, e, "connect to %s:%u", s->cfg->server, s->cfg->control_port);
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static int setup(struct sender *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	int rc = rt_gen_resolve4(cfg->server, &s->remote, errbuf);
	if (rc)
		return rc;
	if (cfg->bind_addr)
		rc = rt_gen_resolve4(cfg->bind_addr, &s->local, errbuf);
	else
		rc = rt_gen_route_src(s->remote, &s->local, errbuf);
	if (rc)
		return rc;
	if (s->local.s_addr == s->remote.s_addr) {
		return rt_errmsg(errbuf, EADDRINUSE, "sender and server share the address %s: give the sender another "
			 "one with --bind (replies come back to port %u)", inet_ntoa(s->local), cfg->port);
	}
	s->rfd = rt_gen_udp_socket(s->local, cfg->port, cfg->dscp << 2, true, errbuf);
	if (s->rfd < 0)
		return s->rfd;
	if (cfg->pfc && (s->pfd = rt_pfc_rx_open(s->local.s_addr, errbuf)) < 0)
		return s->pfd;
	uint32_t seed = (uint32_t)getpid() * 2654435761u ^ (uint32_t)rt_gen_now_ns();
	uint32_t qp_base = 0x10000u + ((uint32_t)getpid() & 0xff) * 0x100u;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct sqp *q = &s->qp[i];
		q->fd = rt_gen_udp_socket(s->local, 0, cfg->dscp << 2 | 2, false, errbuf);
		if (q->fd < 0)
			return q->fd;
		struct sockaddr_in sa;
		socklen_t len = sizeof(sa);
		getsockname(q->fd, (struct sockaddr *)&sa, &len);
		q->sport = ntohs(sa.sin_port);
		q->local_qp = qp_base + i;
		seed = seed * 1103515245u + 12345u;
		q->start_psn = (seed >> 4) & 0xffffff;
	}
	rc = connect_ctl(s, errbuf);
	if (rc)
		return rc;
	return handshake(s, errbuf);
}

/* Messages QP q has completed (all runs). */
static uint64_t qp_msgs(const struct sender *s, const struct sqp *q)
{
	return q->msgs_before + (q->una - q->base_seq) / s->ppm;
}

static void report_interval(struct sender *s, double t, double dt, uint64_t now)
{
	uint64_t by = 0, msgs = 0, cnp = 0, nak = 0, re = 0;
	double mbps = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct sqp *q = &s->qp[i];
		uint64_t dp = q->packets - q->iv_packets, db = q->bytes - q->iv_bytes;
		uint64_t m = qp_msgs(s, q);
		rt_evlog_begin_flow(&s->log, now, "interval", &q->flow);
		rt_evlog_u64(&s->log, "packets", dp);
		rt_evlog_u64(&s->log, "bytes", db);
		rt_evlog_double(&s->log, "gbps", (double)db * 8 / dt / 1e9, 6);
		rt_evlog_end(&s->log);
		by += db;
		msgs += m - q->iv_msgs;
		q->iv_packets = q->packets;
		q->iv_bytes = q->bytes;
		q->iv_msgs = m;
		cnp += q->cnps;
		nak += q->naks;
		re += q->retransmitted;
		mbps += rate_mbps(s, q);
	}
	fprintf(s->report, "%8.3f %10.3f %12.0f %8llu %8llu %10llu %12.1f\n", t,
		(double)by * 8 / dt / 1e9, (double)msgs / dt, (unsigned long long)cnp,
		(unsigned long long)nak, (unsigned long long)re, mbps);
	fflush(s->report);
	rt_evlog_flush(&s->log);
}

static void log_start(struct sender *s, uint64_t now)
{
	const struct rt_gen_config *cfg = s->cfg;
	rt_gen_log_start(&s->log, now, cfg, "udp", s->nqp);
	for (unsigned i = 0; i < s->nqp; i++) {
		struct sqp *q = &s->qp[i];
		inet_ntop(AF_INET, &s->local, q->flow.src, sizeof(q->flow.src));
		inet_ntop(AF_INET, &s->remote, q->flow.dst, sizeof(q->flow.dst));
		q->flow.dest_qp = q->remote_qp;
		rt_evlog_begin_flow(&s->log, now, "qp", &q->flow);
		rt_evlog_u64(&s->log, "local_qp", q->local_qp);
		rt_evlog_u64(&s->log, "udp_sport", q->sport);
		rt_evlog_end(&s->log);
		log_rate(s, q, now, "start");
	}
}

/* The QP's DCQCN reaction point, starting at the line rate (or the rate cap). */
static void init_cc(struct sender *s, struct sqp *q, uint64_t now)
{
	struct rt_dcqcn_params p = s->cfg->dcqcn_params;
	p.line_mbps = s->max_mbps;
	rt_dcqcn_init(&q->cc, &p, now);
}

/* Payload bytes of the messages completed in this run so far, all QPs. */
static uint64_t run_payload(const struct sender *s)
{
	uint64_t m = 0;
	for (unsigned i = 0; i < s->nqp; i++)
		m += (s->qp[i].una - s->qp[i].base_seq) / s->ppm;
	return m * s->msg_size;
}

/*
 * One run of msg_size-byte messages on every QP: until each QP completed
 * cfg->iters messages (or cfg->bytes), or cfg->duration_s passed and the
 * messages in flight are acknowledged. With `intervals`, one line (and one
 * event per QP) each cfg->interval_s.
 */
static int run(struct sender *s, uint32_t msg_size, bool intervals, struct rt_perf_run *res,
	       char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t t0 = rt_gen_now_ns();
	uint64_t stop_at = cfg->duration_s > 0 ? t0 + (uint64_t)(cfg->duration_s * 1e9) : UINT64_MAX;
	uint64_t iv_ns = (uint64_t)(cfg->interval_s * 1e9);
	uint64_t next_iv = intervals ? t0 + iv_ns : UINT64_MAX, last_iv = t0;
	uint64_t drain_deadline = 0;
	uint64_t slice_start = t0, slice_bytes = 0;
	bool stopping = false;
	s->msg_size = msg_size;
	s->ppm = (msg_size + cfg->mtu - 1) / cfg->mtu;
	s->nlat = 0;
	memset(res, 0, sizeof(*res));
	res->t0 = res->t_last = t0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct sqp *q = &s->qp[i];
		init_cc(s, q, t0);
		q->refill_ns = t0;
		q->tokens = 0;
		q->base_seq = q->next_seq = q->una = q->max_sent;
		q->lat_start_ns = 0;
		uint64_t n = NO_END;
		if (cfg->iters)
			n = cfg->iters;
		if (cfg->bytes && (cfg->bytes + msg_size - 1) / msg_size < n)
			n = (cfg->bytes + msg_size - 1) / msg_size;
		q->end_seq = n == NO_END ? NO_END : q->base_seq + n * s->ppm;
	}
	if (intervals)
		fprintf(s->report, "%8s %10s %12s %8s %8s %10s %12s\n", "sec", "Gb/s", "msg/s",
			"CNPs", "NAKs", "retrans", "rate_Mb/s");
	for (;;) {
		uint64_t now = rt_gen_now_ns();
		bool interrupted = cfg->stop && *cfg->stop;
		if (!stopping && (now >= stop_at || interrupted ||
				  (cfg->latency && s->nlat >= RT_PERF_MAX_LAT))) {
			stopping = true;
			res->stopped = interrupted;
			drain_deadline = now + 2000000000ull + 10 * cfg->timeout_ns;
			for (unsigned i = 0; i < s->nqp; i++) {
				struct sqp *q = &s->qp[i];
				uint64_t end = q->base_seq +
					       (q->max_sent - q->base_seq + s->ppm - 1) / s->ppm * s->ppm;
				if (end < q->end_seq)
					q->end_seq = end;
			}
		}
		uint64_t una_before = 0;
		for (unsigned i = 0; i < s->nqp; i++)
			una_before += s->qp[i].una;
		drain_replies(s);
		drain_pfc(s);
		uint64_t una_after = 0;
		for (unsigned i = 0; i < s->nqp; i++)
			una_after += s->qp[i].una;
		if (una_after != una_before)
			res->t_last = rt_gen_now_ns();
		if (now - slice_start >= RT_PERF_PEAK_SLICE_NS) {
			uint64_t b = run_payload(s);
			double bps = (double)(b - slice_bytes) * 8e9 / (double)(now - slice_start);
			if (bps > res->peak_bps)
				res->peak_bps = bps;
			slice_start = now;
			slice_bytes = b;
		}
		bool paused = now < s->paused_until;
		bool done = true;
		for (unsigned i = 0; i < s->nqp; i++) {
			struct sqp *q = &s->qp[i];
			if (cfg->dcqcn && rt_dcqcn_on_time(&q->cc, now))
				maybe_log_increase(s, q, now, "timer");
			if (q->una < q->max_sent && q->progress_ns + cfg->timeout_ns <= now) {
				q->timeouts++;
				rt_evlog_begin_flow(&s->log, now, "timeout", &q->flow);
				rt_evlog_u64(&s->log, "psn", psn_of(q, q->una));
				rt_evlog_end(&s->log);
				go_back(s, q, q->una, now);
			}
			if (!paused)
				pump(s, q, now);
			else if (q->progress_ns < now)
				q->progress_ns = now; /* a pause is no reason to time out */
			if (q->una < q->end_seq)
				done = false;
		}
		if (now >= next_iv) {
			report_interval(s, (double)(now - t0) / 1e9, (double)(now - last_iv) / 1e9, now);
			last_iv = now;
			next_iv += iv_ns;
			if (next_iv <= now)
				next_iv = now + iv_ns;
		}
		if (done)
			break;
		if (stopping && now >= drain_deadline) {
			return rt_errmsg(errbuf, ETIMEDOUT, "gave up waiting for the last acknowledgements after the run");
		}
		/* latency: poll without sleeping, as perftest does (a wake-up would be measured) */
		if (cfg->latency)
			continue;
		uint64_t due = stopping ? drain_deadline : stop_at;
		if (next_iv < due)
			due = next_iv;
		if (slice_start + RT_PERF_PEAK_SLICE_NS < due)
			due = slice_start + RT_PERF_PEAK_SLICE_NS;
		for (unsigned i = 0; i < s->nqp; i++) {
			uint64_t d = next_due(s, &s->qp[i], now);
			if (paused && d < s->paused_until)
				d = s->paused_until;
			if (d < due)
				due = d;
		}
		now = rt_gen_now_ns();
		if (due > now + 2000) {
			uint64_t wait = due - now;
			struct timespec ts = {(time_t)(wait / 1000000000u), (long)(wait % 1000000000u)};
			struct pollfd pfd[2] = {{.fd = s->rfd, .events = POLLIN},
						{.fd = s->pfd, .events = POLLIN}};
			ppoll(pfd, s->pfd >= 0 ? 2 : 1, &ts, NULL);
		}
	}
	uint64_t now = rt_gen_now_ns();
	/* a last, partial interval for whatever the intervals have not yet counted */
	bool unreported = false;
	for (unsigned i = 0; intervals && i < s->nqp; i++)
		unreported |= s->qp[i].packets != s->qp[i].iv_packets;
	if (unreported && now > last_iv)
		report_interval(s, (double)(now - t0) / 1e9, (double)(now - last_iv) / 1e9, now);
	for (unsigned i = 0; i < s->nqp; i++) {
		struct sqp *q = &s->qp[i];
		uint64_t m = (q->una - q->base_seq) / s->ppm;
		res->msgs += m;
		q->msgs_before += m;
		q->base_seq = q->una;
	}
	return 0;
}

/*
 * Every run the configuration asks for (one size, or each of a sweep), their
 * table, then the end events and the closing summary line.
 */
static int run_all(struct sender *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t t0 = rt_gen_now_ns();
	uint32_t first = cfg->sweep ? RT_PERF_SWEEP_MIN : cfg->msg_size;
	uint32_t last = cfg->msg_size; /* a sweep's largest, 2^23 */
	bool intervals = !cfg->sweep && !cfg->latency;
	for (unsigned i = 0; i < s->nqp; i++)
		init_cc(s, &s->qp[i], t0);
	log_start(s, t0);
	if (rt_perf_begin(s->report, cfg, intervals, &s->lat) < 0)
		return rt_errmsg(errbuf, ENOMEM, "out of memory for latency samples");
	struct rt_perf_run r = {0};
	for (uint64_t size = first; size <= last; size *= 2) {
		int rc = run(s, (uint32_t)size, intervals, &r, errbuf);
		if (rc)
			return rc;
		rt_perf_row(s->report, cfg, intervals, (uint32_t)size, &r, s->lat, s->nlat);
		if (r.stopped)
			break;
	}
	uint64_t now = rt_gen_now_ns();
	double secs = (double)(now - t0) / 1e9;
	uint64_t pk = 0, by = 0, msgs = 0, cnp = 0, nak = 0, re = 0, to = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct sqp *q = &s->qp[i];
		rt_evlog_begin_flow(&s->log, now, "end", &q->flow);
		rt_evlog_u64(&s->log, "packets", q->packets);
		rt_evlog_u64(&s->log, "bytes", q->bytes);
		rt_evlog_u64(&s->log, "retransmitted", q->retransmitted);
		rt_evlog_u64(&s->log, "cnp_handled", q->cnps);
		rt_evlog_u64(&s->log, "naks", q->naks);
		rt_evlog_u64(&s->log, "timeouts", q->timeouts);
		rt_evlog_u64(&s->log, "messages", q->msgs_before);
		rt_evlog_end(&s->log);
		pk += q->packets;
		by += q->bytes;
		msgs += q->msgs_before;
		cnp += q->cnps;
		nak += q->naks;
		re += q->retransmitted;
		to += q->timeouts;
	}
	fprintf(s->report,
		"summary role=%s backend=udp op=%s msg_size=%u qps=%u seconds=%.3f packets=%llu "
		"bytes=%llu messages=%llu gbps=%.3f msg_per_s=%.0f cnp=%llu nak=%llu "
		"retransmitted=%llu timeouts=%llu pfc_frames=%llu\n",
		cfg->latency ? "lat" : "send", rt_gen_op_name(cfg->op), last, s->nqp, secs,
		(unsigned long long)pk, (unsigned long long)by, (unsigned long long)msgs,
		(double)by * 8 / secs / 1e9, (double)msgs / secs, (unsigned long long)cnp,
		(unsigned long long)nak, (unsigned long long)re, (unsigned long long)to,
		(unsigned long long)s->pfc_frames);
	return 0;
}

int rt_gen_udp_send(const struct rt_gen_config *cfg, FILE *report, char *errbuf)
{
	if (cfg->op == RT_GEN_OP_READ) {
		return rt_errmsg(errbuf, EOPNOTSUPP, "the udp backend sends writes and sends; "
						 "read needs --backend verbs");
	}
	if (!cfg->server || cfg->qps == 0 || cfg->qps > RT_GEN_MAX_QPS || cfg->msg_size == 0 ||
	    cfg->mtu < 256 || cfg->mtu > 4096 || cfg->qdepth == 0 ||
	    (cfg->latency && (cfg->qps != 1 || cfg->qdepth != 1)) ||
	    (cfg->sweep && cfg->msg_size < RT_PERF_SWEEP_MAX) ||
	    (cfg->duration_s <= 0 && !cfg->iters)) {
		return rt_errmsg(errbuf, EINVAL, "bad sender configuration");
	}
	struct sender *s = calloc(1, sizeof(*s));
	if (!s) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	s->cfg = cfg;
	s->report = report;
	s->ctl = s->rfd = s->pfd = -1;
	s->nqp = cfg->qps;
	s->max_mbps = cfg->line_gbps * 1000.0;
	if (cfg->rate_gbps > 0 && cfg->rate_gbps * 1000.0 < s->max_mbps)
		s->max_mbps = cfg->rate_gbps * 1000.0;
	for (unsigned i = 0; i < sizeof(s->payload); i++)
		s->payload[i] = (uint8_t)i;
	s->qp = calloc(s->nqp, sizeof(*s->qp));
	int rc = s->qp ? 0 : rt_errmsg(errbuf, ENOMEM, "out of memory");
	for (unsigned i = 0; !rc && i < s->nqp; i++)
		s->qp[i].fd = -1;
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (!rc)
		rc = rt_evlog_open(&s->log, cfg->log_path, errbuf);
	if (!rc)
		rc = setup(s, errbuf);
	if (!rc)
		rc = run_all(s, errbuf);
	if (!rc) {
		char line[64];
		rc = rt_gen_write_all(s->ctl, "DONE\n", 5);
		if (!rc)
			rc = rt_gen_read_line(s->ctl, line, sizeof(line), 5000);
		if (rc) {
			rt_errorf(errbuf, -rc, "closing exchange with the server");
		} else if (strcmp(line, "BYE") != 0) {
			char quote[128];
			rc = rt_errmsg(errbuf, EPROTO, "server did not confirm the end: %s",
				       rt_gen_escape(quote, sizeof(quote), line, strlen(line)));
		}
	}
	char cerr[RT_ERRBUF_SIZE];
	int lrc = rt_evlog_close(&s->log, cerr);
	if (!rc && lrc) {
		rc = lrc;
		memcpy(errbuf, cerr, RT_ERRBUF_SIZE);
	}
	for (unsigned i = 0; s->qp && i < s->nqp; i++)
		if (s->qp[i].fd >= 0)
			close(s->qp[i].fd);
	if (s->rfd >= 0)
		close(s->rfd);
	if (s->pfd >= 0)
		close(s->pfd);
	if (s->ctl >= 0)
		close(s->ctl);
	free(s->qp);
	free(s->lat);
	free(s);
	return rc;
}
