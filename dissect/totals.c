/* Totals over packet records (dissect --count): frames and bytes, kinds, ICRC results, CE marks,
 * events. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/textfmt.h"
#include "common/json.h"
#include "dissect/print.h"

/* A string literal, copied without strlen. */
#define OUT_LIT(o, s) rt_out_write((o), (s), sizeof(s) - 1)

static const enum rt_kind kinds[] = {RT_KIND_ROCE,  RT_KIND_CNP,   RT_KIND_PFC,
                                     RT_KIND_PAUSE, RT_KIND_OTHER, RT_KIND_MALFORMED};
static const enum rt_icrc_status icrcs[] = {RT_ICRC_OK, RT_ICRC_BAD, RT_ICRC_UNCHECKED};

void rt_totals_add(struct rt_totals *t, const struct rt_record *r)
{
	t->frames++;
	t->bytes += r->wirelen;
	t->caplen_bytes += r->caplen;
	if (r->kind <= RT_KIND_MALFORMED)
		t->kinds[r->kind]++;
	if (rt_record_has_bth(r) && r->icrc <= RT_ICRC_BAD)
		t->icrc[r->icrc]++;
	/* a header cut by the snap length; the payload and ICRC alone (a header-only capture) are a
	 * fact of the capture, not damage: their ICRC is unchecked */
	if (r->events & RT_EV_TRUNCATION_MASK & ~RT_EV_ICRC_TRUNCATED)
		t->truncated++;
	else if (r->events & RT_EV_ICRC_TRUNCATED)
		t->icrc_unchecked++;
	if (r->ip_version && r->ecn == 3)
		t->ecn_ce++;
	for (uint64_t ev = r->events; ev; ev &= ev - 1)
		t->events[__builtin_ctzll(ev)]++;
}

static void totals_json(struct rt_outbuf *o, const struct rt_totals *t,
                        const struct rt_totals_point *points, size_t npoints)
{
	struct rt_json j;

	rt_json_init(&j, o);
	rt_json_obj(&j);
	RT_JSON_U64(&j, "schema", RT_JSON_SCHEMA);
	RT_JSON_U64(&j, "frames", t->frames);
	RT_JSON_U64(&j, "bytes", t->bytes);
	RT_JSON_U64(&j, "captured_bytes", t->caplen_bytes);
	RT_JSON_KEY(&j, "kinds");
	rt_json_obj(&j);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		rt_json_key(&j, rt_kind_name(kinds[i]));
		rt_json_u64(&j, t->kinds[kinds[i]]);
	}
	rt_json_obj_end(&j);
	RT_JSON_KEY(&j, "icrc");
	rt_json_obj(&j);
	for (size_t i = 0; i < sizeof(icrcs) / sizeof(icrcs[0]); i++) {
		rt_json_key(&j, rt_icrc_name(icrcs[i]));
		rt_json_u64(&j, t->icrc[icrcs[i]]);
	}
	rt_json_obj_end(&j);
	RT_JSON_U64(&j, "truncated", t->truncated);
	RT_JSON_U64(&j, "icrc_unchecked", t->icrc_unchecked);
	RT_JSON_U64(&j, "ce", t->ecn_ce);
	RT_JSON_KEY(&j, "events");
	rt_json_obj(&j);
	for (unsigned i = 0; i < RT_EV_COUNT; i++) {
		if (!t->events[i])
			continue;
		rt_json_key(&j, rt_events[i].name);
		rt_json_u64(&j, t->events[i]);
	}
	rt_json_obj_end(&j);
	if (npoints) {
		RT_JSON_KEY(&j, "vantage_points");
		rt_json_arr(&j);
		for (size_t i = 0; i < npoints; i++) {
			rt_json_next(&j);
			rt_json_obj(&j);
			RT_JSON_STR(&j, "name", points[i].name);
			RT_JSON_KEY(&j, "files");
			rt_json_arr(&j);
			for (size_t k = 0; k < points[i].nfiles; k++) {
				rt_json_next(&j);
				rt_json_str(&j, points[i].files[k]);
			}
			rt_json_arr_end(&j);
			RT_JSON_U64(&j, "frames", points[i].frames);
			rt_json_obj_end(&j);
		}
		rt_json_arr_end(&j);
	}
	rt_json_obj_end(&j);
	rt_out_char(o, '\n');
}

void rt_print_totals(struct rt_outbuf *o, const struct rt_totals *t,
                     const struct rt_totals_point *points, size_t npoints, bool json)
{
	bool any = false;

	if (json) {
		totals_json(o, t, points, npoints);
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
	OUT_LIT(o, "\nicrc_unchecked: ");
	rt_out_u64(o, t->icrc_unchecked);
	OUT_LIT(o, "\nce: ");
	rt_out_u64(o, t->ecn_ce);
	OUT_LIT(o, "\nevents:");
	size_t col = sizeof("events:") - 1;
	for (unsigned i = 0; i < RT_EV_COUNT; i++) {
		if (!t->events[i])
			continue;
		char one[96];
		int n = snprintf(one, sizeof(one), " %s=%llu", rt_events[i].name,
		                 (unsigned long long)t->events[i]);
		if (col + (size_t)n > RT_TEXT_WIDTH) { /* the line is full: go on below, indented */
			OUT_LIT(o, "\n       ");
			col = sizeof("events:") - 1;
		}
		rt_out_str(o, one);
		col += (size_t)n;
		any = true;
	}
	rt_out_str(o, any ? "\n" : " none\n");
	for (size_t i = 0; i < npoints; i++) {
		OUT_LIT(o, "vantage point ");
		rt_out_str(o, points[i].name);
		OUT_LIT(o, ": ");
		rt_out_u64(o, points[i].frames);
		OUT_LIT(o, " frames, files");
		/* a path that would pass the width goes on below, indented (a longer one stays whole) */
		size_t pcol =
		    sizeof("vantage point :  frames, files") - 1 + strlen(points[i].name) +
		    (size_t)snprintf(NULL, 0, "%llu", (unsigned long long)points[i].frames);
		for (size_t k = 0; k < points[i].nfiles; k++) {
			size_t len = strlen(points[i].files[k]);
			if (pcol + 1 + len > RT_TEXT_WIDTH && pcol > 4) {
				OUT_LIT(o, "\n   ");
				pcol = 3;
			}
			rt_out_char(o, ' ');
			rt_out_str(o, points[i].files[k]);
			pcol += 1 + len;
		}
		rt_out_char(o, '\n');
	}
}
