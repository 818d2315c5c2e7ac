/* Runs the dissector fuzz target over every file of a corpus directory, without libFuzzer. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read all of `path` into a malloc'd buffer of exactly its size. */
static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *fp = fopen(path, "rb");
	long n;

	if (!fp)
		return -errno;
	if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
		fclose(fp);
		return -EIO;
	}
	*data = malloc(n ? (size_t)n : 1);
	if (!*data) {
		fclose(fp);
		return -ENOMEM;
	}
	if (fread(*data, 1, (size_t)n, fp) != (size_t)n) {
		free(*data);
		fclose(fp);
		return -EIO;
	}
	fclose(fp);
	*size = (size_t)n;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned files = 0;
	struct dirent *de;
	DIR *dir;

	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	dir = opendir(argv[1]);
	if (!dir) {
		fprintf(stderr, "replay: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while ((de = readdir(dir)) != NULL) {
		char path[4096];
		uint8_t *data = NULL;
		size_t size = 0;
		int err;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
		err = read_file(path, &data, &size);
		if (err) {
			fprintf(stderr, "replay: %s: %s\n", path, strerror(-err));
			closedir(dir);
			return 1;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		files++;
	}
	closedir(dir);
	if (files == 0) {
		fprintf(stderr, "replay: %s: no corpus files\n", argv[1]);
		return 1;
	}
	printf("replayed %u inputs\n", files);
	return 0;
}
