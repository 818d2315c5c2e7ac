/* Names of what frames carry besides RoCE: RDMA CM messages and reject reasons, TCP flags, IP protocols, Ethertypes, ICMP types. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/dissect.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *rt_cm_message_name(uint16_t attr)
{
	static const char *const msgs[] = {"REQ",  "MRA",      "REJ",      "REP", "RTU", "DREQ",
	                                   "DREP", "SIDR_REQ", "SIDR_REP", "LAP", "APR"};
	if (attr == RT_CM_ATTR_CLASS_PORT_INFO)
		return "ClassPortInfo";
	if (attr >= RT_CM_ATTR_REQ && attr - RT_CM_ATTR_REQ < (int)COUNT(msgs))
		return msgs[attr - RT_CM_ATTR_REQ];
	return NULL;
}

/* InfiniBand volume 1, table "REJ reason codes" (chapter 12), in lower case. */
const char *rt_cm_reject_name(uint16_t reason)
{
	static const char *const names[] = {
	    [1] = "no_qp",
	    [2] = "no_eec",
	    [3] = "no_resources",
	    [4] = "timeout",
	    [5] = "unsupported_request",
	    [6] = "invalid_comm_id",
	    [7] = "invalid_comm_instance",
	    [8] = "invalid_service_id",
	    [9] = "invalid_transport_type",
	    [10] = "stale_connection",
	    [11] = "rdc_not_exist",
	    [12] = "invalid_gid",
	    [13] = "invalid_lid",
	    [14] = "invalid_sl",
	    [15] = "invalid_traffic_class",
	    [16] = "invalid_hop_limit",
	    [17] = "invalid_packet_rate",
	    [18] = "invalid_alt_gid",
	    [19] = "invalid_alt_lid",
	    [20] = "invalid_alt_sl",
	    [21] = "invalid_alt_traffic_class",
	    [22] = "invalid_alt_hop_limit",
	    [23] = "invalid_alt_packet_rate",
	    [24] = "port_cm_redirect",
	    [25] = "port_redirect",
	    [26] = "invalid_mtu",
	    [27] = "insufficient_resp_resources",
	    [28] = "consumer_reject",
	    [29] = "invalid_rnr_retry",
	    [30] = "duplicate_local_comm_id",
	    [31] = "unsupported_class_version",
	    [32] = "invalid_flow_label",
	    [33] = "invalid_alt_flow_label",
	    [35] = "vendor_option_not_supported",
	};
	return reason < COUNT(names) ? names[reason] : NULL;
}

const char *rt_cm_msg_name(uint8_t msg)
{
	return msg == 0 ? "REQ" : msg == 1 ? "REP" : "other";
}

/* An RDMA CM service ID is 0x00000000_01_PS_PORT: prefix 0x0000000001, port space, port. */
const char *rt_cm_port_space(uint64_t service_id)
{
	if (service_id >> 24 != 1)
		return NULL;
	switch ((service_id >> 16) & 0xFF) {
	case 0x02:
		return "ipoib";
	case 0x06:
		return "tcp";
	case 0x11:
		return "udp";
	case 0x3F:
		return "ib";
	default:
		return NULL;
	}
}

const char *rt_tcp_flags_text(uint8_t flags, char *buf)
{
	/* tcpdump's order: FIN SYN RST PSH ACK URG ECE CWR */
	static const struct {
		uint8_t bit;
		char letter;
	} order[] = {{0x01, 'F'}, {0x02, 'S'}, {0x04, 'R'}, {0x08, 'P'},
	             {0x10, '.'}, {0x20, 'U'}, {0x40, 'E'}, {0x80, 'W'}};
	size_t n = 0;
	for (size_t i = 0; i < COUNT(order); i++)
		if (flags & order[i].bit)
			buf[n++] = order[i].letter;
	if (!n) {
		buf[n++] = 'n';
		buf[n++] = 'o';
		buf[n++] = 'n';
		buf[n++] = 'e';
	}
	buf[n] = 0;
	return buf;
}

/* A number and its name. */
struct named {
	uint16_t v;
	const char *name;
};

static const char *lookup(const struct named *t, size_t n, uint16_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].v == v)
			return t[i].name;
	return NULL;
}

const char *rt_ip_proto_name(uint8_t proto)
{
	static const struct named names[] = {
	    {0, "hopopt"}, {1, "icmp"},  {2, "igmp"},        {4, "ipip"},        {6, "tcp"},
	    {17, "udp"},   {41, "ipv6"}, {43, "ipv6-route"}, {44, "ipv6-frag"},  {47, "gre"},
	    {50, "esp"},   {51, "ah"},   {58, "icmp6"},      {59, "ipv6-nonxt"}, {60, "ipv6-opts"},
	    {89, "ospf"},  {103, "pim"}, {112, "vrrp"},      {132, "sctp"},
	};
	return lookup(names, COUNT(names), proto);
}

const char *rt_ethertype_name(uint16_t ethertype)
{
	static const struct named names[] = {
	    {0x0806, "arp"},     {0x0842, "wol"},        {0x22F0, "avtp"},     {0x8035, "rarp"},
	    {0x809B, "atalk"},   {0x8137, "ipx"},        {0x8809, "slow"},     {0x8847, "mpls"},
	    {0x8848, "mpls-mc"}, {0x8863, "pppoe-disc"}, {0x8864, "pppoe"},    {0x888E, "eapol"},
	    {0x88CC, "lldp"},    {0x88E5, "macsec"},     {0x88F7, "ptp"},      {0x8902, "cfm"},
	    {0x8906, "fcoe"},    {0x8914, "fip"},        {0x893A, "ieee1905"}, {0x9000, "loopback"},
	};
	return lookup(names, COUNT(names), ethertype);
}

const char *rt_icmp_type_name(uint8_t type, bool v6)
{
	static const char *const v4[] = {
	    [0] = "echo-reply",           [3] = "unreachable",
	    [4] = "source-quench",        [5] = "redirect",
	    [8] = "echo-request",         [9] = "router-advertisement",
	    [10] = "router-solicitation", [11] = "time-exceeded",
	    [12] = "parameter-problem",   [13] = "timestamp-request",
	    [14] = "timestamp-reply",
	};
	static const char *const v6err[] = {
	    [1] = "unreachable",
	    [2] = "packet-too-big",
	    [3] = "time-exceeded",
	    [4] = "parameter-problem",
	};
	static const char *const v6info[] = {
	    [0] = "echo-request",
	    [1] = "echo-reply",
	    [2] = "mld-query",
	    [3] = "mld-report",
	    [4] = "mld-done",
	    [5] = "router-solicitation",
	    [6] = "router-advertisement",
	    [7] = "neighbor-solicitation",
	    [8] = "neighbor-advertisement",
	    [9] = "redirect",
	    [15] = "mld2-report",
	};
	if (!v6)
		return type < COUNT(v4) ? v4[type] : NULL;
	if (type < COUNT(v6err))
		return v6err[type];
	if (type >= 128 && type - 128 < (int)COUNT(v6info))
		return v6info[type - 128];
	return NULL;
}
