/* The panes around the timeline: the job header, the findings list, the
 * detail pane (facts and raw lines read back by offset), the status line,
 * the help overlay and the progress bar shown while logs load. */
#ifndef NCCLOG_TUI_PANES_H
#define NCCLOG_TUI_PANES_H

#include "view.h"

void panes_header(view *v);
void panes_findings(view *v);
void panes_detail(view *v);
void panes_status(view *v);
void panes_help(view *v);
/* Lines of the detail pane's current content (for scrolling bounds). */
long panes_detail_len(view *v);
/* The text of the detail summary, one line per '\n', safe to draw. */
void panes_detail_text(view *v, strbuf *b);
/* Draws a progress bar over the whole screen. */
void panes_progress(const term *t, uint64_t done, uint64_t total, const char *name);

#endif
