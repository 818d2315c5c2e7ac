/* rocetrace dissect: options and wiring; the pump decodes each frame, the dissect/ printers print
 * it. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/flowsel.h"
#include "capture/pump.h"
#include "common/outbuf.h"
#include "dissect/dissect.h"
#include "dissect/print.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/textopts.h"

#define CMD "dissect"

enum output_mode { OUT_TEXT, OUT_JSON, OUT_COUNT };

struct dissect_args {
	struct rt_cli_files files;
	const char *bpf;
	char *bpf_joined;    /* the expression after the options, joined (freed at the end) */
	uint64_t max_frames; /* 0 = all */
	enum output_mode mode;
	bool count_json;
	struct rt_dissect_opts opts;
	struct rt_print_text_opts text;
	const char *flow; /* --flow, or NULL */
	struct rt_flowsel sel;
};

/* The manual up to the --json option; the JSON keys follow from their list, then the rest. */
static const char help_head[] =
    "NAME\n"
    "    rocetrace dissect - decode every frame of a capture file\n"
    "\n"
    "SYNOPSIS\n"
    "    rocetrace dissect [-r] FILE... [-c N] [-n] [-v] [-e] [-x | -X] [-t...] [-#]\n"
    "        [--json | --count] [--flow SEL] [--vantage NAME=FILE[,FILE...]]\n"
    "        [--udp-port P] [--no-icrc] [-f BPF | EXPRESSION]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads FILE (pcap or pcapng, micro- or nanosecond timestamps, plain or\n"
    "    gzip-compressed; '-' reads standard input) and decodes each frame, with\n"
    "    the link type of its pcapng interface: Ethernet, 802.1Q/802.1ad tags,\n"
    "    Linux cooked (SLL, SLL2) or raw IP link layers, IPv4/IPv6, UDP, the\n"
    "    RoCEv2 BTH and its extended headers (RETH, AETH, DETH, ImmDt, AtomicETH,\n"
    "    AtomicAckETH, IETH, XRCETH, RDETH, FETH), CNPs, RoCEv1 (GRH), and\n"
    "    802.1Qbb PFC / 802.3x PAUSE frames. The RoCEv2 ICRC is verified.\n"
    "\n"
    "    Several FILEs are read as one stream in time order: a rotated set\n"
    "    (capture's OUT, OUT.1, OUT.2, or tcpdump -C files, in any order, some\n"
    "    gzip'd) continues itself, and captures of the same traffic taken at\n"
    "    different places (overlapping in time) become vantage points of their\n"
    "    own (docs/CAPTURE.md says how files are grouped; --vantage names them).\n"
    "    Frame numbers are then positions in the merged stream; -v shows each\n"
    "    frame's file (file=FILE after the timestamp), --json its \"file\" key,\n"
    "    and --count the frames of each vantage point.\n"
    "\n"
    "    Frames mirrored by a switch inside IPv4/IPv6 + GRE are decapsulated (one\n"
    "    level): ERSPAN type I and II (GRE protocol 0x88BE), ERSPAN type III\n"
    "    (0x22EB, with or without its platform-specific subheader), and plain\n"
    "    GRE carrying Ethernet (0x6558) or IPv4/IPv6. Everything printed then\n"
    "    describes the inner frame (addresses, ECN, VLAN, BTH, ICRC, PFC); the\n"
    "    text line starts with erspan(s=SESSION) or gre after the timestamp.\n"
    "\n"
    "    The default output is one line per frame (TS is SECONDS.NANOSECONDS since\n"
    "    the Unix epoch, as in --json and every rocetrace output):\n"
    "      TS SRC > DST ecn=CE dscp=26 vlan=100 pcp=3 RC_SEND_ONLY qp=0x000011\n"
    "         psn=123 ackreq icrc=ok len=1082\n"
    "    followed by what the extended headers hold (ack msn=5 credits=3, nak\n"
    "    psn_seq_error, rnr timer=.., reth va/rkey/len, deth qkey/src_qp, ...);\n"
    "    PFC frames print the enabled priorities (pfc prio3=65535 prio6=0(xon)),\n"
    "    PAUSE frames their quanta. A frame cut by the snap length ends with\n"
    "    ' [|LAYER]' naming the layer that was cut; a frame that breaks the spec\n"
    "    ends with ' (invalid: EVENT,...)'.\n"
    "\n"
    "    The options a tcpdump user types work alike: -r FILE, a filter expression\n"
    "    after the options, -n, -v, -e, -x/-X, the -t letters and -#.\n"
    "\n"
    "OPTIONS\n"
    "    -r FILE\n"
    "        Read FILE (the same as naming it first); may be repeated.\n"
    "    FILE...\n"
    "        The files to read, before the filter expression: every operand\n"
    "        that names an existing file, holds a '/' or ends like a capture\n"
    "        file (.pcap, .pcapng, .cap, .gz, a number after them) is a FILE.\n"
    "    --vantage NAME=FILE[,FILE...]\n"
    "        These files were captured at vantage point NAME (read in time\n"
    "        order as one point, whatever their names and times); may be\n"
    "        repeated, also with the same NAME.\n"
    "    EXPRESSION, -f, --filter BPF\n"
    "        Decode only frames matching the libpcap filter expression: given\n"
    "        after the options, in one or more words (dissect F udp port 4791),\n"
    "        or as one argument of -f. Frames keep their number in the file (as\n"
    "        Wireshark shows them; with several files, in the merged stream).\n"
    "        Default: every frame.\n"
    "    -c N\n"
    "        Stop after N frames (after filtering). Default: read to the end.\n"
    "    --flow SEL\n"
    "        Only frames of the flows SEL selects, as analyze and timeline take\n"
    "        it: ID (the flow's id in 'rocetrace analyze'), IP (either end),\n"
    "        SRC>DST, SRC>DST:QP or qp:QP (QPs decimal or 0x hex; IPv6 with a QP\n"
    "        as [SRC]>[DST]:QP). A frame's flow is its source, destination and\n"
    "        destination QP: ACKs and responses are frames of the other way's\n"
    "        flow. Quote it: the shell reads '>' as a redirection.\n"
    "    -n, -nn\n"
    "        Accepted for tcpdump's sake: names are never looked up.\n"
    "    -v\n"
    "        Also the TTL (IPv6: hop limit), the IPv4 id, the UDP ports of RoCE\n"
    "        (udp=SPORT>DPORT), the opcode number, the P_Key and TVer; with\n"
    "        several files, the frame's file (file=FILE) after the timestamp.\n"
    "    -e\n"
    "        Start with the link level: source > destination MAC and Ethertype\n"
    "        (Linux cooked: 'sll', the source address and interface index).\n"
    "    -x, -xx\n"
    "        Below each line, every captured byte of the frame in hex.\n"
    "    -X, -XX\n"
    "        The same, with the printable bytes as ASCII. (tcpdump leaves the\n"
    "        link-level header out of -x and -X; here the frame is whole, as a\n"
    "        switch's mirror header is what one looks for.)\n"
    "    -t, -tt, -ttt, -tttt, -ttttt\n"
    "        The timestamp as tcpdump's -t letters give it: none; SECONDS.NANO-\n"
    "        SECONDS since the epoch (the default here); HH:MM:SS.NNNNNNNNN since\n"
    "        the line before; the date and time of day, local time (TZ); since\n"
    "        the first line. (tcpdump's default is the time of day; rocetrace's\n"
    "        is the epoch time every other rocetrace output uses.)\n"
    "    -#, --number\n"
    "        Start each line with the frame's number in the file (several\n"
    "        files: in the merged stream).\n"
    "    --json\n"
    "        Print one JSON object per frame (JSON Lines). Its keys, in the order\n"
    "        they come; frame, ts, len, caplen, kind and truncated are always\n"
    "        there, the others where the frame has what they hold:\n";

static const char help_tail[] =
    "    --count\n"
    "        Decode every frame but print only totals: frames, bytes, frames per\n"
    "        kind, ICRC results, truncated frames (a header cut by the snap\n"
    "        length; frames cut after their headers, as -s 128 cuts every data\n"
    "        packet, count apart: ICRC unchecked), CE marks and events; with\n"
    "        several files, a line per vantage point (its frames and files).\n"
    "        With --json the totals are one JSON object (several files: its\n"
    "        \"vantage_points\": [{name, files, frames}]).\n"
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
    "    the error), 2 for usage errors, 130 when Ctrl-C (143: SIGTERM) stopped\n"
    "    it: what was decoded until then is printed, --count prints its totals.\n"
    "\n"
    "EXAMPLES\n"
    "    rocetrace dissect run.pcap\n"
    "    rocetrace dissect -r run.pcap -# -ttt udp port 4791\n"
    "    rocetrace dissect run.pcap --flow '10.0.0.1>10.0.0.2:0x11' -X\n"
    "    rocetrace dissect run.pcapng --json | jq 'select(.kind == \"cnp\")'\n"
    "    rocetrace dissect run.pcap -f 'vlan and udp port 4791' -c 100\n"
    "    tcpdump -i eth0 -w - udp port 4791 | rocetrace dissect -\n"
    "    rocetrace dissect big.pcap --count\n"
    "    rocetrace dissect erspan-mirror.pcap --json | jq 'select(.erspan.session == 7)'\n"
    "    rocetrace dissect run.pcapng.2 run.pcapng run.pcapng.1.gz -v -# udp port 4791\n"
    "    rocetrace dissect --vantage tx=tx.pcapng --vantage rx=rx.pcapng --count\n";

/* One JSON key and what it holds, the text wrapped to 79 columns under the key. */
static void help_key(const struct rt_json_key_help *k)
{
	const char *t = k->help;
	int col = printf("          %-12s", k->key);

	while (*t) {
		size_t word = strcspn(t, " ");
		if (col + 1 + (int)word > 79) {
			printf("\n%23s", "");
			col = 23;
		} else {
			putchar(' ');
			col++;
		}
		col += printf("%.*s", (int)word, t);
		t += word;
		t += *t == ' ';
	}
	putchar('\n');
}

static void help(void)
{
	fputs(help_head, stdout);
	for (size_t i = 0; i < rt_print_json_nkeys; i++)
		help_key(&rt_print_json_keys[i]);
	fputs(help_tail, stdout);
}

/* Returns -1 to go on, or the exit status to return now. */
static int parse_args(int argc, char **argv, struct dissect_args *a)
{
	enum { OPT_JSON = 256, OPT_COUNT, OPT_UDP_PORT, OPT_NO_ICRC, OPT_FLOW, OPT_VANTAGE };
	static const struct option longopts[] = {
	    {"filter", required_argument, NULL, 'f'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"count", no_argument, NULL, OPT_COUNT},
	    {"udp-port", required_argument, NULL, OPT_UDP_PORT},
	    {"no-icrc", no_argument, NULL, OPT_NO_ICRC},
	    {"flow", required_argument, NULL, OPT_FLOW},
	    {"vantage", required_argument, NULL, OPT_VANTAGE},
	    {"number", no_argument, NULL, '#'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false, count = false;
	unsigned tflags = 0;
	uint64_t v;
	int c, rc;

	memset(a, 0, sizeof(*a));
	rt_dissect_opts_init(&a->opts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:c:r:h" RT_TEXT_LETTERS, longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->bpf = optarg;
			break;
		case 'r':
			if ((rc = rt_cli_files_add(CMD, &a->files, optarg, NULL)))
				return rc;
			break;
		case OPT_VANTAGE:
			if ((rc = rt_cli_files_vantage(CMD, &a->files, optarg)))
				return rc;
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
		case OPT_FLOW:
			if (rt_flowsel_parse(&a->sel, optarg) < 0)
				return rt_cli_usage_error(CMD,
				                          "--flow: bad selector '%s' (want %s)",
				                          optarg, RT_FLOWSEL_FORMS);
			a->flow = optarg;
			break;
		case 'h':
			help();
			return RT_EXIT_OK;
		default:
			if (rt_text_option(c, &a->text, &tflags))
				break;
			return rt_cli_getopt_error(CMD, c, argv);
		}
	}
	if (rt_text_ts(CMD, tflags, &a->text))
		return RT_EXIT_USAGE;
	rc = rt_cli_files_operands(CMD, argc, argv, optind, &a->files, &a->bpf, &a->bpf_joined);
	if (rc)
		return rc;
	a->mode = count ? OUT_COUNT : json ? OUT_JSON : OUT_TEXT;
	a->count_json = count && json;
	return -1;
}

/* Where each record goes. */
struct sink {
	struct dissect_args *args;
	struct rt_outbuf *out;
	struct rt_totals *totals;
	struct rt_analyzer *an; /* --flow ID: the flow ids the analyzer gives */
	uint64_t shown;         /* frames that passed --flow */
	struct rt_source *src;
	bool several;           /* more than one file: frames name theirs */
	uint64_t *point_frames; /* --count of several files: frames counted per vantage point */
	unsigned npoints;
};

/* Is the record's flow one --flow selects? */
static bool selected(struct sink *s, const struct rt_record *rec)
{
	const struct rt_flowsel *sel = &s->args->sel;
	if (!s->args->flow)
		return true;
	if (sel->kind == RT_FLOWSEL_ID) {
		struct rt_an_note note;
		rt_analyzer_feed_note(s->an, rec, &note);
		return note.flow_id == sel->id;
	}
	return rt_record_has_bth(rec) && rec->ip_version &&
	       rt_flowsel_match(sel, RT_AN_NONE, rec->ip_version, rec->src_ip, rec->dst_ip,
	                        rec->dest_qp);
}

/* One more frame of vantage point v counted. 0, or -ENOMEM. */
static int count_point(struct sink *s, int v)
{
	if (v < 0)
		return 0;
	if ((unsigned)v >= s->npoints) {
		uint64_t *n = realloc(s->point_frames, ((size_t)v + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + s->npoints, 0, ((size_t)v + 1 - s->npoints) * sizeof(*n));
		s->point_frames = n;
		s->npoints = (unsigned)v + 1;
	}
	s->point_frames[v]++;
	return 0;
}

static int on_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                    char *errbuf)
{
	struct sink *s = ctx;
	struct dissect_args *a = s->args;
	const char *file = NULL;

	if (!selected(s, rec))
		return 0;
	if (s->several) {
		struct rt_source_file_info fi;
		rt_source_file_info(s->src, frame->file, &fi);
		file = fi.path;
	}
	if (a->mode == OUT_TEXT) {
		a->text.file = file;
		rt_print_text(s->out, &a->text, frame->seq, rec, frame->data);
	} else if (a->mode == OUT_JSON) {
		rt_print_json(s->out, frame->seq, file, rec);
	} else {
		rt_totals_add(s->totals, rec);
		if (s->several &&
		    count_point(s, rt_source_vantage_of(s->src, frame->interface_id)) < 0)
			return rt_errorf(errbuf, ENOMEM, "counting frames");
	}
	if (s->out->error)
		return 1; /* the output failed: stop, say so below */
	return a->max_frames && ++s->shown >= a->max_frames ? 1 : 0;
}

/* --count of several files: the totals with a line (a key) per vantage point. */
static void print_totals(struct sink *s)
{
	struct rt_totals_point *points = NULL;
	const char **paths = NULL;
	unsigned n = s->several ? rt_source_vantage_count(s->src) : 0,
	         nfiles = rt_source_file_count(s->src);

	if (n &&
	    (!(points = calloc(n, sizeof(*points))) || !(paths = calloc(nfiles, sizeof(*paths)))))
		n = 0; /* out of memory: the totals alone */
	for (unsigned i = 0, used = 0; i < n; i++) {
		struct rt_vantage_point vp;
		rt_source_vantage_point(s->src, i, &vp);
		points[i].name = vp.name;
		points[i].files = &paths[used];
		points[i].nfiles = vp.nfiles;
		points[i].frames = i < s->npoints ? s->point_frames[i] : 0;
		for (unsigned k = 0; k < vp.nfiles && used < nfiles; k++) {
			struct rt_source_file_info fi;
			rt_source_file_info(s->src, vp.files[k], &fi);
			paths[used++] = fi.path;
		}
	}
	rt_print_totals(s->out, s->totals, points, n, s->args->count_json);
	free(points);
	free(paths);
}

int rt_cmd_dissect(int argc, char **argv)
{
	static struct rt_outbuf out;
	static struct rt_totals totals;
	struct dissect_args a;
	struct sink sink = {.args = &a, .out = &out, .totals = &totals};
	struct rt_pump_config pc = {.on_frame = on_frame, .ctx = &sink};
	struct rt_pump_result res;
	struct rt_source *src;
	char errbuf[RT_ERRBUF_SIZE] = "";
	int rc = parse_args(argc, argv, &a);

	if (rc >= 0) {
		rt_cli_files_free(&a.files);
		free(a.bpf_joined);
		return rc;
	}
	rc = rt_pump_open_files(&src, a.files.files, a.files.n, a.bpf, errbuf);
	free(a.bpf_joined);
	a.bpf = NULL;
	if (rc < 0) {
		rt_cli_files_free(&a.files);
		return rt_cli_fail(CMD, "%s", errbuf);
	}
	sink.src = src;
	sink.several = a.files.n > 1;
	if (a.flow && a.sel.kind == RT_FLOWSEL_ID) {
		struct rt_analyzer_opts ao;
		rt_analyzer_opts_init(&ao);
		ao.udp_port = a.opts.udp_port;
		if (!(sink.an = rt_analyzer_new(&ao, errbuf))) {
			rt_source_close(src);
			rt_cli_files_free(&a.files);
			return rt_cli_fail(CMD, "%s", errbuf);
		}
	}
	pc.dissect = &a.opts;
	memset(&totals, 0, sizeof(totals));
	rt_out_init(&out, stdout);
	rt_pump_catch_signals(NULL);
	rt_pump_run(src, &pc, &res, errbuf);
	/* a read error (a file cut short) or a signal keeps what was decoded: the frames, or the
	 * totals */
	if (a.mode == OUT_COUNT && !out.error)
		print_totals(&sink);
	rt_source_close(src);
	rt_analyzer_free(sink.an);
	free(sink.point_frames);
	rt_cli_files_free(&a.files);
	int werr = rt_out_flush(&out);
	rt_pump_release_signals();
	if (res.end == RT_PUMP_FAILED)
		return rt_cli_fail(
		    CMD, "%s%s", errbuf,
		    a.mode == OUT_COUNT && !werr ? " (the totals cover the frames before it)" : "");
	if (werr && werr != EPIPE) /* a reader that went away (| head) ends it quietly */
		return rt_cli_fail(CMD, "writing output: %s", strerror(werr));
	if (res.end == RT_PUMP_INTERRUPTED && !werr)
		return rt_cli_interrupted(CMD, res.signal, "after %llu frames",
		                          (unsigned long long)res.frames);
	return RT_EXIT_OK;
}
