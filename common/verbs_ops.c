/* The libibverbs calls verbs.h inlines, behind one function table that unit tests replace (built
 * with libibverbs). */
#include "common/verbs_ops.h"

static int real_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	return ibv_query_port(ctx, port, attr);
}

static int real_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
                                struct ibv_device_attr_ex *attr)
{
	return ibv_query_device_ex(ctx, in, attr);
}

static int real_query_rt_values_ex(struct ibv_context *ctx, struct ibv_values_ex *values)
{
	return ibv_query_rt_values_ex(ctx, values);
}

static struct ibv_cq_ex *real_create_cq_ex(struct ibv_context *ctx,
                                           struct ibv_cq_init_attr_ex *attr)
{
	return ibv_create_cq_ex(ctx, attr);
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

static struct ibv_flow *real_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr)
{
	return ibv_create_flow(qp, attr);
}

static int real_destroy_flow(struct ibv_flow *flow)
{
	return ibv_destroy_flow(flow);
}

static int real_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	return ibv_start_poll(cq, attr);
}

static int real_next_poll(struct ibv_cq_ex *cq)
{
	return ibv_next_poll(cq);
}

static void real_end_poll(struct ibv_cq_ex *cq)
{
	ibv_end_poll(cq);
}

static uint32_t real_read_byte_len(struct ibv_cq_ex *cq)
{
	return ibv_wc_read_byte_len(cq);
}

static uint64_t real_read_completion_ts(struct ibv_cq_ex *cq)
{
	return ibv_wc_read_completion_ts(cq);
}

static uint64_t real_read_wallclock_ns(struct ibv_cq_ex *cq)
{
	return ibv_wc_read_completion_wallclock_ns(cq);
}

/* The real calls: what rt_verbs_ops starts as, and what tests restore it to. */
#define REAL_VERBS_OPS                                                                             \
	{                                                                                          \
		.query_port = real_query_port, .query_device_ex = real_query_device_ex,            \
		.query_rt_values_ex = real_query_rt_values_ex, .create_cq_ex = real_create_cq_ex,  \
		.post_send = real_post_send, .post_recv = real_post_recv, .poll_cq = real_poll_cq, \
		.create_flow = real_create_flow, .destroy_flow = real_destroy_flow,                \
		.start_poll = real_start_poll, .next_poll = real_next_poll,                        \
		.end_poll = real_end_poll, .wc_read_byte_len = real_read_byte_len,                 \
		.wc_read_completion_ts = real_read_completion_ts,                                  \
		.wc_read_completion_wallclock_ns = real_read_wallclock_ns,                         \
		.clock_gettime = clock_gettime,                                                    \
	}

const struct rt_verbs_ops rt_verbs_ops_default = REAL_VERBS_OPS;
struct rt_verbs_ops rt_verbs_ops = REAL_VERBS_OPS;
