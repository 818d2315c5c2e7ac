/* --flow, --conversation and --kind as dissect, analyze, timeline and report take them, and the run that resolves them. */
#ifndef RT_TOOLS_SELECTION_H
#define RT_TOOLS_SELECTION_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/types.h"
#include "tools/cli.h"
#include "tools/optable.h"

/* The options as given: each may be repeated (the union), each value checked as it comes. */
struct rt_selection {
	char *flow;         /* the --flow values joined by ',' ("A,B"), or NULL */
	char *conversation; /* the --conversation values, likewise */
	unsigned kinds;     /* the --kind kinds (bits of enum rt_pkt_kind), 0: none given */
	unsigned allowed;   /* the kinds the command takes (0: every one) */
	int err;            /* out of memory joining them */
};

/* The option functions of the rows (their field: the struct rt_selection). */
int rt_selection_flow(struct rt_opt_use *u);
int rt_selection_conversation(struct rt_opt_use *u);
int rt_selection_kind(struct rt_opt_use *u);

/* The three rows, into the struct rt_selection `member` of the command's struct `type`. */
#define RT_SELECTION_ROWS(type, member)                                                            \
	{.name = "flow",                                                                           \
	 .kind = RT_OPT_CALL,                                                                      \
	 .has_arg = required_argument,                                                             \
	 .call = rt_selection_flow,                                                                \
	 .at = RT_AT(type, member)},                                                               \
	    {.name = "conversation",                                                               \
	     .kind = RT_OPT_CALL,                                                                  \
	     .has_arg = required_argument,                                                         \
	     .call = rt_selection_conversation,                                                    \
	     .at = RT_AT(type, member)},                                                           \
	{                                                                                          \
		.name = "kind", .kind = RT_OPT_CALL, .has_arg = required_argument,                 \
		.call = rt_selection_kind, .at = RT_AT(type, member)                               \
	}

void rt_selection_free(struct rt_selection *s);

/*
 * Read the files once through an analyzer with options *ao to learn which
 * flows they select (a conversation's peer, a flow's first NAK are known at
 * the end only): their ids into a new array *ids (free() it), *n of them.
 * 0, or the exit status after one line on stderr.
 */
int rt_selection_resolve(const char *cmd, const struct rt_cli_files *files, const char *bpf,
                         const struct rt_analyzer_opts *ao, uint32_t **ids, uint32_t *n);

#endif
