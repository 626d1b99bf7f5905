#include "input.h"

#include <string.h>
#include <sys/stat.h>

#include "../parser/source.h"

static void to_pipeline(void *ctx, const char *p, size_t n)
{
	pipeline_feed(ctx, p, n);
}

void input_name(const char *path, redactor *rd, strbuf *name)
{
	bool std = strcmp(path, "-") == 0;
	if (rd && !std)
		redact_name(rd, path, name);
	else
		sb_adds(name, std ? "<stdin>" : path);
}

int input_read_into(const char *path, int file, model *m, ruleset *rs, redactor *rd, const structured_kind **kind,
		    strbuf *err)
{
	source *src = source_open(path, err);
	if (!src)
		return -1;
	const char *buf;
	ssize_t n = source_next(src, &buf, err);
	/* told by the chunk the reader has: the file is opened once */
	if (kind && n > 0 && source_regular(src) && (*kind = structured_sniff_chunk(buf, (size_t)n))) {
		source_close(src);
		return 0;
	}
	pipeline p;
	pipeline_begin(&p, m, rs, file);
	redact_stream red;
	if (rd)
		redact_stream_begin(&red, rd, false, to_pipeline, &p);
	int rc = 0;
	for (; n > 0; n = source_next(src, &buf, err)) {
		if (rd)
			redact_stream_feed(&red, buf, (size_t)n);
		else
			pipeline_feed(&p, buf, (size_t)n);
	}
	if (n < 0)
		rc = -1;
	if (rd)
		redact_stream_end(&red);
	pipeline_end(&p);
	source_close(src);
	return rc;
}

int input_read_redacted(const char *path, model *m, ruleset *rs, redactor *rd, strbuf *err)
{
	strbuf name = { 0 };
	input_name(path, rd, &name);
	int file = model_add_input(m, name.p);
	sb_free(&name);
	return input_read_into(path, file, m, rs, rd, NULL, err);
}

int input_read(const char *path, model *m, ruleset *rs, strbuf *err)
{
	return input_read_redacted(path, m, rs, NULL, err);
}

int input_learn(const char *path, redactor *rd, strbuf *err)
{
	/* a FIFO (or a device) can be read only once: it is learned as it is
	 * read, as standard input is */
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return 0;
	source *src = source_open(path, err);
	if (!src)
		return -1;
	redact_stream st;
	redact_stream_begin(&st, rd, true, NULL, NULL);
	int rc = 0;
	for (;;) {
		const char *buf;
		ssize_t n = source_next(src, &buf, err);
		if (n < 0)
			rc = -1;
		if (n <= 0)
			break;
		redact_stream_feed(&st, buf, (size_t)n);
	}
	redact_stream_end(&st);
	source_close(src);
	return rc;
}
