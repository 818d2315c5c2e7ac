/* One finding as a rule writes it (its code, summary, fix, subjects, evidence), the lookups the rules share, the rules. */
#ifndef RT_ANALYZE_FINDING_H
#define RT_ANALYZE_FINDING_H

#include "analyze/results.h"

/* A host: an IP (IPv4 in the first 4 bytes). */
struct an_fd_ip {
	uint8_t ipver;
	uint8_t ip[16];
};

/* The findings so far, and the view's hosts: each flow's source and destination as an index. */
struct an_fd {
	const struct rt_results *r;
	struct rt_finding *f;
	unsigned n, max;
	int err; /* -ENOMEM: a rule ran out of memory */
	uint32_t nhosts;
	const struct an_fd_ip *host; /* by index, in the order the flows first name them */
	const uint32_t *src, *dst;   /* by flow id */
};

/* A new finding of `code` (NULL when the list is full: the rule says no more). */
struct rt_finding *an_fd_add(struct an_fd *l, const char *code, enum rt_severity sev,
                             const char *confidence);
__attribute__((format(printf, 2, 3))) void an_fd_summary(struct rt_finding *f, const char *fmt,
                                                         ...);
/* The fix: what to change, then the `rocetrace doctor` check(s) that confirm it (NULL: none does). */
__attribute__((format(printf, 3, 4))) void an_fd_fix(struct rt_finding *f, const char *check,
                                                     const char *fmt, ...);
/* Subjects (a name given twice is named once; beyond RT_FINDING_NAMES, not named). */
void an_fd_host(struct rt_finding *f, uint8_t ipver, const uint8_t ip[16]);
void an_fd_mac(struct rt_finding *f, const uint8_t mac[6]);
/* A flow the selectors left out is not named, only counted: a finding about flows, none of them
 * selected, is left out of the findings. */
void an_fd_flow(struct rt_finding *f, const struct rt_res_flow *fl);
void an_fd_priority(struct rt_finding *f, unsigned cls);
/* Evidence: a figure each (a NaN real is written null). */
void an_fd_u64(struct rt_finding *f, const char *name, uint64_t v);
void an_fd_real(struct rt_finding *f, const char *name, double v);
void an_fd_bool(struct rt_finding *f, const char *name, bool v);
void an_fd_null(struct rt_finding *f, const char *name);
__attribute__((format(printf, 3, 4))) void an_fd_text(struct rt_finding *f, const char *name,
                                                      const char *fmt, ...);
/* A time as two figures: NAME_ns (since the epoch) and NAME_ms (from the capture's start); NAME "start" or "first". */
void an_fd_time(struct rt_finding *f, const struct rt_results *r, const char *name, uint64_t ns);

/*
 * The hosts named, in words: "10.0.0.1", "10.0.0.1 and 10.0.0.2", "10.0.0.1
 * and 3 other hosts" (of `total`; 0: of those named, "... or more" when
 * some were not).
 */
const char *an_fd_hosts_words(const struct rt_finding *f, uint64_t total, char buf[256]);
/* The IP of a MAC's RoCE frames when it is one host's (ipver 0: none or several); NULL when unseen. */
const struct rt_res_mac *an_fd_mac_entry(const struct rt_results *r, const uint8_t mac[6]);
/* Whether IP a (version va) and IP b (version vb) are the same. */
bool an_fd_same_ip(uint8_t va, const uint8_t *a, uint8_t vb, const uint8_t *b);
/* The view's warning of `code` (analyze/README.md, "Warnings"), or NULL. */
const struct rt_an_warning *an_fd_warning(const struct rt_results *r, const char *code);
/* The number `name` of warning w (0 when it has none). */
uint64_t an_fd_warning_value(const struct rt_an_warning *w, const char *name);
/* A data flow: requests seen, not RDMA CM's QP 1. */
bool an_fd_data_flow(const struct rt_res_flow *f);
/* The priority a data flow rides: its PCP when tagged, else its DSCP / 8 (*by_dscp set). */
unsigned an_fd_flow_priority(const struct rt_res_flow *f, bool *by_dscp);

/* The rules, by theme: each adds its findings to l. */
void an_fd_pfc(struct an_fd *l);        /* pfc_storm, pfc_deadlock_suspect (findings_pfc.c) */
void an_fd_priorities(struct an_fd *l); /* lossy_priority, cnp_priority (findings_prio.c) */
void an_fd_ecn(struct an_fd *l);        /* np_silent, rp_deaf, slow_np, slow_rp, ecn_off */
void an_fd_transport(struct an_fd *l);  /* ack_timeout, rnr, nak_storm, loss */
void an_fd_paths(struct an_fd *l);      /* mtu_mismatch, ecmp_collapse (findings_paths.c) */
void an_fd_capture(struct an_fd *l);    /* capture_* (findings.c) */

#endif
