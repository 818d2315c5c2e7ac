/* gzip of a document as it is written: deflated in pieces on several threads, the same bytes whatever their number. */
#ifndef RT_RENDER_GZIP_PIECES_H
#define RT_RENDER_GZIP_PIECES_H

#include <stddef.h>
#include <stdio.h>

#define RT_GZP_PIECE (1u << 20) /* the document's bytes a piece holds (the last fewer) */

/*
 * The document is cut into pieces of RT_GZP_PIECE bytes as it is written;
 * each is deflated (raw, RFC 1951) primed with the 32 KiB before it and
 * ended on a byte boundary (a sync flush), the last one ending the stream,
 * so the pieces' outputs one after the other, between a gzip header and
 * trailer (RFC 1952), are one gzip member. The pieces are deflated as they
 * fill, by up to threads - 1 threads of its own while the document is
 * written and by the caller at its end: the cuts never depend on the
 * threads nor on how the writes come, and so neither do the bytes.
 */
struct rt_gzp;

/* A document to write at `level` (zlib's, 1-9) on up to `threads` threads; NULL when out of memory. */
struct rt_gzp *rt_gzp_new(int level, unsigned threads);
/* Where the document is written (unbuffered: each write goes to the pieces); NULL when out of memory. */
FILE *rt_gzp_file(struct rt_gzp *g);
/*
 * The document ended (rt_gzp_file's stream closed by this call): its gzip
 * into *out (malloc'd), *outlen bytes. 0, or a negative errno (ENOMEM: a
 * write or a piece ran out of memory).
 */
int rt_gzp_finish(struct rt_gzp *g, unsigned char **out, size_t *outlen);
/* Frees g (its threads ended), finished or not. */
void rt_gzp_free(struct rt_gzp *g);

#endif
