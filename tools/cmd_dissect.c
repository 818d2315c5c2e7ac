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
#include "common/outbuf.h"
#include "dissect/dissect.h"
#include "dissect/print.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"

#define BATCH 64
#define CMD "dissect"

enum output_mode { OUT_TEXT, OUT_JSON, OUT_COUNT };

struct dissect_args {
	const char *path;
	const char *bpf;
	uint64_t max_frames; /* 0 = all */
	enum output_mode mode;
	bool count_json;
	struct rt_dissect_opts opts;
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
	static struct rt_totals tot;
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
				rt_print_text(&out, &rec);
			else if (a.mode == OUT_JSON)
				rt_print_json(&out, frames[i].seq, &rec);
			else
				rt_totals_add(&tot, &rec);
			if (a.max_frames && n >= a.max_frames) {
				done = true;
				break;
			}
		}
	}
	rt_source_close(src);
	/* A read error (a file cut short) keeps what was decoded: the frames printed, or the totals. */
	if (a.mode == OUT_COUNT && !out.error)
		rt_print_totals(&out, &tot, a.count_json);
	int werr = rt_out_flush(&out);
	if (read_error)
		return rt_cli_fail(CMD, "%s%s", errbuf,
		                   a.mode == OUT_COUNT && !werr ? " (the totals cover the frames before it)"
		                                                : "");
	return output_status(werr);
}
