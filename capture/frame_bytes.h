/* Frames copied for another thread: their bytes one after the other in one growing buffer, each frame's data an offset into it until the buffer stops moving. */
#ifndef RT_CAPTURE_FRAME_BYTES_H
#define RT_CAPTURE_FRAME_BYTES_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"

struct rt_frame_bytes {
	uint8_t *data;
	size_t len, cap;
};

/*
 * *out = *frame, its bytes copied to the end of b and out->data their
 * offset in b (rt_frame_bytes_at() gives the address once b stops
 * growing). 0 or -ENOMEM (b unchanged).
 */
static inline int rt_frame_bytes_add(struct rt_frame_bytes *b, const struct rt_frame *frame,
                                     struct rt_frame *out)
{
	if (b->len + frame->caplen > b->cap) {
		size_t ncap = b->cap ? b->cap : 1u << 16;
		while (ncap < b->len + frame->caplen)
			ncap *= 2;
		uint8_t *nd = realloc(b->data, ncap);
		if (!nd)
			return -ENOMEM;
		b->data = nd;
		b->cap = ncap;
	}
	*out = *frame;
	out->data = (const uint8_t *)(uintptr_t)b->len;
	if (frame->caplen)
		memcpy(b->data + b->len, frame->data, frame->caplen);
	b->len += frame->caplen;
	return 0;
}

/* The address of the bytes of f, a frame rt_frame_bytes_add() put in b. */
static inline const uint8_t *rt_frame_bytes_at(const struct rt_frame_bytes *b,
                                               const struct rt_frame *f)
{
	return b->data + (size_t)(uintptr_t)f->data;
}

#endif
