#include "input.h"

#include <string.h>

#include "../parser/source.h"

int input_read(const char *path, model *m, ruleset *rs, strbuf *err)
{
	source *src = source_open(path, err);
	if (!src)
		return -1;
	int file = model_add_input(m, strcmp(path, "-") == 0 ? "<stdin>" : path);
	pipeline p;
	pipeline_begin(&p, m, rs, file);
	int rc = 0;
	for (;;) {
		const char *buf;
		ssize_t n = source_next(src, &buf, err);
		if (n < 0)
			rc = -1;
		if (n <= 0)
			break;
		pipeline_feed(&p, buf, (size_t)n);
	}
	pipeline_end(&p);
	source_close(src);
	return rc;
}
