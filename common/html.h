/* Writing into an HTML page: text escaped for elements and attributes, JSON safe inside a script element, base64. */
#ifndef RT_HTML_H
#define RT_HTML_H

#include <stddef.h>

#include "common/outbuf.h"

/*
 * Text for an element or a quoted attribute: & < > " ' become character
 * references, so no string from a capture, a file name or the command line
 * can open a tag or end an attribute. Bytes that are not UTF-8 become
 * U+FFFD, control characters other than tab and newline a space.
 */
void rt_out_html(struct rt_outbuf *o, const char *s);

/*
 * `len` bytes of JSON text for a <script type="application/json"> element:
 * every '<' becomes \u003c (it can only occur inside a JSON string, where
 * the escape means the same character), so "</script>" or "<!--" in a
 * string cannot end the element.
 */
void rt_out_script_json(struct rt_outbuf *o, const char *json, size_t len);

/* `len` bytes as base64 (RFC 4648, with padding), a line break every 76 characters. */
void rt_out_base64(struct rt_outbuf *o, const void *data, size_t len);

#endif
