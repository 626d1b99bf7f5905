/* The memo of rule answers: a hit is the exact text a rule answered on,
 * never a hash alone; its memory is its fixed table; a slot holds the
 * last (rule, text) put in it. */
#include <stdio.h>
#include <stdlib.h>

#include "../../rules/memo.h"
#include "check.h"

static memoval val(int rc, unsigned char a, unsigned char b)
{
	memoval v = { .rc = rc };
	memset(v.cap, MEMO_UNSET, sizeof v.cap);
	v.cap[0][0] = a;
	v.cap[0][1] = b;
	return v;
}

static void test_exact(checks *c)
{
	rulememo *mm = memo_new(4);
	slice a = slice_from("Channel 00/0 : 3[3] -> 4[4] via P2P/IPC/read");
	slice b = slice_from("Channel 01/0 : 3[3] -> 4[4] via P2P/IPC/read");
	uint64_t ha = memo_hash(mm, a), hb = memo_hash(mm, b);
	memoval v = val(4, 15, 16), got;
	CHECK(c, !memo_find(mm, 1, a, ha, &got), "nothing is remembered at first");
	memo_put(mm, 1, a, ha, &v);
	CHECK(c, memo_find(mm, 1, a, ha, &got) && got.rc == 4 && got.cap[0][0] == 15 && got.cap[0][1] == 16 &&
			 got.cap[1][0] == MEMO_UNSET,
	      "the answer comes back as it was put");
	CHECK(c, !memo_find(mm, 2, a, ha, &got), "another rule's answer on the same text is not it");
	/* a hash that collides in full: the body still decides */
	CHECK(c, !memo_find(mm, 1, b, ha, &got), "a text of another body under the same hash is a miss");
	CHECK(c, !memo_find(mm, 1, (slice){ a.p, a.n - 1 }, ha, &got), "a shorter text under the same hash is a miss");
	CHECK(c, ha != hb && memo_hash(mm, a) == ha, "the hash is the text's");
	memoval none = val(-1, MEMO_UNSET, MEMO_UNSET);
	memo_put(mm, 3, b, hb, &none);
	CHECK(c, memo_find(mm, 3, b, hb, &got) && got.rc == -1, "no match is remembered too");
	memo_free(mm);
}

static void test_bound(checks *c)
{
	rulememo *mm = memo_new(2);
	char longer[MEMO_BODY + 2];
	memset(longer, 'x', sizeof longer);
	slice at = { longer, MEMO_BODY }, past = { longer, MEMO_BODY + 1 };
	CHECK(c, memo_hash(mm, past) == 0 && memo_hash(mm, (slice){ "", 0 }) == 0,
	      "a text past the body's room, or empty, is not one to remember");
	memoval v = val(1, 0, 1), got;
	memo_put(mm, 0, past, memo_hash(mm, past), &v);
	memo_put(mm, 0, past, 12345, &v); /* even with a hash given */
	size_t used = 0;
	for (size_t i = 0; i < MEMO_SLOTS; i++)
		used += mm->e[i].ri1 != 0;
	CHECK(c, used == 0, "a text past the body's room is not kept: %zu slots used", used);
	uint64_t h = memo_hash(mm, at);
	memo_put(mm, 0, at, h, &v);
	CHECK(c, memo_find(mm, 0, at, h, &got), "a text of just the body's room is kept");
	/* many texts: the table never grows, each slot holds the last put in it */
	char line[64];
	for (int i = 0; i < 20000; i++) {
		snprintf(line, sizeof line, "Channel %02d/%d : %d[%d] -> %d", i % 32, i % 3, i, i % 8, i + 1);
		slice s = slice_from(line);
		memo_put(mm, (size_t)(i % 2), s, memo_hash(mm, s), &v);
	}
	used = 0;
	for (size_t i = 0; i < MEMO_SLOTS; i++)
		used += mm->e[i].ri1 != 0;
	CHECK(c, used <= MEMO_SLOTS && mm->evicted >= 20000 - MEMO_SLOTS, "%zu slots used, %llu evicted", used,
	      (unsigned long long)mm->evicted);
	CHECK(c, sizeof *mm < 128 * 1024, "the table is %zu bytes", sizeof *mm);
	memo_free(mm);
}

/* Two texts of one slot: the second put evicts the first. */
static void test_evict(checks *c)
{
	rulememo *mm = memo_new(1);
	char a[32], b[32];
	snprintf(a, sizeof a, "Connected all rings 0");
	slice sa = slice_from(a);
	uint64_t ha = memo_hash(mm, sa);
	uint32_t tag;
	size_t slot = memo_slot(0, ha, &tag);
	slice sb = { 0 };
	uint64_t hb = 0;
	for (int i = 1; i < 1000000 && !sb.n; i++) {
		snprintf(b, sizeof b, "Connected all rings %d", i);
		slice s = slice_from(b);
		uint64_t h = memo_hash(mm, s);
		if (memo_slot(0, h, &tag) == slot) {
			sb = s;
			hb = h;
		}
	}
	CHECK(c, sb.n > 0, "a text of the same slot is found");
	memoval va = val(0, 0, 9), vb = val(0, 0, 10), got;
	memo_put(mm, 0, sa, ha, &va);
	uint64_t before = mm->evicted;
	memo_put(mm, 0, sb, hb, &vb);
	CHECK(c, mm->evicted == before + 1, "the second text evicts the first");
	CHECK(c, !memo_find(mm, 0, sa, ha, &got), "the evicted text is a miss");
	CHECK(c, memo_find(mm, 0, sb, hb, &got) && got.cap[0][1] == 10, "the text that took the slot is a hit, with its answer");
	memo_free(mm);
}

static void test_worth(checks *c)
{
	/* two tables: a slot the one rule takes cannot evict the other's text */
	rulememo *m0 = memo_new(1), *m1 = memo_new(2);
	char line[64];
	memoval v = val(-1, MEMO_UNSET, MEMO_UNSET), got;
	slice same = slice_from("Connected all trees");
	uint64_t hs = memo_hash(m1, same);
	for (int i = 0; i < 4 * MEMO_TRIAL; i++) {
		/* rule 0 sees a new pointer each time; rule 1 one line again and again */
		snprintf(line, sizeof line, "comm 0x%x rank 3 nranks 16 - Init START", 0x55d1c0a3 + i);
		slice s = slice_from(line);
		uint64_t h = memo_hash(m0, s);
		if (memo_worth(m0, 0) && !memo_find(m0, 0, s, h, &got))
			memo_put(m0, 0, s, h, &v);
		if (memo_worth(m1, 1) && !memo_find(m1, 1, same, hs, &got))
			memo_put(m1, 1, same, hs, &v);
	}
	CHECK(c, !memo_worth(m0, 0), "a rule whose texts never repeat stops being remembered");
	CHECK(c, m0->use[0].tries == MEMO_TRIAL, "after its trial: %u lookups", m0->use[0].tries);
	CHECK(c, memo_worth(m1, 1) && m1->use[1].hits == 4 * MEMO_TRIAL - 1, "a rule whose texts repeat goes on: %u hits",
	      m1->use[1].hits);
	memo_free(m0);
	memo_free(m1);
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	test_exact(c);
	test_bound(c);
	test_evict(c);
	test_worth(c);
	return check_done(c, "memo");
}
