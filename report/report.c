/* The table of report formats: a new format is a renderer in a file of
 * its own and one row here. */
#include "report.h"

#include <string.h>

static const struct format {
	enum report_format id;
	const char *name, *alias;
	int (*write)(FILE *out, const model *m, const report_opts *o);
} formats[] = {
	{ FMT_TEXT, "text", "txt", report_text },
	{ FMT_JSON, "json", NULL, report_json },
	{ FMT_MARKDOWN, "markdown", "md", report_markdown },
	{ FMT_HTML, "html", NULL, report_html },
};

#define NFORMATS (sizeof formats / sizeof formats[0])

int report_write(FILE *out, const model *m, const report_opts *o)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].id == o->format)
			return formats[i].write(out, m, o);
	return report_text(out, m, o);
}

bool report_format_parse(const char *s, enum report_format *out)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(s, formats[i].name) == 0 || (formats[i].alias && strcmp(s, formats[i].alias) == 0)) {
			*out = formats[i].id;
			return true;
		}
	return false;
}

const char *report_format_name(enum report_format f)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].id == f)
			return formats[i].name;
	return "text";
}

bool report_shows(const report_opts *o, const finding *f)
{
	if (f->severity < o->min_severity || (o->brief && f->cause >= 0))
		return false;
	if (!o->nids)
		return true;
	for (size_t i = 0; i < o->nids; i++)
		if (strcmp(o->ids[i], f->id) == 0)
			return true;
	return false;
}

bool report_block(const report_opts *o, const model *m, size_t i)
{
	const finding *f = &m->fs.v[i];
	if (!report_shows(o, f))
		return false;
	if (o->verbose || f->root < 0 || f->root == (int)i)
		return true;
	/* a consequence stands alone when its root is filtered out */
	return !report_shows(o, &m->fs.v[f->root]);
}
