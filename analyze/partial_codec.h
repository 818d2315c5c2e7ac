/* The partial format's encoding (docs/PARTIAL.md): one walk over each part, that writes it or reads it back. */
#ifndef RT_ANALYZE_PARTIAL_CODEC_H
#define RT_ANALYZE_PARTIAL_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/partial.h"
#include "analyze/results_build.h"
#include "common/errbuf.h"

/*
 * Every part of a partial is encoded by one function that walks its
 * fields with the calls below: writing, each call appends the field to the
 * buffer (little-endian, field by field); reading, it takes the field from
 * the input, bounded by what is left of the section or record being read,
 * into the same place. So the writer and the reader cannot disagree on a
 * field, its type or its order. (Writing, a walk stores back into the view
 * only the very values it read from it: the counts and pointers it walks.)
 *
 * Reading, the first failure (input cut short, a value out of range) is
 * kept in `err` and `why`; every later call reads zeros and nothing is left
 * to read, so a walk ends without looking at more input.
 */
struct pc {
	bool reading;
	/* writing: the bytes so far (flushed by the writer section by section) */
	uint8_t *buf;
	size_t len, cap;
	/* reading: the input left of the section or record read now */
	const uint8_t *at, *end;
	struct an_results *res;   /* reading: the view being read (its arena holds what is read) */
	const char *section;      /* the section walked now, for the messages */
	int err;                  /* the first failure: a negative errno, 0: none */
	char why[RT_ERRBUF_SIZE]; /* its message, after the file's name */
};

/* A record or section under way: its length's place (writing), the end of the one around it (reading). */
struct pc_mark {
	size_t off;
	const uint8_t *end;
};

/* The 4-byte tag of a section as a number (its ASCII bytes in file order). */
#define PC_TAG(a, b, c, d)                                                                         \
	((uint32_t)(uint8_t)(a) | (uint32_t)(uint8_t)(b) << 8 | (uint32_t)(uint8_t)(c) << 16 |     \
	 (uint32_t)(uint8_t)(d) << 24)
/* The sections around the view's: the point's header, its packets, the end. */
#define PC_TAG_PART PC_TAG('P', 'A', 'R', 'T')
#define PC_TAG_BUCK PC_TAG('B', 'U', 'C', 'K')
#define PC_TAG_PKTS PC_TAG('P', 'K', 'T', 'S')
#define PC_TAG_END  PC_TAG('E', 'N', 'D', ' ')
/* A string's length that says it is NULL (no string). */
#define PC_NULL_STRING UINT32_MAX
/* The bytes of the file's header: the magic and the major version. */
#define PC_HEADER_SIZE 12
/* The bytes before a section's content: its tag (u32) and length (u64). */
#define PC_SECTION_HEAD 12
/* The bytes of a packet's record as this version writes it. */
#define PC_PACKET_SIZE 56

/* Fail the walk (the first failure stays) with `err` and a message; -err. */
int pc_fail(struct pc *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fail the walk when !ok with "bad VALUE in section S" (a value out of its range). */
void pc_check(struct pc *c, bool ok, const char *what);

void pc_u8(struct pc *c, uint8_t *v);
void pc_u16(struct pc *c, uint16_t *v);
void pc_u32(struct pc *c, uint32_t *v);
void pc_u64(struct pc *c, uint64_t *v);
void pc_i64(struct pc *c, int64_t *v);
void pc_f64(struct pc *c, double *v);    /* IEEE 754 binary64 bits as a u64 (NaN kept) */
void pc_bool(struct pc *c, bool *v);     /* a u8: 0 or 1 */
void pc_uint(struct pc *c, unsigned *v); /* an unsigned as a u32 */
void pc_bytes(struct pc *c, void *v, size_t n);
void pc_u64s(struct pc *c, uint64_t *v, size_t n);
/*
 * An unsigned LEB128 number (7 bits a byte, low first, the high bit says
 * more follow: 1 to 10 bytes). Reading, one longer than 10 bytes, beyond
 * 64 bits or not in its fewest bytes is refused.
 */
void pc_varint(struct pc *c, uint64_t *v);
/*
 * A string: u32 length (PC_NULL_STRING: NULL) and its bytes, no NUL.
 * Reading, it is copied into the view's arena with a NUL after it; a NUL
 * inside is refused. `required`: NULL is refused.
 */
void pc_str(struct pc *c, const char **s, bool required, const char *what);
/* A string held in a char array of `size` (NUL-terminated): reading, longer ones are refused. */
void pc_text(struct pc *c, char *buf, size_t size, const char *what);
/*
 * A string kept in a pool of `cap` bytes (a finding's evidence): reading,
 * appended to it at *used with its NUL, and *s points there.
 */
void pc_pooled(struct pc *c, const char **s, char *pool, size_t *used, size_t cap);
/*
 * A count of items, each at least `min_bytes` encoded (> 0): reading, one
 * greater than `max` or than what is left could hold is refused.
 */
void pc_count(struct pc *c, uint64_t *n, uint64_t max, size_t min_bytes, const char *what);
/*
 * Room for n items of `size` bytes: writing, `items` (what is walked);
 * reading, n zeroed items in the view's arena (NULL once the walk failed).
 */
void *pc_items(struct pc *c, const void *items, uint64_t n, size_t size);

/* A record (u32 length, then its fields): reading, fields after those known are skipped. */
void pc_open(struct pc *c, struct pc_mark *m);
void pc_close(struct pc *c, struct pc_mark *m);

/* Walks item i of a list (its fields, in the record pc_list opened) of view r. */
typedef void (*pc_item_fn)(struct pc *c, const struct rt_results *r, void *item, uint64_t i);
/*
 * A list: its count (u64, at most `max`), then each of its n items of
 * `size` bytes a record walked by `walk`. Writing, `items` and *n are the
 * list; reading, *n is set and the items returned are in the view's arena.
 */
void *pc_list(struct pc *c, const void *items, uint64_t *n, size_t size, uint64_t max,
              const char *what, pc_item_fn walk, const struct rt_results *r);

/* Writing: room for n more bytes at c->buf + c->len (false: out of memory, the walk failed). */
bool pc_room(struct pc *c, size_t n);

/* ---- the parts (analyze/partial_view.c, partial_view_flows.c), in the order of the file ---- */

/* The partial's own section: its point, files and sample ("PART"). */
void pc_part(struct pc *c, struct rt_partial *p);
/* The view's totals, settings, capture facts, PFC classes, incast, side-file figures ("TOTL"). */
void pc_totals(struct pc *c, struct rt_results *r);
void pc_warnings(struct pc *c, struct rt_results *r);     /* "WARN" */
void pc_vantage(struct pc *c, struct rt_results *r);      /* "VANT": points and paths */
void pc_flows(struct pc *c, struct rt_results *r);        /* "FLOW" */
void pc_pfc(struct pc *c, struct rt_results *r);          /* "PFC ": sources, storms, incidents */
void pc_macs(struct pc *c, struct rt_results *r);         /* "MACS" */
void pc_episodes(struct pc *c, struct rt_results *r);     /* "EPIS" */
void pc_counter_devs(struct pc *c, struct rt_results *r); /* "CDEV" */
void pc_findings(struct pc *c, struct rt_results *r);     /* "FIND": findings and verdict */
/*
 * The time buckets ("BUCK", analyze/partial_buckets.c): writing, those of
 * p->buckets; reading, checked bucket by bucket against a view of nflows
 * flows, and kept in a new p->buckets.
 */
void pc_buckets(struct pc *c, struct rt_partial *p, uint32_t nflows);
/* One packet's record (PC_PACKET_SIZE bytes) in the packets section ("PKTS"). */
void pc_packet(struct pc *c, struct rt_partial_packet *pk, uint32_t nflows);

/* The sections of the view in the order of the file, with their names for the messages. */
struct pc_section {
	uint32_t tag;
	const char *name;
	void (*walk)(struct pc *c, struct rt_results *r);
};
extern const struct pc_section pc_view_sections[];
extern const unsigned pc_nview_sections;

#endif
