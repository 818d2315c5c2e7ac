/* The tcpdump letters dissect and capture share for their text lines: -n -v -e -x -X -t... -#. */
#include "tools/textopts.h"

#include "tools/cli.h"

int rt_text_ts(const char *cmd, unsigned tflags, struct rt_print_text_opts *t)
{
	/* tcpdump's meanings: -t none, -tt epoch, -ttt delta, -tttt date, -ttttt since the first */
	static const enum rt_print_ts by_t[] = {RT_PRINT_TS_EPOCH, RT_PRINT_TS_NONE,
	                                        RT_PRINT_TS_EPOCH, RT_PRINT_TS_DELTA,
	                                        RT_PRINT_TS_DATE,  RT_PRINT_TS_SINCE_FIRST};
	if (tflags >= sizeof(by_t) / sizeof(by_t[0]))
		return rt_cli_usage_error(cmd, "-t: at most five (-ttttt)");
	t->ts = by_t[tflags];
	return 0;
}
