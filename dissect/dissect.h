/* rocetrace dissector: one frame's bytes in, one packet record out (pure, no allocation). */
#ifndef RT_DISSECT_H
#define RT_DISSECT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define RT_ROCEV2_PORT 4791

/* Link types (the pcap LINKTYPE_ numbers) the dissector understands. */
enum rt_linktype {
	RT_LINK_ETHERNET = 1,
	RT_LINK_RAW = 101, /* raw IPv4/IPv6, no link header */
	RT_LINK_LINUX_SLL = 113,
	RT_LINK_IPV4 = 228, /* raw IPv4 (and IPv6: read as RT_LINK_RAW is) */
	RT_LINK_IPV6 = 229, /* raw IPv6, likewise */
	RT_LINK_LINUX_SLL2 = 276,
};

/* What a frame is, as the JSON "kind" names it. */
enum rt_kind {
	RT_KIND_OTHER = 0, /* not RoCE, not MAC control */
	RT_KIND_ROCE,      /* RoCEv2 or RoCEv1 transport packet */
	RT_KIND_CNP,       /* RoCEv2 congestion notification packet (opcode 0x81) */
	RT_KIND_PFC,       /* 802.1Qbb priority flow control */
	RT_KIND_PAUSE,     /* 802.3x PAUSE */
	RT_KIND_MALFORMED, /* breaks the spec at a layer the dissector needed */
};

/* Layers found, a bit each (rt_record.layers). */
enum rt_layer {
	RT_L_ETH = 1u << 0,
	RT_L_SLL = 1u << 1,
	RT_L_SLL2 = 1u << 2,
	RT_L_VLAN = 1u << 3, /* at least one 802.1Q/802.1ad tag */
	RT_L_QINQ = 1u << 4, /* two tags */
	RT_L_IPV4 = 1u << 5,
	RT_L_IPV6 = 1u << 6,
	RT_L_UDP = 1u << 7,
	RT_L_GRH = 1u << 8, /* RoCEv1 global route header */
	RT_L_BTH = 1u << 9,
	RT_L_MACC = 1u << 10, /* MAC control (0x8808) */
	RT_L_GRE =
	    1u << 11, /* decapsulated from GRE: the record is the inner frame, outer_* the tunnel */
	RT_L_ERSPAN =
	    1u << 12, /* ... and the GRE payload was ERSPAN (erspan_version, erspan_session) */
	RT_L_CM = 1u << 13, /* an RDMA CM MAD on QP 1 (rt_record.cm) */
	/* what a frame that is not RoCE carries (rt_record.other) */
	RT_L_TCP = 1u << 14,  /* a whole TCP header */
	RT_L_ICMP = 1u << 15, /* ICMP or ICMPv6 (ip_proto says which): type and code */
	RT_L_ARP = 1u << 16,  /* an Ethernet/IPv4 ARP packet */
	RT_L_LLC = 1u << 17,  /* an 802.3 frame (a length, no Ethertype) and its LLC header */
};

/* Extended transport headers, a bit each (rt_opcode_info.hdrs, rt_record.hdrs). */
enum rt_ext_header {
	RT_H_RDETH = 1u << 0,
	RT_H_DETH = 1u << 1,
	RT_H_XRCETH = 1u << 2,
	RT_H_RETH = 1u << 3,
	RT_H_ATOMICETH = 1u << 4,
	RT_H_AETH = 1u << 5,
	RT_H_ATOMICACKETH = 1u << 6,
	RT_H_IMMDT = 1u << 7,
	RT_H_IETH = 1u << 8,
	RT_H_FETH = 1u << 9,
	RT_H_CNP = 1u << 10, /* the 16 reserved bytes of a CNP */
};

/*
 * Named events (rt_record.events, a bit each; rt_events() lists them with
 * their name, class and layer). Truncation (the capture stopped before a
 * header ended: snaplen) and invalid input (the bytes break the spec) are
 * kept apart. A cut record carries exactly one truncation event, for
 * the header the capture ended in (ICRC_TRUNCATED when every header is
 * whole but the payload, pad or ICRC is cut: the record is not `truncated`,
 * which says a needed header was cut). Invalid input at a layer the
 * dissector needs makes the kind RT_KIND_MALFORMED; the other events
 * (fragment, unknown opcode, bad ICRC, CNP without BECN, unknown MAC
 * control opcode) leave the kind alone. Bits are never renumbered: output
 * lists events in bit order.
 */
#define RT_EV_LINK_TRUNCATED (UINT64_C(1) << 0) /* Ethernet/SLL/VLAN header cut */
#define RT_EV_IP_TRUNCATED   (UINT64_C(1) << 1) /* IPv4/IPv6/GRH header cut */
#define RT_EV_UDP_TRUNCATED  (UINT64_C(1) << 2) /* UDP header cut */
#define RT_EV_BTH_TRUNCATED  (UINT64_C(1) << 3) /* BTH cut */
#define RT_EV_EXT_TRUNCATED  (UINT64_C(1) << 4) /* an extended header cut */
#define RT_EV_MACC_TRUNCATED (UINT64_C(1) << 5) /* PFC/PAUSE body cut */
#define RT_EV_ICRC_TRUNCATED (UINT64_C(1) << 6) /* packet cut before its ICRC: not checkable */
#define RT_EV_GRE_TRUNCATED  (UINT64_C(1) << 7) /* GRE or ERSPAN header cut */
#define RT_EV_IP_BAD_VERSION (UINT64_C(1) << 8) /* IP version differs from the Ethertype */
#define RT_EV_IPV4_BAD_IHL   (UINT64_C(1) << 9) /* IHL < 5 */
#define RT_EV_IP_BAD_LENGTH                                                                        \
	(UINT64_C(1) << 10) /* IP length smaller than its header or beyond the frame */
#define RT_EV_IP_FRAGMENT         (UINT64_C(1) << 11) /* non-first or more-fragments: no transport decode */
#define RT_EV_UDP_BAD_LENGTH      (UINT64_C(1) << 12) /* UDP length < 8 or beyond the IP payload */
#define RT_EV_GRH_BAD_NEXT_HEADER (UINT64_C(1) << 13) /* RoCEv1 GRH next header is not 0x1B */
#define RT_EV_BTH_BAD_TVER        (UINT64_C(1) << 14) /* transport header version not 0 */
#define RT_EV_UNKNOWN_OPCODE      (UINT64_C(1) << 15) /* opcode not in the table */
#define RT_EV_TOO_SHORT_FOR_ICRC                                                                   \
	(UINT64_C(1) << 16) /* headers + pad + ICRC longer than the packet */
#define RT_EV_ICRC_BAD            (UINT64_C(1) << 17) /* ICRC computed differs from the stored one */
#define RT_EV_MACC_UNKNOWN_OPCODE (UINT64_C(1) << 18) /* MAC control opcode neither PFC nor PAUSE */
#define RT_EV_CNP_NOT_BECN        (UINT64_C(1) << 19) /* CNP without BECN set */
/* followed GRE: version not 0, routing present, or a header (GRE, ERSPAN, inner frame) beyond the IP packet */
#define RT_EV_GRE_BAD (UINT64_C(1) << 20)
#define RT_EV_ERSPAN_BAD_VERSION                                                                   \
	(UINT64_C(1) << 21) /* ERSPAN version not 1 (0x88BE) or 2 (0x22EB) */
/* a RoCEv2 packet behind IPv6 extension headers: the spec does not say how the ICRC covers them */
#define RT_EV_ICRC_IPV6_EXT (UINT64_C(1) << 22)
#define RT_EV_VLAN_EXTRA    (UINT64_C(1) << 23) /* more than two VLAN tags: the third on not kept */
#define RT_EV_BTH_BAD_PAD                                                                          \
	(UINT64_C(1) << 24) /* the pad count is more than the bytes between headers and ICRC */
/* the record's original (wire) length is below the bytes it holds: a capture tool's fault; the bytes count */
#define RT_EV_WIRE_SHORT (UINT64_C(1) << 25)
#define RT_EV_COUNT      26 /* bits in use: 0 .. RT_EV_COUNT-1; room up to 64 */
/* The truncation events (the rest are invalid input but for the notices: fragment, ICRC behind IPv6
 * extension headers, extra VLAN tags, a wire length below the captured one). */
#define RT_EV_TRUNCATION_MASK                                                                      \
	(RT_EV_LINK_TRUNCATED | RT_EV_IP_TRUNCATED | RT_EV_UDP_TRUNCATED | RT_EV_BTH_TRUNCATED |   \
	 RT_EV_EXT_TRUNCATED | RT_EV_MACC_TRUNCATED | RT_EV_ICRC_TRUNCATED | RT_EV_GRE_TRUNCATED)

/* What an event means. */
enum rt_event_class {
	RT_EVC_TRUNCATION, /* cut by the snap length */
	RT_EVC_INVALID,    /* breaks the spec */
	RT_EVC_NOTICE,     /* legal, but the dissector stopped there (a fragment) */
};

/* One row of the decode-event table. */
struct rt_event_info {
	uint64_t bit;
	const char *name; /* "bth_truncated", ... as the output names it */
	uint8_t cls;      /* enum rt_event_class */
	const char
	    *layer; /* where it happens: "link", "ip", "udp", "gre", "bth", "ext", "icrc", "macc" */
};

enum rt_icrc_status {
	RT_ICRC_UNCHECKED = 0, /* cut, RoCEv1, behind IPv6 extension headers, or verification off */
	RT_ICRC_OK,
	RT_ICRC_BAD,
};

/* AETH syndrome classes (bits 7..5 of the syndrome). */
enum rt_aeth_type {
	RT_AETH_ACK = 0,
	RT_AETH_RNR_NAK = 1,
	RT_AETH_RESERVED = 2,
	RT_AETH_NAK = 3,
};

/* NAK codes (low 5 bits of a NAK syndrome). */
enum rt_nak_code {
	RT_NAK_PSN_SEQ_ERROR = 0,
	RT_NAK_INVALID_REQUEST = 1,
	RT_NAK_REMOTE_ACCESS_ERROR = 2,
	RT_NAK_REMOTE_OP_ERROR = 3,
	RT_NAK_INVALID_RD_REQUEST = 4,
};

/* An AETH syndrome of class `type` with low bits `low` (credits, RNR timer or NAK code). */
#define RT_AETH_SYNDROME(type, low) ((uint8_t)((type) << 5 | ((low)&0x1F)))
/* The credit count of an ACK that does not advertise credits. */
#define RT_AETH_CREDITS_INVALID 0x1F

/* MAC control opcodes */
#define RT_MACC_PAUSE 0x0001
#define RT_MACC_PFC   0x0101

/* RDMA CM MAD attribute IDs the dissector decodes (management class 0x07 on QP 1). */
#define RT_CM_ATTR_CLASS_PORT_INFO 0x0001
#define RT_CM_ATTR_REQ             0x0010
#define RT_CM_ATTR_MRA             0x0011
#define RT_CM_ATTR_REJ             0x0012
#define RT_CM_ATTR_REP             0x0013
#define RT_CM_ATTR_RTU             0x0014
#define RT_CM_ATTR_DREQ            0x0015
#define RT_CM_ATTR_DREP            0x0016
#define RT_CM_ATTR_SIDR_REQ        0x0017
#define RT_CM_ATTR_SIDR_REP        0x0018
#define RT_CM_ATTR_LAP             0x0019
#define RT_CM_ATTR_APR             0x001A

/*
 * An RDMA CM message (rt_record.cm, valid with RT_L_CM): which one it is,
 * and what names both sides of a connection. A field is meaningful for the
 * messages its comment names (rt_cm_fields() says which, a bit each).
 */
struct rt_cm {
	uint16_t attr;  /* RT_CM_ATTR_... */
	uint8_t method; /* the MAD method (0x03 Send) */
	uint8_t msg; /* REJ: the message rejected; MRA: the one delayed (0 REQ, 1 REP, 2 other) */
	uint16_t reason;         /* REJ: why (rt_cm_reject_name()) */
	uint8_t timeout;         /* MRA: the service timeout (5 bits: 4.096 us * 2^timeout) */
	uint8_t status;          /* SIDR_REP, APR: the status */
	uint32_t local_comm_id;  /* the sender's communication ID; SIDR_REQ/REP: the request ID */
	uint32_t remote_comm_id; /* the receiver's communication ID (0 in a REQ) */
	uint32_t local_qpn;  /* REQ, REP: the sender's QP; SIDR_REP: the service's QP (24 bits) */
	uint32_t remote_qpn; /* DREQ, LAP: the receiver's QP (24 bits) */
	uint32_t start_psn;  /* REQ, REP: the sender's starting PSN */
	uint32_t qkey;       /* REQ, REP, SIDR_REP: Q_Key */
	uint64_t service_id; /* REQ, SIDR_REQ, SIDR_REP */
	uint64_t tid;        /* the MAD transaction ID */
};

/* Which fields of struct rt_cm a message carries (rt_cm_fields()). */
enum rt_cm_field {
	RT_CMF_REMOTE_COMM_ID = 1u << 0,
	RT_CMF_LOCAL_QPN = 1u << 1,
	RT_CMF_REMOTE_QPN = 1u << 2,
	RT_CMF_START_PSN = 1u << 3,
	RT_CMF_QKEY = 1u << 4,
	RT_CMF_SERVICE_ID = 1u << 5,
	RT_CMF_REJECT = 1u << 6, /* msg and reason */
	RT_CMF_MRA = 1u << 7,    /* msg and timeout */
	RT_CMF_STATUS = 1u << 8,
	RT_CMF_REQUEST_ID = 1u << 9, /* SIDR: local_comm_id is the request ID */
};

/* The fields the CM message of attribute `attr` carries (enum rt_cm_field bits). */
unsigned rt_cm_fields(uint16_t attr);
/* "REQ", "REP", "RTU", ... for a CM attribute; NULL for one the dissector does not know. */
const char *rt_cm_message_name(uint16_t attr);
/* The name of a REJ reason ("consumer_reject", ...), NULL for a reason without one. */
const char *rt_cm_reject_name(uint16_t reason);
/* "REQ", "REP" or "other": the message a REJ rejects or an MRA delays. */
const char *rt_cm_msg_name(uint8_t msg);
/* An RDMA CM service ID's port space ("tcp", "udp", "ib", "ipoib"), NULL when it is not one. */
const char *rt_cm_port_space(uint64_t service_id);

/*
 * What a frame that is not RoCE carries, when its layer bit is set:
 * TCP, ICMP/ICMPv6, ARP or the LLC header of an 802.3 frame. Ports and
 * payload of UDP are in udp_sport, udp_dport and payload_len.
 */
struct rt_other {
	union {
		struct {
			uint16_t sport, dport;
			uint32_t seq, ack;
			uint16_t window;
			uint8_t
			    flags; /* FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10, URG 0x20, ECE 0x40, CWR 0x80 */
		} tcp;
		struct {
			uint8_t type, code;
			uint16_t id, seq; /* echo request/reply */
		} icmp;
		struct {
			uint16_t op; /* 1 request, 2 reply */
			uint8_t sender_mac[6], target_mac[6];
			uint8_t sender_ip[4], target_ip[4];
		} arp;
		struct {
			uint8_t dsap, ssap;
		} llc;
	};
};

/* tcpdump's letters for TCP flags ("S", "S.", "P.", "none"), into buf (at least 9 bytes). */
const char *rt_tcp_flags_text(uint8_t flags, char *buf);
/* The name of an IP protocol / IPv6 next header ("tcp", "ospf", ...), NULL for one without. */
const char *rt_ip_proto_name(uint8_t proto);
/* The name of an Ethertype the dissector does not follow ("arp", "lldp", "ptp", ...), or NULL. */
const char *rt_ethertype_name(uint16_t ethertype);
/* The name of an ICMP (v6 false) or ICMPv6 type ("echo-request", ...), NULL for one without. */
const char *rt_icmp_type_name(uint8_t type, bool v6);

/* The tunnel a decapsulated frame came through (rt_record.encap, valid with RT_L_GRE). */
struct rt_encap {
	uint16_t
	    gre_proto; /* 0x6558 bridging, 0x88BE ERSPAN I/II, 0x22EB ERSPAN III, 0x0800/0x86DD IP */
	uint8_t erspan_version;   /* RT_L_ERSPAN: 0 type I (no header), 1 type II, 2 type III */
	uint8_t outer_ip_version; /* 4 or 6 */
	uint16_t erspan_session;  /* RT_L_ERSPAN: session id (10 bits; 0 for type I) */
	uint8_t outer_src_ip[16], outer_dst_ip[16];
};

/*
 * One captured frame, as a capture source hands it over; `data` stays
 * valid until the source's next read or its close.
 */
struct rt_frame {
	const uint8_t *data;
	uint32_t caplen;
	uint32_t wirelen;
	uint64_t ts_ns; /* nanoseconds since the Unix epoch */
	/*
	 * 1-based position in the source, counting the frames a filter skipped
	 * where the source sees them (a file: as Wireshark numbers frames).
	 */
	uint64_t seq;
	int linktype; /* pcap LINKTYPE_ of this frame (a pcapng may mix them); 0 = the source's */
	/*
	 * Where it was captured: pcapng interface (IDB) index; 0 for
	 * one-interface sources; several files: one per (vantage point,
	 * interface), capture/source.h
	 */
	uint32_t interface_id;
	uint32_t
	    file; /* a source reading several files: which one (0-based, in the order given); else 0 */
};

/* rt_record.point: no capture point known. */
#define RT_POINT_NONE UINT16_MAX

/*
 * One decoded frame. Every field is host order. Fields of a layer or header
 * are meaningful only when its bit is set in `layers` / `hdrs`.
 */
struct rt_record {
	uint64_t ts_ns;   /* the frame's timestamp (rt_dissect_buf() leaves it to the caller) */
	uint64_t events;  /* RT_EV_ bits */
	uint32_t caplen;  /* bytes captured */
	uint32_t wirelen; /* bytes on the wire */
	uint32_t interface_id; /* the frame's capture interface (rt_frame.interface_id) */
	uint32_t layers;       /* enum rt_layer bits */
	uint32_t hdrs;         /* enum rt_ext_header bits */
	uint8_t
	    kind; /* enum rt_kind (ROCE once the UDP port or Ethertype says so, even if the BTH is cut) */
	uint8_t icrc;   /* enum rt_icrc_status */
	bool truncated; /* a needed header was cut by the snap length */
	bool rocev1;    /* GRH (Ethertype 0x8915) encapsulation */
	/*
	 * The capture point it was seen at (a file, a pcapng interface, an SLL2
	 * interface index: docs/CAPTURE.md): set by the frame pump
	 * (capture/pump.h), which announces each point; RT_POINT_NONE when
	 * unknown (rt_dissect() leaves it so)
	 */
	uint16_t point;

	/* link */
	uint8_t dst_mac[6], src_mac[6];
	uint8_t nvlan;      /* 0, 1 or 2 tags */
	uint16_t vlan[2];   /* VIDs, outer first */
	uint8_t pcp[2];     /* priorities, outer first */
	uint16_t ethertype; /* innermost Ethertype (or SLL protocol) */
	uint32_t
	    sll_ifindex; /* Linux cooked v2 (RT_L_SLL2): index of the interface it was captured on */

	/*
	 * network (IPv4 addresses are in the first 4 bytes; a RoCEv1 GRH sets
	 * ip_version 6 with its GIDs as addresses, TClass as DSCP/ECN, HopLmt as ttl)
	 */
	uint8_t ip_version; /* 4, 6, or 0 */
	uint8_t dscp, ecn;
	uint8_t ttl; /* TTL or hop limit */
	/* IPv4 protocol or IPv6 next header, past IPv6 extension headers (17 for RoCEv2; 0 for a GRH) */
	uint8_t ip_proto;
	uint16_t ip_id; /* IPv4 identification (0 for IPv6) */
	uint8_t src_ip[16], dst_ip[16];
	uint16_t udp_sport, udp_dport;
	/*
	 * UDP to another port than rt_dissect_opts.udp_port whose payload is a
	 * whole RoCEv2 packet all the same: a known opcode and a valid ICRC
	 * (looked for only with verify_icrc; the kind stays RT_KIND_OTHER)
	 */
	bool other_port_rocev2;

	/* BTH */
	uint8_t opcode;
	uint8_t se, migreq, padcnt, tver;
	uint8_t fecn, becn, ackreq;
	uint16_t pkey;
	uint32_t dest_qp; /* 24 bits */
	uint32_t psn;     /* 24 bits */

	/* extended headers */
	uint32_t xrc_srq;                /* XRCETH */
	uint32_t rdeth_eecnxt;           /* RDETH */
	uint32_t deth_qkey, deth_src_qp; /* DETH */
	uint64_t reth_va;                /* RETH */
	uint32_t reth_rkey, reth_len;
	uint64_t atomic_va; /* AtomicETH */
	uint32_t atomic_rkey;
	uint64_t atomic_swap_add, atomic_compare;
	uint8_t aeth_syndrome; /* AETH */
	uint32_t aeth_msn;
	uint64_t atomic_ack_orig; /* AtomicAckETH */
	uint32_t immediate;       /* ImmDt (as on the wire, big-endian value) */
	uint32_t ieth_rkey;       /* IETH */
	uint32_t feth;            /* FETH */

	/* payload and trailer */
	uint32_t payload_off; /* offset of the payload in the frame (after the known headers) */
	/*
	 * payload bytes on the wire, without pad and ICRC (may exceed caplen);
	 * a frame without a BTH: what its UDP or TCP header carries
	 */
	uint32_t payload_len;
	uint32_t icrc_stored;   /* the ICRC field (read little-endian), when captured */
	uint32_t icrc_computed; /* when icrc is OK or BAD */

	/* MAC control */
	uint16_t macc_opcode;
	uint16_t pfc_enable;    /* class-enable vector, bit n = priority n */
	uint16_t pfc_quanta[8]; /* pause time per priority */
	uint16_t pause_quanta;  /* 802.3x pause time */

	/*
	 * Last, for a frame here and there: rt_dissect() clears them apart from
	 * the fields above (a clear of more than about 256 bytes at once is slower).
	 */
	/* GRE / ERSPAN encapsulation (RT_L_GRE; the fields above describe the inner frame) */
	struct rt_encap encap;
	/* RDMA CM (RT_L_CM) */
	struct rt_cm cm;
	/* TCP, ICMP, ARP, LLC of a frame that is not RoCE (RT_L_TCP, RT_L_ICMP, RT_L_ARP, RT_L_LLC) */
	struct rt_other other;
};

struct rt_dissect_opts {
	uint16_t udp_port; /* RoCEv2 UDP destination port, RT_ROCEV2_PORT by default */
	bool verify_icrc;  /* compute the ICRC (costs a CRC over the packet) */
	/*
	 * Stop after the (innermost) IP header or RoCEv1 GRH: the addresses,
	 * for what splits the frames by host pair (analyze/stage.c); the rest
	 * of an IP frame's record is not filled. Frames without IP whole.
	 */
	bool addresses_only;
};

/* Default options: port 4791, ICRC verified. */
void rt_dissect_opts_init(struct rt_dissect_opts *opts);

/*
 * Decode one frame into `rec`, which it clears, keeping nothing of a
 * previous frame: the frame's timestamp and interface go into the record.
 * Reads at most frame->caplen bytes of frame->data; frame->wirelen is the
 * original length. Returns 0, or -EPROTONOSUPPORT for a link type it does
 * not know (the record then holds the lengths, timestamp and interface).
 */
int rt_dissect(const struct rt_dissect_opts *opts, const struct rt_frame *frame,
               struct rt_record *rec);

/*
 * The IP addresses of a common frame without decoding it: an Ethernet frame
 * (one VLAN tag at most) holding IPv4 or IPv6 that is not GRE. The source
 * address where it lies in the frame, the destination right after it (4
 * bytes each for IPv4, 16 for IPv6), and *ip_version, as rt_dissect() with
 * addresses_only gives them; NULL for any other frame (decode it). Inline,
 * the addresses read in place: the staged analysis hashes them for every
 * frame.
 */
static inline const uint8_t *rt_dissect_addresses(const struct rt_frame *frame, uint8_t *ip_version)
{
	const uint8_t *p = frame->data;
	uint32_t cap = frame->caplen, off = 14; /* Ethernet header */
	/* room for a VLAN tag and an IPv6 header, as the decode wants */
	if (frame->linktype != RT_LINK_ETHERNET || cap < 14 + 4 + 40)
		return NULL;
	uint16_t type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == 0x8100) { /* one VLAN tag */
		type = (uint16_t)(p[16] << 8 | p[17]);
		off += 4;
	}
	/* the checks the IPv4/IPv6 decode makes before it holds the addresses, and no GRE (47) */
	unsigned ver = p[off] >> 4;
	if (!((type == 0x0800 && ver == 4) || (type == 0x86DD && ver == 6)) ||
	    p[off + (ver == 4 ? 9 : 6)] == 47)
		return NULL;
	*ip_version = (uint8_t)ver;
	return p + off + (ver == 4 ? 12 : 8);
}

/*
 * The same for bytes without a frame around them (unit tests, fuzzers): a
 * frame of link type `linktype`, `caplen` bytes of `buf` captured of
 * `wirelen`. Leaves rec->ts_ns as it was and rec->interface_id 0.
 */
int rt_dissect_buf(const struct rt_dissect_opts *opts, int linktype, const uint8_t *buf,
                   uint32_t caplen, uint32_t wirelen, struct rt_record *rec);

/*
 * Decode a RoCEv2 UDP payload as a UDP socket hands it over (`len` bytes,
 * BTH first) into `rec`, which it clears: the BTH, the extended headers,
 * payload bounds and the stored ICRC (not verified: the IP header it covers
 * is not at hand). The kind is RT_KIND_ROCE, RT_KIND_CNP or, when the bytes
 * cannot hold the headers and the ICRC, RT_KIND_MALFORMED.
 */
void rt_dissect_roce(const uint8_t *buf, uint32_t len, struct rt_record *rec);

/*
 * Nanoseconds that `quanta` PFC/PAUSE quanta (512 bit times each) pause a
 * link of link_bps bit/s: the quantum rounded to a picosecond, the time to
 * a nanosecond.
 */
uint64_t rt_pause_ns(uint16_t quanta, uint64_t link_bps);

/*
 * RoCEv2 ICRC of a packet whose IPv4 or IPv6 header starts at `ip`, `len`
 * bytes from there up to (not including) the ICRC field. Stores in *crc the
 * value the wire carries little-endian. Returns 0, or -EINVAL when `len`
 * cannot hold the IP, UDP and BTH headers or the IP version is not 4 or 6.
 */
int rt_icrc_compute(const uint8_t *ip, uint32_t len, uint32_t *crc);
/*
 * The same with the IP and UDP headers apart from the transport packet: the
 * IPv4 (options included) or IPv6 header and the UDP header at `ip_udp`,
 * the transport packet at `bth`, `len` bytes up to (not including) its
 * ICRC field. Returns 0, or -EINVAL when len is shorter than a BTH or the
 * IP version is not 4 or 6.
 */
int rt_icrc_compute_split(const uint8_t *ip_udp, const uint8_t *bth, uint32_t len, uint32_t *crc);

/* True when rt_dissect() knows this link type. */
bool rt_linktype_supported(int linktype);

/* The decode-event table: RT_EV_COUNT rows, row n for bit n. */
extern const struct rt_event_info rt_events[RT_EV_COUNT];
/* The row of one event bit, or NULL for a bit not in use. */
const struct rt_event_info *rt_event_info(uint64_t event_bit);
/* Name of one event bit ("bth_truncated", ...), or NULL for a bit not in use. */
const char *rt_event_name(uint64_t event_bit);
/* True for the bits that mean "cut by the snap length". */
static inline bool rt_event_is_truncation(uint64_t event_bit)
{
	return (event_bit & RT_EV_TRUNCATION_MASK) != 0;
}

/* JSON "kind" strings: "roce", "cnp", "pfc", "pause", "other", "malformed". */
const char *rt_kind_name(enum rt_kind kind);
/* "ok", "bad", "unchecked" */
const char *rt_icrc_name(enum rt_icrc_status status);
/* "ack", "rnr", "nak", or "reserved" for the class of an AETH syndrome. */
const char *rt_aeth_type_name(uint8_t syndrome);
static inline enum rt_aeth_type rt_aeth_type(uint8_t syndrome)
{
	return (enum rt_aeth_type)(syndrome >> 5);
}
/* Name of a NAK code (low 5 bits of a NAK syndrome): "psn_seq_error", ... */
const char *rt_nak_code_name(uint8_t code); /* "reserved" for codes 5..31 */

/* True when the record is a RoCE transport packet (RoCE or CNP) with a BTH. */
static inline bool rt_record_has_bth(const struct rt_record *rec)
{
	return (rec->layers & RT_L_BTH) != 0;
}

/* Serial-number comparison of 24-bit PSNs: <0, 0, >0 as a is before, at, after b. */
static inline int32_t rt_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif
