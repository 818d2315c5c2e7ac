/* The outputs of dissect and capture as sinks of the frame pump: text lines, JSON Lines, the totals of --count, the writer. */
#ifndef RT_CAPTURE_SINKS_H
#define RT_CAPTURE_SINKS_H

#include <stdbool.h>

#include "capture/pump.h"
#include "capture/rewrite.h"
#include "capture/writer.h"
#include "common/outbuf.h"
#include "dissect/print.h"

/*
 * Each fills *out with a sink for the pump (capture/pump.h) and returns 0,
 * or -ENOMEM with errbuf filled; rt_pump_sink_free() frees it. The output
 * (o, w) stays the caller's: flushed by it, never closed here. A sink whose
 * output failed (o->error) asks the pump to stop.
 */

/*
 * A text line per frame (dissect/print.h, rt_print_text(): `opts` copied;
 * the times -ttt and -ttttt remember are the sink's). name_files: a capture
 * read from several files, each line names its frame's file (with -v).
 */
int rt_text_sink(struct rt_pump_sink *out, struct rt_outbuf *o,
                 const struct rt_print_text_opts *opts, bool name_files, char *errbuf);
/* A JSON object per frame (rt_print_json()); name_files: its "file" key, as above. */
int rt_json_sink(struct rt_pump_sink *out, struct rt_outbuf *o, bool name_files, char *errbuf);
/*
 * rt_text_sink (opts non-NULL) or rt_json_sink (opts NULL) whose frames
 * are decoded (`decode`) and formatted by `threads` threads, chunks of
 * frames apart, their lines written in frame order: the same bytes. It
 * takes no records (the pump decodes nothing for it) and copies each frame
 * (memory: 3 x threads + 3 chunks of 2048 frames in flight).
 */
int rt_lines_sink_parallel(struct rt_pump_sink *out, struct rt_outbuf *o,
                           const struct rt_print_text_opts *opts, bool name_files,
                           const struct rt_dissect_opts *decode, unsigned threads, char *errbuf);
/*
 * The totals of the frames it gets, written at the end (rt_print_totals():
 * text lines, or with `json` one object), the frames of each vantage point
 * of the files with them when `vantage` (a capture read from several files).
 * Written whatever ended the reading, unless the output failed before.
 */
int rt_totals_sink(struct rt_pump_sink *out, struct rt_outbuf *o, bool json, bool vantage,
                   char *errbuf);
/*
 * Each frame into the writer (rt_writer_write()) as interface if_id, or with
 * `rw` (capture -r: a saved capture written again; the caller's, finished
 * and freed by it) as its file's interface (rt_rewrite_iface()); it takes no
 * records.
 */
int rt_writer_sink(struct rt_pump_sink *out, struct rt_writer *w, int if_id, struct rt_rewrite *rw,
                   char *errbuf);

#endif
