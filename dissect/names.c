/* The decode-event table; names of kinds, ICRC states, AETH classes and NAK codes; default options; link types. */
#include <stddef.h>

#include "dissect/dissect.h"

void rt_dissect_opts_init(struct rt_dissect_opts *opts)
{
	opts->udp_port = RT_ROCEV2_PORT;
	opts->verify_icrc = true;
	opts->addresses_only = false;
}

bool rt_linktype_supported(int linktype)
{
	switch (linktype) {
	case RT_LINK_ETHERNET:
	case RT_LINK_RAW:
	case RT_LINK_IPV4:
	case RT_LINK_IPV6:
	case RT_LINK_LINUX_SLL:
	case RT_LINK_LINUX_SLL2:
		return true;
	default:
		return false;
	}
}

#define TRUNC(bit, name, layer)  [__builtin_ctzll(bit)] = {bit, name, RT_EVC_TRUNCATION, layer}
#define INVAL(bit, name, layer)  [__builtin_ctzll(bit)] = {bit, name, RT_EVC_INVALID, layer}
#define NOTICE(bit, name, layer) [__builtin_ctzll(bit)] = {bit, name, RT_EVC_NOTICE, layer}

/* The one decode-event table: the dissector sets the bits, printers and the analyzer read the rows. */
const struct rt_event_info rt_events[RT_EV_COUNT] = {
    TRUNC(RT_EV_LINK_TRUNCATED, "link_truncated", "link"),
    TRUNC(RT_EV_IP_TRUNCATED, "ip_truncated", "ip"),
    TRUNC(RT_EV_UDP_TRUNCATED, "udp_truncated", "udp"),
    TRUNC(RT_EV_BTH_TRUNCATED, "bth_truncated", "bth"),
    TRUNC(RT_EV_EXT_TRUNCATED, "ext_truncated", "ext"),
    TRUNC(RT_EV_MACC_TRUNCATED, "macc_truncated", "macc"),
    TRUNC(RT_EV_ICRC_TRUNCATED, "icrc_truncated", "icrc"),
    TRUNC(RT_EV_GRE_TRUNCATED, "gre_truncated", "gre"),
    INVAL(RT_EV_IP_BAD_VERSION, "ip_bad_version", "ip"),
    INVAL(RT_EV_IPV4_BAD_IHL, "ipv4_bad_ihl", "ip"),
    INVAL(RT_EV_IP_BAD_LENGTH, "ip_bad_length", "ip"),
    NOTICE(RT_EV_IP_FRAGMENT, "ip_fragment", "ip"),
    INVAL(RT_EV_UDP_BAD_LENGTH, "udp_bad_length", "udp"),
    INVAL(RT_EV_GRH_BAD_NEXT_HEADER, "grh_bad_next_header", "ip"),
    INVAL(RT_EV_BTH_BAD_TVER, "bth_bad_tver", "bth"),
    INVAL(RT_EV_UNKNOWN_OPCODE, "unknown_opcode", "bth"),
    INVAL(RT_EV_TOO_SHORT_FOR_ICRC, "too_short_for_icrc", "icrc"),
    INVAL(RT_EV_ICRC_BAD, "icrc_bad", "icrc"),
    INVAL(RT_EV_MACC_UNKNOWN_OPCODE, "macc_unknown_opcode", "macc"),
    INVAL(RT_EV_CNP_NOT_BECN, "cnp_not_becn", "bth"),
    INVAL(RT_EV_GRE_BAD, "gre_bad", "gre"),
    INVAL(RT_EV_ERSPAN_BAD_VERSION, "erspan_bad_version", "gre"),
    NOTICE(RT_EV_ICRC_IPV6_EXT, "icrc_ipv6_ext_headers", "icrc"),
    NOTICE(RT_EV_VLAN_EXTRA, "link_extra_vlan_tags", "link"),
    INVAL(RT_EV_BTH_BAD_PAD, "bth_bad_pad", "bth"),
    NOTICE(RT_EV_WIRE_SHORT, "link_wire_length_short", "link"),
};

const struct rt_event_info *rt_event_info(uint64_t event_bit)
{
	if (!event_bit || (event_bit & (event_bit - 1)))
		return NULL;
	unsigned i = (unsigned)__builtin_ctzll(event_bit);
	return i < RT_EV_COUNT ? &rt_events[i] : NULL;
}

const char *rt_event_name(uint64_t event_bit)
{
	const struct rt_event_info *e = rt_event_info(event_bit);
	return e ? e->name : NULL;
}

const char *rt_kind_name(enum rt_kind kind)
{
	switch (kind) {
	case RT_KIND_OTHER:
		return "other";
	case RT_KIND_ROCE:
		return "roce";
	case RT_KIND_CNP:
		return "cnp";
	case RT_KIND_PFC:
		return "pfc";
	case RT_KIND_PAUSE:
		return "pause";
	case RT_KIND_MALFORMED:
		return "malformed";
	}
	return "other";
}

const char *rt_icrc_name(enum rt_icrc_status status)
{
	switch (status) {
	case RT_ICRC_OK:
		return "ok";
	case RT_ICRC_BAD:
		return "bad";
	case RT_ICRC_UNCHECKED:
		break;
	}
	return "unchecked";
}

const char *rt_aeth_type_name(uint8_t syndrome)
{
	switch (rt_aeth_type(syndrome)) {
	case RT_AETH_ACK:
		return "ack";
	case RT_AETH_RNR_NAK:
		return "rnr";
	case RT_AETH_NAK:
		return "nak";
	default:
		return "reserved";
	}
}

const char *rt_nak_code_name(uint8_t code)
{
	static const char *const names[] = {"psn_seq_error", "invalid_request",
	                                    "remote_access_error", "remote_op_error",
	                                    "invalid_rd_request"};

	return code < sizeof(names) / sizeof(names[0]) ? names[code] : "reserved";
}
