/* The keyed tables of the job model, as the init lines use them: the
 * communicator and the rank looked up last are found again without a
 * hash, and that shortcut never answers for another key. Names that are
 * prefixes of each other, two communicators in turn, ranks marked while
 * the rank map grows and moves its slots, and then is kept by rank. */
#include "../../model/model.h"
#include "check.h"

#include <stdlib.h>

static void test_keys(checks *c, model *m)
{
	int a = model_comm_key(m, slice_from("0x1a2b3c4d5e6f0000"));
	comm *ca = model_comm_get(m, a, 64);
	CHECK(c, ca && ca->key == a, "made");
	CHECK(c, model_comm_key(m, slice_from("0x1a2b3c4d5e6f0000")) == a, "the same name, the same key");
	int b = model_comm_key(m, slice_from("0x1a2b3c4d5e6f000"));
	CHECK(c, b >= 0 && b != a, "a prefix of it is another: %d %d", a, b);
	int d = model_comm_key(m, slice_from("0x1a2b3c4d5e6f00000"));
	CHECK(c, d >= 0 && d != a && d != b, "and so is a longer one");
	comm *cb = model_comm_get(m, b, 64);
	CHECK(c, cb && cb != model_comm_get(m, a, 64), "two communicators");
	CHECK(c, model_comm_key(m, slice_from("0x1a2b3c4d5e6f0000")) == a, "the first name after the second");
	CHECK(c, model_comm_find(m, a) == &m->comms[0] && model_comm_find(m, b) == &m->comms[1], "found by key");
	CHECK(c, model_comm_find(m, d) == NULL, "a key without a communicator");
}

static void test_ranks(checks *c, model *m)
{
	int ka = model_comm_key(m, slice_from("ca")), kb = model_comm_key(m, slice_from("cb"));
	/* each rank twice in a row (START, COMPLETE), the two in turn */
	for (int r = 0; r < 200; r++) {
		comm *a = model_comm_get(m, ka, 256);
		CHECK(c, a && model_comm_mark(m, a, r, CR_SEEN, r), "a: rank %d seen", r);
		a = model_comm_get(m, ka, 256);
		if (r % 3 == 0)
			CHECK(c, model_comm_mark(m, a, r, CR_DONE, -1), "a: rank %d done", r);
		comm *b = model_comm_get(m, kb, 256);
		CHECK(c, b && model_comm_mark(m, b, 255 - r, CR_SEEN, 1000 + r), "b: rank %d", 255 - r);
	}
	comm *a = model_comm_find(m, ka), *b = model_comm_find(m, kb);
	CHECK(c, a->nseen == 200 && a->ndone == 67 && a->nrk == 200, "a: %d seen, %d done, %zu held", a->nseen, a->ndone,
	      a->nrk);
	CHECK(c, b->nseen == 200 && b->ndone == 0, "b: %d seen, %d done", b->nseen, b->ndone);
	int bad = 0;
	for (int r = 0; r < 256; r++) {
		bool in = r < 200;
		bad += model_comm_has(a, r, CR_SEEN) != in;
		bad += model_comm_has(a, r, CR_SEEN | CR_DONE) != (in && r % 3 == 0);
		bad += model_comm_proc(a, r) != (in ? r : -1);
		bad += model_comm_proc(b, r) != (r >= 56 ? 1000 + 255 - r : -1);
	}
	CHECK(c, bad == 0, "%d ranks answered wrong", bad);
	/* the last rank looked up, then one that shares nothing with it */
	CHECK(c, model_comm_has(a, 199, CR_SEEN) && !model_comm_has(a, 200, CR_SEEN) && !model_comm_has(a, -1, 0),
	      "199 yes, 200 and -1 no");
	CHECK(c, !model_comm_mark(m, a, 256, CR_SEEN, 0), "a rank past nranks");
	CHECK(c, a->rf && b->rf, "200 ranks of 256: kept by rank");
	int *v;
	size_t n = model_comm_ranks(a, CR_DONE, &v);
	bad = n != 67;
	for (size_t k = 0; k < n; k++)
		bad += v[k] != (int)k * 3;
	free(v);
	CHECK(c, bad == 0, "the done ranks in order: %zu of them", n);
}

/* A map by rank costs no more than the hashed one it replaces: a few
 * ranks of a huge communicator stay hashed, and so do a later part's,
 * whose ranks may lie past the nranks it saw. */
static void test_room(checks *c, model *m)
{
	comm *big = model_comm_get(m, model_comm_key(m, slice_from("big")), 1 << 20);
	for (int r = 0; r < 5000; r++)
		model_comm_mark(m, big, r * 97, CR_SEEN, r);
	CHECK(c, !big->rf && big->nrk == 5000 && big->rkcap <= 16384, "5000 of 2^20 ranks: hashed, %zu slots",
	      big->rkcap);
	CHECK(c, model_comm_proc(big, 97 * 4999) == 4999 && !model_comm_has(big, 98, 0), "found by its hash");
	model part;
	model_init(&part, NULL);
	part.partial = true;
	comm *pc = model_comm_get(&part, model_comm_key(&part, slice_from("p")), 8);
	for (int r = 0; r < 8; r++)
		CHECK(c, model_comm_mark(&part, pc, r, CR_SEEN, r), "part: rank %d", r);
	CHECK(c, model_comm_mark(&part, pc, 40, CR_SEEN, 40) && !pc->rf, "a part's rank past nranks: hashed");
	model_free(&part);
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	model m;
	model_init(&m, NULL);
	test_keys(c, &m);
	test_ranks(c, &m);
	test_room(c, &m);
	model_free(&m);
	return check_done(c, "tables");
}
