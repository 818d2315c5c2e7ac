/* Prints the names of each hostlist expression given, one line each (or "error: WHY"), for the
 * cross-check against scontrol show hostnames (hostlist_scontrol.py). */
#include <stdio.h>

#include "common/hostlist.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct rt_hostlist hl = {0};
		char err[RT_ERRBUF_SIZE];
		if (rt_hostlist_expand(&hl, argv[i], 1u << 20, err) < 0)
			printf("error: %s", err);
		for (size_t k = 0; k < hl.n; k++)
			printf("%s%s", k ? " " : "", hl.names[k]);
		printf("\n");
		rt_hostlist_free(&hl);
	}
	return 0;
}
