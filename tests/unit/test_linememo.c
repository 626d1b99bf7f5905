/* The line memo: a line is kept when it is missed a second time; a hit
 * is the exact line that was kept, never a hash alone; a reference to a
 * line goes stale when its entry takes another; the record it gives is
 * the parser's; it looks lines up on every line only while they repeat. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/linememo.h"
#include "check.h"

static gatehits hits_of(int a, int b)
{
	gatehits g = { .n = 2, .hint = true };
	g.cand[0] = a;
	g.cand[1] = b;
	return g;
}

/* A line missed twice: the first miss only marks it. */
static void keep(linememo *lm, slice s, uint64_t h, const gatehits *g, memoref *ref)
{
	*ref = (memoref){ 0 };
	linememo_put(lm, s, h, g, ref);
	if (!ref->e)
		linememo_put(lm, s, h, g, ref);
}

static void test_missed_twice(checks *c)
{
	linememo *lm = linememo_new();
	slice a = slice_from("host1:101:201 [0] NCCL INFO Connected all rings");
	uint64_t h = linememo_hash(lm, a);
	gatehits g = hits_of(1, 2);
	memoref ref = { 0 }, got;
	linememo_put(lm, a, h, &g, &ref);
	CHECK(c, !ref.e && !linememo_find(lm, a, h, &got), "a line missed once is not kept");
	linememo_put(lm, a, h, &g, &ref);
	CHECK(c, ref.e && linememo_find(lm, a, h, &got), "missed again, it is");
	/* lines met once each: few are kept (where the filter's bits collide),
	 * so that they do not push out the one that repeats */
	char line[96];
	int kept = 0;
	for (int i = 0; i < 20000; i++) {
		snprintf(line, sizeof line, "host1:101:201 [0] NCCL INFO comm 0x%x rank 0 - Init START", 0x7f00 + i);
		slice s = slice_from(line);
		memoref r = { 0 };
		linememo_put(lm, s, linememo_hash(lm, s), &g, &r);
		kept += r.e != NULL;
		if (i == 50)
			CHECK(c, linememo_find(lm, a, h, &got), "after 50 lines met once, the line that repeats is there");
	}
	CHECK(c, kept < 20000 / 10, "lines met once kept: %d of 20000", kept);
	linememo_free(lm);
}

static void test_exact(checks *c)
{
	linememo *lm = linememo_new();
	slice a = slice_from("host1:101:201 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read");
	slice b = slice_from("host1:101:201 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC/read");
	uint64_t ha = linememo_hash(lm, a), hb = linememo_hash(lm, b);
	memoref ref = { 0 };
	CHECK(c, ha && hb && ha != hb && linememo_hash(lm, a) == ha, "the hash is the line's, never 0");
	CHECK(c, !linememo_find(lm, a, ha, &ref) && !ref.e, "nothing is kept at first");
	gatehits g = hits_of(3, 7);
	keep(lm, a, ha, &g, &ref);
	CHECK(c, ref.e != NULL, "a kept line has a reference");
	memoref found = { 0 };
	const gatehits *got = linememo_find(lm, a, ha, &found);
	CHECK(c, got && got->n == 2 && got->cand[0] == 3 && got->cand[1] == 7 && got->hint && !got->overflow,
	      "the gate's answer comes back as it was put");
	CHECK(c, found.e == ref.e && found.ver == ref.ver, "found, the reference is to the entry kept");
	/* a hash that collides in full: the line still decides */
	CHECK(c, !linememo_find(lm, b, ha, &found), "another line under the same hash is a miss");
	CHECK(c, !linememo_find(lm, (slice){ a.p, a.n - 1 }, ha, &found), "a shorter line under the same hash is a miss");
	gatehits over = hits_of(1, 2);
	over.overflow = true;
	memoref none = { 0 };
	keep(lm, b, hb, &over, &none);
	CHECK(c, !none.e && !linememo_find(lm, b, hb, &found), "an answer with more candidates than fit is not kept");
	linememo_free(lm);
}

static void test_bound(checks *c)
{
	linememo *lm = linememo_new();
	char longer[LINEMEMO_BYTES + 2];
	memset(longer, 'x', sizeof longer);
	slice at = { longer, LINEMEMO_BYTES }, past = { longer, LINEMEMO_BYTES + 1 };
	CHECK(c, linememo_hash(lm, past) == 0 && linememo_hash(lm, (slice){ "", 0 }) == 0,
	      "a line past the room, or empty, is not one to look up");
	gatehits g = hits_of(0, 1);
	memoref ref = { 0 };
	keep(lm, past, 12345, &g, &ref); /* even with a hash given */
	CHECK(c, !ref.e, "a line past the room is not kept");
	uint64_t h = linememo_hash(lm, at);
	keep(lm, at, h, &g, &ref);
	CHECK(c, ref.e && linememo_find(lm, at, h, &ref), "a line of just the room is kept");
	CHECK(c, sizeof *lm < 1024 * 1024, "the table is %zu bytes", sizeof *lm);
	linememo_free(lm);
}

/* Lines of one set: the third evicts the one used least lately, and a
 * reference to it goes stale. */
static void test_evict(checks *c)
{
	linememo *lm = linememo_new();
	char text[3][64];
	slice s[3];
	uint64_t h[3];
	int n = 0;
	for (int i = 0; i < 1000000 && n < 3; i++) {
		snprintf(text[n], sizeof text[n], "host1:101:201 [0] NCCL INFO Connected all rings %d", i);
		slice t = slice_from(text[n]);
		uint64_t x = linememo_hash(lm, t);
		if (n == 0 || (x & (LINEMEMO_SETS - 1)) == (h[0] & (LINEMEMO_SETS - 1))) {
			s[n] = t;
			h[n] = x;
			n++;
		}
	}
	CHECK(c, n == 3, "three lines of one set are found");
	gatehits g = hits_of(1, 2);
	memoref r0, r1, r2, got;
	keep(lm, s[0], h[0], &g, &r0);
	keep(lm, s[1], h[1], &g, &r1);
	CHECK(c, linememo_find(lm, s[0], h[0], &got), "the first line is still there");
	keep(lm, s[2], h[2], &g, &r2);
	CHECK(c, linememo_find(lm, s[0], h[0], &got) && linememo_find(lm, s[2], h[2], &got),
	      "the line used lately and the new one stay");
	CHECK(c, !linememo_find(lm, s[1], h[1], &got), "the line used least lately is gone");
	CHECK(c, linememo_record(r1) == NULL, "a reference to it gives no record");
	CHECK(c, linememo_record(r0) != NULL && linememo_record(r2) != NULL, "the others' references do");
	linememo_free(lm);
}

static bool slice_same(slice a, slice b)
{
	return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

/* The record is the parser's, read from the kept copy. */
static void test_record(checks *c)
{
	linememo *lm = linememo_new();
	const char *lines[] = {
		"host1:101:201 [3] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read",
		"[1,0]<stdout>:host2:7:9 [1] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<1> failed",
		"2024-05-01 10:00:01,123 INFO trainer.py:88 -- step 10 loss 2.0",
		"host1:101:201 [0] NCCL INFO Init COMPLETEhost2:102:202 [1] NCCL INFO Init COMPLETE",
	};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		slice s = slice_from(lines[i]);
		uint64_t h = linememo_hash(lm, s);
		gatehits g = hits_of(0, 1);
		memoref ref;
		keep(lm, s, h, &g, &ref);
		const record *kept = linememo_record(ref);
		record r;
		size_t k = record_parse(s, &r);
		bool single = k == 0 || k == s.n;
		CHECK(c, (kept != NULL) == single, "line %zu: a record only when the line is one (%zu of %zu)", i, k, s.n);
		if (!kept)
			continue;
		CHECK(c, kept->level == r.level && kept->nccl == r.nccl && kept->pid == r.pid && kept->tid == r.tid &&
				 kept->dev == r.dev && kept->time == r.time && kept->ln.rank == r.ln.rank &&
				 slice_same(kept->host, r.host) && slice_same(kept->site, r.site) &&
				 slice_same(kept->body, r.body) && slice_same(kept->ts, r.ts) && slice_same(kept->text, r.text),
		      "line %zu: the kept record is the parser's", i);
		CHECK(c, linememo_record(ref) == kept, "line %zu: parsed once", i);
	}
	linememo_free(lm);
}

/* Lines that never repeat turn the lookups off but for a sample; lines
 * that repeat turn them on again. */
static void test_hot(checks *c)
{
	linememo *lm = linememo_new();
	char line[64];
	gatehits g = hits_of(0, 1);
	CHECK(c, linememo_hot(lm), "hot at first");
	int looked = 0;
	for (int i = 0; i < 4 * LINEMEMO_PERIOD; i++) {
		snprintf(line, sizeof line, "host1:101:201 [0] NCCL INFO comm 0x%x rank 0 - Init START", 0x5500 + i);
		slice s = slice_from(line);
		uint64_t h = linememo_hash(lm, s);
		memoref ref;
		if (i >= 2 * LINEMEMO_PERIOD)
			looked += h != 0;
		if (h && !linememo_find(lm, s, h, &ref))
			linememo_put(lm, s, h, &g, &ref);
	}
	CHECK(c, !linememo_hot(lm), "cold when no line repeats");
	CHECK(c, looked == 2 * LINEMEMO_PERIOD / LINEMEMO_PROBE, "cold, one line in %d is looked up: %d of %d",
	      LINEMEMO_PROBE, looked, 2 * LINEMEMO_PERIOD);
	slice same = slice_from("host1:101:201 [0] NCCL INFO Connected all rings");
	for (int i = 0; i < 2 * LINEMEMO_PERIOD && !linememo_hot(lm); i++) {
		uint64_t h = linememo_hash(lm, same);
		memoref ref;
		if (h && !linememo_find(lm, same, h, &ref))
			linememo_put(lm, same, h, &g, &ref);
	}
	CHECK(c, linememo_hot(lm), "hot again when lines repeat");
	linememo_free(lm);
}

/* Every byte of a line moves its hash, at every length the hash reads in
 * its own way (words, then 32-byte blocks and an overlapping tail), and
 * two blocks of a line swapped are another line. */
static void test_hash(checks *c)
{
	linememo *lm = linememo_new();
	char a[LINEMEMO_BYTES], b[LINEMEMO_BYTES];
	for (size_t i = 0; i < sizeof a; i++)
		a[i] = (char)('!' + (i * 7) % 90);
	int same = 0, tried = 0;
	for (size_t n = 1; n <= sizeof a; n++) {
		uint64_t h = linememo_hash_of(lm, (slice){ a, n });
		for (size_t i = 0; i < n; i++) {
			memcpy(b, a, n);
			b[i] ^= 1;
			same += linememo_hash_of(lm, (slice){ b, n }) == h;
			tried++;
		}
		CHECK(c, n == 1 || linememo_hash_of(lm, (slice){ a, n }) != linememo_hash_of(lm, (slice){ a, n - 1 }),
		      "a line and its head differ (%zu bytes)", n);
	}
	CHECK(c, same == 0, "one byte changed, the same hash: %d of %d", same, tried);
	memcpy(b, a + 32, 32);
	memcpy(b + 32, a, 32);
	memcpy(b + 64, a + 64, 64);
	CHECK(c, linememo_hash_of(lm, (slice){ a, 128 }) != linememo_hash_of(lm, (slice){ b, 128 }),
	      "two blocks swapped: another hash");
	linememo_free(lm);
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	test_hash(c);
	test_missed_twice(c);
	test_exact(c);
	test_bound(c);
	test_evict(c);
	test_record(c);
	test_hot(c);
	return check_done(c, "linememo");
}
