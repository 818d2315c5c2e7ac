/* rocetrace dissect: options and wiring; the pump decodes each frame, a sink (capture/sinks.h) prints
 * it. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/flowsel.h"
#include "capture/pump.h"
#include "capture/sinks.h"
#include "common/outbuf.h"
#include "dissect/dissect.h"
#include "dissect/pktkind.h"
#include "dissect/print.h"
#include "tools/analyze_options.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/optable.h"
#include "tools/selection.h"
#include "tools/textopts.h"

#define CMD "dissect"

enum output_mode { OUT_TEXT, OUT_JSON, OUT_COUNT };

struct dissect_args {
	struct rt_cli_files files;
	const char *bpf;
	char *bpf_joined;    /* the expression after the options, joined (freed at the end) */
	uint64_t max_frames; /* 0 = all */
	enum output_mode mode;
	bool json, count; /* --json, --count as given */
	bool count_json;
	struct rt_dissect_opts opts;
	struct rt_print_text_opts text;
	unsigned tflags;             /* the -t letters counted */
	struct rt_selection sel;     /* --flow, --conversation, --kind */
	struct rt_flowsel_set flows; /* sel.flow parsed */
	uint32_t *conv_ids, nconv;   /* the flows of sel.conversation, by id (ascending) */
	unsigned threads;            /* --threads */
};

/* The manual up to the --json option; the JSON keys follow from their list, then the rest. */
static const char help_head[] =
    "NAME\n"
    "    rocetrace dissect - decode every frame of a capture file\n"
    "\n"
    "SYNOPSIS\n"
    "    rocetrace dissect [-r] FILE... [-c N] [-n] [-v] [-e] [-x | -X] [-t...] [-#]\n"
    "        [--json | --count] [--flow SEL]... [--conversation SEL]...\n"
    "        [--kind K[,K...]] [--vantage NAME=FILE[,FILE...]] [--udp-port P]\n"
    "        [--no-icrc] [--threads N] [-f BPF | EXPRESSION]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads FILE (pcap or pcapng, micro- or nanosecond timestamps, plain or\n"
    "    gzip-compressed; '-' reads standard input) and decodes each frame, with\n"
    "    the link type of its pcapng interface: Ethernet, 802.1Q/802.1ad tags,\n"
    "    Linux cooked (SLL, SLL2) or raw IP link layers, IPv4/IPv6 (and IPv6's\n"
    "    hop-by-hop, routing, fragment and destination options headers), UDP, the\n"
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
    "    PAUSE frames their quanta. RDMA CM messages on QP 1 come with their\n"
    "    fields (cm REQ comm_id=0x.. local_qpn=0x.. start_psn=N service_id=0x..\n"
    "    (tcp:PORT), cm REP, RTU, MRA, DREQ remote_qpn=.., DREP, cm REJ of=REQ\n"
    "    reason=28(consumer_reject), SIDR_REQ/REP, LAP, APR). Frames that are not\n"
    "    RoCE are named by protocol, as tcpdump shows them: tcp SPORT > DPORT\n"
    "    [S.] seq=N ack=N win=N payload=N, udp SPORT > DPORT, icmp echo-request\n"
    "    id=N seq=N, icmp6 neighbor-solicitation, arp who-has IP tell IP, arp\n"
    "    reply IP is-at MAC, lldp, ptp, stp, another IP protocol or Ethertype by\n"
    "    its name or number; their ECN and DSCP only when set (or with -v). A\n"
    "    frame cut by the snap length ends with ' [|LAYER]' naming the layer\n"
    "    that was cut (a RoCEv1 GRH: [|grh]); a frame that breaks the spec ends\n"
    "    with ' (invalid: EVENT,...)'. After len= come the notices: fragment (an\n"
    "    IP fragment: no UDP header decoded), ipv6_ext_headers (a RoCEv2 packet\n"
    "    behind IPv6 extension headers: the spec does not say how the ICRC covers\n"
    "    them, so it is left unchecked), extra_vlan_tags (more than two tags: the\n"
    "    third and later are not shown). IPv6 AH, ESP and no-next-header are not\n"
    "    walked past: the frame is named by them.\n"
    "\n"
    "    The options a tcpdump user types work alike: -r FILE, a filter expression\n"
    "    after the options, -n, -v, -e, -x/-X, the -t letters and -#.\n"
    "\n"
    "    When the output goes to a file or a pipe and standard error is a\n"
    "    terminal, a progress line (frames read, seconds) is shown there every\n"
    "    second for big files, and cleared at the end.\n"
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
    "        flow. Quote it: the shell reads '>' as a redirection. Given several\n"
    "        times, or as SEL,SEL,..., the frames of the flows any of them\n"
    "        selects (at most 64).\n"
    "    --conversation SEL\n"
    "        Only frames of the flows SEL selects and of their peers, the other\n"
    "        direction of each one's QP pair as 'rocetrace analyze' pairs them:\n"
    "        the requests with the ACKs, NAKs, RNR NAKs, read responses and CNPs\n"
    "        that answer them, so a go-back-N or a CNP's answer reads in one run.\n"
    "        The capture is read twice (a pair is known at its end), so FILE\n"
    "        cannot be standard input. May be repeated; with --flow, the frames\n"
    "        of either.\n"
    "    --kind K[,K...]\n"
    "        Only frames of these kinds (with --flow or --conversation, of their\n"
    "        flows); may be repeated. Each frame is of one kind:\n"
    "          cm      an RDMA CM message (a MAD on QP 1)\n"
    "          cnp     a congestion notification (opcode 0x81)\n"
    "          rnr     a packet whose AETH is an RNR NAK\n"
    "          nak     a packet whose AETH is a NAK (PSN sequence error, ...)\n"
    "          read    an RDMA READ request or response\n"
    "          atomic  compare-and-swap, fetch-and-add, their ACK, ATOMIC WRITE\n"
    "          ack     an ACK\n"
    "          data    every other packet with a BTH: SEND, WRITE, FLUSH, ...\n"
    "          pfc     802.1Qbb priority flow control\n"
    "          pause   802.3x PAUSE\n"
    "          other   the rest: not RoCE, or RoCE whose BTH cannot be read\n"
    "                  (cut by the snap length, a fragment, a bad length)\n"
    "    -n, -nn\n"
    "        Accepted for tcpdump's sake: names are never looked up.\n"
    "    -v\n"
    "        Also the TTL (IPv6: hop limit), the IPv4 id, the UDP ports of RoCE\n"
    "        (udp=SPORT>DPORT), the opcode number, the P_Key and TVer, the ECN\n"
    "        and DSCP of frames that are not RoCE; with several files, the\n"
    "        frame's file (file=FILE) after the timestamp.\n"
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
    "    --threads N\n"
    "        Decode and print with N threads (default: the CPUs this process may\n"
    "        run on): the reading thread hands chunks of up to 2048 frames to N\n"
    "        threads that decode and format them apart, and writes their lines in\n"
    "        frame order, the same bytes as --threads 1 (one thread, no other).\n"
    "        --count, --flow, --conversation, --kind and -c decode on the reading\n"
    "        thread alone.\n"
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
    "    rocetrace dissect run.pcapng --kind cnp,nak\n"
    "    rocetrace dissect run.pcapng --conversation '10.0.0.1>10.0.0.2:0x11' -#\n"
    "    rocetrace dissect run.pcap --flow 10.0.0.1 --flow 10.0.0.7 --kind data\n"
    "    rocetrace dissect run.pcap --json | jq 'select(.cm.message == \"REJ\")'\n"
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

static int show_help(struct rt_opt_use *u)
{
	(void)u;
	help();
	return -1;
}

#define AT(member) RT_AT(struct dissect_args, member)

static const struct rt_opt rows[] = {
    {.name = "filter", .letter = 'f', .kind = RT_OPT_STRING, .at = AT(bpf)},
    RT_CLI_FILES_ROWS(struct dissect_args, files),
    {.letter = 'c', .kind = RT_OPT_UINT, .at = AT(max_frames), .min = 1, .max = UINT64_MAX},
    {.name = "json", .kind = RT_OPT_FLAG, .at = AT(json)},
    {.name = "count", .kind = RT_OPT_FLAG, .at = AT(count)},
    {.name = "udp-port",
     .kind = RT_OPT_UINT,
     .at = AT(opts.udp_port),
     .store = RT_STORE_U16,
     .min = 1,
     .max = 65535},
    {.name = "no-icrc", .kind = RT_OPT_CLEAR, .at = AT(opts.verify_icrc)},
    RT_CLI_THREADS_ROW(struct dissect_args, threads),
    RT_SELECTION_ROWS(struct dissect_args, sel),
    RT_TEXT_ROWS(struct dissect_args, text, tflags),
    {.name = "help", .letter = 'h', .kind = RT_OPT_CALL, .call = show_help},
};

const struct rt_opt_table rt_dissect_options = {
    .cmd = CMD, .rows = rows, .nrows = sizeof(rows) / sizeof(rows[0])};

/* Returns -1 to go on, or the exit status to return now. */
static int parse_args(int argc, char **argv, struct dissect_args *a)
{
	int rc;

	memset(a, 0, sizeof(*a));
	rt_dissect_opts_init(&a->opts);
	a->threads = rt_cli_cpus();
	if ((rc = rt_opt_parse(&rt_dissect_options, a, argc, argv)))
		return rc < 0 ? RT_EXIT_OK : rc;
	if (rt_text_ts(CMD, a->tflags, &a->text))
		return RT_EXIT_USAGE;
	rc = rt_cli_files_operands(CMD, argc, argv, optind, &a->files, &a->bpf, &a->bpf_joined);
	if (rc)
		return rc;
	rt_flowsel_set_parse(&a->flows, a->sel.flow); /* checked by its row */
	if (a->sel.conversation && rt_cli_files_stdin(&a->files))
		return rt_cli_usage_error(CMD,
		                          "--conversation reads the capture twice (a flow's peer "
		                          "is known at its end): give a file, not standard input");
	a->mode = a->count ? OUT_COUNT : a->json ? OUT_JSON : OUT_TEXT;
	a->count_json = a->count && a->json;
	return -1;
}

/*
 * --flow and -c in front of the output sink: the frames of the flows SEL
 * selects, at most N of them (the points and the end go through).
 */
struct select {
	const struct dissect_args *args;
	struct rt_analyzer *an; /* --flow ID: the flow ids the analyzer gives */
	uint64_t shown;         /* frames that passed --flow */
	struct rt_pump_sink out;
};

/* Is the record of a kind --kind names, in a flow --flow or --conversation selects? */
static bool selected(struct select *s, const struct rt_record *rec)
{
	const struct dissect_args *a = s->args;
	if (a->sel.kinds && !(a->sel.kinds & (1u << rt_pkt_kind(rec))))
		return false;
	if (!a->sel.flow && !a->sel.conversation)
		return true;
	uint32_t id = RT_AN_NONE;
	if (s->an) {
		struct rt_an_note note;
		rt_analyzer_feed_note(s->an, rec, &note);
		id = note.flow_id;
	}
	if (id != RT_AN_NONE && rt_flow_ids_has(a->conv_ids, a->nconv, id))
		return true;
	return rt_record_has_bth(rec) && rec->ip_version &&
	       rt_flowsel_set_match(&a->flows, id, rec->ip_version, rec->src_ip, rec->dst_ip,
	                            rec->dest_qp);
}

static int select_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                        char *errbuf)
{
	struct select *s = ctx;
	if (!selected(s, rec))
		return 0;
	int rc = s->out.frame(s->out.ctx, frame, rec, errbuf);
	if (rc)
		return rc;
	return s->args->max_frames && ++s->shown >= s->args->max_frames ? 1 : 0;
}

static int select_point(void *ctx, const struct rt_pump_point *pt, char *errbuf)
{
	struct select *s = ctx;
	return s->out.point ? s->out.point(s->out.ctx, pt, errbuf) : 0;
}

static int select_end(void *ctx, const struct rt_pump_result *res, char *errbuf)
{
	struct select *s = ctx;
	return s->out.end ? s->out.end(s->out.ctx, res, errbuf) : 0;
}

/* The analyzer that numbers the flows (--flow ID, --conversation): as analyze does, without vantage points. */
static void note_opts(const struct dissect_args *a, struct rt_analyzer_opts *ao)
{
	rt_analyzer_opts_init(ao);
	ao->udp_port = a->opts.udp_port;
}

/* The output the options ask for, behind --flow and -c when given, into *sink. 0 or a negative errno. */
static int output(struct select *s, struct rt_outbuf *out, struct rt_pump_sink *sink, char *errbuf)
{
	const struct dissect_args *a = s->args;
	bool several = a->files.n > 1; /* frames name their file, --count its vantage points */
	if (a->threads > 1 && a->mode != OUT_COUNT && !a->sel.flow && !a->sel.conversation &&
	    !a->sel.kinds && !a->max_frames) {
		/* every frame: chunks of them decoded and printed by the threads */
		int rc = rt_lines_sink_parallel(&s->out, out, a->mode == OUT_TEXT ? &a->text : NULL,
		                                several, &a->opts, a->threads, errbuf);
		*sink = s->out;
		return rc;
	}
	int rc = a->mode == OUT_TEXT ? rt_text_sink(&s->out, out, &a->text, several, errbuf)
	         : a->mode == OUT_JSON
	             ? rt_json_sink(&s->out, out, several, errbuf)
	             : rt_totals_sink(&s->out, out, a->count_json, several, errbuf);
	if (rc < 0)
		return rc;
	if (rt_flowsel_set_has_id(&a->flows) || a->sel.conversation) {
		struct rt_analyzer_opts ao;
		note_opts(a, &ao);
		if (!(s->an = rt_analyzer_new(&ao, errbuf)))
			return -ENOMEM;
	}
	if (a->sel.flow || a->sel.conversation || a->sel.kinds || a->max_frames)
		*sink = (struct rt_pump_sink){
		    .point = select_point, .frame = select_frame, .end = select_end, .ctx = s};
	else /* every frame: straight to the output */
		*sink = s->out;
	return 0;
}

/* What parse_args() and the run took. */
static void args_free(struct dissect_args *a)
{
	rt_cli_files_free(&a->files);
	rt_selection_free(&a->sel);
	free(a->conv_ids);
	free(a->bpf_joined);
	a->conv_ids = NULL;
	a->bpf_joined = NULL;
}

int rt_cmd_dissect(int argc, char **argv)
{
	static struct rt_outbuf out;
	struct dissect_args a;
	struct select sel = {.args = &a};
	struct rt_pump_sink sink;
	struct rt_cli_progress progress = {.cmd = CMD};
	struct rt_pump_config pc = {
	    .decode = &a.opts, .sinks = &sink, .nsinks = 1, .ctx = &progress};
	struct rt_pump_result res;
	struct rt_source *src;
	char errbuf[RT_ERRBUF_SIZE] = "";
	int rc = parse_args(argc, argv, &a);

	if (rc < 0 && a.sel.conversation) { /* its flows and their peers, by id, read first */
		struct rt_analyzer_opts ao;
		note_opts(&a, &ao);
		ao.conversation = a.sel.conversation;
		rc = rt_selection_resolve(CMD, &a.files, a.bpf, &ao, &a.conv_ids, &a.nconv);
		rc = rc ? rc : -1;
	}
	if (rc >= 0) {
		args_free(&a);
		return rc;
	}
	rt_pump_catch_signals(NULL); /* Ctrl-C ends a pipe's wait for its header too */
	rc = rt_pump_open_files(&src, a.files.files, a.files.n, a.bpf, errbuf);
	a.bpf = NULL;
	if (rc < 0) {
		rt_pump_release_signals();
		args_free(&a);
		return rc == -EINTR && rt_pump_stopping()
		           ? rt_cli_interrupted(CMD, rt_pump_stop_signal(),
		                                " before the first frame")
		           : rt_cli_fail(CMD, "%s", errbuf);
	}
	rt_out_init(&out, stdout);
	if (output(&sel, &out, &sink, errbuf) < 0) {
		rt_pump_sink_free(&sel.out);
		rt_pump_release_signals();
		rt_source_close(src);
		args_free(&a);
		return rt_cli_fail(CMD, "%s", errbuf);
	}
	/* a read error (a file cut short) or a signal keeps what was decoded: the frames, or the
	 * totals (written by the sink's end) */
	if (rt_cli_progress_wanted(true))
		pc.on_progress = rt_cli_progress_pump;
	rt_pump_run(src, &pc, &res, errbuf);
	rt_cli_progress_end(&progress);
	rt_source_close(src);
	rt_analyzer_free(sel.an);
	rt_pump_sink_free(&sel.out);
	args_free(&a);
	int werr = rt_out_flush(&out);
	rt_pump_release_signals();
	if (res.end == RT_PUMP_FAILED)
		return rt_cli_fail(
		    CMD, "%s%s", errbuf,
		    a.mode == OUT_COUNT && !werr ? " (the totals cover the frames before it)" : "");
	if (werr && werr != EPIPE) /* a reader that went away (| head) ends it quietly */
		return rt_cli_fail(CMD, "writing output: %s", strerror(werr));
	if (res.end == RT_PUMP_INTERRUPTED && !werr)
		return rt_cli_interrupted(CMD, res.signal, " after %llu frames",
		                          (unsigned long long)res.frames);
	return RT_EXIT_OK;
}
