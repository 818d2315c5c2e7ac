/* The tcpdump letters dissect and capture share for their text lines: -n -v -e -x -X -t... -#. */
#ifndef RT_TOOLS_TEXTOPTS_H
#define RT_TOOLS_TEXTOPTS_H

#include "dissect/print.h"
#include "tools/optable.h"

/*
 * The rows of the letters, into the struct rt_print_text_opts `text` and the
 * unsigned `tflags` (the -t letters counted) of the command's struct `type`:
 * -n (names are never looked up), -v (more each time), -e, -x, -X (-X wins),
 * -t, -tt, ... and -#, --number.
 */
#define RT_TEXT_ROWS(type, text, tflags)                                                           \
	{.letter = 'n', .kind = RT_OPT_IGNORED},                                                   \
	    {.letter = 'v', .kind = RT_OPT_TALLY, .at = RT_AT(type, text.verbose)},                \
	    {.letter = 'e', .kind = RT_OPT_FLAG, .at = RT_AT(type, text.link)},                    \
	    {.letter = 'x', .kind = RT_OPT_LEVEL, .at = RT_AT(type, text.hex), .max = 1},          \
	    {.letter = 'X', .kind = RT_OPT_LEVEL, .at = RT_AT(type, text.hex), .max = 2},          \
	    {.letter = 't', .kind = RT_OPT_TALLY, .at = RT_AT(type, tflags)},                      \
	{                                                                                          \
		.name = "number", .letter = '#', .kind = RT_OPT_FLAG,                              \
		.at = RT_AT(type, text.number)                                                     \
	}

/* The timestamp the counted -t letters ask for into t->ts; 0, or the usage status for six or more. */
int rt_text_ts(const char *cmd, unsigned tflags, struct rt_print_text_opts *t);

#endif
