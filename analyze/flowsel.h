/* Flow selectors (--flow): parse one, match a flow against it, and print a flow so one can be written. */
#ifndef RT_FLOWSEL_H
#define RT_FLOWSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A flow is one direction of one QP: (source IP, destination IP,
 * destination QP), with the id the analyzer gives it (0, 1, ... in
 * first-seen order). A selector picks flows:
 *
 *   all | (empty)        every flow
 *   ID                   the flow with that id (decimal or 0x hex)
 *   IP                   flows from or to IP
 *   SRC>DST              flows from SRC to DST
 *   SRC>DST:QP           ... to destination QP (decimal or 0x hex)
 *   qp:QP                flows to QP, between any hosts
 *
 * IPv6 addresses take brackets where a ':QP' follows ("[fe80::1]>[fe80::2]:0x11").
 * Spaces around '>' and a QP written " qp QP", " qp=QP" or " QP QP" are
 * accepted too, so the way rocetrace dissect prints a packet ("10.0.0.1 >
 * 10.0.0.2 ... qp=0x000011"), the Wireshark plugin's rocetrace.flow
 * ("10.0.0.1 > 10.0.0.2 QP 0x000011") and the way analyze printed flows
 * before ("10.0.0.1 > 10.0.0.2 qp 0x11") select what they name.
 */
enum rt_flowsel_kind {
	RT_FLOWSEL_ALL,     /* every flow */
	RT_FLOWSEL_ID,      /* the flow with id `id` */
	RT_FLOWSEL_HOST,    /* source or destination is `a` */
	RT_FLOWSEL_PAIR,    /* from `a` to `b` */
	RT_FLOWSEL_PAIR_QP, /* from `a` to `b`, destination QP `qp` */
	RT_FLOWSEL_QP,      /* destination QP `qp` */
};

struct rt_flowsel {
	enum rt_flowsel_kind kind;
	uint32_t id;
	uint32_t qp;
	uint8_t ipver; /* 4 or 6: of `a` (and `b`, which must match) */
	uint8_t a[16], b[16];
};

/* Parse `text` (NULL: all) into *sel. Returns 0, or -EINVAL when it is no selector. */
int rt_flowsel_parse(struct rt_flowsel *sel, const char *text);

/* Does the flow with this id and key match? */
bool rt_flowsel_match(const struct rt_flowsel *sel, uint32_t id, uint8_t ipver, const uint8_t *src,
                      const uint8_t *dst, uint32_t dest_qp);

/*
 * Several selectors: a flow is in the set when one of them picks it (--flow
 * given several times, or "SEL,SEL,...": no selector holds a comma).
 */
#define RT_FLOWSEL_SET_MAX 64
struct rt_flowsel_set {
	unsigned n; /* 0: none given */
	struct rt_flowsel v[RT_FLOWSEL_SET_MAX];
};

/* "SEL[,SEL...]" (NULL: none) into *set. Returns 0, or -EINVAL for a bad one or too many. */
int rt_flowsel_set_parse(struct rt_flowsel_set *set, const char *text);

/* Does one selector of the set pick the flow? (false for an empty set) */
bool rt_flowsel_set_match(const struct rt_flowsel_set *set, uint32_t id, uint8_t ipver,
                          const uint8_t *src, const uint8_t *dst, uint32_t dest_qp);

/* Is one selector of the set a flow id (which only the analyzer's numbering resolves)? */
bool rt_flowsel_set_has_id(const struct rt_flowsel_set *set);

/* Is `id` among the n flow ids (ascending) of ids? */
bool rt_flow_ids_has(const uint32_t *ids, uint32_t n, uint32_t id);

/* Longest text rt_flowsel_format() writes, with its NUL. */
#define RT_FLOWSEL_TEXT_MAX 112

/*
 * The flow as a selector that picks exactly it: "10.0.0.1>10.0.0.2:0x000011",
 * "[fe80::1]>[fe80::2]:0x000011". Returns buf.
 */
char *rt_flowsel_format(char buf[RT_FLOWSEL_TEXT_MAX], uint8_t ipver, const uint8_t *src,
                        const uint8_t *dst, uint32_t dest_qp);

/* What a selector looks like, for error messages. */
#define RT_FLOWSEL_FORMS "ID, IP, SRC>DST, SRC>DST:QP or qp:QP"

#endif
