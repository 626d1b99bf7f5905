#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		if (b.n + (size_t)r > (64u << 20)) {
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
