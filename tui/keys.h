/* Keys: lnav/less habits mapped onto the view state. Nothing here draws. */
#ifndef NCCLOG_TUI_KEYS_H
#define NCCLOG_TUI_KEYS_H

#include "view.h"

/* Applies one key (a curses key code) to the view. */
void keys_handle(view *v, int ch);

#endif
