/* The libibverbs calls verbs.h inlines, behind one function table that unit tests replace (built
 * with libibverbs). */
#ifndef RT_VERBS_OPS_H
#define RT_VERBS_OPS_H

#include <infiniband/verbs.h>
#include <time.h>

/*
 * The exported libibverbs functions (ibv_open_device, ibv_alloc_pd,
 * ibv_reg_mr, ibv_create_cq, ...) are called directly and tests wrap them
 * at link time (-Wl,--wrap=...). Those verbs.h implements inline through
 * the provider's context ops cannot be wrapped so: the verbs sniffer
 * (capture/) and the verbs traffic backend (traffic/) call them through
 * this one table, and tests swap in their own entries.
 */
struct rt_verbs_ops {
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
	int (*query_device_ex)(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
	                       struct ibv_device_attr_ex *attr);
	int (*query_rt_values_ex)(struct ibv_context *ctx, struct ibv_values_ex *values);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *ctx,
	                                  struct ibv_cq_init_attr_ex *attr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
	int (*poll_cq)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp, struct ibv_flow_attr *attr);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*start_poll)(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr);
	int (*next_poll)(struct ibv_cq_ex *cq);
	void (*end_poll)(struct ibv_cq_ex *cq);
	uint32_t (*wc_read_byte_len)(struct ibv_cq_ex *cq);
	uint64_t (*wc_read_completion_ts)(struct ibv_cq_ex *cq);
	uint64_t (*wc_read_completion_wallclock_ns)(struct ibv_cq_ex *cq);
	int (*clock_gettime)(clockid_t clk, struct timespec *ts);
};

/* The table the verbs code calls through (the real libibverbs by default). */
extern struct rt_verbs_ops rt_verbs_ops;
/* The real libibverbs entries, to restore rt_verbs_ops. */
extern const struct rt_verbs_ops rt_verbs_ops_default;

#endif
