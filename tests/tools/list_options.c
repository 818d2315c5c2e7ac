/* Prints the options each subcommand takes, from its option table: "COMMAND --name" or "COMMAND -x", one a line. */
#include <stdio.h>

#include "tools/analyze_options.h"
#include "tools/optable.h"

static void list(const struct rt_opt_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct rt_opt *r = &t->rows[i];
		if (!rt_opt_takes(t, r))
			continue;
		if (r->letter)
			printf("%s -%c\n", t->cmd, r->letter);
		if (r->name)
			printf("%s --%s\n", t->cmd, r->name);
		if (r->alias)
			printf("%s --%s\n", t->cmd, r->alias);
	}
}

int main(void)
{
	const struct rt_opt_table *tables[] = {
	    &rt_dissect_options,
	    &rt_analyze_options[RT_MODE_ANALYZE],
	    &rt_analyze_options[RT_MODE_TIMELINE],
	    &rt_analyze_options[RT_MODE_REPORT],
	    &rt_capture_options,
	    &rt_gen_options,
	    &rt_doctor_options,
	};
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		list(tables[i]);
	return 0;
}
