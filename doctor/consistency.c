/* doctor --hosts: the settings in each host's report as text, the value most hosts have, the hosts
 * that differ, as a table and as JSON. */
#include "doctor/consistency.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/outbuf.h"
#include "common/textfmt.h"
#include "doctor/facts.h"

#define VALUE_MAX 512

enum setting {
	S_MTU,
	S_TRUST,
	S_DSCP2PRIO,
	S_PFC,
	S_CNP_DSCP,
	S_CNP_PRIO,
	S_ECN_NP,
	S_ECN_RP,
	S_GID_INDEX,
};

static const char *const names[RT_DOC_CONSISTENCY_ROWS] = {
    "mtu", "trust", "dscp2prio", "pfc", "cnp_dscp", "cnp_prio", "ecn_np", "ecn_rp", "gid_index",
};

/* A number's value as a double (0 when it is none). */
static double num_of(const struct rt_jval *v)
{
	double d = 0;
	rt_jval_num(v, &d);
	return d;
}

/* The priorities an array of 8 booleans (ecn_np) or a list of numbers (pfc) holds: "3,4", "none". */
static bool priorities(const struct rt_jval *v, bool switches, char *buf, size_t size)
{
	int known = 0, unknown = 0, p = 0;
	buf[0] = '\0';
	if (!v || v->type != RT_JARRAY)
		return false;
	for (const struct rt_jval *e = v->child; e; e = e->next, p++) {
		known += e->type != RT_JNULL;
		unknown += e->type == RT_JNULL;
		if (switches ? e->type == RT_JTRUE : e->type == RT_JNUMBER)
			rt_text_appendf(buf, size, "%s%d", buf[0] ? "," : "",
			                switches ? p : (int)num_of(e));
	}
	if (switches && !known)
		return false;
	if (!buf[0])
		snprintf(buf, size, "none");
	if (switches && unknown)
		rt_text_appendf(buf, size, " (%d unknown)", unknown);
	return true;
}

/* The DSCP map as runs of DSCPs on one priority: "0-7:0 8-15:1 26:3"; "none" when empty. */
static bool dscp_map(const struct rt_jval *v, char *buf, size_t size)
{
	int map[64], d = 0;
	buf[0] = '\0';
	if (!v || v->type != RT_JARRAY)
		return false;
	for (const struct rt_jval *e = v->child; d < 64; d++, e = e ? e->next : NULL)
		map[d] = e && e->type == RT_JNUMBER ? (int)num_of(e) : -1;
	for (d = 0; d < 64;) {
		int end = d;
		while (end + 1 < 64 && map[end + 1] == map[d])
			end++;
		if (map[d] >= 0 && end > d)
			rt_text_appendf(buf, size, "%s%d-%d:%d", buf[0] ? " " : "", d, end, map[d]);
		else if (map[d] >= 0)
			rt_text_appendf(buf, size, "%s%d:%d", buf[0] ? " " : "", d, map[d]);
		d = end + 1;
	}
	if (!buf[0])
		snprintf(buf, size, "none");
	return true;
}

static bool number(const struct rt_jval *v, char *buf, size_t size)
{
	if (!v || v->type != RT_JNUMBER)
		return false;
	snprintf(buf, size, "%.0f", num_of(v));
	return true;
}

/* Setting s of one target as text; false when unknown. */
static bool target_value(const struct rt_jval *t, enum setting s, char *buf, size_t size)
{
	const struct rt_jval *set = rt_jget(t, "settings");
	const struct rt_jval *v = rt_jget(set, names[s]);
	switch (s) {
	case S_TRUST:
		if (!v || v->type != RT_JSTRING)
			return false;
		snprintf(buf, size, "%s", v->str);
		return true;
	case S_DSCP2PRIO:
		return dscp_map(v, buf, size);
	case S_PFC:
		return priorities(v, false, buf, size);
	case S_ECN_NP:
	case S_ECN_RP:
		return priorities(v, true, buf, size);
	case S_GID_INDEX:
		if (!set) /* a report without settings: from a rocetrace that does not give them */
			return false;
		v = rt_jget(t, "gid_index");
		if (v && v->type == RT_JNULL) {
			snprintf(buf, size, "none");
			return true;
		}
		return number(v, buf, size);
	default:
		return number(v, buf, size);
	}
}

/* "mlx5_0:1", or the netdev of a target without an RDMA port. */
static void target_label(const struct rt_jval *t, char *buf, size_t size)
{
	const char *dev = rt_jget_str(t, "device"), *nd = rt_jget_str(t, "netdev");
	double port = 0;
	rt_jget_num(t, "port", &port);
	if (dev)
		snprintf(buf, size, "%s:%.0f", dev, port);
	else
		snprintf(buf, size, "%s", nd ? nd : "?");
}

/* A host's value into *out: its targets' when they agree, else each target's; NULL when none is
 * known. 0 or -ENOMEM. */
static int host_value(const struct rt_jval *doc, enum setting s, char **out)
{
	const struct rt_jval *targets = rt_jget(doc, "targets");
	char first[VALUE_MAX] = "", each[4 * VALUE_MAX] = "", v[VALUE_MAX], label[128];
	bool any = false, same = true;
	size_t nt = 0;
	for (const struct rt_jval *t = targets ? targets->child : NULL; t; t = t->next, nt++) {
		bool known = target_value(t, s, v, sizeof(v));
		if (!known)
			snprintf(v, sizeof(v), "?");
		if (nt == 0)
			snprintf(first, sizeof(first), "%s", v);
		same = same && !strcmp(first, v);
		any = any || known;
		target_label(t, label, sizeof(label));
		size_t len = strlen(each);
		snprintf(each + len, sizeof(each) - len, "%s%s %s", len ? "; " : "", label, v);
	}
	*out = any ? strdup(same ? first : each) : NULL;
	return any && !*out ? -ENOMEM : 0;
}

int rt_doc_consistency_build(struct rt_doc_consistency *c, const char *const *hosts,
                             const struct rt_jval *const *docs, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->hosts = hosts;
	c->docs = docs;
	for (int s = 0; s < RT_DOC_CONSISTENCY_ROWS; s++) {
		struct rt_doc_consistency_row *r = &c->rows[s];
		r->name = names[s];
		if (!(r->value = calloc(n ? n : 1, sizeof(*r->value))))
			return -ENOMEM;
		for (size_t h = 0; h < n; h++) {
			if (docs[h] && host_value(docs[h], (enum setting)s, &r->value[h]) < 0)
				return -ENOMEM;
			r->known += r->value[h] != NULL;
		}
		/* the value most hosts have, when one value has more hosts than any other */
		bool tie = false;
		for (size_t h = 0; h < n; h++) {
			size_t count = 0;
			for (size_t k = 0; r->value[h] && k < n; k++)
				count += r->value[k] && !strcmp(r->value[k], r->value[h]);
			if (count > r->common_hosts) {
				r->common = r->value[h];
				r->common_hosts = count;
				tie = false;
			} else if (count && count == r->common_hosts &&
			           strcmp(r->common, r->value[h])) {
				tie = true;
			}
		}
		if (tie)
			r->common = NULL;
	}
	return 0;
}

void rt_doc_consistency_free(struct rt_doc_consistency *c)
{
	for (int s = 0; s < RT_DOC_CONSISTENCY_ROWS; s++) {
		for (size_t h = 0; c->rows[s].value && h < c->n; h++)
			free(c->rows[s].value[h]);
		free(c->rows[s].value);
	}
	memset(c, 0, sizeof(*c));
}

/* Host h has a value that is not the common one (every known value when there is none). */
static bool differs(const struct rt_doc_consistency_row *r, size_t h)
{
	return r->value[h] && (!r->common || strcmp(r->value[h], r->common));
}

void rt_doc_consistency_text(const struct rt_doc_consistency *c, FILE *fp)
{
	fprintf(fp,
	        "\nconsistency: settings that must agree on every host (* a host that differs)\n");
	for (int s = 0; s < RT_DOC_CONSISTENCY_ROWS; s++) {
		const struct rt_doc_consistency_row *r = &c->rows[s];
		if (!r->known)
			fprintf(fp, "  %-12s unknown on every host\n", r->name);
		else if (r->common)
			fprintf(fp, "  %-12s %s on %zu of %zu hosts\n", r->name, r->common,
			        r->common_hosts, r->known);
		else
			fprintf(fp, "  %-12s no value on most hosts\n", r->name);
		/* each value that differs once, with every host that has it */
		for (size_t h = 0; r->known && h < c->n; h++) {
			bool unknown = c->docs[h] && !r->value[h];
			if (!differs(r, h) && !unknown)
				continue;
			bool before = false;
			for (size_t k = 0; k < h && !before; k++)
				before = unknown ? c->docs[k] && !r->value[k]
				                 : r->value[k] && !strcmp(r->value[k], r->value[h]);
			if (before)
				continue;
			fprintf(fp, "             %c %s", unknown ? '?' : '*', c->hosts[h]);
			for (size_t k = h + 1; k < c->n; k++)
				if (unknown ? c->docs[k] && !r->value[k]
				            : r->value[k] && !strcmp(r->value[k], r->value[h]))
					fprintf(fp, ", %s", c->hosts[k]);
			fprintf(fp, ": %s\n", unknown ? "unknown" : r->value[h]);
		}
	}
}

void rt_doc_consistency_json(const struct rt_doc_consistency *c, struct rt_json *j)
{
	rt_json_arr(j);
	for (int s = 0; s < RT_DOC_CONSISTENCY_ROWS; s++) {
		const struct rt_doc_consistency_row *r = &c->rows[s];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_NAME(j, "setting", r->name);
		RT_JSON_KEY(j, "value");
		rt_json_str_or_null(j, r->common);
		RT_JSON_KEY(j, "hosts");
		rt_json_obj(j);
		for (size_t h = 0; h < c->n; h++) {
			if (!c->docs[h])
				continue;
			rt_json_key(j, c->hosts[h]);
			rt_json_str_or_null(j, r->value[h]);
		}
		rt_json_obj_end(j);
		RT_JSON_KEY(j, "differ");
		rt_json_arr(j);
		for (size_t h = 0; h < c->n; h++)
			if (differs(r, h)) {
				rt_json_next(j);
				rt_json_str(j, c->hosts[h]);
			}
		rt_json_arr_end(j);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}
