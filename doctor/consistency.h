/* doctor --hosts: the settings that must agree on every host, each host's value, the value most
 * hosts have and the hosts that differ from it. */
#ifndef RT_DOCTOR_CONSISTENCY_H
#define RT_DOCTOR_CONSISTENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/json_read.h"

#define RT_DOC_CONSISTENCY_ROWS 9

struct rt_json;

/* One setting over the hosts. */
struct rt_doc_consistency_row {
	const char *name;   /* "mtu", "trust", "dscp2prio", ... (docs/DOCTOR.md) */
	char **value;       /* per host: its value as text; NULL: unknown, or no report */
	const char *common; /* the value most hosts have; NULL: none (a tie, or none known) */
	size_t common_hosts, known;
};

struct rt_doc_consistency {
	size_t n;
	const char *const *hosts;
	const struct rt_jval *const *docs; /* per host: its doctor --json report, or NULL */
	struct rt_doc_consistency_row rows[RT_DOC_CONSISTENCY_ROWS];
};

/*
 * Compare the settings of the reports docs[0..n) (NULL: that host gave
 * none) of hosts[0..n). A host's value is its targets' value when they
 * agree, else each target's ("mlx5_0:1 4200; mlx5_1:1 1500"). Returns 0 or
 * -ENOMEM; free with rt_doc_consistency_free().
 */
int rt_doc_consistency_build(struct rt_doc_consistency *c, const char *const *hosts,
                             const struct rt_jval *const *docs, size_t n);
void rt_doc_consistency_free(struct rt_doc_consistency *c);

/* The table for people: one line per setting, then a line per value that differs, with its hosts. */
void rt_doc_consistency_text(const struct rt_doc_consistency *c, FILE *fp);

/* [{"setting":S,"value":V|null,"hosts":{HOST:V|null,...},"differ":[HOST,...]},...] */
void rt_doc_consistency_json(const struct rt_doc_consistency *c, struct rt_json *j);

#endif
