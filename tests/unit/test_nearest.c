/* "Did you mean": the edit distance (with swaps) and the word it picks. */
#include "../../util/nearest.h"
#include "check.h"

static void dist(checks *c, const char *a, const char *b, size_t want)
{
	size_t got = nearest_distance(a, b);
	CHECK(c, got == want, "distance('%s', '%s') = %zu, want %zu", a, b, got, want);
}

static void pick(checks *c, const char *typed, const char *want)
{
	static const char *const keys[] = { "id", "gate", "pattern", "finding", "title", "severity", "message",
					    "hint", "fold", "samples", "tag", "level", "site", "confidence" };
	const char *got = nearest_word(typed, keys, sizeof keys / sizeof keys[0]);
	CHECK(c, (got == NULL) == (want == NULL) && (!got || strcmp(got, want) == 0), "'%s': got '%s', want '%s'",
	      typed, got ? got : "(none)", want ? want : "(none)");
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	dist(c, "", "", 0);
	dist(c, "hint", "hint", 0);
	dist(c, "hnit", "hint", 1);    /* a swap is one edit */
	dist(c, "formt", "format", 1);
	dist(c, "kitten", "sitting", 3);
	dist(c, "", "gate", 4);
	dist(c, "ca", "abc", 3);       /* no swap across an insertion (restricted distance) */
	char big[100];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	dist(c, big, "x", 64);         /* long strings are never compared at length */
	pick(c, "hnit", "hint");
	pick(c, "patern", "pattern");
	pick(c, "severty", "severity");
	pick(c, "sample", "samples");
	pick(c, "fodl", "fold");
	pick(c, "conf", "confidence"); /* a beginning */
	pick(c, "zzzz", NULL);         /* nothing close */
	pick(c, "x", NULL);
	pick(c, "messages", "message");
	return check_done(c, "nearest");
}
