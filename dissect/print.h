/* Printers of packet records: a tcpdump-style line, a JSON object, and the totals of --count. */
#ifndef RT_PRINT_H
#define RT_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/outbuf.h"
#include "dissect/dissect.h"

/* The timestamp a text line starts with: tcpdump's -t letters. */
enum rt_print_ts {
	RT_PRINT_TS_EPOCH = 0, /* SECONDS.NANOSECONDS since the Unix epoch (the default, and -tt) */
	RT_PRINT_TS_NONE,      /* -t: none */
	RT_PRINT_TS_DELTA, /* -ttt: HH:MM:SS.NNNNNNNNN since the line before ("-" when earlier) */
	RT_PRINT_TS_DATE,  /* -tttt: YYYY-MM-DD HH:MM:SS.NNNNNNNNN, local time */
	RT_PRINT_TS_SINCE_FIRST, /* -ttttt: HH:MM:SS.NNNNNNNNN since the first line */
};

/* What else a text line shows: dissect's tcpdump options. */
struct rt_print_text_opts {
	enum rt_print_ts ts;
	bool number;      /* -#: the frame's number first, as tcpdump prints it ("%5u  ") */
	bool link;        /* -e: link-level fields (MACs, Ethertype, SLL interface) */
	unsigned verbose; /* -v: also TTL/hop limit, IPv4 id, UDP ports, opcode number, P_Key */
	unsigned hex;     /* 1 (-x): the captured bytes in hex below the line; 2 (-X): and ASCII */
};

/* What a run of text lines remembers from one line to the next (-ttt, -ttttt): zeroed before the first. */
struct rt_print_text_times {
	bool have_ts;
	uint64_t first_ts, prev_ts;
};

/*
 * One line per record (TS is SECONDS.NANOSECONDS with the default options):
 *   TS SRC > DST ecn=CE dscp=26 vlan=100 pcp=3 RC_SEND_ONLY qp=0x000011 psn=123 ackreq
 *      icrc=ok len=1082
 * then what the extended headers hold; a record cut by the snap length ends
 * in " [|LAYER]", an invalid one in " (invalid: EVENT,...)". `opts` (zeroed:
 * the default) adds what tcpdump's letters ask for; `times` are the run's
 * (updated); frame is the frame's number, file (NULL: none) the file it came
 * from, shown with verbose ("file=FILE" after the timestamp: a capture read
 * from several), data its captured bytes (rec->caplen of them; read with hex
 * only).
 */
void rt_print_text(struct rt_outbuf *o, const struct rt_print_text_opts *opts,
                   struct rt_print_text_times *times, uint64_t frame, const char *file,
                   const struct rt_record *r, const uint8_t *data);

/*
 * Bytes as tcpdump -x / -X shows them: lines of "\t0xOFFS:  " and 16 bytes in
 * groups of two hex bytes, with `ascii` two spaces and the printable ones
 * ('.' for the rest).
 */
void rt_print_hex(struct rt_outbuf *o, const uint8_t *data, uint32_t len, bool ascii);

/*
 * One JSON object and a newline (JSON Lines); `frame` is the frame's number
 * in its capture, `file` (NULL: none) the file it came from, for captures
 * read from several files.
 */
void rt_print_json(struct rt_outbuf *o, uint64_t frame, const char *file,
                   const struct rt_record *r);

/* A top-level key rt_print_json() writes and what it holds. */
struct rt_json_key_help {
	const char *key;
	const char *help;
};
/* The keys of rt_print_json(), in the order it writes them (the list its code is checked against).
 */
extern const struct rt_json_key_help rt_print_json_keys[];
extern const size_t rt_print_json_nkeys;

/* Totals over records (dissect --count). */
struct rt_totals {
	uint64_t frames, bytes, caplen_bytes;
	uint64_t kinds[RT_KIND_MALFORMED + 1];
	uint64_t icrc[RT_ICRC_BAD + 1];
	uint64_t truncated;      /* a header cut by the snap length */
	uint64_t icrc_unchecked; /* headers whole, payload or ICRC cut: the ICRC is not checked */
	uint64_t ecn_ce;
	uint64_t events[64]; /* per event bit */
};

void rt_totals_add(struct rt_totals *t, const struct rt_record *r);
/* Where counted frames were captured: a vantage point of a capture read from several files. */
struct rt_totals_point {
	const char *name;
	const char *const *files; /* its files, in the order read */
	size_t nfiles;
	uint64_t frames; /* of the frames counted */
};
/*
 * The totals as text lines, or with `json` one JSON object and a newline;
 * with `npoints` vantage points, a line each ("vantage point NAME: N
 * frames, files A B"), or the key "vantage_points": [{name, files, frames}].
 */
void rt_print_totals(struct rt_outbuf *o, const struct rt_totals *t,
                     const struct rt_totals_point *points, size_t npoints, bool json);

#endif
