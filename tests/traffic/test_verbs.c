/* Unit tests of the verbs backend with RDMA CM and libibverbs wrapped at link time, the inline verbs calls replaced. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <rdma/rdma_cma.h>

#include "traffic/gen.h"
#include "traffic/perf.h"
#include "common/verbs_ops.h"

/* ---- a fake RDMA CM: events queue up and make the channel's fd readable ---- */

#define MAXEV   64
#define MAXPOST 256

static struct {
	struct rdma_event_channel ch;
	struct rdma_cm_event ev[MAXEV];
	unsigned head, tail;
	struct rdma_cm_id *ids[32];
	unsigned nids;
	unsigned destroyed_ids, destroyed_qps, disconnects, rejects, accepts;
	int fail_resolve, fail_reg_mr;
	struct ibv_context ctx;
	struct ibv_pd pd;
	uint8_t accept_pd[64];
	unsigned accept_pd_len;
	/* posted work requests */
	struct {
		enum ibv_wr_opcode op;
		uint64_t raddr;
		uint32_t rkey, len;
		unsigned flags;
	} posts[MAXPOST];
	unsigned nposts, nrecvs;
	struct ibv_wc pending[MAXPOST];
	struct ibv_cq *pending_cq[MAXPOST];
	unsigned npending;
	char sysfs[128];
	unsigned recv_completions_left;
	struct rdma_cm_id *server_child;
} F;

static void push(struct rdma_cm_id *id, enum rdma_cm_event_type type, const void *pd, uint8_t len,
                 uint32_t qp_num)
{
	struct rdma_cm_event *e = &F.ev[F.tail++ % MAXEV];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->event = type;
	e->param.conn.private_data = pd;
	e->param.conn.private_data_len = len;
	e->param.conn.qp_num = qp_num;
	uint64_t one = 1;
	assert_int_equal(write(F.ch.fd, &one, 8), 8);
}

struct rdma_event_channel *__wrap_rdma_create_event_channel(void);
struct rdma_event_channel *__wrap_rdma_create_event_channel(void)
{
	return &F.ch; /* opened by setup() so tests can queue events before the run */
}

void __wrap_rdma_destroy_event_channel(struct rdma_event_channel *ch);
void __wrap_rdma_destroy_event_channel(struct rdma_event_channel *ch)
{
	assert_ptr_equal(ch, &F.ch);
}

int __wrap_rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id, void *ctx,
                          enum rdma_port_space ps);
int __wrap_rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id, void *ctx,
                          enum rdma_port_space ps)
{
	assert_int_equal(ps, RDMA_PS_TCP);
	struct rdma_cm_id *i = calloc(1, sizeof(*i));
	i->channel = ch;
	i->context = ctx;
	i->verbs = &F.ctx;
	i->port_num = 1;
	F.ids[F.nids++] = i;
	*id = i;
	return 0;
}

int __wrap_rdma_destroy_id(struct rdma_cm_id *id);
int __wrap_rdma_destroy_id(struct rdma_cm_id *id)
{
	F.destroyed_ids++;
	free(id);
	return 0;
}

int __wrap_rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
                             int timeout_ms);
int __wrap_rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
                             int timeout_ms)
{
	(void)src;
	(void)timeout_ms;
	if (F.fail_resolve) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	memcpy(&id->route.addr.dst_addr, dst, sizeof(struct sockaddr_in));
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x0a000001)};
	memcpy(&id->route.addr.src_addr, &me, sizeof(me));
	push(id, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, 0, 0);
	return 0;
}

int __wrap_rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms);
int __wrap_rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void)timeout_ms;
	push(id, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 0, 0);
	return 0;
}

int __wrap_rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev);
int __wrap_rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev)
{
	uint64_t v;
	if (F.head == F.tail || read(ch->fd, &v, 8) != 8) {
		errno = EAGAIN;
		return -1;
	}
	*ev = &F.ev[F.head++ % MAXEV];
	return 0;
}

int __wrap_rdma_ack_cm_event(struct rdma_cm_event *ev);
int __wrap_rdma_ack_cm_event(struct rdma_cm_event *ev)
{
	(void)ev;
	return 0;
}

int __wrap_rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int __wrap_rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	assert_ptr_equal(pd, &F.pd);
	assert_int_equal(attr->qp_type, IBV_QPT_RC);
	assert_non_null(attr->send_cq);
	id->qp = calloc(1, sizeof(*id->qp));
	unsigned k = 0;
	while (F.ids[k] != id)
		k++;
	id->qp->qp_num = 100 + k; /* by creation order of the CM ids */
	id->qp->send_cq = attr->send_cq;
	id->qp->recv_cq = attr->recv_cq;
	return 0;
}

void __wrap_rdma_destroy_qp(struct rdma_cm_id *id);
void __wrap_rdma_destroy_qp(struct rdma_cm_id *id)
{
	F.destroyed_qps++;
	free(id->qp);
	id->qp = NULL;
}

static uint8_t rep_pd[20];

int __wrap_rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *p);
int __wrap_rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	const uint8_t *req = p->private_data;
	assert_int_equal(p->private_data_len, 28);
	assert_memory_equal(req, "RTG1", 4);
	assert_int_equal(p->rnr_retry_count, 7);
	unsigned index = req[19];
	memcpy(rep_pd, "RTG1", 4);
	memset(rep_pd + 4, 0, 16);
	rep_pd[10] = 0x10;               /* addr 0x1000 */
	rep_pd[15] = 0x77;               /* rkey */
	memcpy(rep_pd + 16, req + 8, 4); /* len = msg size */
	push(id, RDMA_CM_EVENT_ESTABLISHED, rep_pd, sizeof(rep_pd), 500 + index);
	return 0;
}

int __wrap_rdma_disconnect(struct rdma_cm_id *id);
int __wrap_rdma_disconnect(struct rdma_cm_id *id)
{
	(void)id;
	F.disconnects++;
	return 0;
}

int __wrap_rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr);
int __wrap_rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id;
	assert_int_equal(ntohs(((struct sockaddr_in *)addr)->sin_port), 18515);
	return 0;
}

int __wrap_rdma_listen(struct rdma_cm_id *id, int backlog);
int __wrap_rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id;
	(void)backlog;
	return 0;
}

int __wrap_rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *p);
int __wrap_rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	(void)id;
	F.accepts++;
	memcpy(F.accept_pd, p->private_data, p->private_data_len);
	F.accept_pd_len = p->private_data_len;
	return 0;
}

int __wrap_rdma_reject(struct rdma_cm_id *id, const void *pd, uint8_t len);
int __wrap_rdma_reject(struct rdma_cm_id *id, const void *pd, uint8_t len)
{
	(void)pd;
	(void)len;
	F.rejects++;
	/* the fake owns rejected ids: release them like the library would */
	free(id);
	return 0;
}

/* ---- fake verbs: exported libibverbs functions wrapped with -Wl,--wrap, the inline ones in rt_verbs_ops ---- */

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx);
int __wrap_ibv_dealloc_pd(struct ibv_pd *pd);
struct ibv_cq *__wrap_ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
                                    struct ibv_comp_channel *channel, int comp_vector);
int __wrap_ibv_destroy_cq(struct ibv_cq *cq);
struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access);
int __wrap_ibv_dereg_mr(struct ibv_mr *mr);
const char *__wrap_ibv_get_device_name(struct ibv_device *dev);

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx)
{
	assert_ptr_equal(ctx, &F.ctx);
	return &F.pd;
}
int __wrap_ibv_dealloc_pd(struct ibv_pd *pd)
{
	assert_ptr_equal(pd, &F.pd);
	return 0;
}
struct ibv_cq *__wrap_ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
                                    struct ibv_comp_channel *channel, int comp_vector)
{
	(void)ctx;
	assert_null(cq_context);
	assert_null(channel);
	assert_int_equal(comp_vector, 0);
	assert_true(cqe > 0);
	return calloc(1, sizeof(struct ibv_cq));
}
int __wrap_ibv_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	return 0;
}
struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	(void)pd;
	assert_true(access & IBV_ACCESS_REMOTE_WRITE);
	if (F.fail_reg_mr) {
		errno = ENOMEM;
		return NULL;
	}
	struct ibv_mr *mr = calloc(1, sizeof(*mr));
	mr->addr = addr;
	mr->length = len;
	mr->lkey = 5;
	mr->rkey = 6;
	return mr;
}
int __wrap_ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

static void set_counter(const char *name, int v)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/class/infiniband/fake0/ports/1/hw_counters/%s", F.sysfs,
	         name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", v);
	fclose(f);
}

static int f_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)bad;
	assert_true(F.nposts < MAXPOST);
	F.posts[F.nposts].op = wr->opcode;
	F.posts[F.nposts].raddr = wr->wr.rdma.remote_addr;
	F.posts[F.nposts].rkey = wr->wr.rdma.rkey;
	F.posts[F.nposts].len = wr->sg_list[0].length;
	F.posts[F.nposts].flags = wr->send_flags;
	F.nposts++;
	if (F.nposts == 5) /* the NIC handles 7 CNPs during the run */
		set_counter("rp_cnp_handled", 17);
	F.pending[F.npending] = (struct ibv_wc){
	    .wr_id = wr->wr_id, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RDMA_WRITE};
	F.pending_cq[F.npending++] = qp->send_cq;
	return 0;
}
static int f_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)bad;
	assert_int_equal(wr->sg_list[0].lkey, 5);
	F.nrecvs++;
	return 0;
}
static int f_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int got = 0;
	for (unsigned i = 0; i < F.npending && got < n;) {
		if (F.pending_cq[i] == cq) {
			wc[got++] = F.pending[i];
			F.pending[i] = F.pending[F.npending - 1];
			F.pending_cq[i] = F.pending_cq[--F.npending];
		} else {
			i++;
		}
	}
	/* server side: deliver the planned receives, then the client leaves */
	if (F.server_child && F.server_child->qp && cq == F.server_child->qp->recv_cq && got < n &&
	    F.recv_completions_left) {
		wc[got++] = (struct ibv_wc){
		    .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV, .byte_len = 1024};
		if (--F.recv_completions_left == 0)
			push(F.server_child, RDMA_CM_EVENT_DISCONNECTED, NULL, 0, 0);
	}
	return got;
}
const char *__wrap_ibv_get_device_name(struct ibv_device *dev)
{
	(void)dev;
	return "fake0";
}

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	F.ch.fd = eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK);
	rt_verbs_ops = rt_verbs_ops_default;
	rt_verbs_ops.post_send = f_post_send;
	rt_verbs_ops.post_recv = f_post_recv;
	rt_verbs_ops.poll_cq = f_poll_cq;
	snprintf(F.sysfs, sizeof(F.sysfs), "/tmp/rt-gen-verbs-%d", getpid());
	char path[256];
	const char *parts[] = {"",
	                       "/class",
	                       "/class/infiniband",
	                       "/class/infiniband/fake0",
	                       "/class/infiniband/fake0/ports",
	                       "/class/infiniband/fake0/ports/1",
	                       "/class/infiniband/fake0/ports/1/hw_counters"};
	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", F.sysfs, parts[i]);
		mkdir(path, 0755);
	}
	set_counter("rp_cnp_handled", 10);
	set_counter("packet_seq_err", 3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(F.ch.fd);
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", F.sysfs);
	return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(FILE *f)
{
	static char buf[1 << 16];
	rewind(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	return buf;
}

static void config(struct rt_gen_config *cfg, enum rt_gen_op op, const char *log)
{
	rt_gen_config_default(cfg);
	cfg->backend = RT_GEN_BACKEND_VERBS;
	cfg->op = op;
	cfg->server = "10.0.0.2";
	cfg->msg_size = 4096;
	cfg->qps = 2;
	cfg->qdepth = 4;
	cfg->bytes = 10 * 4096; /* 10 messages per QP */
	cfg->duration_s = 10;
	cfg->sysfs_root = F.sysfs;
	cfg->log_path = log;
}

static void test_send_write(void **state)
{
	(void)state;
	char log[200];
	snprintf(log, sizeof(log), "%s/send.jsonl", F.sysfs);
	struct rt_gen_config cfg;
	config(&cfg, RT_GEN_OP_WRITE, log);
	FILE *rep = tmpfile();
	char err[RT_ERRBUF_SIZE] = "";
	int rc = rt_gen_verbs_send(&cfg, rep, err);
	print_message("%s\n", err);
	assert_int_equal(rc, 0);
	assert_int_equal(F.nposts, 20);
	for (unsigned i = 0; i < F.nposts; i++) {
		assert_int_equal(F.posts[i].op, IBV_WR_RDMA_WRITE);
		assert_int_equal(F.posts[i].raddr, 0x1000);
		assert_int_equal(F.posts[i].rkey, 0x77);
		assert_int_equal(F.posts[i].len, 4096);
		assert_true(F.posts[i].flags & IBV_SEND_SIGNALED);
	}
	char *out = slurp(rep);
	assert_non_null(
	    strstr(out, "summary role=send backend=verbs op=write msg_size=4096 qps=2"));
	assert_non_null(strstr(out, " messages=20 "));
	assert_non_null(strstr(out, " cnp=7 nak=0"));
	fclose(rep);
	assert_int_equal(F.disconnects, 2);
	assert_int_equal(F.destroyed_qps, 2);
	assert_int_equal(F.destroyed_ids, 2);
	FILE *lf = fopen(log, "r");
	assert_non_null(lf);
	char *l = slurp(lf);
	fclose(lf);
	assert_non_null(strstr(
	    l, "\"event\":\"start\",\"role\":\"send\",\"backend\":\"verbs\",\"op\":\"write\""));
	assert_non_null(strstr(l, "\"event\":\"qp\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\","
	                          "\"dest_qp\":500,\"local_qp\":100"));
	assert_non_null(strstr(l, "\"event\":\"qp\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\","
	                          "\"dest_qp\":501,\"local_qp\":101"));
	assert_non_null(strstr(l, "\"event\":\"end\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\","
	                          "\"dest_qp\":500,\"packets\":40,"));
	assert_non_null(strstr(l, "\"cnp_handled\":7"));
}

/* -n: a count of messages per QP instead of a time; the run ends with perftest's table. */
static void test_send_iters(void **state)
{
	(void)state;
	struct rt_gen_config cfg;
	config(&cfg, RT_GEN_OP_WRITE, NULL);
	cfg.bytes = 0;
	cfg.iters = 3;
	cfg.duration_s = 0;
	FILE *rep = tmpfile();
	char err[RT_ERRBUF_SIZE] = "";
	assert_int_equal(rt_gen_verbs_send(&cfg, rep, err), 0);
	assert_int_equal(F.nposts, 6);
	char *out = slurp(rep);
	assert_non_null(strstr(out, "BW peak[MB/sec]"));
	unsigned size;
	unsigned long long it;
	const char *row = strstr(out, "\n 4096 ");
	assert_non_null(row);
	assert_int_equal(sscanf(row, " %u %llu", &size, &it), 2);
	assert_int_equal(it, 6); /* both QPs */
	assert_non_null(strstr(out, " messages=6 "));
	fclose(rep);
}

/* gen lat: one message at a time, each timed from its post to its completion. */
static void test_send_lat(void **state)
{
	(void)state;
	struct rt_gen_config cfg;
	config(&cfg, RT_GEN_OP_WRITE, NULL);
	cfg.bytes = 0;
	cfg.qps = 1;
	cfg.qdepth = 1;
	cfg.latency = true;
	cfg.iters = 7;
	cfg.duration_s = 0;
	cfg.msg_size = 64;
	FILE *rep = tmpfile();
	char err[RT_ERRBUF_SIZE] = "";
	assert_int_equal(rt_gen_verbs_send(&cfg, rep, err), 0);
	assert_int_equal(F.nposts, 7);
	char *out = slurp(rep);
	assert_non_null(strstr(out, " #bytes #iterations    t_min[usec]"));
	unsigned size;
	unsigned long long it;
	double tmin, tmax, typ;
	const char *row = strstr(out, "\n 64 ");
	assert_non_null(row);
	assert_int_equal(sscanf(row, " %u %llu %lf %lf %lf", &size, &it, &tmin, &tmax, &typ), 5);
	assert_int_equal(it, 7);
	assert_true(tmin <= typ && typ <= tmax);
	assert_non_null(strstr(out, "summary role=lat backend=verbs"));
	/* a second QP or a deeper queue is not a ping-pong */
	cfg.qdepth = 2;
	assert_int_equal(rt_gen_verbs_send(&cfg, rep, err), -EINVAL);
	fclose(rep);
}

/* -a: sizes 2 .. 2^23 posted from one 2^23-byte buffer, n of each, a table row each. */
static void test_send_sweep(void **state)
{
	(void)state;
	struct rt_gen_config cfg;
	config(&cfg, RT_GEN_OP_WRITE, NULL);
	cfg.bytes = 0;
	cfg.qps = 1;
	cfg.iters = 2;
	cfg.duration_s = 0;
	cfg.sweep = true;
	cfg.msg_size = RT_PERF_SWEEP_MAX;
	cfg.report_gbits = true;
	FILE *rep = tmpfile();
	char err[RT_ERRBUF_SIZE] = "";
	assert_int_equal(rt_gen_verbs_send(&cfg, rep, err), 0);
	assert_int_equal(F.nposts, 2 * 23);
	for (unsigned i = 0; i < F.nposts; i++)
		assert_int_equal(F.posts[i].len, 2u << (i / 2));
	char *out = slurp(rep);
	assert_non_null(strstr(out, "BW peak[Gb/sec]"));
	for (unsigned k = 1; k <= 23; k++) {
		char row[32];
		snprintf(row, sizeof(row), "\n %-10u 2 ", 1u << k);
		assert_non_null(strstr(out, row));
	}
	fclose(rep);
}

static void test_send_read_flow(void **state)
{
	(void)state;
	char log[200];
	snprintf(log, sizeof(log), "%s/read.jsonl", F.sysfs);
	struct rt_gen_config cfg;
	config(&cfg, RT_GEN_OP_READ, log);
	cfg.qps = 1;
	FILE *rep = tmpfile();
	char err[RT_ERRBUF_SIZE] = "";
	assert_int_equal(rt_gen_verbs_send(&cfg, rep, err), 0);
	fclose(rep);
	assert_int_equal(F.nposts, 10);
	assert_int_equal(F.posts[0].op, IBV_WR_RDMA_READ);
	FILE *lf = fopen(log, "r");
	char *l = slurp(lf);
	fclose(lf);
	/* read data flows server -> sender, to the sender's QP */
	assert_non_null(strstr(
	    l, "\"event\":\"qp\",\"src\":\"10.0.0.2\",\"dst\":\"10.0.0.1\",\"dest_qp\":100"));
}

static void test_send_resolve_fails(void **state)
{
	(void)state;
	struct rt_gen_config cfg;
	config(&cfg, RT_GEN_OP_SEND, NULL);
	F.fail_resolve = 1;
	char err[RT_ERRBUF_SIZE] = "";
	FILE *rep = tmpfile();
	int rc = rt_gen_verbs_send(&cfg, rep, err);
	fclose(rep);
	assert_int_equal(rc, -EADDRNOTAVAIL);
	assert_non_null(strstr(err, "rdma_resolve_addr"));
	assert_int_equal(F.destroyed_ids, 1);
	assert_int_equal(F.nposts, 0);
}

static void test_serve(void **state)
{
	(void)state;
	char log[200];
	snprintf(log, sizeof(log), "%s/serve.jsonl", F.sysfs);
	struct rt_gen_config cfg;
	rt_gen_config_default(&cfg);
	cfg.backend = RT_GEN_BACKEND_VERBS;
	cfg.duration_s = 5;
	cfg.sysfs_root = F.sysfs;
	cfg.log_path = log;
	static uint8_t bad[28] = "XXXX";
	static uint8_t req[28] = "RTG1";
	req[4] = RT_GEN_OP_SEND;
	req[10] = 0x04; /* msg 1024 */
	req[15] = 1;    /* qps 1 */
	req[23] = 9;    /* token */
	req[27] = 2;    /* qdepth 2 */
	/* a request without our private data is rejected, and so is an absurd queue depth or size */
	push(calloc(1, sizeof(struct rdma_cm_id)), RDMA_CM_EVENT_CONNECT_REQUEST, bad, sizeof(bad),
	     0);
	static uint8_t deep[28], huge[28];
	memcpy(deep, req, sizeof(deep));
	deep[24] = 0x80; /* qdepth 2^31 */
	deep[27] = 0;
	push(calloc(1, sizeof(struct rdma_cm_id)), RDMA_CM_EVENT_CONNECT_REQUEST, deep,
	     sizeof(deep), 0);
	memcpy(huge, req, sizeof(huge));
	huge[8] = 0x80; /* msg 2 GiB */
	push(calloc(1, sizeof(struct rdma_cm_id)), RDMA_CM_EVENT_CONNECT_REQUEST, huge,
	     sizeof(huge), 0);
	struct rdma_cm_id *child;
	__wrap_rdma_create_id(&F.ch, &child, NULL, RDMA_PS_TCP);
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x0a000002)};
	struct sockaddr_in peer = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x0a000001)};
	memcpy(&child->route.addr.src_addr, &me, sizeof(me));
	memcpy(&child->route.addr.dst_addr, &peer, sizeof(peer));
	F.server_child = child;
	F.recv_completions_left = 3;
	push(child, RDMA_CM_EVENT_CONNECT_REQUEST, req, sizeof(req), 77);
	FILE *rep = tmpfile();
	char err[RT_ERRBUF_SIZE] = "";
	int rc = rt_gen_verbs_serve(&cfg, rep, err);
	print_message("%s\n", err);
	assert_int_equal(rc, 0);
	assert_int_equal(F.rejects, 3);
	assert_int_equal(F.accepts, 1);
	assert_int_equal(F.accept_pd_len, 20);
	assert_memory_equal(F.accept_pd, "RTG1", 4);
	assert_int_equal(F.accept_pd[15], 6);    /* rkey of the registered buffer */
	assert_int_equal(F.accept_pd[18], 0x04); /* length 1024 */
	assert_int_equal(F.nrecvs, 4 + 3);       /* 2 x qdepth, then one per completion */
	char *out = slurp(rep);
	assert_non_null(strstr(out, "summary role=serve backend=verbs clients=1"));
	assert_non_null(strstr(out, "messages_received=3 bytes_received=3072"));
	fclose(rep);
	FILE *lf = fopen(log, "r");
	char *l = slurp(lf);
	fclose(lf);
	assert_non_null(
	    strstr(l, "\"event\":\"qp\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\",\"dest_qp\":100,"
	              "\"local_qp\":100,\"udp_sport\":0,\"peer_qp\":77"));
	assert_non_null(strstr(l, "\"event\":\"end\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.2\","
	                          "\"dest_qp\":100,\"packets\":3,\"bytes\":3072"));
	assert_int_equal(F.destroyed_qps, 1);
}

/* A connection whose setup fails after its QP exists: rejected, QP destroyed (CQ then freed). */
static void test_serve_setup_fails(void **state)
{
	(void)state;
	struct rt_gen_config cfg;
	rt_gen_config_default(&cfg);
	cfg.backend = RT_GEN_BACKEND_VERBS;
	cfg.duration_s = 5;
	cfg.sysfs_root = F.sysfs;
	static uint8_t req[28] = "RTG1";
	req[4] = RT_GEN_OP_WRITE;
	req[10] = 0x04; /* msg 1024 */
	req[15] = 1;    /* qps 1 */
	req[23] = 9;    /* token */
	req[27] = 2;    /* qdepth 2 */
	struct rdma_cm_id *child;
	__wrap_rdma_create_id(&F.ch, &child, NULL, RDMA_PS_TCP);
	F.fail_reg_mr = 1;
	push(child, RDMA_CM_EVENT_CONNECT_REQUEST, req, sizeof(req), 77);
	FILE *rep = tmpfile();
	char err[RT_ERRBUF_SIZE] = "";
	int rc = rt_gen_verbs_serve(&cfg, rep, err);
	fclose(rep);
	assert_int_equal(rc, -ENOMEM);
	assert_non_null(strstr(err, "ibv_reg_mr"));
	assert_int_equal(F.rejects, 1);
	assert_int_equal(F.accepts, 0);
	assert_int_equal(F.destroyed_qps, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_send_write, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_send_iters, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_send_lat, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_send_sweep, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_send_read_flow, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_send_resolve_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_serve, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_serve_setup_fails, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
