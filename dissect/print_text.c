/* The text printer of packet records: one tcpdump-style line per frame. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "dissect/opcodes.h"
#include "dissect/print.h"

/* A string literal, copied without strlen. */
#define OUT_LIT(o, s) rt_out_write((o), (s), sizeof(s) - 1)

/* " key=value" with a literal key */
#define KV_U64(o, key, v)                                                                          \
	do {                                                                                       \
		OUT_LIT((o), " " key);                                                             \
		rt_out_u64((o), (v));                                                              \
	} while (0)
#define KV_HEX(o, key, v, width)                                                                   \
	do {                                                                                       \
		OUT_LIT((o), " " key);                                                             \
		rt_out_hex((o), (v), (width));                                                     \
	} while (0)

static const char *ecn_text(uint8_t ecn)
{
	static const char *const names[4] = {"not-ECT", "ECT(1)", "ECT(0)", "CE"};
	return names[ecn & 3];
}

/* RNR NAK timer codes in milliseconds (code 0 is the longest). */
static const char *const rnr_timer_ms[32] = {
    "655.36", "0.01",  "0.02",  "0.03",   "0.04",   "0.06",   "0.08",   "0.12",
    "0.16",   "0.24",  "0.32",  "0.48",   "0.64",   "0.96",   "1.28",   "1.92",
    "2.56",   "3.84",  "5.12",  "7.68",   "10.24",  "15.36",  "20.48",  "30.72",
    "40.96",  "61.44", "81.92", "122.88", "163.84", "245.76", "327.68", "491.52",
};

static void text_aeth(struct rt_outbuf *o, const struct rt_record *r)
{
	uint8_t low = r->aeth_syndrome & 0x1F;
	switch (rt_aeth_type(r->aeth_syndrome)) {
	case RT_AETH_ACK:
		OUT_LIT(o, " ack");
		KV_U64(o, "msn=", r->aeth_msn);
		if (low == RT_AETH_CREDITS_INVALID)
			OUT_LIT(o, " credits=invalid");
		else
			KV_U64(o, "credits=", low);
		break;
	case RT_AETH_RNR_NAK:
		OUT_LIT(o, " rnr");
		KV_U64(o, "timer=", low);
		rt_out_char(o, '(');
		rt_out_str(o, rnr_timer_ms[low]);
		OUT_LIT(o, "ms)");
		KV_U64(o, "msn=", r->aeth_msn);
		break;
	case RT_AETH_NAK:
		OUT_LIT(o, " nak ");
		rt_out_str(o, rt_nak_code_name(low));
		KV_U64(o, "msn=", r->aeth_msn);
		break;
	default:
		KV_HEX(o, "aeth syndrome=", r->aeth_syndrome, 2);
		KV_U64(o, "msn=", r->aeth_msn);
		break;
	}
}

/* " cm REQ comm_id=0x... local_qpn=0x... start_psn=N service_id=0x...(tcp:18515)": an RDMA CM message. */
static void text_cm(struct rt_outbuf *o, const struct rt_cm *cm)
{
	unsigned has = rt_cm_fields(cm->attr);
	OUT_LIT(o, " cm ");
	rt_out_str(o, rt_cm_message_name(cm->attr));
	if (cm->method != 0x03) /* Send */
		KV_HEX(o, "method=", cm->method, 2);
	if (has & RT_CMF_REQUEST_ID)
		KV_HEX(o, "request_id=", cm->local_comm_id, 8);
	else if (cm->attr != RT_CM_ATTR_CLASS_PORT_INFO)
		KV_HEX(o, "comm_id=", cm->local_comm_id, 8);
	if (has & RT_CMF_REMOTE_COMM_ID)
		KV_HEX(o, "remote_comm_id=", cm->remote_comm_id, 8);
	if (has & RT_CMF_STATUS)
		KV_U64(o, "status=", cm->status);
	if (has & RT_CMF_LOCAL_QPN)
		KV_HEX(o, "local_qpn=", cm->local_qpn, 6);
	if (has & RT_CMF_REMOTE_QPN)
		KV_HEX(o, "remote_qpn=", cm->remote_qpn, 6);
	if (has & RT_CMF_START_PSN)
		KV_U64(o, "start_psn=", cm->start_psn);
	if (has & (RT_CMF_REJECT | RT_CMF_MRA)) {
		OUT_LIT(o, " of=");
		rt_out_str(o, rt_cm_msg_name(cm->msg));
	}
	if (has & RT_CMF_REJECT) {
		const char *why = rt_cm_reject_name(cm->reason);
		KV_U64(o, "reason=", cm->reason);
		if (why)
			rt_out_printf(o, "(%s)", why);
	}
	if (has & RT_CMF_MRA)
		KV_U64(o, "timeout=", cm->timeout);
	if (has & RT_CMF_SERVICE_ID) {
		const char *ps = rt_cm_port_space(cm->service_id);
		KV_HEX(o, "service_id=", cm->service_id, 16);
		if (ps)
			rt_out_printf(o, "(%s:%u)", ps, (unsigned)(cm->service_id & 0xFFFF));
	}
}

static void text_bth(struct rt_outbuf *o, const struct rt_record *r, unsigned verbose)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(r->opcode);

	rt_out_char(o, ' ');
	if (info) {
		rt_out_str(o, info->name);
	} else {
		OUT_LIT(o, "opcode=");
		rt_out_hex(o, r->opcode, 2);
	}
	KV_HEX(o, "qp=", r->dest_qp, 6);
	KV_U64(o, "psn=", r->psn);
	if (verbose) {
		KV_HEX(o, "opcode=", r->opcode, 2);
		KV_U64(o, "tver=", r->tver);
		if (r->pkey == 0xFFFF) /* named below only when not the default */
			KV_HEX(o, "pkey=", r->pkey, 4);
	}
	if (r->se)
		OUT_LIT(o, " se");
	if (r->migreq)
		OUT_LIT(o, " migreq");
	if (r->padcnt)
		KV_U64(o, "pad=", r->padcnt);
	if (r->pkey != 0xFFFF)
		KV_HEX(o, "pkey=", r->pkey, 4);
	if (r->fecn)
		OUT_LIT(o, " fecn");
	if (r->becn)
		OUT_LIT(o, " becn");
	if (r->ackreq)
		OUT_LIT(o, " ackreq");
	if (r->hdrs & RT_H_RDETH)
		KV_HEX(o, "ee=", r->rdeth_eecnxt, 6);
	if (r->hdrs & RT_H_XRCETH)
		KV_HEX(o, "xrc_srq=", r->xrc_srq, 6);
	if (r->hdrs & RT_H_DETH) {
		KV_HEX(o, "deth qkey=", r->deth_qkey, 8);
		KV_HEX(o, "src_qp=", r->deth_src_qp, 6);
	}
	if (r->hdrs & RT_H_FETH)
		KV_HEX(o, "feth=", r->feth, 8);
	if (r->hdrs & RT_H_RETH) {
		KV_HEX(o, "reth va=", r->reth_va, 1);
		KV_HEX(o, "rkey=", r->reth_rkey, 8);
		KV_U64(o, "len=", r->reth_len);
	}
	if (r->hdrs & RT_H_ATOMICETH) {
		KV_HEX(o, "atomic va=", r->atomic_va, 1);
		KV_HEX(o, "rkey=", r->atomic_rkey, 8);
		KV_HEX(o, "swap_add=", r->atomic_swap_add, 1);
		KV_HEX(o, "compare=", r->atomic_compare, 1);
	}
	if (r->hdrs & RT_H_AETH)
		text_aeth(o, r);
	if (r->hdrs & RT_H_ATOMICACKETH)
		KV_HEX(o, "orig=", r->atomic_ack_orig, 1);
	if (r->hdrs & RT_H_IMMDT)
		KV_HEX(o, "imm=", r->immediate, 8);
	if (r->hdrs & RT_H_IETH)
		KV_HEX(o, "inv_rkey=", r->ieth_rkey, 8);
	if (r->layers & RT_L_CM)
		text_cm(o, &r->cm);
	if (r->kind == RT_KIND_ROCE || r->kind == RT_KIND_CNP) {
		if (r->payload_len)
			KV_U64(o, "payload=", r->payload_len);
		OUT_LIT(o, " icrc=");
		rt_out_str(o, rt_icrc_name((enum rt_icrc_status)r->icrc));
	}
}

static void text_macc(struct rt_outbuf *o, const struct rt_record *r)
{
	if (r->kind == RT_KIND_PFC) {
		OUT_LIT(o, " pfc");
		if (!r->pfc_enable)
			OUT_LIT(o, " none");
		for (int i = 0; i < 8; i++) {
			if (!(r->pfc_enable & (1u << i)))
				continue;
			KV_U64(o, "prio", (uint64_t)i);
			rt_out_char(o, '=');
			rt_out_u64(o, r->pfc_quanta[i]);
			if (!r->pfc_quanta[i])
				OUT_LIT(o, "(xon)");
		}
	} else if (r->kind == RT_KIND_PAUSE) {
		KV_U64(o, "pause quanta=", r->pause_quanta);
	} else {
		KV_HEX(o, "mac-control opcode=", r->macc_opcode, 4);
	}
}

/* " tcp 40312 > 22 [S.] seq=N ack=N win=N payload=N" */
static void text_tcp(struct rt_outbuf *o, const struct rt_record *r)
{
	char flags[9];
	KV_U64(o, "tcp ", r->other.tcp.sport);
	KV_U64(o, "> ", r->other.tcp.dport);
	OUT_LIT(o, " [");
	rt_out_str(o, rt_tcp_flags_text(r->other.tcp.flags, flags));
	rt_out_char(o, ']');
	KV_U64(o, "seq=", r->other.tcp.seq);
	if (r->other.tcp.flags & 0x10) /* ACK */
		KV_U64(o, "ack=", r->other.tcp.ack);
	KV_U64(o, "win=", r->other.tcp.window);
	if (r->payload_len)
		KV_U64(o, "payload=", r->payload_len);
}

/* " icmp echo-request id=1 seq=2", " icmp6 neighbor-solicitation", " icmp type=42 code=1" */
static void text_icmp(struct rt_outbuf *o, const struct rt_record *r)
{
	bool v6 = r->ip_version == 6;
	const char *name = rt_icmp_type_name(r->other.icmp.type, v6);
	rt_out_str(o, v6 ? " icmp6 " : " icmp ");
	if (name) {
		rt_out_str(o, name);
		if (r->other.icmp.code)
			KV_U64(o, "code=", r->other.icmp.code);
	} else {
		KV_U64(o, "type=", r->other.icmp.type);
		KV_U64(o, "code=", r->other.icmp.code);
	}
	if (v6 ? r->other.icmp.type == 128 || r->other.icmp.type == 129
	       : r->other.icmp.type == 0 || r->other.icmp.type == 8) {
		KV_U64(o, "id=", r->other.icmp.id);
		KV_U64(o, "seq=", r->other.icmp.seq);
	}
}

/* " arp who-has 10.0.0.2 tell 10.0.0.1", " arp reply 10.0.0.2 is-at 02:00:00:00:00:02" */
static void text_arp(struct rt_outbuf *o, const struct rt_record *r)
{
	uint8_t spa[16] = {0}, tpa[16] = {0};
	memcpy(spa, r->other.arp.sender_ip, 4);
	memcpy(tpa, r->other.arp.target_ip, 4);
	if (r->other.arp.op == 1) {
		OUT_LIT(o, " arp who-has ");
		rt_out_ip(o, 4, tpa);
		OUT_LIT(o, " tell ");
		rt_out_ip(o, 4, spa);
	} else if (r->other.arp.op == 2) {
		OUT_LIT(o, " arp reply ");
		rt_out_ip(o, 4, spa);
		OUT_LIT(o, " is-at ");
		rt_out_mac(o, r->other.arp.sender_mac);
	} else {
		KV_U64(o, "arp op=", r->other.arp.op);
	}
}

/*
 * What a frame without a BTH or MAC control carries, by protocol: TCP,
 * UDP, ICMP and ARP with their fields, another IP protocol or Ethertype by
 * its name (or number), an 802.3 frame by its LLC header. With -e
 * (`link`) an unnamed Ethertype is not repeated.
 */
static void text_other(struct rt_outbuf *o, const struct rt_record *r, bool link)
{
	if (r->rocev1)
		return;
	if (r->layers & RT_L_UDP) {
		KV_U64(o, "udp ", r->udp_sport);
		KV_U64(o, "> ", r->udp_dport);
		if (r->payload_len)
			KV_U64(o, "payload=", r->payload_len);
	} else if (r->layers & RT_L_TCP) {
		text_tcp(o, r);
	} else if (r->layers & RT_L_ICMP) {
		text_icmp(o, r);
	} else if (r->ip_version) {
		const char *name = rt_ip_proto_name(r->ip_proto);
		if (name) {
			rt_out_char(o, ' ');
			rt_out_str(o, name);
		} else {
			KV_U64(o, "proto=", r->ip_proto);
		}
	} else if (r->layers & RT_L_ARP) {
		text_arp(o, r);
	} else if (r->layers & RT_L_LLC) {
		if (r->other.llc.dsap == 0x42)
			OUT_LIT(o, " stp");
		else
			rt_out_printf(o, " llc dsap=0x%02x ssap=0x%02x", r->other.llc.dsap,
			              r->other.llc.ssap);
	} else if ((r->layers & (RT_L_ETH | RT_L_SLL | RT_L_SLL2)) &&
	           !(r->events & RT_EV_LINK_TRUNCATED)) {
		const char *name = rt_ethertype_name(r->ethertype);
		if (name) {
			rt_out_char(o, ' ');
			rt_out_str(o, name);
		} else if (!link) {
			KV_HEX(o, "ethertype=", r->ethertype, 4);
		}
	}
}

/*
 * What the decode-event table says of the record's events: a notice by its
 * name without its layer (" fragment"), the invalid ones in a list
 * (" (invalid: a,b)"), and the layer the capture was cut in (" [|bth]",
 * " [|grh]" for a RoCEv1 GRH).
 */
static void text_events(struct rt_outbuf *o, uint64_t events, bool rocev1)
{
	const char *cut = NULL;
	bool first = true;

	if (!events)
		return;
	for (unsigned i = 0; i < RT_EV_COUNT; i++) {
		const struct rt_event_info *e = &rt_events[i];
		if (!(events & e->bit))
			continue;
		if (e->cls == RT_EVC_NOTICE) {
			size_t n = strlen(e->layer);
			rt_out_char(o, ' ');
			rt_out_str(o, e->name + n + (e->name[n] == '_'));
		} else if (e->cls == RT_EVC_TRUNCATION && !cut) {
			/* RoCEv1's network header is its GRH */
			cut = rocev1 && e->bit == RT_EV_IP_TRUNCATED ? "grh" : e->layer;
		}
	}
	for (unsigned i = 0; i < RT_EV_COUNT; i++) {
		const struct rt_event_info *e = &rt_events[i];
		if (!(events & e->bit) || e->cls != RT_EVC_INVALID)
			continue;
		if (first)
			OUT_LIT(o, " (invalid: ");
		else
			rt_out_char(o, ',');
		rt_out_str(o, e->name);
		first = false;
	}
	if (!first)
		rt_out_char(o, ')');
	if (cut) {
		OUT_LIT(o, " [|");
		rt_out_str(o, cut);
		rt_out_char(o, ']');
	}
}

/* HH:MM:SS.NNNNNNNNN of a span of ns (hours past 24 as they come), "-" before a negative one. */
static void span_ts(struct rt_outbuf *o, uint64_t later, uint64_t earlier)
{
	uint64_t d = later - earlier;
	if (later < earlier) {
		rt_out_char(o, '-');
		d = earlier - later;
	}
	uint64_t s = d / 1000000000u;
	rt_out_printf(o, "%02llu:%02llu:%02llu.%09llu", (unsigned long long)(s / 3600),
	              (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60),
	              (unsigned long long)(d % 1000000000u));
}

/* The line's timestamp (nothing with -t); the fields after it bring their own space. */
static void text_ts(struct rt_outbuf *o, const struct rt_print_text_opts *opts,
                    struct rt_print_text_times *times, uint64_t ts)
{
	if (!times->have_ts) {
		times->have_ts = true;
		times->first_ts = times->prev_ts = ts;
	}
	switch (opts->ts) {
	case RT_PRINT_TS_NONE:
		return;
	case RT_PRINT_TS_DELTA:
		span_ts(o, ts, times->prev_ts);
		break;
	case RT_PRINT_TS_SINCE_FIRST:
		span_ts(o, ts, times->first_ts);
		break;
	case RT_PRINT_TS_DATE: {
		time_t t = (time_t)(ts / 1000000000u);
		struct tm tm;
		if (localtime_r(&t, &tm))
			rt_out_printf(o, "%04d-%02d-%02d %02d:%02d:%02d.%09llu", tm.tm_year + 1900,
			              tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			              (unsigned long long)(ts % 1000000000u));
		else
			rt_out_ts(o, ts);
		break;
	}
	default:
		rt_out_ts(o, ts);
		break;
	}
	times->prev_ts = ts;
}

/* -e: where the frame came from on the link. */
static void text_link(struct rt_outbuf *o, const struct rt_record *r)
{
	rt_out_char(o, ' ');
	if (r->layers & RT_L_ETH) {
		rt_out_mac(o, r->src_mac);
		OUT_LIT(o, " > ");
		rt_out_mac(o, r->dst_mac);
	} else if (r->layers & (RT_L_SLL | RT_L_SLL2)) {
		OUT_LIT(o, "sll ");
		rt_out_mac(o, r->src_mac);
		if (r->layers & RT_L_SLL2)
			KV_U64(o, "ifindex=", r->sll_ifindex);
	} else {
		OUT_LIT(o, "raw");
	}
	if (r->layers & (RT_L_ETH | RT_L_SLL | RT_L_SLL2))
		KV_HEX(o, "ethertype=", r->ethertype, 4);
}

void rt_print_text(struct rt_outbuf *o, const struct rt_print_text_opts *opts,
                   struct rt_print_text_times *times, uint64_t frame, const char *file,
                   const struct rt_record *r, const uint8_t *data)
{
	/*
	 * Every field starts with its space. With nothing before the first one
	 * (-t, no -#) that space goes: the line is built whole in the buffer
	 * (room is made first), then moved left by one.
	 */
	bool strip = opts->ts == RT_PRINT_TS_NONE && !opts->number;
	if (strip && RT_OUTBUF_SIZE - o->len < 4096)
		rt_out_flush(o);
	size_t start = o->len;
	if (opts->number)
		rt_out_printf(o, "%5llu ", (unsigned long long)frame);
	text_ts(o, opts, times, r->ts_ns);
	if (opts->verbose && file) {
		OUT_LIT(o, " file=");
		rt_out_str(o, file);
	}
	if (opts->link)
		text_link(o, r);
	if (r->layers & RT_L_ERSPAN) {
		KV_U64(o, "erspan(s=", r->encap.erspan_session);
		rt_out_char(o, ')');
	} else if (r->layers & RT_L_GRE) {
		OUT_LIT(o, " gre");
	}
	if (r->ip_version) {
		rt_out_char(o, ' ');
		rt_out_ip(o, r->ip_version, r->src_ip);
		OUT_LIT(o, " > ");
		rt_out_ip(o, r->ip_version, r->dst_ip);
		if (r->rocev1)
			OUT_LIT(o, " grh");
		/* RoCE always; other traffic (a TCP bootstrap) when it is marked, or with -v */
		if (r->kind != RT_KIND_OTHER || r->ecn || r->dscp || opts->verbose) {
			OUT_LIT(o, " ecn=");
			rt_out_str(o, ecn_text(r->ecn));
			KV_U64(o, "dscp=", r->dscp);
		}
		if (opts->verbose) {
			KV_U64(o, "ttl=", r->ttl);
			if (r->ip_version == 4)
				KV_HEX(o, "id=", r->ip_id, 4);
		}
	} else if ((r->layers & RT_L_ETH) && !opts->link) {
		rt_out_char(o, ' ');
		rt_out_mac(o, r->src_mac);
		OUT_LIT(o, " > ");
		rt_out_mac(o, r->dst_mac);
	} else if ((r->layers & (RT_L_SLL | RT_L_SLL2)) && !opts->link) {
		rt_out_char(o, ' ');
		rt_out_mac(o, r->src_mac);
	}
	for (int i = 0; i < r->nvlan; i++) {
		KV_U64(o, "vlan=", r->vlan[i]);
		KV_U64(o, "pcp=", r->pcp[i]);
	}
	if (rt_record_has_bth(r)) {
		if ((r->layers & RT_L_UDP) && opts->verbose) {
			KV_U64(o, "udp=", r->udp_sport);
			rt_out_char(o, '>');
			rt_out_u64(o, r->udp_dport);
		}
		text_bth(o, r, opts->verbose);
	} else if ((r->layers & RT_L_MACC) && !(r->events & RT_EV_MACC_TRUNCATED)) {
		text_macc(o, r);
	} else if (!(r->layers & RT_L_MACC) || (r->events & RT_EV_MACC_TRUNCATED)) {
		text_other(o, r, opts->link); /* a MAC control frame cut: its Ethertype */
	}
	KV_U64(o, "len=", r->wirelen);
	text_events(o, r->events, r->rocev1);
	if (strip && o->len > start && o->buf[start] == ' ') {
		memmove(o->buf + start, o->buf + start + 1, o->len - start - 1);
		o->len--;
	}
	rt_out_char(o, '\n');
	if (opts->hex && data)
		rt_print_hex(o, data, r->caplen, opts->hex > 1);
}

void rt_print_hex(struct rt_outbuf *o, const uint8_t *data, uint32_t len, bool ascii)
{
	static const char digits[] = "0123456789abcdef";
	for (uint32_t off = 0; off < len; off += 16) {
		uint32_t n = len - off < 16 ? len - off : 16;
		char line[96];
		size_t k = (size_t)snprintf(line, sizeof(line), "\t0x%04x:  ", off);
		for (uint32_t i = 0; i < 16; i++) {
			if (i < n) {
				line[k++] = digits[data[off + i] >> 4];
				line[k++] = digits[data[off + i] & 15];
			} else if (ascii) {
				line[k++] = ' ';
				line[k++] = ' ';
			}
			if (i % 2 && (i < n - 1 || (ascii && i < 15)))
				line[k++] = ' ';
		}
		if (ascii) {
			line[k++] = ' ';
			line[k++] = ' ';
			for (uint32_t i = 0; i < n; i++) {
				uint8_t c = data[off + i];
				line[k++] = c >= 0x20 && c < 0x7f ? (char)c : '.';
			}
		}
		line[k++] = '\n';
		rt_out_write(o, line, k);
	}
}
