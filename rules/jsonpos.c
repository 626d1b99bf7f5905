#include "jsonpos.h"

#include <string.h>

void jsonpos_linecol(const char *text, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*col = c;
}

/* Index just past the string that starts at text[i] == '"'. */
static size_t skip_string(const char *text, size_t i)
{
	for (i++; text[i] && text[i] != '"'; i++)
		if (text[i] == '\\' && text[i + 1])
			i++;
	return text[i] ? i + 1 : i;
}

size_t jsonpos_elements(const char *text, const char *key, size_t *offs, size_t max)
{
	int depth = 0;
	bool in_array = false;
	size_t n = 0, klen = strlen(key);
	for (size_t i = 0; text[i]; i++) {
		char c = text[i];
		if (c == '"') {
			size_t end = skip_string(text, i);
			if (depth == 1 && end - i == klen + 2 && memcmp(text + i + 1, key, klen) == 0) {
				size_t j = end;
				while (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r' || text[j] == ':')
					j++;
				if (text[j] == '[') {
					in_array = true;
					depth++;
					i = j;
					continue;
				}
			}
			i = end - 1;
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth == 2 && in_array && c == '{' && n < max)
				offs[n++] = i;
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
			if (depth == 1)
				in_array = false;
		}
	}
	return n;
}

/* The offsets of "key" and of its value in the object at obj; false when
 * the object has no such key. */
static bool find_key(const char *text, size_t obj, const char *key, size_t *at, size_t *value)
{
	int depth = 0;
	size_t klen = strlen(key);
	for (size_t i = obj; text[i]; i++) {
		char c = text[i];
		if (c == '"') {
			size_t end = skip_string(text, i);
			size_t j = end;
			while (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')
				j++;
			/* a key, not a value that reads the same */
			if (depth == 1 && text[j] == ':' && end - i == klen + 2 && memcmp(text + i + 1, key, klen) == 0) {
				for (j++; text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r';)
					j++;
				*at = i;
				*value = j;
				return true;
			}
			i = end - 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth == 0)
				break;
		}
	}
	return false;
}

size_t jsonpos_field(const char *text, size_t obj, const char *key)
{
	size_t at, value;
	return find_key(text, obj, key, &at, &value) ? value : obj;
}

size_t jsonpos_key(const char *text, size_t obj, const char *key)
{
	size_t at, value;
	return find_key(text, obj, key, &at, &value) ? at : obj;
}

size_t jsonpos_string_byte(const char *text, size_t off, size_t idx)
{
	if (text[off] != '"')
		return off;
	size_t i = off + 1;
	for (size_t k = 0; k < idx && text[i] && text[i] != '"'; k++)
		i += text[i] == '\\' ? (text[i + 1] == 'u' ? 6 : 2) : 1;
	return i;
}
