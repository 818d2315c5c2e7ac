/* Writing into an HTML page: escaped text, JSON that cannot end its script element, base64. */
#include "common/html.h"

#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and code points past U+10FFFF are not UTF-8 */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void rt_out_html(struct rt_outbuf *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		switch (*p) {
		case '&':
			rt_out_str(o, "&amp;");
			break;
		case '<':
			rt_out_str(o, "&lt;");
			break;
		case '>':
			rt_out_str(o, "&gt;");
			break;
		case '"':
			rt_out_str(o, "&quot;");
			break;
		case '\'':
			rt_out_str(o, "&#39;");
			break;
		case '\t':
		case '\n':
			rt_out_char(o, (char)*p);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				rt_out_char(o, ' ');
			} else {
				size_t n = utf8_len(p);
				if (!n) {
					rt_out_str(o, "\xef\xbf\xbd");
					break;
				}
				rt_out_write(o, p, n);
				p += n;
				continue;
			}
		}
		p++;
	}
}

void rt_out_script_json(struct rt_outbuf *o, const char *json, size_t len)
{
	size_t from = 0;
	for (size_t i = 0; i < len; i++) {
		if (json[i] != '<')
			continue;
		rt_out_write(o, json + from, i - from);
		rt_out_str(o, "\\u003c");
		from = i + 1;
	}
	rt_out_write(o, json + from, len - from);
}

void rt_out_base64(struct rt_outbuf *o, const void *data, size_t len)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	size_t col = 0;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		size_t n = len - i < 3 ? len - i : 3;
		if (n > 1)
			v |= (uint32_t)p[i + 1] << 8;
		if (n > 2)
			v |= p[i + 2];
		char q[4] = {abc[(v >> 18) & 63], abc[(v >> 12) & 63],
		             n > 1 ? abc[(v >> 6) & 63] : '=', n > 2 ? abc[v & 63] : '='};
		rt_out_write(o, q, 4);
		col += 4;
		if (col == 76 && i + 3 < len) {
			rt_out_char(o, '\n');
			col = 0;
		}
	}
}
