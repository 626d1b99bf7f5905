/* Decompression over memory: every zstd frame form (skippable first, as
 * pzstd writes, a seek table last, a 2 GiB window), a window above the
 * cap, and damage after data: gzip CRC and length errors, truncation and
 * trailing garbage keep every byte decoded before them and then fail. */
#include <malloc.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "../../parser/source.h"
#include "check.h"

/* What a source gave: its bytes, and the error that ended it, if any. */
typedef struct drained {
	strbuf data, err;
	int errors;
	enum source_kind kind;
} drained;

static drained drain(const void *p, size_t n)
{
	drained d = { 0 };
	source *s = source_open_mem("mem", p, n, &d.err);
	if (!s) {
		d.errors = 1;
		return d;
	}
	d.kind = source_kind_of(s);
	for (int guard = 0; guard < 100000; guard++) {
		const char *buf;
		ssize_t k = source_next(s, &buf, &d.err);
		if (k < 0)
			d.errors++;
		if (k <= 0)
			break;
		sb_add(&d.data, buf, (size_t)k);
	}
	/* the end stays the end: no second error, no more data */
	const char *buf;
	if (source_next(s, &buf, &d.err) != 0)
		d.errors += 100;
	source_close(s);
	return d;
}

static void drained_free(drained *d)
{
	sb_free(&d->data);
	sb_free(&d->err);
}

static bool same(const drained *d, const strbuf *want)
{
	return d->data.n == want->n && memcmp(d->data.p, want->p, want->n) == 0;
}

/* A log-like text of about n bytes. */
static void text(strbuf *b, size_t n)
{
	for (unsigned i = 0; b->n < n; i++)
		sb_printf(b, "node-a:%u:%u [0] NCCL INFO Channel %02u/24 : 0 1 2 3 4 5 6 7\n", 1000 + i % 7, 2000 + i,
			  i % 24);
}

static void gzip_of(const strbuf *in, strbuf *out)
{
	z_stream z = { 0 };
	deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	size_t cap = deflateBound(&z, in->n) + 64;
	sb_clear(out);
	for (size_t i = 0; i < cap; i++)
		sb_addc(out, 0);
	z.next_in = (Bytef *)in->p;
	z.avail_in = (uInt)in->n;
	z.next_out = (Bytef *)out->p;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	out->n = cap - z.avail_out;
	deflateEnd(&z);
}

/* A zstd frame with the given window log, content size not declared (so the
 * window is what the frame asks for, as with `zstd --long=31` on a pipe). */
static void zstd_of(const strbuf *in, int wlog, strbuf *out)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, wlog);
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
	size_t cap = ZSTD_compressBound(in->n) + 64;
	char *buf = xmalloc(cap);
	ZSTD_outBuffer ob = { buf, cap, 0 };
	ZSTD_inBuffer ib = { in->p, in->n, 0 };
	ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_continue);
	while (ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end) != 0)
		;
	sb_add(out, buf, ob.pos);
	free(buf);
	ZSTD_freeCCtx(c);
}

static void le32(strbuf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		sb_addc(b, (char)(v >> (8 * i)));
}

static void skippable(strbuf *b, uint32_t magic, const char *payload, size_t n)
{
	le32(b, magic);
	le32(b, (uint32_t)n);
	sb_add(b, payload, n);
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	/* meson sets MALLOC_PERTURB_, which would write the whole 2 GiB window
	 * the decoder allocates; only the pages used should be touched */
	mallopt(M_PERTURB, 0);
	strbuf log = { 0 }, z = { 0 }, t = { 0 };
	text(&log, 300000);

	/* plain, from memory */
	drained d = drain(log.p, log.n);
	CHECK(c, d.kind == SOURCE_PLAIN && same(&d, &log) && !d.errors, "plain: %zu bytes, %d errors", d.data.n, d.errors);
	drained_free(&d);

	/* zstd: a plain frame, then with a skippable frame first (any of the
	 * 16 magics), as pzstd writes (its size header), and with a seek table */
	zstd_of(&log, 20, &z);
	d = drain(z.p, z.n);
	CHECK(c, d.kind == SOURCE_ZSTD && same(&d, &log) && !d.errors, "zstd: %s", d.err.p ? d.err.p : "");
	drained_free(&d);
	for (uint32_t m = 0x184D2A50; m <= 0x184D2A5F; m += 5) {
		sb_clear(&t);
		skippable(&t, m, "user data", 9);
		sb_add(&t, z.p, z.n);
		d = drain(t.p, t.n);
		CHECK(c, d.kind == SOURCE_ZSTD && same(&d, &log) && !d.errors, "skippable %08x first: kind %d, %zu bytes, %s",
		      m, d.kind, d.data.n, d.err.p ? d.err.p : "");
		drained_free(&d);
	}
	sb_clear(&t);
	char size[4] = { 0 };
	for (int i = 0; i < 4; i++)
		size[i] = (char)(z.n >> (8 * i));
	skippable(&t, 0x184D2A50, size, 4);
	sb_add(&t, z.p, z.n);
	sb_add(&t, z.p, z.n); /* a second pzstd frame, here without its header */
	strbuf twice = { 0 };
	sb_add(&twice, log.p, log.n);
	sb_add(&twice, log.p, log.n);
	d = drain(t.p, t.n);
	CHECK(c, same(&d, &twice) && !d.errors, "pzstd: %zu bytes, %s", d.data.n, d.err.p ? d.err.p : "");
	drained_free(&d);
	sb_clear(&t);
	sb_add(&t, z.p, z.n);
	strbuf seek = { 0 };
	le32(&seek, (uint32_t)z.n);
	le32(&seek, (uint32_t)log.n);
	le32(&seek, 1);
	sb_addc(&seek, 0);
	le32(&seek, 0x8F92EAB1);
	skippable(&t, 0x184D2A5E, seek.p, seek.n);
	d = drain(t.p, t.n);
	CHECK(c, same(&d, &log) && !d.errors, "seekable: %zu bytes, %s", d.data.n, d.err.p ? d.err.p : "");
	drained_free(&d);
	sb_free(&seek);

	/* a 2 GiB window is valid zstd */
	sb_clear(&z);
	zstd_of(&log, 31, &z);
	d = drain(z.p, z.n);
	CHECK(c, same(&d, &log) && !d.errors, "2 GiB window: %zu bytes, %s", d.data.n, d.err.p ? d.err.p : "");
	drained_free(&d);
	/* a frame asking for 4 GiB: a clear error, not "corrupt" */
	static const unsigned char huge[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, 22 << 3, 0x01, 0x00, 0x00 };
	d = drain(huge, sizeof huge);
	CHECK(c, d.errors == 1 && d.err.p && strstr(d.err.p, "mem: a zstd frame needs a decoding window above the 2048 MiB"),
	      "4 GiB window: %d errors, %s", d.errors, d.err.p ? d.err.p : "");
	drained_free(&d);

	/* gzip: a CRC error, a length error, truncation: the data comes first */
	strbuf small = { 0 };
	sb_adds(&small, "node-a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\nlast line\n");
	gzip_of(&small, &z);
	const char *why[] = { "incorrect data check", "incorrect length check" };
	for (int k = 0; k < 2; k++) {
		sb_clear(&t);
		sb_add(&t, z.p, z.n);
		t.p[t.n - 8 + 4 * k] ^= 0x5a;
		d = drain(t.p, t.n);
		CHECK(c, same(&d, &small) && d.errors == 1 && d.err.p && strstr(d.err.p, why[k]),
		      "gzip %s: %zu of %zu bytes, %d errors, %s", why[k], d.data.n, small.n, d.errors, d.err.p ? d.err.p : "");
		drained_free(&d);
	}
	d = drain(z.p, z.n - 3);
	CHECK(c, same(&d, &small) && d.errors == 1 && d.err.p && strstr(d.err.p, "truncated gzip data"),
	      "gzip without its trailer: %zu bytes, %s", d.data.n, d.err.p ? d.err.p : "");
	drained_free(&d);
	/* another member is read on; anything else is reported */
	sb_clear(&t);
	sb_add(&t, z.p, z.n);
	sb_add(&t, z.p, z.n);
	sb_clear(&twice);
	sb_add(&twice, small.p, small.n);
	sb_add(&twice, small.p, small.n);
	d = drain(t.p, t.n);
	CHECK(c, same(&d, &twice) && !d.errors, "two gzip members: %s", d.err.p ? d.err.p : "");
	drained_free(&d);
	sb_clear(&t);
	sb_add(&t, z.p, z.n);
	sb_add(&t, "\0\0\0\0garbage", 11);
	d = drain(t.p, t.n);
	CHECK(c, same(&d, &small) && d.errors == 1 && d.err.p && strstr(d.err.p, "trailing garbage"),
	      "gzip with trailing garbage: %d errors, %s", d.errors, d.err.p ? d.err.p : "");
	drained_free(&d);
	/* zstd with a bad checksum fails (libzstd checks it before it hands over
	 * a frame decoded in one go, so that frame's bytes are not kept) */
	ZSTD_CCtx *cx = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, 1);
	sb_clear(&z);
	for (size_t i = 0; i < ZSTD_compressBound(small.n); i++)
		sb_addc(&z, 0);
	z.n = ZSTD_compress2(cx, z.p, z.n, small.p, small.n);
	ZSTD_freeCCtx(cx);
	z.p[z.n - 1] ^= 0x5a;
	d = drain(z.p, z.n);
	CHECK(c, d.errors == 1 && d.err.p && strstr(d.err.p, "mem: corrupt zstd data"), "zstd checksum: %d errors, %s",
	      d.errors, d.err.p ? d.err.p : "");
	drained_free(&d);

	/* short and empty inputs are plain */
	d = drain("x", 1);
	CHECK(c, d.kind == SOURCE_PLAIN && d.data.n == 1 && !d.errors, "one byte");
	drained_free(&d);
	d = drain("", 0);
	CHECK(c, d.kind == SOURCE_PLAIN && d.data.n == 0 && !d.errors, "empty");
	drained_free(&d);

	sb_free(&log);
	sb_free(&z);
	sb_free(&t);
	sb_free(&twice);
	sb_free(&small);
	return check_done(c, "source");
}
