/* doctor's report as text for people and as one JSON object for scripts and the several-hosts table. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/outbuf.h"
#include "doctor/doctor.h"

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
	return r->counts[RT_DOC_FAIL] ? RT_DOC_FAIL : r->counts[RT_DOC_WARN] ? RT_DOC_WARN : RT_DOC_PASS;
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
		fprintf(fp, "%s port %u (netdev %s)\n", t->dev, t->port, t->netdev[0] ? t->netdev : "none");
	else
		fprintf(fp, "netdev %s (no RDMA port)\n", t->netdev);
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
			fprintf(fp, "  %s  %-24s %s\n", label(c->status, color), c->name, c->value);
			bool problem = c->status == RT_DOC_WARN || c->status == RT_DOC_FAIL;
			if (problem && c->expected[0])
				fprintf(fp, "        %-24s expected: %s\n", "", c->expected);
			if (problem && c->fix[0])
				fprintf(fp, "        %-24s fix: %s\n", "", c->fix);
			/* what it means: for problems, and for the GID index, which is advice */
			if (c->note[0] && (problem || verbose || !strcmp(c->name, "gid.index")))
				fprintf(fp, "        %-24s %s\n", "", c->note);
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

static void json_key(struct rt_outbuf *o, const char *key)
{
	rt_out_json_str(o, key);
	rt_out_char(o, ':');
}

/* a string member, or null when empty */
static void json_str_or_null(struct rt_outbuf *o, const char *key, const char *v)
{
	json_key(o, key);
	if (v && *v)
		rt_out_json_str(o, v);
	else
		rt_out_str(o, "null");
}

int rt_doctor_print_json(const struct rt_doc_report *r, FILE *fp)
{
	static struct rt_outbuf o;
	rt_out_init(&o, fp);
	rt_out_char(&o, '{');
	json_key(&o, "host");
	rt_out_json_str(&o, r->host);
	rt_out_char(&o, ',');
	json_key(&o, "verdict");
	rt_out_json_str(&o, rt_doc_status_name(rt_doctor_verdict(r)));
	rt_out_str(&o, ",\"priority\":");
	rt_out_u64(&o, r->priority);
	rt_out_str(&o, ",\"dscp\":");
	rt_out_u64(&o, r->dscp);
	rt_out_str(&o, ",\"summary\":{");
	for (int s = 0; s < 4; s++) {
		if (s)
			rt_out_char(&o, ',');
		json_key(&o, rt_doc_status_name((enum rt_doc_status)s));
		rt_out_u64(&o, r->counts[s]);
	}
	rt_out_str(&o, "},\"notes\":[");
	for (unsigned i = 0; i < r->nnotes; i++) {
		if (i)
			rt_out_char(&o, ',');
		rt_out_json_str(&o, r->notes[i]);
	}
	rt_out_str(&o, "],\"targets\":[");
	for (unsigned i = 0; i < r->ntargets; i++) {
		const struct rt_doc_target *t = &r->targets[i];
		if (i)
			rt_out_char(&o, ',');
		rt_out_char(&o, '{');
		json_str_or_null(&o, "device", t->dev);
		rt_out_str(&o, ",\"port\":");
		if (t->dev[0])
			rt_out_u64(&o, t->port);
		else
			rt_out_str(&o, "null");
		rt_out_char(&o, ',');
		json_str_or_null(&o, "netdev", t->netdev);
		rt_out_str(&o, ",\"gid_index\":");
		if (t->gid_index >= 0)
			rt_out_u64(&o, (uint64_t)t->gid_index);
		else
			rt_out_str(&o, "null");
		rt_out_str(&o, ",\"checks\":{");
		for (unsigned k = 0; k < t->nchecks; k++) {
			const struct rt_doc_check *c = &t->checks[k];
			if (k)
				rt_out_char(&o, ',');
			json_key(&o, c->name);
			rt_out_char(&o, '{');
			json_key(&o, "status");
			rt_out_json_str(&o, rt_doc_status_name(c->status));
			rt_out_char(&o, ',');
			json_str_or_null(&o, "value", c->value);
			rt_out_char(&o, ',');
			json_str_or_null(&o, "expected", c->expected);
			rt_out_char(&o, ',');
			json_str_or_null(&o, "fix", c->fix);
			rt_out_char(&o, ',');
			json_str_or_null(&o, "note", c->note);
			rt_out_char(&o, '}');
		}
		rt_out_str(&o, "}}");
	}
	rt_out_str(&o, "]}\n");
	int rc = rt_out_flush(&o);
	if (rc == 0 && fflush(fp) != 0)
		rc = errno ? errno : EIO;
	return rc ? -rc : 0;
}
