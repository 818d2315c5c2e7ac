/* Every buffer and limit of the capture file reading path, in one place (tests/capture/test_read_limits.c tries each at size-1, size and size+1). */
#ifndef RT_CAPTURE_READ_LIMITS_H
#define RT_CAPTURE_READ_LIMITS_H

/*
 * The reader's buffer (capture/pcapfile*.c): bytes asked of read(2), or of
 * inflate, at a time. A record or block larger than what the buffer holds
 * grows it to the record's size plus this much (and it stays that large).
 */
#define RT_READ_BUF_SIZE (1u << 20)
/*
 * gzip'd input: compressed bytes read at a time. A file's first read,
 * before its format is known, takes at most this many, so what it got fits
 * this buffer when the file turns out to be gzip'd. Inflate writes into the
 * reader's buffer (RT_READ_BUF_SIZE).
 */
#define RT_READ_GZIP_IN_SIZE (256u << 10)
/* Largest classic pcap frame accepted (libpcap's limit); a snap length of 0 or above it means this. */
#define RT_READ_PCAP_MAX_CAPLEN 262144u
/* Largest pcapng block accepted, its 12 bytes of type and lengths included (a frame of at most this less 32 bytes). */
#define RT_READ_PCAPNG_MAX_BLOCK (16u << 20)
/* pcapng interface descriptions accepted in one file, over all its sections. */
#define RT_READ_PCAPNG_MAX_IFACES (1u << 20)
/* Bytes kept of an interface's if_name, its final NUL included (a longer name is cut). */
#define RT_READ_IFNAME_SIZE 64u

/* The file source (capture/source_file.c): frames read from one file at a time. */
#define RT_READ_FILE_BATCH 64
/*
 * Regular files kept open after the open read their first frames; the
 * others are closed and opened again when the stream reaches them. Pipes,
 * FIFOs and standard input cannot be read again: they always stay open.
 */
#define RT_READ_KEEP_OPEN 16
/* Link types the files may mix that get their own compiled -f filter; frames of more are an error. */
#define RT_READ_MAX_FILTERS 8

#endif
