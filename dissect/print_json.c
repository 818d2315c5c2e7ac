/* The JSON printer of packet records (dissect --json): one object per frame, its keys from one
 * list. */
#include <stdint.h>
#include <string.h>

#include "common/textfmt.h"
#include "common/json.h"
#include "dissect/opcodes.h"
#include "dissect/print.h"

/*
 * Every top-level key the printer writes, in order, with what it holds.
 * The printer names keys only through KEY(), which refuses (at compile
 * time) a key missing here, and the command's --help prints this list.
 */
#define JSON_KEYS(X)                                                                               \
	X(frame, "the frame's 1-based number in the file (as Wireshark numbers it); with several " \
	         "files, in the stream merged by time")                                            \
	X(file, "with several files: the frame's file, as given")                                  \
	X(ts, "timestamp, \"SECONDS.NANOSECONDS\"")                                                \
	X(ts_ns, "the same as an integer of nanoseconds (exact in Python and pandas; jq 1.6 "      \
	         "rounds it to a double: use ts there)")                                           \
	X(len, "bytes on the wire")                                                                \
	X(caplen, "bytes captured")                                                                \
	X(kind, "roce, cnp, pfc, pause, other or malformed")                                       \
	X(erspan, "a frame a switch mirrored with ERSPAN: {version: 0|1|2 (type I|II|III), "       \
	          "session, outer_src, outer_dst}; everything else describes the inner frame")     \
	X(gre, "a frame decapsulated from plain GRE: {outer_src, outer_dst}")                      \
	X(src, "source IP address (RoCEv1: the source GID)")                                       \
	X(dst, "destination IP address (RoCEv1: the destination GID)")                             \
	X(dscp, "DSCP")                                                                            \
	X(ecn, "ECN codepoint, 0-3 (3 is CE)")                                                     \
	X(src_mac, "source MAC, for frames without IP")                                            \
	X(dst_mac, "destination MAC, for Ethernet frames without IP")                              \
	X(ethertype, "the Ethertype (or Linux cooked protocol) of a frame without IP")             \
	X(vlan, "VLAN id of the outer 802.1Q/802.1ad tag")                                         \
	X(pcp, "its priority")                                                                     \
	X(inner_vlan, "VLAN id of a second tag (more tags: event link_extra_vlan_tags)")           \
	X(inner_pcp, "its priority")                                                               \
	X(udp_sport, "UDP source port")                                                            \
	X(udp_dport, "UDP destination port")                                                       \
	X(rocev1, "true for RoCEv1 (GRH) encapsulation")                                           \
	X(opcode, "BTH opcode (number)")                                                           \
	X(opcode_name, "its name, e.g. RC_SEND_ONLY, CNP")                                         \
	X(dest_qp, "destination QP")                                                               \
	X(dest_qp_hex, "the same as the text prints it: 0x000011")                                 \
	X(psn, "packet sequence number")                                                           \
	X(ackreq, "BTH AckReq")                                                                    \
	X(fecn, "BTH FECN")                                                                        \
	X(becn, "BTH BECN")                                                                        \
	X(se, "BTH solicited event")                                                               \
	X(migreq, "BTH MigReq")                                                                    \
	X(pad, "BTH pad count")                                                                    \
	X(pkey, "BTH partition key")                                                               \
	X(ee_context, "RDETH EE context")                                                          \
	X(xrc_srq, "XRCETH XRC SRQ")                                                               \
	X(feth, "FETH (32 bits, raw)")                                                             \
	X(reth, "RETH: {va, rkey, len}")                                                           \
	X(aeth, "AETH: {syndrome, msn, type: ack|rnr|nak|reserved, and credits, rnr_timer "        \
	        "or nak_code}")                                                                    \
	X(deth, "DETH: {qkey, src_qp}")                                                            \
	X(immediate, "ImmDt")                                                                      \
	X(atomic, "AtomicETH: {va, rkey, swap_add, compare}")                                      \
	X(atomic_ack, "AtomicAckETH: {orig}")                                                      \
	X(ieth, "IETH R_Key")                                                                      \
	X(cm, "an RDMA CM message on QP 1: {message (REQ, REP, RTU, REJ, MRA, DREQ, DREP, "        \
	      "SIDR_REQ, SIDR_REP, LAP, APR, ClassPortInfo), attribute, method, transaction_id, "  \
	      "local_comm_id (SIDR: request_id), remote_comm_id, local_qpn, remote_qpn, "          \
	      "start_psn, qkey, service_id (and port_space, port of an RDMA CM service), "         \
	      "REJ: rejected, reason, reason_name; MRA: delayed, service_timeout; status}, the "   \
	      "keys its message carries")                                                          \
	X(ip_proto, "IPv4 protocol or IPv6 next header (the one after the extension headers, or "  \
	            "where their walk stopped), for frames that are not RoCE")                     \
	X(proto, "what a frame that is not RoCE carries, named: tcp, udp, icmp, icmp6, arp, "      \
	         "lldp, stp, another IP protocol or Ethertype by name; absent when it has none")   \
	X(tcp, "TCP: {sport, dport, seq, ack, flags (tcpdump's letters: S, S., P., F., R, ...), "  \
	       "window}")                                                                          \
	X(icmp, "ICMP or ICMPv6 (proto says which): {type, code, name, and id, seq of an echo}")   \
	X(arp, "Ethernet/IPv4 ARP: {op (1 request, 2 reply), sender_mac, sender_ip, target_mac, "  \
	       "target_ip}")                                                                       \
	X(llc, "an 802.3 frame's LLC header: {dsap, ssap}")                                        \
	X(payload, "payload bytes on the wire: after the BTH and its extended headers (without "   \
	           "pad and ICRC), or after the TCP or UDP header of a frame that is not RoCE")    \
	X(icrc, "ok, bad or unchecked (cut by the snap length, RoCEv1, behind IPv6 extension "     \
	        "headers: event icrc_ipv6_ext_headers, --no-icrc)")                                \
	X(pfc, "PFC: {enable (class-enable vector), quanta: [8 numbers]}")                         \
	X(pause, "802.3x PAUSE: {quanta}")                                                         \
	X(macc_opcode, "the opcode of another MAC control frame")                                  \
	X(truncated, "true when the snap length cut a header the dissector needed (not when it "   \
	             "cut only the payload, pad or ICRC: event icrc_truncated)")                   \
	X(events, "names of what the dissector noticed (truncation, invalid input, and the "       \
	          "notices ip_fragment, icrc_ipv6_ext_headers, link_extra_vlan_tags, "             \
	          "link_wire_length_short: the record's wire length below its captured bytes, "    \
	          "taken as their number)")

enum json_key {
#define X(key, help) JK_##key,
	JSON_KEYS(X)
#undef X
};

const struct rt_json_key_help rt_print_json_keys[] = {
#define X(key, help) {#key, help},
    JSON_KEYS(X)
#undef X
};
const size_t rt_print_json_nkeys = sizeof(rt_print_json_keys) / sizeof(rt_print_json_keys[0]);

/* A key of the list (a compile error for any other), then its value. */
#define KEY(j, key) ((void)JK_##key, RT_JSON_KEY((j), #key))
#define CHECKED(key, member)                                                                       \
	do {                                                                                       \
		(void)JK_##key;                                                                    \
		member;                                                                            \
	} while (0)
#define KEY_U64(j, key, v)  CHECKED(key, RT_JSON_U64((j), #key, (v)))
#define KEY_BOOL(j, key, v) CHECKED(key, RT_JSON_BOOL((j), #key, (v)))
/* names from the dissector's tables: nothing to escape */
#define KEY_NAME(j, key, v) CHECKED(key, RT_JSON_NAME((j), #key, (v)))
#define KEY_TS(j, key, v)   CHECKED(key, RT_JSON_TS((j), #key, (v)))
#define KEY_STR(j, key, v)  CHECKED(key, RT_JSON_STR((j), #key, (v)))

static void json_aeth(struct rt_json *j, const struct rt_record *r)
{
	KEY(j, aeth);
	rt_json_obj(j);
	RT_JSON_U64(j, "syndrome", r->aeth_syndrome);
	RT_JSON_U64(j, "msn", r->aeth_msn);
	RT_JSON_NAME(j, "type", rt_aeth_type_name(r->aeth_syndrome));
	switch (rt_aeth_type(r->aeth_syndrome)) {
	case RT_AETH_NAK:
		RT_JSON_U64(j, "nak_code", r->aeth_syndrome & 0x1F);
		break;
	case RT_AETH_RNR_NAK:
		RT_JSON_U64(j, "rnr_timer", r->aeth_syndrome & 0x1F);
		break;
	case RT_AETH_ACK:
		RT_JSON_U64(j, "credits", r->aeth_syndrome & 0x1F);
		break;
	default:
		break;
	}
	rt_json_obj_end(j);
}

/* "cm": {...}: the keys of the fields its message carries (rt_cm_fields()). */
static void json_cm(struct rt_json *j, const struct rt_cm *cm)
{
	unsigned has = rt_cm_fields(cm->attr);
	KEY(j, cm);
	rt_json_obj(j);
	RT_JSON_NAME(j, "message", rt_cm_message_name(cm->attr));
	RT_JSON_U64(j, "attribute", cm->attr);
	RT_JSON_U64(j, "method", cm->method);
	RT_JSON_U64(j, "transaction_id", cm->tid);
	if (has & RT_CMF_REQUEST_ID)
		RT_JSON_U64(j, "request_id", cm->local_comm_id);
	else if (cm->attr != RT_CM_ATTR_CLASS_PORT_INFO)
		RT_JSON_U64(j, "local_comm_id", cm->local_comm_id);
	if (has & RT_CMF_REMOTE_COMM_ID)
		RT_JSON_U64(j, "remote_comm_id", cm->remote_comm_id);
	if (has & RT_CMF_STATUS)
		RT_JSON_U64(j, "status", cm->status);
	if (has & RT_CMF_LOCAL_QPN)
		RT_JSON_U64(j, "local_qpn", cm->local_qpn);
	if (has & RT_CMF_REMOTE_QPN)
		RT_JSON_U64(j, "remote_qpn", cm->remote_qpn);
	if (has & RT_CMF_START_PSN)
		RT_JSON_U64(j, "start_psn", cm->start_psn);
	if (has & RT_CMF_QKEY)
		RT_JSON_U64(j, "qkey", cm->qkey);
	if (has & RT_CMF_REJECT) {
		const char *why = rt_cm_reject_name(cm->reason);
		RT_JSON_NAME(j, "rejected", rt_cm_msg_name(cm->msg));
		RT_JSON_U64(j, "reason", cm->reason);
		if (why)
			RT_JSON_NAME(j, "reason_name", why);
	}
	if (has & RT_CMF_MRA) {
		RT_JSON_NAME(j, "delayed", rt_cm_msg_name(cm->msg));
		RT_JSON_U64(j, "service_timeout", cm->timeout);
	}
	if (has & RT_CMF_SERVICE_ID) {
		const char *ps = rt_cm_port_space(cm->service_id);
		RT_JSON_U64(j, "service_id", cm->service_id);
		if (ps) {
			RT_JSON_NAME(j, "port_space", ps);
			RT_JSON_U64(j, "port", cm->service_id & 0xFFFF);
		}
	}
	rt_json_obj_end(j);
}

static void json_bth(struct rt_json *j, const struct rt_record *r)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(r->opcode);

	KEY_U64(j, opcode, r->opcode);
	if (info)
		KEY_NAME(j, opcode_name, info->name);
	KEY_U64(j, dest_qp, r->dest_qp);
	char qp[RT_QP_TEXT_MAX];
	KEY_NAME(j, dest_qp_hex, rt_fmt_qp(qp, r->dest_qp));
	KEY_U64(j, psn, r->psn);
	KEY_BOOL(j, ackreq, r->ackreq);
	KEY_BOOL(j, fecn, r->fecn);
	KEY_BOOL(j, becn, r->becn);
	KEY_BOOL(j, se, r->se);
	KEY_BOOL(j, migreq, r->migreq);
	KEY_U64(j, pad, r->padcnt);
	KEY_U64(j, pkey, r->pkey);
	if (r->hdrs & RT_H_RDETH)
		KEY_U64(j, ee_context, r->rdeth_eecnxt);
	if (r->hdrs & RT_H_XRCETH)
		KEY_U64(j, xrc_srq, r->xrc_srq);
	if (r->hdrs & RT_H_FETH)
		KEY_U64(j, feth, r->feth);
	if (r->hdrs & RT_H_RETH) {
		KEY(j, reth);
		rt_json_obj(j);
		RT_JSON_U64(j, "va", r->reth_va);
		RT_JSON_U64(j, "rkey", r->reth_rkey);
		RT_JSON_U64(j, "len", r->reth_len);
		rt_json_obj_end(j);
	}
	if (r->hdrs & RT_H_AETH)
		json_aeth(j, r);
	if (r->hdrs & RT_H_DETH) {
		KEY(j, deth);
		rt_json_obj(j);
		RT_JSON_U64(j, "qkey", r->deth_qkey);
		RT_JSON_U64(j, "src_qp", r->deth_src_qp);
		rt_json_obj_end(j);
	}
	if (r->hdrs & RT_H_IMMDT)
		KEY_U64(j, immediate, r->immediate);
	if (r->hdrs & RT_H_ATOMICETH) {
		KEY(j, atomic);
		rt_json_obj(j);
		RT_JSON_U64(j, "va", r->atomic_va);
		RT_JSON_U64(j, "rkey", r->atomic_rkey);
		RT_JSON_U64(j, "swap_add", r->atomic_swap_add);
		RT_JSON_U64(j, "compare", r->atomic_compare);
		rt_json_obj_end(j);
	}
	if (r->hdrs & RT_H_ATOMICACKETH) {
		KEY(j, atomic_ack);
		rt_json_obj(j);
		RT_JSON_U64(j, "orig", r->atomic_ack_orig);
		rt_json_obj_end(j);
	}
	if (r->hdrs & RT_H_IETH)
		KEY_U64(j, ieth, r->ieth_rkey);
	if (r->layers & RT_L_CM)
		json_cm(j, &r->cm);
	if (r->kind == RT_KIND_ROCE || r->kind == RT_KIND_CNP)
		KEY_U64(j, payload, r->payload_len);
	KEY_NAME(j, icrc, rt_icrc_name((enum rt_icrc_status)r->icrc));
}

static void json_macc(struct rt_json *j, const struct rt_record *r)
{
	if (r->events & RT_EV_MACC_TRUNCATED)
		return;
	if (r->kind == RT_KIND_PFC) {
		KEY(j, pfc);
		rt_json_obj(j);
		RT_JSON_U64(j, "enable", r->pfc_enable);
		RT_JSON_KEY(j, "quanta");
		rt_json_arr(j);
		for (int i = 0; i < 8; i++) {
			rt_json_next(j);
			rt_json_u64(j, r->pfc_quanta[i]);
		}
		rt_json_arr_end(j);
		rt_json_obj_end(j);
	} else if (r->kind == RT_KIND_PAUSE) {
		KEY(j, pause);
		rt_json_obj(j);
		RT_JSON_U64(j, "quanta", r->pause_quanta);
		rt_json_obj_end(j);
	} else {
		KEY_U64(j, macc_opcode, r->macc_opcode);
	}
}

/* The name "proto" gives what a frame without a BTH or MAC control carries, or NULL. */
static const char *other_name(const struct rt_record *r)
{
	if (r->ip_version)
		return (r->layers & RT_L_ICMP) && r->ip_version == 6
		           ? "icmp6"
		           : rt_ip_proto_name(r->ip_proto);
	if (r->layers & RT_L_LLC)
		return r->other.llc.dsap == 0x42 ? "stp" : "llc";
	if (r->layers & (RT_L_ETH | RT_L_SLL | RT_L_SLL2))
		return rt_ethertype_name(r->ethertype);
	return NULL;
}

/* ip_proto, proto, and tcp, icmp, arp or llc with payload: a frame that is not RoCE. */
static void json_other(struct rt_json *j, const struct rt_record *r)
{
	const struct rt_other *x = &r->other;
	const char *name = other_name(r);
	char flags[9];
	if (r->rocev1)
		return;
	if (r->ip_version)
		KEY_U64(j, ip_proto, r->ip_proto);
	if (name)
		KEY_NAME(j, proto, name);
	if (r->layers & RT_L_TCP) {
		KEY(j, tcp);
		rt_json_obj(j);
		RT_JSON_U64(j, "sport", x->tcp.sport);
		RT_JSON_U64(j, "dport", x->tcp.dport);
		RT_JSON_U64(j, "seq", x->tcp.seq);
		RT_JSON_U64(j, "ack", x->tcp.ack);
		RT_JSON_NAME(j, "flags", rt_tcp_flags_text(x->tcp.flags, flags));
		RT_JSON_U64(j, "window", x->tcp.window);
		rt_json_obj_end(j);
	} else if (r->layers & RT_L_ICMP) {
		const char *type = rt_icmp_type_name(x->icmp.type, r->ip_version == 6);
		KEY(j, icmp);
		rt_json_obj(j);
		RT_JSON_U64(j, "type", x->icmp.type);
		RT_JSON_U64(j, "code", x->icmp.code);
		if (type)
			RT_JSON_NAME(j, "name", type);
		if (type && !strncmp(type, "echo-", 5)) {
			RT_JSON_U64(j, "id", x->icmp.id);
			RT_JSON_U64(j, "seq", x->icmp.seq);
		}
		rt_json_obj_end(j);
	} else if (r->layers & RT_L_ARP) {
		uint8_t ip[16] = {0};
		KEY(j, arp);
		rt_json_obj(j);
		RT_JSON_U64(j, "op", x->arp.op);
		RT_JSON_KEY(j, "sender_mac");
		rt_json_mac(j, x->arp.sender_mac);
		RT_JSON_KEY(j, "sender_ip");
		memcpy(ip, x->arp.sender_ip, 4);
		rt_json_ip(j, 4, ip);
		RT_JSON_KEY(j, "target_mac");
		rt_json_mac(j, x->arp.target_mac);
		RT_JSON_KEY(j, "target_ip");
		memcpy(ip, x->arp.target_ip, 4);
		rt_json_ip(j, 4, ip);
		rt_json_obj_end(j);
	} else if (r->layers & RT_L_LLC) {
		KEY(j, llc);
		rt_json_obj(j);
		RT_JSON_U64(j, "dsap", x->llc.dsap);
		RT_JSON_U64(j, "ssap", x->llc.ssap);
		rt_json_obj_end(j);
	}
	if (r->layers & (RT_L_UDP | RT_L_TCP))
		KEY_U64(j, payload, r->payload_len);
}

/* The names of the record's events, in bit order. */
static void json_events(struct rt_json *j, uint64_t events)
{
	if (!events)
		return;
	KEY(j, events);
	rt_json_arr(j);
	for (unsigned i = 0; i < RT_EV_COUNT; i++) {
		if (!(events & rt_events[i].bit))
			continue;
		rt_json_next(j);
		rt_json_name(j, rt_events[i].name);
	}
	rt_json_arr_end(j);
}

/* "erspan": {...} or "gre": {...}: what the tunnel of a decapsulated frame was. */
static void json_encap(struct rt_json *j, const struct rt_record *r)
{
	if (r->layers & RT_L_ERSPAN) {
		KEY(j, erspan);
		rt_json_obj(j);
		RT_JSON_U64(j, "version", r->encap.erspan_version);
		RT_JSON_U64(j, "session", r->encap.erspan_session);
	} else {
		KEY(j, gre);
		rt_json_obj(j);
	}
	RT_JSON_KEY(j, "outer_src");
	rt_json_ip(j, r->encap.outer_ip_version, r->encap.outer_src_ip);
	RT_JSON_KEY(j, "outer_dst");
	rt_json_ip(j, r->encap.outer_ip_version, r->encap.outer_dst_ip);
	rt_json_obj_end(j);
}

void rt_print_json(struct rt_outbuf *o, uint64_t frame, const char *file, const struct rt_record *r)
{
	struct rt_json jw, *j = &jw;

	rt_json_init(j, o);
	rt_json_obj(j);
	KEY_U64(j, frame, frame);
	if (file)
		KEY_STR(j, file, file);
	KEY_TS(j, ts, r->ts_ns);
	KEY_U64(j, ts_ns, r->ts_ns);
	KEY_U64(j, len, r->wirelen);
	KEY_U64(j, caplen, r->caplen);
	KEY_NAME(j, kind, rt_kind_name((enum rt_kind)r->kind));
	if (r->layers & RT_L_GRE)
		json_encap(j, r);
	if (r->ip_version) {
		KEY(j, src);
		rt_json_ip(j, r->ip_version, r->src_ip);
		KEY(j, dst);
		rt_json_ip(j, r->ip_version, r->dst_ip);
		KEY_U64(j, dscp, r->dscp);
		KEY_U64(j, ecn, r->ecn);
	} else {
		if (r->layers & (RT_L_ETH | RT_L_SLL | RT_L_SLL2)) {
			KEY(j, src_mac);
			rt_json_mac(j, r->src_mac);
		}
		if (r->layers & RT_L_ETH) {
			KEY(j, dst_mac);
			rt_json_mac(j, r->dst_mac);
		}
		if ((r->layers & (RT_L_ETH | RT_L_SLL | RT_L_SLL2)) && !(r->layers & RT_L_LLC) &&
		    !(r->events & RT_EV_LINK_TRUNCATED))
			KEY_U64(j, ethertype, r->ethertype);
	}
	if (r->nvlan >= 1) {
		KEY_U64(j, vlan, r->vlan[0]);
		KEY_U64(j, pcp, r->pcp[0]);
	}
	if (r->nvlan >= 2) {
		KEY_U64(j, inner_vlan, r->vlan[1]);
		KEY_U64(j, inner_pcp, r->pcp[1]);
	}
	if (r->layers & RT_L_UDP) {
		KEY_U64(j, udp_sport, r->udp_sport);
		KEY_U64(j, udp_dport, r->udp_dport);
	}
	if (r->rocev1)
		KEY_BOOL(j, rocev1, true);
	if (rt_record_has_bth(r))
		json_bth(j, r);
	else if (r->layers & RT_L_MACC)
		json_macc(j, r);
	else
		json_other(j, r);
	KEY_BOOL(j, truncated, r->truncated);
	json_events(j, r->events);
	rt_json_obj_end(j);
	rt_out_char(o, '\n');
}
