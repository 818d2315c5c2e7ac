/* Values as the JSON report writes them: a number, or null when it is not known. */
#include <math.h>

#include "render/report_json_values.h"

void an_json_num_or_null(struct rt_json *j, double v, int dec, bool known)
{
	if (known && isfinite(v))
		rt_json_double(j, v, dec);
	else
		rt_json_null(j);
}

void an_json_u64_or_null(struct rt_json *j, uint64_t v, bool known)
{
	if (known)
		rt_json_u64(j, v);
	else
		rt_json_null(j);
}
