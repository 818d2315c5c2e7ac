/* Unit tests of tools/optable.c: every kind of row, limits, choices, lists, refusals, forwarding, the parser's stops. */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/tools/stderr_capture.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/optable.h"

/* Every kind of field a row can set. */
struct args {
	bool flag, on, given;
	unsigned tally, level, mode;
	uint64_t u64, ms_in_ns;
	uint32_t u32;
	uint16_t u16;
	uint8_t u8;
	int i;
	double gbps, real;
	bool json;
	const char *str, *called_with;
	struct rt_opt_list list;
	struct rt_cli_hosts hosts;
	/* the options passed on, as the forward hook saw them */
	char forwarded[8][64];
	unsigned nforwarded;
};

#define AT(member) RT_AT(struct args, member)

/* --maybe [N]: a value, or the next word when it is a number */
static int maybe(struct rt_opt_use *u)
{
	struct args *a = u->args;
	if (!u->arg && optind < u->argc && u->argv[optind][0] >= '0' && u->argv[optind][0] <= '9')
		u->arg = u->argv[optind++];
	a->called_with = u->arg ? u->arg : "(none)";
	return 0;
}

static int stop(struct rt_opt_use *u)
{
	(void)u;
	return -1;
}

enum { CMD_A = 1, CMD_B = 2 };

static const struct rt_opt rows[] = {
    {.name = "flag", .letter = 'F', .kind = RT_OPT_FLAG, .at = AT(flag), .given = AT(given)},
    {.name = "no-on", .kind = RT_OPT_CLEAR, .at = AT(on), .forward = true},
    {.letter = 'v', .kind = RT_OPT_TALLY, .at = AT(tally)},
    {.letter = 'x', .kind = RT_OPT_LEVEL, .at = AT(level), .max = 1},
    {.letter = 'X', .kind = RT_OPT_LEVEL, .at = AT(level), .max = 2},
    {.letter = 'n', .kind = RT_OPT_IGNORED},
    {.name = "u64",
     .letter = 'c',
     .kind = RT_OPT_UINT,
     .at = AT(u64),
     .min = 1,
     .max = 100,
     .forward = true},
    {.name = "ms", .kind = RT_OPT_UINT, .at = AT(ms_in_ns), .max = 1000, .mul = 1000000},
    {.name = "size", .kind = RT_OPT_SIZE, .at = AT(u32), .store = RT_STORE_U32, .max = 1u << 30},
    {.name = "port",
     .alias = "udp-port",
     .kind = RT_OPT_UINT,
     .at = AT(u16),
     .store = RT_STORE_U16,
     .max = 65535},
    {.name = "count", .kind = RT_OPT_COUNT, .at = AT(u8), .store = RT_STORE_U8, .max = 255},
    {.name = "int", .kind = RT_OPT_DURATION, .at = AT(i), .store = RT_STORE_INT, .max = 1000000},
    {.name = "rate",
     .kind = RT_OPT_RATE,
     .at = AT(gbps),
     .store = RT_STORE_DOUBLE,
     .div = 1e9,
     .max = UINT64_MAX},
    {.name = "real", .kind = RT_OPT_REAL, .at = AT(real), .rmin = 0, .rmax = 1},
    {.name = "bucket", .kind = RT_OPT_DURATION_WAS_NS, .at = AT(u64), .max = UINT64_MAX},
    {.name = "mode",
     .kind = RT_OPT_CHOICE,
     .choices = "one|two|three",
     .at = AT(mode),
     .store = RT_STORE_UINT},
    {.name = "format",
     .kind = RT_OPT_CHOICE,
     .choices = "csv|json",
     .at = AT(json),
     .store = RT_STORE_BOOL},
    {.name = "str", .letter = 's', .kind = RT_OPT_STRING, .at = AT(str), .forward = true},
    {.name = "item", .kind = RT_OPT_LIST, .at = AT(list), .max = 2},
    {.name = "maybe",
     .kind = RT_OPT_CALL,
     .has_arg = optional_argument,
     .call = maybe,
     .forward = true},
    {.name = "stop", .kind = RT_OPT_CALL, .call = stop},
    {.name = "only-a",
     .kind = RT_OPT_FLAG,
     .at = AT(flag),
     .cmds = CMD_A,
     .refused = "--only-a is an option of 'a'"},
    {.name = "hidden-a", .letter = 'H', .kind = RT_OPT_FLAG, .at = AT(flag), .cmds = CMD_A},
    {.name = "old", .kind = RT_OPT_REFUSED, .cmds = CMD_B, .refused = "--old is gone"},
    RT_CLI_HOSTS_ROWS(struct args, hosts, 1000, 2000000000),
};

static int forward(void *p, const char *name, const char *value)
{
	struct args *a = p;
	if (!strcmp(value ? value : "", "refuse"))
		return rt_cli_usage_error("t", "'refuse' cannot be passed on");
	snprintf(a->forwarded[a->nforwarded++], sizeof(a->forwarded[0]), "%s=%s", name,
	         value ? value : "(none)");
	return 0;
}

static struct rt_opt_table table(unsigned cmd_bit, bool stop_at_operand)
{
	return (struct rt_opt_table){.cmd = "t",
	                             .rows = rows,
	                             .nrows = sizeof(rows) / sizeof(rows[0]),
	                             .cmd_bit = cmd_bit,
	                             .stop_at_operand = stop_at_operand,
	                             .forward = forward};
}

/* The result of the parse; its stderr in err. */
static const char *err;

static int parse_as(unsigned cmd_bit, bool stop_at_operand, struct args *a, char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	struct rt_opt_table t = table(cmd_bit, stop_at_operand);
	capture_begin();
	int rc = rt_opt_parse(&t, a, argc, argv);
	err = capture_end();
	return rc;
}

static int parse(struct args *a, char **argv)
{
	memset(a, 0, sizeof(*a));
	a->on = true;
	return parse_as(CMD_A, false, a, argv);
}

static void test_kinds(void **state)
{
	(void)state;
	struct args a;
	char *argv[] = {
	    "t",     "--flag",   "--no-on", "-vv",    "-v",   "-x",         "-X",      "-x",
	    "-n",    "-c5",      "--ms=20", "--size", "64K",  "--udp-port", "0x12b7",  "--count",
	    "2K",    "--int",    "1ms",     "--rate", "2.5G", "--real",     "0.25",    "--mode",
	    "three", "--format", "json",    "-s",     "word", "--str=last", "operand", NULL};
	assert_int_equal(parse(&a, argv), RT_EXIT_USAGE);
	/* --count 2K is 2000: over the u8's 255 */
	assert_string_equal(err, "rocetrace t: --count: '2K' is out of range (0 to 255)\n");
	argv[16] = "200";
	assert_int_equal(parse(&a, argv), 0);
	assert_string_equal(err, "");
	assert_true(a.flag && a.given && !a.on);
	assert_int_equal(a.tally, 3);
	assert_int_equal(a.level, 2); /* -x after -X leaves it at 2 */
	assert_int_equal(a.u64, 5);
	assert_int_equal(a.ms_in_ns, 20000000);
	assert_int_equal(a.u32, 65536);
	assert_int_equal(a.u16, 4791);
	assert_int_equal(a.u8, 200);
	assert_int_equal(a.i, 1000000);
	assert_true(a.gbps == 2.5);
	assert_true(a.real == 0.25);
	assert_int_equal(a.mode, 2);
	assert_true(a.json);
	assert_string_equal(a.str, "last");
	/* the operand is left for the command, options after it taken (getopt's order) */
	assert_int_equal(optind, 30);
	assert_string_equal(argv[optind], "operand");
}

static void test_values_refused(void **state)
{
	(void)state;
	struct args a;
	char *a1[] = {"t", "--u64", "0", NULL};
	assert_int_equal(parse(&a, a1), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --u64: '0' is out of range (1 to 100)\n");
	char *a2[] = {"t", "-c", "x", NULL};
	assert_int_equal(parse(&a, a2), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --u64: 'x' is not a whole number (use e.g. 42 or "
	                         "0x2a)\n");
	char *a3[] = {"t", "--mode", "four", NULL};
	assert_int_equal(parse(&a, a3), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --mode: 'four' is not one, two or three (see "
	                         "'rocetrace t --help')\n");
	char *a4[] = {"t", "--format", "jso", NULL};
	assert_int_equal(parse(&a, a4), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --format: 'jso' is not csv or json (see 'rocetrace "
	                         "t --help')\n");
	/* given twice, the last one holds: csv after json is csv */
	char *a5[] = {"t", "--format", "json", "--format", "csv", NULL};
	assert_int_equal(parse(&a, a5), 0);
	assert_false(a.json);
	char *a6[] = {"t", "--real", "2", NULL};
	assert_int_equal(parse(&a, a6), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --real: '2' is out of range (0 to 1)\n");
	char *a7[] = {"t", "--bucket", "100", NULL};
	assert_int_equal(parse(&a, a7), RT_EXIT_USAGE);
	assert_non_null(strstr(err, "read this option's as nanoseconds"));
	/* the value a field holds stays when its option is refused */
	char *a8[] = {"t", "-c", "7", "-c", "700", NULL};
	assert_int_equal(parse(&a, a8), RT_EXIT_USAGE);
	assert_int_equal(a.u64, 7);
}

static void test_lists(void **state)
{
	(void)state;
	struct args a;
	char *a1[] = {"t", "--item", "a", "--item=b", "--hosts", "h1,h2", "--hosts=h3", NULL};
	assert_int_equal(parse(&a, a1), 0);
	assert_int_equal(a.list.n, 2);
	assert_string_equal(a.list.v[0], "a");
	assert_string_equal(a.list.v[1], "b");
	assert_int_equal(a.hosts.names.n, 2);
	assert_string_equal(a.hosts.names.v[1], "h3");
	char *a2[] = {"t", "--item", "a", "--item=b", "--item", "c", NULL};
	assert_int_equal(parse(&a, a2), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --item given more than 2 times (see 'rocetrace t "
	                         "--help')\n");
	/* a list without .max holds RT_OPT_LIST_MAX */
	char *a3[RT_OPT_LIST_MAX + 3] = {"t"};
	for (int i = 1; i <= RT_OPT_LIST_MAX + 1; i++)
		a3[i] = "--hosts=h";
	assert_int_equal(parse(&a, a3), RT_EXIT_USAGE);
	assert_int_equal(a.hosts.names.n, RT_OPT_LIST_MAX);
	assert_string_equal(err, "rocetrace t: --hosts given more than 64 times (see 'rocetrace "
	                         "t --help')\n");
	/* the hosts group's other rows (--slurm among them), with the command's limits for --timeout */
	char *a4[] = {"t", "--launcher", "ssh {host}", "--remote=r", "--timeout", "1s", NULL};
	assert_int_equal(parse(&a, a4), 0);
	assert_string_equal(a.hosts.launcher, "ssh {host}");
	assert_string_equal(a.hosts.remote, "r");
	assert_int_equal(a.hosts.timeout_ns, 1000000000);
	assert_false(a.hosts.slurm);
	char *a6[] = {"t", "--slurm", NULL};
	assert_int_equal(parse(&a, a6), 0);
	assert_true(a.hosts.slurm);
	assert_int_equal(a.hosts.names.n, 0);
	char *a5[] = {"t", "--timeout", "3s", NULL};
	assert_int_equal(parse(&a, a5), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --timeout: '3s' is out of range (1us to 2s)\n");
}

/* Rows that serve some of the commands sharing a table. */
static void test_commands(void **state)
{
	(void)state;
	struct args a;
	char *a1[] = {"t", "--only-a", NULL};
	assert_int_equal(parse(&a, a1), 0);
	assert_true(a.flag);
	memset(&a, 0, sizeof(a));
	assert_int_equal(parse_as(CMD_B, false, &a, a1), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --only-a is an option of 'a' (see 'rocetrace t "
	                         "--help')\n");
	assert_false(a.flag);
	/* no message for the others: unknown there, letter and name */
	char *a2[] = {"t", "-H", NULL};
	assert_int_equal(parse_as(CMD_B, false, &a, a2), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: unknown option '-H' (see 'rocetrace t --help')\n");
	char *a3[] = {"t", "--hidden-a", NULL};
	assert_int_equal(parse_as(CMD_B, false, &a, a3), RT_EXIT_USAGE);
	assert_string_equal(
	    err, "rocetrace t: unknown option '--hidden-a' (see 'rocetrace t --help')\n");
	assert_int_equal(parse(&a, a3), 0);
	/* a refused row: its message where it applies, unknown elsewhere */
	char *a4[] = {"t", "--old", NULL};
	assert_int_equal(parse_as(CMD_B, false, &a, a4), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: --old is gone (see 'rocetrace t --help')\n");
	assert_int_equal(parse(&a, a4), RT_EXIT_USAGE);
	assert_string_equal(err,
	                    "rocetrace t: unknown option '--old' (see 'rocetrace t --help')\n");
}

static void test_spellings(void **state)
{
	(void)state;
	struct args a;
	/* names in full; a shortened one is unknown, even where getopt_long would take it */
	char *a0[] = {"t", "--flag", "--udp-port", "2", NULL};
	assert_int_equal(parse(&a, a0), 0);
	assert_true(a.flag);
	assert_int_equal(a.u16, 2);
	char *a1[] = {"t", "--fl", NULL};
	assert_int_equal(parse(&a, a1), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: unknown option '--fl'; did you mean '--flag'? (see "
	                         "'rocetrace t --help')\n");
	char *a1v[] = {"t", "--por=1", NULL}; /* shortened, with its value */
	assert_int_equal(parse(&a, a1v), RT_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown option '--por'; did you mean '--port'?"));
	char *a1s[] = {"t", "--str", "--flag", "--udp", "3", NULL}; /* a value word is no option */
	assert_int_equal(parse(&a, a1s), RT_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown option '--udp'; did you mean '--udp-port'?"));
	char *a1t[] = {"t", "--str", "--fl", NULL}; /* a value that looks like a shortened name */
	assert_int_equal(parse(&a, a1t), 0);
	assert_string_equal(a.str, "--fl");
	char *a2[] = {"t", "--m", "1", NULL}; /* --ms, --mode, --maybe */
	assert_int_equal(parse(&a, a2), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: unknown option '--m'; did you mean '--ms', '--mode' "
	                         "or '--maybe'? (see 'rocetrace t --help')\n");
	char *a2t[] = {"t", "--flga", NULL}; /* a typo: the name two letters away */
	assert_int_equal(parse(&a, a2t), RT_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown option '--flga'; did you mean '--flag'?"));
	char *a2f[] = {"t", "--fla=1", NULL}; /* shortened and given a value it does not take */
	assert_int_equal(parse(&a, a2f), RT_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown option '--fla'; did you mean '--flag'?"));
	char *a3[] = {"t", "--u64", NULL};
	assert_int_equal(parse(&a, a3), RT_EXIT_USAGE);
	assert_string_equal(
	    err, "rocetrace t: option '--u64' needs a value (see 'rocetrace t --help')\n");
	char *a4[] = {"t", "--flag=1", NULL};
	assert_int_equal(parse(&a, a4), RT_EXIT_USAGE);
	assert_string_equal(
	    err, "rocetrace t: option '--flag' takes no value (see 'rocetrace t --help')\n");
	char *a5[] = {"t", "-vqv", NULL};
	assert_int_equal(parse(&a, a5), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: unknown option '-q' (see 'rocetrace t --help')\n");
	assert_int_equal(a.tally, 1);
}

static void test_forward(void **state)
{
	(void)state;
	struct args a;
	/* the forwarded rows, by long name, with the value as written (after the function took it) */
	char *a1[] = {"t", "-c",        "5",    "--no-on", "--str",   "w", "--maybe",
	              "7", "--maybe=x", "--ms", "1",       "--maybe", NULL};
	assert_int_equal(parse(&a, a1), 0);
	assert_int_equal(a.nforwarded, 6);
	assert_string_equal(a.forwarded[0], "u64=5");
	assert_string_equal(a.forwarded[1], "no-on=(none)");
	assert_string_equal(a.forwarded[2], "str=w");
	assert_string_equal(a.forwarded[3], "maybe=7");
	assert_string_equal(a.forwarded[4], "maybe=x");
	assert_string_equal(a.forwarded[5], "maybe=(none)");
	assert_string_equal(a.called_with, "(none)");
	/* the hook's refusal ends the parse; an option refused before it reaches no hook */
	char *a2[] = {"t", "-s", "refuse", "-c", "1", NULL};
	assert_int_equal(parse(&a, a2), RT_EXIT_USAGE);
	assert_string_equal(err, "rocetrace t: 'refuse' cannot be passed on (see 'rocetrace t "
	                         "--help')\n");
	assert_int_equal(a.nforwarded, 0);
	char *a3[] = {"t", "-c", "0", NULL};
	assert_int_equal(parse(&a, a3), RT_EXIT_USAGE);
	assert_int_equal(a.nforwarded, 0);
}

static void test_stops(void **state)
{
	(void)state;
	struct args a;
	/* a function's -1 ends the parse at once */
	char *a1[] = {"t", "--stop", "--u64", "0", NULL};
	assert_int_equal(parse(&a, a1), -1);
	assert_string_equal(err, "");
	/* stop_at_operand: what follows the first operand is the command's */
	char *a2[] = {"t", "-v", "udp", "-v", NULL};
	memset(&a, 0, sizeof(a));
	assert_int_equal(parse_as(CMD_A, true, &a, a2), 0);
	assert_int_equal(a.tally, 1);
	assert_int_equal(optind, 2);
	/* "--" ends the options either way */
	char *a3[] = {"t", "--", "-v", NULL};
	assert_int_equal(parse(&a, a3), 0);
	assert_int_equal(a.tally, 0);
	assert_int_equal(optind, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds),     cmocka_unit_test(test_values_refused),
	    cmocka_unit_test(test_lists),     cmocka_unit_test(test_commands),
	    cmocka_unit_test(test_spellings), cmocka_unit_test(test_forward),
	    cmocka_unit_test(test_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
