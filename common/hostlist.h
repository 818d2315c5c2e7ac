/* Slurm hostlist expressions (node[01-16,20], a[1-2]b[3-4]) expanded into host names, in the order
 * scontrol show hostnames gives them. */
#ifndef RT_HOSTLIST_H
#define RT_HOSTLIST_H

#include <stddef.h>

#include "common/errbuf.h" /* RT_ERRBUF_SIZE */

/* Host names, each its own allocation, in the order they were added (duplicates kept). */
struct rt_hostlist {
	char **names;
	size_t n, cap;
};

/*
 * The length of the first item of s: up to a comma or white space that is
 * not inside brackets, or the end ("n[1-2,5],m" -> 8).
 */
size_t rt_hostlist_item_len(const char *s);

/*
 * Append the hosts of one item, s[0..len): a name, or a pattern of text and
 * bracketed ranges that ends with a ']' (PREFIX[R]TEXT[R]...[R]). A range
 * list is N or N-M separated by commas (decimal, N <= M, below 2^64); each
 * number is zero-padded to the width of the range's first number
 * (n[08-10]: n08 n09 n10; n[8-10]: n8 n9 n10). With several brackets the
 * last one varies fastest, then the first, then the others from the
 * second-last one backwards, as Slurm orders them. At most `max` names in
 * hl in all. Returns 0, or -EINVAL (a malformed pattern), -E2BIG (more than
 * max names) or -ENOMEM, with one sentence in errbuf; hl then holds what was
 * added before the item.
 */
int rt_hostlist_add(struct rt_hostlist *hl, const char *s, size_t len, size_t max, char *errbuf);

/* Append every item of a list ("h[1-3],login1 gpu[01-02]"); empty items are skipped. */
int rt_hostlist_expand(struct rt_hostlist *hl, const char *list, size_t max, char *errbuf);

void rt_hostlist_free(struct rt_hostlist *hl);

#endif
