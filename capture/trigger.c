/* The flight recorder's trigger expressions (capture --trigger): the grammar, parsed and named. */
#include "capture/trigger.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/errbuf.h"

/* What follows a trigger's name. */
enum after {
	NOTHING,
	RATE,  /* >N/s */
	SHARE, /* >P% */
};

static const struct name {
	const char *name;
	enum rt_trigger_kind kind;
	enum after after;
	bool pclass;  /* takes :C */
	bool finding; /* takes :CODE (required) */
} names[] = {
    {"cnp", RT_TRIG_CNP, NOTHING, false, false},
    {"cnp_rate", RT_TRIG_CNP_RATE, RATE, false, false},
    {"ce_share", RT_TRIG_CE_SHARE, SHARE, false, false},
    {"pfc_paused", RT_TRIG_PFC_PAUSED, SHARE, true, false},
    {"pfc_storm", RT_TRIG_PFC_STORM, NOTHING, true, false},
    {"nak", RT_TRIG_NAK, NOTHING, false, false},
    {"rnr", RT_TRIG_RNR, NOTHING, false, false},
    {"timeout", RT_TRIG_TIMEOUT, NOTHING, false, false},
    {"drop", RT_TRIG_DROP, NOTHING, false, false},
    {"finding", RT_TRIG_FINDING, NOTHING, false, true},
};

/* The parse under way: the text, where it is, and the first error. */
struct cursor {
	const char *s;
	size_t i;
	size_t *at;
	char *errbuf;
};

static void skip_spaces(struct cursor *c)
{
	while (c->s[c->i] == ' ' || c->s[c->i] == '\t')
		c->i++;
}

static int fail(struct cursor *c, size_t at, const char *what)
{
	*c->at = at;
	return rt_errmsg(c->errbuf, EINVAL, "%s", what);
}

static bool is_word(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* A word (letters, digits, '_') at the cursor into buf; its length (0: none). */
static size_t word(struct cursor *c, char *buf, size_t size)
{
	size_t n = 0;
	while (is_word(c->s[c->i + n]))
		n++;
	if (n < size) {
		memcpy(buf, c->s + c->i, n);
		buf[n] = '\0';
	}
	return n;
}

/* A decimal number (digits, optionally '.' and more digits) at the cursor. 0 or -EINVAL. */
static int number(struct cursor *c, double *v)
{
	size_t start = c->i, digits = 0;
	double x = 0, scale = 1;
	bool point = false;
	for (;; c->i++) {
		char ch = c->s[c->i];
		if (ch >= '0' && ch <= '9') {
			if (point)
				x += (scale /= 10) * (ch - '0');
			else
				x = x * 10 + (ch - '0');
			digits++;
		} else if (ch == '.' && !point) {
			point = true;
		} else {
			break;
		}
	}
	if (!digits)
		return fail(c, start, "expected a number");
	if (x > 1e15)
		return fail(c, start, "the number is too large");
	*v = x;
	return 0;
}

/* ':C' of pfc_paused and pfc_storm: 0..7, or 'pause' for 802.3x PAUSE. */
static int parse_class(struct cursor *c, struct rt_trigger *t)
{
	char w[16];
	size_t start = c->i, n = word(c, w, sizeof(w));
	if (n == 1 && w[0] >= '0' && w[0] <= '7')
		t->pclass = w[0] - '0';
	else if (n == 5 && !strcmp(w, "pause"))
		t->pclass = 8;
	else
		return fail(c, start, "expected a priority 0 to 7, or 'pause'");
	c->i += n;
	return 0;
}

/* '>N/s' or '>P%'. */
static int parse_threshold(struct cursor *c, const struct name *nm, struct rt_trigger *t)
{
	int rc;
	skip_spaces(c);
	if (c->s[c->i] == '>')
		c->i++;
	else if (!strncmp(c->s + c->i, ".gt.", 4)) /* the same in words, for a launcher's shell */
		c->i += 4;
	else
		return fail(c, c->i,
		            nm->after == RATE ? "expected '>N/s' (more than N CNPs a second)"
		                              : "expected '>P%' (a share of the last second)");
	skip_spaces(c);
	size_t start = c->i;
	if ((rc = number(c, &t->threshold)) < 0)
		return rc;
	skip_spaces(c);
	if (nm->after == RATE) {
		if (strncmp(c->s + c->i, "/s", 2) != 0)
			return fail(c, c->i, "expected '/s' after the rate");
		c->i += 2;
	} else {
		if (c->s[c->i] != '%' && strncmp(c->s + c->i, "pct", 3) != 0)
			return fail(c, c->i, "expected '%' after the share");
		if (t->threshold >= 100)
			return fail(c, start,
			            "a share is below 100% (more than 100% never happens)");
		c->i += c->s[c->i] == '%' ? 1 : 3;
	}
	return 0;
}

/* The name, then what it takes. */
static int parse_name(struct cursor *c, struct rt_trigger *t, const struct name **out)
{
	char w[32];
	size_t start = c->i, n = word(c, w, sizeof(w));
	const struct name *nm = NULL;
	if (!n)
		return fail(c, start, c->s[c->i] ? "expected a trigger name" : "empty expression");
	for (size_t k = 0; n < sizeof(w) && k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(w, names[k].name))
			nm = &names[k];
	if (!nm)
		return fail(c, start,
		            "unknown trigger (cnp, cnp_rate, ce_share, pfc_paused, "
		            "pfc_storm, nak, rnr, timeout, drop, finding)");
	c->i += n;
	t->kind = nm->kind;
	*out = nm;
	return 0;
}

/* ':CODE' of finding. */
static int parse_finding(struct cursor *c, struct rt_trigger *t)
{
	size_t start = c->i, n = word(c, t->finding, sizeof(t->finding));
	if (!n)
		return fail(c, start, "expected a finding code (letters, digits, '_')");
	if (n >= sizeof(t->finding))
		return fail(c, start, "the finding code is too long");
	c->i += n;
	return 0;
}

/* The expression written back, and its part of event file names. */
static void name_it(struct rt_trigger *t, const struct name *nm)
{
	char cls[16] = "";
	if (t->pclass == 8)
		snprintf(cls, sizeof(cls), ":pause");
	else if (t->pclass >= 0)
		snprintf(cls, sizeof(cls), ":%d", t->pclass);
	if (nm->finding) {
		snprintf(t->text, sizeof(t->text), "finding:%s", t->finding);
		snprintf(t->word, sizeof(t->word), "finding:%s", t->finding);
		snprintf(t->code, sizeof(t->code), "finding-%s", t->finding);
		return;
	}
	snprintf(t->code, sizeof(t->code), "%s%s%s", nm->name, *cls ? "-" : "",
	         *cls ? cls + 1 : "");
	snprintf(t->text, sizeof(t->text), "%s%s", nm->name, cls);
	snprintf(t->word, sizeof(t->word), "%s%s", nm->name, cls);
	if (nm->after == NOTHING)
		return;
	snprintf(t->text, sizeof(t->text), "%s%s>%g%s", nm->name, cls, t->threshold,
	         nm->after == RATE ? "/s" : "%");
	snprintf(t->word, sizeof(t->word), "%s%s.gt.%g%s", nm->name, cls, t->threshold,
	         nm->after == RATE ? "/s" : "pct");
}

int rt_trigger_parse(const char *expr, struct rt_trigger *t, size_t *at, char *errbuf)
{
	struct cursor c = {.s = expr, .at = at, .errbuf = errbuf};
	const struct name *nm = NULL;
	int rc;
	memset(t, 0, sizeof(*t));
	t->pclass = RT_TRIGGER_ANY_CLASS;
	skip_spaces(&c);
	if ((rc = parse_name(&c, t, &nm)) < 0)
		return rc;
	skip_spaces(&c);
	if (c.s[c.i] == ':') {
		if (!nm->pclass && !nm->finding)
			return fail(&c, c.i, "this trigger takes no ':'");
		c.i++;
		skip_spaces(&c);
		if ((rc = nm->finding ? parse_finding(&c, t) : parse_class(&c, t)) < 0)
			return rc;
	} else if (nm->finding) {
		return fail(&c, c.i, "expected ':CODE' (finding:np_silent)");
	}
	if (nm->after != NOTHING && (rc = parse_threshold(&c, nm, t)) < 0)
		return rc;
	skip_spaces(&c);
	if (c.s[c.i])
		return fail(&c, c.i,
		            c.s[c.i] == '>' || c.s[c.i] == '<' || c.s[c.i] == '='
		                ? "this trigger takes no threshold"
		                : "unexpected text after the trigger (one trigger per --trigger)");
	name_it(t, nm);
	return 0;
}

void rt_trigger_error_line(const char *expr, size_t at, const char *what, char *buf, size_t size)
{
	size_t len = strlen(expr);
	if (at > len)
		at = len;
	snprintf(buf, size, "--trigger '%s': at character %zu (%s%s%s): %s", expr, at + 1,
	         at < len ? "'" : "", at < len ? expr + at : "the end", at < len ? "'" : "", what);
}
