/* --flow, --conversation and --kind as dissect, analyze, timeline and report take them, and the run that resolves them. */
#include "tools/selection.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/feed.h"
#include "analyze/flowsel.h"
#include "capture/pump.h"
#include "dissect/pktkind.h"
#include "tools/commands.h"

/* One more selector: checked, then added to *joined ("A" + "B" is "A,B"). 0 or the exit status. */
static int add_selector(const struct rt_opt_use *u, char **joined)
{
	struct rt_flowsel_set set;
	if (rt_flowsel_set_parse(&set, u->arg) < 0)
		return rt_cli_usage_error(u->cmd, "%s: bad selector '%s' (want %s)", u->opt, u->arg,
		                          RT_FLOWSEL_FORMS);
	size_t had = *joined ? strlen(*joined) : 0, len = strlen(u->arg);
	char *s = realloc(*joined, had + 1 + len + 1);
	if (!s)
		return rt_cli_fail(u->cmd, "out of memory");
	if (had)
		s[had++] = ',';
	memcpy(s + had, u->arg, len + 1);
	*joined = s;
	if (rt_flowsel_set_parse(&set, s) < 0) /* each one is good: too many of them */
		return rt_cli_usage_error(u->cmd, "%s: at most %d selectors", u->opt,
		                          RT_FLOWSEL_SET_MAX);
	return 0;
}

int rt_selection_flow(struct rt_opt_use *u)
{
	struct rt_selection *s = rt_opt_field(u);
	return add_selector(u, &s->flow);
}

int rt_selection_conversation(struct rt_opt_use *u)
{
	struct rt_selection *s = rt_opt_field(u);
	return add_selector(u, &s->conversation);
}

int rt_selection_kind(struct rt_opt_use *u)
{
	struct rt_selection *s = rt_opt_field(u);
	char bad[64];
	unsigned mask = 0;
	if (rt_pkt_kinds_parse(u->arg, &mask, bad, sizeof(bad)) < 0)
		return rt_cli_usage_error(u->cmd, "%s: unknown kind '%s' (kinds: %s)", u->opt, bad,
		                          RT_PK_NAMES);
	unsigned refused = s->allowed ? mask & ~s->allowed : 0;
	if (refused) {
		unsigned k = 0;
		while (!(refused & (1u << k)))
			k++;
		return rt_cli_usage_error(
		    u->cmd, "%s: no flow carries %s frames (dissect --kind %s lists them)", u->opt,
		    rt_pkt_kind_name((enum rt_pkt_kind)k), rt_pkt_kind_name((enum rt_pkt_kind)k));
	}
	s->kinds |= mask;
	return 0;
}

void rt_selection_free(struct rt_selection *s)
{
	free(s->flow);
	free(s->conversation);
	s->flow = s->conversation = NULL;
}

int rt_selection_resolve(const char *cmd, const struct rt_cli_files *files, const char *bpf,
                         const struct rt_analyzer_opts *ao, uint32_t **ids, uint32_t *n)
{
	char errbuf[RT_ERRBUF_SIZE] = "";
	struct rt_dissect_opts dopts;
	struct rt_pump_sink sink;
	struct rt_pump_config pc = {.decode = &dopts, .sinks = &sink, .nsinks = 1};
	struct rt_pump_result res;
	struct rt_source *src = NULL;
	struct rt_an_feed *feed = NULL;
	struct rt_analyzer *an = rt_analyzer_new(ao, errbuf);
	int rc = an ? rt_an_feed_new(&feed, an, false, errbuf) : -errno;
	*ids = NULL;
	if (rc == 0)
		rc = rt_pump_open_files(&src, files->files, files->n, bpf, errbuf);
	if (rc == 0) {
		rt_dissect_opts_init(&dopts);
		dopts.udp_port = ao->udp_port;
		rt_an_feed_sink(feed, &sink);
		/* a file cut short: the flows of what was read (the run after says what went wrong) */
		rt_pump_run(src, &pc, &res, errbuf);
		rt_source_close(src);
		errbuf[0] = '\0';
		rc = rt_an_feed_finish(feed, errbuf);
	} else if (an && rc != -ENOMEM) { /* a file that cannot be read: the run after says it */
		rc = 0;
	}
	if (rc == 0 && rt_analyzer_selected_ids(an, ids, n) < 0)
		rc = rt_errmsg(errbuf, ENOMEM, "out of memory");
	rt_an_feed_free(feed);
	rt_analyzer_free(an);
	if (rc < 0)
		return rt_cli_fail(cmd, "%s", errbuf);
	return 0;
}
