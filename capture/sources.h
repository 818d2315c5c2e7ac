/* The ops tables of the built-in capture sources (internal to capture/). */
#ifndef RT_SOURCES_H
#define RT_SOURCES_H

#include "capture/source.h"
#include "rt_config.h"

#include <pcap/pcap.h>

extern const struct rt_source_ops rt_source_file_ops;
extern const struct rt_source_ops rt_source_pcap_ops;
#if RT_HAVE_IBVERBS
extern const struct rt_source_ops rt_source_verbs_ops;
#endif

#endif
