/* Names of events, kinds, ICRC states, AETH classes and NAK codes; default options; supported link types. */
#include <stddef.h>

#include "dissect/dissect.h"

void rt_dissect_opts_init(struct rt_dissect_opts *opts)
{
	opts->udp_port = RT_ROCEV2_PORT;
	opts->verify_icrc = true;
}

bool rt_linktype_supported(int linktype)
{
	switch (linktype) {
	case RT_LINK_ETHERNET:
	case RT_LINK_RAW:
	case RT_LINK_LINUX_SLL:
	case RT_LINK_LINUX_SLL2:
		return true;
	default:
		return false;
	}
}

const char *rt_event_name(uint32_t event_bit)
{
	switch (event_bit) {
	case RT_EV_LINK_TRUNCATED:
		return "link_truncated";
	case RT_EV_IP_TRUNCATED:
		return "ip_truncated";
	case RT_EV_UDP_TRUNCATED:
		return "udp_truncated";
	case RT_EV_BTH_TRUNCATED:
		return "bth_truncated";
	case RT_EV_EXT_TRUNCATED:
		return "ext_truncated";
	case RT_EV_MACC_TRUNCATED:
		return "macc_truncated";
	case RT_EV_ICRC_TRUNCATED:
		return "icrc_truncated";
	case RT_EV_IP_BAD_VERSION:
		return "ip_bad_version";
	case RT_EV_IPV4_BAD_IHL:
		return "ipv4_bad_ihl";
	case RT_EV_IP_BAD_LENGTH:
		return "ip_bad_length";
	case RT_EV_IP_FRAGMENT:
		return "ip_fragment";
	case RT_EV_UDP_BAD_LENGTH:
		return "udp_bad_length";
	case RT_EV_GRH_BAD_NEXT_HEADER:
		return "grh_bad_next_header";
	case RT_EV_BTH_BAD_TVER:
		return "bth_bad_tver";
	case RT_EV_UNKNOWN_OPCODE:
		return "unknown_opcode";
	case RT_EV_TOO_SHORT_FOR_ICRC:
		return "too_short_for_icrc";
	case RT_EV_ICRC_BAD:
		return "icrc_bad";
	case RT_EV_MACC_UNKNOWN_OPCODE:
		return "macc_unknown_opcode";
	case RT_EV_CNP_NOT_BECN:
		return "cnp_not_becn";
	case RT_EV_GRE_TRUNCATED:
		return "gre_truncated";
	case RT_EV_GRE_BAD:
		return "gre_bad";
	case RT_EV_ERSPAN_BAD_VERSION:
		return "erspan_bad_version";
	default:
		return NULL;
	}
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
