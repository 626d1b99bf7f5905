/* Host names folded into hostlist ranges, and rank lists cut with a count. */
#include "../../report/hostlist.h"
#include "check.h"

/* Folds the names (in the order given) and compares the text. */
static void fold(checks *c, const char *const *names, size_t n, size_t max, const char *want)
{
	model m;
	model_init(&m, NULL);
	int ids[64];
	for (size_t i = 0; i < n; i++)
		ids[i] = intern_get(&m.str, slice_from(names[i]));
	strbuf b = { 0 };
	hostlist_format(&b, &m, ids, n, max);
	CHECK(c, b.p && strcmp(b.p, want) == 0, "got '%s', want '%s'", b.p ? b.p : "", want);
	sb_free(&b);
	model_free(&m);
}

static void ranges(checks *c, const int *v, size_t n, size_t max, const char *want)
{
	strbuf b = { 0 };
	hostlist_ranges(&b, v, n, max);
	const char *got = b.p ? b.p : "";
	CHECK(c, strcmp(got, want) == 0, "got '%s', want '%s'", got, want);
	sb_free(&b);
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	const char *pad[] = { "gpu-node-0003", "gpu-node-0000", "gpu-node-0001", "gpu-node-0002", "gpu-node-0005" };
	fold(c, pad, 5, 8, "gpu-node-[0000-0003,0005]");
	const char *one[] = { "node-a" };
	fold(c, one, 1, 8, "node-a");
	const char *two[] = { "node-b", "node-a" };
	fold(c, two, 2, 8, "node-b, node-a");
	/* a plain number as wide as the padded ones is one of them */
	const char *wide[] = { "gpu-node-0998", "gpu-node-0999", "gpu-node-1000", "gpu-node-1001" };
	fold(c, wide, 4, 8, "gpu-node-[0998-1001]");
	const char *plain[] = { "n1", "n2", "n3", "n10", "n11", "n12" };
	fold(c, plain, 6, 8, "n[1-3,10-12]");
	/* the number before a suffix; patterns in the order of their first host */
	const char *suffix[] = { "dgx07-ib", "a100-box", "dgx08-ib", "dgx09-ib" };
	fold(c, suffix, 4, 8, "dgx[07-09]-ib, a100-box");
	/* the last number of the name is the one that varies */
	const char *last[] = { "r1n1", "r1n2", "r2n1" };
	fold(c, last, 3, 8, "r1n[1-2], r2n1");
	/* a number too long for a range stays in the name */
	const char *longnum[] = { "host12345678901", "host12345678902" };
	fold(c, longnum, 2, 8, "host12345678901, host12345678902");
	const char *many[] = { "a", "b", "c", "d" };
	fold(c, many, 4, 2, "a, b and 2 more");
	const char *odd[] = { "n01", "n03", "n05", "n07", "n09", "n11", "n13", "n15", "n17",
			      "n19", "n21", "n23", "n25", "n27", "n29", "n31", "n33", "n35" };
	fold(c, odd, 18, 8, "n[01,03,05,07,09,11,13,15,17,19,21,23,25,27,29,31,...] and 2 more");

	int r[] = { 0, 1, 2, 3, 5, 7, 8, 9 };
	ranges(c, r, 8, 16, "0-3,5,7-9");
	ranges(c, r, 8, 2, "0-3,5 and 3 more");
	ranges(c, r, 0, 4, "");
	return check_done(c, "hostlist");
}
