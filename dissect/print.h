/* Printers of packet records: a tcpdump-style line, a JSON object, and the totals of --count. */
#ifndef RT_PRINT_H
#define RT_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/outbuf.h"
#include "dissect/dissect.h"

/*
 * One line per record (TS is SECONDS.NANOSECONDS):
 *   TS SRC > DST ecn=CE dscp=26 vlan=100 pcp=3 RC_SEND_ONLY qp=0x000011 psn=123 ackreq
 *      icrc=ok len=1082
 * then what the extended headers hold; a record cut by the snap length ends
 * in " [|LAYER]", an invalid one in " (invalid: EVENT,...)".
 */
void rt_print_text(struct rt_outbuf *o, const struct rt_record *r);

/* One JSON object and a newline (JSON Lines); `frame` is the frame's number in its capture. */
void rt_print_json(struct rt_outbuf *o, uint64_t frame, const struct rt_record *r);

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
	uint64_t truncated;
	uint64_t ecn_ce;
	uint64_t events[64]; /* per event bit */
};

void rt_totals_add(struct rt_totals *t, const struct rt_record *r);
/* The totals as text lines, or with `json` one JSON object and a newline. */
void rt_print_totals(struct rt_outbuf *o, const struct rt_totals *t, bool json);

#endif
