#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK (256u * 1024u)

int input_read(const char *path, model *m, ruleset *rs, strbuf *err)
{
	bool std = strcmp(path, "-") == 0;
	int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
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
	/* O_NONBLOCK only guarded the open of a FIFO; reads may block. */
	if (!std)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	int file = model_add_input(m, std ? "<stdin>" : path);
	pipeline p;
	pipeline_begin(&p, m, rs, file);
	char *buf = xmalloc(READ_CHUNK);
	int rc = 0;
	for (;;) {
		ssize_t n = read(fd, buf, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sb_printf(err, "%s: %s", path, strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0)
			break;
		pipeline_feed(&p, buf, (size_t)n);
	}
	pipeline_end(&p);
	free(buf);
	if (!std)
		close(fd);
	return rc;
}
