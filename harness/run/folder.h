/* The run folder and its rules (folder.c: each function's comment there). */
#ifndef HX_RUN_FOLDER_H
#define HX_RUN_FOLDER_H

#include <stdio.h>

#include "plan/sweep.h"

int out_writable(const char *path);
int dir_nonempty(const char *path);
int claim_dir(char *dir, size_t len, int given, int force);
int baseline_refused(const struct run_opts *o);
void default_out(char *buf, size_t len, const char *host);
void settings_meta(const char *dir, const struct run_plan *plan);
void budget_meta(const char *dir, const struct run_plan *plan);
void degrade_meta(const char *dir, const char *how);
void finish_run(const char *dir, const char *baseline);
void mark_run(const char *dir, const char *name, const char *why);
void mark_incomplete(const char *dir, int sig);
int copy_config(const struct run_plan *plan, const char *dir);
FILE *open_extra(const char *dir, const char *name, const char *header);

#endif
