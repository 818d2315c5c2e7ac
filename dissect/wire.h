/* Bounds-checked reads of wire data: every access names the buffer length and fails instead of reading past it. */
#ifndef RT_WIRE_H
#define RT_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * Wire fields are byte arrays read through these helpers, never through
 * packed struct casts or bitfields. Each reader takes the buffer `p`, its
 * length `len`, the byte offset `off` and a flag `ok`: when the field does
 * not lie entirely inside [0, len) the reader returns 0 and clears *ok (it
 * never sets it), so a sequence of reads can be checked once at the end.
 */

/* True when `n` bytes at `off` lie inside a buffer of `len` bytes (no overflow). */
static inline bool rt_wire_has(uint32_t len, uint32_t off, uint32_t n)
{
	return off <= len && n <= len - off;
}

static inline uint8_t rt_get_u8(const uint8_t *p, uint32_t len, uint32_t off, bool *ok)
{
	if (!rt_wire_has(len, off, 1)) {
		*ok = false;
		return 0;
	}
	return p[off];
}

static inline uint16_t rt_get_be16(const uint8_t *p, uint32_t len, uint32_t off, bool *ok)
{
	if (!rt_wire_has(len, off, 2)) {
		*ok = false;
		return 0;
	}
	return (uint16_t)((unsigned)p[off] << 8 | p[off + 1]);
}

static inline uint32_t rt_get_be24(const uint8_t *p, uint32_t len, uint32_t off, bool *ok)
{
	if (!rt_wire_has(len, off, 3)) {
		*ok = false;
		return 0;
	}
	return (uint32_t)p[off] << 16 | (uint32_t)p[off + 1] << 8 | p[off + 2];
}

static inline uint32_t rt_get_be32(const uint8_t *p, uint32_t len, uint32_t off, bool *ok)
{
	if (!rt_wire_has(len, off, 4)) {
		*ok = false;
		return 0;
	}
	return (uint32_t)p[off] << 24 | (uint32_t)p[off + 1] << 16 | (uint32_t)p[off + 2] << 8 |
	       p[off + 3];
}

static inline uint32_t rt_get_le32(const uint8_t *p, uint32_t len, uint32_t off, bool *ok)
{
	if (!rt_wire_has(len, off, 4)) {
		*ok = false;
		return 0;
	}
	return (uint32_t)p[off + 3] << 24 | (uint32_t)p[off + 2] << 16 | (uint32_t)p[off + 1] << 8 |
	       p[off];
}

static inline uint64_t rt_get_be64(const uint8_t *p, uint32_t len, uint32_t off, bool *ok)
{
	if (!rt_wire_has(len, off, 8)) {
		*ok = false;
		return 0;
	}
	return (uint64_t)rt_get_be32(p, len, off, ok) << 32 | rt_get_be32(p, len, off + 4, ok);
}

/* Copy `n` bytes at `off` into `dst`; on a short buffer copies nothing and clears *ok. */
static inline void rt_get_bytes(const uint8_t *p, uint32_t len, uint32_t off, void *dst, uint32_t n,
                                bool *ok)
{
	if (!rt_wire_has(len, off, n)) {
		*ok = false;
		return;
	}
	memcpy(dst, p + off, n);
}

#endif
