/* udp backend sender's part of the run loop: packets built and paced per QP, go-back-N, DCQCN, PFC pauses. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "common/clock.h"
#include "traffic/perf.h"
#include "traffic/internal.h"
#include "dissect/build.h"
#include "dissect/opcodes.h"

#define NO_END UINT64_MAX

static uint64_t seq_of(const struct rt_gen_snd_qp *q, uint32_t psn, uint64_t base)
{
	uint32_t base_psn = (q->start_psn + (uint32_t)base) & 0xffffff;
	int64_t s = (int64_t)base + rt_psn_diff(psn, base_psn);
	return s < 0 ? 0 : (uint64_t)s;
}

static uint32_t psn_of(const struct rt_gen_snd_qp *q, uint64_t seq)
{
	return (q->start_psn + (uint32_t)seq) & 0xffffff;
}

static double rate_mbps(const struct rt_gen_snd *s, const struct rt_gen_snd_qp *q)
{
	return s->snd.cfg->dcqcn ? q->cc.rc : s->max_mbps;
}

/* Log QP q's current rate (a "rate" event) with the reason it changed. */
static void log_rate(struct rt_gen_snd *s, struct rt_gen_snd_qp *q, uint64_t now,
                     const char *reason)
{
	double r = rate_mbps(s, q);
	rt_evlog_begin_flow(&s->log, now, "rate", &q->flow);
	rt_evlog_double(&s->log, "rate_mbps", r, 3);
	rt_evlog_str(&s->log, "reason", reason);
	rt_evlog_end(&s->log);
	q->logged_mbps = r;
}

/* Recovery steps are logged when the rate moved by 2% since the last line, or reached the line
 * rate. */
static void maybe_log_increase(struct rt_gen_snd *s, struct rt_gen_snd_qp *q, uint64_t now,
                               const char *reason)
{
	double r = q->cc.rc;
	if (fabs(r - q->logged_mbps) >= 0.02 * q->logged_mbps ||
	    (r >= s->max_mbps && q->logged_mbps < s->max_mbps))
		log_rate(s, q, now, reason);
}

/* Build the packet with sequence number seq of QP q into buf; returns its length. */
static int build(struct rt_gen_snd *s, struct rt_gen_snd_qp *q, uint64_t seq, uint8_t *buf)
{
	const struct rt_gen_config *cfg = s->snd.cfg;
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
	struct rt_build_net net = {
	    .ip_version = 4, .udp_sport = q->sport, .udp_dport = cfg->port, .df = true};
	memcpy(net.src_ip, &s->local, 4);
	memcpy(net.dst_ip, &s->remote, 4);
	return rt_build_udp_payload(&net, &p, s->payload, buf, RT_GEN_SND_SLOT_SIZE);
}

static void go_back(struct rt_gen_snd *s, struct rt_gen_snd_qp *q, uint64_t seq, uint64_t now)
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

static void on_reply(struct rt_gen_snd *s, const uint8_t *buf, size_t len, uint64_t now)
{
	struct rt_record rx;
	rt_dissect_roce(buf, (uint32_t)len, &rx);
	if (rx.kind == RT_KIND_MALFORMED || !rt_record_has_bth(&rx))
		return;
	uint32_t idx = rx.dest_qp - s->qp[0].local_qp;
	if (idx >= s->nqp)
		return;
	struct rt_gen_snd_qp *q = &s->qp[idx];
	if (rx.opcode == RT_OPCODE_CNP) {
		q->cnps++;
		rt_evlog_begin_flow(&s->log, now, "cnp", &q->flow);
		rt_evlog_end(&s->log);
		if (s->snd.cfg->dcqcn) {
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
			if (s->snd.cfg->latency && q->lat_start_ns &&
			    (seq + 1 - q->base_seq) % s->ppm == 0 &&
			    s->snd.nlat < RT_PERF_MAX_LAT) {
				s->snd.lat[s->snd.nlat++] = now - q->lat_start_ns;
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

static void drain_replies(struct rt_gen_snd *s)
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
		uint64_t now = rt_mono_ns();
		for (int i = 0; i < n; i++)
			on_reply(s, s->rxbuf[i], msgs[i].msg_len, now);
		if (n < 64)
			return;
	}
}

/* PFC frames for our priority pause (quanta > 0) or resume (0) all data. */
static void drain_pfc(struct rt_gen_snd *s)
{
	uint8_t frame[128];
	ssize_t n;
	while (s->pfd >= 0 && (n = recv(s->pfd, frame, sizeof(frame), MSG_DONTWAIT)) > 0) {
		uint16_t quanta;
		if (!rt_pfc_parse(frame, (size_t)n, s->snd.cfg->pfc_priority, &quanta))
			continue;
		uint64_t now = rt_mono_ns();
		s->paused_until =
		    now + rt_pause_ns(quanta, (uint64_t)(s->snd.cfg->line_gbps * 1e9));
		s->pfc_frames++;
		rt_evlog_begin(&s->log, now, "pfc");
		rt_evlog_u64(&s->log, "priority", s->snd.cfg->pfc_priority);
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
static int pump(struct rt_gen_snd *s, struct rt_gen_snd_qp *q, uint64_t now)
{
	double mbps = rate_mbps(s, q);
	q->tokens += (double)(now - q->refill_ns) * mbps / 8000.0;
	q->refill_ns = now;
	double burst = burst_bytes(mbps);
	if (q->tokens > burst)
		q->tokens = burst;
	uint64_t window = (uint64_t)s->snd.cfg->qdepth * s->ppm;
	struct mmsghdr msgs[RT_GEN_SND_BATCH];
	struct iovec iov[RT_GEN_SND_BATCH];
	struct sockaddr_in to = {
	    .sin_family = AF_INET, .sin_port = htons(s->snd.cfg->port), .sin_addr = s->remote};
	int n = 0;
	uint64_t seq = q->next_seq;
	double tokens = q->tokens;
	while (n < RT_GEN_SND_BATCH && seq < q->end_seq && seq - q->una < window && tokens >= 0) {
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
	bool starts = s->snd.cfg->latency && (q->next_seq - q->base_seq) % s->ppm == 0 &&
	              q->next_seq == q->max_sent;
	uint64_t t_send = starts ? rt_mono_ns() : 0;
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
		if (s->snd.cfg->dcqcn && rt_dcqcn_on_bytes(&q->cc, w))
			maybe_log_increase(s, q, now, "byte");
	}
	return sent;
}

/* Time when QP q can next do something on its own (ignoring replies). */
static uint64_t next_due(struct rt_gen_snd *s, struct rt_gen_snd_qp *q, uint64_t now)
{
	uint64_t due = UINT64_MAX;
	uint64_t window = (uint64_t)s->snd.cfg->qdepth * s->ppm;
	if (q->next_seq < q->end_seq && q->next_seq - q->una < window) {
		if (q->tokens >= 0)
			return now;
		double mbps = rate_mbps(s, q);
		due = now + (uint64_t)(-q->tokens * 8000.0 / mbps) + 1;
	}
	if (q->una < q->max_sent && q->progress_ns + s->snd.cfg->timeout_ns < due)
		due = q->progress_ns + s->snd.cfg->timeout_ns;
	if (s->snd.cfg->dcqcn && q->cc.rc < s->max_mbps && rt_dcqcn_next_due(&q->cc) < due)
		due = rt_dcqcn_next_due(&q->cc);
	return due;
}

/* Messages QP q has completed (all runs). */
static uint64_t qp_msgs(const struct rt_gen_snd *s, const struct rt_gen_snd_qp *q)
{
	return q->msgs_before + (q->una - q->base_seq) / s->ppm;
}

/* One interval line and each QP's "interval" event. */
static void report_interval(void *backend, double t, double dt, uint64_t now)
{
	struct rt_gen_snd *s = backend;
	uint64_t by = 0, msgs = 0, cnp = 0, nak = 0, re = 0;
	double mbps = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
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
	fprintf(s->snd.report, "%8.3f %10.3f %12.0f %8llu %8llu %10llu %12.1f\n", t,
	        (double)by * 8 / dt / 1e9, (double)msgs / dt, (unsigned long long)cnp,
	        (unsigned long long)nak, (unsigned long long)re, mbps);
	fflush(s->snd.report);
	rt_evlog_flush(&s->log);
}

/* The QP's DCQCN reaction point, starting at the line rate (or the rate cap). */
static void init_cc(struct rt_gen_snd *s, struct rt_gen_snd_qp *q, uint64_t now)
{
	struct rt_dcqcn_params p = s->snd.cfg->dcqcn_params;
	p.line_mbps = s->max_mbps;
	rt_dcqcn_init(&q->cc, &p, now);
}

/* Before the runs: each QP's reaction point, the "start" and "qp" events and each QP's rate. */
static void udp_start(void *backend, uint64_t now)
{
	struct rt_gen_snd *s = backend;
	for (unsigned i = 0; i < s->nqp; i++)
		init_cc(s, &s->qp[i], now);
	rt_gen_log_start(&s->log, now, s->snd.cfg, "udp", s->nqp);
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
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

/* Payload bytes of the messages completed in this run so far, all QPs. */
static uint64_t udp_run_payload(const void *backend)
{
	const struct rt_gen_snd *s = backend;
	uint64_t m = 0;
	for (unsigned i = 0; i < s->nqp; i++)
		m += (s->qp[i].una - s->qp[i].base_seq) / s->ppm;
	return m * s->msg_size;
}

static void udp_run_begin(void *backend, uint32_t msg_size, bool intervals, uint64_t now)
{
	struct rt_gen_snd *s = backend;
	const struct rt_gen_config *cfg = s->snd.cfg;
	s->msg_size = msg_size;
	s->ppm = (msg_size + cfg->mtu - 1) / cfg->mtu;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
		init_cc(s, q, now);
		q->refill_ns = now;
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
		fprintf(s->snd.report, "%8s %10s %12s %8s %8s %10s %12s\n", "sec", "Gb/s", "msg/s",
		        "CNPs", "NAKs", "retrans", "rate_Mb/s");
}

/* The messages begun are finished (and resent as need be), no other: give them 2 s and 10 timeouts. */
static uint64_t udp_stop(void *backend, uint64_t now)
{
	struct rt_gen_snd *s = backend;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
		uint64_t end =
		    q->base_seq + (q->max_sent - q->base_seq + s->ppm - 1) / s->ppm * s->ppm;
		if (end < q->end_seq)
			q->end_seq = end;
	}
	return now + 2000000000ull + 10 * s->snd.cfg->timeout_ns;
}

/* The replies and PFC frames waiting; the run's last completion when an ACK moved a window. */
static void udp_receive(void *backend, struct rt_perf_run *res)
{
	struct rt_gen_snd *s = backend;
	uint64_t una_before = 0;
	for (unsigned i = 0; i < s->nqp; i++)
		una_before += s->qp[i].una;
	drain_replies(s);
	drain_pfc(s);
	uint64_t una_after = 0;
	for (unsigned i = 0; i < s->nqp; i++)
		una_after += s->qp[i].una;
	if (una_after != una_before)
		res->t_last = rt_mono_ns();
}

/* Each QP: DCQCN's timer, the retransmission timer, then what the window and rate allow. */
static int udp_step(void *backend, uint64_t now, bool stopping, struct rt_perf_run *res, bool *done,
                    char *errbuf)
{
	(void)stopping; /* udp_stop cut each QP's end */
	(void)res;
	(void)errbuf;
	struct rt_gen_snd *s = backend;
	const struct rt_gen_config *cfg = s->snd.cfg;
	bool paused = now < s->paused_until;
	*done = true;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
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
			*done = false;
	}
	return 0;
}

static bool udp_interval_left(const void *backend, uint64_t now, uint64_t last_iv, uint64_t iv_ns)
{
	(void)iv_ns;
	const struct rt_gen_snd *s = backend;
	bool unreported = false;
	for (unsigned i = 0; i < s->nqp; i++)
		unreported |= s->qp[i].packets != s->qp[i].iv_packets;
	return unreported && now > last_iv;
}

/* Until the first QP has something to do (a PFC pause holds them all), or a reply comes. */
static void udp_wait(void *backend, uint64_t now, uint64_t due)
{
	struct rt_gen_snd *s = backend;
	bool paused = now < s->paused_until;
	for (unsigned i = 0; i < s->nqp; i++) {
		uint64_t d = next_due(s, &s->qp[i], now);
		if (paused && d < s->paused_until)
			d = s->paused_until;
		if (d < due)
			due = d;
	}
	now = rt_mono_ns();
	if (due > now + 2000) {
		uint64_t wait = due - now;
		struct timespec ts = {(time_t)(wait / 1000000000u), (long)(wait % 1000000000u)};
		struct pollfd pfd[2] = {{.fd = s->rfd, .events = POLLIN},
		                        {.fd = s->pfd, .events = POLLIN}};
		ppoll(pfd, s->pfd >= 0 ? 2 : 1, &ts, NULL);
	}
}

static uint64_t udp_run_end(void *backend)
{
	struct rt_gen_snd *s = backend;
	uint64_t msgs = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
		uint64_t m = (q->una - q->base_seq) / s->ppm;
		msgs += m;
		q->msgs_before += m;
		q->base_seq = q->una;
	}
	return msgs;
}

/* Each QP's "end" event, then the closing summary line. */
static void udp_finish(void *backend, uint64_t t0)
{
	struct rt_gen_snd *s = backend;
	const struct rt_gen_config *cfg = s->snd.cfg;
	uint64_t now = rt_mono_ns();
	double secs = (double)(now - t0) / 1e9;
	uint64_t pk = 0, by = 0, msgs = 0, cnp = 0, nak = 0, re = 0, to = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
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
	fprintf(s->snd.report,
	        "summary role=%s backend=udp op=%s msg_size=%u qps=%u seconds=%.3f packets=%llu "
	        "bytes=%llu messages=%llu gbps=%.3f msg_per_s=%.0f cnp=%llu nak=%llu "
	        "retransmitted=%llu timeouts=%llu pfc_frames=%llu\n",
	        cfg->latency ? "lat" : "send", rt_gen_op_name(cfg->op), cfg->msg_size, s->nqp, secs,
	        (unsigned long long)pk, (unsigned long long)by, (unsigned long long)msgs,
	        (double)by * 8 / secs / 1e9, (double)msgs / secs, (unsigned long long)cnp,
	        (unsigned long long)nak, (unsigned long long)re, (unsigned long long)to,
	        (unsigned long long)s->pfc_frames);
}

const struct rt_gen_send_ops rt_gen_udp_send_ops = {
    .start = udp_start,
    .run_begin = udp_run_begin,
    .stop = udp_stop,
    .receive = udp_receive,
    .run_payload = udp_run_payload,
    .step = udp_step,
    .interval = report_interval,
    .interval_left = udp_interval_left,
    .wait = udp_wait,
    .run_end = udp_run_end,
    .finish = udp_finish,
};
