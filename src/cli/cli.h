/* The animesh command line: a thin layer that parses arguments, calls the library and
 * prints. Each command lives in its own cmd_*.c and is listed in main.c's table.
 * Exit codes: 0 ok, 1 invalid input / check failed, 2 usage error, 3 I/O error. */
#ifndef AM_CLI_H
#define AM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "skeleton/skeleton.h"

enum { AM_EXIT_OK = 0, AM_EXIT_INVALID = 1, AM_EXIT_USAGE = 2, AM_EXIT_IO = 3 };

/* Print "animesh: <where>: <message>" to stderr; return the exit code for err->code. */
int am_cli_report(const am_error *err);
/* Print "animesh <cmd>: <message>" plus a hint to run --help; return 2. */
int am_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write the library's text to f with each option it names ("the normalize_binds option") as
 * the command line's flag ("--normalize-binds"): cli_flags.c's table. */
void am_cli_write_flags(FILE *f, const char *text, size_t len);
/* The same for printf-formatted text (cut at 4 KiB). */
void am_cli_print_flags(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Locate (--skeleton, ANIMESH_SKELETON, ANIMESH_VIEWER_DIR) and load the viewer skeleton. */
am_status am_cli_load_skeleton(const char *path_opt, am_skeleton *out, am_error *err);
/* SOURCE_DATE_EPOCH into *out (unchanged when unset or empty); false when it is not a
 * number of seconds (the caller prints the usage error). */
bool am_cli_source_date_epoch(long long *out);
/* True when argv holds -h or --help (before any "--"). */
bool am_cli_wants_help(int argc, char **argv);

/* Commands (argv[0] is the command name). */
int am_cmd_skeleton(int argc, char **argv);
int am_cmd_map(int argc, char **argv);
int am_cmd_map_suggest(int argc, char **argv); /* 'map suggest', cmd_map_suggest.c */
int am_cmd_anim(int argc, char **argv); /* cmd_anim.c */
int am_cmd_skin(int argc, char **argv);
int am_cmd_import(int argc, char **argv); /* cmd_import.c */
int am_cmd_mesh(int argc, char **argv); /* cmd_mesh.c */
int am_cmd_skin_compare(int argc, char **argv); /* 'skin compare', cmd_skin_compare.c */
int am_cmd_bench(int argc, char **argv);
int am_cmd_bendbox(int argc, char **argv);
int am_cmd_texture(int argc, char **argv);
int am_cmd_oar(int argc, char **argv);
int am_cmd_push(int argc, char **argv);
int am_cmd_bind(int argc, char **argv);   /* cmd_bind.c */
int am_cmd_report(int argc, char **argv); /* cmd_report.c */
int am_cmd_preview(int argc, char **argv); /* cmd_preview.c */
int am_cmd_batch(int argc, char **argv); /* cmd_batch.c */
int am_cmd_batch_spawn(int argc, char **argv); /* 'batch spawn', cmd_batch_spawn.c */

/* Shared by bind and report (cmd_report.c): "standard" or NULL -> *out NULL (the standard
 * poses), else the poses file; returns an exit code (0 ok). The report's flagged lines. */
struct am_quality_pose;
struct am_quality_report;
struct am_bind_frame;
/* --up (opt 'u'), --forward ('w'), --unit ('n') into *frame: 0 ok, a usage exit code, or -1
 * when opt is none of them. */
int am_cli_frame_option(const char *cmd, int opt, const char *arg, struct am_bind_frame *frame);
/* A --poses argument: NULL or "standard" leaves *out NULL; a file: *out freed with
 * am_quality_poses_free. */
int am_cli_load_poses(const char *arg, struct am_quality_pose **out, size_t *count, am_error *err);
void am_cli_print_quality_summary(const struct am_quality_report *r);

#endif
