#include "report.h"

int report_write(FILE *out, const model *m, const report_opts *o)
{
	switch (o->format) {
	case FMT_JSON:
		return report_json(out, m, o);
	case FMT_MARKDOWN:
		return report_markdown(out, m, o);
	case FMT_HTML:
		return report_html(out, m, o);
	case FMT_TEXT:
		break;
	}
	return report_text(out, m, o);
}
