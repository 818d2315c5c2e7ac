/* verbs backend: RC QPs set up with RDMA CM, posting RDMA WRITE, SEND or READ, counters from sysfs. */
#include "rt_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "capture/gen/evlog.h"
#include "capture/gen/gen.h"
#include "capture/gen/verbs_ops.h"
#include "common/sysfs.h"

static struct ibv_pd *real_alloc_pd(struct ibv_context *ctx)
{
	return ibv_alloc_pd(ctx);
}
static int real_dealloc_pd(struct ibv_pd *pd)
{
	return ibv_dealloc_pd(pd);
}
static struct ibv_cq *real_create_cq(struct ibv_context *ctx, int cqe)
{
	return ibv_create_cq(ctx, cqe, NULL, NULL, 0);
}
static int real_destroy_cq(struct ibv_cq *cq)
{
	return ibv_destroy_cq(cq);
}
static struct ibv_mr *real_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return ibv_reg_mr(pd, addr, len, access);
}
static int real_dereg_mr(struct ibv_mr *mr)
{
	return ibv_dereg_mr(mr);
}
static int real_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}
static int real_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return ibv_post_recv(qp, wr, bad);
}
static int real_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}
static const char *real_device_name(struct ibv_context *ctx)
{
	return ibv_get_device_name(ctx->device);
}

struct rt_verbs_ops rt_verbs_ops = {
	.alloc_pd = real_alloc_pd,
	.dealloc_pd = real_dealloc_pd,
	.create_cq = real_create_cq,
	.destroy_cq = real_destroy_cq,
	.reg_mr = real_reg_mr,
	.dereg_mr = real_dereg_mr,
	.post_send = real_post_send,
	.post_recv = real_post_recv,
	.poll_cq = real_poll_cq,
	.device_name = real_device_name,
};

/* Connection private data (big-endian fields). Sender -> server: */
#define PD_MAGIC "RTG1"
enum { REQ_LEN = 28, REP_LEN = 20 };
/* magic[4] op[1] pad[3] msg_size[4] qps[4] index[4] token[4] qdepth[4]
 * server -> sender: magic[4] addr[8] rkey[4] len[4] */

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}
static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int cm_err(char *errbuf, const char *what)
{
	int e = errno ? errno : EIO;
	return rt_errorf(errbuf, e, "%s", what);
}

/* Wait for the next CM event within timeout_ms; expect `want` (or any when want < 0). */
static int next_event(struct rdma_event_channel *ch, int want, int timeout_ms,
		      struct rdma_cm_event **ev, char *errbuf)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	int rc = poll(&pfd, 1, timeout_ms);
	if (rc == 0) {
		return rt_errmsg(errbuf, ETIMEDOUT, "RDMA CM: no event within %d ms", timeout_ms);
	}
	if (rc < 0 || rdma_get_cm_event(ch, ev))
		return cm_err(errbuf, "rdma_get_cm_event");
	if (want >= 0 && (int)(*ev)->event != want) {
		rc = rt_errmsg(errbuf, ECONNREFUSED, "RDMA CM: got %s (status %d), expected %s",
			       rdma_event_str((*ev)->event), (*ev)->status,
			       rdma_event_str((enum rdma_cm_event_type)want));
		rdma_ack_cm_event(*ev);
		return rc;
	}
	return 0;
}

static void addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, (socklen_t)len);
	else
		snprintf(buf, len, "?");
}

/* One hw_counters value of the id's device and port; -1 when not readable. */
static int64_t read_counter(const struct rt_gen_config *cfg, struct rdma_cm_id *id, const char *name)
{
	const char *dev = cfg->ib_dev ? cfg->ib_dev : rt_verbs_ops.device_name(id->verbs);
	if (!dev)
		return -1;
	char path[512];
	uint64_t v;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/hw_counters/%s",
		 rt_sysfs_root(cfg->sysfs_root), dev, id->port_num ? id->port_num : 1, name);
	return rt_sysfs_read_u64(path, &v) == 0 && v <= INT64_MAX ? (int64_t)v : -1;
}

struct vqp {
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t raddr;
	uint32_t rkey;
	struct rt_evflow flow;
	unsigned outstanding;
	uint64_t posted, completed, bytes;
	double tokens;
	uint64_t refill_ns;
	uint64_t iv_bytes, iv_msgs;
};

struct vsender {
	const struct rt_gen_config *cfg;
	FILE *report;
	struct rt_evlog log;
	struct rdma_event_channel *ch;
	struct ibv_pd *pd;
	struct vqp *qp;
	unsigned nqp;
	int64_t cnp0, nak0;
};

static enum ibv_wr_opcode wr_opcode(enum rt_gen_op op)
{
	return op == RT_GEN_OP_WRITE ? IBV_WR_RDMA_WRITE
	       : op == RT_GEN_OP_SEND ? IBV_WR_SEND
				      : IBV_WR_RDMA_READ;
}

/* Frame bytes of one message: payload plus per-packet Ethernet/IP/UDP/BTH/ICRC (and RETH once). */
static uint64_t msg_wire_bytes(const struct rt_gen_config *cfg)
{
	uint64_t pkts = (cfg->msg_size + cfg->mtu - 1) / cfg->mtu;
	return cfg->msg_size + pkts * (14 + 20 + 8 + 12 + 4) + 16;
}

static int connect_qp(struct vsender *s, unsigned i, uint32_t token, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	struct vqp *q = &s->qp[i];
	struct rdma_cm_event *ev;
	if (rdma_create_id(s->ch, &q->id, q, RDMA_PS_TCP))
		return cm_err(errbuf, "rdma_create_id");
	struct addrinfo_sa {
		struct sockaddr_in dst, src;
	} a = {.dst = {.sin_family = AF_INET, .sin_port = htons(cfg->control_port)},
	       .src = {.sin_family = AF_INET}};
	if (inet_pton(AF_INET, cfg->server, &a.dst.sin_addr) != 1 ||
	    (cfg->bind_addr && inet_pton(AF_INET, cfg->bind_addr, &a.src.sin_addr) != 1)) {
		return rt_errmsg(errbuf, EINVAL, "the verbs backend takes IPv4 addresses");
	}
	if (rdma_resolve_addr(q->id, cfg->bind_addr ? (struct sockaddr *)&a.src : NULL,
			      (struct sockaddr *)&a.dst, 2000))
		return cm_err(errbuf, "rdma_resolve_addr");
	int rc = next_event(s->ch, RDMA_CM_EVENT_ADDR_RESOLVED, 3000, &ev, errbuf);
	if (rc)
		return rc;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(q->id, 2000))
		return cm_err(errbuf, "rdma_resolve_route");
	if ((rc = next_event(s->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 3000, &ev, errbuf)))
		return rc;
	rdma_ack_cm_event(ev);
	if (!s->pd && !(s->pd = rt_verbs_ops.alloc_pd(q->id->verbs)))
		return cm_err(errbuf, "ibv_alloc_pd");
	q->cq = rt_verbs_ops.create_cq(q->id->verbs, (int)cfg->qdepth + 1);
	if (!q->cq)
		return cm_err(errbuf, "ibv_create_cq");
	struct ibv_qp_init_attr attr = {.send_cq = q->cq, .recv_cq = q->cq, .qp_type = IBV_QPT_RC,
					.cap = {.max_send_wr = cfg->qdepth, .max_recv_wr = 1,
						.max_send_sge = 1, .max_recv_sge = 1}};
	if (rdma_create_qp(q->id, s->pd, &attr))
		return cm_err(errbuf, "rdma_create_qp");
	q->buf = calloc(1, cfg->msg_size);
	if (!q->buf) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	q->mr = rt_verbs_ops.reg_mr(s->pd, q->buf, cfg->msg_size,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ);
	if (!q->mr)
		return cm_err(errbuf, "ibv_reg_mr");
	uint8_t req[REQ_LEN] = {0};
	memcpy(req, PD_MAGIC, 4);
	req[4] = (uint8_t)cfg->op;
	be32(req + 8, cfg->msg_size);
	be32(req + 12, s->nqp);
	be32(req + 16, i);
	be32(req + 20, token);
	be32(req + 24, cfg->qdepth);
	struct rdma_conn_param param = {.private_data = req, .private_data_len = REQ_LEN,
					.responder_resources = 16, .initiator_depth = 16,
					.retry_count = 7, .rnr_retry_count = 7};
	if (rdma_connect(q->id, &param))
		return cm_err(errbuf, "rdma_connect");
	if ((rc = next_event(s->ch, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev, errbuf)))
		return rc;
	const uint8_t *rep = ev->param.conn.private_data;
	if (!rep || ev->param.conn.private_data_len < REP_LEN || memcmp(rep, PD_MAGIC, 4)) {
		rdma_ack_cm_event(ev);
		return rt_errmsg(errbuf, EPROTO, "the server's reply carries no buffer description");
	}
	q->raddr = (uint64_t)rd32(rep + 4) << 32 | rd32(rep + 8);
	q->rkey = rd32(rep + 12);
	uint32_t rlen = rd32(rep + 16);
	q->flow.dest_qp = ev->param.conn.qp_num;
	rdma_ack_cm_event(ev);
	if (rlen < cfg->msg_size) {
		return rt_errmsg(errbuf, EPROTO, "the server's buffer (%u bytes) is smaller than a message", rlen);
	}
	addr_str(rdma_get_local_addr(q->id), q->flow.src, sizeof(q->flow.src));
	addr_str(rdma_get_peer_addr(q->id), q->flow.dst, sizeof(q->flow.dst));
	/* a read moves data from the server: the wire's data flow runs the other way */
	if (cfg->op == RT_GEN_OP_READ) {
		char tmp[sizeof(q->flow.src)];
		memcpy(tmp, q->flow.src, sizeof(tmp));
		memcpy(q->flow.src, q->flow.dst, sizeof(tmp));
		memcpy(q->flow.dst, tmp, sizeof(tmp));
		q->flow.dest_qp = q->id->qp->qp_num;
	}
	return 0;
}

static int post_one(struct vsender *s, struct vqp *q, unsigned idx)
{
	struct ibv_sge sge = {.addr = (uintptr_t)q->buf, .length = s->cfg->msg_size,
			      .lkey = q->mr->lkey};
	struct ibv_send_wr wr = {.wr_id = idx, .sg_list = &sge, .num_sge = 1,
				 .opcode = wr_opcode(s->cfg->op), .send_flags = IBV_SEND_SIGNALED};
	if (s->cfg->op != RT_GEN_OP_SEND) {
		wr.wr.rdma.remote_addr = q->raddr;
		wr.wr.rdma.rkey = q->rkey;
	}
	struct ibv_send_wr *bad = NULL;
	return rt_verbs_ops.post_send(q->id->qp, &wr, &bad);
}

static void report(struct vsender *s, double t, double dt, uint64_t now)
{
	uint64_t by = 0, msgs = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct vqp *q = &s->qp[i];
		uint64_t db = q->bytes - q->iv_bytes, dm = q->completed - q->iv_msgs;
		rt_evlog_begin_flow(&s->log, now, "interval", &s->qp[i].flow);
		rt_evlog_u64(&s->log, "packets", dm * ((s->cfg->msg_size + s->cfg->mtu - 1) / s->cfg->mtu));
		rt_evlog_u64(&s->log, "bytes", db);
		rt_evlog_double(&s->log, "gbps", (double)db * 8 / dt / 1e9, 6);
		rt_evlog_end(&s->log);
		by += db;
		msgs += dm;
		q->iv_bytes = q->bytes;
		q->iv_msgs = q->completed;
	}
	int64_t cnp = read_counter(s->cfg, s->qp[0].id, "rp_cnp_handled");
	int64_t nak = read_counter(s->cfg, s->qp[0].id, "packet_seq_err");
	char cbuf[24] = "-", nbuf[24] = "-";
	if (cnp >= 0 && s->cnp0 >= 0)
		snprintf(cbuf, sizeof(cbuf), "%" PRId64, cnp - s->cnp0);
	if (nak >= 0 && s->nak0 >= 0)
		snprintf(nbuf, sizeof(nbuf), "%" PRId64, nak - s->nak0);
	fprintf(s->report, "%8.3f %10.3f %12.0f %8s %8s\n", t, (double)by * 8 / dt / 1e9,
		(double)msgs / dt, cbuf, nbuf);
	fflush(s->report);
	rt_evlog_flush(&s->log);
}

static int vsend_run(struct vsender *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t t0 = rt_gen_now_ns(), last_iv = t0;
	uint64_t stop_at = t0 + (uint64_t)(cfg->duration_s * 1e9);
	uint64_t iv_ns = (uint64_t)(cfg->interval_s * 1e9), next_iv = t0 + iv_ns;
	uint64_t cap = cfg->bytes ? (cfg->bytes + cfg->msg_size - 1) / cfg->msg_size : UINT64_MAX;
	double mbps = cfg->rate_gbps > 0 ? cfg->rate_gbps * 1000.0 : 0;
	uint64_t wire = msg_wire_bytes(cfg);
	s->cnp0 = read_counter(cfg, s->qp[0].id, "rp_cnp_handled");
	s->nak0 = read_counter(cfg, s->qp[0].id, "packet_seq_err");
	rt_evlog_begin(&s->log, t0, "start");
	rt_evlog_str(&s->log, "role", "send");
	rt_evlog_str(&s->log, "backend", "verbs");
	rt_evlog_str(&s->log, "op", rt_gen_op_name(cfg->op));
	rt_evlog_u64(&s->log, "msg_size", cfg->msg_size);
	rt_evlog_u64(&s->log, "qps", s->nqp);
	rt_evlog_end(&s->log);
	for (unsigned i = 0; i < s->nqp; i++) {
		struct vqp *q = &s->qp[i];
		q->refill_ns = t0;
		rt_evlog_begin_flow(&s->log, t0, "qp", &q->flow);
		rt_evlog_u64(&s->log, "local_qp", q->id->qp->qp_num);
		rt_evlog_u64(&s->log, "udp_sport", 0);
		rt_evlog_end(&s->log);
		if (mbps > 0) {
			rt_evlog_begin_flow(&s->log, t0, "rate", &q->flow);
			rt_evlog_double(&s->log, "rate_mbps", mbps, 3);
			rt_evlog_str(&s->log, "reason", "start");
			rt_evlog_end(&s->log);
		}
	}
	fprintf(s->report, "%8s %10s %12s %8s %8s\n", "sec", "Gb/s", "msg/s", "CNPs", "NAKs");
	bool stopping = false;
	for (;;) {
		uint64_t now = rt_gen_now_ns();
		if (!stopping && (now >= stop_at || (cfg->stop && *cfg->stop)))
			stopping = true;
		bool busy = false;
		for (unsigned i = 0; i < s->nqp; i++) {
			struct vqp *q = &s->qp[i];
			struct ibv_wc wc[16];
			int n = rt_verbs_ops.poll_cq(q->cq, 16, wc);
			if (n < 0) {
				return rt_errmsg(errbuf, EIO, "ibv_poll_cq failed");
			}
			for (int k = 0; k < n; k++) {
				if (wc[k].status != IBV_WC_SUCCESS) {
					return rt_errmsg(errbuf, EIO, "work completion error: %s", ibv_wc_status_str(wc[k].status));
				}
				q->outstanding--;
				q->completed++;
				q->bytes += wire;
			}
			if (mbps > 0) {
				q->tokens += (double)(now - q->refill_ns) * mbps / 8000.0;
				if (q->tokens > 2.0 * (double)wire)
					q->tokens = 2.0 * (double)wire;
			}
			q->refill_ns = now;
			while (!stopping && q->outstanding < cfg->qdepth && q->posted < cap &&
			       (mbps <= 0 || q->tokens >= 0)) {
				int rc = post_one(s, q, i);
				if (rc) {
					return rt_errorf(errbuf, rc, "ibv_post_send");
				}
				q->outstanding++;
				q->posted++;
				if (mbps > 0)
					q->tokens -= (double)wire;
			}
			if (q->outstanding)
				busy = true;
			if (q->posted < cap)
				busy = busy || !stopping;
		}
		if (now >= next_iv) {
			report(s, (double)(now - t0) / 1e9, (double)(now - last_iv) / 1e9, now);
			last_iv = now;
			next_iv += iv_ns;
		}
		if (!busy)
			break;
	}
	uint64_t now = rt_gen_now_ns();
	if (now - last_iv > iv_ns / 10)
		report(s, (double)(now - t0) / 1e9, (double)(now - last_iv) / 1e9, now);
	int64_t cnp = read_counter(cfg, s->qp[0].id, "rp_cnp_handled");
	int64_t nak = read_counter(cfg, s->qp[0].id, "packet_seq_err");
	uint64_t msgs = 0, by = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct vqp *q = &s->qp[i];
		rt_evlog_begin_flow(&s->log, now, "end", &q->flow);
		rt_evlog_u64(&s->log, "packets", q->completed * ((cfg->msg_size + cfg->mtu - 1) / cfg->mtu));
		rt_evlog_u64(&s->log, "bytes", q->bytes);
		rt_evlog_u64(&s->log, "retransmitted", 0);
		/* the NIC counts CNPs and NAKs per device, not per QP */
		rt_evlog_u64(&s->log, "cnp_handled", cnp >= 0 && s->cnp0 >= 0 ? (uint64_t)(cnp - s->cnp0) : 0);
		rt_evlog_u64(&s->log, "naks", nak >= 0 && s->nak0 >= 0 ? (uint64_t)(nak - s->nak0) : 0);
		rt_evlog_str(&s->log, "counter_scope", "device");
		rt_evlog_u64(&s->log, "messages", q->completed);
		rt_evlog_end(&s->log);
		msgs += q->completed;
		by += q->bytes;
	}
	double secs = (double)(now - t0) / 1e9;
	fprintf(s->report,
		"summary role=send backend=verbs op=%s msg_size=%u qps=%u seconds=%.3f messages=%llu "
		"bytes=%llu gbps=%.3f msg_per_s=%.0f cnp=%lld nak=%lld\n",
		rt_gen_op_name(cfg->op), cfg->msg_size, s->nqp, secs, (unsigned long long)msgs,
		(unsigned long long)by, (double)by * 8 / secs / 1e9, (double)msgs / secs,
		cnp >= 0 && s->cnp0 >= 0 ? (long long)(cnp - s->cnp0) : -1LL,
		nak >= 0 && s->nak0 >= 0 ? (long long)(nak - s->nak0) : -1LL);
	return 0;
}

static void vqp_free(struct vqp *q)
{
	if (q->id && q->id->qp)
		rdma_destroy_qp(q->id);
	if (q->mr)
		rt_verbs_ops.dereg_mr(q->mr);
	if (q->cq)
		rt_verbs_ops.destroy_cq(q->cq);
	if (q->id)
		rdma_destroy_id(q->id);
	free(q->buf);
}

int rt_gen_verbs_send(const struct rt_gen_config *cfg, FILE *rep, char *errbuf)
{
	if (!cfg->server || cfg->qps == 0 || cfg->msg_size == 0 || cfg->qdepth == 0) {
		return rt_errmsg(errbuf, EINVAL, "bad sender configuration");
	}
	struct vsender s = {.cfg = cfg, .report = rep, .nqp = cfg->qps};
	s.qp = calloc(s.nqp, sizeof(*s.qp));
	if (!s.qp) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	int rc = rt_evlog_open(&s.log, cfg->log_path, errbuf);
	if (!rc && !(s.ch = rdma_create_event_channel()))
		rc = cm_err(errbuf, "rdma_create_event_channel (is there an RDMA device?)");
	uint32_t token = (uint32_t)getpid() ^ (uint32_t)rt_gen_now_ns();
	for (unsigned i = 0; !rc && i < s.nqp; i++)
		rc = connect_qp(&s, i, token, errbuf);
	if (!rc)
		rc = vsend_run(&s, errbuf);
	for (unsigned i = 0; i < s.nqp; i++) {
		if (s.qp[i].id && s.qp[i].id->qp)
			rdma_disconnect(s.qp[i].id);
		vqp_free(&s.qp[i]);
	}
	if (s.pd)
		rt_verbs_ops.dealloc_pd(s.pd);
	if (s.ch)
		rdma_destroy_event_channel(s.ch);
	char cerr[RT_ERRBUF_SIZE];
	int lrc = rt_evlog_close(&s.log, cerr);
	if (!rc && lrc) {
		rc = lrc;
		memcpy(errbuf, cerr, RT_ERRBUF_SIZE);
	}
	free(s.qp);
	return rc;
}

/* ---- server ---------------------------------------------------------------- */

struct vconn {
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t msg_size, qdepth, token, qps;
	enum rt_gen_op op;
	struct rt_evflow flow;
	uint64_t msgs, bytes;
};

struct vclient {
	uint32_t token, qps, gone;
};

struct vserver {
	const struct rt_gen_config *cfg;
	FILE *report;
	struct rt_evlog log;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct ibv_pd *pd;
	struct vconn *conn[RT_GEN_MAX_QPS];
	unsigned nconn;
	struct vclient client[64];
	unsigned nclient, finished;
	bool started;
};

static int post_recvs(struct vconn *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct ibv_sge sge = {.addr = (uintptr_t)c->buf, .length = c->msg_size,
				      .lkey = c->mr->lkey};
		struct ibv_recv_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *bad = NULL;
		int rc = rt_verbs_ops.post_recv(c->id->qp, &wr, &bad);
		if (rc)
			return rc;
	}
	return 0;
}

static void vconn_free(struct vconn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		rt_verbs_ops.dereg_mr(c->mr);
	if (c->cq)
		rt_verbs_ops.destroy_cq(c->cq);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->buf);
	free(c);
}

/* Set up the QP of one connection request and accept it; on failure the request is rejected. */
static int on_connect_request(struct vserver *s, struct rdma_cm_event *ev, char *errbuf)
{
	const uint8_t *req = ev->param.conn.private_data;
	struct rdma_cm_id *id = ev->id;
	if (!req || ev->param.conn.private_data_len < REQ_LEN || memcmp(req, PD_MAGIC, 4) ||
	    req[4] > RT_GEN_OP_READ || rd32(req + 8) == 0 || rd32(req + 8) > RT_GEN_MAX_MSG ||
	    rd32(req + 24) == 0 || rd32(req + 24) > RT_GEN_MAX_QDEPTH ||
	    s->nconn >= RT_GEN_MAX_QPS) {
		rdma_reject(id, NULL, 0);
		return 0;
	}
	uint32_t token = rd32(req + 20), qps = rd32(req + 12);
	unsigned k;
	for (k = 0; k < s->nclient && s->client[k].token != token; k++)
		;
	if (k == s->nclient) {
		if (s->nclient >= 64 || s->nclient >= s->cfg->clients) {
			rdma_reject(id, NULL, 0);
			return 0;
		}
		s->client[s->nclient++] = (struct vclient){.token = token, .qps = qps};
	}
	struct vconn *c = calloc(1, sizeof(*c));
	if (!c) {
		rdma_reject(id, NULL, 0);
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	c->id = id;
	c->op = (enum rt_gen_op)req[4];
	c->msg_size = rd32(req + 8);
	c->qdepth = rd32(req + 24);
	c->token = token;
	c->qps = qps;
	int rc = 0;
	const char *what = NULL;
	if (!s->pd && !(s->pd = rt_verbs_ops.alloc_pd(id->verbs)))
		what = "ibv_alloc_pd";
	else if (!(c->cq = rt_verbs_ops.create_cq(id->verbs, 2 * (int)c->qdepth + 1)))
		what = "ibv_create_cq";
	if (!what) {
		struct ibv_qp_init_attr attr = {
			.send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_RC,
			.cap = {.max_send_wr = 1, .max_recv_wr = 2 * c->qdepth, .max_send_sge = 1,
				.max_recv_sge = 1}};
		if (rdma_create_qp(id, s->pd, &attr))
			what = "rdma_create_qp";
	}
	if (!what && !(c->buf = calloc(1, c->msg_size)))
		what = "buffer";
	if (!what && !(c->mr = rt_verbs_ops.reg_mr(s->pd, c->buf, c->msg_size,
						    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
							    IBV_ACCESS_REMOTE_READ)))
		what = "ibv_reg_mr";
	if (!what && c->op == RT_GEN_OP_SEND && (rc = post_recvs(c, 2 * c->qdepth)))
		what = "ibv_post_recv";
	if (what) {
		int e = rc ? rc : errno ? errno : ENOMEM;
		rt_errorf(errbuf, e, "%s", what);
		/* the QP goes with its id: destroy it first (the CQ cannot go while a QP uses it) */
		if (id->qp)
			rdma_destroy_qp(id);
		rdma_reject(id, NULL, 0);
		c->id = NULL; /* the CM id of a rejected request is released by the library */
		vconn_free(c);
		return -e;
	}
	uint8_t rep[REP_LEN];
	memcpy(rep, PD_MAGIC, 4);
	uint64_t addr = (uintptr_t)c->buf;
	be32(rep + 4, (uint32_t)(addr >> 32));
	be32(rep + 8, (uint32_t)addr);
	be32(rep + 12, c->mr->rkey);
	be32(rep + 16, c->msg_size);
	struct rdma_conn_param param = {.private_data = rep, .private_data_len = REP_LEN,
					.responder_resources = 16, .initiator_depth = 16,
					.rnr_retry_count = 7};
	char local[48], peer[48];
	addr_str(rdma_get_local_addr(id), local, sizeof(local));
	addr_str(rdma_get_peer_addr(id), peer, sizeof(peer));
	bool read = c->op == RT_GEN_OP_READ;
	snprintf(c->flow.src, sizeof(c->flow.src), "%s", read ? local : peer);
	snprintf(c->flow.dst, sizeof(c->flow.dst), "%s", read ? peer : local);
	c->flow.dest_qp = read ? ev->param.conn.qp_num : id->qp->qp_num;
	id->context = c;
	s->conn[s->nconn++] = c;
	if (rdma_accept(id, &param))
		return cm_err(errbuf, "rdma_accept");
	uint64_t now = rt_gen_now_ns();
	if (!s->started) {
		s->started = true;
		rt_evlog_begin(&s->log, now, "start");
		rt_evlog_str(&s->log, "role", "serve");
		rt_evlog_str(&s->log, "backend", "verbs");
		rt_evlog_str(&s->log, "op", rt_gen_op_name(c->op));
		rt_evlog_u64(&s->log, "msg_size", c->msg_size);
		rt_evlog_u64(&s->log, "qps", qps);
		rt_evlog_end(&s->log);
	}
	rt_evlog_begin_flow(&s->log, now, "qp", &c->flow);
	rt_evlog_u64(&s->log, "local_qp", id->qp->qp_num);
	rt_evlog_u64(&s->log, "udp_sport", 0);
	rt_evlog_u64(&s->log, "peer_qp", ev->param.conn.qp_num);
	rt_evlog_end(&s->log);
	fprintf(s->report, "client %s: %s, QP %u of %u, %u-byte messages\n", peer,
		rt_gen_op_name(c->op), rd32(req + 16) + 1, qps, c->msg_size);
	return 0;
}

static void on_disconnect(struct vserver *s, struct rdma_cm_id *id)
{
	unsigned i;
	for (i = 0; i < s->nconn && s->conn[i]->id != id; i++)
		;
	if (i == s->nconn)
		return;
	struct vconn *c = s->conn[i];
	rt_evlog_begin_flow(&s->log, rt_gen_now_ns(), "end", &c->flow);
	rt_evlog_u64(&s->log, "packets", c->msgs * ((c->msg_size + s->cfg->mtu - 1) / s->cfg->mtu));
	rt_evlog_u64(&s->log, "bytes", c->bytes);
	rt_evlog_u64(&s->log, "retransmitted", 0);
	rt_evlog_u64(&s->log, "cnp_handled", 0);
	rt_evlog_u64(&s->log, "naks", 0);
	rt_evlog_u64(&s->log, "messages", c->msgs);
	rt_evlog_end(&s->log);
	for (unsigned k = 0; k < s->nclient; k++)
		if (s->client[k].token == c->token && ++s->client[k].gone == s->client[k].qps)
			s->finished++;
	s->conn[i] = s->conn[--s->nconn];
	vconn_free(c);
}

static int vserve_loop(struct vserver *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t t0 = rt_gen_now_ns();
	uint64_t give_up = cfg->duration_s > 0 ? t0 + (uint64_t)(cfg->duration_s * 1e9) : UINT64_MAX;
	uint64_t msgs = 0, bytes = 0;
	while (s->finished < cfg->clients) {
		if (cfg->stop && *cfg->stop)
			break;
		if (rt_gen_now_ns() >= give_up) {
			return rt_errmsg(errbuf, ETIMEDOUT, "%u of %u client(s) done after %.1f s", s->finished, cfg->clients, cfg->duration_s);
		}
		struct pollfd pfd = {.fd = s->ch->fd, .events = POLLIN};
		if (poll(&pfd, 1, s->nconn ? 0 : 10) > 0) {
			struct rdma_cm_event *ev;
			if (rdma_get_cm_event(s->ch, &ev))
				return cm_err(errbuf, "rdma_get_cm_event");
			int rc = 0;
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
				rc = on_connect_request(s, ev, errbuf);
			else if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
				on_disconnect(s, ev->id);
			rdma_ack_cm_event(ev);
			if (rc)
				return rc;
		}
		for (unsigned i = 0; i < s->nconn; i++) {
			struct vconn *c = s->conn[i];
			struct ibv_wc wc[16];
			int n = rt_verbs_ops.poll_cq(c->cq, 16, wc);
			for (int k = 0; k < n; k++) {
				if (wc[k].status != IBV_WC_SUCCESS || wc[k].opcode != IBV_WC_RECV)
					continue;
				c->msgs++;
				c->bytes += wc[k].byte_len;
				msgs++;
				bytes += wc[k].byte_len;
				if (post_recvs(c, 1)) {
					return rt_errmsg(errbuf, EIO, "ibv_post_recv failed");
				}
			}
		}
	}
	double secs = (double)(rt_gen_now_ns() - t0) / 1e9;
	fprintf(s->report,
		"summary role=serve backend=verbs clients=%u seconds=%.3f messages_received=%llu "
		"bytes_received=%llu\n",
		s->finished, secs, (unsigned long long)msgs, (unsigned long long)bytes);
	return 0;
}

int rt_gen_verbs_serve(const struct rt_gen_config *cfg, FILE *rep, char *errbuf)
{
	struct vserver *s = calloc(1, sizeof(*s));
	if (!s) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	s->cfg = cfg;
	s->report = rep;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(cfg->control_port)};
	int rc = rt_evlog_open(&s->log, cfg->log_path, errbuf);
	if (!rc && cfg->bind_addr && inet_pton(AF_INET, cfg->bind_addr, &sa.sin_addr) != 1) {
		rc = rt_errmsg(errbuf, EINVAL, "the verbs backend takes IPv4 addresses");
	}
	if (!rc && !(s->ch = rdma_create_event_channel()))
		rc = cm_err(errbuf, "rdma_create_event_channel (is there an RDMA device?)");
	if (!rc && rdma_create_id(s->ch, &s->listen, s, RDMA_PS_TCP))
		rc = cm_err(errbuf, "rdma_create_id");
	if (!rc && rdma_bind_addr(s->listen, (struct sockaddr *)&sa))
		rc = cm_err(errbuf, "rdma_bind_addr");
	if (!rc && rdma_listen(s->listen, 16))
		rc = cm_err(errbuf, "rdma_listen");
	if (!rc) {
		fprintf(rep, "listening with RDMA CM on port %u for %u client(s)\n", cfg->control_port,
			cfg->clients);
		fflush(rep);
		rc = vserve_loop(s, errbuf);
	}
	while (s->nconn)
		vconn_free(s->conn[--s->nconn]);
	if (s->pd)
		rt_verbs_ops.dealloc_pd(s->pd);
	if (s->listen)
		rdma_destroy_id(s->listen);
	if (s->ch)
		rdma_destroy_event_channel(s->ch);
	char cerr[RT_ERRBUF_SIZE];
	int lrc = rt_evlog_close(&s->log, cerr);
	if (!rc && lrc) {
		rc = lrc;
		memcpy(errbuf, cerr, RT_ERRBUF_SIZE);
	}
	free(s);
	return rc;
}
