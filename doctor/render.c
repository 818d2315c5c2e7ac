/* doctor's report as text for people and as one JSON object for scripts and the several-hosts table. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/textfmt.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "doctor/doctor.h"
#include "doctor/settings.h"

static const char *const status_names[] = {"pass", "warn", "fail", "unchecked"};

const char *rt_doc_status_name(enum rt_doc_status s)
{
	return (unsigned)s < 4 ? status_names[s] : "unchecked";
}

int rt_doc_status_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (s && !strcmp(s, status_names[i]))
			return i;
	return -1;
}

enum rt_doc_status rt_doctor_verdict(const struct rt_doc_report *r)
{
	return r->counts[RT_DOC_FAIL]   ? RT_DOC_FAIL
	       : r->counts[RT_DOC_WARN] ? RT_DOC_WARN
	                                : RT_DOC_PASS;
}

static const char *label(enum rt_doc_status s, bool color)
{
	static const char *const plain[] = {"pass", "warn", "FAIL", "----"};
	static const char *const colored[] = {"\033[32mpass\033[0m", "\033[33mwarn\033[0m",
	                                      "\033[1;31mFAIL\033[0m", "\033[2m----\033[0m"};
	return (unsigned)s < 4 ? (color ? colored[s] : plain[s]) : "----";
}

static void target_title(const struct rt_doc_target *t, FILE *fp)
{
	if (t->dev[0])
		fprintf(fp, "%s port %u (netdev %s)\n", t->dev, t->port,
		        t->netdev[0] ? t->netdev : "none");
	else
		fprintf(fp, "netdev %s (no RDMA port)\n", t->netdev);
}

/* The column a check's value starts at, and its lines after the first. */
#define DETAIL_COL 33

/*
 * A check's value (after its label and name: `below` false) or one of its
 * lines below it, at its column, wrapped at 100 columns.
 */
static void detail(FILE *fp, bool below, const char *head, const char *text)
{
	char line[2048];
	int n = snprintf(line, sizeof(line), "%s%s", head, text);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	if (below)
		fprintf(fp, "%*s", DETAIL_COL, "");
	rt_text_fill(fp, line, len, DETAIL_COL, RT_TEXT_WIDTH, DETAIL_COL);
}

/*
 * A check's fix: its command (up to a " (" that explains it), broken as a
 * shell reads it back, then what the parenthesis says.
 */
static void fix(FILE *fp, const char *text)
{
	char cmd[2048];
	const char *paren = strstr(text, " (");
	size_t n = paren ? (size_t)(paren - text) : strlen(text);
	int len = snprintf(cmd, sizeof(cmd), "fix: %.*s", (int)n, text);
	fprintf(fp, "%*s", DETAIL_COL, "");
	if (!paren) {
		rt_text_fill_command(fp, cmd, len < 0 ? 0 : (size_t)len, DETAIL_COL, RT_TEXT_WIDTH,
		                     DETAIL_COL + 5);
		return;
	}
	/* the command on its lines, the explanation after it as prose */
	size_t clen = len < 0 ? 0 : (size_t)len;
	if (DETAIL_COL + clen + strlen(paren) <= RT_TEXT_WIDTH) {
		fprintf(fp, "%s%s\n", cmd, paren);
		return;
	}
	rt_text_fill_command(fp, cmd, clen, DETAIL_COL, RT_TEXT_WIDTH, DETAIL_COL + 5);
	detail(fp, true, "", paren + 1);
}

int rt_doctor_print_text(const struct rt_doc_report *r, FILE *fp, bool color, bool verbose)
{
	fprintf(fp, "rocetrace doctor on %s: RoCE priority %u, DSCP %u\n", r->host, r->priority,
	        r->dscp);
	for (unsigned i = 0; i < r->nnotes; i++)
		fprintf(fp, "note: %s\n", r->notes[i]);
	for (unsigned i = 0; i < r->ntargets; i++) {
		const struct rt_doc_target *t = &r->targets[i];
		fputc('\n', fp);
		target_title(t, fp);
		for (unsigned k = 0; k < t->nchecks; k++) {
			const struct rt_doc_check *c = &t->checks[k];
			fprintf(fp, "  %s  %-24s ", label(c->status, color), c->name);
			detail(fp, false, "", c->value);
			bool problem = c->status == RT_DOC_WARN || c->status == RT_DOC_FAIL;
			if (problem && c->expected[0])
				detail(fp, true, "expected: ", c->expected);
			if (problem && c->fix[0])
				fix(fp, c->fix);
			/* what it means: for problems, and for the GID index, which is advice */
			if (c->note[0] && (problem || verbose || !strcmp(c->name, "gid.index")))
				detail(fp, true, "", c->note);
		}
	}
	enum rt_doc_status v = rt_doctor_verdict(r);
	fprintf(fp, "\nsummary: %u pass, %u warn, %u fail, %u could not check: %s\n",
	        r->counts[RT_DOC_PASS], r->counts[RT_DOC_WARN], r->counts[RT_DOC_FAIL],
	        r->counts[RT_DOC_UNCHECKED],
	        v == RT_DOC_FAIL   ? "NOT READY for lossless RoCE"
	        : v == RT_DOC_WARN ? "ready, with warnings"
	                           : "ready for lossless RoCE (as far as checked)");
	return fflush(fp) == 0 && !ferror(fp) ? 0 : -EIO;
}

/* a string member, or null when empty */
static void json_str_or_null(struct rt_json *j, const char *key, const char *v)
{
	rt_json_key(j, key);
	if (v && *v)
		rt_json_str(j, v);
	else
		rt_json_null(j);
}

int rt_doctor_print_json(const struct rt_doc_report *r, FILE *fp)
{
	static struct rt_outbuf o;
	struct rt_json j;
	rt_out_init(&o, fp);
	rt_json_init(&j, &o);
	rt_json_obj(&j);
	RT_JSON_U64(&j, "schema", RT_JSON_SCHEMA);
	RT_JSON_STR(&j, "host", r->host);
	RT_JSON_NAME(&j, "verdict", rt_doc_status_name(rt_doctor_verdict(r)));
	RT_JSON_U64(&j, "priority", r->priority);
	RT_JSON_U64(&j, "dscp", r->dscp);
	RT_JSON_KEY(&j, "summary");
	rt_json_obj(&j);
	for (int s = 0; s < 4; s++) {
		rt_json_key(&j, rt_doc_status_name((enum rt_doc_status)s));
		rt_json_u64(&j, r->counts[s]);
	}
	rt_json_obj_end(&j);
	RT_JSON_KEY(&j, "notes");
	rt_json_arr(&j);
	for (unsigned i = 0; i < r->nnotes; i++) {
		rt_json_next(&j);
		rt_json_str(&j, r->notes[i]);
	}
	rt_json_arr_end(&j);
	RT_JSON_KEY(&j, "targets");
	rt_json_arr(&j);
	for (unsigned i = 0; i < r->ntargets; i++) {
		const struct rt_doc_target *t = &r->targets[i];
		rt_json_next(&j);
		rt_json_obj(&j);
		json_str_or_null(&j, "device", t->dev);
		RT_JSON_KEY(&j, "port");
		if (t->dev[0])
			rt_json_u64(&j, t->port);
		else
			rt_json_null(&j);
		json_str_or_null(&j, "netdev", t->netdev);
		RT_JSON_KEY(&j, "gid_index");
		if (t->gid_index >= 0)
			rt_json_u64(&j, (uint64_t)t->gid_index);
		else
			rt_json_null(&j);
		RT_JSON_KEY(&j, "checks");
		rt_json_obj(&j);
		for (unsigned k = 0; k < t->nchecks; k++) {
			const struct rt_doc_check *c = &t->checks[k];
			rt_json_key(&j, c->name);
			rt_json_obj(&j);
			RT_JSON_NAME(&j, "status", rt_doc_status_name(c->status));
			json_str_or_null(&j, "value", c->value);
			json_str_or_null(&j, "expected", c->expected);
			json_str_or_null(&j, "fix", c->fix);
			json_str_or_null(&j, "note", c->note);
			rt_json_obj_end(&j);
		}
		rt_json_obj_end(&j);
		RT_JSON_KEY(&j, "settings");
		rt_doc_settings_json(&j, &t->settings);
		rt_json_obj_end(&j);
	}
	rt_json_arr_end(&j);
	rt_json_obj_end(&j);
	rt_out_char(&o, '\n');
	int rc = rt_out_flush(&o);
	if (rc == 0 && fflush(fp) != 0)
		rc = errno ? errno : EIO;
	return rc ? -rc : 0;
}
