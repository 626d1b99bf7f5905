#include "sysfs.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/str.h"

bool sysfs_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	size_t n = strcspn(buf, "\r\n");
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return n > 0;
}

bool sysfs_link_name(const char *path, char *buf, size_t size)
{
	char t[PATH_MAX];
	ssize_t n = readlink(path, t, sizeof t - 1);
	if (n <= 0)
		return false;
	t[n] = '\0';
	const char *slash = strrchr(t, '/');
	snprintf(buf, size, "%s", slash ? slash + 1 : t);
	return buf[0] != '\0';
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **sysfs_names(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	/* a directory of a million entries is no sysfs directory: stop early */
	while ((e = readdir(d)) != NULL && n < 65536) {
		if (e->d_name[0] == '.')
			continue;
		grow(&v, &cap, n + 1, sizeof *v);
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	grow(&v, &cap, n + 1, sizeof *v);
	v[n] = NULL;
	qsort(v, n, sizeof *v, cmp_name);
	return v;
}

void sysfs_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}
