/* analyze, timeline and report's command line: what it asks for (struct rt_analyze_args), parsed and checked. */
#ifndef RT_TOOLS_ANALYZE_OPTIONS_H
#define RT_TOOLS_ANALYZE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "render/sinks.h"
#include "tools/cli.h"
#include "tools/optable.h"
#include "tools/selection.h"

/* Which command the shared options serve. */
enum rt_analyze_mode { RT_MODE_ANALYZE, RT_MODE_TIMELINE, RT_MODE_REPORT };

/* What the command line asked for. */
struct rt_analyze_args {
	const char *cmd; /* "analyze", "timeline" or "report" */
	enum rt_analyze_mode mode;
	bool json;
	struct rt_cli_files files; /* the capture files, freed by common() */
	const char **paths;        /* report: their names, for the page; freed by common() */
	const char *bpf, *counters, *srclog, *out_path, *title;
	char *bpf_joined; /* the expression after the options, joined; freed by common() */
	uint64_t top;
	struct rt_analyzer_opts ao;
	struct rt_an_timeline_opts tlo;
	bool by_vantage;         /* timeline --by-vantage: rows per vantage point */
	struct rt_selection sel; /* --flow, --conversation, --kind (into ao); freed by common() */
	uint32_t *selected_ids;  /* timeline: the flows they select, found by a first run */
	/* analyze --fail-on warning|error: exit 3 when a finding this severe or worse is there */
	bool fail_on_given;
	unsigned fail_on; /* 0: warning, 1: error */
	unsigned threads; /* --threads */
	/* the settings a partial result fixes where it is made, given (refused for partials: analyze_partial.c) */
	struct {
		bool link_speed, storm, storm_ms, episode_gap, rate_window, dup_window, udp_port;
	} fixed;
	/* analyze --partial OUT: one vantage point's partial result to OUT (--point NAME names it) */
	const char *partial_out, *point;
};

/*
 * Parse the command line of a->cmd into *a (its cmd, mode and defaults set by the caller) and
 * check it. Returns 0, -1 after printing --help, or the exit status after printing its line.
 */
int rt_analyze_parse_args(int argc, char **argv, struct rt_analyze_args *a);

/* The --help text of the command that mode names (analyze_help.c). */
const char *rt_analyze_help(enum rt_analyze_mode mode);

#endif
