/* Option tables: one row per option (spellings, value, field, limits, forwarding) and the one parser of every subcommand. */
#ifndef RT_TOOLS_OPTABLE_H
#define RT_TOOLS_OPTABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an option takes and what it does with its field. */
enum rt_opt_kind {
	RT_OPT_FLAG,     /* no value: the bool becomes true */
	RT_OPT_CLEAR,    /* no value: the bool becomes false (--no-icrc) */
	RT_OPT_TALLY,    /* no value: the unsigned counts the times it is given (-v -v) */
	RT_OPT_LEVEL,    /* no value: the unsigned rises to .max, never falls (-x 1, -X 2) */
	RT_OPT_IGNORED,  /* no value, no effect: accepted for another tool's habits (-n) */
	RT_OPT_STRING,   /* the value as written (const char *); given again, the last one holds */
	RT_OPT_LIST,     /* repeatable: each value appended to a struct rt_opt_list, at most .max */
	RT_OPT_UINT,     /* a whole number (42, 0x2a) in [.min, .max] */
	RT_OPT_COUNT,    /* a count with K, M, G, T (10^3 steps) */
	RT_OPT_SIZE,     /* a size in bytes with K, M, G, T (2^10 steps) */
	RT_OPT_RATE,     /* a rate in bits/s */
	RT_OPT_DURATION, /* a duration in ns (a bare number is seconds) */
	RT_OPT_DURATION_WAS_NS, /* the same, refusing the bare numbers rocetrace 0.1 read as ns */
	RT_OPT_REAL,            /* a decimal number in [.rmin, .rmax], into a double */
	RT_OPT_CHOICE,          /* one word of .choices ("csv|json"): its position stored */
	RT_OPT_CALL,            /* .call takes it (.has_arg: whether it has a value) */
	RT_OPT_REFUSED,         /* given to the commands of .cmds: the usage error .refused */
};

/*
 * The field a number goes to: its width (the value times .mul), or a double
 * (the value divided by .div). A CHOICE's position goes to an unsigned (an
 * enum) or a bool.
 */
enum rt_opt_store {
	RT_STORE_U64,
	RT_STORE_U32,
	RT_STORE_U16,
	RT_STORE_U8,
	RT_STORE_UINT,
	RT_STORE_INT,
	RT_STORE_BOOL,
	RT_STORE_DOUBLE,
};

/* A field of the command's argument struct, for a row: 0 is none. */
#define RT_AT(type, member) (offsetof(type, member) + 1)

/* The values of a repeatable option (RT_OPT_LIST), in the order given. */
#define RT_OPT_LIST_MAX 64
struct rt_opt_list {
	const char *v[RT_OPT_LIST_MAX];
	size_t n;
};

struct rt_opt_use;

/* One option. Zero is the default of every member. */
struct rt_opt {
	const char *name;  /* long name without "--", or NULL */
	const char *alias; /* a second long name, the same option (gen's --qdepth) */
	char letter;       /* the short letter, or 0 */
	enum rt_opt_kind kind;
	size_t at;               /* RT_AT(): the field it sets (0: none) */
	enum rt_opt_store store; /* the field's type, for numbers and choices */
	uint64_t min, max;       /* a number's limits; LEVEL: the level; LIST: most values */
	uint64_t mul;            /* an integer field gets the value times mul (0: 1) */
	double div;              /* a double field gets the value over div (0: 1) */
	double rmin, rmax;       /* REAL's limits */
	const char *choices;     /* CHOICE: the words, '|' between them */
	size_t given;            /* RT_AT(): a bool that becomes true when it is given */
	int (*call)(struct rt_opt_use *u); /* CALL: 0, -1 to stop (help shown) or an exit status */
	int has_arg; /* CALL: no_argument, required_argument, optional_argument */
	/*
	 * The commands of the table it serves (bits of rt_opt_table.cmd_bit; 0:
	 * all). `refused`: the usage error when it is given to the others (NULL:
	 * it is unknown there), or for a REFUSED row to the commands of .cmds.
	 */
	unsigned cmds;
	const char *refused;
	bool forward; /* passed on, as written, to the same command on other hosts (--hosts) */
};

/* An option as given, for a row's function. */
struct rt_opt_use {
	const char *cmd; /* "capture": the command, as messages name it */
	void *args;      /* the command's argument struct */
	const struct rt_opt *row;
	const char *opt; /* "--snaplen" or "-c": the option, as messages name it */
	const char
	    *arg; /* its value, or NULL; a function may take the next word (optind) instead */
	int argc;
	char **argv;
};

/* The row's field in u->args. */
void *rt_opt_field(const struct rt_opt_use *u);

/* A command's table. */
struct rt_opt_table {
	const char *cmd;
	const struct rt_opt *rows;
	size_t nrows;
	unsigned cmd_bit; /* which of the commands that share the table parses (0: the only one) */
	bool stop_at_operand; /* the first operand ends the options (capture: the filter, -- CMD) */
	/*
	 * Each option of a .forward row, once taken: its long name and the value as
	 * written (NULL for none). 0, or the exit status after one line on stderr.
	 */
	int (*forward)(void *args, const char *name, const char *value);
};

/* Each subcommand's table, as its parser reads it (a test holds every --help to them). */
extern const struct rt_opt_table rt_dissect_options, rt_capture_options, rt_gen_options,
    rt_doctor_options;
extern const struct rt_opt_table rt_analyze_options[3]; /* by enum rt_analyze_mode */

/* Does the command of table t take option r (not refuse it)? */
bool rt_opt_takes(const struct rt_opt_table *t, const struct rt_opt *r);

/* The most rows a table has (aliases counted), for the parser's own arrays. */
#define RT_OPT_ROWS_MAX 80

/*
 * Parse the options of argv[1..argc) into args by the table, as getopt_long
 * takes them, except that a long name must be given in full (a shortened one
 * is an unknown option, with the names it may have meant: "--count" is not
 * "--counters"); "--" ends them; optind is left at the first operand. Returns 0, -1 when a
 * row's function asked to stop (--help printed), or the exit status after
 * one line on stderr (2 for a usage error).
 */
int rt_opt_parse(const struct rt_opt_table *t, void *args, int argc, char **argv);

#endif
