/* Flow selectors (--flow): parse one, match a flow against it. */
#ifndef RT_FLOWSEL_H
#define RT_FLOWSEL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A selector picks flows: all | ID | IP (either end) | SRC>DST | SRC>DST:QP
 * | qp:QP; IDs and QPs in decimal or 0x hex; IPv6 in brackets when a QP
 * follows ("[fe80::1]>[fe80::2]:0x11").
 */
enum rt_flowsel_kind {
	RT_FLOWSEL_ALL,	    /* every flow */
	RT_FLOWSEL_ID,	    /* the flow with id `id` */
	RT_FLOWSEL_HOST,    /* source or destination is `a` */
	RT_FLOWSEL_PAIR,    /* from `a` to `b` */
	RT_FLOWSEL_PAIR_QP, /* from `a` to `b`, destination QP `qp` */
	RT_FLOWSEL_QP,	    /* destination QP `qp` */
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

/* What a selector looks like, for error messages. */
#define RT_FLOWSEL_FORMS "ID, IP, SRC>DST, SRC>DST:QP or qp:QP"

#endif
