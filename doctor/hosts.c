/* Several hosts: doctor --json on each through the launcher, the reports parsed, one table of checks × hosts, the
 * settings that differ between hosts (consistency.c) and the problems listed. */
#include "doctor/hosts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/json_read.h"
#include "common/outbuf.h"
#include "doctor/consistency.h"
#include "doctor/doctor.h"
#include "common/launch.h"

#define NAME_COL 22

struct host {
	const char *name;
	struct rt_launch_result *res;
	struct rt_jdoc parsed;     /* the last JSON object its output was read as */
	const struct rt_jval *doc; /* the report (in parsed), or NULL */
	const char *doc_text;      /* where the report starts in res->out */
	size_t doc_len;
	char problem[300]; /* why there is no report */
};

/* Find the report in the output: the last line holding a JSON object (launchers may prefix lines: "host: {...}"). */
static void find_report(struct host *h)
{
	char err[RT_ERRBUF_SIZE];
	char *out = h->res->out;
	size_t len = h->res->out_len;
	size_t end = len;
	while (end > 0) {
		size_t start = end;
		while (start > 0 && out[start - 1] != '\n')
			start--;
		const char *brace = memchr(out + start, '{', end - start);
		if (brace) {
			size_t l = end - (size_t)(brace - out);
			while (l && (brace[l - 1] == '\n' || brace[l - 1] == '\r' ||
			             brace[l - 1] == ' '))
				l--;
			const struct rt_jval *doc = NULL;
			if (rt_jdoc_parse(&h->parsed, brace, l, err) == 0)
				doc = h->parsed.root;
			if (doc && doc->type == RT_JOBJECT && rt_jget(doc, "targets")) {
				h->doc = doc;
				h->doc_text = brace;
				h->doc_len = l;
				return;
			}
		}
		end = start ? start - 1 : 0;
	}
}

/* The last non-empty line of s, at most size-1 bytes. */
static void last_line(const char *s, char *buf, size_t size)
{
	buf[0] = '\0';
	for (const char *p = s; *p;) {
		size_t l = strcspn(p, "\n");
		size_t t = l;
		while (t && (p[t - 1] == ' ' || p[t - 1] == '\r'))
			t--;
		if (t)
			snprintf(buf, size, "%.*s", (int)t, p);
		p += l;
		if (*p)
			p++;
	}
}

static void explain(struct host *h)
{
	const struct rt_launch_result *r = h->res;
	char line[200];
	last_line(r->err, line, sizeof(line));
	if (r->status == -1)
		snprintf(h->problem, sizeof(h->problem), "%s", r->error);
	else if (r->timed_out)
		snprintf(h->problem, sizeof(h->problem), "no answer before the timeout%s%s",
		         line[0] ? ": " : "", line);
	else if (r->stopped)
		snprintf(h->problem, sizeof(h->problem), "stopped");
	else
		snprintf(h->problem, sizeof(h->problem), "no report (exit %d)%s%s", r->status,
		         line[0] ? ": " : "", line[0] ? line : "");
}

/* Check names in the order they first appear over every host and target. */
struct names {
	char **v;
	size_t n, cap;
};

static int names_add(struct names *ns, const char *name)
{
	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], name))
			return 0;
	if (ns->n == ns->cap) {
		size_t ncap = ns->cap ? ns->cap * 2 : 32;
		char **nv = realloc(ns->v, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		ns->v = nv;
		ns->cap = ncap;
	}
	ns->v[ns->n] = strdup(name);
	return ns->v[ns->n++] ? 0 : -ENOMEM;
}

static const struct rt_jval *targets_of(const struct host *h)
{
	const struct rt_jval *t = rt_jget(h->doc, "targets");
	return t && t->type == RT_JARRAY ? t->child : NULL;
}

/* The worst status of check `name` over the host's targets: fail > warn > unchecked > pass; -1 when absent. */
static int host_status(const struct host *h, const char *name)
{
	static const int rank[] = {0, 2, 3, 1}; /* by enum rt_doc_status */
	int worst = -1;
	for (const struct rt_jval *t = targets_of(h); t; t = t->next) {
		const struct rt_jval *c = rt_jget(rt_jget(t, "checks"), name);
		int s = rt_doc_status_parse(rt_jget_str(c, "status"));
		if (s >= 0 && (worst < 0 || rank[s] > rank[worst]))
			worst = s;
	}
	return worst;
}

static const char *cell(int status)
{
	static const char *const words[] = {"pass", "warn", "FAIL", "----"};
	return status >= 0 && status < 4 ? words[status] : "";
}

/* Width of a host's column. */
static int col_width(const struct host *h)
{
	size_t l = strlen(h->name);
	return (int)(l < 5 ? 5 : l);
}

/* Print one row, without trailing blanks. */
static void put_row(FILE *fp, const char *first, const char *const *cells, const struct host *hs,
                    size_t from, size_t to)
{
	char line[8192];
	int len = snprintf(line, sizeof(line), "%-*s", NAME_COL, first);
	for (size_t i = from; i < to && len >= 0 && (size_t)len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, "  %-*s", col_width(&hs[i]),
		                cells[i - from]);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(line))
		len = (int)sizeof(line) - 1;
	while (len > 0 && line[len - 1] == ' ')
		len--;
	fprintf(fp, "%.*s\n", len, line);
}

static void print_table(struct host *hs, size_t n, const struct names *ns, unsigned width, FILE *fp)
{
	const char **cells = calloc(n ? n : 1, sizeof(*cells));
	if (!cells)
		return;
	size_t first = 0;
	while (first < n) {
		/* as many host columns as fit */
		size_t used = NAME_COL, last = first;
		while (last < n) {
			size_t w = (size_t)col_width(&hs[last]) + 2;
			if (last > first && used + w > width)
				break;
			used += w;
			last++;
		}
		fputc('\n', fp);
		for (size_t i = first; i < last; i++)
			cells[i - first] = hs[i].name;
		put_row(fp, "check", cells, hs, first, last);
		for (size_t k = 0; k <= ns->n; k++) {
			const char *name = k < ns->n ? ns->v[k] : "verdict";
			for (size_t i = first; i < last; i++) {
				const char *v;
				if (!hs[i].doc)
					v = k == 0 ? "none"
					           : ""; /* no report: the problems say why */
				else if (k < ns->n)
					v = cell(host_status(&hs[i], name));
				else
					v = cell(
					    rt_doc_status_parse(rt_jget_str(hs[i].doc, "verdict")));
				cells[i - first] = v;
			}
			put_row(fp, name, cells, hs, first, last);
		}
		first = last;
	}
	free(cells);
}

static void print_problems(struct host *hs, size_t n, FILE *fp)
{
	bool header = false;
	for (size_t i = 0; i < n; i++) {
		struct host *h = &hs[i];
		if (!h->doc) {
			if (!header)
				fprintf(fp, "\nproblems:\n");
			header = true;
			fprintf(fp, "  %s: %s\n", h->name, h->problem);
			continue;
		}
		for (const struct rt_jval *t = targets_of(h); t; t = t->next) {
			const char *dev = rt_jget_str(t, "device");
			const char *nd = rt_jget_str(t, "netdev");
			double port = 0;
			rt_jget_num(t, "port", &port);
			const struct rt_jval *checks = rt_jget(t, "checks");
			for (const struct rt_jval *c = checks ? checks->child : NULL; c;
			     c = c->next) {
				int s = rt_doc_status_parse(rt_jget_str(c, "status"));
				if (s != RT_DOC_FAIL && s != RT_DOC_WARN)
					continue;
				if (!header)
					fprintf(fp, "\nproblems:\n");
				header = true;
				char where[160];
				if (dev)
					snprintf(where, sizeof(where), "%s:%g", dev, port);
				else
					snprintf(where, sizeof(where), "%s", nd ? nd : "?");
				const char *value = rt_jget_str(c, "value");
				const char *fix = rt_jget_str(c, "fix");
				fprintf(fp, "  %s %s %s %s: %s\n", h->name, where, cell(s), c->key,
				        value ? value : "");
				if (fix)
					fprintf(fp, "      fix: %s\n", fix);
			}
		}
	}
}

static int print_json(struct host *hs, size_t n, const struct rt_doc_consistency *cons, FILE *fp)
{
	static struct rt_outbuf o;
	struct rt_json j;
	rt_out_init(&o, fp);
	rt_json_init(&j, &o);
	rt_json_obj(&j);
	RT_JSON_U64(&j, "schema", RT_JSON_SCHEMA);
	RT_JSON_KEY(&j, "hosts");
	rt_json_arr(&j);
	for (size_t i = 0; i < n; i++) {
		rt_json_next(&j);
		rt_json_obj(&j);
		RT_JSON_STR(&j, "host", hs[i].name);
		RT_JSON_KEY(&j, "exit_status");
		rt_json_i64(&j, hs[i].res->status);
		RT_JSON_KEY(&j, "report");
		if (hs[i].doc) /* the host's own JSON document, as it printed it */
			rt_out_write(&o, hs[i].doc_text, hs[i].doc_len);
		else
			rt_json_null(&j);
		RT_JSON_KEY(&j, "problem");
		if (hs[i].doc)
			rt_json_null(&j);
		else
			rt_json_str(&j, hs[i].problem);
		rt_json_obj_end(&j);
	}
	rt_json_arr_end(&j);
	RT_JSON_KEY(&j, "consistency");
	rt_doc_consistency_json(cons, &j);
	rt_json_obj_end(&j);
	rt_out_char(&o, '\n');
	int rc = rt_out_flush(&o);
	return rc ? -rc : 0;
}

/* argv for the hosts: the remote rocetrace's words, "doctor", "--json", then o->args. */
static char **remote_argv(const struct rt_doctor_hosts_opts *o, char **words_buf)
{
	const char *remote = o->remote && *o->remote ? o->remote : "rocetrace";
	*words_buf = strdup(remote);
	size_t nargs = 0;
	while (o->args && o->args[nargs])
		nargs++;
	char **argv = calloc(strlen(remote) + nargs + 4, sizeof(*argv));
	if (!*words_buf || !argv) {
		free(argv);
		return NULL;
	}
	size_t k = 0;
	char *save = NULL;
	for (char *w = strtok_r(*words_buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		argv[k++] = w;
	argv[k++] = "doctor";
	argv[k++] = "--json";
	for (size_t i = 0; i < nargs; i++)
		argv[k++] = o->args[i];
	argv[k] = NULL;
	return argv;
}

int rt_doctor_hosts(const struct rt_doctor_hosts_opts *o, const char *const *hosts, size_t n,
                    FILE *fp, char *errbuf)
{
	char *words = NULL;
	char **argv = remote_argv(o, &words);
	struct rt_launch_result *res = calloc(n ? n : 1, sizeof(*res));
	struct host *hs = calloc(n ? n : 1, sizeof(*hs));
	struct names ns = {0};
	struct rt_doc_consistency cons = {0};
	const struct rt_jval **docs = calloc(n ? n : 1, sizeof(*docs));
	int rc = 0;
	if (!argv || !res || !hs || !docs) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	struct rt_launch_opts lo = {
	    .launcher = o->launcher,
	    .argv = argv,
	    .timeout_ns = o->timeout_ns,
	    .max_parallel = o->max_parallel,
	    .stop = o->stop,
	};
	rc = rt_launch_hosts(&lo, hosts, n, res, errbuf);
	if (rc < 0)
		goto out;
	size_t ok = 0, failed = 0, warned = 0, broken = 0;
	for (size_t i = 0; i < n; i++) {
		hs[i].name = hosts[i];
		hs[i].res = &res[i];
		find_report(&hs[i]);
		if (!hs[i].doc) {
			explain(&hs[i]);
			broken++;
			continue;
		}
		int v = rt_doc_status_parse(rt_jget_str(hs[i].doc, "verdict"));
		failed += v == RT_DOC_FAIL;
		warned += v == RT_DOC_WARN;
		ok += v == RT_DOC_PASS;
		for (const struct rt_jval *t = targets_of(&hs[i]); t && rc == 0; t = t->next) {
			const struct rt_jval *checks = rt_jget(t, "checks");
			for (const struct rt_jval *c = checks ? checks->child : NULL; c && rc == 0;
			     c = c->next)
				rc = names_add(&ns, c->key);
		}
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		docs[i] = hs[i].doc;
	if (rc == 0)
		rc = rt_doc_consistency_build(&cons, hosts, docs, n);
	if (rc < 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		goto out;
	}
	if (o->json) {
		rc = print_json(hs, n, &cons, fp);
		if (rc < 0) {
			snprintf(errbuf, RT_ERRBUF_SIZE, "writing the report: %s", strerror(-rc));
			goto out;
		}
	} else {
		fprintf(fp, "rocetrace doctor on %zu host%s (launcher: %s)\n", n, n == 1 ? "" : "s",
		        o->launcher ? o->launcher : RT_LAUNCH_DEFAULT);
		print_table(hs, n, &ns, o->width ? o->width : 100, fp);
		rt_doc_consistency_text(&cons, fp);
		print_problems(hs, n, fp);
		fprintf(
		    fp,
		    "\nsummary: %zu ready, %zu ready with warnings, %zu not ready, %zu without a "
		    "report\n",
		    ok, warned, failed, broken);
		if (fflush(fp) != 0) {
			rc = -errno;
			snprintf(errbuf, RT_ERRBUF_SIZE, "writing the report: %s", strerror(errno));
			goto out;
		}
	}
	rc = failed || broken ? 1 : 0;
out:
	rt_doc_consistency_free(&cons);
	free(docs);
	for (size_t i = 0; hs && i < n; i++)
		rt_jdoc_free(&hs[i].parsed);
	for (size_t i = 0; res && i < n; i++)
		rt_launch_result_free(&res[i]);
	for (size_t i = 0; i < ns.n; i++)
		free(ns.v[i]);
	free(ns.v);
	free(hs);
	free(res);
	free(argv);
	free(words);
	return rc;
}
