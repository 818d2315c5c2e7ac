/* rocetrace doctor: is this host ready for lossless RoCE? Checks per RDMA port and netdev, their verdicts, text and JSON. */
#ifndef RT_DOCTOR_H
#define RT_DOCTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/sysfs.h"  /* RT_DEVNAME_MAX */
#include "common/errbuf.h" /* RT_ERRBUF_SIZE */

#define RT_DOC_DEFAULT_PRIORITY 3
#define RT_DOC_DEFAULT_DSCP     26
#define RT_DOC_DEFAULT_MTU      4096
#define RT_DOC_MAX_CHECKS       40
#define RT_DOC_MAX_NOTES        8

/* What the user expects of the host, and where to read it. */
struct rt_doctor_config {
	const char
	    *sysfs_root; /* replaces /sys (class/, kernel/config, kernel/debug); NULL = /sys */
	const char *tools_dir; /* dcb, mlnx_qos, lldptool are looked up here instead of $PATH */
	unsigned priority;     /* the RoCE priority (PFC, ECN), 0..7 */
	unsigned dscp;         /* the DSCP RoCE data carries, 0..63 */
	unsigned min_mtu;      /* the RoCE path MTU required: 1024, 2048 or 4096 */
	uint64_t speed_bps;    /* the link speed required; 0 = any */
	uint64_t
	    interval_ns; /* between the two counter samples; 0 = one sample, movement unchecked */
	uint64_t traffic_ns; /* --traffic: capture this long per target; 0 = no capture */
	const char
	    *capture_from; /* capture from this device, netdev or file instead of the target's */
	uint64_t tool_timeout_ns;   /* each external tool; 0 = 10 s */
	uint64_t tools_deadline_ns; /* no tool runs past this (CLOCK_MONOTONIC); 0 = none */
	bool dcb_netlink; /* ask the kernel over DCB netlink before the tools (default true) */
};

void rt_doctor_config_init(struct rt_doctor_config *cfg);

enum rt_doc_status {
	RT_DOC_PASS = 0,
	RT_DOC_WARN,
	RT_DOC_FAIL,
	RT_DOC_UNCHECKED, /* could not check: the fact was unreadable or absent */
};

/* "pass", "warn", "fail", "unchecked" (the JSON status strings) */
const char *rt_doc_status_name(enum rt_doc_status s);
/* the inverse; -1 for an unknown string */
int rt_doc_status_parse(const char *s);

/* One verdict. `name` is stable ("mtu", "ecn.np"); docs/DOCTOR.md lists them. */
struct rt_doc_check {
	const char *name;
	enum rt_doc_status status;
	char value[320];    /* what was found ("could not check: WHY" when unchecked) */
	char expected[192]; /* what it should be; may be empty */
	char fix[448];      /* the command or step that fixes it; empty when nothing to fix */
	char note[448];     /* what it means; may be empty */
};

/* A target's settings that must agree on every host of a cluster (doctor --hosts compares them). */
struct rt_doc_settings {
	int64_t mtu;                 /* the netdev MTU; -1: unknown */
	const char *trust;           /* "dscp", "pcp"; NULL: unknown */
	int pfc;                     /* bit p: PFC on priority p; -1: unknown */
	bool dscp2prio_known;        /* the DSCP -> priority map */
	int8_t dscp2prio[64];        /* -1: no entry */
	int cnp_dscp, cnp_prio;      /* -1: unknown */
	int8_t ecn_np[8], ecn_rp[8]; /* per priority: 1 on, 0 off, -1 unknown */
};

/* One RDMA port and its netdev, or a netdev without an RDMA port. */
struct rt_doc_target {
	char dev[RT_DEVNAME_MAX]; /* RDMA device, empty for a netdev-only target */
	unsigned port;
	char netdev[RT_DEVNAME_MAX]; /* empty when the port has none */
	int gid_index;               /* GID index for perftest -x / NCCL_IB_GID_INDEX, -1 = none */
	struct rt_doc_settings settings;
	unsigned nchecks;
	struct rt_doc_check checks[RT_DOC_MAX_CHECKS];
};

struct rt_doc_report {
	char host[256];
	unsigned priority, dscp;
	unsigned ntargets;
	struct rt_doc_target *targets;
	unsigned nnotes;
	char notes[RT_DOC_MAX_NOTES][256]; /* host-wide remarks ("no RDMA device ...") */
	unsigned counts[4];                /* per rt_doc_status, over every check */
};

/*
 * Check what the user named (`names`: "DEV", "DEV:PORT" or a netdev; none:
 * every RDMA port, or every Ethernet netdev when there is no RDMA device).
 * Fills *report (free with rt_doctor_report_free). Returns 0, or a negative
 * errno with errbuf set when a name is neither an RDMA device nor a netdev
 * (-ENODEV) or memory runs out.
 */
int rt_doctor_run(const struct rt_doctor_config *cfg, char *const *names, int nnames,
                  struct rt_doc_report *report, char *errbuf);
void rt_doctor_report_free(struct rt_doc_report *report);

/* The worst status of the report: FAIL when any check failed, else WARN, else PASS. */
enum rt_doc_status rt_doctor_verdict(const struct rt_doc_report *report);

/* Human-readable report; `color` adds ANSI colours to the status words, `verbose` the meaning of passing checks. Returns 0 or -errno. */
int rt_doctor_print_text(const struct rt_doc_report *report, FILE *fp, bool color, bool verbose);
/* One JSON object on one line (docs/DOCTOR.md). Returns 0 or -errno. */
int rt_doctor_print_json(const struct rt_doc_report *report, FILE *fp);

#endif
