/* doctor --prolog: a check fit for a scheduler's prolog, under 2 s, silent when the host is ready,
 * one line naming the failed checks when it is not. */
#ifndef RT_DOCTOR_PROLOG_H
#define RT_DOCTOR_PROLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "doctor/doctor.h"

#define RT_DOC_PROLOG_INTERVAL_NS 100000000ull  /* the counters, sampled briefly */
#define RT_DOC_PROLOG_BUDGET_NS   1200000000ull /* the tools and the counters together */

/*
 * cfg for a prolog: the counters sampled RT_DOC_PROLOG_INTERVAL_NS apart
 * unless `interval_given`, and the tools (dcb, mlnx_qos, lldptool) given
 * what is left of RT_DOC_PROLOG_BUDGET_NS from now.
 */
void rt_doctor_prolog_config(struct rt_doctor_config *cfg, bool interval_given);

/*
 * Nothing when the host is ready, else one line on fp: "rocetrace doctor:
 * not ready: mlx5_0:1 mtu, ecn.np; mlx5_1:1 link.state" (the failed checks
 * of each target), or "... not ready: no RDMA port" when none was checked.
 * Returns true when ready.
 */
bool rt_doctor_print_prolog(const struct rt_doc_report *r, FILE *fp);

#endif
