#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Bytes a read hands over: the pipeline passes over a chunk several times
 * (markup, lines, literals, the lines' own reads), so it stays in the
 * second-level cache with the line memo and the tables beside it. 64 KiB
 * ran 4-6% faster than 256 KiB, and as fast as 32 or 128. */
#define OUT_CHUNK (64u * 1024u)
#define PAGE 4096u

struct source {
	char *path;
	int fd;           /* -1 for a memory buffer */
	bool std;
	bool regular;     /* a regular file: a short read is its end */
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	enum source_kind kind;
	unsigned char *in, *in_mem; /* in: page-aligned inside in_mem (a plain input's: out) */
	size_t in_cap, in_len, in_pos; /* its size, bytes read, bytes consumed */
	bool eof;
	char *out;
	unsigned char *out_mem;
	bool sniffed_pending; /* plain: the sniffed bytes are the first chunk */
	z_stream z;
	bool member_done;
	ZSTD_DStream *zs;
	size_t zret;      /* 0 when the last zstd frame was complete */
	strbuf damage;    /* an error found after data still to hand over */
	bool done;        /* the end or an error was reported */
};

static int fail(source *s, strbuf *err, const char *why)
{
	sb_printf(err, "%s: %s", s->path, why);
	s->done = true;
	return -1;
}

/* Reads up to n bytes from the file or the buffer. */
static ssize_t read_some(source *s, void *p, size_t n)
{
	if (s->fd < 0) {
		size_t k = s->mem_len - s->mem_pos < n ? s->mem_len - s->mem_pos : n;
		memcpy(p, s->mem + s->mem_pos, k);
		s->mem_pos += k;
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t r = read(s->fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		/* no read of a regular file returns less than asked but at its
		 * end: the read that would find the end is a system call saved
		 * on each of thousands of rank files */
		if (r >= 0 && (size_t)r < n && s->regular)
			s->eof = true;
		return r;
	}
}

/* Reads more input; sets eof at the end. Called once all input is
 * consumed, or while the magic is sniffed (less than 4 bytes read). */
static int refill(source *s, strbuf *err)
{
	if (s->in_pos == s->in_len)
		s->in_pos = s->in_len = 0;
	if (s->eof)
		return 0;
	ssize_t n = read_some(s, s->in + s->in_len, s->in_cap - s->in_len);
	if (n < 0)
		return fail(s, err, strerror(errno));
	if (n == 0)
		s->eof = true;
	s->in_len += (size_t)n;
	return 0;
}

/* A FIFO opened without a writer reads as empty; poll waits until a writer
 * has come (and written, or gone), so a late writer is read. */
static void wait_writer(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

/* The zstd magic numbers: a frame (and the legacy v0.2..v0.7 ones, read
 * when libzstd was built with them), or a skippable frame 0x184D2A5? that
 * pzstd and the seekable format put first or last. */
static bool zstd_magic(const unsigned char *b, size_t n)
{
	if (n < 4)
		return false;
	if (b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
		return b[0] == 0x28 || (b[0] >= 0x22 && b[0] <= 0x27);
	return (b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18;
}

/* A buffer that read(2) fills, page-aligned inside *mem: the kernel's copy
 * to a misaligned destination ran at a third of the speed. From the heap,
 * not aligned_alloc, which maps (and zeroes) fresh pages for each file. */
static unsigned char *read_buffer(size_t n, unsigned char **mem)
{
	*mem = xmalloc(n + PAGE);
	return *mem + (PAGE - (uintptr_t)*mem % PAGE) % PAGE;
}

static source *start(source *s, strbuf *err)
{
	/* the first bytes are read where a plain input's chunks go: a plain
	 * input (most are) takes one buffer, and a small file one read */
	s->out = (char *)read_buffer(OUT_CHUNK, &s->out_mem);
	s->in = (unsigned char *)s->out;
	s->in_cap = OUT_CHUNK;
	/* a pipe may hand over the magic one byte at a time */
	while (s->in_len < 4 && !s->eof)
		if (refill(s, err) != 0) {
			source_close(s);
			return NULL;
		}
	const unsigned char *b = s->in;
	if ((s->in_len >= 2 && b[0] == 0x1f && b[1] == 0x8b) || zstd_magic(b, s->in_len)) {
		/* compressed: what was read is the input, and decoding needs a
		 * buffer of its own */
		s->in_mem = s->out_mem;
		s->out = (char *)read_buffer(OUT_CHUNK, &s->out_mem);
	}
	if (s->in_len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
		s->kind = SOURCE_GZIP;
		if (inflateInit2(&s->z, 15 + 16) != Z_OK) {
			sb_printf(err, "%s: cannot start gzip decompression", s->path);
			source_close(s);
			return NULL;
		}
	} else if (zstd_magic(b, s->in_len)) {
		s->kind = SOURCE_ZSTD;
		s->zs = ZSTD_createDStream();
		if (!s->zs || ZSTD_isError(ZSTD_initDStream(s->zs)) ||
		    ZSTD_isError(ZSTD_DCtx_setParameter(s->zs, ZSTD_d_windowLogMax, SOURCE_ZSTD_WINDOW_LOG_MAX))) {
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

source *source_open(const char *path, strbuf *err)
{
	bool std = strcmp(path, "-") == 0;
	/* O_NONBLOCK: the open of a FIFO must not wait here (see wait_writer) */
	int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		sb_printf(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	bool fstat_ok = fstat(fd, &st) == 0;
	if (fstat_ok && S_ISDIR(st.st_mode)) {
		sb_printf(err, "%s: is a directory", path);
		if (!std)
			close(fd);
		return NULL;
	}
	/* reads of a regular file never wait, O_NONBLOCK or not: two system
	 * calls a file saved (a job may leave thousands) */
	if (!std && !(fstat_ok && S_ISREG(st.st_mode))) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		if (fstat_ok && S_ISFIFO(st.st_mode))
			wait_writer(fd);
	}
	source *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(std ? "<stdin>" : path);
	s->fd = fd;
	s->std = std;
	s->regular = !std && fstat_ok && S_ISREG(st.st_mode);
	return start(s, err);
}

source *source_open_mem(const char *name, const void *p, size_t n, strbuf *err)
{
	source *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(name);
	s->fd = -1;
	s->mem = p;
	s->mem_len = n;
	return start(s, err);
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
	if (s->eof)
		return 0;
	ssize_t n = read_some(s, s->out, OUT_CHUNK);
	if (n < 0)
		return fail(s, err, strerror(errno));
	if (n == 0)
		s->eof = true;
	*p = s->out;
	return n;
}

/* Notes damage found while n decoded bytes wait: they go first. */
static ssize_t damaged(source *s, const char **p, size_t n, strbuf *err, const char *why)
{
	if (!n)
		return fail(s, err, why);
	sb_adds(&s->damage, why);
	*p = s->out;
	return (ssize_t)n;
}

static ssize_t next_gzip(source *s, const char **p, strbuf *err)
{
	for (;;) {
		if (s->in_pos == s->in_len && !s->eof && refill(s, err) != 0)
			return -1;
		size_t avail = s->in_len - s->in_pos;
		if (s->member_done) {
			/* another gzip member follows (cat a.gz b.gz); anything else is
			 * garbage, which gzip -d also warns about */
			if (!avail)
				return 0;
			if (s->in[s->in_pos] != 0x1f)
				return fail(s, err, "trailing garbage after the gzip data, ignored");
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
		size_t n = OUT_CHUNK - s->z.avail_out;
		if (rc == Z_STREAM_END) {
			s->member_done = true;
		} else if (rc == Z_BUF_ERROR && s->eof && s->in_pos == s->in_len) {
			return damaged(s, p, n, err, "truncated gzip data");
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			/* a CRC or length error comes after the member's last bytes:
			 * they are handed over, then the error */
			strbuf why = { 0 };
			sb_printf(&why, "corrupt gzip data (%s)", s->z.msg ? s->z.msg : zError(rc));
			ssize_t r = damaged(s, p, n, err, why.p);
			sb_free(&why);
			return r;
		}
		if (n) {
			*p = s->out;
			return (ssize_t)n;
		}
	}
}

static const char *zstd_why(size_t rc, strbuf *why)
{
	switch (ZSTD_getErrorCode(rc)) {
	case ZSTD_error_frameParameter_windowTooLarge:
		sb_printf(why, "a zstd frame needs a decoding window above the %u MiB limit",
			  1u << (SOURCE_ZSTD_WINDOW_LOG_MAX - 20));
		break;
	case ZSTD_error_memory_allocation:
		sb_adds(why, "not enough memory for the zstd decoding window");
		break;
	default:
		sb_printf(why, "corrupt zstd data (%s)", ZSTD_getErrorName(rc));
	}
	return why->p;
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
			ssize_t r = damaged(s, p, ob.pos, err, zstd_why(rc, &why));
			sb_free(&why);
			return r;
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
	if (s->damage.n) {
		ssize_t r = fail(s, err, s->damage.p);
		sb_clear(&s->damage);
		return r;
	}
	if (s->done)
		return 0;
	switch (s->kind) {
	case SOURCE_GZIP:
		return next_gzip(s, p, err);
	case SOURCE_ZSTD:
		return next_zstd(s, p, err);
	default:
		return next_plain(s, p, err);
	}
}

bool source_regular(const source *s)
{
	return s->regular;
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
	if (!s->std && s->fd >= 0)
		close(s->fd);
	free(s->in_mem);
	free(s->out_mem);
	free(s->path);
	sb_free(&s->damage);
	free(s);
}
