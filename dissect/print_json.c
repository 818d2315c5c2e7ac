/* The JSON printer of packet records (dissect --json): one object per frame, its keys from one
 * list. */
#include <stdint.h>

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
	X(vlan, "VLAN id of the outer 802.1Q/802.1ad tag")                                         \
	X(pcp, "its priority")                                                                     \
	X(inner_vlan, "VLAN id of a second tag")                                                   \
	X(inner_pcp, "its priority")                                                               \
	X(udp_sport, "UDP source port")                                                            \
	X(rocev1, "true for RoCEv1 (GRH) encapsulation")                                           \
	X(opcode, "BTH opcode (number)")                                                           \
	X(opcode_name, "its name, e.g. RC_SEND_ONLY, CNP")                                         \
	X(dest_qp, "destination QP")                                                               \
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
	X(icrc, "ok, bad or unchecked (cut by the snap length, RoCEv1, --no-icrc)")                \
	X(pfc, "PFC: {enable (class-enable vector), quanta: [8 numbers]}")                         \
	X(pause, "802.3x PAUSE: {quanta}")                                                         \
	X(macc_opcode, "the opcode of another MAC control frame")                                  \
	X(truncated, "true when the snap length cut a header the dissector needed")                \
	X(events, "names of what the dissector noticed (truncation, invalid input)")

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

static void json_bth(struct rt_json *j, const struct rt_record *r)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(r->opcode);

	KEY_U64(j, opcode, r->opcode);
	if (info)
		KEY_NAME(j, opcode_name, info->name);
	KEY_U64(j, dest_qp, r->dest_qp);
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
	}
	if (r->nvlan >= 1) {
		KEY_U64(j, vlan, r->vlan[0]);
		KEY_U64(j, pcp, r->pcp[0]);
	}
	if (r->nvlan >= 2) {
		KEY_U64(j, inner_vlan, r->vlan[1]);
		KEY_U64(j, inner_pcp, r->pcp[1]);
	}
	if (r->layers & RT_L_UDP)
		KEY_U64(j, udp_sport, r->udp_sport);
	if (r->rocev1)
		KEY_BOOL(j, rocev1, true);
	if (rt_record_has_bth(r))
		json_bth(j, r);
	else if (r->layers & RT_L_MACC)
		json_macc(j, r);
	KEY_BOOL(j, truncated, r->truncated);
	json_events(j, r->events);
	rt_json_obj_end(j);
	rt_out_char(o, '\n');
}
