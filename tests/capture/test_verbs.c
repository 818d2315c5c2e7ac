/* Unit tests of the verbs sniffer with libibverbs wrapped at link time. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/internal.h"
#include "common/verbs_ops.h"

/* ---- the fake NIC ---------------------------------------------------------- */

#define MAX_LOG 256
#define RING    64
#define T0_REAL 1700000000000000000ull /* fake CLOCK_REALTIME, ns */

struct completion {
	uint64_t wr_id;
	enum ibv_wc_status status;
	uint32_t len;
	uint64_t ts;   /* wall-clock ns or raw cycles, per mode */
	uint8_t byte0; /* first byte written into the buffer */
};

static struct {
	const char *log[MAX_LOG];
	int n_log;
	const char *fail_step; /* the step that fails, or NULL */
	int fail_errno;
	/* timestamp support of the fake device */
	bool wallclock, rawclock;
	uint64_t khz, raw_now;
	/* what the source asked for */
	uint64_t cq_flags[4];
	int n_cq;
	struct ibv_qp_init_attr qp_attr;
	struct ibv_qp_attr modify[2];
	int modify_mask[2];
	int n_modify;
	struct ibv_flow_attr flow_attr;
	int flow_calls;
	/* receive buffers the NIC owns: address per wr_id, and post history */
	uint64_t buf_addr[RING];
	uint32_t buf_len[RING];
	bool owned[RING];
	uint64_t last_posted[RING];
	int n_last_posted;
	/* completions to deliver */
	struct completion cq[RING * 2];
	int cq_head, cq_tail;
	struct completion cur;
	uint64_t mono_ns;
	/* after the queue: this many more completions, each in a buffer the NIC owns, first byte 3 */
	int endless_left;
} fake;

static struct ibv_device fake_dev;
static struct ibv_context fake_ctx;
static struct ibv_pd fake_pd;
static struct ibv_mr fake_mr;
static struct ibv_qp fake_qp;
static struct ibv_cq_ex fake_cq;
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

/* Exported libibverbs functions, wrapped with -Wl,--wrap. */
struct ibv_device **__wrap_ibv_get_device_list(int *n);
void __wrap_ibv_free_device_list(struct ibv_device **list);
const char *__wrap_ibv_get_device_name(struct ibv_device *dev);
struct ibv_context *__wrap_ibv_open_device(struct ibv_device *dev);
int __wrap_ibv_close_device(struct ibv_context *ctx);
struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx);
int __wrap_ibv_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access);
int __wrap_ibv_dereg_mr(struct ibv_mr *mr);
struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int __wrap_ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int __wrap_ibv_destroy_qp(struct ibv_qp *qp);
int __wrap_ibv_destroy_cq(struct ibv_cq *cq);

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

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.wallclock = true;
	fake.rawclock = true;
	fake.khz = 156250; /* 156.25 MHz */
	rt_verbs_ops = fake_ops;
	return 0;
}

static int teardown_api(void **state)
{
	(void)state;
	rt_verbs_ops = rt_verbs_ops_default;
	return 0;
}

static void queue(uint64_t wr_id, enum ibv_wc_status status, uint32_t len, uint64_t ts)
{
	fake.cq[fake.cq_tail++] = (struct completion){wr_id, status, len, ts, (uint8_t)wr_id};
}

static int open_src(struct rt_source *src, const struct rt_source_config *cfg, char *errbuf)
{
	memset(src, 0, sizeof(*src));
	src->ops = &rt_source_verbs_ops;
	snprintf(src->name, sizeof(src->name), "mock0:1");
	return rt_source_verbs_ops.open(src, "mock0:1", cfg, errbuf);
}

static const struct rt_source_config ring_cfg = {.buffer_count = RING,
                                                 .sysfs_root = "/nonexistent"};

/* The log from entry `from` on, joined with spaces. */
static char *log_str(int from, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = from; i < fake.n_log; i++) {
		strncat(buf, fake.log[i], size - strlen(buf) - 1);
		if (i + 1 < fake.n_log)
			strncat(buf, " ", size - strlen(buf) - 1);
	}
	return buf;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_open_sequence_and_attributes(void **state)
{
	(void)state;
	struct rt_source src;
	char errbuf[RT_ERRBUF_SIZE], buf[1024];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	assert_string_equal(
	    log_str(0, buf, sizeof(buf)),
	    "get_device_list open_device free_device_list query_port alloc_pd create_cq_ex "
	    "reg_mr create_qp modify_qp_init post_recv modify_qp_rtr create_flow");
	/* raw packet QP on the one CQ, a receive queue as big as the ring */
	assert_int_equal(fake.qp_attr.qp_type, IBV_QPT_RAW_PACKET);
	assert_int_equal(fake.qp_attr.cap.max_recv_wr, RING);
	assert_ptr_equal(fake.qp_attr.recv_cq, ibv_cq_ex_to_cq(&fake_cq));
	/* INIT on port 1, then RTR */
	assert_int_equal(fake.modify[0].qp_state, IBV_QPS_INIT);
	assert_int_equal(fake.modify[0].port_num, 1);
	assert_int_equal(fake.modify_mask[0], IBV_QP_STATE | IBV_QP_PORT);
	assert_int_equal(fake.modify[1].qp_state, IBV_QPS_RTR);
	assert_int_equal(fake.modify_mask[1], IBV_QP_STATE);
	/* every buffer posted before RTR, in one call */
	assert_int_equal(fake.n_last_posted, RING);
	/* the sniffer flow: no specs, on the port */
	assert_int_equal(fake.flow_calls, 1);
	assert_int_equal(fake.flow_attr.type, IBV_FLOW_ATTR_SNIFFER);
	assert_int_equal(fake.flow_attr.num_of_specs, 0);
	assert_int_equal(fake.flow_attr.port, 1);
	assert_int_equal(fake.flow_attr.size, sizeof(struct ibv_flow_attr));
	/* wall-clock completion timestamps asked for first */
	assert_true(fake.cq_flags[0] & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	assert_int_equal(src.ts_source, RT_TS_HW_WALLCLOCK);
	assert_int_equal(src.linktype, RT_LINK_ETHERNET);

	int mark = fake.n_log;
	rt_source_verbs_ops.close(&src);
	assert_string_equal(log_str(mark, buf, sizeof(buf)),
	                    "destroy_flow destroy_qp destroy_cq dereg_mr dealloc_pd close_device");
	assert_null(src.priv);
}

static void test_port_two(void **state)
{
	(void)state;
	struct rt_source src = {.ops = &rt_source_verbs_ops};
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_source_verbs_ops.open(&src, "mock0:2", &ring_cfg, errbuf), 0);
	assert_int_equal(fake.modify[0].port_num, 2);
	assert_int_equal(fake.flow_attr.port, 2);
	rt_source_verbs_ops.close(&src);
	setup(NULL);
	assert_int_equal(rt_source_verbs_ops.open(&src, "mock0:3", &ring_cfg, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "port 3"));
	setup(NULL);
	assert_int_equal(rt_source_verbs_ops.open(&src, "mock0:x", &ring_cfg, errbuf), -EINVAL);
	setup(NULL);
	assert_int_equal(rt_source_verbs_ops.open(&src, "nosuch0", &ring_cfg, errbuf), -ENODEV);
	assert_non_null(strstr(errbuf, "nosuch0"));
}

/* Fail at each step in turn: what was created is released, in order, and nothing else. */
static void test_teardown_on_every_failure(void **state)
{
	(void)state;
	static const struct {
		const char *step;
		const char *released;
	} cases[] = {
	    {"get_device_list", ""},
	    {"open_device", ""},
	    {"query_port", "close_device"},
	    {"alloc_pd", "close_device"},
	    {"create_cq_ex", "dealloc_pd close_device"},
	    {"reg_mr", "destroy_cq dealloc_pd close_device"},
	    {"create_qp", "destroy_cq dereg_mr dealloc_pd close_device"},
	    {"modify_qp_init", "destroy_qp destroy_cq dereg_mr dealloc_pd close_device"},
	    {"post_recv", "destroy_qp destroy_cq dereg_mr dealloc_pd close_device"},
	    {"modify_qp_rtr", "destroy_qp destroy_cq dereg_mr dealloc_pd close_device"},
	    {"create_flow", "destroy_qp destroy_cq dereg_mr dealloc_pd close_device"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rt_source src;
		char errbuf[RT_ERRBUF_SIZE] = "", buf[1024];
		setup(NULL);
		fake.fail_step = cases[i].step;
		fake.fail_errno = EIO;
		assert_true(open_src(&src, &ring_cfg, errbuf) < 0);
		assert_true(strlen(errbuf) > 0);
		assert_null(src.priv);
		/* the log after the failing step holds the releases only */
		int at = -1;
		for (int k = 0; k < fake.n_log; k++)
			if (strcmp(fake.log[k], cases[i].step) == 0)
				at = k;
		assert_true(at >= 0);
		log_str(at + 1, buf, sizeof(buf));
		/* the device list is freed right after it is searched */
		const char *rest =
		    strncmp(buf, "free_device_list", 16) == 0 ? buf + 16 + (buf[16] == ' ') : buf;
		if (strcmp(rest, cases[i].released) != 0)
			fail_msg("failing %s released '%s', expected '%s'", cases[i].step, rest,
			         cases[i].released);
	}
}

static void test_error_messages(void **state)
{
	(void)state;
	struct rt_source src;
	char errbuf[RT_ERRBUF_SIZE];
	fake.fail_step = "create_qp";
	fake.fail_errno = EPERM;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), -EPERM);
	assert_non_null(strstr(errbuf, "needs CAP_NET_RAW (run as root or grant the capability)"));

	setup(NULL);
	fake.fail_step = "create_flow";
	fake.fail_errno = EOPNOTSUPP;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), -EOPNOTSUPP);
	assert_non_null(strstr(errbuf, "no sniffer"));

	setup(NULL);
	fake.fail_step = "create_flow";
	fake.fail_errno = EPERM;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), -EPERM);
	assert_non_null(strstr(errbuf, "CAP_NET_RAW"));

	setup(NULL);
	fake.fail_step = "reg_mr";
	fake.fail_errno = ENOMEM;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), -ENOMEM);
	assert_non_null(strstr(errbuf, "ulimit -l"));

	setup(NULL);
	struct rt_source_config small = ring_cfg;
	small.buffer_count = 8;
	assert_int_equal(open_src(&src, &small, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "-B"));
}

static void test_error_completion_reposts_and_counts(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[8];
	struct rt_source_stats st;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	queue(5, IBV_WC_GENERAL_ERR, 0, 0);
	queue(6, IBV_WC_SUCCESS, 100, T0_REAL + 42);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 8, errbuf), 1);
	assert_int_equal(frames[0].caplen, 100);
	assert_int_equal(frames[0].wirelen, 100);
	assert_int_equal(frames[0].data[0], 6); /* slot 6's buffer */
	assert_int_equal(frames[0].ts_ns, T0_REAL + 42);
	assert_false(fake.owned[5]);
	assert_false(fake.owned[6]);
	assert_int_equal(rt_source_verbs_ops.stats(&src, &st, errbuf), 0);
	assert_int_equal(st.received, 1);
	assert_int_equal(st.dropped, 1);
	/* the next call gives both buffers back, the failed one included */
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 8, errbuf), -EAGAIN);
	assert_true(fake.owned[5]);
	assert_true(fake.owned[6]);
	assert_int_equal(fake.n_last_posted, 2);
	assert_int_equal(fake.last_posted[0], 5);
	assert_int_equal(fake.last_posted[1], 6);
	rt_source_verbs_ops.close(&src);
}

static void test_snaplen_filter_and_batches(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_source_config cfg = ring_cfg;
	cfg.snaplen = 64;
	cfg.bpf = "ether[0] != 3";
	assert_int_equal(open_src(&src, &cfg, errbuf), 0);
	assert_int_equal(src.snaplen, 64);
	for (uint64_t i = 0; i < 6; i++)
		queue(i, IBV_WC_SUCCESS, 1000, T0_REAL + i);
	/* frame 3 is filtered out; batches are limited by the caller's array */
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), 4);
	assert_int_equal(frames[0].data[0], 0);
	assert_int_equal(frames[3].data[0], 4);
	assert_int_equal(frames[3].caplen, 64);
	assert_int_equal(frames[3].wirelen, 1000);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), 1);
	assert_int_equal(frames[0].data[0], 5);
	/* the 5 buffers of the first call came back, the filtered one too */
	assert_int_equal(fake.n_last_posted, 5);
	rt_source_verbs_ops.close(&src);
}

static void test_ring_empty_counts_a_drop(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[RT_VERBS_POLL_BATCH];
	struct rt_source_stats st;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	for (uint64_t i = 0; i < RING; i++)
		queue(i, IBV_WC_SUCCESS, 60, T0_REAL);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, RT_VERBS_POLL_BATCH, errbuf), RING);
	rt_source_verbs_ops.stats(&src, &st, errbuf);
	assert_int_equal(st.ring_empty, 1);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.received, RING);
	rt_source_verbs_ops.close(&src);
}

static void test_timestamp_raw_clock(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	char errbuf[RT_ERRBUF_SIZE];
	fake.wallclock = false;
	fake.raw_now = 1000000;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	assert_int_equal(src.ts_source, RT_TS_HW_RAW);
	assert_int_equal(fake.n_cq, 2);
	assert_true(fake.cq_flags[1] & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	assert_false(fake.cq_flags[1] & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	/* 156.25 MHz: 156250000 cycles = 1 s, 15625 cycles = 100 us */
	queue(0, IBV_WC_SUCCESS, 60, 1000000 + 156250000ull);
	queue(1, IBV_WC_SUCCESS, 60, 1000000 + 15625);
	queue(2, IBV_WC_SUCCESS, 60, 1000000 - 15625);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), 3);
	assert_int_equal(frames[0].ts_ns, T0_REAL + 1000000000ull);
	assert_int_equal(frames[1].ts_ns, T0_REAL + 100000ull);
	assert_int_equal(frames[2].ts_ns, T0_REAL - 100000ull);
	rt_source_verbs_ops.close(&src);
	/* the conversion itself: hours of cycles at 1 GHz do not overflow */
	assert_int_equal(rt_verbs_cycles_to_ns(3600ull * 1000000000u * 24, 1000000),
	                 3600ull * 1000000000u * 24);
	assert_int_equal(rt_verbs_cycles_to_ns(3, 1000), 3000); /* 3 cycles at 1 MHz */
}

static void test_timestamp_system_clock(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	char errbuf[RT_ERRBUF_SIZE];
	fake.wallclock = false;
	fake.rawclock = false;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	assert_int_equal(src.ts_source, RT_TS_SOFTWARE);
	assert_int_equal(fake.n_cq, 2);
	assert_int_equal(fake.cq_flags[1], IBV_WC_EX_WITH_BYTE_LEN);
	queue(0, IBV_WC_SUCCESS, 60, 777);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), 1);
	assert_int_equal(frames[0].ts_ns, T0_REAL);
	rt_source_verbs_ops.close(&src);
}

static void test_break_and_timeout(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	rt_source_verbs_ops.breakloop(&src);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), -EINTR);
	uint64_t before = fake.mono_ns;
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), -EAGAIN);
	/* waited about the 100 ms default */
	assert_true(fake.mono_ns - before >= 100000000u);
	assert_true(fake.mono_ns - before <= 200000000u);
	rt_source_verbs_ops.close(&src);
}

/*
 * A flush completion means the QP went to the error state: the frames before
 * it are delivered, then an error, instead of re-posting into a dead queue
 * (which only flushes again) for ever.
 */
static void test_flushed_queue_is_an_error(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[8];
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	queue(1, IBV_WC_SUCCESS, 100, T0_REAL);
	queue(2, IBV_WC_WR_FLUSH_ERR, 0, 0);
	queue(3, IBV_WC_WR_FLUSH_ERR, 0, 0);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 8, errbuf), 1);
	assert_int_equal(frames[0].data[0], 1);
	int post_calls = fake.n_log;
	errbuf[0] = '\0';
	int rc = rt_source_verbs_ops.next(&src, frames, 8, errbuf);
	assert_true(rc < 0 && rc != -EAGAIN && rc != -EINTR);
	assert_non_null(strstr(errbuf, "mock0:1"));
	assert_non_null(strstr(errbuf, "error state"));
	assert_int_equal(fake.n_log, post_calls);
	assert_false(fake.owned[2]); /* not handed back to the dead queue */
	rt_source_verbs_ops.close(&src);
}

/* A busy port whose every frame the filter drops still returns at the timeout (-EAGAIN). */
static void test_filtered_stream_keeps_the_timeout(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	struct rt_source_stats st;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_source_config cfg = ring_cfg;
	cfg.bpf = "ether[0] != 3";
	assert_int_equal(open_src(&src, &cfg, errbuf), 0);
	fake.endless_left = 1000000;
	uint64_t before = fake.mono_ns;
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), -EAGAIN);
	assert_true(fake.endless_left > 0); /* returned while filtered frames kept coming */
	assert_true(fake.mono_ns - before >= 100000000u);
	assert_true(fake.mono_ns - before <= 200000000u);
	assert_int_equal(rt_source_verbs_ops.stats(&src, &st, errbuf), 0);
	assert_int_equal(st.received, 0);
	rt_source_verbs_ops.close(&src);
}

static void test_registry_claims_rdma_names(void **state)
{
	(void)state;
	char root[] = "/tmp/rt-verbs-test-XXXXXX", path[512];
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/class", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/class/infiniband/mock0", root);
	assert_int_equal(mkdir(path, 0755), 0);
	struct rt_source_config cfg = ring_cfg;
	cfg.sysfs_root = root;
	assert_true(rt_source_verbs_ops.is_ours("mock0", &cfg));
	assert_true(rt_source_verbs_ops.is_ours("mock0:2", &cfg));
	assert_false(rt_source_verbs_ops.is_ours("eth0", &cfg));
	assert_false(rt_source_verbs_ops.is_ours("../mock0", &cfg));
	struct rt_source *src = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_source_open(&src, "mock0:1", &cfg, errbuf), 0);
	assert_string_equal(src->ops->kind, "verbs");
	rt_source_close(src);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class", root);
	rmdir(path);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_open_sequence_and_attributes, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_port_two, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_teardown_on_every_failure, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_error_messages, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_error_completion_reposts_and_counts, setup,
	                                    teardown_api),
	    cmocka_unit_test_setup_teardown(test_snaplen_filter_and_batches, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_ring_empty_counts_a_drop, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_timestamp_raw_clock, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_timestamp_system_clock, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_break_and_timeout, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_filtered_stream_keeps_the_timeout, setup,
	                                    teardown_api),
	    cmocka_unit_test_setup_teardown(test_flushed_queue_is_an_error, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_registry_claims_rdma_names, setup, teardown_api),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
