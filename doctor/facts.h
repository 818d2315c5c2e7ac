/* The facts doctor judges, per target: read from sysfs, DCB netlink, external tools and a short capture (or built by hand in tests). */
#ifndef RT_DOCTOR_FACTS_H
#define RT_DOCTOR_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doctor/doctor.h"

#define RT_DOC_WHY          240 /* "why unknown" texts */
#define RT_DOC_MAX_GIDS     256
#define RT_DOC_MAX_ADDRS    32
#define RT_DOC_MAX_COUNTERS 16
#define RT_DOC_MAX_ETH      20

/* A fact that may be unknown; `why` says why when it is. */
struct rt_doc_str {
	bool known;
	char v[96];
	char why[RT_DOC_WHY];
};
struct rt_doc_int {
	bool known;
	int64_t v;
	char why[RT_DOC_WHY];
};

enum rt_doc_gid_type { RT_GID_UNKNOWN = 0, RT_GID_ROCE_V1, RT_GID_ROCE_V2 };

struct rt_doc_gid {
	unsigned index;
	uint8_t gid[16];
	enum rt_doc_gid_type type;
	char ndev[RT_DEVNAME_MAX]; /* the netdev the GID belongs to (a VLAN, a macvlan...) */
};

struct rt_doc_addr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	unsigned prefix;
};

enum rt_doc_trust { RT_TRUST_UNKNOWN = 0, RT_TRUST_PCP, RT_TRUST_DSCP };

/* PFC, trust and the DSCP map of a netdev, and the link partner's PFC, with where each came from. */
struct rt_doc_qos {
	bool pfc_known;
	uint8_t pfc_en; /* bit p = PFC on priority p */
	char pfc_source[64];
	bool trust_known;
	enum rt_doc_trust trust;
	char trust_source[96];
	bool map_known;
	int8_t dscp2prio[64]; /* -1: no entry */
	char map_source[64];
	bool peer_known;
	uint8_t peer_pfc_en;
	char peer_source[64];
	char why[600]; /* each source that did not answer, and why */
	char peer_why[300];
};

struct rt_doc_counter {
	char name[40];
	bool known;
	uint64_t first, second; /* second == first when only one sample was taken */
};

struct rt_doc_counters {
	bool sampled; /* two samples, interval_ns apart */
	uint64_t interval_ns;
	unsigned n; /* RDMA port hw_counters */
	struct rt_doc_counter c[RT_DOC_MAX_COUNTERS];
	char why[RT_DOC_WHY]; /* hw_counters/ unreadable; "" when it reads */
	unsigned neth;        /* ethtool statistics of the netdev */
	struct rt_doc_counter eth[RT_DOC_MAX_ETH];
	char eth_why[RT_DOC_WHY];
};

/* What a short capture saw. */
struct rt_doc_traffic {
	bool ran;
	char why[RT_DOC_WHY]; /* when it did not run */
	char source[160];     /* what was captured ("mlx5_0:1 (verbs sniffer)") */
	uint64_t duration_ns; /* 0: a saved capture, read whole */
	uint64_t frames, roce, cnp, pfc, pause;
	uint64_t ecn[4];         /* RoCEv2 data packets by ECN codepoint */
	uint64_t dscp[64];       /* ... by DSCP */
	uint64_t tagged, pcp[8]; /* ... VLAN-tagged, by PCP */
	uint64_t cnp_dscp[64], cnp_tagged, cnp_pcp[8];
	uint64_t pfc_xoff[8];  /* PFC frames pausing priority p */
	char not_ect_src[48];  /* a sender of Not-ECT RoCE data, for the message */
	char off_dscp_src[48]; /* a sender of RoCE data with another DSCP */
};

struct rt_doc_facts {
	/* the target */
	bool rdma; /* an RDMA port (else a netdev alone) */
	char dev[RT_DEVNAME_MAX];
	unsigned port;
	char pci[64];                /* PCI address of the device, "" when unknown */
	char netdev[RT_DEVNAME_MAX]; /* "" when the port has none */
	bool netdev_exists;
	char netdev_why[RT_DOC_WHY];

	/* RDMA port (ports/N/) */
	struct rt_doc_str state;      /* "ACTIVE" (the number stripped) */
	struct rt_doc_str phys_state; /* "LinkUp" */
	struct rt_doc_str link_layer; /* "Ethernet" */
	struct rt_doc_str rate;       /* "100 Gb/sec (4X EDR)" */
	bool gids_known;
	char gids_why[RT_DOC_WHY];
	unsigned ngids; /* non-zero GIDs only */
	struct rt_doc_gid gids[RT_DOC_MAX_GIDS];

	/* netdev (class/net/NETDEV/, addresses from the kernel) */
	struct rt_doc_str operstate;
	struct rt_doc_int mtu, speed_mbps;
	bool addrs_known;
	char addrs_why[RT_DOC_WHY];
	unsigned naddrs;
	struct rt_doc_addr addrs[RT_DOC_MAX_ADDRS];

	/* ECN / DCQCN */
	struct rt_doc_int ecn_np[8], ecn_rp[8];
	struct rt_doc_int cnp_dscp, cnp_prio;
	char cnp_source[96];

	/* QoS */
	struct rt_doc_qos qos;

	/* rdma_cm configfs */
	bool cm_configfs;           /* kernel/config/rdma_cm exists */
	bool cm_group;              /* ... and holds a group for this device */
	struct rt_doc_int roce_tos; /* ports/N/default_roce_tos */
	struct rt_doc_str roce_mode;

	struct rt_doc_counters counters;
	struct rt_doc_traffic traffic;
};

/* Copy src into dst[size], cut to fit, always NUL-terminated. */
void rt_doc_copy(char *dst, size_t size, const char *src);

/* Clear f and mark every fact unknown with `why` (tests start from here). */
void rt_doc_facts_init(struct rt_doc_facts *f, const char *why);

/* Read every static fact of the target already named in f (dev/port/rdma, netdev). */
void rt_doc_gather(const struct rt_doctor_config *cfg, struct rt_doc_facts *f);
/* Which of the two counter samples: the first sets the counters, the second their movement. */
enum rt_doc_sample_which {
	RT_DOC_SAMPLE_FIRST = 0,
	RT_DOC_SAMPLE_SECOND = 1,
};
/* Take sample `which` of the target's counters. */
void rt_doc_sample(const struct rt_doctor_config *cfg, struct rt_doc_facts *f,
                   enum rt_doc_sample_which which);
/* Capture cfg->traffic_ns from the target (or cfg->capture_from) and tally what was seen. */
void rt_doc_capture(const struct rt_doctor_config *cfg, struct rt_doc_facts *f);
/* Tally one dissected frame into t; `dscp` is the DSCP RoCE data should carry (rt_doc_capture's step, exposed for tests). */
struct rt_record;
void rt_doc_traffic_add(struct rt_doc_traffic *t, const struct rt_record *rec, unsigned dscp);

/* PFC, trust, DSCP map and peer PFC of a netdev, from every source that answers. */
void rt_doc_qos_gather(const struct rt_doctor_config *cfg, const char *netdev,
                       struct rt_doc_qos *q);

/* Judge the facts: fill t (name, gid_index, checks) from f. Pure: reads nothing else. */
void rt_doc_judge(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                  struct rt_doc_target *t);

/* The active RoCE path MTU the kernel derives from a netdev MTU (0 when below 256+headers). */
unsigned rt_doc_roce_mtu(int64_t netdev_mtu);
#define RT_DOC_ROCE_HEADERS 96 /* GRH 40 + UDP 8 + BTH 12 + XRCETH 4 + AtomicETH 28 + ICRC 4 */

/* ---- parsers of sysfs text and tool output (doctor/parse.c) ---- */

/* "4: ACTIVE" → "ACTIVE". Returns 0 or -EINVAL. */
int rt_doc_parse_state(const char *text, char *out, size_t size);
/* "100 Gb/sec (4X EDR)" → 100e9. Returns 0 or -EINVAL. */
int rt_doc_parse_rate(const char *text, uint64_t *bps);
/* "fe80:0000:...:3c4d" (8 groups of 4 hex digits) → 16 bytes. Returns 0 or -EINVAL. */
int rt_doc_parse_gid(const char *text, uint8_t gid[16]);
/* "RoCE v2", "IB/RoCE v1" → the type (RT_GID_UNKNOWN for anything else). */
enum rt_doc_gid_type rt_doc_parse_gid_type(const char *text);
/* A DSCP written as a number or a name (CS0..CS7, AF11..AF43, EF, LE). Returns 0..63 or -EINVAL. */
int rt_doc_parse_dscp(const char *word);

/* `dcb pfc show dev X`: the prio-pfc map. Returns 0 or -EINVAL when there is none. */
int rt_doc_parse_dcb_pfc(const char *text, uint8_t *pfc_en);
/* `dcb [-N] app show dev X dscp-prio`: the DSCP entries into map (-1 elsewhere). Returns the entry count or -EINVAL. */
int rt_doc_parse_dcb_app(const char *text, int8_t map[64]);
/*
 * `mlnx_qos -i X`: trust state, dscp2prio mapping and the PFC "enabled" row into q
 * (pfc_known, trust_known, map_known set for what was found). Returns 0, or
 * -EINVAL when the output holds none of them.
 */
int rt_doc_parse_mlnx_qos(const char *text, struct rt_doc_qos *q);
/* `lldptool -t [-n] -i X -V PFC`: the "PFC enabled:" list. Returns 0 or -EINVAL. */
int rt_doc_parse_lldptool_pfc(const char *text, uint8_t *pfc_en);
/* The DSCP map of a sysfs qos/dscp2prio file (one "DSCP PRIO" pair a line, a header line). Returns the pair count or -EINVAL. */
int rt_doc_parse_dscp2prio_file(const char *text, int8_t map[64]);

/* ---- DCB netlink (doctor/dcbnl.c) ---- */

/*
 * Ask the kernel for the IEEE DCB state of `netdev` (RTM_GETDCB,
 * DCB_CMD_IEEE_GET) and parse it into q. Returns 0, or a negative errno
 * (-EOPNOTSUPP: the driver has no DCB; -ENODEV: no such netdev).
 */
int rt_doc_dcbnl_query(const char *netdev, struct rt_doc_qos *q);
/* Parse one RTM_GETDCB reply (from its struct nlmsghdr on). Returns 0, the kernel's negative errno, or -EINVAL. */
int rt_doc_dcbnl_parse(const void *msg, size_t len, struct rt_doc_qos *q);

#endif
