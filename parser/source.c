#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define OUT_CHUNK (256u * 1024u)
#define IN_CHUNK (64u * 1024u)

struct source {
	char *path;
	int fd;
	bool std;
	enum source_kind kind;
	unsigned char *in;
	size_t in_len, in_pos; /* bytes read, bytes consumed */
	bool eof;
	char *out;
	bool sniffed_pending; /* plain: the sniffed bytes are the first chunk */
	z_stream z;
	bool member_done;
	ZSTD_DStream *zs;
	size_t zret; /* 0 when the last zstd frame was complete */
};

static int fail(source *s, strbuf *err, const char *why)
{
	sb_printf(err, "%s: %s", s->path, why);
	return -1;
}

/* Reads more input; sets eof at the end. Called once all input is
 * consumed, or while the magic is sniffed (less than 4 bytes read). */
static int refill(source *s, strbuf *err)
{
	if (s->in_pos == s->in_len)
		s->in_pos = s->in_len = 0;
	for (;;) {
		ssize_t n = read(s->fd, s->in + s->in_len, IN_CHUNK - s->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(s, err, strerror(errno));
		if (n == 0)
			s->eof = true;
		s->in_len += (size_t)n;
		return 0;
	}
}

source *source_open(const char *path, strbuf *err)
{
	bool std = strcmp(path, "-") == 0;
	int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		sb_printf(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		sb_printf(err, "%s: is a directory", path);
		if (!std)
			close(fd);
		return NULL;
	}
	/* O_NONBLOCK only guarded the open of a FIFO; reads may block. */
	if (!std)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	source *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(std ? "<stdin>" : path);
	s->fd = fd;
	s->std = std;
	s->in = xmalloc(IN_CHUNK);
	s->out = xmalloc(OUT_CHUNK);
	/* a pipe may hand over the magic one byte at a time */
	while (s->in_len < 4 && !s->eof)
		if (refill(s, err) != 0) {
			source_close(s);
			return NULL;
		}
	const unsigned char *b = s->in;
	if (s->in_len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
		s->kind = SOURCE_GZIP;
		if (inflateInit2(&s->z, 15 + 16) != Z_OK) {
			sb_printf(err, "%s: cannot start gzip decompression", s->path);
			source_close(s);
			return NULL;
		}
	} else if (s->in_len >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) {
		s->kind = SOURCE_ZSTD;
		s->zs = ZSTD_createDStream();
		if (!s->zs || ZSTD_isError(ZSTD_initDStream(s->zs))) {
			sb_printf(err, "%s: cannot start zstd decompression", s->path);
			source_close(s);
			return NULL;
		}
		s->zret = 1;
	} else {
		s->kind = SOURCE_PLAIN;
		s->sniffed_pending = true;
	}
	return s;
}

static ssize_t next_plain(source *s, const char **p, strbuf *err)
{
	if (s->sniffed_pending) {
		s->sniffed_pending = false;
		if (s->in_len) {
			*p = (const char *)s->in;
			s->in_pos = s->in_len;
			return (ssize_t)s->in_len;
		}
	}
	for (;;) {
		ssize_t n = read(s->fd, s->out, OUT_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(s, err, strerror(errno));
		*p = s->out;
		return n;
	}
}

static ssize_t next_gzip(source *s, const char **p, strbuf *err)
{
	for (;;) {
		if (s->in_pos == s->in_len && !s->eof && refill(s, err) != 0)
			return -1;
		size_t avail = s->in_len - s->in_pos;
		if (s->member_done) {
			/* another gzip member follows (cat a.gz b.gz); anything else ends it, as gzip -d does */
			if (!avail || s->in[s->in_pos] != 0x1f)
				return 0;
			inflateReset(&s->z);
			s->member_done = false;
		}
		if (!avail && s->eof)
			return fail(s, err, "truncated gzip data");
		s->z.next_in = s->in + s->in_pos;
		s->z.avail_in = (uInt)avail;
		s->z.next_out = (Bytef *)s->out;
		s->z.avail_out = OUT_CHUNK;
		int rc = inflate(&s->z, Z_NO_FLUSH);
		s->in_pos = s->in_len - s->z.avail_in;
		if (rc == Z_STREAM_END)
			s->member_done = true;
		else if (rc == Z_BUF_ERROR && s->eof && s->in_pos == s->in_len)
			return fail(s, err, "truncated gzip data");
		else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			strbuf why = { 0 };
			sb_printf(&why, "corrupt gzip data (%s)", s->z.msg ? s->z.msg : zError(rc));
			fail(s, err, why.p);
			sb_free(&why);
			return -1;
		}
		size_t n = OUT_CHUNK - s->z.avail_out;
		if (n) {
			*p = s->out;
			return (ssize_t)n;
		}
	}
}

static ssize_t next_zstd(source *s, const char **p, strbuf *err)
{
	for (;;) {
		if (s->in_pos == s->in_len && !s->eof && refill(s, err) != 0)
			return -1;
		size_t avail = s->in_len - s->in_pos;
		if (!avail && s->eof) {
			if (s->zret != 0)
				return fail(s, err, "truncated zstd data");
			return 0;
		}
		ZSTD_inBuffer ib = { s->in + s->in_pos, avail, 0 };
		ZSTD_outBuffer ob = { s->out, OUT_CHUNK, 0 };
		size_t rc = ZSTD_decompressStream(s->zs, &ob, &ib);
		s->in_pos += ib.pos;
		if (ZSTD_isError(rc)) {
			strbuf why = { 0 };
			sb_printf(&why, "corrupt zstd data (%s)", ZSTD_getErrorName(rc));
			fail(s, err, why.p);
			sb_free(&why);
			return -1;
		}
		s->zret = rc;
		if (ob.pos) {
			*p = s->out;
			return (ssize_t)ob.pos;
		}
	}
}

ssize_t source_next(source *s, const char **p, strbuf *err)
{
	switch (s->kind) {
	case SOURCE_GZIP:
		return next_gzip(s, p, err);
	case SOURCE_ZSTD:
		return next_zstd(s, p, err);
	default:
		return next_plain(s, p, err);
	}
}

enum source_kind source_kind_of(const source *s)
{
	return s->kind;
}

const char *source_kind_name(enum source_kind k)
{
	return k == SOURCE_GZIP ? "gzip" : k == SOURCE_ZSTD ? "zstd" : "plain";
}

void source_close(source *s)
{
	if (!s)
		return;
	if (s->kind == SOURCE_GZIP)
		inflateEnd(&s->z);
	ZSTD_freeDStream(s->zs);
	if (!s->std)
		close(s->fd);
	free(s->in);
	free(s->out);
	free(s->path);
	free(s);
}
