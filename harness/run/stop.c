/* Stopping a run by a signal (stop.h; docs/run-folder.md, "Stopping"). A first signal asks for
 * a stop: the benchmark stops at the next row boundary, or the pictures being drawn are ended;
 * a second one ends the process at once. The handler then marks the run folder itself, with
 * the calls a handler may make (open, write, rename: no stdio, no malloc): INCOMPLETE and, when
 * none was written yet, a summary.md that says the run stopped, so that no folder a signal
 * ended reads as a whole run. */
#include "run/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h" /* hx_stop_signal */

static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define NSTOP ((int)(sizeof(stop_sigs) / sizeof(stop_sigs[0])))

static volatile sig_atomic_t phase = STOP_MEASURING, holding, child, cut;
/* the run folder and its files, set once by stop_folder (signals held) */
static char dir_path[1100], incomplete[1200], incomplete_tmp[1200], summary[1200],
    summary_tmp[1200], results[1200];
static const char *run_name = "";

const char *stop_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
         : sig == SIGPIPE ? "SIGPIPE" : "a signal";
}

/* Appends s to b[0..k) within cap (NUL-terminated); the new length. */
static size_t put(char *b, size_t k, size_t cap, const char *s) {
  while (*s && k + 1 < cap) b[k++] = *s++;
  b[k] = 0;
  return k;
}

/* Writes text to path whole, through tmp and a rename; async-signal-safe. */
static void write_whole(const char *tmp, const char *path, const char *text) {
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return;
  size_t len = strlen(text), done = 0;
  while (done < len) {
    ssize_t n = write(fd, text + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += (size_t)n;
  }
  if (close(fd) == 0 && done == len) rename(tmp, path);
  else unlink(tmp);
}

/* The first line of path into buf (empty when there is none); async-signal-safe. */
static void first_line(const char *path, char *buf, size_t cap) {
  buf[0] = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, cap - 1);
  close(fd);
  buf[n > 0 ? n : 0] = 0;
  buf[strcspn(buf, "\r\n")] = 0;
}

void stop_write_summary(const char *why) {
  char text[2600];
  size_t k = 0;
  if (!dir_path[0] || access(summary, F_OK) == 0) return; /* summary.sh wrote it: it is whole */
  k = put(text, k, sizeof(text), "# arbench run ");
  k = put(text, k, sizeof(text), run_name);
  k = put(text, k, sizeof(text), "\n\n**Incomplete run: ");
  k = put(text, k, sizeof(text), why);
  k = put(text, k, sizeof(text), ".**\n\nThe run ended before it was summarised: no tables and "
          "no pictures here. The rows measured before the stop are whole in results.csv; "
          "`plots/plot.sh ");
  k = put(text, k, sizeof(text), dir_path);
  k = put(text, k, sizeof(text), "` and `plots/summary.sh ");
  k = put(text, k, sizeof(text), dir_path);
  put(text, k, sizeof(text), "` draw them.\n");
  write_whole(summary_tmp, summary, text);
}

/* Ends the script plots/ runs now: SIGTERM to its process group (its traps remove their
 * temporary files), then SIGKILL when it has not ended within 2 s. */
static void end_child(void) {
  pid_t pg = (pid_t)child;
  if (pg <= 0) return;
  if (kill(-pg, SIGTERM)) kill(pg, SIGTERM);
  for (int i = 0; i < 200; i++) {
    pid_t w = waitpid(pg, NULL, WNOHANG);
    if (w == pg || (w < 0 && errno != EINTR)) return; /* ended, or reaped by the main thread */
    struct timespec t = {0, 10 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
  if (kill(-pg, SIGKILL)) kill(pg, SIGKILL);
}

/* A second signal: marks the run folder and ends the process, exit 128 + sig. */
static void end_now(int sig) {
  while (holding) { /* the main thread is writing a marker: let it finish */
    struct timespec t = {0, 10 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
  end_child();
  const char *first = stop_name(hx_stop_signal), *second = stop_name(sig);
  char why[700], line[1800];
  size_t k = 0;
  k = put(line, k, sizeof(line), "arbench: stopped by ");
  k = put(line, k, sizeof(line), first);
  k = put(line, k, sizeof(line), ", then at once by a second signal (");
  k = put(line, k, sizeof(line), second);
  if (!dir_path[0]) {
    put(line, k, sizeof(line), ") before the run folder was made: nothing was measured\n");
  } else if (phase == STOP_DONE || (phase == STOP_SUMMARY && access(summary, F_OK) == 0)) {
    k = put(line, k, sizeof(line), "): summary.md was written, report.html may be missing (");
    k = put(line, k, sizeof(line), dir_path);
    put(line, k, sizeof(line), ")\n");
  } else {
    first_line(incomplete, why, sizeof(why));
    if (!why[0]) { /* no stop marked yet: this one says what was left undone */
      size_t w = put(why, 0, sizeof(why), "stopped by ");
      w = put(why, w, sizeof(why), first);
      w = put(why, w, sizeof(why), phase == STOP_MEASURING ? " before every row was measured"
                                   : phase == STOP_PICTURES ? " while the pictures were drawn"
                                                            : " while summary.md was written");
      w = put(why, w, sizeof(why), "; a second signal (");
      w = put(why, w, sizeof(why), second);
      put(why, w, sizeof(why), ") ended the run at once");
      char text[sizeof(why) + 1];
      put(text, put(text, 0, sizeof(text), why), sizeof(text), "\n");
      write_whole(incomplete_tmp, incomplete, text);
    }
    stop_write_summary(why);
    k = put(line, k, sizeof(line), "): the rows measured so far are in ");
    k = put(line, k, sizeof(line), results);
    k = put(line, k, sizeof(line), ", the run is incomplete (");
    k = put(line, k, sizeof(line), incomplete);
    put(line, k, sizeof(line), ")\n");
  }
  ssize_t rc = write(2, line, strlen(line));
  (void)rc;
  _exit(128 + sig);
}

/* A first signal: the stop is asked for; while the pictures are drawn, their script ends.
 * Returns 0 when a stop was asked for before (this signal is a second one). */
static int first_stop(int sig) {
  if (!__sync_bool_compare_and_swap(&hx_stop_signal, 0, sig)) return 0;
  if (phase == STOP_PICTURES) {
    cut = 1;
    pid_t pg = (pid_t)child;
    if (pg > 0 && kill(-pg, SIGTERM)) kill(pg, SIGTERM);
  }
  return 1;
}

static void on_stop_signal(int sig) {
  int saved = errno;
  /* SIGPIPE: the reader of stdout went away, and every later write raises it again */
  if (!first_stop(sig) && sig != SIGPIPE) end_now(sig);
  errno = saved;
}

void stop_catch(void) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NSTOP; i++) sigaddset(&sa.sa_mask, stop_sigs[i]);
  for (int i = 0; i < NSTOP; i++) {
    int s = stop_sigs[i];
    if ((s == SIGHUP || s == SIGPIPE) && sigaction(s, NULL, &old) == 0 &&
        old.sa_handler == SIG_IGN)
      continue; /* nohup, or a parent that ignores SIGPIPE: left as it was chosen */
    sigaction(s, &sa, NULL);
  }
}

static void mask(int how) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < NSTOP; i++) sigaddset(&set, stop_sigs[i]);
  pthread_sigmask(how, &set, NULL);
}

void stop_hold(void) {
  mask(SIG_BLOCK);
  holding = 1;
}

void stop_release(enum stop_phase p) {
  phase = p;
  holding = 0;
  mask(SIG_UNBLOCK);
}

void stop_set_phase(enum stop_phase p) { phase = p; }

void stop_folder(const char *dir) {
  snprintf(dir_path, sizeof(dir_path), "%s", dir);
  snprintf(incomplete, sizeof(incomplete), "%s/INCOMPLETE", dir);
  snprintf(incomplete_tmp, sizeof(incomplete_tmp), "%s/.INCOMPLETE.tmp", dir);
  snprintf(summary, sizeof(summary), "%s/summary.md", dir);
  snprintf(summary_tmp, sizeof(summary_tmp), "%s/.summary.md.stop", dir);
  snprintf(results, sizeof(results), "%s/results.csv", dir);
  const char *slash = strrchr(dir_path, '/');
  run_name = slash && slash[1] ? slash + 1 : dir_path;
}

int stop_child(pid_t pgid) {
  child = pgid;
  if (pgid > 0 && cut && phase == STOP_PICTURES && kill(-pgid, SIGTERM)) kill(pgid, SIGTERM);
  return cut;
}

int stop_cut_pictures(void) { return cut; }
