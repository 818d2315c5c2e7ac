/* The fake NIC of the verbs sniffer's unit tests (fake_verbs.h): wrapped libibverbs calls and the inline-call table. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "capture/internal.h"
#include "common/verbs_ops.h"
#include "common/verbs_wrap.h"
#include "fake_verbs.h"

struct fake_nic fake;

static struct ibv_device fake_dev;
static struct ibv_context fake_ctx;
static struct ibv_pd fake_pd;
static struct ibv_mr fake_mr;
static struct ibv_qp fake_qp;
struct ibv_cq_ex fake_cq;
static struct ibv_flow fake_flow;

static void logcall(const char *name)
{
	if (fake.n_log < MAX_LOG)
		fake.log[fake.n_log++] = name;
}

/* Log the call; true when this step is the one to fail (errno set). */
static bool step(const char *name)
{
	logcall(name);
	if (fake.fail_step && strcmp(fake.fail_step, name) == 0) {
		errno = fake.fail_errno;
		return true;
	}
	return false;
}

struct ibv_device **__wrap_ibv_get_device_list(int *n)
{
	if (step("get_device_list"))
		return NULL;
	struct ibv_device **list = calloc(2, sizeof(*list));
	list[0] = &fake_dev;
	*n = 1;
	return list;
}

void __wrap_ibv_free_device_list(struct ibv_device **list)
{
	logcall("free_device_list");
	free(list);
}

const char *__wrap_ibv_get_device_name(struct ibv_device *dev)
{
	assert_ptr_equal(dev, &fake_dev);
	return "mock0";
}

struct ibv_context *__wrap_ibv_open_device(struct ibv_device *dev)
{
	assert_ptr_equal(dev, &fake_dev);
	return step("open_device") ? NULL : &fake_ctx;
}

int __wrap_ibv_close_device(struct ibv_context *ctx)
{
	assert_ptr_equal(ctx, &fake_ctx);
	logcall("close_device");
	return 0;
}

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx)
{
	assert_ptr_equal(ctx, &fake_ctx);
	return step("alloc_pd") ? NULL : &fake_pd;
}

int __wrap_ibv_dealloc_pd(struct ibv_pd *pd)
{
	assert_ptr_equal(pd, &fake_pd);
	logcall("dealloc_pd");
	return 0;
}

struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	assert_ptr_equal(pd, &fake_pd);
	assert_non_null(addr);
	assert_true(len >= RING * 1500u);
	assert_true(access & IBV_ACCESS_LOCAL_WRITE);
	fake_mr.lkey = 0x1234;
	return step("reg_mr") ? NULL : &fake_mr;
}

int __wrap_ibv_dereg_mr(struct ibv_mr *mr)
{
	assert_ptr_equal(mr, &fake_mr);
	logcall("dereg_mr");
	return 0;
}

struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	assert_ptr_equal(pd, &fake_pd);
	fake.qp_attr = *attr;
	return step("create_qp") ? NULL : &fake_qp;
}

int __wrap_ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	assert_ptr_equal(qp, &fake_qp);
	if (fake.n_modify < 2) {
		fake.modify[fake.n_modify] = *attr;
		fake.modify_mask[fake.n_modify++] = mask;
	}
	return step(attr->qp_state == IBV_QPS_INIT ? "modify_qp_init" : "modify_qp_rtr")
	           ? fake.fail_errno
	           : 0;
}

int __wrap_ibv_destroy_qp(struct ibv_qp *qp)
{
	assert_ptr_equal(qp, &fake_qp);
	logcall("destroy_qp");
	return 0;
}

int __wrap_ibv_destroy_cq(struct ibv_cq *cq)
{
	assert_ptr_equal(cq, ibv_cq_ex_to_cq(&fake_cq));
	logcall("destroy_cq");
	return 0;
}

/* Inline verbs.h calls: the replacement table. */
static int fake_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	assert_ptr_equal(ctx, &fake_ctx);
	if (step("query_port"))
		return fake.fail_errno;
	if (port != 1 && port != 2)
		return EINVAL;
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	attr->state = IBV_PORT_ACTIVE;
	return 0;
}

static int fake_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
                                struct ibv_device_attr_ex *attr)
{
	(void)in;
	assert_ptr_equal(ctx, &fake_ctx);
	logcall("query_device_ex");
	attr->hca_core_clock = fake.khz;
	return 0;
}

static int fake_query_rt_values_ex(struct ibv_context *ctx, struct ibv_values_ex *values)
{
	assert_ptr_equal(ctx, &fake_ctx);
	logcall("query_rt_values_ex");
	if (!fake.rawclock)
		return EOPNOTSUPP;
	assert_true(values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK);
	values->raw_clock.tv_sec = 0;
	values->raw_clock.tv_nsec = (long)fake.raw_now;
	return 0;
}

static struct ibv_cq_ex *fake_create_cq_ex(struct ibv_context *ctx,
                                           struct ibv_cq_init_attr_ex *attr)
{
	assert_ptr_equal(ctx, &fake_ctx);
	assert_true(attr->cqe >= RING);
	assert_true(attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN);
	if (fake.n_cq < 4)
		fake.cq_flags[fake.n_cq++] = attr->wc_flags;
	if (step("create_cq_ex"))
		return NULL;
	if ((attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) && !fake.wallclock) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) && !fake.rawclock) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return &fake_cq;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	assert_ptr_equal(qp, &fake_qp);
	if (step("post_recv")) {
		*bad = wr;
		return fake.fail_errno;
	}
	fake.n_last_posted = 0;
	for (; wr; wr = wr->next) {
		assert_true(wr->wr_id < RING);
		assert_false(fake.owned[wr->wr_id]); /* never posted twice */
		assert_int_equal(wr->num_sge, 1);
		assert_int_equal(wr->sg_list[0].lkey, 0x1234);
		fake.owned[wr->wr_id] = true;
		fake.buf_addr[wr->wr_id] = wr->sg_list[0].addr;
		fake.buf_len[wr->wr_id] = wr->sg_list[0].length;
		fake.last_posted[fake.n_last_posted++] = wr->wr_id;
	}
	return 0;
}

static struct ibv_flow *fake_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr)
{
	assert_ptr_equal(qp, &fake_qp);
	fake.flow_attr = *attr;
	fake.flow_calls++;
	return step("create_flow") ? NULL : &fake_flow;
}

static int fake_destroy_flow(struct ibv_flow *flow)
{
	assert_ptr_equal(flow, &fake_flow);
	logcall("destroy_flow");
	return 0;
}

/* Deliver the next queued completion: the NIC writes the frame into its buffer. */
static int deliver(struct ibv_cq_ex *cq)
{
	if (fake.cq_head == fake.cq_tail && fake.endless_left > 0) {
		for (uint64_t i = 0; i < RING; i++) {
			if (fake.owned[i]) {
				fake.endless_left--;
				fake.cq[0] = (struct completion){i, IBV_WC_SUCCESS, 60, T0_REAL, 3};
				fake.cq_head = 0;
				fake.cq_tail = 1;
				break;
			}
		}
	}
	if (fake.cq_head == fake.cq_tail)
		return ENOENT;
	fake.cur = fake.cq[fake.cq_head++];
	assert_true(fake.owned[fake.cur.wr_id]);
	fake.owned[fake.cur.wr_id] = false;
	if (fake.cur.status == IBV_WC_SUCCESS) {
		uint8_t *buf = (uint8_t *)(uintptr_t)fake.buf_addr[fake.cur.wr_id];
		assert_true(fake.cur.len <= fake.buf_len[fake.cur.wr_id]);
		memset(buf, 0xab, fake.cur.len);
		buf[0] = fake.cur.byte0;
	}
	cq->wr_id = fake.cur.wr_id;
	cq->status = fake.cur.status;
	return 0;
}

static int fake_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	(void)attr;
	assert_ptr_equal(cq, &fake_cq);
	return deliver(cq);
}

static int fake_next_poll(struct ibv_cq_ex *cq)
{
	return deliver(cq);
}

static void fake_end_poll(struct ibv_cq_ex *cq)
{
	assert_ptr_equal(cq, &fake_cq);
}

static uint32_t fake_read_byte_len(struct ibv_cq_ex *cq)
{
	(void)cq;
	return fake.cur.len;
}

static uint64_t fake_read_completion_ts(struct ibv_cq_ex *cq)
{
	(void)cq;
	assert_true(fake.rawclock && !fake.wallclock);
	return fake.cur.ts;
}

static uint64_t fake_read_wallclock_ns(struct ibv_cq_ex *cq)
{
	(void)cq;
	assert_true(fake.wallclock);
	return fake.cur.ts;
}

/* CLOCK_REALTIME stands still at T0_REAL; CLOCK_MONOTONIC moves 10 ms per reading. */
static int fake_clock_gettime(clockid_t clk, struct timespec *ts)
{
	uint64_t ns = clk == CLOCK_REALTIME ? T0_REAL : (fake.mono_ns += 10000000u);
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
	return 0;
}

static const struct rt_verbs_ops fake_ops = {
    .query_port = fake_query_port,
    .query_device_ex = fake_query_device_ex,
    .query_rt_values_ex = fake_query_rt_values_ex,
    .create_cq_ex = fake_create_cq_ex,
    .post_recv = fake_post_recv,
    .create_flow = fake_create_flow,
    .destroy_flow = fake_destroy_flow,
    .start_poll = fake_start_poll,
    .next_poll = fake_next_poll,
    .end_poll = fake_end_poll,
    .wc_read_byte_len = fake_read_byte_len,
    .wc_read_completion_ts = fake_read_completion_ts,
    .wc_read_completion_wallclock_ns = fake_read_wallclock_ns,
    .clock_gettime = fake_clock_gettime,
};

int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.wallclock = true;
	fake.rawclock = true;
	fake.khz = 156250; /* 156.25 MHz */
	rt_verbs_ops = fake_ops;
	return 0;
}

int teardown_api(void **state)
{
	(void)state;
	rt_verbs_ops = rt_verbs_ops_default;
	return 0;
}

void queue(uint64_t wr_id, enum ibv_wc_status status, uint32_t len, uint64_t ts)
{
	fake.cq[fake.cq_tail++] = (struct completion){wr_id, status, len, ts, (uint8_t)wr_id};
}

int open_src(struct rt_source *src, const struct rt_source_config *cfg, char *errbuf)
{
	memset(src, 0, sizeof(*src));
	src->ops = &rt_source_verbs_ops;
	snprintf(src->name, sizeof(src->name), "mock0:1");
	return rt_source_verbs_ops.open(src, "mock0:1", cfg, errbuf);
}

const struct rt_source_config ring_cfg = {.buffer_count = RING, .sysfs_root = "/nonexistent"};

/* The log from entry `from` on, joined with spaces. */
char *log_str(int from, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = from; i < fake.n_log; i++) {
		strncat(buf, fake.log[i], size - strlen(buf) - 1);
		if (i + 1 < fake.n_log)
			strncat(buf, " ", size - strlen(buf) - 1);
	}
	return buf;
}
