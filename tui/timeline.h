/* The timeline pane: an axis line, then one row per host group and per
 * rank of an expanded group, drawing only the rows that are visible. */
#ifndef NCCLOG_TUI_TIMELINE_H
#define NCCLOG_TUI_TIMELINE_H

#include "view.h"

/* Draws the pane at v->tl_y, v->tl_h rows; keeps the cursor in view. */
void timeline_draw(view *v);
/* Rows of ranks a page holds. */
long timeline_page(const view *v);

#endif
