/* udp backend server: receives RoCEv2 data, ACKs AckReq packets, NAKs gaps, sends CNPs for CE marks. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/sock_diag.h>
#include <unistd.h>

#include "traffic/evlog.h"
#include "dissect/build.h"
#include "dissect/opcodes.h"
#include "traffic/pfc.h"
#include "traffic/responder.h"
#include "traffic/internal.h"

#define RX_BATCH 64
#define RX_SLOT 4608
/* Server QP numbers run from QP_BASE to QPN_MAX and wrap; QP n lives in slot (n - QP_BASE) % 256 */
#define QP_BASE 0x200u
#define QPN_MAX 0xffffffu
/*
 * Setup connections: sessions (senders whose HELLO was accepted) and connections
 * still owing their HELLO, each with its own budget, so peers that connect and
 * say nothing can only push out each other (oldest first), never a session.
 */
#define MAX_SESSIONS 64
#define MAX_WAITING 16
#define MAX_CONNS (MAX_SESSIONS + MAX_WAITING)
/* Setup notices printed per second; the rest are counted and reported in one line. */
#define NOTICE_BURST 10
/* Room for the quoted part of a peer's line in a notice: 64 escaped characters and the NUL. */
#define QUOTE_MAX 65

struct srv_qp {
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

struct conn {
	int fd; /* -1: a free slot */
	bool session; /* its HELLO was accepted and QPs handed out */
	uint64_t opened_ns; /* accepted: the HELLO is due within hello_timeout_ns */
	uint64_t active_ns; /* session: its HELLO, latest setup line or latest data packet */
	struct in_addr local, peer;
	char name[INET_ADDRSTRLEN]; /* the peer's address as text */
	size_t len;
	char buf[RT_GEN_CTL_MAX];
};

/* Counts of a set of QPs: those whose session ended, or a total. */
struct totals {
	uint64_t packets, bytes, messages, ce, cnps, naks, acks, dups, ooo;
};

struct server {
	const struct rt_gen_config *cfg;
	FILE *report;
	struct rt_evlog log;
	struct in_addr addr; /* where the data and setup ports listen */
	int lfd, ufd;
	struct conn conns[MAX_CONNS];
	unsigned nwaiting, nsessions;
	unsigned finished; /* sessions that ended with DONE */
	uint64_t dropped; /* sessions that ended without DONE */
	uint64_t refused; /* connections closed before they became a session */
	unsigned notices; /* setup notices printed in the current second */
	uint64_t notice_ns, suppressed; /* start of that second; notices not printed */
	struct srv_qp qp[RT_GEN_MAX_QPS];
	unsigned nqp, qp_in_use; /* QPs handed out so far; QPs of live sessions */
	uint32_t next_qpn;
	struct totals gone; /* QPs of ended sessions */
	uint64_t last_iv_ns, iv_gone_bytes;
	bool started;
	uint64_t unknown_qp;
	/* PFC: XOFF while the receive backlog is above the threshold */
	struct rt_pfc_tx pfc;
	int rx_ifindex; /* interface the data arrives on */
	bool xoff;
	uint64_t last_xoff_ns, xoffs, xons;
	uint64_t iv_msgs;
	/* receive and reply batches */
	uint8_t rx[RX_BATCH][RX_SLOT];
	uint8_t rxctl[RX_BATCH][64];
	struct sockaddr_in rxfrom[RX_BATCH];
	uint8_t tx[2 * RX_BATCH][64];
	uint8_t txctl[2 * RX_BATCH][64];
	struct sockaddr_in txto[2 * RX_BATCH];
	struct iovec txiov[2 * RX_BATCH];
	struct mmsghdr txmsg[2 * RX_BATCH];
	unsigned ntx;
};

static void queue_reply(struct server *s, const struct rt_record *p, struct in_addr from,
			struct in_addr to, int tos)
{
	unsigned i = s->ntx;
	struct rt_build_net net = {.ip_version = 4, .udp_sport = s->cfg->port,
				   .udp_dport = s->cfg->port, .df = true};
	memcpy(net.src_ip, &from, 4);
	memcpy(net.dst_ip, &to, 4);
	int len = rt_build_udp_payload(&net, p, NULL, s->tx[i], sizeof(s->tx[i]));
	s->txto[i] = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(s->cfg->port),
					  .sin_addr = to};
	s->txiov[i] = (struct iovec){.iov_base = s->tx[i], .iov_len = (size_t)len};
	/* IP_PKTINFO pins the source address the ICRC was computed with; IP_TOS sets the DSCP */
	memset(s->txctl[i], 0, sizeof(s->txctl[i]));
	struct msghdr *m = &s->txmsg[i].msg_hdr;
	memset(m, 0, sizeof(*m));
	m->msg_name = &s->txto[i];
	m->msg_namelen = sizeof(s->txto[i]);
	m->msg_iov = &s->txiov[i];
	m->msg_iovlen = 1;
	m->msg_control = s->txctl[i];
	m->msg_controllen = CMSG_SPACE(sizeof(struct in_pktinfo)) + CMSG_SPACE(sizeof(int));
	struct cmsghdr *c = CMSG_FIRSTHDR(m);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
	struct in_pktinfo pi = {.ipi_spec_dst = from};
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	c = CMSG_NXTHDR(m, c);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_TOS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &tos, sizeof(tos));
	s->ntx++;
}

static void flush_replies(struct server *s)
{
	unsigned off = 0;
	while (off < s->ntx) {
		int n = sendmmsg(s->ufd, s->txmsg + off, s->ntx - off, 0);
		if (n <= 0) {
			if (n < 0 && errno == EAGAIN) {
				struct pollfd pfd = {.fd = s->ufd, .events = POLLOUT};
				poll(&pfd, 1, 10);
				continue;
			}
			break; /* a reply lost here is what the sender's timer is for */
		}
		off += (unsigned)n;
	}
	s->ntx = 0;
}

/* The live QP numbered qpn, or NULL (never handed out, or its session ended). */
static struct srv_qp *find_qp(struct server *s, uint32_t qpn)
{
	if (qpn < QP_BASE)
		return NULL;
	struct srv_qp *q = &s->qp[(qpn - QP_BASE) % RT_GEN_MAX_QPS];
	return q->active && q->flow.dest_qp == qpn ? q : NULL;
}

/* Slots that ever held a QP: they are handed out in order, from slot 0. */
static unsigned slots_used(const struct server *s)
{
	return s->nqp < RT_GEN_MAX_QPS ? s->nqp : RT_GEN_MAX_QPS;
}

static void on_data(struct server *s, const uint8_t *buf, size_t len, int tos, struct in_addr to,
		    uint64_t now)
{
	struct rt_record rx;
	rt_dissect_roce(buf, (uint32_t)len, &rx);
	if (rx.kind == RT_KIND_MALFORMED || !rt_record_has_bth(&rx))
		return;
	struct srv_qp *q = find_qp(s, rx.dest_qp);
	if (!q) {
		s->unknown_qp++;
		return;
	}
	s->conns[q->owner].active_ns = now;
	q->packets++;
	q->bytes += rt_gen_wire_bytes(len);
	bool ce = (tos & 3) == 3;
	if (ce)
		q->ce++;
	uint16_t opf = rt_opcode_flags(rx.opcode);
	struct rt_resp_in in = {.psn = rx.psn, .ackreq = rx.ackreq,
				.last = (opf & (RT_OPF_SEND | RT_OPF_WRITE)) && (opf & RT_OPF_END),
				.ce = ce, .now_ns = now};
	struct rt_resp_out out;
	rt_resp_input(&q->rs, &in, s->cfg->cnp_interval_ns, &out);
	if (out.actions & RT_RESP_ACCEPT && in.last)
		q->messages++;
	if (out.actions & RT_RESP_DUPLICATE)
		q->dups++;
	if (out.actions & RT_RESP_OUT_OF_ORDER)
		q->ooo++;
	if (out.actions & RT_RESP_CNP) {
		struct rt_record p = {.opcode = RT_OPCODE_CNP, .becn = true, .pkey = 0xffff,
				      .dest_qp = q->client_qp};
		queue_reply(s, &p, to, q->client, s->cfg->cnp_dscp << 2);
		q->cnps++;
		rt_evlog_begin_flow(&s->log, now, "cnp", &q->flow);
		rt_evlog_bool(&s->log, "sent", true);
		rt_evlog_end(&s->log);
	}
	if (out.actions & RT_RESP_NAK) {
		struct rt_record p = {.opcode = RT_OPCODE_RC_ACK, .pkey = 0xffff,
				      .dest_qp = q->client_qp, .psn = out.ack_psn,
				      .aeth_syndrome = RT_AETH_SYNDROME(RT_AETH_NAK, RT_NAK_PSN_SEQ_ERROR),
				      .aeth_msn = out.msn};
		queue_reply(s, &p, to, q->client, s->cfg->dscp << 2);
		q->naks++;
		rt_evlog_begin_flow(&s->log, now, "nak", &q->flow);
		rt_evlog_u64(&s->log, "psn", out.ack_psn);
		rt_evlog_u64(&s->log, "code", 0);
		rt_evlog_bool(&s->log, "sent", true);
		rt_evlog_end(&s->log);
	} else if (out.actions & RT_RESP_ACK) {
		q->ack_pending = true;
		q->ack_psn = out.ack_psn;
		q->ack_msn = out.msn;
		q->ack_from = to;
	}
}

/* Send the newest ACK of each QP that earned one in the batch just processed. */
static void queue_acks(struct server *s)
{
	for (unsigned i = 0; i < slots_used(s); i++) {
		struct srv_qp *q = &s->qp[i];
		if (!q->ack_pending)
			continue;
		if (s->ntx >= 2 * RX_BATCH)
			flush_replies(s);
		struct rt_record p = {.opcode = RT_OPCODE_RC_ACK, .pkey = 0xffff,
				      .dest_qp = q->client_qp, .psn = q->ack_psn,
				      .aeth_syndrome = RT_AETH_SYNDROME(RT_AETH_ACK, RT_AETH_CREDITS_INVALID),
				      .aeth_msn = q->ack_msn};
		queue_reply(s, &p, q->ack_from, q->client, s->cfg->dscp << 2);
		q->ack_pending = false;
		q->acks++;
	}
}

static void receive(struct server *s)
{
	struct mmsghdr msgs[RX_BATCH];
	struct iovec iov[RX_BATCH];
	for (int round = 0; round < 16; round++) {
		for (int i = 0; i < RX_BATCH; i++) {
			iov[i] = (struct iovec){.iov_base = s->rx[i], .iov_len = RX_SLOT};
			msgs[i].msg_hdr = (struct msghdr){.msg_name = &s->rxfrom[i],
							  .msg_namelen = sizeof(s->rxfrom[i]),
							  .msg_iov = &iov[i], .msg_iovlen = 1,
							  .msg_control = s->rxctl[i],
							  .msg_controllen = sizeof(s->rxctl[i])};
		}
		int n = recvmmsg(s->ufd, msgs, RX_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		uint64_t now = rt_gen_now_ns();
		for (int i = 0; i < n; i++) {
			int tos = 0;
			struct in_addr to = {0};
			struct msghdr *m = &msgs[i].msg_hdr;
			for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
				if (c->cmsg_level != IPPROTO_IP)
					continue;
				if (c->cmsg_type == IP_TOS)
					tos = *(const uint8_t *)CMSG_DATA(c);
				else if (c->cmsg_type == IP_PKTINFO) {
					struct in_pktinfo pi;
					memcpy(&pi, CMSG_DATA(c), sizeof(pi));
					to = pi.ipi_addr;
					s->rx_ifindex = pi.ipi_ifindex;
				}
			}
			on_data(s, s->rx[i], msgs[i].msg_len, tos, to, now);
			if (s->ntx + 2 > 2 * RX_BATCH)
				flush_replies(s);
		}
		queue_acks(s);
		flush_replies(s);
		if (n < RX_BATCH)
			break;
	}
}

static void log_pfc(struct server *s, uint16_t quanta)
{
	rt_evlog_begin(&s->log, rt_gen_now_ns(), "pfc");
	rt_evlog_u64(&s->log, "priority", s->cfg->pfc_priority);
	rt_evlog_u64(&s->log, "quanta", quanta);
	rt_evlog_bool(&s->log, "sent", true);
	rt_evlog_end(&s->log);
}

/* After a drain: XOFF (refreshed at half its pause time) above the threshold, XON at half of it. */
static int pfc_check(struct server *s, char *errbuf)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	if (getsockopt(s->ufd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0) {
		int e = errno;
		return rt_errorf(errbuf, e, "SO_MEMINFO");
	}
	uint64_t xoff = s->cfg->pfc_xoff_bytes ? s->cfg->pfc_xoff_bytes : mem[SK_MEMINFO_RCVBUF] / 2;
	uint64_t backlog = mem[SK_MEMINFO_RMEM_ALLOC], now = rt_gen_now_ns();
	uint64_t refresh = rt_pause_ns(0xffff, (uint64_t)(s->cfg->line_gbps * 1e9)) / 2;
	uint16_t quanta;
	if (backlog >= xoff && (!s->xoff || now - s->last_xoff_ns >= refresh))
		quanta = 0xffff;
	else if (s->xoff && backlog <= xoff / 2)
		quanta = 0;
	else
		return 0;
	if (s->pfc.fd < 0 && s->rx_ifindex > 0) {
		int rc = rt_pfc_tx_open(&s->pfc, s->rx_ifindex, errbuf);
		if (rc)
			return rc;
	}
	if (s->pfc.fd < 0)
		return 0;
	int rc = rt_pfc_tx_send(&s->pfc, s->cfg->pfc_priority, quanta);
	if (rc) {
		return rt_errorf(errbuf, -rc, "sending PFC");
	}
	s->xoff = quanta != 0;
	if (quanta) {
		s->last_xoff_ns = now;
		s->xoffs++;
	} else {
		s->xons++;
	}
	log_pfc(s, quanta);
	return 0;
}

/* A line on the operator's report about a setup connection; at most NOTICE_BURST a second. */
__attribute__((format(printf, 3, 4))) static void notice(struct server *s, uint64_t now,
							 const char *fmt, ...)
{
	if (now - s->notice_ns >= 1000000000u) {
		if (s->suppressed)
			fprintf(s->report, "(%llu more setup notices not shown)\n",
				(unsigned long long)s->suppressed);
		s->notice_ns = now;
		s->notices = 0;
		s->suppressed = 0;
	}
	if (s->notices >= NOTICE_BURST) {
		s->suppressed++;
		return;
	}
	s->notices++;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(s->report, fmt, ap);
	va_end(ap);
	fputc('\n', s->report);
	fflush(s->report);
}

/* One reply line, sent without waiting: a peer that does not read loses its line, not our time. */
static bool conn_reply(struct conn *c, const char *line)
{
	size_t len = strlen(line);
	return send(c->fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len;
}

static void log_end(struct server *s, struct srv_qp *q, uint64_t now)
{
	rt_evlog_begin_flow(&s->log, now, "end", &q->flow);
	rt_evlog_u64(&s->log, "packets", q->packets);
	rt_evlog_u64(&s->log, "bytes", q->bytes);
	rt_evlog_u64(&s->log, "retransmitted", q->dups);
	rt_evlog_u64(&s->log, "cnp_handled", 0);
	rt_evlog_u64(&s->log, "naks", q->naks);
	rt_evlog_u64(&s->log, "cnp_sent", q->cnps);
	rt_evlog_u64(&s->log, "ce", q->ce);
	rt_evlog_u64(&s->log, "messages", q->messages);
	rt_evlog_u64(&s->log, "out_of_order", q->ooo);
	rt_evlog_u64(&s->log, "acks_sent", q->acks);
	rt_evlog_end(&s->log);
}

static void add_qp(struct totals *t, const struct srv_qp *q)
{
	t->packets += q->packets;
	t->bytes += q->bytes;
	t->messages += q->messages;
	t->ce += q->ce;
	t->cnps += q->cnps;
	t->naks += q->naks;
	t->acks += q->acks;
	t->dups += q->dups;
	t->ooo += q->ooo;
}

/* The gone QPs plus the live ones. */
static struct totals totals(const struct server *s)
{
	struct totals t = s->gone;
	for (unsigned i = 0; i < slots_used(s); i++)
		if (s->qp[i].active)
			add_qp(&t, &s->qp[i]);
	return t;
}

/* Log a QP's traffic since the last interval (dt seconds); returns its new frame bytes. */
static uint64_t qp_interval(struct server *s, struct srv_qp *q, double dt, uint64_t now)
{
	uint64_t dp = q->packets - q->iv_packets, db = q->bytes - q->iv_bytes;
	if (dp) {
		rt_evlog_begin_flow(&s->log, now, "interval", &q->flow);
		rt_evlog_u64(&s->log, "packets", dp);
		rt_evlog_u64(&s->log, "bytes", db);
		rt_evlog_double(&s->log, "gbps", (double)db * 8 / dt / 1e9, 6);
		rt_evlog_end(&s->log);
	}
	q->iv_packets = q->packets;
	q->iv_bytes = q->bytes;
	return db;
}

/* A free slot as the QP after the last one: a late packet of an ended session finds no QP. */
static struct srv_qp *alloc_qp(struct server *s, unsigned owner)
{
	for (;;) {
		uint32_t qpn = s->next_qpn;
		s->next_qpn = qpn == QPN_MAX ? QP_BASE : qpn + 1;
		struct srv_qp *q = &s->qp[(qpn - QP_BASE) % RT_GEN_MAX_QPS];
		if (q->active)
			continue;
		memset(q, 0, sizeof(*q));
		q->active = true;
		q->owner = owner;
		q->flow.dest_qp = qpn;
		s->nqp++;
		s->qp_in_use++;
		return q;
	}
}

/*
 * Close connection i. A session's QPs log their last interval (and, when it said
 * DONE, their end), go into the totals and free their slots.
 */
static void conn_close(struct server *s, unsigned i, uint64_t now, bool done)
{
	struct conn *c = &s->conns[i];
	if (c->session) {
		double dt = now > s->last_iv_ns ? (double)(now - s->last_iv_ns) / 1e9 : 1e-9;
		for (unsigned k = 0; k < slots_used(s); k++) {
			struct srv_qp *q = &s->qp[k];
			if (!q->active || q->owner != i)
				continue;
			s->iv_gone_bytes += qp_interval(s, q, dt, now);
			if (done)
				log_end(s, q, now);
			add_qp(&s->gone, q);
			q->active = false;
			s->qp_in_use--;
		}
		s->nsessions--;
		if (done)
			s->finished++;
		else
			s->dropped++;
	} else {
		s->nwaiting--;
		s->refused++;
	}
	close(c->fd);
	c->fd = -1;
	c->session = false;
}

/* Refuse a setup line: an ERROR reply to the peer, a notice quoting the line to the operator. */
static void refuse(struct server *s, struct conn *c, uint64_t now, const char *reply,
		   const char *why, const char *line, size_t len)
{
	char quote[QUOTE_MAX];
	conn_reply(c, reply);
	notice(s, now, "setup connection from %s: %s \"%s\": closed", c->name, why,
	       rt_gen_escape(quote, sizeof(quote), line, len));
}

/* A waiting connection's first line: a valid HELLO makes it a session. False: close it. */
static bool on_hello(struct server *s, unsigned ci, const char *line, size_t len, uint64_t now)
{
	struct conn *c = &s->conns[ci];
	char opname[16];
	enum rt_gen_op op;
	unsigned ver, msg, mtu, n;
	int used = 0;
	if (sscanf(line, "HELLO %u %15s %u %u %u%n", &ver, opname, &msg, &mtu, &n, &used) != 5 ||
	    ver != 1 || n == 0 || rt_gen_op_parse(opname, &op)) {
		refuse(s, c, now, "ERROR bad HELLO\n", "not a HELLO line:", line, len);
		return false;
	}
	if (n > RT_GEN_MAX_QPS - s->qp_in_use) { /* not in_use + n: that wraps for a huge n */
		conn_reply(c, "ERROR too many QPs\n");
		notice(s, now, "setup connection from %s: asks for %u QPs, %u free: closed", c->name,
		       n, RT_GEN_MAX_QPS - s->qp_in_use);
		return false;
	}
	if (s->nsessions >= MAX_SESSIONS) {
		conn_reply(c, "ERROR server full\n");
		notice(s, now, "setup connection from %s: %d senders are running: closed", c->name,
		       MAX_SESSIONS);
		return false;
	}
	uint32_t qpn[RT_GEN_MAX_QPS], psn[RT_GEN_MAX_QPS];
	uint16_t sport[RT_GEN_MAX_QPS];
	const char *p = line + used;
	for (unsigned i = 0; i < n; i++) {
		unsigned a, b, d;
		int k = 0;
		if (sscanf(p, " %u:%u:%u%n", &a, &b, &d, &k) != 3) {
			refuse(s, c, now, "ERROR bad QP list\n", "bad QP list in", line, len);
			return false;
		}
		p += k;
		qpn[i] = a & 0xffffff;
		psn[i] = b;
		sport[i] = (uint16_t)d;
	}
	c->session = true;
	c->active_ns = now;
	s->nwaiting--;
	s->nsessions++;
	char reply[RT_GEN_CTL_MAX];
	int rlen = snprintf(reply, sizeof(reply), "READY");
	struct srv_qp *qs[RT_GEN_MAX_QPS];
	for (unsigned i = 0; i < n; i++) {
		struct srv_qp *q = qs[i] = alloc_qp(s, ci);
		q->client_qp = qpn[i];
		q->client_sport = sport[i];
		q->client = c->peer;
		rt_resp_init(&q->rs, psn[i]);
		inet_ntop(AF_INET, &c->peer, q->flow.src, sizeof(q->flow.src));
		inet_ntop(AF_INET, &c->local, q->flow.dst, sizeof(q->flow.dst));
		if (rlen < (int)sizeof(reply) - 12)
			rlen += snprintf(reply + rlen, sizeof(reply) - (size_t)rlen, " %u",
					 q->flow.dest_qp);
	}
	if (!s->started) {
		s->started = true;
		rt_evlog_begin(&s->log, now, "start");
		rt_evlog_str(&s->log, "role", "serve");
		rt_evlog_str(&s->log, "backend", "udp");
		rt_evlog_str(&s->log, "op", rt_gen_op_name(op));
		rt_evlog_u64(&s->log, "msg_size", msg);
		rt_evlog_u64(&s->log, "qps", n);
		rt_evlog_end(&s->log);
	}
	for (unsigned i = 0; i < n; i++) {
		rt_evlog_begin_flow(&s->log, now, "qp", &qs[i]->flow);
		rt_evlog_u64(&s->log, "local_qp", qs[i]->flow.dest_qp);
		rt_evlog_u64(&s->log, "udp_sport", qs[i]->client_sport);
		rt_evlog_u64(&s->log, "peer_qp", qs[i]->client_qp);
		rt_evlog_end(&s->log);
	}
	reply[rlen++] = '\n';
	reply[rlen] = '\0';
	if (!conn_reply(c, reply)) {
		notice(s, now, "client %s: cannot send READY: dropped", c->name);
		return false;
	}
	notice(s, now, "client %s: %s, %u QPs, %u-byte messages, MTU %u", c->name,
	       rt_gen_op_name(op), n, msg, mtu);
	return true;
}

enum line_result { LINE_KEEP, LINE_DONE, LINE_CLOSE };

/* Handle one setup line of connection ci. */
static enum line_result on_line(struct server *s, unsigned ci, const char *line, size_t len,
				uint64_t now)
{
	struct conn *c = &s->conns[ci];
	if (!c->session)
		return on_hello(s, ci, line, len, now) ? LINE_KEEP : LINE_CLOSE;
	if (strcmp(line, "DONE") != 0 || len != 4) {
		char quote[QUOTE_MAX];
		conn_reply(c, "ERROR expected DONE\n");
		notice(s, now, "client %s: \"%s\" instead of DONE: dropped", c->name,
		       rt_gen_escape(quote, sizeof(quote), line, len));
		return LINE_CLOSE;
	}
	/* the sender had every packet acknowledged: our counts are final */
	flush_replies(s);
	conn_reply(c, "BYE\n");
	return LINE_DONE;
}

static void on_conn_readable(struct server *s, unsigned i, uint64_t now)
{
	struct conn *c = &s->conns[i];
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->session)
			notice(s, now, "client %s left without DONE", c->name);
		else
			notice(s, now, "setup connection from %s closed before its HELLO", c->name);
		conn_close(s, i, now, false);
		return;
	}
	if (c->session)
		c->active_ns = now;
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	char *nl;
	while ((nl = memchr(c->buf, '\n', c->len))) {
		*nl = '\0';
		size_t used = (size_t)(nl - c->buf) + 1;
		enum line_result r = on_line(s, i, c->buf, used - 1, now);
		if (r != LINE_KEEP) {
			conn_close(s, i, now, r == LINE_DONE);
			return;
		}
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
	}
	if (c->len >= sizeof(c->buf) - 1) {
		conn_reply(c, "ERROR line too long\n");
		notice(s, now, "%s %s: %zu bytes without a line end: %s",
		       c->session ? "client" : "setup connection from", c->name, c->len,
		       c->session ? "dropped" : "closed");
		conn_close(s, i, now, false);
	}
}

/* Close the connection that has waited longest for its HELLO. */
static void evict_oldest(struct server *s, uint64_t now)
{
	unsigned oldest = MAX_CONNS;
	for (unsigned i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &s->conns[i];
		if (c->fd >= 0 && !c->session &&
		    (oldest == MAX_CONNS || c->opened_ns < s->conns[oldest].opened_ns))
			oldest = i;
	}
	notice(s, now, "setup connection from %s: longest of %d waiting for a HELLO: closed",
	       s->conns[oldest].name, MAX_WAITING);
	conn_close(s, oldest, now, false);
}

/*
 * Accept what is pending, half the waiting budget per call at most, so a
 * connection accepted now has its HELLO read before a flood could evict it.
 */
static void on_accept(struct server *s, uint64_t now)
{
	for (unsigned k = 0; k < MAX_WAITING / 2; k++) {
		struct sockaddr_in peer, local;
		socklen_t plen = sizeof(peer), llen = sizeof(local);
		int fd = accept4(s->lfd, (struct sockaddr *)&peer, &plen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (s->nwaiting >= MAX_WAITING)
			evict_oldest(s, now);
		/* waiting <= MAX_WAITING - 1 and sessions <= MAX_SESSIONS: a slot is free */
		unsigned i = 0;
		while (s->conns[i].fd >= 0)
			i++;
		struct conn *c = &s->conns[i];
		memset(c, 0, offsetof(struct conn, buf));
		getsockname(fd, (struct sockaddr *)&local, &llen);
		c->fd = fd;
		c->opened_ns = now;
		c->peer = peer.sin_addr;
		c->local = local.sin_addr;
		inet_ntop(AF_INET, &c->peer, c->name, sizeof(c->name));
		s->nwaiting++;
	}
}

/* Close connections past their HELLO timeout and silent sessions; returns the next deadline. */
static uint64_t sweep(struct server *s, uint64_t now)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t next = UINT64_MAX;
	for (unsigned i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &s->conns[i];
		if (c->fd < 0)
			continue;
		uint64_t limit = c->session ? cfg->idle_timeout_ns : cfg->hello_timeout_ns;
		uint64_t due = (c->session ? c->active_ns : c->opened_ns) + limit;
		if (now < due) {
			if (due < next)
				next = due;
			continue;
		}
		if (c->session)
			notice(s, now, "client %s: no data and no DONE for %.1f s: dropped", c->name,
			       (double)limit / 1e9);
		else
			notice(s, now, "setup connection from %s: no HELLO within %.1f s: closed",
			       c->name, (double)limit / 1e9);
		conn_close(s, i, now, false);
	}
	return next;
}

static void report_interval(struct server *s, double t, double dt, uint64_t now)
{
	uint64_t by = s->iv_gone_bytes;
	for (unsigned i = 0; i < slots_used(s); i++)
		if (s->qp[i].active)
			by += qp_interval(s, &s->qp[i], dt, now);
	struct totals tot = totals(s);
	fprintf(s->report, "%8.3f %10.3f %12.0f %8llu %8llu %8llu\n", t, (double)by * 8 / dt / 1e9,
		(double)(tot.messages - s->iv_msgs) / dt, (unsigned long long)tot.ce,
		(unsigned long long)tot.cnps, (unsigned long long)tot.naks);
	fflush(s->report);
	s->iv_msgs = tot.messages;
	s->iv_gone_bytes = 0;
	rt_evlog_flush(&s->log);
}

static int open_sockets(struct server *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	s->addr.s_addr = htonl(INADDR_LOOPBACK); /* only what the operator names is reachable */
	if (cfg->bind_addr) {
		int rc = rt_gen_resolve4(cfg->bind_addr, &s->addr, errbuf);
		if (rc)
			return rc;
	}
	s->ufd = rt_gen_udp_socket(s->addr, cfg->port, cfg->dscp << 2, true, errbuf);
	if (s->ufd < 0)
		return s->ufd;
	int one = 1;
	if (setsockopt(s->ufd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)) < 0 ||
	    setsockopt(s->ufd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0) {
		int e = errno;
		return rt_errorf(errbuf, e, "IP_RECVTOS/IP_PKTINFO");
	}
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(cfg->control_port),
				 .sin_addr = s->addr};
	if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s->lfd, MAX_CONNS) < 0) {
		int e = errno;
		char a[INET_ADDRSTRLEN];
		return rt_errorf(errbuf, e, "control port %s:%u",
				 inet_ntop(AF_INET, &s->addr, a, sizeof(a)), cfg->control_port);
	}
	return 0;
}

static int serve(struct server *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t t0 = rt_gen_now_ns();
	uint64_t give_up = cfg->duration_s > 0 ? t0 + (uint64_t)(cfg->duration_s * 1e9) : UINT64_MAX;
	uint64_t iv_ns = (uint64_t)(cfg->interval_s * 1e9);
	uint64_t next_iv = t0 + iv_ns;
	char a[INET_ADDRSTRLEN];
	fprintf(s->report, "listening on %s, UDP %u (data) and TCP %u (setup), for %u client(s)%s\n",
		inet_ntop(AF_INET, &s->addr, a, sizeof(a)), cfg->port, cfg->control_port,
		cfg->clients, cfg->bind_addr ? "" : " (loopback only: -B ADDR takes other hosts)");
	s->last_iv_ns = t0;
	fprintf(s->report, "%8s %10s %12s %8s %8s %8s\n", "sec", "Gb/s", "msg/s", "CE", "CNPs",
		"NAKs");
	fflush(s->report);
	while (s->finished < cfg->clients) {
		if (cfg->stop && *cfg->stop)
			break;
		uint64_t now = rt_gen_now_ns();
		if (now >= give_up) {
			return rt_errmsg(errbuf, ETIMEDOUT, "%u of %u client(s) done after %.1f s", s->finished, cfg->clients, cfg->duration_s);
		}
		if (now >= next_iv) {
			if (s->nqp)
				report_interval(s, (double)(now - t0) / 1e9,
						(double)(now - s->last_iv_ns) / 1e9, now);
			s->last_iv_ns = now;
			next_iv = now + iv_ns;
		}
		uint64_t due = sweep(s, now);
		if (next_iv < due)
			due = next_iv;
		if (give_up < due)
			due = give_up;
		struct pollfd pfd[2 + MAX_CONNS];
		unsigned slot[MAX_CONNS], nc = 0;
		pfd[0] = (struct pollfd){.fd = s->ufd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
		for (unsigned i = 0; i < MAX_CONNS; i++)
			if (s->conns[i].fd >= 0) {
				pfd[2 + nc] = (struct pollfd){.fd = s->conns[i].fd,
							      .events = POLLIN};
				slot[nc++] = i;
			}
		int timeout_ms = due > now ? (int)((due - now) / 1000000u) + 1 : 0;
		int n = poll(pfd, 2 + nc, timeout_ms);
		if (n < 0 && errno != EINTR) {
			int e = errno;
			return rt_errorf(errbuf, e, "poll");
		}
		if (n <= 0)
			continue;
		if (pfd[0].revents) {
			/* the backlog is looked at as data wakes us, and again once drained */
			int rc = cfg->pfc ? pfc_check(s, errbuf) : 0;
			receive(s);
			if (!rc && cfg->pfc)
				rc = pfc_check(s, errbuf);
			if (rc)
				return rc;
		}
		now = rt_gen_now_ns();
		for (unsigned k = 0; k < nc; k++)
			if (pfd[2 + k].revents)
				on_conn_readable(s, slot[k], now);
		if (pfd[1].revents)
			on_accept(s, now);
	}
	uint64_t now = rt_gen_now_ns();
	double secs = (double)(now - t0) / 1e9;
	struct totals t = totals(s);
	if (s->suppressed)
		fprintf(s->report, "(%llu more setup notices not shown)\n",
			(unsigned long long)s->suppressed);
	fprintf(s->report,
		"summary role=serve backend=udp qps=%u seconds=%.3f packets=%llu bytes=%llu "
		"messages=%llu ce=%llu cnp_sent=%llu nak_sent=%llu duplicates=%llu "
		"out_of_order=%llu unknown_qp=%llu acks_sent=%llu pfc_xoff=%llu pfc_xon=%llu "
		"clients=%u clients_dropped=%llu setup_refused=%llu\n",
		s->nqp, secs, (unsigned long long)t.packets, (unsigned long long)t.bytes,
		(unsigned long long)t.messages, (unsigned long long)t.ce,
		(unsigned long long)t.cnps, (unsigned long long)t.naks,
		(unsigned long long)t.dups, (unsigned long long)t.ooo,
		(unsigned long long)s->unknown_qp, (unsigned long long)t.acks,
		(unsigned long long)s->xoffs, (unsigned long long)s->xons, s->finished,
		(unsigned long long)s->dropped, (unsigned long long)s->refused);
	return 0;
}

int rt_gen_udp_serve(const struct rt_gen_config *cfg, FILE *report, char *errbuf)
{
	if (cfg->clients == 0 || cfg->clients > MAX_SESSIONS)
		return rt_errmsg(errbuf, EINVAL, "clients must be 1..%d", MAX_SESSIONS);
	if (cfg->hello_timeout_ns == 0 || cfg->idle_timeout_ns == 0)
		return rt_errmsg(errbuf, EINVAL, "the HELLO and idle timeouts must be above 0");
	struct server *s = calloc(1, sizeof(*s));
	if (!s) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	s->cfg = cfg;
	s->report = report;
	s->lfd = s->ufd = s->pfc.fd = -1;
	for (unsigned i = 0; i < MAX_CONNS; i++)
		s->conns[i].fd = -1;
	s->next_qpn = QP_BASE;
	int rc = rt_evlog_open(&s->log, cfg->log_path, errbuf);
	if (!rc)
		rc = open_sockets(s, errbuf);
	if (!rc)
		rc = serve(s, errbuf);
	char cerr[RT_ERRBUF_SIZE];
	int lrc = rt_evlog_close(&s->log, cerr);
	if (!rc && lrc) {
		rc = lrc;
		memcpy(errbuf, cerr, RT_ERRBUF_SIZE);
	}
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (s->conns[i].fd >= 0)
			close(s->conns[i].fd);
	if (s->ufd >= 0)
		close(s->ufd);
	if (s->lfd >= 0)
		close(s->lfd);
	rt_pfc_tx_close(&s->pfc);
	free(s);
	return rc;
}
