/* udp backend server's data path: receive batches, ACK/NAK/CNP replies, PFC on the backlog. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/sock_diag.h>

#include "common/clock.h"
#include "dissect/build.h"
#include "dissect/opcodes.h"
#include "traffic/internal.h"

static void queue_reply(struct rt_gen_srv *s, const struct rt_record *p, struct in_addr from,
                        struct in_addr to, int tos)
{
	unsigned i = s->ntx;
	struct rt_build_net net = {
	    .ip_version = 4, .udp_sport = s->cfg->port, .udp_dport = s->cfg->port, .df = true};
	memcpy(net.src_ip, &from, 4);
	memcpy(net.dst_ip, &to, 4);
	int len = rt_build_udp_payload(&net, p, NULL, s->tx[i], sizeof(s->tx[i]));
	s->txto[i] = (struct sockaddr_in){
	    .sin_family = AF_INET, .sin_port = htons(s->cfg->port), .sin_addr = to};
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

void rt_gen_srv_flush_replies(struct rt_gen_srv *s)
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
static struct rt_gen_srv_qp *find_qp(struct rt_gen_srv *s, uint32_t qpn)
{
	if (qpn < RT_GEN_SRV_QP_BASE)
		return NULL;
	struct rt_gen_srv_qp *q = &s->qp[(qpn - RT_GEN_SRV_QP_BASE) % RT_GEN_MAX_QPS];
	return q->active && q->flow.dest_qp == qpn ? q : NULL;
}

/* Slots that ever held a QP: they are handed out in order, from slot 0. */
unsigned rt_gen_srv_slots_used(const struct rt_gen_srv *s)
{
	return s->nqp < RT_GEN_MAX_QPS ? s->nqp : RT_GEN_MAX_QPS;
}

static void on_data(struct rt_gen_srv *s, const uint8_t *buf, size_t len, int tos,
                    struct in_addr to, uint64_t now)
{
	struct rt_record rx;
	rt_dissect_roce(buf, (uint32_t)len, &rx);
	if (rx.kind == RT_KIND_MALFORMED || !rt_record_has_bth(&rx))
		return;
	struct rt_gen_srv_qp *q = find_qp(s, rx.dest_qp);
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
	struct rt_resp_in in = {.psn = rx.psn,
	                        .ackreq = rx.ackreq,
	                        .last = (opf & (RT_OPF_SEND | RT_OPF_WRITE)) && (opf & RT_OPF_END),
	                        .ce = ce,
	                        .now_ns = now};
	struct rt_resp_out out;
	rt_resp_input(&q->rs, &in, s->cfg->cnp_interval_ns, &out);
	if (out.actions & RT_RESP_ACCEPT && in.last)
		q->messages++;
	if (out.actions & RT_RESP_DUPLICATE)
		q->dups++;
	if (out.actions & RT_RESP_OUT_OF_ORDER)
		q->ooo++;
	if (out.actions & RT_RESP_CNP) {
		struct rt_record p = {
		    .opcode = RT_OPCODE_CNP, .becn = true, .pkey = 0xffff, .dest_qp = q->client_qp};
		queue_reply(s, &p, to, q->client, s->cfg->cnp_dscp << 2);
		q->cnps++;
		rt_evlog_begin_flow(&s->log, now, "cnp", &q->flow);
		rt_evlog_bool(&s->log, "sent", true);
		rt_evlog_end(&s->log);
	}
	if (out.actions & RT_RESP_NAK) {
		struct rt_record p = {.opcode = RT_OPCODE_RC_ACK,
		                      .pkey = 0xffff,
		                      .dest_qp = q->client_qp,
		                      .psn = out.ack_psn,
		                      .aeth_syndrome =
		                          RT_AETH_SYNDROME(RT_AETH_NAK, RT_NAK_PSN_SEQ_ERROR),
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
static void queue_acks(struct rt_gen_srv *s)
{
	for (unsigned i = 0; i < rt_gen_srv_slots_used(s); i++) {
		struct rt_gen_srv_qp *q = &s->qp[i];
		if (!q->ack_pending)
			continue;
		if (s->ntx >= 2 * RT_GEN_SRV_RX_BATCH)
			rt_gen_srv_flush_replies(s);
		struct rt_record p = {.opcode = RT_OPCODE_RC_ACK,
		                      .pkey = 0xffff,
		                      .dest_qp = q->client_qp,
		                      .psn = q->ack_psn,
		                      .aeth_syndrome =
		                          RT_AETH_SYNDROME(RT_AETH_ACK, RT_AETH_CREDITS_INVALID),
		                      .aeth_msn = q->ack_msn};
		queue_reply(s, &p, q->ack_from, q->client, s->cfg->dscp << 2);
		q->ack_pending = false;
		q->acks++;
	}
}

void rt_gen_srv_receive(struct rt_gen_srv *s)
{
	struct mmsghdr msgs[RT_GEN_SRV_RX_BATCH];
	struct iovec iov[RT_GEN_SRV_RX_BATCH];
	for (int round = 0; round < 16; round++) {
		for (int i = 0; i < RT_GEN_SRV_RX_BATCH; i++) {
			iov[i] =
			    (struct iovec){.iov_base = s->rx[i], .iov_len = RT_GEN_SRV_RX_SLOT};
			msgs[i].msg_hdr = (struct msghdr){.msg_name = &s->rxfrom[i],
			                                  .msg_namelen = sizeof(s->rxfrom[i]),
			                                  .msg_iov = &iov[i],
			                                  .msg_iovlen = 1,
			                                  .msg_control = s->rxctl[i],
			                                  .msg_controllen = sizeof(s->rxctl[i])};
		}
		int n = recvmmsg(s->ufd, msgs, RT_GEN_SRV_RX_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		uint64_t now = rt_mono_ns();
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
			if (s->ntx + 2 > 2 * RT_GEN_SRV_RX_BATCH)
				rt_gen_srv_flush_replies(s);
		}
		queue_acks(s);
		rt_gen_srv_flush_replies(s);
		if (n < RT_GEN_SRV_RX_BATCH)
			break;
	}
}

static void log_pfc(struct rt_gen_srv *s, uint16_t quanta)
{
	rt_evlog_begin(&s->log, rt_mono_ns(), "pfc");
	rt_evlog_u64(&s->log, "priority", s->cfg->pfc_priority);
	rt_evlog_u64(&s->log, "quanta", quanta);
	rt_evlog_bool(&s->log, "sent", true);
	rt_evlog_end(&s->log);
}

uint64_t rt_gen_srv_pfc_refresh_ns(const struct rt_gen_srv *s)
{
	return rt_pause_ns(0xffff, (uint64_t)(s->cfg->line_gbps * 1e9)) / 4;
}

/* After a drain: XOFF (sent again each quarter pause) above the threshold, XON at half of it. */
int rt_gen_srv_pfc_check(struct rt_gen_srv *s, char *errbuf)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	if (getsockopt(s->ufd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0) {
		int e = errno;
		return rt_errorf(errbuf, e, "SO_MEMINFO");
	}
	uint64_t xoff =
	    s->cfg->pfc_xoff_bytes ? s->cfg->pfc_xoff_bytes : mem[SK_MEMINFO_RCVBUF] / 2;
	uint64_t backlog = mem[SK_MEMINFO_RMEM_ALLOC], now = rt_mono_ns();
	uint64_t refresh = rt_gen_srv_pfc_refresh_ns(s);
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
