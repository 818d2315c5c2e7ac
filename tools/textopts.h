/* The tcpdump letters dissect and capture share for their text lines: -n -v -e -x -X -t... -#. */
#ifndef RT_TOOLS_TEXTOPTS_H
#define RT_TOOLS_TEXTOPTS_H

#include <stdbool.h>

#include "dissect/print.h"

/* The letters, for a getopt option string. */
#define RT_TEXT_LETTERS "nvexXt#"

/* Letter c into *t (each -t counted in *tflags); false when c is none of them. */
bool rt_text_option(int c, struct rt_print_text_opts *t, unsigned *tflags);

/* The timestamp the counted -t letters ask for into t->ts; 0, or the usage status for six or more. */
int rt_text_ts(const char *cmd, unsigned tflags, struct rt_print_text_opts *t);

#endif
