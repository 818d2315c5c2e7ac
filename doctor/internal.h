/* Internals of doctor/ (not for use outside it): what the check files share to write verdicts. */
#ifndef RT_DOCTOR_INTERNAL_H
#define RT_DOCTOR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "doctor/facts.h"

#define SYS "/sys" /* fixes name the real paths, whatever --sysfs-root was */

/* The verdict writers (verdict.c). */

/* vsnprintf into dst[size]; VALUE, EXPECTED, FIX and NOTE fill those texts of check c. */
__attribute__((format(printf, 3, 4))) void rt_doc_put(char *dst, size_t size, const char *fmt, ...);
#define VALUE(c, ...)    rt_doc_put((c)->value, sizeof((c)->value), __VA_ARGS__)
#define EXPECTED(c, ...) rt_doc_put((c)->expected, sizeof((c)->expected), __VA_ARGS__)
#define FIX(c, ...)      rt_doc_put((c)->fix, sizeof((c)->fix), __VA_ARGS__)
#define NOTE(c, ...)     rt_doc_put((c)->note, sizeof((c)->note), __VA_ARGS__)

/* A new check of t, the rest empty (past RT_DOC_MAX_CHECKS: a scratch one). */
struct rt_doc_check *rt_doc_add(struct rt_doc_target *t, const char *name, enum rt_doc_status st);
/* A new RT_DOC_UNCHECKED check whose value says why it could not be checked. */
struct rt_doc_check *rt_doc_unchecked(struct rt_doc_target *t, const char *name, const char *why);
/* The priorities set in mask: "3,4" or "none". Returns buf. */
const char *rt_doc_prio_list(uint8_t mask, char *buf, size_t size);
/* The netdev's name for fixes that name its sysfs path ("NETDEV" when there is none). */
const char *rt_doc_sysfs_dev(const struct rt_doc_facts *f);

/* The checks by area, in the order rt_doc_judge runs them. */
/* link.*, mtu, gid.* (checks_port.c) */
void rt_doc_judge_port(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                       struct rt_doc_target *t);
/* ecn.*, pfc.*, rdma_cm.* (checks_qos.c) */
void rt_doc_judge_qos(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                      struct rt_doc_target *t);
/* counters.*, traffic.* (checks_counters.c) */
void rt_doc_judge_counters(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                           struct rt_doc_target *t);

#endif
