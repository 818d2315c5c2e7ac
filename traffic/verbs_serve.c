/* verbs backend, server: accepts RDMA CM connections, registers buffers, posts receives for SENDs.
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
#include "traffic/evlog.h"
#include "traffic/gen.h"
#include "traffic/internal.h"

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
		struct ibv_sge sge = {
		    .addr = (uintptr_t)c->buf, .length = c->msg_size, .lkey = c->mr->lkey};
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
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
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
	if (!req || ev->param.conn.private_data_len < RT_GEN_PD_REQ_LEN ||
	    memcmp(req, RT_GEN_PD_MAGIC, 4) || req[4] > RT_GEN_OP_READ ||
	    rt_gen_pd_get32(req + 8) == 0 || rt_gen_pd_get32(req + 8) > RT_GEN_MAX_MSG ||
	    rt_gen_pd_get32(req + 24) == 0 || rt_gen_pd_get32(req + 24) > RT_GEN_MAX_QDEPTH ||
	    s->nconn >= RT_GEN_MAX_QPS) {
		rdma_reject(id, NULL, 0);
		return 0;
	}
	uint32_t token = rt_gen_pd_get32(req + 20), qps = rt_gen_pd_get32(req + 12);
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
	c->msg_size = rt_gen_pd_get32(req + 8);
	c->qdepth = rt_gen_pd_get32(req + 24);
	c->token = token;
	c->qps = qps;
	int rc = 0;
	const char *what = NULL;
	if (!s->pd && !(s->pd = ibv_alloc_pd(id->verbs)))
		what = "ibv_alloc_pd";
	else if (!(c->cq = ibv_create_cq(id->verbs, 2 * (int)c->qdepth + 1, NULL, NULL, 0)))
		what = "ibv_create_cq";
	if (!what) {
		struct ibv_qp_init_attr attr = {.send_cq = c->cq,
		                                .recv_cq = c->cq,
		                                .qp_type = IBV_QPT_RC,
		                                .cap = {.max_send_wr = 1,
		                                        .max_recv_wr = 2 * c->qdepth,
		                                        .max_send_sge = 1,
		                                        .max_recv_sge = 1}};
		if (rdma_create_qp(id, s->pd, &attr))
			what = "rdma_create_qp";
	}
	if (!what && !(c->buf = calloc(1, c->msg_size)))
		what = "buffer";
	if (!what && !(c->mr = ibv_reg_mr(s->pd, c->buf, c->msg_size,
	                                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	                                      IBV_ACCESS_REMOTE_READ)))
		what = "ibv_reg_mr";
	if (!what && c->op == RT_GEN_OP_SEND && (rc = post_recvs(c, 2 * c->qdepth)))
		what = "ibv_post_recv";
	if (what) {
		int e = rc ? rc : errno ? errno : ENOMEM;
		rt_errorf(errbuf, e, "%s", what);
		/* the QP goes with its id: destroy it first (the CQ cannot go while a QP uses it)
		 */
		if (id->qp)
			rdma_destroy_qp(id);
		rdma_reject(id, NULL, 0);
		c->id = NULL; /* the CM id of a rejected request is released by the library */
		vconn_free(c);
		return -e;
	}
	uint8_t rep[RT_GEN_PD_REP_LEN];
	memcpy(rep, RT_GEN_PD_MAGIC, 4);
	uint64_t addr = (uintptr_t)c->buf;
	rt_put_be32(rep + 4, (uint32_t)(addr >> 32));
	rt_put_be32(rep + 8, (uint32_t)addr);
	rt_put_be32(rep + 12, c->mr->rkey);
	rt_put_be32(rep + 16, c->msg_size);
	struct rdma_conn_param param = {.private_data = rep,
	                                .private_data_len = RT_GEN_PD_REP_LEN,
	                                .responder_resources = 16,
	                                .initiator_depth = 16,
	                                .rnr_retry_count = 7};
	char local[48], peer[48];
	rt_gen_addr_str(rdma_get_local_addr(id), local, sizeof(local));
	rt_gen_addr_str(rdma_get_peer_addr(id), peer, sizeof(peer));
	bool read = c->op == RT_GEN_OP_READ;
	snprintf(c->flow.src, sizeof(c->flow.src), "%s", read ? local : peer);
	snprintf(c->flow.dst, sizeof(c->flow.dst), "%s", read ? peer : local);
	c->flow.dest_qp = read ? ev->param.conn.qp_num : id->qp->qp_num;
	id->context = c;
	s->conn[s->nconn++] = c;
	if (rdma_accept(id, &param))
		return rt_gen_cm_err(errbuf, "rdma_accept");
	uint64_t now = rt_mono_ns();
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
	        rt_gen_op_name(c->op), rt_gen_pd_get32(req + 16) + 1, qps, c->msg_size);
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
	rt_evlog_begin_flow(&s->log, rt_mono_ns(), "end", &c->flow);
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
	uint64_t t0 = rt_mono_ns();
	uint64_t give_up =
	    cfg->duration_s > 0 ? t0 + (uint64_t)(cfg->duration_s * 1e9) : UINT64_MAX;
	uint64_t msgs = 0, bytes = 0;
	while (s->finished < cfg->clients) {
		if (cfg->stop && *cfg->stop)
			break;
		if (rt_mono_ns() >= give_up) {
			return rt_errmsg(errbuf, ETIMEDOUT, "%u of %u client(s) done after %.1f s",
			                 s->finished, cfg->clients, cfg->duration_s);
		}
		struct pollfd pfd = {.fd = s->ch->fd, .events = POLLIN};
		if (poll(&pfd, 1, s->nconn ? 0 : 10) > 0) {
			struct rdma_cm_event *ev;
			if (rdma_get_cm_event(s->ch, &ev))
				return rt_gen_cm_err(errbuf, "rdma_get_cm_event");
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
	double secs = (double)(rt_mono_ns() - t0) / 1e9;
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
		rc = rt_gen_cm_err(errbuf, "rdma_create_event_channel (is there an RDMA device?)");
	if (!rc && rdma_create_id(s->ch, &s->listen, s, RDMA_PS_TCP))
		rc = rt_gen_cm_err(errbuf, "rdma_create_id");
	if (!rc && rdma_bind_addr(s->listen, (struct sockaddr *)&sa))
		rc = rt_gen_cm_err(errbuf, "rdma_bind_addr");
	if (!rc && rdma_listen(s->listen, 16))
		rc = rt_gen_cm_err(errbuf, "rdma_listen");
	if (!rc) {
		fprintf(rep, "listening with RDMA CM on port %u for %u client(s)\n",
		        cfg->control_port, cfg->clients);
		fflush(rep);
		rc = vserve_loop(s, errbuf);
	}
	while (s->nconn)
		vconn_free(s->conn[--s->nconn]);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
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
