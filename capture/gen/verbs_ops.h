/* The verbs calls of the verbs backend behind a function-pointer table, so tests can replace them. */
#ifndef RT_GEN_VERBS_OPS_H
#define RT_GEN_VERBS_OPS_H

#include <infiniband/verbs.h>

/*
 * Many ibv_ calls are static inlines in verbs.h that jump through the
 * provider's context ops, so link-time wrapping cannot reach them: the verbs
 * backend calls them through this table (defaults: the real calls), and unit
 * tests swap in their own. The RDMA CM calls are real exported functions and
 * are wrapped at link time instead (-Wl,--wrap=rdma_...).
 */
struct rt_verbs_ops {
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
	int (*poll_cq)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	const char *(*device_name)(struct ibv_context *ctx);
};

extern struct rt_verbs_ops rt_verbs_ops;

#endif
