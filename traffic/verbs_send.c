/* verbs backend, sender: RC QPs set up with RDMA CM, paced RDMA WRITE, SEND or READ, NIC counters.
 */
#include "rt_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "common/clock.h"
#include "common/verbs_ops.h"
#include "dissect/build.h"
#include "dissect/opcodes.h"
#include "traffic/evlog.h"
#include "traffic/gen.h"
#include "traffic/internal.h"
#include "traffic/perf.h"

struct vqp {
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t raddr;
	uint32_t rkey;
	struct rt_evflow flow;
	unsigned outstanding;
	uint64_t posted, completed, bytes; /* posted and completed: this run; completed_before: */
	uint64_t completed_before;         /* the runs before it (a sweep runs one per size) */
	uint64_t post_ns;                  /* latency: when the message in flight was posted */
	uint64_t packets;                  /* packets of the completed messages, all runs */
	double tokens;
	uint64_t refill_ns;
	uint64_t iv_bytes, iv_msgs;
};

struct vsender {
	struct rt_gen_sender snd; /* the run loop's view: configuration, report, latency samples */
	struct rt_evlog log;
	struct rdma_event_channel *ch;
	struct ibv_pd *pd;
	struct vqp *qp;
	unsigned nqp;
	double mbps;   /* the rate cap per QP (Mb/s), 0 for none */
	uint32_t size; /* bytes per message of this run (at most cfg->msg_size, the buffers') */
	uint64_t cap;  /* messages per QP of this run */
	uint64_t wire; /* frame bytes of one message of this run */
	int64_t cnp0, nak0;
};

static enum ibv_wr_opcode wr_opcode(enum rt_gen_op op)
{
	return op == RT_GEN_OP_WRITE  ? IBV_WR_RDMA_WRITE
	       : op == RT_GEN_OP_SEND ? IBV_WR_SEND
	                              : IBV_WR_RDMA_READ;
}

/* Packets of one `size`-byte message at the configured MTU. */
static uint64_t msg_packets(const struct rt_gen_config *cfg, uint32_t size)
{
	return (size + cfg->mtu - 1) / cfg->mtu;
}

/* Frame bytes of one message: payload plus per-packet Ethernet/IP/UDP/BTH/ICRC (and RETH once). */
static uint64_t msg_wire_bytes(const struct rt_gen_config *cfg, uint32_t size)
{
	return size + msg_packets(cfg, size) * rt_gen_wire_bytes(RT_BTH_LEN + RT_ICRC_LEN) +
	       RT_RETH_LEN;
}

static int connect_qp(struct vsender *s, unsigned i, uint32_t token, char *errbuf)
{
	const struct rt_gen_config *cfg = s->snd.cfg;
	struct vqp *q = &s->qp[i];
	struct rdma_cm_event *ev;
	if (rdma_create_id(s->ch, &q->id, q, RDMA_PS_TCP))
		return rt_gen_cm_err(errbuf, "rdma_create_id");
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
		return rt_gen_cm_err(errbuf, "rdma_resolve_addr");
	int rc = rt_gen_cm_event(s->ch, RDMA_CM_EVENT_ADDR_RESOLVED, 3000, &ev, errbuf);
	if (rc)
		return rc;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(q->id, 2000))
		return rt_gen_cm_err(errbuf, "rdma_resolve_route");
	if ((rc = rt_gen_cm_event(s->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 3000, &ev, errbuf)))
		return rc;
	rdma_ack_cm_event(ev);
	if (!s->pd && !(s->pd = ibv_alloc_pd(q->id->verbs)))
		return rt_gen_cm_err(errbuf, "ibv_alloc_pd");
	q->cq = ibv_create_cq(q->id->verbs, (int)cfg->qdepth + 1, NULL, NULL, 0);
	if (!q->cq)
		return rt_gen_cm_err(errbuf, "ibv_create_cq");
	struct ibv_qp_init_attr attr = {.send_cq = q->cq,
	                                .recv_cq = q->cq,
	                                .qp_type = IBV_QPT_RC,
	                                .cap = {.max_send_wr = cfg->qdepth,
	                                        .max_recv_wr = 1,
	                                        .max_send_sge = 1,
	                                        .max_recv_sge = 1}};
	if (rdma_create_qp(q->id, s->pd, &attr))
		return rt_gen_cm_err(errbuf, "rdma_create_qp");
	q->buf = calloc(1, cfg->msg_size);
	if (!q->buf) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	q->mr =
	    ibv_reg_mr(s->pd, q->buf, cfg->msg_size,
	               IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!q->mr)
		return rt_gen_cm_err(errbuf, "ibv_reg_mr");
	uint8_t req[RT_GEN_PD_REQ_LEN] = {0};
	memcpy(req, RT_GEN_PD_MAGIC, 4);
	req[4] = (uint8_t)cfg->op;
	rt_put_be32(req + 8, cfg->msg_size);
	rt_put_be32(req + 12, s->nqp);
	rt_put_be32(req + 16, i);
	rt_put_be32(req + 20, token);
	rt_put_be32(req + 24, cfg->qdepth);
	struct rdma_conn_param param = {.private_data = req,
	                                .private_data_len = RT_GEN_PD_REQ_LEN,
	                                .responder_resources = 16,
	                                .initiator_depth = 16,
	                                .retry_count = 7,
	                                .rnr_retry_count = 7};
	if (rdma_connect(q->id, &param))
		return rt_gen_cm_err(errbuf, "rdma_connect");
	if ((rc = rt_gen_cm_event(s->ch, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev, errbuf)))
		return rc;
	const uint8_t *rep = ev->param.conn.private_data;
	if (!rep || ev->param.conn.private_data_len < RT_GEN_PD_REP_LEN ||
	    memcmp(rep, RT_GEN_PD_MAGIC, 4)) {
		rdma_ack_cm_event(ev);
		return rt_errmsg(errbuf, EPROTO,
		                 "the server's reply carries no buffer description");
	}
	q->raddr = (uint64_t)rt_gen_pd_get32(rep + 4) << 32 | rt_gen_pd_get32(rep + 8);
	q->rkey = rt_gen_pd_get32(rep + 12);
	uint32_t rlen = rt_gen_pd_get32(rep + 16);
	q->flow.dest_qp = ev->param.conn.qp_num;
	rdma_ack_cm_event(ev);
	if (rlen < cfg->msg_size) {
		return rt_errmsg(errbuf, EPROTO,
		                 "the server's buffer (%u bytes) is smaller than a message", rlen);
	}
	rt_gen_addr_str(rdma_get_local_addr(q->id), q->flow.src, sizeof(q->flow.src));
	rt_gen_addr_str(rdma_get_peer_addr(q->id), q->flow.dst, sizeof(q->flow.dst));
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
	struct ibv_sge sge = {.addr = (uintptr_t)q->buf, .length = s->size, .lkey = q->mr->lkey};
	struct ibv_send_wr wr = {.wr_id = idx,
	                         .sg_list = &sge,
	                         .num_sge = 1,
	                         .opcode = wr_opcode(s->snd.cfg->op),
	                         .send_flags = IBV_SEND_SIGNALED};
	if (s->snd.cfg->op != RT_GEN_OP_SEND) {
		wr.wr.rdma.remote_addr = q->raddr;
		wr.wr.rdma.rkey = q->rkey;
	}
	struct ibv_send_wr *bad = NULL;
	return rt_verbs_ops.post_send(q->id->qp, &wr, &bad);
}

/* One interval line and each QP's "interval" event. */
static void report(void *backend, double t, double dt, uint64_t now)
{
	struct vsender *s = backend;
	uint64_t by = 0, msgs = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct vqp *q = &s->qp[i];
		uint64_t db = q->bytes - q->iv_bytes, dm = q->completed - q->iv_msgs;
		rt_evlog_begin_flow(&s->log, now, "interval", &s->qp[i].flow);
		rt_evlog_u64(&s->log, "packets", dm * msg_packets(s->snd.cfg, s->size));
		rt_evlog_u64(&s->log, "bytes", db);
		rt_evlog_double(&s->log, "gbps", (double)db * 8 / dt / 1e9, 6);
		rt_evlog_end(&s->log);
		by += db;
		msgs += dm;
		q->iv_bytes = q->bytes;
		q->iv_msgs = q->completed;
	}
	int64_t cnp = rt_gen_hw_counter(s->snd.cfg, s->qp[0].id, "rp_cnp_handled");
	int64_t nak = rt_gen_hw_counter(s->snd.cfg, s->qp[0].id, "packet_seq_err");
	char cbuf[24] = "-", nbuf[24] = "-";
	if (cnp >= 0 && s->cnp0 >= 0)
		snprintf(cbuf, sizeof(cbuf), "%" PRId64, cnp - s->cnp0);
	if (nak >= 0 && s->nak0 >= 0)
		snprintf(nbuf, sizeof(nbuf), "%" PRId64, nak - s->nak0);
	fprintf(s->snd.report, "%8.3f %10.3f %12.0f %8s %8s\n", t, (double)by * 8 / dt / 1e9,
	        (double)msgs / dt, cbuf, nbuf);
	fflush(s->snd.report);
	rt_evlog_flush(&s->log);
}

/* Before the runs: the NIC counters they are counted from, the "start" and "qp" events. */
static void vstart(void *backend, uint64_t now)
{
	struct vsender *s = backend;
	const struct rt_gen_config *cfg = s->snd.cfg;
	s->cnp0 = rt_gen_hw_counter(cfg, s->qp[0].id, "rp_cnp_handled");
	s->nak0 = rt_gen_hw_counter(cfg, s->qp[0].id, "packet_seq_err");
	rt_gen_log_start(&s->log, now, cfg, "verbs", s->nqp);
	for (unsigned i = 0; i < s->nqp; i++) {
		struct vqp *q = &s->qp[i];
		rt_evlog_begin_flow(&s->log, now, "qp", &q->flow);
		rt_evlog_u64(&s->log, "local_qp", q->id->qp->qp_num);
		rt_evlog_u64(&s->log, "udp_sport", 0);
		rt_evlog_end(&s->log);
		if (s->mbps > 0) {
			rt_evlog_begin_flow(&s->log, now, "rate", &q->flow);
			rt_evlog_double(&s->log, "rate_mbps", s->mbps, 3);
			rt_evlog_str(&s->log, "reason", "start");
			rt_evlog_end(&s->log);
		}
	}
}

/* A run posts cfg->iters messages per QP (or cfg->bytes of them), from empty token buckets. */
static void vrun_begin(void *backend, uint32_t size, bool intervals, uint64_t now)
{
	struct vsender *s = backend;
	const struct rt_gen_config *cfg = s->snd.cfg;
	s->size = size;
	s->cap = cfg->bytes ? (cfg->bytes + size - 1) / size : UINT64_MAX;
	if (cfg->iters && cfg->iters < s->cap)
		s->cap = cfg->iters;
	s->wire = msg_wire_bytes(cfg, size);
	for (unsigned i = 0; i < s->nqp; i++) {
		struct vqp *q = &s->qp[i];
		q->refill_ns = now;
		q->tokens = 0;
		q->posted = q->completed = 0;
	}
	if (intervals)
		fprintf(s->snd.report, "%8s %10s %12s %8s %8s\n", "sec", "Gb/s", "msg/s", "CNPs",
		        "NAKs");
}

/* The NIC retries on its own and completes every posted message, or fails it: no deadline. */
static uint64_t vstop(void *backend, uint64_t now)
{
	(void)backend;
	(void)now;
	return UINT64_MAX;
}

static uint64_t vrun_payload(const void *backend)
{
	const struct vsender *s = backend;
	uint64_t msgs = 0;
	for (unsigned i = 0; i < s->nqp; i++)
		msgs += s->qp[i].completed;
	return msgs * s->size;
}

/* Each QP: its completions, then posts while the queue, the run's count and the rate allow. */
static int vstep(void *backend, uint64_t now, bool stopping, struct rt_perf_run *res, bool *done,
                 char *errbuf)
{
	struct vsender *s = backend;
	const struct rt_gen_config *cfg = s->snd.cfg;
	bool busy = false;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct vqp *q = &s->qp[i];
		struct ibv_wc wc[16];
		int n = rt_verbs_ops.poll_cq(q->cq, 16, wc);
		if (n < 0) {
			return rt_errmsg(errbuf, EIO, "ibv_poll_cq failed");
		}
		uint64_t done_ns = n > 0 ? rt_mono_ns() : 0;
		for (int k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				return rt_errmsg(errbuf, EIO, "work completion error: %s",
				                 ibv_wc_status_str(wc[k].status));
			}
			q->outstanding--;
			q->completed++;
			q->bytes += s->wire;
			q->packets += msg_packets(cfg, s->size);
			res->t_last = done_ns;
			/* latency: one message at a time, posted at post_ns */
			if (cfg->latency && s->snd.nlat < RT_PERF_MAX_LAT)
				s->snd.lat[s->snd.nlat++] = done_ns - q->post_ns;
		}
		if (s->mbps > 0) {
			q->tokens += (double)(now - q->refill_ns) * s->mbps / 8000.0;
			if (q->tokens > 2.0 * (double)s->wire)
				q->tokens = 2.0 * (double)s->wire;
		}
		q->refill_ns = now;
		while (!stopping && q->outstanding < cfg->qdepth && q->posted < s->cap &&
		       (s->mbps <= 0 || q->tokens >= 0)) {
			q->post_ns = rt_mono_ns();
			int rc = post_one(s, q, i);
			if (rc) {
				return rt_errorf(errbuf, rc, "ibv_post_send");
			}
			q->outstanding++;
			q->posted++;
			if (s->mbps > 0)
				q->tokens -= (double)s->wire;
		}
		if (q->outstanding)
			busy = true;
		if (q->posted < s->cap)
			busy = busy || !stopping;
	}
	*done = !busy;
	return 0;
}

/* A last line when more than a tenth of an interval went by since the one before. */
static bool vinterval_left(const void *backend, uint64_t now, uint64_t last_iv, uint64_t iv_ns)
{
	(void)backend;
	return now - last_iv > iv_ns / 10;
}

static uint64_t vrun_end(void *backend)
{
	struct vsender *s = backend;
	uint64_t msgs = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		msgs += s->qp[i].completed;
		s->qp[i].completed_before += s->qp[i].completed;
		s->qp[i].completed = s->qp[i].iv_msgs = 0;
	}
	return msgs;
}

/* Each QP's "end" event (CNPs and NAKs from the device's counters), then the summary line. */
static void vfinish(void *backend, uint64_t t0)
{
	struct vsender *s = backend;
	const struct rt_gen_config *cfg = s->snd.cfg;
	uint64_t now = rt_mono_ns();
	int64_t cnp = rt_gen_hw_counter(cfg, s->qp[0].id, "rp_cnp_handled");
	int64_t nak = rt_gen_hw_counter(cfg, s->qp[0].id, "packet_seq_err");
	uint64_t msgs = 0, by = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct vqp *q = &s->qp[i];
		rt_evlog_begin_flow(&s->log, now, "end", &q->flow);
		rt_evlog_u64(&s->log, "packets", q->packets);
		rt_evlog_u64(&s->log, "bytes", q->bytes);
		rt_evlog_u64(&s->log, "retransmitted", 0);
		/* the NIC counts CNPs and NAKs per device, not per QP */
		rt_evlog_u64(&s->log, "cnp_handled",
		             cnp >= 0 && s->cnp0 >= 0 ? (uint64_t)(cnp - s->cnp0) : 0);
		rt_evlog_u64(&s->log, "naks",
		             nak >= 0 && s->nak0 >= 0 ? (uint64_t)(nak - s->nak0) : 0);
		rt_evlog_str(&s->log, "counter_scope", "device");
		rt_evlog_u64(&s->log, "messages", q->completed_before);
		rt_evlog_end(&s->log);
		msgs += q->completed_before;
		by += q->bytes;
	}
	double secs = (double)(now - t0) / 1e9;
	fprintf(s->snd.report,
	        "summary role=%s backend=verbs op=%s msg_size=%u qps=%u seconds=%.3f messages=%llu "
	        "bytes=%llu gbps=%.3f msg_per_s=%.0f cnp=%lld nak=%lld\n",
	        cfg->latency ? "lat" : "send", rt_gen_op_name(cfg->op), s->size, s->nqp, secs,
	        (unsigned long long)msgs, (unsigned long long)by, (double)by * 8 / secs / 1e9,
	        (double)msgs / secs, cnp >= 0 && s->cnp0 >= 0 ? (long long)(cnp - s->cnp0) : -1LL,
	        nak >= 0 && s->nak0 >= 0 ? (long long)(nak - s->nak0) : -1LL);
}

static const struct rt_gen_send_ops vsend_ops = {
    .start = vstart,
    .run_begin = vrun_begin,
    .stop = vstop,
    .run_payload = vrun_payload,
    .step = vstep,
    .interval = report,
    .interval_left = vinterval_left,
    .run_end = vrun_end,
    .finish = vfinish,
};

static void vqp_free(struct vqp *q)
{
	if (q->id && q->id->qp)
		rdma_destroy_qp(q->id);
	if (q->mr)
		ibv_dereg_mr(q->mr);
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->id)
		rdma_destroy_id(q->id);
	free(q->buf);
}

int rt_gen_verbs_send(const struct rt_gen_config *cfg, FILE *rep, char *errbuf)
{
	if (!cfg->server || cfg->qps == 0 || cfg->msg_size == 0 || cfg->qdepth == 0 ||
	    (cfg->sweep && cfg->msg_size < RT_PERF_SWEEP_MAX) ||
	    (cfg->latency && (cfg->qps != 1 || cfg->qdepth != 1)) ||
	    (cfg->duration_s <= 0 && !cfg->iters)) {
		return rt_errmsg(errbuf, EINVAL, "bad sender configuration");
	}
	struct vsender s = {.nqp = cfg->qps,
	                    .mbps = cfg->rate_gbps > 0 ? cfg->rate_gbps * 1000.0 : 0};
	s.snd = (struct rt_gen_sender){.ops = &vsend_ops, .backend = &s, .cfg = cfg, .report = rep};
	s.qp = calloc(s.nqp, sizeof(*s.qp));
	if (!s.qp) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	int rc = rt_evlog_open(&s.log, cfg->log_path, errbuf);
	if (!rc && !(s.ch = rdma_create_event_channel()))
		rc = rt_gen_cm_err(errbuf, "rdma_create_event_channel (is there an RDMA device?)");
	uint32_t token = (uint32_t)getpid() ^ (uint32_t)rt_mono_ns();
	for (unsigned i = 0; !rc && i < s.nqp; i++)
		rc = connect_qp(&s, i, token, errbuf);
	if (!rc)
		rc = rt_gen_send_runs(&s.snd, errbuf);
	for (unsigned i = 0; i < s.nqp; i++) {
		if (s.qp[i].id && s.qp[i].id->qp)
			rdma_disconnect(s.qp[i].id);
		vqp_free(&s.qp[i]);
	}
	if (s.pd)
		ibv_dealloc_pd(s.pd);
	if (s.ch)
		rdma_destroy_event_channel(s.ch);
	char cerr[RT_ERRBUF_SIZE];
	int lrc = rt_evlog_close(&s.log, cerr);
	if (!rc && lrc) {
		rc = lrc;
		memcpy(errbuf, cerr, RT_ERRBUF_SIZE);
	}
	free(s.qp);
	free(s.snd.lat);
	return rc;
}
