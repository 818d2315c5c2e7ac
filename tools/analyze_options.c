/* analyze, timeline and report's command line: the help texts, the option table, parsing and the checks. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/flowsel.h"
#include "tools/analyze_options.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"

#define MAX_DURATION_NS      1000000000000000ull /* 1e6 s: --bucket, --episode-gap */
#define AN_MAX_DUP_WINDOW_NS 100000000ull /* --dup-window: 100 ms, the span copies are kept */
/* --bucket: shorter ones are surely a mistake (a 64-byte frame lasts 5 ns at 100G; rows explode) */
#define MIN_BUCKET_NS 100ull

static const char analyze_help[] =
    "usage: rocetrace analyze [-r] FILE... [--json] [--flow SEL] [--link-speed RATE]\n"
    "                         [--counters F] [--source-log F] [--udp-port P]\n"
    "                         [--vantage NAME=FILE[,FILE...]] [--vantage-window D]\n"
    "                         [--storm-ms N]\n"
    "                         [--top N] [--max-flows N] [-f BPF | EXPRESSION]\n"
    "\n"
    "Read a saved capture (pcap or pcapng, micro- or nanosecond, Ethernet or Linux\n"
    "cooked; FILE '-' reads standard input) and report per-QP flows, ECN marks and\n"
    "CNPs, NAKs, retransmissions, PFC/PAUSE and congestion episodes.\n"
    "\n"
    "Several FILEs are read as one stream in time order. Files that continue one\n"
    "another (a rotated set such as capture's OUT, OUT.1, OUT.2 or tcpdump -C\n"
    "files, given in any order, some gzip'd) are one vantage point; captures of\n"
    "the same traffic from different places (overlapping in time) are different\n"
    "vantage points, and a packet seen at several of them counts once (see\n"
    "Duplicates). docs/CAPTURE.md gives the grouping rule; --vantage names points.\n"
    "Between vantage points the same packet is matched (addresses, QP, PSN,\n"
    "opcode; ECN and link layer may differ) and each path from an upstream point\n"
    "to a downstream one is reported: packets seen at both, the clock offset\n"
    "(NTP's way, from the smallest delay each way; unknown, with the reason, when\n"
    "packets went one way only), the one-way delay (min, median, p99: queueing\n"
    "between the points), packets lost between them and packets that became CE\n"
    "between them (JSON: \"vantage_points\", \"paths\").\n"
    "\n"
    "A flow is one direction of one QP: (source IP, destination IP, destination QP).\n"
    "Its peer QP is learned from the traffic: ACKs, NAKs, read responses and atomic\n"
    "ACKs whose PSNs match the requests the other way; the DETH source QP of UD\n"
    "sends; RDMA CM REQ/REP exchanges on QP 1; the only unpaired flow a CNP can\n"
    "throttle; and, at the end, the only unpaired flow each way between two hosts.\n"
    "UDP ports are never used. Flows are listed in the order they were first seen;\n"
    "their \"id\" (0, 1, ...) is the same one `rocetrace timeline` uses.\n"
    "\n"
    "What is measured:\n"
    "  ECN        per-flow codepoint counts, CE and ECN-capable shares\n"
    "  CNP        counted on the data flow it throttles (cnp_received). NP reaction:\n"
    "             the NIC's delay from the CE mark a CNP answers to the CNP, learned\n"
    "             from the lags that repeat CNP after CNP, so CNP rate limiting does\n"
    "             not count; with the learned CNP interval and the CE marks the\n"
    "             limiter held back. RP reaction: the sending rate over 4 packet gaps\n"
    "             before a CNP vs the slowest 4 gaps after it, each window at most\n"
    "             --rate-window, never across another CNP (else no drop, with the\n"
    "             reason), and the time until it is back to 90%\n"
    "  transport  PSN gaps (loss before the capture point), retransmissions\n"
    "             (requests behind the highest PSN seen), go-back-N after a NAK with\n"
    "             its delay, implied timeouts (a resend with no NAK before it), RNR\n"
    "             NAKs, ACK round trip (request with AckReq -> the ACK covering it)\n"
    "  PFC/PAUSE  XOFF/XON per priority and sending MAC, paused time from quanta and\n"
    "             the link speed (one quantum = 512 bit times; a new XOFF refreshes,\n"
    "             quanta 0 ends a pause; time is counted once), storms\n"
    "  episodes   intervals where CE marks, CNPs or pauses follow each other less\n"
    "             than 1 ms apart, with throughput before, during and after\n"
    "  incast     the receiver two or more senders feed with the most CE marks\n"
    "The text summary shows per-flow rate, DSCP/PCP, ECN shares, round trips with\n"
    "their jitter, PFC senders by MAC, and times relative to the capture start.\n"
    "In --json a value that cannot be known is null, never 0.\n"
    "\n"
    "Options:\n"
    "  -r FILE            read FILE (the same as naming it first); may be repeated\n"
    "  FILE...            the files to read, before the filter expression: operands\n"
    "                     naming existing files, holding a '/' or ending like a\n"
    "                     capture file (.pcap, .pcapng, .cap, .gz, a number after\n"
    "                     them)\n"
    "  --vantage NAME=FILE[,FILE...]\n"
    "                     these files were captured at vantage point NAME (one\n"
    "                     point whatever their names and times); may be repeated\n"
    "  --vantage-window D the frames of one packet at the vantage points are\n"
    "                     matched within D of its first (default 10ms); D must\n"
    "                     cover the clocks' offset and the delay between them\n"
    "  EXPRESSION, -f, --filter BPF\n"
    "                     analyze only frames matching the libpcap filter: the words\n"
    "                     after the options (analyze F udp port 4791), as tcpdump\n"
    "                     takes them, or one argument of -f\n"
    "  --json             print one JSON document (every key: analyze/README.md)\n"
    "                     instead of text\n"
    "  --flow SEL         list only the flows SEL selects (the totals stay those of\n"
    "                     the whole capture): ID, IP (either end), SRC>DST,\n"
    "                     SRC>DST:QP or qp:QP, as the report prints flows\n"
    "                     ('10.0.0.1>10.0.0.2:0x000011'); quote it, the shell reads\n"
    "                     '>' as a redirection\n"
    "  --link-speed RATE  link speed for PFC/PAUSE quanta, e.g. 25G, 100G, 400G\n"
    "                     (default 100G)\n"
    "  --counters F       NIC counter samples (JSON Lines, docs/FORMATS.md) to merge\n"
    "                     into the report (default: FILE.counters.jsonl when it exists;\n"
    "                     several FILEs: when exactly one of them has one)\n"
    "  --source-log F     the traffic source's event log (`gen --log`) to join per flow\n"
    "  --udp-port P       RoCEv2 UDP destination port (default 4791)\n"
    "  --dup-window D     the same RoCE packet seen again at the same capture point\n"
    "                     within D is a copy, counted once (default 10us; 0 = count\n"
    "                     every frame); see Duplicates below\n"
    "  --storm-ms N       a priority paused continuously for N ms or more is reported\n"
    "                     as a PFC storm (default 100)\n"
    "  --episode-gap D    events closer than D belong to one episode (default 1ms)\n"
    "  --rate-window D    longest RP reaction window before/after each CNP, at most\n"
    "                     4s; a window must hold 4 of the flow's packet gaps\n"
    "                     (default 100us)\n"
    "  --top N            flows listed in the text summary (default 10; 0: none)\n"
    "  --max-flows N      keep at most N flows; the frames of further flows count in\n"
    "                     the totals only (the report's \"flow_limit\" and a warning\n"
    "                     say how many); memory is then bounded (default: no limit)\n"
    "  -h, --help         this text\n"
    "\n"
    "Duplicates: a packet with the same addresses, QP, PSN, opcode, length, UDP\n"
    "source port and IPv4 id as one already counted is a copy when it was seen at\n"
    "another capture point (another vantage point's file, pcapng interface, SLL2\n"
    "interface index of '-i any', ERSPAN session, or a router hop: other MACs or\n"
    "TTL) within 100 ms, or at the same one within --dup-window (overlapping files\n"
    "named as one vantage point, a port mirrored twice), unless it can be a resend\n"
    "(the PSN a NAK asked for, or the next one of a resend run).\n"
    "A copy counts once, in the \"duplicates\" key; a CE mark it picked up between\n"
    "the capture points counts.\n"
    "\n"
    "Warnings (text: a \"Warnings:\" block; JSON: \"warnings\", each with a stable\n"
    "\"code\"): frames the capture dropped (pcapng statistics, or the capture line\n"
    "of the counters file), duplicates, RoCEv2 found on another UDP port (with the\n"
    "--udp-port to use), RoCE traffic that is mostly Not-ECT, frames cut by the snap\n"
    "length, timestamps going backwards, an empty capture or one with no RoCE, and\n"
    "side files that are empty or unusable. FILE may be gzip-compressed.\n"
    "\n"
    "Units, as in every rocetrace command: a duration D takes ns, us, ms or s and a\n"
    "bare number is seconds; a RATE takes K, M, G or T, optionally with bit/s or\n"
    "bps, and a bare number is bits/s. rocetrace 0.1 read a bare duration here as\n"
    "nanoseconds: a bare number from 100 up is refused, with what to write.\n"
    "On a terminal a progress line is shown every second for big files. Ctrl-C\n"
    "(or SIGTERM) stops reading, prints the report of what was read so far and\n"
    "exits with status 130 (143); in the end phase after the last frame (pauses\n"
    "still running, pairing the last flows) it cuts that short and prints the\n"
    "report all the same. A capture that ends in the middle of a frame is\n"
    "reported up to there, then the error is printed and the exit status is 1.\n"
    "\n"
    "Exit status: 0 success (also when the reader of the report goes away),\n"
    "1 error, 2 usage error, 130 interrupted (143 by SIGTERM).\n"
    "\n"
    "Examples:\n"
    "  rocetrace analyze samples/incast.pcap\n"
    "  rocetrace analyze run.pcapng --json > report.json\n"
    "  rocetrace analyze mirror.pcap --link-speed 400G --storm-ms 20\n"
    "  rocetrace analyze run.pcapng --source-log gen.jsonl --counters nic.jsonl\n"
    "  rocetrace analyze mirror.pcap.gz --udp-port 4792 --dup-window 50us\n"
    "  rocetrace analyze -r run.pcapng --flow '10.0.0.1>10.0.0.2:0x000011' vlan 100\n"
    "  rocetrace analyze run.pcapng.2 run.pcapng run.pcapng.1 --json\n"
    "  rocetrace analyze --vantage sender=tx.pcapng --vantage receiver=rx.pcapng.gz\n";

static const char timeline_help[] =
    "usage: rocetrace timeline [-r] FILE... [--bucket D] [--flow SEL] [--no-idle]\n"
    "                          [--format csv|json] [-o OUT] [--link-speed RATE]\n"
    "                          [--counters F] [--source-log F] [--udp-port P]\n"
    "                          [--dup-window D] [--max-flows N]\n"
    "                          [--vantage NAME=FILE[,FILE...]] [--by-vantage]\n"
    "                          [-f BPF | EXPRESSION]\n"
    "\n"
    "Cut a capture (pcap/pcapng, '-' for standard input; several FILEs are read\n"
    "as one stream in time order, as `rocetrace analyze` reads them) into time\n"
    "buckets and write one row per (bucket, flow) that had traffic or events,\n"
    "plus an 'all' row per bucket with everything in it (every frame but copies\n"
    "of packets already counted, CNPs and NAKs that match no flow, PFC/PAUSE).\n"
    "Rows are written as time passes, so the output streams and memory stays\n"
    "O(flows).\n"
    "\n"
    "Idle stretches get zero rows at their edges, so that a line drawn through a\n"
    "flow's rows (or the 'all' rows) stays at zero across them instead of running\n"
    "straight from one busy bucket to the next: a flow gets a zero row in the\n"
    "bucket after its last row with counts and in the bucket before its next one\n"
    "(or its first); buckets where nothing happened at all get zero 'all' rows at\n"
    "the first and the last bucket of the stretch. Rows stay proportional to what\n"
    "happened, never to the capture's length over the bucket; --no-idle leaves the\n"
    "zero rows out (the layout before they came). A PFC/PAUSE pause fills each\n"
    "bucket it spans with an 'all' row; a bucket so short that the rows of pause\n"
    "alone would pass 1000 per frame read (1,000,000 to start with) is refused,\n"
    "with the bucket length to use (exit status 1).\n"
    "\n"
    "Columns (CSV header, or the keys of each JSON Lines object):\n"
    "  t_ns           bucket start, nanoseconds since the Unix epoch (aligned to\n"
    "                 multiples of the bucket)\n"
    "  flow           flow id (the \"id\" in `rocetrace analyze --json`: flows\n"
    "                 numbered 0, 1, ... in first-seen order) or 'all'\n"
    "  packets, bytes frames and their wire length\n"
    "  gbps           bytes * 8 / bucket length\n"
    "  ce             CE-marked packets\n"
    "  cnp            CNPs throttling this flow (counted on the data flow, as\n"
    "                 cnp_received in analyze)\n"
    "  nak            NAKs sent to this flow's sender (naks_received in analyze)\n"
    "  retransmitted  resent requests\n"
    "  pfc_xoff       PFC/PAUSE XOFF entries ('all' rows; 0 for flows)\n"
    "  pfc_paused_ns  paused time inside the bucket, summed over priorities and\n"
    "                 sending MACs ('all' rows; 0 for flows)\n"
    "  src, dst, dest_qp  the flow (empty on 'all' rows)\n"
    "  flow_id        the flow id as a number, -1 on 'all' rows (the last CSV\n"
    "                 column: 'flow' mixes numbers and 'all', so a CSV reader\n"
    "                 takes it as text)\n"
    "With --source-log, two more columns before src: source_rate_mbps (the\n"
    "traffic source's rate for the flow at the end of the bucket, empty/null when\n"
    "unknown or on a zero row) and source_cnp (CNPs it handled in the bucket;\n"
    "'all': every flow). With --counters, three more: nic_cnp_sent,\n"
    "nic_cnp_handled, nic_pause_frames ('all' rows: counter deltas of samples\n"
    "taken in the bucket, every device; 0 on flow rows). Side-file events after\n"
    "the last frame are not shown. Summing a column over the rows of one flow\n"
    "gives that flow's total in `rocetrace analyze --json`.\n"
    "\n"
    "Options:\n"
    "  -r FILE            read FILE (the same as naming it first); may be repeated\n"
    "  FILE...            the files to read, before the filter expression (as\n"
    "                     `rocetrace analyze` takes them)\n"
    "  --vantage NAME=FILE[,FILE...]\n"
    "                     these files were captured at vantage point NAME\n"
    "  EXPRESSION, -f, --filter BPF\n"
    "                     only frames matching the libpcap filter: the words after\n"
    "                     the options, as tcpdump takes them, or one argument of -f\n"
    "  --bucket D         bucket length with unit ns, us, ms or s; a bare number is\n"
    "                     seconds (0.001 = 1ms), at least 100ns (default 100us);\n"
    "                     rocetrace 0.1 read a bare number as nanoseconds: one from\n"
    "                     100 up is refused, with what to write\n"
    "  --flow SEL         only rows of flows matching SEL (the 'all' rows stay):\n"
    "                     ID (e.g. 3), IP (either end), SRC>DST, SRC>DST:QP, or\n"
    "                     qp:QP; QPs in decimal or 0x hex; IPv6 with a QP as\n"
    "                     [SRC]>[DST]:QP; 'rocetrace analyze' prints each flow so;\n"
    "                     quote it, the shell reads '>' as a redirection\n"
    "  --format csv|json  CSV with a header line (default) or JSON Lines\n"
    "  --no-idle          no zero rows for idle stretches\n"
    "  --by-vantage       rows per vantage point: each point's frames counted as\n"
    "                     an analysis of its capture alone counts them (a packet\n"
    "                     seen at two points is in the rows of both), a 'vantage'\n"
    "                     column after t_ns naming the point (`rocetrace analyze`'s\n"
    "                     vantage_points: a file, a pcapng interface, an SLL2\n"
    "                     interface index); 'all' rows per point; flow ids are\n"
    "                     each point's own (src, dst, dest_qp tell a flow across\n"
    "                     points); no side-file columns. A point named after its\n"
    "                     file may take its interface's name once a second\n"
    "                     interface of the file brings frames\n"
    "  -o OUT             write to OUT instead of standard output: the rows go to a\n"
    "                     new file in OUT's folder that replaces OUT at the end; a\n"
    "                     run that fails leaves OUT as it was; a symbolic link OUT\n"
    "                     is refused\n"
    "  --link-speed RATE  link speed for PFC/PAUSE quanta (default 100G)\n"
    "  --counters F       NIC counter samples (JSON Lines, docs/FORMATS.md; default:\n"
    "                     FILE.counters.jsonl when it exists; several FILEs: when\n"
    "                     exactly one of them has one)\n"
    "  --source-log F     the traffic source's event log (`gen --log`)\n"
    "  --udp-port P       RoCEv2 UDP destination port (default 4791)\n"
    "  --dup-window D     copies of a RoCE packet count once, as in `rocetrace\n"
    "                     analyze` (default 10us; 0 = count every frame)\n"
    "  --max-flows N      rows of at most N flows; the frames of further flows are in\n"
    "                     the 'all' rows only (a warning says how many)\n"
    "  -h, --help         this text\n"
    "\n"
    "What `rocetrace analyze` would warn about (capture drops, duplicates, RoCE on\n"
    "another port, a --flow that matches nothing, ...) is printed on standard\n"
    "error, one \"warning:\" line each. FILE may be gzip-compressed.\n"
    "Ctrl-C (SIGTERM) stops reading, writes the rows of what was read and exits\n"
    "with 130 (143). A reader of the rows that goes away ends it quietly.\n"
    "Exit status: 0 success, 1 error, 2 usage error, 130 interrupted (143 by\n"
    "SIGTERM).\n"
    "\n"
    "Examples:\n"
    "  rocetrace timeline samples/incast.pcap --bucket 50us > incast.csv\n"
    "  rocetrace timeline run.pcapng --flow '10.0.0.1>10.0.0.9:0x11' --format json\n"
    "  rocetrace timeline run.pcapng --bucket 1ms -o timeline.csv\n"
    "  rocetrace timeline run.pcapng run.pcapng.1 run.pcapng.2 --bucket 1ms\n"
    "  rocetrace timeline --by-vantage tx.pcapng rx.pcapng --bucket 1ms\n";

static const char report_help[] =
    "usage: rocetrace report [-r] FILE... [-o OUT.html] [--title TEXT] [--bucket D]\n"
    "                        [--flow SEL] [--link-speed RATE] [--counters F]\n"
    "                        [--source-log F] [--udp-port P] [--dup-window D]\n"
    "                        [--vantage NAME=FILE[,FILE...]] [--vantage-window D]\n"
    "                        [--storm-ms N] [--episode-gap D] [--rate-window D]\n"
    "                        [--max-flows N]\n"
    "                        [-f BPF | EXPRESSION]\n"
    "\n"
    "Write one self-contained HTML page about a capture, to read in a browser or\n"
    "attach to a ticket: every script, style and chart is inside it, it loads\n"
    "nothing (it works offline), and it is made in the same single pass over the\n"
    "capture as `rocetrace analyze`, from the same figures (the page holds the\n"
    "whole `analyze --json` document). Top to bottom (docs/REPORT.md):\n"
    "  verdict      was there congestion; where (the hot receiver, the paused\n"
    "               priorities), when (ms from the capture start), who (the most\n"
    "               CE-marked flows, flows caught in the episodes), did the\n"
    "               notification points answer and the senders slow down\n"
    "  warnings     what `analyze` says about the capture itself\n"
    "  capture      files, duration, frames, RoCE share, totals, link speed\n"
    "  over time    one time axis in ms from the capture start: Gb/s of the top\n"
    "               flows and of the others, CE marks/s and CNPs/s, the share of\n"
    "               time each PFC priority was paused, round trips, the sender's\n"
    "               rate (--source-log) and NIC counters (--counters); congestion\n"
    "               episodes shaded; drag to zoom (every chart follows), hover for\n"
    "               values. A chart holds at most 1024 points: each point is the\n"
    "               mean of its buckets with a band from the lowest to the highest\n"
    "               one, so short peaks stay visible on long captures\n"
    "  flows        every flow, sortable, paged: bytes, Gb/s, CE share, CNPs, NAKs,\n"
    "               resends, NP reaction, RP reaction, RTT median and p99; at\n"
    "               most the 20000 flows with the most bytes (the page says how\n"
    "               many more there are; `analyze --json` lists every one)\n"
    "  paths        with several vantage points: between each two, the packets\n"
    "               seen at both, clock offset, one-way delay, lost, CE marked\n"
    "  distributions  NP reaction and round trips over the flows\n"
    "  PFC          per priority and per sending MAC; storms\n"
    "  episodes     all of them, paged; a click zooms the charts onto one\n"
    "A value that cannot be known shows as a dash, with the reason on hover.\n"
    "\n"
    "FILE... is read as `rocetrace analyze` reads it: several files (a rotated set\n"
    "such as capture's OUT, OUT.1, OUT.2, some gzip'd, or captures taken at several\n"
    "places) are one stream in time order, grouped into vantage points by the rule\n"
    "of docs/CAPTURE.md; FILE '-' reads standard input.\n"
    "\n"
    "Options (the others as in `rocetrace analyze --help`):\n"
    "  -r FILE            read FILE (the same as naming it first); may be repeated\n"
    "  FILE...            the files to read, before the filter expression, as\n"
    "                     `rocetrace analyze` takes them\n"
    "  --vantage NAME=FILE[,FILE...]\n"
    "                     these files were captured at vantage point NAME; may be\n"
    "                     repeated\n"
    "  -o OUT             write the page to OUT (default: the first FILE's name\n"
    "                     without its .gz, .pcap or .pcapng ending, plus .html, in\n"
    "                     the current folder; report.html for '-'); written under\n"
    "                     a new name and renamed at the end; a symbolic link OUT\n"
    "                     is refused\n"
    "  --title TEXT       the page's title (default: \"rocetrace report: FILE\", with\n"
    "                     \"and N more files\" after the first FILE of several)\n"
    "  --bucket D         the finest time step of the charts (default 100us; at\n"
    "                     least 100ns); long captures merge buckets in pairs\n"
    "  --flow SEL         list only these flows in the flow table (totals and\n"
    "                     charts stay those of the whole capture)\n"
    "  --link-speed RATE  link speed for PFC/PAUSE quanta (default 100G)\n"
    "  --counters F       NIC counter samples (default: FILE.counters.jsonl when it\n"
    "                     exists; several FILEs: when exactly one of them has one):\n"
    "                     a chart of CNPs sent/handled and pause frames\n"
    "  --source-log F     the traffic source's event log (`gen --log`): a chart of\n"
    "                     the senders' rates and their cuts in the verdict\n"
    "  --udp-port P, --dup-window D, --vantage-window D, --storm-ms N,\n"
    "  --episode-gap D, --rate-window D, --max-flows N, -f BPF, EXPRESSION\n"
    "                     as in `rocetrace analyze`\n"
    "  -h, --help         this text\n"
    "\n"
    "The page needs a browser with JavaScript and DecompressionStream (Chromium 80,\n"
    "Firefox 113, Safari 16.4 or later): its data is held gzip-compressed. Its\n"
    "size follows the flows and episodes, not the frames: the charts are\n"
    "downsampled, the flows and episodes are compressed.\n"
    "\n"
    "Bad input still gives a page: an empty capture, one without RoCE, or a file\n"
    "that ends in the middle of a frame (or cannot be read at all) is said so on\n"
    "the page, and the exit status is that of `rocetrace analyze` (1 for a read\n"
    "error). The path of the page written is printed on standard output.\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 usage error, 130 interrupted (143 by\n"
    "SIGTERM; the page covers the frames read so far).\n"
    "\n"
    "Examples:\n"
    "  rocetrace report samples/incast.pcap\n"
    "  rocetrace report run.pcapng -o run.html --title 'job 4711, rack 12 incast'\n"
    "  rocetrace report run.pcapng --source-log gen.jsonl --counters nic.jsonl\n"
    "  rocetrace report mirror.pcap.gz --link-speed 400G --bucket 1ms -o mirror.html\n"
    "  rocetrace report run.pcapng run.pcapng.1 run.pcapng.2.gz   # writes run.html\n";

enum {
	OPT_JSON = 256,
	OPT_LINK,
	OPT_COUNTERS,
	OPT_SRCLOG,
	OPT_PORT,
	OPT_STORM,
	OPT_TOP,
	OPT_BUCKET,
	OPT_FLOW,
	OPT_FORMAT,
	OPT_GAP,
	OPT_RATEWIN,
	OPT_DUPWIN,
	OPT_MAXFLOWS,
	OPT_NOIDLE,
	OPT_BYVANTAGE,
	OPT_VANTAGE,
	OPT_TITLE,
	OPT_VWINDOW,
};

int rt_analyze_parse_args(int argc, char **argv, struct rt_analyze_args *a)
{
	static const char *const helps[] = {analyze_help, timeline_help, report_help};
	const char *cmd = a->cmd;
	enum rt_analyze_mode mode = a->mode;
	bool timeline = a->timeline, report = mode == RT_MODE_REPORT;
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"filter", required_argument, NULL, 'f'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"link-speed", required_argument, NULL, OPT_LINK},
	    {"counters", required_argument, NULL, OPT_COUNTERS},
	    {"source-log", required_argument, NULL, OPT_SRCLOG},
	    {"udp-port", required_argument, NULL, OPT_PORT},
	    {"storm-ms", required_argument, NULL, OPT_STORM},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"bucket", required_argument, NULL, OPT_BUCKET},
	    {"flow", required_argument, NULL, OPT_FLOW},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"episode-gap", required_argument, NULL, OPT_GAP},
	    {"rate-window", required_argument, NULL, OPT_RATEWIN},
	    {"dup-window", required_argument, NULL, OPT_DUPWIN},
	    {"max-flows", required_argument, NULL, OPT_MAXFLOWS},
	    {"no-idle", no_argument, NULL, OPT_NOIDLE},
	    {"by-vantage", no_argument, NULL, OPT_BYVANTAGE},
	    {"vantage", required_argument, NULL, OPT_VANTAGE},
	    {"title", required_argument, NULL, OPT_TITLE},
	    {"vantage-window", required_argument, NULL, OPT_VWINDOW},
	    {NULL, 0, NULL, 0},
	};
	struct rt_analyzer_opts *ao = &a->ao;
	struct rt_flowsel sel;
	rt_analyzer_opts_init(ao);
	uint64_t port = RT_ROCEV2_PORT, v;
	const char *shortopts = mode != RT_MODE_ANALYZE ? ":hf:r:o:" : ":hf:r:";
	int c, li, rc;
	optind = 1;
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1) {
		switch (c) {
		case 'h':
			fputs(helps[mode], stdout);
			return -1;
		case 'f':
			a->bpf = optarg;
			break;
		case 'r':
			if ((rc = rt_cli_files_add(cmd, &a->files, optarg, NULL)))
				return rc;
			break;
		case OPT_VANTAGE:
			if ((rc = rt_cli_files_vantage(cmd, &a->files, optarg)))
				return rc;
			break;
		case OPT_JSON:
			if (timeline)
				return rt_cli_usage_error(
				    cmd, "unknown option '--json' (use --format json)");
			if (report)
				return rt_cli_usage_error(
				    cmd, "--json is an option of 'rocetrace analyze' (the page "
				         "holds that document)");
			a->json = true;
			break;
		case OPT_LINK:
			if (rt_opt_rate(cmd, "--link-speed", optarg, 1000000, 100000000000000ull,
			                &ao->link_speed_bps))
				return RT_EXIT_USAGE;
			break;
		case OPT_COUNTERS:
			a->counters = optarg;
			break;
		case OPT_SRCLOG:
			a->srclog = optarg;
			break;
		case OPT_STORM:
		case OPT_TOP:
		case OPT_GAP:
		case OPT_RATEWIN:
			if (timeline || (report && c == OPT_TOP))
				return rt_cli_usage_error(
				    cmd, "--%s is an option of 'rocetrace analyze'",
				    longopts[li].name);
			if (c == OPT_STORM) {
				if (rt_opt_uint(cmd, "--storm-ms", optarg, 1, 86400000, &v))
					return RT_EXIT_USAGE;
				ao->storm_ns = v * 1000000ull;
			} else if (c == OPT_TOP) {
				if (rt_opt_uint(cmd, "--top", optarg, 0, 1000000, &a->top))
					return RT_EXIT_USAGE;
			} else if (c == OPT_GAP) {
				if (rt_opt_duration_was_ns(cmd, "--episode-gap", optarg, 1000,
				                           MAX_DURATION_NS, &ao->episode_gap_ns))
					return RT_EXIT_USAGE;
			} else if (rt_opt_duration_was_ns(cmd, "--rate-window", optarg, 1000,
			                                  4000000000ull, &ao->rate_window_ns)) {
				return RT_EXIT_USAGE;
			}
			break;
		case OPT_PORT:
			if (rt_opt_uint(cmd, "--udp-port", optarg, 1, 65535, &port))
				return RT_EXIT_USAGE;
			break;
		case OPT_DUPWIN:
			if (rt_opt_duration_was_ns(cmd, "--dup-window", optarg, 0,
			                           AN_MAX_DUP_WINDOW_NS, &ao->dup_window_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_VWINDOW:
			if (timeline)
				return rt_cli_usage_error(
				    cmd, "--vantage-window is an option of 'rocetrace analyze'");
			if (rt_opt_duration(cmd, "--vantage-window", optarg, 1000, 10000000000ull,
			                    &ao->vantage_window_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_MAXFLOWS:
			if (rt_opt_uint(cmd, "--max-flows", optarg, 1, UINT32_MAX - 1, &v))
				return RT_EXIT_USAGE;
			ao->max_flows = (uint32_t)v;
			break;
		case OPT_FLOW:
			/* checked here, before anything is opened or read */
			if (rt_flowsel_parse(&sel, optarg) < 0)
				return rt_cli_usage_error(cmd,
				                          "--flow: bad selector '%s' (want %s)",
				                          optarg, RT_FLOWSEL_FORMS);
			ao->flow = optarg;
			break;
		case OPT_TITLE:
			if (!report)
				return rt_cli_usage_error(
				    cmd, "--title is an option of 'rocetrace report'");
			a->title = optarg;
			break;
		case OPT_BUCKET:
		case OPT_FORMAT:
		case OPT_NOIDLE:
		case OPT_BYVANTAGE:
		case 'o':
			if (!timeline && !(report && (c == OPT_BUCKET || c == 'o')))
				return rt_cli_usage_error(
				    cmd, "%s%s is an option of 'rocetrace timeline'",
				    li < 0 ? "-" : "--", li < 0 ? "o" : longopts[li].name);
			if (c == OPT_BUCKET) {
				if (rt_opt_duration_was_ns(cmd, "--bucket", optarg, MIN_BUCKET_NS,
				                           MAX_DURATION_NS, &a->tlo.bucket_ns))
					return RT_EXIT_USAGE;
			} else if (c == OPT_NOIDLE) {
				a->tlo.no_idle = true;
			} else if (c == OPT_BYVANTAGE) {
				a->by_vantage = true;
			} else if (c == OPT_FORMAT) {
				if (!strcmp(optarg, "json"))
					a->tlo.json = true;
				else if (strcmp(optarg, "csv"))
					return rt_cli_usage_error(
					    cmd, "--format: '%s' is not csv or json", optarg);
			} else {
				a->out_path = optarg;
			}
			break;
		default:
			return rt_cli_getopt_error(cmd, c, argv);
		}
	}
	int orc =
	    rt_cli_files_operands(cmd, argc, argv, optind, &a->files, &a->bpf, &a->bpf_joined);
	if (orc)
		return orc;
	ao->udp_port = (uint16_t)port;
	return 0;
}
