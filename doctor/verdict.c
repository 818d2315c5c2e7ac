/* doctor's verdict writers: the helpers every check area uses to add and fill a check. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor/internal.h"
#include "common/textfmt.h"

void rt_doc_put(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

struct rt_doc_check *rt_doc_add(struct rt_doc_target *t, const char *name, enum rt_doc_status st)
{
	static struct rt_doc_check overflow;
	if (t->nchecks >= RT_DOC_MAX_CHECKS)
		return memset(&overflow, 0, sizeof(overflow));
	struct rt_doc_check *c = &t->checks[t->nchecks++];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->status = st;
	return c;
}

struct rt_doc_check *rt_doc_unchecked(struct rt_doc_target *t, const char *name, const char *why)
{
	struct rt_doc_check *c = rt_doc_add(t, name, RT_DOC_UNCHECKED);
	VALUE(c, "could not check: %s", why);
	return c;
}

/* "3,4" or "none" */
const char *rt_doc_prio_list(uint8_t mask, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int p = 0; p < 8; p++)
		if (mask & (1u << p))
			rt_text_appendf(buf, size, "%s%d", buf[0] ? "," : "", p);
	if (!buf[0])
		snprintf(buf, size, "none");
	return buf;
}

const char *rt_doc_sysfs_dev(const struct rt_doc_facts *f)
{
	return f->netdev[0] ? f->netdev : "NETDEV";
}
