/* udp backend server: receives RoCEv2 data, ACKs AckReq packets, NAKs gaps, sends CNPs for CE marks. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
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
#define MAX_CLIENTS 64
#define QP_BASE 0x200u

struct srv_qp {
	bool active;
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
	int fd;
	char buf[RT_GEN_CTL_MAX];
	size_t len;
	unsigned first_qp, nqp;
	struct in_addr local, peer;
};

struct server {
	const struct rt_gen_config *cfg;
	FILE *report;
	struct rt_evlog log;
	int lfd, ufd;
	struct conn conns[MAX_CLIENTS];
	unsigned nconns, finished;
	struct srv_qp qp[RT_GEN_MAX_QPS];
	unsigned nqp;
	bool started;
	uint64_t unknown_qp;
	/* PFC: XOFF while the receive backlog is above the threshold */
	struct rt_pfc_tx pfc;
	int rx_ifindex; /* interface the data arrives on */
	bool xoff;
	uint64_t last_xoff_ns, xoffs, xons;
	uint64_t iv_cnps, iv_naks, iv_ce, iv_msgs;
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

static void on_data(struct server *s, const uint8_t *buf, size_t len, int tos, struct in_addr to,
		    uint64_t now)
{
	struct rt_record rx;
	rt_dissect_roce(buf, (uint32_t)len, &rx);
	if (rx.kind == RT_KIND_MALFORMED || !rt_record_has_bth(&rx))
		return;
	uint32_t idx = rx.dest_qp - QP_BASE;
	if (idx >= s->nqp || !s->qp[idx].active) {
		s->unknown_qp++;
		return;
	}
	struct srv_qp *q = &s->qp[idx];
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
	for (unsigned i = 0; i < s->nqp; i++) {
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

static void conn_reply(struct conn *c, const char *line)
{
	rt_gen_write_all(c->fd, line, strlen(line));
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

/* Handle one control line; returns false when the connection is finished. */
static bool on_line(struct server *s, struct conn *c, char *line)
{
	uint64_t now = rt_gen_now_ns();
	if (!strcmp(line, "DONE")) {
		/* the sender had every packet acknowledged: our counts are final */
		flush_replies(s);
		for (unsigned i = 0; i < c->nqp; i++)
			log_end(s, &s->qp[c->first_qp + i], now);
		conn_reply(c, "BYE\n");
		return false;
	}
	char op[16];
	unsigned ver, msg, mtu, n;
	int used = 0;
	if (sscanf(line, "HELLO %u %15s %u %u %u%n", &ver, op, &msg, &mtu, &n, &used) != 5 ||
	    ver != 1 || n == 0) {
		conn_reply(c, "ERROR bad HELLO\n");
		return false;
	}
	if (c->nqp || n > RT_GEN_MAX_QPS - s->nqp) { /* not s->nqp + n: that wraps for a huge n */
		conn_reply(c, "ERROR too many QPs\n");
		return false;
	}
	char *p = line + used;
	char reply[RT_GEN_CTL_MAX];
	int rlen = snprintf(reply, sizeof(reply), "READY");
	c->first_qp = s->nqp;
	for (unsigned i = 0; i < n; i++) {
		unsigned qpn, psn, sport;
		int k = 0;
		if (sscanf(p, " %u:%u:%u%n", &qpn, &psn, &sport, &k) != 3) {
			conn_reply(c, "ERROR bad QP list\n");
			return false;
		}
		p += k;
		struct srv_qp *q = &s->qp[s->nqp + i];
		memset(q, 0, sizeof(*q));
		q->active = true;
		q->client_qp = qpn & 0xffffff;
		q->client_sport = (uint16_t)sport;
		q->client = c->peer;
		rt_resp_init(&q->rs, psn);
		inet_ntop(AF_INET, &c->peer, q->flow.src, sizeof(q->flow.src));
		inet_ntop(AF_INET, &c->local, q->flow.dst, sizeof(q->flow.dst));
		q->flow.dest_qp = QP_BASE + s->nqp + i;
		if (rlen < (int)sizeof(reply) - 12)
			rlen += snprintf(reply + rlen, sizeof(reply) - (size_t)rlen, " %u",
					 q->flow.dest_qp);
	}
	if (!s->started) {
		s->started = true;
		rt_evlog_begin(&s->log, now, "start");
		rt_evlog_str(&s->log, "role", "serve");
		rt_evlog_str(&s->log, "backend", "udp");
		rt_evlog_str(&s->log, "op", op);
		rt_evlog_u64(&s->log, "msg_size", msg);
		rt_evlog_u64(&s->log, "qps", n);
		rt_evlog_end(&s->log);
	}
	for (unsigned i = 0; i < n; i++) {
		struct srv_qp *q = &s->qp[s->nqp + i];
		rt_evlog_begin_flow(&s->log, now, "qp", &q->flow);
		rt_evlog_u64(&s->log, "local_qp", q->flow.dest_qp);
		rt_evlog_u64(&s->log, "udp_sport", q->client_sport);
		rt_evlog_u64(&s->log, "peer_qp", q->client_qp);
		rt_evlog_end(&s->log);
	}
	s->nqp += n;
	c->nqp = n;
	reply[rlen++] = '\n';
	reply[rlen] = '\0';
	conn_reply(c, reply);
	fprintf(s->report, "client %s: %s, %u QPs, %u-byte messages, MTU %u\n", inet_ntoa(c->peer), op, n,
		msg, mtu);
	return true;
}

static void conn_close(struct server *s, unsigned i)
{
	close(s->conns[i].fd);
	s->conns[i] = s->conns[--s->nconns];
	s->finished++;
}

static void on_conn_readable(struct server *s, unsigned i)
{
	struct conn *c = &s->conns[i];
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		if (c->nqp)
			fprintf(s->report, "client %s left without DONE\n", inet_ntoa(c->peer));
		conn_close(s, i);
		return;
	}
	if (n < 0)
		return;
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	char *nl;
	while ((nl = memchr(c->buf, '\n', c->len))) {
		*nl = '\0';
		size_t used = (size_t)(nl - c->buf) + 1;
		bool keep = on_line(s, c, c->buf);
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
		if (!keep) {
			conn_close(s, i);
			return;
		}
	}
	if (c->len >= sizeof(c->buf) - 1) {
		conn_reply(c, "ERROR line too long\n");
		conn_close(s, i);
	}
}

static void on_accept(struct server *s)
{
	struct sockaddr_in peer, local;
	socklen_t plen = sizeof(peer), llen = sizeof(local);
	int fd = accept4(s->lfd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (s->nconns >= MAX_CLIENTS || s->nconns + s->finished >= s->cfg->clients) {
		rt_gen_write_all(fd, "ERROR server full\n", 18);
		close(fd);
		return;
	}
	getsockname(fd, (struct sockaddr *)&local, &llen);
	struct conn *c = &s->conns[s->nconns++];
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->peer = peer.sin_addr;
	c->local = local.sin_addr;
}

static void report_interval(struct server *s, double t, double dt, uint64_t now)
{
	uint64_t by = 0, msgs = 0, ce = 0, cnp = 0, nak = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct srv_qp *q = &s->qp[i];
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
		by += db;
		msgs += q->messages;
		ce += q->ce;
		cnp += q->cnps;
		nak += q->naks;
	}
	fprintf(s->report, "%8.3f %10.3f %12.0f %8llu %8llu %8llu\n", t, (double)by * 8 / dt / 1e9,
		(double)(msgs - s->iv_msgs) / dt, (unsigned long long)ce, (unsigned long long)cnp,
		(unsigned long long)nak);
	fflush(s->report);
	s->iv_msgs = msgs;
	rt_evlog_flush(&s->log);
}

static int open_sockets(struct server *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	struct in_addr any = {htonl(INADDR_ANY)};
	if (cfg->bind_addr) {
		int rc = rt_gen_resolve4(cfg->bind_addr, &any, errbuf);
		if (rc)
			return rc;
	}
	s->ufd = rt_gen_udp_socket(any, cfg->port, cfg->dscp << 2, true, errbuf);
	if (s->ufd < 0)
		return s->ufd;
	int one = 1;
	if (setsockopt(s->ufd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)) < 0 ||
	    setsockopt(s->ufd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0) {
		int e = errno;
		return rt_errorf(errbuf, e, "IP_RECVTOS/IP_PKTINFO");
	}
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(cfg->control_port),
				 .sin_addr = any};
	if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s->lfd, 16) < 0) {
		int e = errno;
		return rt_errorf(errbuf, e, "control port %u", cfg->control_port);
	}
	return 0;
}

static int serve(struct server *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t t0 = rt_gen_now_ns();
	uint64_t give_up = cfg->duration_s > 0 ? t0 + (uint64_t)(cfg->duration_s * 1e9) : UINT64_MAX;
	uint64_t iv_ns = (uint64_t)(cfg->interval_s * 1e9);
	uint64_t next_iv = t0 + iv_ns, last_iv = t0;
	fprintf(s->report, "listening on UDP %u (data) and TCP %u (setup) for %u client(s)\n",
		cfg->port, cfg->control_port, cfg->clients);
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
						(double)(now - last_iv) / 1e9, now);
			last_iv = now;
			next_iv = now + iv_ns;
		}
		struct pollfd pfd[2 + MAX_CLIENTS];
		pfd[0] = (struct pollfd){.fd = s->ufd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
		for (unsigned i = 0; i < s->nconns; i++)
			pfd[2 + i] = (struct pollfd){.fd = s->conns[i].fd, .events = POLLIN};
		uint64_t due = next_iv < give_up ? next_iv : give_up;
		int timeout_ms = due > now ? (int)((due - now) / 1000000u) + 1 : 0;
		int n = poll(pfd, 2 + s->nconns, timeout_ms);
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
		unsigned nc = s->nconns;
		for (unsigned i = nc; i-- > 0;)
			if (pfd[2 + i].revents)
				on_conn_readable(s, i);
		if (pfd[1].revents)
			on_accept(s);
	}
	uint64_t now = rt_gen_now_ns();
	double secs = (double)(now - t0) / 1e9;
	uint64_t pk = 0, by = 0, msgs = 0, ce = 0, cnp = 0, nak = 0, dup = 0, ooo = 0, acks = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct srv_qp *q = &s->qp[i];
		acks += q->acks;
		pk += q->packets;
		by += q->bytes;
		msgs += q->messages;
		ce += q->ce;
		cnp += q->cnps;
		nak += q->naks;
		dup += q->dups;
		ooo += q->ooo;
	}
	fprintf(s->report,
		"summary role=serve backend=udp qps=%u seconds=%.3f packets=%llu bytes=%llu "
		"messages=%llu ce=%llu cnp_sent=%llu nak_sent=%llu duplicates=%llu "
		"out_of_order=%llu unknown_qp=%llu acks_sent=%llu pfc_xoff=%llu pfc_xon=%llu\n",
		s->nqp, secs, (unsigned long long)pk, (unsigned long long)by,
		(unsigned long long)msgs, (unsigned long long)ce, (unsigned long long)cnp,
		(unsigned long long)nak, (unsigned long long)dup, (unsigned long long)ooo,
		(unsigned long long)s->unknown_qp, (unsigned long long)acks,
		(unsigned long long)s->xoffs, (unsigned long long)s->xons);
	return 0;
}

int rt_gen_udp_serve(const struct rt_gen_config *cfg, FILE *report, char *errbuf)
{
	if (cfg->clients == 0 || cfg->clients > MAX_CLIENTS) {
		return rt_errmsg(errbuf, EINVAL, "clients must be 1..%d", MAX_CLIENTS);
	}
	struct server *s = calloc(1, sizeof(*s));
	if (!s) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	s->cfg = cfg;
	s->report = report;
	s->lfd = s->ufd = s->pfc.fd = -1;
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
	for (unsigned i = 0; i < s->nconns; i++)
		close(s->conns[i].fd);
	if (s->ufd >= 0)
		close(s->ufd);
	if (s->lfd >= 0)
		close(s->lfd);
	rt_pfc_tx_close(&s->pfc);
	free(s);
	return rc;
}
