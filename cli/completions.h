/* Shell completions for bash, zsh and fish, written from the commands'
 * option tables, so that they complete exactly what is parsed. A value is
 * completed by its placeholder: FMT the formats of that command, WHEN
 * auto/always/never, SEV the severities, ID the finding ids (from
 * `ncclog explain --list` of the ncclog being completed), FILE and PATH
 * files, DIR directories; other values are left to the user. */
#ifndef NCCLOG_COMPLETIONS_H
#define NCCLOG_COMPLETIONS_H

#include <stdio.h>

#include "options.h"

/* A command as the completions show it. */
typedef struct completion_cmd {
	const char *name;
	const char *summary; /* one line */
	const cli_cmd *cmd;
} completion_cmd;

/* Writes the script for shell ("bash", "zsh" or "fish") to out. Returns 0,
 * or -1 for another shell. */
int completions_write(FILE *out, const char *shell, const completion_cmd *cmds, size_t n);

#endif
