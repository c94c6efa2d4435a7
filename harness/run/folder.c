/* The run folder and its rules (docs/run-folder.md: "The rules"): where it is made and how it
 * is claimed, what --force clears, what a baseline must be, the markers INCOMPLETE and FAILED,
 * the lines appended to meta.txt, and the pictures and summary drawn at the end (plots/). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/folder.h"
#include "cli/args.h"
#include "plan/sweep.h"
#include "bench/bench.h"
#include "run/stop.h"

/* mkdir -p; returns 0 or -1 with errno set. */
static int make_dirs(const char *path) {
  char buf[1100];
  snprintf(buf, sizeof(buf), "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST) return -1;
  return 0;
}

/* Returns 0 when a run folder can be made at path (it is a writable directory, or its nearest
 * existing ancestor is: a probe folder is made there and removed, since access() says yes to
 * root on read-only places such as /proc), else -1 with errno set. */
int out_writable(const char *path) {
  char buf[1100];
  struct stat st;
  snprintf(buf, sizeof(buf), "%s", path);
  for (;;) {
    if (stat(buf, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
      }
      char probe[1200];
      snprintf(probe, sizeof(probe), "%s/.arbench-probe-XXXXXX", buf);
      if (!mkdtemp(probe)) return -1;
      rmdir(probe);
      return 0;
    }
    if (errno != ENOENT) return -1;
    char *slash = strrchr(buf, '/');
    if (!slash) {
      snprintf(buf, sizeof(buf), ".");
      continue;
    }
    if (slash == buf) slash[1] = 0; /* the root */
    else *slash = 0;
  }
}

/* Returns 1 when path is a directory holding anything (but probes), else 0. */
int dir_nonempty(const char *path) {
  DIR *d = opendir(path);
  struct dirent *e;
  int any = 0;
  if (!d) return 0;
  while (!any && (e = readdir(d))) /* another run's writability probe is not content */
    any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
          strncmp(e->d_name, ".arbench-probe-", 15);
  closedir(d);
  return any;
}

/* The files `arbench run` and its plots/ scripts write in a run folder (docs/run-folder.md:
 * "The rules"). --force removes these before the run, so that nothing of an earlier run
 * (its INCOMPLETE, its critical delays) is read as this one's; any other file stays. */
static const char *const run_files[] = {
    "results.csv", "samples.csv",  "meta.txt",    "COMMAND",      "config.conf",  "critical.csv",
    "delays.csv",  "phases.csv",   "overlap.csv", "timeline.csv", "trace.json",
    "compute_samples.csv",
    "INCOMPLETE",  "FAILED",       "summary.md",  "report.html",  "plots",
    ".INCOMPLETE.tmp", ".FAILED.tmp"};

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* A leftover temporary file of summary.sh or report.sh (.summary.md.XXXXXX). */
static int run_temp_file(const char *name) {
  return !strncmp(name, ".summary.md.", 12) || !strncmp(name, ".report.html.", 13);
}

/* --force: removes arbench's own files of an earlier run from dir (run_files, plots/ with all
 * it holds) and says which in one line; 0, or -1 with errno set when one cannot be removed. */
static int clear_forced(const char *dir) {
  char path[1400], said[1024] = "";
  size_t k = 0;
  int n = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  if (!d) return errno == ENOENT ? 0 : -1;
  while ((e = readdir(d))) {
    int ours = run_temp_file(e->d_name);
    for (size_t i = 0; !ours && i < sizeof(run_files) / sizeof(run_files[0]); i++)
      ours = !strcmp(e->d_name, run_files[i]);
    if (!ours) continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS)) {
      int err = errno;
      closedir(d);
      errno = err;
      return -1;
    }
    if (k < sizeof(said))
      k += (size_t)snprintf(said + k, sizeof(said) - k, "%s%s%s", n ? ", " : "", e->d_name,
                            e->d_type == DT_DIR ? "/" : "");
    n++;
  }
  closedir(d);
  if (n)
    printf("# --force: removed the earlier run's %s from %s (arbench's files; any other file "
           "is left)\n", said, dir);
  return 0;
}

/* Makes the run folder and claims it, so that two runs never share one: the default name
 * takes a suffix -2, -3, ... when another run made it first (mkdir is atomic); a given --out
 * is claimed by creating its results.csv exclusively, unless force. Returns 0, or -1 with
 * errno set (EEXIST: taken). dir may grow by the suffix. */
int claim_dir(char *dir, size_t len, int given, int force) {
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) {
    *slash = 0;
    int rc = make_dirs(dir);
    *slash = '/';
    if (rc) return -1;
  }
  if (!given) {
    size_t base = strlen(dir);
    for (int k = 2; mkdir(dir, 0777); k++) {
      if (errno != EEXIST || k > 1000) return -1;
      snprintf(dir + base, len - base, "-%d", k);
    }
    return 0;
  }
  if (mkdir(dir, 0777) && errno != EEXIST) return -1;
  if (force) return clear_forced(dir);
  char path[1200];
  snprintf(path, sizeof(path), "%s/results.csv", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

/* --baseline against the run folder's rules: refused (one line, -1) when it is the --out folder
 * itself (the run would be compared with what it replaces, or with itself) or a run marked
 * INCOMPLETE (stopped early: rows missing) or FAILED (wrong or failed rows, or a timeout). */
int baseline_refused(const struct run_opts *o) {
  char base[PATH_MAX], out[PATH_MAX], path[1200], why[300];
  if (!o->baseline[0]) return 0;
  if (o->out[0] && realpath(o->baseline, base) && realpath(o->out, out) && !strcmp(base, out))
    return args_bad("--baseline", o->baseline, "it is the --out folder: the run would be "
                    "compared with itself (name an earlier run's folder)");
  static const char *const marks[] = {"INCOMPLETE", "FAILED"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof(path), "%s/%s", o->baseline, marks[i]);
    /* non-blocking, one bounded read: a FIFO there must not hold the run */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) continue;
    char line[160] = "";
    ssize_t n = read(fd, line, sizeof(line) - 1);
    close(fd);
    line[n > 0 ? n : 0] = 0;
    line[strcspn(line, "\r\n")] = 0;
    snprintf(why, sizeof(why), "that run is marked %s%s%s%s: a baseline must be a complete run "
             "that passed", marks[i], line[0] ? " (" : "", line, line[0] ? ")" : "");
    return args_bad("--baseline", o->baseline, why);
  }
  return 0;
}

/* The default run folder: runs/<UTC time>_<host>. */
void default_out(char *buf, size_t len, const char *host) {
  time_t t = time(NULL);
  struct tm tm;
  char stamp[32];
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
  snprintf(buf, len, "runs/%s_%s", stamp, host);
}

/* Appends the settings in effect to DIR/meta.txt: every setting's value (scenario 1's), then
 * any other scenario's own --set. */
void settings_meta(const char *dir, const struct run_plan *plan) {
  char path[1200], text[512];
  snprintf(path, sizeof(path), "%s/meta.txt", dir);
  FILE *f = fopen(path, "a");
  if (!f) return;
  ar_settings_write(f, &plan->scen[0].settings);
  for (int i = 1; i < plan->nscen; i++)
    fprintf(f, "settings of scenario %s: %s\n", plan->scen[i].scenario,
            ar_settings_text(&plan->scen[i].settings, text, sizeof(text))[0] ? text : "defaults");
  fclose(f);
}

/* Appends --row-budget to DIR/meta.txt, a line per scenario that has it (with its rule, so
 * that results.csv's iters column reads as it was decided). */
void budget_meta(const char *dir, const struct run_plan *plan) {
  char path[1200];
  snprintf(path, sizeof(path), "%s/meta.txt", dir);
  FILE *f = NULL;
  for (int i = 0; i < plan->nscen; i++) {
    const struct run_opts *o = &plan->scen[i];
    if (!(o->row_budget_us > 0) || (!f && !(f = fopen(path, "a")))) continue;
    fprintf(f, "row_budget%s%s: %g ms (-n %d, -w %d: a row's timed iterations are min(-n, "
            "max(%d, floor(budget / its last warm-up iteration's time on its slowest rank)))%s; "
            "results.csv's iters holds each row's count)\n", o->scenario[0] ? " of scenario " : "",
            o->scenario, o->row_budget_us / 1e3, o->iters, o->warmup,
            o->iters < HX_BUDGET_MIN_ITERS ? o->iters : HX_BUDGET_MIN_ITERS,
            ar_setting_value(&o->settings, AR_SET_STATS_CI_TARGET) > 0
                ? ", then stats.ci_target's more, up to max(6, that floor) and stats.max_iters "
                  "in all"
                : "");
  }
  if (f) fclose(f);
}

/* Appends the degrade calibration line to DIR/meta.txt. */
void degrade_meta(const char *dir, const char *how) {
  char path[1200];
  snprintf(path, sizeof(path), "%s/meta.txt", dir);
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "degrade_healthy_bw: %s\n", how);
  fclose(f);
}

/* The folder holding plots/plot.sh and summary.sh: ./plots, else next to the binary's folder
 * (build/arbench -> plots/). Returns 0, or -1 when there is none. */
static int find_plots(char *buf, size_t len) {
  if (!access("plots/summary.sh", R_OK) && !access("plots/plot.sh", R_OK)) {
    snprintf(buf, len, "plots");
    return 0;
  }
  char exe[PATH_MAX];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (k <= 0) return -1;
  exe[k] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return -1;
  *slash = 0;
  snprintf(buf, len, "%s/../plots", exe);
  char probe[PATH_MAX + 32];
  snprintf(probe, sizeof(probe), "%s/summary.sh", buf);
  return access(probe, R_OK) ? -1 : 0;
}

/* Runs `bash DIR/SCRIPT ARG [ARG2]` in a process group of its own (a stop ends it as a whole:
 * stop.c; a Ctrl-C at the terminal reaches arbench alone, which decides), its output (stdout
 * and stderr) copied to stdout as "# " lines; returns its exit status (-1 when it could not
 * start or a stop came before it did). */
static int run_script(const char *dir, const char *script, const char *arg, const char *arg2) {
  char path[1200];
  snprintf(path, sizeof(path), "%s/%s", dir, script);
  char *argv[] = {"bash", path, (char *)arg, (char *)arg2, NULL};
  if (!arg2 || !*arg2) argv[3] = NULL;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC)) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawnattr_init(&at);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&at, 0);
  fflush(stdout);
  pid_t pid = -1;
  extern char **environ;
  int err = stop_cut_pictures() && !strcmp(script, "plot.sh") ? -1
            : posix_spawnp(&pid, "bash", &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(fds[1]);
  if (err) {
    close(fds[0]);
    return -1;
  }
  stop_child(pid); /* from here a stop ends it (and at once, when one came while it started) */
  FILE *p = fdopen(fds[0], "r");
  char line[1024];
  while (p && fgets(line, sizeof(line), p)) printf("# %s%s", line, strchr(line, '\n') ? "" : "\n");
  if (p) fclose(p);
  else close(fds[0]);
  int st = -1;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  stop_child(0);
  fflush(stdout);
  return st;
}

/* The end of a run: plots/plot.sh and plots/summary.sh on the run folder (against the
 * baseline when given, its regression lines printed). Never fails the run. A first signal
 * while the pictures are drawn ends them: the folder is marked INCOMPLETE (every row was
 * measured) and summary.md, still written, says so; one while summary.md is written lets it
 * finish (stop.c). */
void finish_run(const char *dir, const char *baseline) {
  char plots[PATH_MAX + 16];
  if (find_plots(plots, sizeof(plots))) {
    fprintf(stderr, "arbench: plots/ not found: no pictures or summary.md (run plots/plot.sh "
                    "and plots/summary.sh on %s by hand)\n", dir);
    return;
  }
  stop_set_phase(STOP_PICTURES);
  int st = run_script(plots, "plot.sh", dir, NULL);
  stop_hold();
  if (stop_cut_pictures()) {
    char why[400], path[1200];
    snprintf(path, sizeof(path), "%s/INCOMPLETE", dir);
    snprintf(why, sizeof(why), "stopped by %s while the pictures were drawn: every row was "
             "measured; plots/plot.sh %s draws them", stop_name(hx_stop_signal), dir);
    if (access(path, F_OK)) mark_run(dir, "INCOMPLETE", why);
  } else if (st) {
    ar_log(AR_LOG_WARN, "plots/plot.sh %s ended with status %d", dir, st);
  }
  stop_release(STOP_SUMMARY);
  st = run_script(plots, "summary.sh", dir, baseline);
  if (st) ar_log(AR_LOG_WARN, "plots/summary.sh %s ended with status %d", dir, st);
  stop_set_phase(STOP_DONE);
  if (!baseline[0]) return;
  char md[1200];
  snprintf(md, sizeof(md), "%s/summary.md", dir);
  printf("# regressions against %s:\n", baseline);
  if (sweep_print_regressions(md, stdout) < 0) printf("# (none reported: %s has none)\n", md);
  fflush(stdout);
}

/* Writes DIR/NAME holding the line why, whole under a temporary name (a marker that make run
 * reads: it takes no folder with INCOMPLETE or FAILED as a baseline). */
void mark_run(const char *dir, const char *name, const char *why) {
  char tmp[1200], path[1200];
  snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  fprintf(f, "%s\n", why);
  if (fclose(f) == 0) rename(tmp, path);
}

/* Marks dir as an incomplete run: DIR/INCOMPLETE says why (summary.sh marks summary.md). */
void mark_incomplete(const char *dir, int sig) {
  char why[96];
  snprintf(why, sizeof(why), "stopped by %s before every row was measured", stop_name(sig));
  mark_run(dir, "INCOMPLETE", why);
}

/* Writes the config's bytes as parsed into the run folder as config.conf (what ran, next to
 * COMMAND; the file is not read again: a pipe or FIFO would be empty or wait for a writer);
 * returns 0 or -1. */
int copy_config(const struct run_plan *plan, const char *dir) {
  char path[1200];
  snprintf(path, sizeof(path), "%s/config.conf", dir);
  FILE *out = fopen(path, "w");
  if (!out) return -1;
  int rc = fwrite(plan->config_text, 1, plan->config_len, out) == plan->config_len ? 0 : -1;
  if (fclose(out)) rc = -1;
  return rc;
}

/* Opens DIR/NAME for writing with its header line; returns the file or NULL (errno set). */
FILE *open_extra(const char *dir, const char *name, const char *header) {
  char path[1200];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f, "%s\n", header);
    fflush(f);
  }
  return f;
}
