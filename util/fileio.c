#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLURP_MAX (64u << 20)

const char *file_kind_name(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* Reads fd to its end and closes it. */
static int slurp_fd(int fd, const char *path, char **out, size_t *len, strbuf *err)
{
	strbuf b = { 0 };
	char tmp[65536];
	for (;;) {
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			sb_printf(err, "%s: %s", path, strerror(errno));
			sb_free(&b);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		if (b.n + (size_t)r > SLURP_MAX) {
			sb_printf(err, "%s: too large", path);
			sb_free(&b);
			close(fd);
			return -1;
		}
		sb_add(&b, tmp, (size_t)r);
	}
	close(fd);
	*len = b.n;
	*out = sb_take(&b);
	return 0;
}

int file_slurp(const char *path, char **out, size_t *len, strbuf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sb_printf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		sb_printf(err, "%s: is a directory", path);
		close(fd);
		return -1;
	}
	return slurp_fd(fd, path, out, len, err);
}

static int not_regular(const char *path, mode_t m, strbuf *err)
{
	sb_printf(err, "%s: is %s, not a regular file", path, file_kind_name(m));
	return -1;
}

int file_slurp_regular(const char *path, char **out, size_t *len, strbuf *err)
{
	/* stat first: opening a device can have effects of its own */
	struct stat st;
	if (stat(path, &st) != 0) {
		sb_printf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		return not_regular(path, st.st_mode, err);
	/* O_NONBLOCK: should the path become a FIFO in between, open must not
	 * wait for a writer; fstat then refuses it */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		sb_printf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		sb_printf(err, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return not_regular(path, st.st_mode, err);
	}
	return slurp_fd(fd, path, out, len, err);
}
