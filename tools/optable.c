/* Option tables: the one parser of every subcommand, getopt_long underneath. */
#include <assert.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tools/cli_messages.h"
#include "tools/commands.h"
#include "tools/optable.h"
#include "tools/options.h"

/* What getopt_long returns for a row: its letter, or LONG_ONLY plus its place in the table. */
#define LONG_ONLY 256

void *rt_opt_field(const struct rt_opt_use *u)
{
	return (char *)u->args + u->row->at - 1;
}

static bool serves(const struct rt_opt_table *t, const struct rt_opt *r)
{
	return !r->cmds || (r->cmds & t->cmd_bit);
}

bool rt_opt_takes(const struct rt_opt_table *t, const struct rt_opt *r)
{
	return serves(t, r) && r->kind != RT_OPT_REFUSED;
}

/* Does the command know r: it takes it, or refuses it with a message of its own? */
static bool known(const struct rt_opt_table *t, const struct rt_opt *r)
{
	return serves(t, r) || (r->kind != RT_OPT_REFUSED && r->refused);
}

static int has_arg(const struct rt_opt *r)
{
	switch (r->kind) {
	case RT_OPT_FLAG:
	case RT_OPT_CLEAR:
	case RT_OPT_TALLY:
	case RT_OPT_LEVEL:
	case RT_OPT_IGNORED:
		return no_argument;
	case RT_OPT_CALL:
	case RT_OPT_REFUSED:
		return r->has_arg;
	default:
		return required_argument;
	}
}

/* The getopt_long spellings of the rows the command knows: the option string and the long options. */
static void spellings(const struct rt_opt_table *t, char *letters, struct option *longopts)
{
	size_t nl = 0, nlong = 0;
	if (t->stop_at_operand)
		letters[nl++] = '+';
	letters[nl++] = ':'; /* a missing value is told apart from an unknown option */
	for (size_t i = 0; i < t->nrows; i++) {
		const struct rt_opt *r = &t->rows[i];
		if (!known(t, r))
			continue;
		int arg = has_arg(r), val = r->letter ? r->letter : LONG_ONLY + (int)i;
		if (r->letter) {
			letters[nl++] = r->letter;
			for (int k = 0; k < arg; k++)
				letters[nl++] = ':';
		}
		const char *names[] = {r->name, r->alias};
		for (size_t k = 0; k < 2; k++)
			if (names[k])
				longopts[nlong++] = (struct option){names[k], arg, NULL, val};
	}
	letters[nl] = '\0';
	longopts[nlong] = (struct option){NULL, 0, NULL, 0};
}

/* The row getopt_long returned c for, or NULL (an unknown option, a missing value). */
static const struct rt_opt *row_of(const struct rt_opt_table *t, int c)
{
	if (c >= LONG_ONLY && c < LONG_ONLY + (int)t->nrows)
		return &t->rows[c - LONG_ONLY];
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].letter == c && c != 0 && known(t, &t->rows[i]))
			return &t->rows[i];
	return NULL;
}

/* A number of the row's kind; 0 or the usage exit status. */
static int number(const struct rt_opt_use *u, uint64_t *v)
{
	const struct rt_opt *r = u->row;
	switch (r->kind) {
	case RT_OPT_COUNT:
		return rt_opt_count(u->cmd, u->opt, u->arg, r->min, r->max, v);
	case RT_OPT_SIZE:
		return rt_opt_size(u->cmd, u->opt, u->arg, r->min, r->max, v);
	case RT_OPT_RATE:
		return rt_opt_rate(u->cmd, u->opt, u->arg, r->min, r->max, v);
	case RT_OPT_DURATION:
		return rt_opt_duration(u->cmd, u->opt, u->arg, r->min, r->max, v);
	case RT_OPT_DURATION_WAS_NS:
		return rt_opt_duration_was_ns(u->cmd, u->opt, u->arg, r->min, r->max, v);
	default:
		return rt_opt_uint(u->cmd, u->opt, u->arg, r->min, r->max, v);
	}
}

static void store(void *field, const struct rt_opt *r, uint64_t v)
{
	uint64_t x = v * (r->mul ? r->mul : 1);
	switch (r->store) {
	case RT_STORE_U64:
		*(uint64_t *)field = x;
		break;
	case RT_STORE_U32:
		*(uint32_t *)field = (uint32_t)x;
		break;
	case RT_STORE_U16:
		*(uint16_t *)field = (uint16_t)x;
		break;
	case RT_STORE_U8:
		*(uint8_t *)field = (uint8_t)x;
		break;
	case RT_STORE_UINT:
		*(unsigned *)field = (unsigned)x;
		break;
	case RT_STORE_INT:
		*(int *)field = (int)x;
		break;
	case RT_STORE_BOOL:
		*(bool *)field = x != 0;
		break;
	case RT_STORE_DOUBLE:
		*(double *)field = (double)v / (r->div != 0 ? r->div : 1);
		break;
	}
}

/* The position of u->arg among the row's choices ("a|b|c"); else the usage error "is not a, b or c". */
static int choice(const struct rt_opt_use *u, uint64_t *pos)
{
	char list[256];
	size_t used = 0, len;
	const char *w = u->row->choices;
	for (uint64_t i = 0;; i++, w += len + 1) {
		len = strcspn(w, "|");
		if (strlen(u->arg) == len && !strncmp(w, u->arg, len)) {
			*pos = i;
			return 0;
		}
		const char *sep = !used ? "" : w[len] ? ", " : " or ";
		used +=
		    (size_t)snprintf(list + used, sizeof(list) - used, "%s%.*s", sep, (int)len, w);
		if (!w[len] || used >= sizeof(list))
			break;
	}
	return rt_cli_usage_error(u->cmd, "%s: '%s' is not %s", u->opt, u->arg, list);
}

/* One more value of a repeatable option. */
static int append(const struct rt_opt_use *u)
{
	struct rt_opt_list *l = rt_opt_field(u);
	uint64_t max = u->row->max && u->row->max < RT_OPT_LIST_MAX ? u->row->max : RT_OPT_LIST_MAX;
	if (l->n == max)
		return rt_cli_usage_error(u->cmd, "%s given more than %llu times", u->opt,
		                          (unsigned long long)max);
	l->v[l->n++] = u->arg;
	return 0;
}

/* What the row does with the option given: 0, -1 to stop, or the exit status. */
static int take(struct rt_opt_use *u)
{
	const struct rt_opt *r = u->row;
	void *f = r->at ? rt_opt_field(u) : NULL;
	uint64_t v;
	int rc;
	switch (r->kind) {
	case RT_OPT_FLAG:
	case RT_OPT_CLEAR:
		*(bool *)f = r->kind == RT_OPT_FLAG;
		return 0;
	case RT_OPT_TALLY:
		++*(unsigned *)f;
		return 0;
	case RT_OPT_LEVEL:
		if (*(unsigned *)f < r->max)
			*(unsigned *)f = (unsigned)r->max;
		return 0;
	case RT_OPT_IGNORED:
		return 0;
	case RT_OPT_STRING:
		*(const char **)f = u->arg;
		return 0;
	case RT_OPT_LIST:
		return append(u);
	case RT_OPT_REAL:
		return rt_opt_real(u->cmd, u->opt, u->arg, r->rmin, r->rmax, f);
	case RT_OPT_CALL:
		return r->call(u);
	case RT_OPT_REFUSED:
		return rt_cli_usage_error(u->cmd, "%s", r->refused);
	case RT_OPT_CHOICE:
		rc = choice(u, &v);
		break;
	default:
		rc = number(u, &v);
		break;
	}
	if (!rc)
		store(f, r, v);
	return rc;
}

/* Option r given (optarg its value): checked, taken, marked given and passed on. */
static int given(const struct rt_opt_table *t, const struct rt_opt *r, void *args, int argc,
                 char **argv)
{
	char opt[64];
	if (r->name)
		snprintf(opt, sizeof(opt), "--%s", r->name);
	else
		snprintf(opt, sizeof(opt), "-%c", r->letter);
	if (!serves(t, r))
		return rt_cli_usage_error(t->cmd, "%s", r->refused);
	struct rt_opt_use u = {.cmd = t->cmd,
	                       .args = args,
	                       .row = r,
	                       .opt = opt,
	                       .arg = optarg,
	                       .argc = argc,
	                       .argv = argv};
	int rc = take(&u);
	if (rc)
		return rc;
	if (r->given)
		*(bool *)((char *)args + r->given - 1) = true;
	return r->forward && t->forward ? t->forward(args, r->name, u.arg) : 0;
}

/*
 * The word of the long option getopt_long just took: the last word it read,
 * or the one before when that was the option's value.
 */
static const char *long_word(char **argv)
{
	const char *w = argv[optind - 1];
	return optarg && optarg == w && optind >= 2 ? argv[optind - 2] : w;
}

/* Is word ("--name" or "--name=value") the long option `name` spelled out, not shortened? */
static bool same_name(const char *word, const char *name)
{
	size_t len = strcspn(word + 2, "=");
	return strlen(name) == len && !strncmp(word + 2, name, len);
}

int rt_opt_parse(const struct rt_opt_table *t, void *args, int argc, char **argv)
{
	char letters[3 * RT_OPT_ROWS_MAX + 3];
	struct option longopts[2 * RT_OPT_ROWS_MAX + 1];
	int c;
	assert(t->nrows <= RT_OPT_ROWS_MAX);
	spellings(t, letters, longopts);
	optind = 0; /* 0, not 1: getopt_long starts over, rereading the '+' of this option string */
	opterr = 0;
	for (int li = -1; (c = getopt_long(argc, argv, letters, longopts, &li)) != -1; li = -1) {
		const struct rt_opt *r = row_of(t, c);
		const char *word = li >= 0 ? long_word(argv) : NULL;
		int rc = !r ? rt_cli_getopt_error(t->cmd, c, argv, longopts)
		         : word && !same_name(word, longopts[li].name)
		             ? rt_cli_unknown_option(t->cmd, word, longopts)
		             : given(t, r, args, argc, argv);
		if (rc)
			return rc;
	}
	return 0;
}
