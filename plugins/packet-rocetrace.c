/* Wireshark 4.0 plugin: postdissector adding rocetrace's RoCE decode and per-QP analysis. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <wiretap/wtap.h>
#include <ws_symbol_export.h>
#include <ws_version.h>

#include "analyze/analyze.h"
#include "dissect/dissect.h"
#include "dissect/opcodes.h"
#include "plugins/rocetrace_notes.h"
#include "rt_config.h"

/* The plugin ABI of Wireshark 4.0: exported version symbols and the registration entry point. */
WS_DLL_PUBLIC_DEF const gchar plugin_version[] = RT_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;
WS_DLL_PUBLIC void plugin_register(void);

static int proto_rocetrace = -1;
static dissector_handle_t rocetrace_handle;

static int hf_kind = -1;
static int hf_opcode = -1;
static int hf_opcode_name = -1;
static int hf_cnp = -1;
static int hf_cnp_dest_qp = -1;
static int hf_fecn = -1;
static int hf_becn = -1;
static int hf_ce = -1;
static int hf_icrc_status = -1;
static int hf_icrc_stored = -1;
static int hf_icrc_computed = -1;
static int hf_truncated = -1;
static int hf_event = -1;
static int hf_flow = -1;
static int hf_flow_id = -1;
static int hf_peer_flow_id = -1;
static int hf_psn_gap = -1;
static int hf_psn_jump = -1;
static int hf_retrans = -1;
static int hf_retrans_nak = -1;
static int hf_duplicate = -1;
static int hf_copy_of = -1;
static int hf_nak = -1;
static int hf_rnr_nak = -1;
static int hf_cnp_for_frame = -1;
static int hf_cnp_frame = -1;
static int hf_cnp_delay = -1;
static int hf_ack_rtt = -1;
static int hf_ack_rtt_frame = -1;
static int hf_resend_of = -1;
static int hf_resend_after = -1;
static int hf_resend_wait = -1;
static int hf_pfc_paused[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
static int hf_pause_paused = -1;

static gint ett_rocetrace = -1;
static gint ett_analysis = -1;

static expert_field ei_icrc_bad = EI_INIT;
static expert_field ei_malformed = EI_INIT;
static expert_field ei_nak = EI_INIT;
static expert_field ei_rnr_nak = EI_INIT;
static expert_field ei_retrans = EI_INIT;
static expert_field ei_gap = EI_INIT;
static expert_field ei_duplicate = EI_INIT;
static expert_field ei_copy = EI_INIT;
static expert_field ei_cnp = EI_INIT;

/* Preferences (a change re-dissects the file, so the first pass sees the new values). */
static guint pref_link_gbps = 100;
static guint pref_udp_port = RT_ROCEV2_PORT;
static gboolean pref_verify_icrc = TRUE;

/* Wireshark's own BTH opcode field, renamed "CNP" on a CNP (it says "Unknown") */
static int hf_ib_opcode = -1;

/* The pcap link type our dissector reads for a frame's Wireshark encapsulation, or -1. */
static int linktype_of(const packet_info *pinfo)
{
	if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
		return -1;
	switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
	case WTAP_ENCAP_ETHERNET:
		return RT_LINK_ETHERNET;
	case WTAP_ENCAP_SLL:
		return RT_LINK_LINUX_SLL;
	case WTAP_ENCAP_SLL2:
		return RT_LINK_LINUX_SLL2;
	case WTAP_ENCAP_RAW_IP:
	case WTAP_ENCAP_RAW_IP4:
	case WTAP_ENCAP_RAW_IP6:
		return RT_LINK_RAW;
	default:
		return -1;
	}
}

/* "10.0.0.1 > 10.0.0.2 QP 0x000011" (QPs in hex, as Wireshark shows them) */
static void flow_text(const struct rt_record *rec, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int af = rec->ip_version == 4 ? AF_INET : AF_INET6;
	if (!inet_ntop(af, rec->src_ip, s, sizeof(s)))
		snprintf(s, sizeof(s), "?");
	if (!inet_ntop(af, rec->dst_ip, d, sizeof(d)))
		snprintf(d, sizeof(d), "?");
	snprintf(buf, len, "%s > %s QP 0x%06x", s, d, rec->dest_qp);
}

static proto_item *add_generated(proto_item *it)
{
	proto_item_set_generated(it);
	return it;
}

/* "850 ns", "2.0 us", "1.25 ms", "3.10 s": a delay for the Info column and expert infos. */
static void dur_text(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%u ns", (unsigned)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

/* A retransmission: which frame sent the PSN before and when, what started the resend run. */
static void add_retrans(proto_tree *at, tvbuff_t *tvb, packet_info *pinfo,
                        const struct rt_record *rec, const struct roce_note *n)
{
	char after[32] = "", wait[32];
	proto_item *it = add_generated(proto_tree_add_boolean(at, hf_retrans, tvb, 0, 0, TRUE));
	if (n->resend_of) {
		add_generated(proto_tree_add_uint(at, hf_resend_of, tvb, 0, 0, n->resend_of));
		add_generated(
		    proto_tree_add_uint64(at, hf_resend_after, tvb, 0, 0, n->resend_after_ns));
		dur_text(n->resend_after_ns, after, sizeof(after));
	}
	if (n->nak_frame)
		add_generated(proto_tree_add_uint(at, hf_retrans_nak, tvb, 0, 0, n->nak_frame));
	if (n->resend_wait_ns) {
		add_generated(
		    proto_tree_add_uint64(at, hf_resend_wait, tvb, 0, 0, n->resend_wait_ns));
		dur_text(n->resend_wait_ns, wait, sizeof(wait));
		if (n->nak_frame)
			expert_add_info_format(
			    pinfo, it, &ei_retrans,
			    "Retransmission of PSN %u: go-back-N %s after the NAK "
			    "in frame %u",
			    rec->psn, wait, n->nak_frame);
		else
			expert_add_info_format(
			    pinfo, it, &ei_retrans,
			    "Retransmission of PSN %u: no NAK seen, a timeout after "
			    "%s without a request",
			    rec->psn, wait);
	} else {
		expert_add_info_format(pinfo, it, &ei_retrans, "Retransmission of PSN %u",
		                       rec->psn);
	}
	if (n->resend_of)
		col_append_fstr(pinfo->cinfo, COL_INFO, " [resend of %u, +%s]", n->resend_of,
		                after);
	else
		col_append_str(pinfo->cinfo, COL_INFO, " [retransmission]");
}

/* A CNP: the flow it slows down, the CE mark it answers and how late; its Info line. */
static void add_cnp(proto_tree *at, tvbuff_t *tvb, packet_info *pinfo, proto_item *top,
                    const struct rt_record *rec, const struct roce_note *n)
{
	char delay[32];
	if (n->cnp_for_frame) {
		add_generated(
		    proto_tree_add_uint(at, hf_cnp_for_frame, tvb, 0, 0, n->cnp_for_frame));
		add_generated(proto_tree_add_uint64(at, hf_cnp_delay, tvb, 0, 0, n->cnp_delay_ns));
		dur_text(n->cnp_delay_ns, delay, sizeof(delay));
		col_append_fstr(pinfo->cinfo, COL_INFO, " (CE at frame %u, +%s)", n->cnp_for_frame,
		                delay);
	}
	if (n->peer_flow_id != RT_AN_NONE)
		expert_add_info_format(pinfo, top, &ei_cnp,
		                       "CNP: QP 0x%06x must slow down its flow %u", rec->dest_qp,
		                       n->peer_flow_id);
	else
		expert_add_info_format(
		    pinfo, top, &ei_cnp,
		    "CNP: QP 0x%06x must slow down (which of its flows is unknown)", rec->dest_qp);
}

/* NAK, RNR NAK, and the round trip an ACK closes. */
static void add_response(proto_tree *at, tvbuff_t *tvb, packet_info *pinfo,
                         const struct rt_record *rec, const struct roce_note *n)
{
	char rtt[32];
	if (n->flags & RT_AN_NOTE_NAK) {
		proto_item *it = add_generated(
		    proto_tree_add_uint_format_value(at, hf_nak, tvb, 0, 0, n->nak_code, "%s (%u)",
		                                     rt_nak_code_name(n->nak_code), n->nak_code));
		expert_add_info_format(pinfo, it, &ei_nak,
		                       "NAK %s: the requester goes back to PSN %u",
		                       rt_nak_code_name(n->nak_code), rec->psn);
		col_append_fstr(pinfo->cinfo, COL_INFO, " [NAK %s]", rt_nak_code_name(n->nak_code));
	}
	if (n->flags & RT_AN_NOTE_RNR_NAK) {
		proto_item *it =
		    add_generated(proto_tree_add_uint(at, hf_rnr_nak, tvb, 0, 0, n->nak_code));
		expert_add_info_format(pinfo, it, &ei_rnr_nak,
		                       "RNR NAK (timer %u): receiver not ready", n->nak_code);
	}
	if (n->rtt_frame) {
		add_generated(proto_tree_add_uint64(at, hf_ack_rtt, tvb, 0, 0, n->rtt_ns));
		add_generated(proto_tree_add_uint(at, hf_ack_rtt_frame, tvb, 0, 0, n->rtt_frame));
		dur_text(n->rtt_ns, rtt, sizeof(rtt));
		col_append_fstr(pinfo->cinfo, COL_INFO, " [RTT %s]", rtt);
	}
}

static void add_roce_analysis(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, proto_item *top,
                              const struct rt_record *rec, const struct roce_note *n)
{
	char flow[2 * INET6_ADDRSTRLEN + 32];
	flow_text(rec, flow, sizeof(flow));
	proto_item *ai = proto_tree_add_string(tree, hf_flow, tvb, 0, 0, flow);
	proto_item_set_generated(ai);
	proto_tree *at = proto_item_add_subtree(ai, ett_analysis);
	add_generated(proto_tree_add_uint(at, hf_flow_id, tvb, 0, 0, n->flow_id));
	if (n->peer_flow_id != RT_AN_NONE)
		add_generated(proto_tree_add_uint(at, hf_peer_flow_id, tvb, 0, 0, n->peer_flow_id));
	if (n->flags & RT_AN_NOTE_CE)
		add_generated(proto_tree_add_boolean(at, hf_ce, tvb, 0, 0, TRUE));
	if (n->psn_gap) {
		proto_item *it =
		    add_generated(proto_tree_add_uint(at, hf_psn_gap, tvb, 0, 0, n->psn_gap));
		expert_add_info_format(pinfo, it, &ei_gap,
		                       "PSN gap: %u PSN%s missing before PSN %u", n->psn_gap,
		                       n->psn_gap == 1 ? "" : "s", rec->psn);
		col_append_fstr(pinfo->cinfo, COL_INFO, " [PSN gap %u]", n->psn_gap);
	}
	if (n->flags & RT_AN_NOTE_PSN_JUMP)
		add_generated(proto_tree_add_boolean(at, hf_psn_jump, tvb, 0, 0, TRUE));
	if (n->flags & RT_AN_NOTE_RETRANS)
		add_retrans(at, tvb, pinfo, rec, n);
	if (n->flags & RT_AN_NOTE_DUPLICATE) {
		proto_item *it =
		    add_generated(proto_tree_add_boolean(at, hf_duplicate, tvb, 0, 0, TRUE));
		expert_add_info_format(pinfo, it, &ei_duplicate,
		                       "Duplicate PSN %u: UC sent it again (UC never resends)",
		                       rec->psn);
		col_append_str(pinfo->cinfo, COL_INFO, " [duplicate PSN]");
	}
	if (n->flags & RT_AN_NOTE_COPY) {
		proto_item *it =
		    add_generated(proto_tree_add_uint(at, hf_copy_of, tvb, 0, 0, n->copy_of));
		expert_add_info_format(pinfo, it, &ei_copy,
		                       "Copy of the packet in frame %u (seen again): counted once",
		                       n->copy_of);
		col_append_fstr(pinfo->cinfo, COL_INFO, " [copy of %u]", n->copy_of);
	}
	add_response(at, tvb, pinfo, rec, n);
	if (n->cnp_frame)
		add_generated(proto_tree_add_uint(at, hf_cnp_frame, tvb, 0, 0, n->cnp_frame));
	if (rec->kind == RT_KIND_CNP)
		add_cnp(at, tvb, pinfo, top, rec, n);
}

static void add_pause_analysis(proto_tree *tree, tvbuff_t *tvb, const struct pause_note *pn)
{
	for (unsigned c = 0; c < 8; c++)
		if (pn->classes & (1u << c))
			add_generated(proto_tree_add_uint64(tree, hf_pfc_paused[c], tvb, 0, 0,
			                                    pn->paused_ns[c]));
	if (pn->classes & (1u << RT_AN_PAUSE_CLASS))
		add_generated(proto_tree_add_uint64(tree, hf_pause_paused, tvb, 0, 0,
		                                    pn->paused_ns[RT_AN_PAUSE_CLASS]));
}

static void add_events(proto_tree *tree, tvbuff_t *tvb, uint64_t events)
{
	for (unsigned i = 0; i < RT_EV_COUNT; i++)
		if (events & rt_events[i].bit)
			add_generated(
			    proto_tree_add_string(tree, hf_event, tvb, 0, 0, rt_events[i].name));
}

static void add_bth_fields(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo,
                           const struct rt_record *rec)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(rec->opcode);
	add_generated(proto_tree_add_uint(tree, hf_opcode, tvb, 0, 0, rec->opcode));
	if (info)
		add_generated(proto_tree_add_string(tree, hf_opcode_name, tvb, 0, 0, info->name));
	if (rec->kind == RT_KIND_CNP) {
		add_generated(proto_tree_add_boolean(tree, hf_cnp, tvb, 0, 0, TRUE));
		add_generated(proto_tree_add_uint(tree, hf_cnp_dest_qp, tvb, 0, 0, rec->dest_qp));
		/* Wireshark 4.0 says "Unknown OpCode": the whole line is ours */
		col_clear_fence(pinfo->cinfo, COL_INFO);
		col_add_fstr(pinfo->cinfo, COL_INFO, "CNP for qp 0x%06x", rec->dest_qp);
	}
	add_generated(proto_tree_add_boolean(tree, hf_fecn, tvb, 0, 0, rec->fecn));
	add_generated(proto_tree_add_boolean(tree, hf_becn, tvb, 0, 0, rec->becn));
}

static void add_icrc(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo,
                     const struct rt_record *rec)
{
	proto_item *it = add_generated(
	    proto_tree_add_string(tree, hf_icrc_status, tvb, 0, 0, rt_icrc_name(rec->icrc)));
	if (rec->icrc == RT_ICRC_UNCHECKED)
		return;
	add_generated(proto_tree_add_uint(tree, hf_icrc_stored, tvb, 0, 0, rec->icrc_stored));
	add_generated(proto_tree_add_uint(tree, hf_icrc_computed, tvb, 0, 0, rec->icrc_computed));
	if (rec->icrc == RT_ICRC_BAD) {
		expert_add_info_format(pinfo, it, &ei_icrc_bad,
		                       "Bad ICRC: stored 0x%08x, computed 0x%08x", rec->icrc_stored,
		                       rec->icrc_computed);
		col_append_str(pinfo->cinfo, COL_INFO, " [ICRC bad]");
	}
}

/* Wireshark's BTH opcode item of a CNP ("Unknown (129)") gets the name, wherever it is in the tree. */
static void name_cnp_opcode(proto_node *node, gpointer data)
{
	field_info *fi = PNODE_FINFO(node);
	if (fi && fi->hfinfo && fi->hfinfo->id == hf_ib_opcode &&
	    fvalue_get_uinteger(&fi->value) == RT_OPCODE_CNP)
		proto_item_set_text(node, "Opcode: CNP, RoCEv2 congestion notification (%u)",
		                    RT_OPCODE_CNP);
	proto_tree_children_foreach(node, name_cnp_opcode, data);
}

static int dissect_rocetrace(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	int linktype = linktype_of(pinfo);
	guint caplen = tvb_captured_length(tvb);
	if (linktype < 0 || caplen == 0)
		return 0;
	struct rt_dissect_opts opts;
	rt_dissect_opts_init(&opts);
	if (pref_udp_port && pref_udp_port <= UINT16_MAX)
		opts.udp_port = (uint16_t)pref_udp_port;
	opts.verify_icrc = pref_verify_icrc;
	struct rt_record rec;
	const uint8_t *frame = tvb_get_ptr(tvb, 0, caplen);
	struct rt_frame f = {
	    .data = frame,
	    .caplen = caplen,
	    .wirelen = tvb_reported_length(tvb),
	    .ts_ns = pinfo->abs_ts.secs >= 0 ? (uint64_t)pinfo->abs_ts.secs * 1000000000ull +
	                                           (uint64_t)pinfo->abs_ts.nsecs
	                                     : 0,
	    .seq = pinfo->num,
	    .linktype = linktype,
	    /* frames of different capture interfaces are different vantage points (duplicates) */
	    .interface_id = pinfo->rec && (pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID)
	                        ? pinfo->rec->rec_header.packet_header.interface_id
	                        : 0,
	};
	if (rt_dissect(&opts, &f, &rec) < 0)
		return 0;
	if (!pinfo->fd->visited)
		rt_notes_first_pass(proto_rocetrace, pinfo, &rec);
	if (rec.kind == RT_KIND_CNP && tree)
		proto_tree_children_foreach(tree, name_cnp_opcode, NULL);
	if (rec.kind == RT_KIND_OTHER)
		return 0;
	bool roce =
	    (rec.kind == RT_KIND_ROCE || rec.kind == RT_KIND_CNP) && rt_record_has_bth(&rec);
	bool pause = rec.kind == RT_KIND_PFC || rec.kind == RT_KIND_PAUSE;

	proto_item *top = proto_tree_add_item(tree, proto_rocetrace, tvb, 0, -1, ENC_NA);
	proto_item_set_generated(top);
	proto_tree *rt = proto_item_add_subtree(top, ett_rocetrace);
	proto_item_append_text(top, ", %s", rt_kind_name(rec.kind));
	add_generated(proto_tree_add_string(rt, hf_kind, tvb, 0, 0, rt_kind_name(rec.kind)));
	if (rt_record_has_bth(&rec)) {
		const struct rt_opcode_info *info = rt_opcode_lookup(rec.opcode);
		proto_item_append_text(top, " %s, QP 0x%06x, PSN %u, ICRC %s",
		                       info ? info->name : "?", rec.dest_qp, rec.psn,
		                       rt_icrc_name(rec.icrc));
		add_bth_fields(rt, tvb, pinfo, &rec);
		add_icrc(rt, tvb, pinfo, &rec);
	}
	add_generated(proto_tree_add_boolean(rt, hf_truncated, tvb, 0, 0, rec.truncated));
	add_events(rt, tvb, rec.events);
	if (rec.kind == RT_KIND_MALFORMED)
		expert_add_info(pinfo, top, &ei_malformed);
	if (roce) {
		const struct roce_note *n =
		    p_get_proto_data(wmem_file_scope(), pinfo, proto_rocetrace, 0);
		if (n)
			add_roce_analysis(rt, tvb, pinfo, top, &rec, n);
	} else if (pause) {
		const struct pause_note *pn =
		    p_get_proto_data(wmem_file_scope(), pinfo, proto_rocetrace, 1);
		if (pn)
			add_pause_analysis(rt, tvb, pn);
	}
	return (int)caplen;
}

static void rocetrace_init(void)
{
	rt_notes_start((uint64_t)pref_link_gbps * 1000000000ull); /* 0: the default, 100 Gb/s */
}

static void rocetrace_cleanup(void)
{
	rt_notes_stop();
}

/* clang-format off */
#define GEN_BOOL(id, name, abbrev, blurb) \
	{&id, {name, abbrev, FT_BOOLEAN, BASE_NONE, NULL, 0x0, blurb, HFILL}}
#define NS(id, name, abbrev, blurb) \
	{&id, {name, abbrev, FT_UINT64, BASE_DEC | BASE_UNIT_STRING, &units_nanoseconds, 0x0, blurb, \
	       HFILL}}
#define PAUSED(p) \
	{&hf_pfc_paused[p], {"Priority " #p " paused", "rocetrace.pfc.paused_ns.p" #p, FT_UINT64, \
	  BASE_DEC | BASE_UNIT_STRING, &units_nanoseconds, 0x0, \
	  "Time this frame paused priority " #p " (its quanta at the link speed preference, " \
	  "ended early by the sender's next PFC frame for the priority)", HFILL}}
/* clang-format on */

/* The fields the plugin adds (registered by proto_register_rocetrace). */
static hf_register_info hf[] = {
    {&hf_kind,
     {"Kind", "rocetrace.kind", FT_STRING, BASE_NONE, NULL, 0x0,
      "roce, cnp, pfc, pause or malformed", HFILL}},
    {&hf_opcode,
     {"Opcode", "rocetrace.opcode", FT_UINT8, BASE_HEX, NULL, 0x0, "BTH opcode", HFILL}},
    {&hf_opcode_name,
     {"Opcode name", "rocetrace.opcode_name", FT_STRING, BASE_NONE, NULL, 0x0,
      "BTH opcode name (e.g. RC_SEND_ONLY, CNP)", HFILL}},
    GEN_BOOL(hf_cnp, "CNP", "rocetrace.cnp", "Congestion notification packet (opcode 0x81)"),
    {&hf_cnp_dest_qp,
     {"CNP destination QP", "rocetrace.cnp.dest_qp", FT_UINT24, BASE_DEC_HEX, NULL, 0x0,
      "The QP that must slow down", HFILL}},
    GEN_BOOL(hf_fecn, "FECN", "rocetrace.fecn", "BTH forward explicit congestion notification"),
    GEN_BOOL(hf_becn, "BECN", "rocetrace.becn", "BTH backward explicit congestion notification"),
    GEN_BOOL(hf_ce, "CE", "rocetrace.ce", "IP ECN field is Congestion Experienced"),
    {&hf_icrc_status,
     {"ICRC", "rocetrace.icrc.status", FT_STRING, BASE_NONE, NULL, 0x0,
      "ok, bad, or unchecked (truncated, RoCEv1, verification off)", HFILL}},
    {&hf_icrc_stored,
     {"ICRC stored", "rocetrace.icrc.stored", FT_UINT32, BASE_HEX, NULL, 0x0,
      "The ICRC field (little-endian)", HFILL}},
    {&hf_icrc_computed,
     {"ICRC computed", "rocetrace.icrc.computed", FT_UINT32, BASE_HEX, NULL, 0x0,
      "The ICRC computed over the masked headers and payload", HFILL}},
    GEN_BOOL(hf_truncated, "Truncated", "rocetrace.truncated",
             "A needed header was cut by the snap length"),
    {&hf_event,
     {"Event", "rocetrace.event", FT_STRING, BASE_NONE, NULL, 0x0,
      "A named dissector event (truncation or invalid input)", HFILL}},
    {&hf_flow,
     {"Flow", "rocetrace.flow", FT_STRING, BASE_NONE, NULL, 0x0,
      "Source IP, destination IP, destination QP", HFILL}},
    {&hf_flow_id,
     {"Flow id", "rocetrace.flow_id", FT_UINT32, BASE_DEC, NULL, 0x0,
      "Flows numbered from 0 in order of first packet (as rocetrace analyze)", HFILL}},
    {&hf_peer_flow_id,
     {"Peer flow id", "rocetrace.peer_flow_id", FT_UINT32, BASE_DEC, NULL, 0x0,
      "The flow the other way of the same QP pair (for a CNP: the flow it throttles)", HFILL}},
    {&hf_psn_gap,
     {"PSN gap", "rocetrace.psn_gap", FT_UINT32, BASE_DEC, NULL, 0x0,
      "PSNs missing before this request", HFILL}},
    GEN_BOOL(hf_psn_jump, "PSN jump", "rocetrace.psn_jump",
             "PSN moved by more than 65536: tracking restarted (QP reuse)"),
    GEN_BOOL(hf_retrans, "Retransmission", "rocetrace.retransmission",
             "RC/XRC request at or behind the highest PSN seen"),
    {&hf_retrans_nak,
     {"Resent after NAK in frame", "rocetrace.retransmission.nak_frame", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0, "The NAK that started this go-back-N", HFILL}},
    GEN_BOOL(hf_duplicate, "Duplicate", "rocetrace.duplicate",
             "UC request at or behind the highest PSN"),
    {&hf_copy_of,
     {"Copy of frame", "rocetrace.copy_of", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_DUP_ACK), 0x0,
      "The same packet seen before (another capture point, or again at this one): "
      "only that frame counts",
      HFILL}},
    {&hf_nak,
     {"NAK", "rocetrace.nak", FT_UINT8, BASE_DEC, NULL, 0x0,
      "AETH NAK code (0 PSN sequence error, 1 invalid request, 2 remote access error, "
      "3 remote operational error, 4 invalid RD request)",
      HFILL}},
    {&hf_rnr_nak,
     {"RNR NAK timer", "rocetrace.rnr_nak", FT_UINT8, BASE_DEC, NULL, 0x0,
      "AETH receiver-not-ready NAK, with its timer code", HFILL}},
    {&hf_cnp_for_frame,
     {"CNP for CE-marked frame", "rocetrace.cnp_for_frame", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
      "The first CE-marked frame of the throttled flow since its previous CNP", HFILL}},
    {&hf_cnp_frame,
     {"Answered by CNP in frame", "rocetrace.cnp_frame", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
      "The CNP this CE-marked frame triggered (needs two passes: tshark -2)", HFILL}},
    NS(hf_cnp_delay, "CE mark to CNP", "rocetrace.cnp.delay_ns",
       "From the CE-marked frame this CNP answers (rocetrace.cnp_for_frame) to the CNP: "
       "the notification point's reaction time"),
    NS(hf_ack_rtt, "Round trip", "rocetrace.ack_rtt_ns",
       "From the newest request with AckReq this ACK acknowledges to the ACK"),
    {&hf_ack_rtt_frame,
     {"Round trip of the request in frame", "rocetrace.ack_rtt.request_frame", FT_FRAMENUM,
      BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_ACK), 0x0,
      "The request whose round trip rocetrace.ack_rtt_ns is", HFILL}},
    {&hf_resend_of,
     {"Resend of frame", "rocetrace.retransmission.resend_of", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_PREV), 0x0, "The frame that last sent this PSN of the flow",
      HFILL}},
    NS(hf_resend_after, "Resend delay", "rocetrace.retransmission.after_ns",
       "The time since that frame (rocetrace.retransmission.resend_of)"),
    NS(hf_resend_wait, "Resend run's wait", "rocetrace.retransmission.wait_ns",
       "On the first request of a resend run: after the NAK or RNR NAK that started it "
       "(go-back-N), or after the flow's previous request (a timeout)"),
    PAUSED(0),
    PAUSED(1),
    PAUSED(2),
    PAUSED(3),
    PAUSED(4),
    PAUSED(5),
    PAUSED(6),
    PAUSED(7),
    {&hf_pause_paused,
     {"PAUSE paused", "rocetrace.pause.paused_ns", FT_UINT64, BASE_DEC | BASE_UNIT_STRING,
      &units_nanoseconds, 0x0,
      "Time this 802.3x PAUSE paused all traffic (ended early by the next PAUSE)", HFILL}},
};

static void proto_register_rocetrace(void)
{
	static gint *ett[] = {&ett_rocetrace, &ett_analysis};
	static ei_register_info ei[] = {
	    {&ei_icrc_bad, {"rocetrace.icrc.bad", PI_CHECKSUM, PI_ERROR, "Bad ICRC", EXPFILL}},
	    {&ei_malformed,
	     {"rocetrace.malformed", PI_MALFORMED, PI_WARN,
	      "Malformed: the frame breaks the spec at a layer rocetrace needed", EXPFILL}},
	    {&ei_nak, {"rocetrace.nak.expert", PI_SEQUENCE, PI_WARN, "NAK", EXPFILL}},
	    {&ei_rnr_nak, {"rocetrace.rnr_nak.expert", PI_SEQUENCE, PI_NOTE, "RNR NAK", EXPFILL}},
	    {&ei_retrans,
	     {"rocetrace.retransmission.expert", PI_SEQUENCE, PI_NOTE, "Retransmission", EXPFILL}},
	    {&ei_gap, {"rocetrace.psn_gap.expert", PI_SEQUENCE, PI_WARN, "PSN gap", EXPFILL}},
	    {&ei_duplicate,
	     {"rocetrace.duplicate.expert", PI_SEQUENCE, PI_WARN, "Duplicate PSN", EXPFILL}},
	    {&ei_copy,
	     {"rocetrace.copy_of.expert", PI_SEQUENCE, PI_NOTE, "Copy of a packet already counted",
	      EXPFILL}},
	    {&ei_cnp, {"rocetrace.cnp.expert", PI_SEQUENCE, PI_CHAT, "CNP", EXPFILL}},
	};

	proto_rocetrace =
	    proto_register_protocol("rocetrace RoCE analysis", "rocetrace", "rocetrace");
	proto_register_field_array(proto_rocetrace, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	expert_module_t *em = expert_register_protocol(proto_rocetrace);
	expert_register_field_array(em, ei, array_length(ei));

	module_t *m = prefs_register_protocol(proto_rocetrace, NULL);
	prefs_register_uint_preference(
	    m, "link_speed_gbps", "Link speed (Gb/s)",
	    "Link speed for PFC/PAUSE quanta to time (one quantum = 512 bit times); "
	    "default 100, 0 means 100",
	    10, &pref_link_gbps);
	prefs_register_uint_preference(m, "udp_port", "RoCEv2 UDP port",
	                               "UDP destination port of RoCEv2 (default 4791)", 10,
	                               &pref_udp_port);
	prefs_register_bool_preference(
	    m, "verify_icrc", "Verify the ICRC",
	    "Compute each RoCEv2 packet's ICRC and compare it with the stored one",
	    &pref_verify_icrc);

	rt_notes_register();
	register_init_routine(rocetrace_init);
	register_cleanup_routine(rocetrace_cleanup);
	rocetrace_handle = create_dissector_handle(dissect_rocetrace, proto_rocetrace);
}

static void proto_reg_handoff_rocetrace(void)
{
	register_postdissector(rocetrace_handle);
	/* the BTH opcode item a CNP renames must be in the tree */
	hf_ib_opcode = proto_registrar_get_id_byname("infiniband.bth.opcode");
	if (hf_ib_opcode > 0) {
		GArray *wanted = g_array_new(FALSE, FALSE, (guint)sizeof(int));
		g_array_append_val(wanted, hf_ib_opcode);
		set_postdissector_wanted_hfids(rocetrace_handle, wanted);
	}
}

void plugin_register(void)
{
	static proto_plugin plug;
	plug.register_protoinfo = proto_register_rocetrace;
	plug.register_handoff = proto_reg_handoff_rocetrace;
	proto_register_plugin(&plug);
}
