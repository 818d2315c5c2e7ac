/* rocetrace dissect: decode each frame of a capture; print text, JSON Lines or totals. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/source.h"
#include "dissect/dissect.h"
#include "dissect/opcodes.h"
#include "common/outbuf.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"

/* A string literal, copied without strlen. */
#define OUT_LIT(o, s) rt_out_write((o), (s), sizeof(s) - 1)
#define BATCH         64
#define CMD           "dissect"
#define NUM_EVENTS    32

enum output_mode { OUT_TEXT, OUT_JSON, OUT_COUNT };

struct dissect_args {
	const char *path;
	const char *bpf;
	uint64_t max_frames; /* 0 = all */
	enum output_mode mode;
	bool count_json;
	struct rt_dissect_opts opts;
};

/* Totals of --count mode. */
struct totals {
	uint64_t frames, bytes, caplen_bytes;
	uint64_t kinds[RT_KIND_MALFORMED + 1];
	uint64_t icrc[RT_ICRC_BAD + 1];
	uint64_t truncated;
	uint64_t ecn_ce;
	uint64_t events[NUM_EVENTS];
};

static void help(void)
{
	fputs("NAME\n"
	      "    rocetrace dissect - decode every frame of a capture file\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    rocetrace dissect FILE [-f BPF] [-c N] [--json | --count] [--udp-port P] "
	      "[--no-icrc]\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Reads FILE (pcap or pcapng, micro- or nanosecond timestamps; '-' reads\n"
	      "    standard input) and decodes each frame: Ethernet, 802.1Q/802.1ad tags,\n"
	      "    Linux cooked (SLL, SLL2) or raw IP link layers, IPv4/IPv6, UDP, the\n"
	      "    RoCEv2 BTH and its extended headers (RETH, AETH, DETH, ImmDt, AtomicETH,\n"
	      "    AtomicAckETH, IETH, XRCETH, RDETH, FETH), CNPs, RoCEv1 (GRH), and\n"
	      "    802.1Qbb PFC / 802.3x PAUSE frames. The RoCEv2 ICRC is verified.\n"
	      "\n"
	      "    Frames mirrored by a switch inside IPv4/IPv6 + GRE are decapsulated (one\n"
	      "    level): ERSPAN type I and II (GRE protocol 0x88BE), ERSPAN type III\n"
	      "    (0x22EB, with or without its platform-specific subheader), and plain\n"
	      "    GRE carrying Ethernet (0x6558) or IPv4/IPv6. Everything printed then\n"
	      "    describes the inner frame (addresses, ECN, VLAN, BTH, ICRC, PFC); the\n"
	      "    text line starts with erspan(s=SESSION) or gre after the timestamp.\n"
	      "\n"
	      "    The default output is one line per frame (TS is SECONDS.NANOSECONDS):\n"
	      "      TS SRC > DST ecn=CE dscp=26 vlan=100 pcp=3 RC_SEND_ONLY qp=0x000011 psn=123\n"
	      "         ackreq icrc=ok len=1082\n"
	      "    followed by what the extended headers hold (ack msn=5 credits=3, nak\n"
	      "    psn_seq_error, rnr timer=.., reth va/rkey/len, deth qkey/src_qp, ...);\n"
	      "    PFC frames print the enabled priorities (pfc prio3=65535 prio6=0(xon)),\n"
	      "    PAUSE frames their quanta. A frame cut by the snap length ends with\n"
	      "    ' [|LAYER]' naming the layer that was cut; a frame that breaks the spec\n"
	      "    ends with ' (invalid: EVENT,...)'.\n"
	      "\n"
	      "OPTIONS\n"
	      "    -f, --filter BPF\n"
	      "        Decode only frames matching the libpcap filter expression BPF.\n"
	      "        Frames keep their number in the file (as Wireshark shows them).\n"
	      "        Default: every frame.\n"
	      "    -c N\n"
	      "        Stop after N frames (after filtering). Default: read to the end.\n"
	      "    --json\n"
	      "        Print one JSON object per frame (JSON Lines) with the keys frame (its\n"
	      "        1-based number in the file), ts (\"SECONDS.NANOSECONDS\"), len,\n"
	      "        caplen, kind (roce, cnp, pfc, pause, other, malformed), truncated\n"
	      "        and, where present, src, dst,\n"
	      "        dscp, ecn, vlan, pcp, inner_vlan, inner_pcp, udp_sport, rocev1, opcode,\n"
	      "        opcode_name, dest_qp, psn, ackreq, fecn, becn, se, migreq, pad, pkey,\n"
	      "        reth, aeth, deth, immediate, atomic, atomic_ack, ieth, xrc_srq,\n"
	      "        ee_context, feth, icrc, pfc, pause, src_mac, dst_mac (frames without\n"
	      "        IP) and events (names of what the dissector noticed). A decapsulated\n"
	      "        frame adds \"erspan\": {\"version\": 0|1|2 (type I|II|III),\n"
	      "        \"session\", \"outer_src\", \"outer_dst\"} or, for plain GRE,\n"
	      "        \"gre\": {\"outer_src\", \"outer_dst\"}.\n"
	      "    --count\n"
	      "        Decode every frame but print only totals: frames, bytes, frames per\n"
	      "        kind, ICRC results, truncated frames, CE marks and events. With\n"
	      "        --json the totals are one JSON object.\n"
	      "    --udp-port P\n"
	      "        Decode UDP destination port P as RoCEv2. Default: 4791.\n"
	      "    --no-icrc\n"
	      "        Do not verify ICRCs (reported as \"unchecked\"); faster.\n"
	      "    -h, --help\n"
	      "        Print this help and exit.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 on success (also when the reader of the output goes away), 1 when the\n"
	      "    file cannot be read or its link type is not supported (frames already\n"
	      "    printed stay printed; --count prints the totals of the frames before\n"
	      "    the error), 2 for usage errors.\n"
	      "\n"
	      "EXAMPLES\n"
	      "    rocetrace dissect run.pcap\n"
	      "    rocetrace dissect run.pcapng --json | jq 'select(.kind == \"cnp\")'\n"
	      "    rocetrace dissect run.pcap -f 'vlan and udp port 4791' -c 100\n"
	      "    tcpdump -i eth0 -w - udp port 4791 | rocetrace dissect -\n"
	      "    rocetrace dissect big.pcap --count\n"
	      "    rocetrace dissect erspan-mirror.pcap --json | jq 'select(.erspan.session == 7)'\n",
	      stdout);
}

/* Returns -1 to go on, or the exit status to return now. */
static int parse_args(int argc, char **argv, struct dissect_args *a)
{
	enum { OPT_JSON = 256, OPT_COUNT, OPT_UDP_PORT, OPT_NO_ICRC };
	static const struct option longopts[] = {
	    {"filter", required_argument, NULL, 'f'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"count", no_argument, NULL, OPT_COUNT},
	    {"udp-port", required_argument, NULL, OPT_UDP_PORT},
	    {"no-icrc", no_argument, NULL, OPT_NO_ICRC},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false, count = false;
	uint64_t v;
	int c;

	memset(a, 0, sizeof(*a));
	rt_dissect_opts_init(&a->opts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->bpf = optarg;
			break;
		case 'c':
			if (rt_opt_uint(CMD, "-c", optarg, 1, UINT64_MAX, &a->max_frames))
				return RT_EXIT_USAGE;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_COUNT:
			count = true;
			break;
		case OPT_UDP_PORT:
			if (rt_opt_uint(CMD, "--udp-port", optarg, 1, 65535, &v))
				return RT_EXIT_USAGE;
			a->opts.udp_port = (uint16_t)v;
			break;
		case OPT_NO_ICRC:
			a->opts.verify_icrc = false;
			break;
		case 'h':
			help();
			return RT_EXIT_OK;
		default:
			return rt_cli_getopt_error(CMD, c, argv);
		}
	}
	if (optind >= argc)
		return rt_cli_usage_error(CMD, "no capture file given");
	if (argc - optind > 1)
		return rt_cli_usage_error(CMD, "one capture file only; '%s' is extra",
		                          argv[optind + 1]);
	a->path = argv[optind];
	a->mode = count ? OUT_COUNT : json ? OUT_JSON : OUT_TEXT;
	a->count_json = count && json;
	return -1;
}

/* ------------------------------------------------------------------ text */

static void out_hex_width(struct rt_outbuf *o, uint64_t v, int width)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[18];
	int n = 0;
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v || n < width);
	OUT_LIT(o, "0x");
	while (n)
		rt_out_char(o, tmp[--n]);
}

/* " key=value" with a literal key */
#define KV_U64(o, key, v)                                                                          \
	do {                                                                                       \
		OUT_LIT((o), " " key);                                                             \
		rt_out_u64((o), (v));                                                              \
	} while (0)
#define KV_HEX(o, key, v, width)                                                                   \
	do {                                                                                       \
		OUT_LIT((o), " " key);                                                             \
		out_hex_width((o), (v), (width));                                                  \
	} while (0)

static const char *ecn_text(uint8_t ecn)
{
	static const char *const names[4] = {"not-ECT", "ECT(1)", "ECT(0)", "CE"};
	return names[ecn & 3];
}

/* The layer a truncation event names, for the " [|layer]" marker. */
static const char *cut_layer(uint32_t events)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} layers[] = {
	    {RT_EV_LINK_TRUNCATED, "link"}, {RT_EV_IP_TRUNCATED, "ip"},
	    {RT_EV_UDP_TRUNCATED, "udp"},   {RT_EV_BTH_TRUNCATED, "bth"},
	    {RT_EV_EXT_TRUNCATED, "ext"},   {RT_EV_MACC_TRUNCATED, "macc"},
	    {RT_EV_ICRC_TRUNCATED, "icrc"}, {RT_EV_GRE_TRUNCATED, "gre"},
	};
	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++)
		if (events & layers[i].bit)
			return layers[i].name;
	return NULL;
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
		if (low == 0x1F)
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

static void text_bth(struct rt_outbuf *o, const struct rt_record *r)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(r->opcode);

	rt_out_char(o, ' ');
	if (info) {
		rt_out_str(o, info->name);
	} else {
		OUT_LIT(o, "opcode=");
		out_hex_width(o, r->opcode, 2);
	}
	KV_HEX(o, "qp=", r->dest_qp, 6);
	KV_U64(o, "psn=", r->psn);
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

static void text_events(struct rt_outbuf *o, uint32_t events)
{
	uint32_t invalid = events & ~(RT_EV_TRUNCATION_MASK | RT_EV_IP_FRAGMENT);
	if (events & RT_EV_IP_FRAGMENT)
		OUT_LIT(o, " fragment");
	if (invalid) {
		OUT_LIT(o, " (invalid: ");
		bool first = true;
		for (int i = 0; i < NUM_EVENTS; i++) {
			uint32_t bit = 1u << i;
			const char *name = (invalid & bit) ? rt_event_name(bit) : NULL;
			if (!name)
				continue;
			if (!first)
				rt_out_char(o, ',');
			rt_out_str(o, name);
			first = false;
		}
		rt_out_char(o, ')');
	}
	const char *cut = cut_layer(events);
	if (cut) {
		OUT_LIT(o, " [|");
		rt_out_str(o, cut);
		rt_out_char(o, ']');
	}
}

static void print_text(struct rt_outbuf *o, const struct rt_record *r)
{
	rt_out_ts(o, r->ts_ns);
	if (r->layers & RT_L_ERSPAN) {
		KV_U64(o, "erspan(s=", r->encap.erspan_session);
		rt_out_char(o, ')');
	} else if (r->layers & RT_L_GRE)
		OUT_LIT(o, " gre");
	if (r->ip_version) {
		rt_out_char(o, ' ');
		rt_out_ip(o, r->ip_version, r->src_ip);
		OUT_LIT(o, " > ");
		rt_out_ip(o, r->ip_version, r->dst_ip);
		if (r->rocev1)
			OUT_LIT(o, " grh");
		OUT_LIT(o, " ecn=");
		rt_out_str(o, ecn_text(r->ecn));
		KV_U64(o, "dscp=", r->dscp);
	} else if (r->layers & RT_L_ETH) {
		rt_out_char(o, ' ');
		rt_out_mac(o, r->src_mac);
		OUT_LIT(o, " > ");
		rt_out_mac(o, r->dst_mac);
	} else if (r->layers & (RT_L_SLL | RT_L_SLL2)) {
		rt_out_char(o, ' ');
		rt_out_mac(o, r->src_mac);
	}
	for (int i = 0; i < r->nvlan; i++) {
		KV_U64(o, "vlan=", r->vlan[i]);
		KV_U64(o, "pcp=", r->pcp[i]);
	}
	if ((r->layers & RT_L_UDP) && !rt_record_has_bth(r)) {
		KV_U64(o, "udp ", r->udp_sport);
		KV_U64(o, "> ", r->udp_dport);
	}
	if (rt_record_has_bth(r))
		text_bth(o, r);
	else if ((r->layers & RT_L_MACC) && !(r->events & RT_EV_MACC_TRUNCATED))
		text_macc(o, r);
	else if (!r->ip_version && (r->layers & (RT_L_ETH | RT_L_SLL | RT_L_SLL2)) &&
	         !(r->events & RT_EV_LINK_TRUNCATED))
		KV_HEX(o, "ethertype=", r->ethertype, 4);
	KV_U64(o, "len=", r->wirelen);
	text_events(o, r->events);
	rt_out_char(o, '\n');
}

/* ------------------------------------------------------------------ JSON */

/* JSON members with literal keys: each key is copied as one literal, no strlen. */
#define JSON_KEY(o, key) OUT_LIT((o), ",\"" key "\":")
#define JSON_U64(o, key, v)                                                                        \
	do {                                                                                       \
		JSON_KEY((o), key);                                                                \
		rt_out_u64((o), (v));                                                              \
	} while (0)
#define JSON_BOOL(o, key, v)                                                                       \
	do {                                                                                       \
		if (v)                                                                             \
			OUT_LIT((o), ",\"" key "\":true");                                         \
		else                                                                               \
			OUT_LIT((o), ",\"" key "\":false");                                        \
	} while (0)
/* names from the dissector's tables: nothing to escape */
#define JSON_STR(o, key, v)                                                                        \
	do {                                                                                       \
		OUT_LIT((o), ",\"" key "\":\"");                                                   \
		rt_out_str((o), (v));                                                              \
		rt_out_char((o), '"');                                                             \
	} while (0)

static void json_mac(struct rt_outbuf *o, const uint8_t mac[6])
{
	rt_out_char(o, '"');
	rt_out_mac(o, mac);
	rt_out_char(o, '"');
}

static void json_bth(struct rt_outbuf *o, const struct rt_record *r)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(r->opcode);

	JSON_U64(o, "opcode", r->opcode);
	if (info)
		JSON_STR(o, "opcode_name", info->name);
	JSON_U64(o, "dest_qp", r->dest_qp);
	JSON_U64(o, "psn", r->psn);
	JSON_BOOL(o, "ackreq", r->ackreq);
	JSON_BOOL(o, "fecn", r->fecn);
	JSON_BOOL(o, "becn", r->becn);
	JSON_BOOL(o, "se", r->se);
	JSON_BOOL(o, "migreq", r->migreq);
	JSON_U64(o, "pad", r->padcnt);
	JSON_U64(o, "pkey", r->pkey);
	if (r->hdrs & RT_H_RDETH)
		JSON_U64(o, "ee_context", r->rdeth_eecnxt);
	if (r->hdrs & RT_H_XRCETH)
		JSON_U64(o, "xrc_srq", r->xrc_srq);
	if (r->hdrs & RT_H_FETH)
		JSON_U64(o, "feth", r->feth);
	if (r->hdrs & RT_H_RETH) {
		JSON_KEY(o, "reth");
		OUT_LIT(o, "{\"va\":");
		rt_out_u64(o, r->reth_va);
		JSON_U64(o, "rkey", r->reth_rkey);
		JSON_U64(o, "len", r->reth_len);
		rt_out_char(o, '}');
	}
	if (r->hdrs & RT_H_AETH) {
		JSON_KEY(o, "aeth");
		OUT_LIT(o, "{\"syndrome\":");
		rt_out_u64(o, r->aeth_syndrome);
		JSON_U64(o, "msn", r->aeth_msn);
		JSON_STR(o, "type", rt_aeth_type_name(r->aeth_syndrome));
		switch (rt_aeth_type(r->aeth_syndrome)) {
		case RT_AETH_NAK:
			JSON_U64(o, "nak_code", r->aeth_syndrome & 0x1F);
			break;
		case RT_AETH_RNR_NAK:
			JSON_U64(o, "rnr_timer", r->aeth_syndrome & 0x1F);
			break;
		case RT_AETH_ACK:
			JSON_U64(o, "credits", r->aeth_syndrome & 0x1F);
			break;
		default:
			break;
		}
		rt_out_char(o, '}');
	}
	if (r->hdrs & RT_H_DETH) {
		JSON_KEY(o, "deth");
		OUT_LIT(o, "{\"qkey\":");
		rt_out_u64(o, r->deth_qkey);
		JSON_U64(o, "src_qp", r->deth_src_qp);
		rt_out_char(o, '}');
	}
	if (r->hdrs & RT_H_IMMDT)
		JSON_U64(o, "immediate", r->immediate);
	if (r->hdrs & RT_H_ATOMICETH) {
		JSON_KEY(o, "atomic");
		OUT_LIT(o, "{\"va\":");
		rt_out_u64(o, r->atomic_va);
		JSON_U64(o, "rkey", r->atomic_rkey);
		JSON_U64(o, "swap_add", r->atomic_swap_add);
		JSON_U64(o, "compare", r->atomic_compare);
		rt_out_char(o, '}');
	}
	if (r->hdrs & RT_H_ATOMICACKETH) {
		JSON_KEY(o, "atomic_ack");
		OUT_LIT(o, "{\"orig\":");
		rt_out_u64(o, r->atomic_ack_orig);
		rt_out_char(o, '}');
	}
	if (r->hdrs & RT_H_IETH)
		JSON_U64(o, "ieth", r->ieth_rkey);
	JSON_STR(o, "icrc", rt_icrc_name((enum rt_icrc_status)r->icrc));
}

static void json_macc(struct rt_outbuf *o, const struct rt_record *r)
{
	if (r->events & RT_EV_MACC_TRUNCATED)
		return;
	if (r->kind == RT_KIND_PFC) {
		JSON_KEY(o, "pfc");
		OUT_LIT(o, "{\"enable\":");
		rt_out_u64(o, r->pfc_enable);
		OUT_LIT(o, ",\"quanta\":[");
		for (int i = 0; i < 8; i++) {
			if (i)
				rt_out_char(o, ',');
			rt_out_u64(o, r->pfc_quanta[i]);
		}
		OUT_LIT(o, "]}");
	} else if (r->kind == RT_KIND_PAUSE) {
		JSON_KEY(o, "pause");
		OUT_LIT(o, "{\"quanta\":");
		rt_out_u64(o, r->pause_quanta);
		rt_out_char(o, '}');
	} else {
		JSON_U64(o, "macc_opcode", r->macc_opcode);
	}
}

static void json_events(struct rt_outbuf *o, uint32_t events)
{
	if (!events)
		return;
	JSON_KEY(o, "events");
	rt_out_char(o, '[');
	bool first = true;
	for (int i = 0; i < NUM_EVENTS; i++) {
		uint32_t bit = 1u << i;
		const char *name = (events & bit) ? rt_event_name(bit) : NULL;
		if (!name)
			continue;
		if (!first)
			rt_out_char(o, ',');
		rt_out_char(o, '"');
		rt_out_str(o, name);
		rt_out_char(o, '"');
		first = false;
	}
	rt_out_char(o, ']');
}

/* "erspan": {...} or "gre": {...}: what the tunnel of a decapsulated frame was. */
static void json_encap(struct rt_outbuf *o, const struct rt_record *r)
{
	if (r->layers & RT_L_ERSPAN) {
		OUT_LIT(o, ",\"erspan\":{\"version\":");
		rt_out_u64(o, r->encap.erspan_version);
		JSON_U64(o, "session", r->encap.erspan_session);
		OUT_LIT(o, ",\"outer_src\":\"");
	} else {
		OUT_LIT(o, ",\"gre\":{\"outer_src\":\"");
	}
	rt_out_ip(o, r->encap.outer_ip_version, r->encap.outer_src_ip);
	OUT_LIT(o, "\",\"outer_dst\":\"");
	rt_out_ip(o, r->encap.outer_ip_version, r->encap.outer_dst_ip);
	OUT_LIT(o, "\"}");
}

static void print_json(struct rt_outbuf *o, uint64_t frame, const struct rt_record *r)
{
	OUT_LIT(o, "{\"frame\":");
	rt_out_u64(o, frame);
	OUT_LIT(o, ",\"ts\":\"");
	rt_out_ts(o, r->ts_ns);
	rt_out_char(o, '"');
	JSON_U64(o, "len", r->wirelen);
	JSON_U64(o, "caplen", r->caplen);
	JSON_STR(o, "kind", rt_kind_name((enum rt_kind)r->kind));
	if (r->layers & RT_L_GRE)
		json_encap(o, r);
	if (r->ip_version) {
		JSON_KEY(o, "src");
		rt_out_char(o, '"');
		rt_out_ip(o, r->ip_version, r->src_ip);
		OUT_LIT(o, "\",\"dst\":\"");
		rt_out_ip(o, r->ip_version, r->dst_ip);
		rt_out_char(o, '"');
		JSON_U64(o, "dscp", r->dscp);
		JSON_U64(o, "ecn", r->ecn);
	} else {
		if (r->layers & (RT_L_ETH | RT_L_SLL | RT_L_SLL2)) {
			JSON_KEY(o, "src_mac");
			json_mac(o, r->src_mac);
		}
		if (r->layers & RT_L_ETH) {
			JSON_KEY(o, "dst_mac");
			json_mac(o, r->dst_mac);
		}
	}
	if (r->nvlan >= 1) {
		JSON_U64(o, "vlan", r->vlan[0]);
		JSON_U64(o, "pcp", r->pcp[0]);
	}
	if (r->nvlan >= 2) {
		JSON_U64(o, "inner_vlan", r->vlan[1]);
		JSON_U64(o, "inner_pcp", r->pcp[1]);
	}
	if (r->layers & RT_L_UDP)
		JSON_U64(o, "udp_sport", r->udp_sport);
	if (r->rocev1)
		JSON_BOOL(o, "rocev1", true);
	if (rt_record_has_bth(r))
		json_bth(o, r);
	else if (r->layers & RT_L_MACC)
		json_macc(o, r);
	JSON_BOOL(o, "truncated", r->truncated);
	json_events(o, r->events);
	OUT_LIT(o, "}\n");
}

/* ------------------------------------------------------------------ count */

static void count_record(struct totals *t, const struct rt_record *r)
{
	t->frames++;
	t->bytes += r->wirelen;
	t->caplen_bytes += r->caplen;
	if (r->kind <= RT_KIND_MALFORMED)
		t->kinds[r->kind]++;
	if (rt_record_has_bth(r) && r->icrc <= RT_ICRC_BAD)
		t->icrc[r->icrc]++;
	if (r->truncated)
		t->truncated++;
	if (r->ip_version && r->ecn == 3)
		t->ecn_ce++;
	for (uint32_t ev = r->events; ev; ev &= ev - 1)
		t->events[__builtin_ctz(ev)]++;
}

static void print_totals(struct rt_outbuf *o, const struct totals *t, bool json)
{
	static const enum rt_kind kinds[] = {RT_KIND_ROCE,  RT_KIND_CNP,   RT_KIND_PFC,
	                                     RT_KIND_PAUSE, RT_KIND_OTHER, RT_KIND_MALFORMED};
	static const enum rt_icrc_status icrcs[] = {RT_ICRC_OK, RT_ICRC_BAD, RT_ICRC_UNCHECKED};

	if (json) {
		OUT_LIT(o, "{\"frames\":");
		rt_out_u64(o, t->frames);
		JSON_U64(o, "bytes", t->bytes);
		JSON_U64(o, "captured_bytes", t->caplen_bytes);
		OUT_LIT(o, ",\"kinds\":{");
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			rt_out_str(o, i ? ",\"" : "\"");
			rt_out_str(o, rt_kind_name(kinds[i]));
			OUT_LIT(o, "\":");
			rt_out_u64(o, t->kinds[kinds[i]]);
		}
		OUT_LIT(o, "},\"icrc\":{");
		for (size_t i = 0; i < sizeof(icrcs) / sizeof(icrcs[0]); i++) {
			rt_out_str(o, i ? ",\"" : "\"");
			rt_out_str(o, rt_icrc_name(icrcs[i]));
			OUT_LIT(o, "\":");
			rt_out_u64(o, t->icrc[icrcs[i]]);
		}
		rt_out_char(o, '}');
		JSON_U64(o, "truncated", t->truncated);
		JSON_U64(o, "ce", t->ecn_ce);
		OUT_LIT(o, ",\"events\":{");
		bool first = true;
		for (int i = 0; i < NUM_EVENTS; i++) {
			const char *name = rt_event_name(1u << i);
			if (!t->events[i] || !name)
				continue;
			rt_out_str(o, first ? "\"" : ",\"");
			rt_out_str(o, name);
			OUT_LIT(o, "\":");
			rt_out_u64(o, t->events[i]);
			first = false;
		}
		OUT_LIT(o, "}}\n");
		return;
	}
	OUT_LIT(o, "frames: ");
	rt_out_u64(o, t->frames);
	OUT_LIT(o, "\nbytes: ");
	rt_out_u64(o, t->bytes);
	OUT_LIT(o, " (captured ");
	rt_out_u64(o, t->caplen_bytes);
	OUT_LIT(o, ")\nkinds:");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		rt_out_char(o, ' ');
		rt_out_str(o, rt_kind_name(kinds[i]));
		rt_out_char(o, '=');
		rt_out_u64(o, t->kinds[kinds[i]]);
	}
	OUT_LIT(o, "\nicrc:");
	for (size_t i = 0; i < sizeof(icrcs) / sizeof(icrcs[0]); i++) {
		rt_out_char(o, ' ');
		rt_out_str(o, rt_icrc_name(icrcs[i]));
		rt_out_char(o, '=');
		rt_out_u64(o, t->icrc[icrcs[i]]);
	}
	OUT_LIT(o, "\ntruncated: ");
	rt_out_u64(o, t->truncated);
	OUT_LIT(o, "\nce: ");
	rt_out_u64(o, t->ecn_ce);
	OUT_LIT(o, "\nevents:");
	bool any = false;
	for (int i = 0; i < NUM_EVENTS; i++) {
		const char *name = rt_event_name(1u << i);
		if (!t->events[i] || !name)
			continue;
		rt_out_char(o, ' ');
		rt_out_str(o, name);
		rt_out_char(o, '=');
		rt_out_u64(o, t->events[i]);
		any = true;
	}
	rt_out_str(o, any ? "\n" : " none\n");
}

/* ------------------------------------------------------------------ main */

/* Output failed: quiet for a reader that went away (EPIPE), one line otherwise. */
static int output_status(int err)
{
	if (!err || err == EPIPE)
		return RT_EXIT_OK;
	return rt_cli_fail(CMD, "writing output: %s", strerror(err));
}

int rt_cmd_dissect(int argc, char **argv)
{
	struct dissect_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;

	char errbuf[RT_ERRBUF_SIZE] = "";
	struct rt_source_config cfg = {.bpf = a.bpf};
	struct rt_source *src = NULL;
	if (rt_source_open_file(&src, a.path, &cfg, errbuf) < 0)
		return rt_cli_fail(CMD, "%s", errbuf);
	if (!rt_linktype_supported(src->linktype)) {
		rt_cli_fail(CMD, "%s: link type %d is not supported (Ethernet, Linux SLL/SLL2 and raw IP are)",
		            strcmp(a.path, "-") ? a.path : "stdin", src->linktype);
		rt_source_close(src);
		return RT_EXIT_ERROR;
	}

	/* A reader that goes away (| head) shows up as EPIPE on write. */
	signal(SIGPIPE, SIG_IGN);

	static struct rt_outbuf out;
	static struct totals tot;
	memset(&tot, 0, sizeof(tot));
	rt_out_init(&out, stdout);

	struct rt_frame frames[BATCH];
	struct rt_record rec;
	uint64_t n = 0;
	bool done = false, read_error = false;
	while (!done && !out.error) {
		int got = rt_source_next(src, frames, BATCH, errbuf);
		if (got == 0)
			break;
		if (got < 0) {
			read_error = true;
			break;
		}
		for (int i = 0; i < got; i++) {
			rec.ts_ns = frames[i].ts_ns;
			rt_dissect(&a.opts, frames[i].linktype, frames[i].data, frames[i].caplen,
			           frames[i].wirelen, &rec);
			n++;
			if (a.mode == OUT_TEXT)
				print_text(&out, &rec);
			else if (a.mode == OUT_JSON)
				print_json(&out, frames[i].seq, &rec);
			else
				count_record(&tot, &rec);
			if (a.max_frames && n >= a.max_frames) {
				done = true;
				break;
			}
		}
	}
	rt_source_close(src);
	/* A read error (a file cut short) keeps what was decoded: the frames printed, or the totals. */
	if (a.mode == OUT_COUNT && !out.error)
		print_totals(&out, &tot, a.count_json);
	int werr = rt_out_flush(&out);
	if (read_error)
		return rt_cli_fail(CMD, "%s%s", errbuf,
		                   a.mode == OUT_COUNT && !werr ? " (the totals cover the frames before it)"
		                                                : "");
	return output_status(werr);
}
