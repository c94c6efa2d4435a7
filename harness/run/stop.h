/* Stopping a run by a signal (stop.c): every way a run can end early leaves its folder marked. */
#ifndef HX_RUN_STOP_H
#define HX_RUN_STOP_H

#include <sys/types.h>

/* Where the run is, for what a signal does (docs/run-folder.md, "Stopping"). */
enum stop_phase {
  STOP_MEASURING, /* rows are measured: a first signal stops at the next row boundary */
  STOP_PICTURES,  /* plots/plot.sh draws: a first signal ends the drawing */
  STOP_SUMMARY,   /* plots/summary.sh writes summary.md: a first signal lets it finish */
  STOP_DONE       /* every file written: a signal only sets the exit status */
};

/* Catches SIGINT, SIGTERM, SIGHUP and SIGPIPE (the last two stay ignored when arbench started
 * with them ignored, as under nohup). A first signal asks for a stop (hx_stop_signal); a second
 * one (SIGPIPE never counts as one: every later write to the closed pipe raises it again)
 * ends the process at once, exit 128 + that signal, after marking the run folder. */
void stop_catch(void);
/* The run folder the handler marks when it ends the run at once; call with the stop signals
 * held (stop_hold). */
void stop_folder(const char *dir);
/* Holds the stop signals in this thread while the run folder's markers are written (a handler
 * on another thread waits for stop_release), then sets the phase and lets them in again. */
void stop_hold(void);
void stop_release(enum stop_phase phase);
void stop_set_phase(enum stop_phase phase);
/* The process group of the script plots/ runs now (0: none): a stop ends it. Returns 1 when a
 * stop came while the pictures were drawn (their script is ended then), else 0. */
int stop_child(pid_t pgid);
/* 1 when a first signal ended the drawing of the pictures. */
int stop_cut_pictures(void);
/* "SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE" (else "a signal"). */
const char *stop_name(int sig);
/* Writes DIR/summary.md saying that the run stopped before it was summarised (why: the reason,
 * INCOMPLETE's first line), unless a summary.md is there; async-signal-safe. */
void stop_write_summary(const char *why);

#endif
