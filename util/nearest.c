#include "nearest.h"

#include <string.h>

#define MAXLEN 64

size_t nearest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > MAXLEN || lb > MAXLEN)
		return MAXLEN;
	/* three rows of the table: a swap looks two rows back */
	size_t r0[MAXLEN + 1], r1[MAXLEN + 1], r2[MAXLEN + 1];
	size_t *back = r0, *prev = r1, *cur = r2;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t d = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && back[j - 2] + 1 < d)
				d = back[j - 2] + 1;
			cur[j] = d;
		}
		size_t *t = back;
		back = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *nearest_word(const char *typed, const char *const *words, size_t n)
{
	const char *best = NULL;
	size_t bestd = MAXLEN, tl = strlen(typed);
	for (size_t i = 0; i < n; i++) {
		size_t wl = strlen(words[i]);
		/* a quarter of the word may be wrong, one edit at least, three at most */
		size_t room = wl / 4 < 1 ? 1 : wl / 4 > 3 ? 3 : wl / 4;
		size_t d = nearest_distance(typed, words[i]);
		if (d <= room && d < bestd) {
			bestd = d;
			best = words[i];
		}
	}
	for (size_t i = 0; !best && tl >= 2 && i < n; i++)
		if (strncmp(typed, words[i], tl) == 0)
			best = words[i];
	return best;
}
