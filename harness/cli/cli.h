/* The subcommands of build/arbench; each returns the process exit status. */
#ifndef CLI_H
#define CLI_H

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_BAD_INPUT = 2, EXIT_NA = 3 };

int cmd_list(int argc, char **argv);
int cmd_schedule(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_lower(int argc, char **argv);
int cmd_history(int argc, char **argv);

#endif
