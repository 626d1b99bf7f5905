/* The byte compares of util/str.h: bytes_same agrees with memcmp at every
 * length up to a few words and at every place a difference can be, the
 * words read unaligned; slice_eq and slice_starts at their edges. */
#include "../../util/str.h"
#include "check.h"

static void test_bytes_same(checks *c)
{
	unsigned char a[80], b[80];
	for (int i = 0; i < 80; i++)
		a[i] = b[i] = (unsigned char)(i * 37 + 11);
	int bad = 0, cases = 0;
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n + off <= 72; n++) {
			cases++;
			bad += !bytes_same(a + off, b + off, n);
			/* one byte changed, anywhere in the n, then one just past them */
			for (size_t at = 0; at <= n && off + at < 80; at++) {
				unsigned char keep = b[off + at];
				b[off + at] ^= at % 2 ? 0x80 : 0x01;
				bool want = at == n; /* past the end: no difference seen */
				bad += bytes_same(a + off, b + off, n) != want;
				bad += bytes_same(a + off, b + off, n) != (memcmp(a + off, b + off, n) == 0);
				b[off + at] = keep;
				cases += 2;
			}
		}
	CHECK(c, bad == 0, "%d of %d compares disagree with memcmp", bad, cases);
}

static void test_slices(checks *c)
{
	CHECK(c, slice_eq(SLICE_NONE, SLICE_LIT("")), "no slice equals an empty one");
	CHECK(c, slice_eq(SLICE_LIT("node-a"), SLICE_LIT("node-a")), "the same bytes");
	CHECK(c, !slice_eq(SLICE_LIT("node-a"), SLICE_LIT("node-b")), "the last byte differs");
	CHECK(c, !slice_eq(SLICE_LIT("node-a"), SLICE_LIT("node-ab")), "a longer one");
	CHECK(c, slice_starts(SLICE_LIT("NET/IB/0"), "NET/"), "a prefix");
	CHECK(c, !slice_starts(SLICE_LIT("NET"), "NET/"), "shorter than the prefix");
	CHECK(c, slice_starts(SLICE_LIT("x"), ""), "the empty prefix");
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	test_bytes_same(c);
	test_slices(c);
	return check_done(c, "str");
}
