/* The subcommands. Each returns the process exit status: 0 success, 1 an
 * error finding, 2 bad usage or unreadable input. */
#ifndef NCCLOG_COMMANDS_H
#define NCCLOG_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#include "../report/report.h"
#include "options.h"

int cmd_analyze(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_redact(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

/* The option tables of the commands: parsing, help and completions. */
extern const cli_cmd analyze_cmd, merge_cmd, explain_cmd, rules_cmd, redact_cmd, doctor_cmd, live_cmd, view_cmd;
/* Checks the job, writes the report and gives the exit status: 0, 1 for
 * an error finding, or `status` when it is already 2. */
int report_finish(model *m, const report_opts *ro, int status);
/* Writes m as a mergeable summary. Returns 0, or -1 when writing failed. */
int summary_print(FILE *out, const model *m);
/* Prints "ncclog: msg" to stderr, escaped. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* setup_load for a command: on error the message is printed (one line,
 * `ncclog: file:line:col: ...`), s is freed and -1 is returned. */
struct setup;
int setup_load_or_report(struct setup *s, char **extra, size_t nextra);

#endif
