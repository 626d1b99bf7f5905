#include "load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOAD_CHUNK (256u * 1024u)

uint64_t load_total(char **paths, size_t n)
{
	uint64_t total = 0;
	struct stat st;
	for (size_t i = 0; i < n; i++)
		if (stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
			total += (uint64_t)st.st_size;
	return total;
}

/* The next line starts at a known place between chunks unless the tail of
 * a cut line is being skipped. */
static void checkpoint(const pipeline *p, lineidx *x)
{
	if (p->ls.skipping)
		return;
	lineidx_mark(x, p->ls.lineno + 1, p->ls.ncarry ? p->ls.carry_off : p->ls.pos);
}

static int open_checked(const char *path, strbuf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		/* read-back by offset needs a regular file */
		if (fd >= 0)
			close(fd);
		sb_printf(err, "%s: %s\n", path, fd < 0 ? strerror(errno) : "not a regular file");
		return -1;
	}
	unsigned char magic[4] = { 0 };
	if (pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic &&
	    ((magic[0] == 0x1f && magic[1] == 0x8b) ||
	     (magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd))) {
		/* raw lines are read back by offset into the file itself */
		sb_printf(err, "%s: compressed; view needs it decompressed (zcat or zstdcat it to a file)\n", path);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int load_check(const char *path, strbuf *err)
{
	int fd = open_checked(path, err);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int load_one(model *m, ruleset *rs, const char *path, lineidx *idx, char *buf, uint64_t *done,
		    uint64_t total, load_progress_fn progress, void *ctx, strbuf *err)
{
	int fd = open_checked(path, err);
	if (fd < 0)
		return 0;
	pipeline p;
	int file = model_add_input(m, path);
	lineidx *x = &idx[file];
	lineidx_init(x, path);
	pipeline_begin(&p, m, rs, file);
	int rc = 1;
	for (;;) {
		ssize_t n = read(fd, buf, LOAD_CHUNK);
		if (n < 0 && errno == EINTR) {
			if (progress && !progress(ctx, *done, total, path)) {
				rc = -1;
				break;
			}
			continue;
		}
		if (n < 0) {
			sb_printf(err, "%s: %s\n", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		pipeline_feed(&p, buf, (size_t)n);
		checkpoint(&p, x);
		*done += (uint64_t)n;
		if (progress && !progress(ctx, *done, total, path)) {
			rc = -1;
			break;
		}
	}
	pipeline_end(&p);
	x->lines = m->in[p.file].lines;
	close(fd);
	return rc;
}

int load_files(model *m, ruleset *rs, char **paths, size_t n, lineidx *idx, load_progress_fn progress,
	       void *ctx, strbuf *err)
{
	uint64_t total = load_total(paths, n), done = 0;
	char *buf = xmalloc(LOAD_CHUNK);
	int nread = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = load_one(m, rs, paths[i], idx, buf, &done, total, progress, ctx, err);
		if (rc < 0) {
			nread = -1;
			break;
		}
		nread += rc;
	}
	free(buf);
	return nread;
}
