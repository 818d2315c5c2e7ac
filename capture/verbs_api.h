/* The inline libibverbs calls behind a function table that unit tests replace. */
#ifndef RT_VERBS_API_H
#define RT_VERBS_API_H

#include <infiniband/verbs.h>
#include <time.h>

/*
 * The exported libibverbs functions (ibv_open_device, ibv_alloc_pd, ...) are
 * called directly and tests wrap them at link time (-Wl,--wrap); those that
 * verbs.h implements inline through provider ops go through this table.
 */
struct rt_verbs_api {
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
	int (*query_device_ex)(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
	                       struct ibv_device_attr_ex *attr);
	int (*query_rt_values_ex)(struct ibv_context *ctx, struct ibv_values_ex *values);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *ctx,
	                                  struct ibv_cq_init_attr_ex *attr);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
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

/* The table the verbs sniffer calls through (the real libibverbs by default). */
extern struct rt_verbs_api rt_verbs_api;
/* The real libibverbs entries, to restore rt_verbs_api. */
extern const struct rt_verbs_api rt_verbs_api_default;

/* Receive ring entries when -B is not given, and the smallest accepted. */
#define RT_VERBS_DEFAULT_RING 4096u
#define RT_VERBS_MIN_RING     64u
/* Frames handed out per next() call at most (the caller's batch may be smaller). */
#define RT_VERBS_POLL_BATCH 64
/* Receive buffer size when the port's netdev MTU cannot be read (a 9000-byte MTU jumbo frame fits).
 */
#define RT_VERBS_DEFAULT_SLOT 9216u

/* Nanoseconds of a raw HCA clock delta at hca_core_clock kHz (no overflow for any delta). */
static inline uint64_t rt_verbs_cycles_to_ns(uint64_t cycles, uint64_t khz)
{
	uint64_t per_s = khz * 1000u;
	return cycles / per_s * 1000000000u + cycles % per_s * 1000000u / khz;
}

#endif
