/* The Aho-Corasick gate finds every occurrence, overlapping ones included. */
#include "../../rules/gate.h"
#include "check.h"

static void count(void *ctx, int v)
{
	((int *)ctx)[v]++;
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	slice pats[] = { SLICE_LIT("he"), SLICE_LIT("she"), SLICE_LIT("his"), SLICE_LIT("hers"), SLICE_LIT("NCCL WARN") };
	int vals[] = { 0, 1, 2, 3, 4 };
	gate *g = gate_build(pats, vals, 5);
	int hits[5] = { 0 };
	size_t n = gate_scan(g, SLICE_LIT("ushers and his NCCL WARN she"), count, hits);
	CHECK(c, n == 7, "7 occurrences, got %zu", n);
	CHECK(c, hits[0] == 2 && hits[1] == 2 && hits[2] == 1 && hits[3] == 1 && hits[4] == 1,
	      "%d %d %d %d %d", hits[0], hits[1], hits[2], hits[3], hits[4]);
	memset(hits, 0, sizeof hits);
	CHECK(c, gate_scan(g, SLICE_LIT("xyz abc 123"), count, hits) == 0, "no hit");
	char bin[256];
	for (int i = 0; i < 256; i++)
		bin[i] = (char)i;
	CHECK(c, gate_scan(g, (slice){ bin, sizeof bin }, count, hits) == 0, "binary bytes hit nothing");
	gate_free(g);
	g = gate_build(NULL, NULL, 0);
	CHECK(c, gate_scan(g, SLICE_LIT("abc"), count, hits) == 0, "empty gate");
	gate_free(g);
	return check_done(c, "gate");
}
