/* The exported libibverbs calls the verbs sniffer makes, as replaced at link time (-Wl,--wrap) by its unit tests and the capture bench. */
#ifndef RT_VERBS_WRAP_H
#define RT_VERBS_WRAP_H

#include <stddef.h>

#include <infiniband/verbs.h>

/*
 * A program linked with -Wl,--wrap=ibv_NAME for each of these defines
 * __wrap_ibv_NAME; the sniffer's calls to ibv_NAME then land there. The
 * inline verbs calls go through struct rt_verbs_ops (common/verbs_ops.h).
 */
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

#endif
