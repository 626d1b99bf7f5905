#include "jsoncount.h"

size_t json_count_values(const char *b, size_t n)
{
	size_t v = 1;
	bool str = false;
	for (size_t i = 0; i < n; i++) {
		char c = b[i];
		if (str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == ',' || c == '[' || c == '{' || c == ':') {
			v++;
		}
	}
	return v;
}

size_t json_skip_blank(const char *b, size_t n, size_t i)
{
	if (i == 0 && n >= 3 && (unsigned char)b[0] == 0xef && (unsigned char)b[1] == 0xbb && (unsigned char)b[2] == 0xbf)
		i = 3;
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	return i;
}
