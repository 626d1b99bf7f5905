/* Drawing the whole screen from the view state: the layout of the panes
 * for the terminal's size, the header, the verdict, the legend, and the
 * panes themselves. */
#ifndef NCCLOG_TUI_DRAW_H
#define NCCLOG_TUI_DRAW_H

#include "view.h"

/* Draws everything from the model and the view state. */
void draw_view(view *v);
/* Splits safe text into lines of at most cols columns, at spaces where
 * it can: calls fn(ctx, index, start, bytes) for each, at most maxl
 * (0: no limit); returns how many lines the whole text takes. */
int draw_fold(const term *t, const char *s, int cols, int maxl, void (*fn)(void *, int, const char *, size_t),
	      void *ctx);

#endif
