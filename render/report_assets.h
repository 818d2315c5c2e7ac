/* The files the HTML report inlines (the charting library, the page's script and style), embedded at build time. */
#ifndef RT_RENDER_REPORT_ASSETS_H
#define RT_RENDER_REPORT_ASSETS_H

#include <stddef.h>

/* One file's bytes (render/embed.py writes them into report_assets.c); len 0 when it was not found. */
struct rt_report_asset {
	const char *name;
	const unsigned char *data;
	size_t len;
};

extern const struct rt_report_asset rt_report_dygraph_js, rt_report_dygraph_css;
extern const struct rt_report_asset rt_report_page_js, rt_report_page_css;

#endif
