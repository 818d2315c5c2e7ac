/* Bounded string copy for doctor's messages: always cut to fit and NUL-terminated (appending: rt_text_appendf). */
#include <string.h>

#include "doctor/facts.h"

void rt_doc_copy(char *dst, size_t size, const char *src)
{
	size_t l = strnlen(src, size - 1);
	memcpy(dst, src, l);
	dst[l] = '\0';
}
