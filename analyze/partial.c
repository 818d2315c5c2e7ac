/* Partials as objects: freeing one, and telling a partial's file from a capture by its magic. */
#include "analyze/partial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/internal.h"
#include "analyze/partial_buckets.h"

void rt_partial_free(struct rt_partial *p)
{
	if (!p)
		return;
	free(p->point);
	for (unsigned i = 0; p->files && i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p->packets);
	rt_partial_buckets_free(p->buckets);
	an_results_free(p->res);
	free(p);
}

bool rt_partial_is(const char *path)
{
	/* a pipe or FIFO is read once: peeking would eat a capture's first bytes (or wait for a writer) */
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	char magic[sizeof(RT_PARTIAL_MAGIC) - 1];
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return false;
	bool is = fread(magic, 1, sizeof(magic), fp) == sizeof(magic) &&
	          !memcmp(magic, RT_PARTIAL_MAGIC, sizeof(magic));
	fclose(fp);
	return is;
}
