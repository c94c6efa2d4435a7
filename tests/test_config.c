/* Config files expand into the words the command line would have had; every input file is
 * read within bounds on its bytes, its lines and the time a pipe may take. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/config.h"
#include "test.h"

int main(void) {
  char path[] = "/tmp/arbench-test-configXXXXXX";
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fputs("# a comment\n-b 1K -e 8G   # trailing comment\n--algo \"ring,nccl\"\n\n--straggler 3:8ms\n", f);
  fclose(f);
  char *extra[] = {"-n", "5"};
  struct config_args a;
  CHECK_INT(config_expand(path, "arbench", 2, extra, &a), ==, 0);
  CHECK_INT(a.argc, ==, 11);
  if (a.argc == 11) {
    CHECK_STR(a.argv[0], "arbench");
    CHECK_STR(a.argv[1], "-b");
    CHECK_STR(a.argv[4], "8G");
    CHECK_STR(a.argv[6], "ring,nccl");
    CHECK_STR(a.argv[8], "3:8ms");
    CHECK_STR(a.argv[10], "5");
    CHECK(a.argv[11] == NULL, "argv is NULL-terminated");
    CHECK_INT(a.line[1], ==, 2); /* each word's file line; 0 for the extra words */
    CHECK_INT(a.line[7], ==, 5);
    CHECK_INT(a.line[10], ==, 0);
  }
  config_free(&a);

  /* CRLF reads as LF; a quoted word keeps its spaces and is read whole */
  f = fopen(path, "w");
  fputs("-o \"a b\"\r\n-n 3\r\n", f);
  fclose(f);
  CHECK_INT(config_expand(path, "arbench", 0, NULL, &a), ==, 0);
  CHECK_INT(a.argc, ==, 5);
  if (a.argc == 5) {
    CHECK_STR(a.argv[2], "a b");
    CHECK_STR(a.argv[4], "3");
    CHECK_INT(a.line[3], ==, 2);
  }
  config_free(&a);
  /* refused, never misread: a NUL byte, a lone CR, empty, a directory */
  const char *bad[] = {"-n 3\0 -b 1K\n", "-n 3\r-b 1K\n", "", "# only a comment\n"};
  const size_t badlen[] = {12, 11, 0, 17};
  for (int i = 0; i < 4; i++) {
    f = fopen(path, "w");
    fwrite(bad[i], 1, badlen[i], f);
    fclose(f);
    CHECK_INT(config_expand(path, "arbench", 0, NULL, &a), ==, -1);
  }
  CHECK_INT(config_expand("/tmp", "arbench", 0, NULL, &a), ==, -1);

  f = fopen(path, "w");
  fputs("--algo \"ring\n", f);
  fclose(f);
  CHECK_INT(config_expand(path, "arbench", 0, NULL, &a), ==, -1);
  CHECK_INT(config_expand("/nonexistent/x.conf", "arbench", 0, NULL, &a), ==, -1);

  /* input_open's bounds (#35): a line of INPUT_MAX_LINE - 1 bytes is read whole, one more
   * byte is refused; so is /dev/zero (it grew memory without end) and a file over
   * INPUT_MAX_BYTES; the last line needs no newline */
  struct input_file in;
  f = fopen(path, "w");
  for (int i = 0; i < INPUT_MAX_LINE - 1; i++) fputc('a', f);
  fputs("\nlast", f);
  fclose(f);
  CHECK_INT(input_open(&in, "--config", path, "config file", 1000), ==, 0);
  CHECK(input_next(&in) == 1 && in.line_len == INPUT_MAX_LINE - 1 && in.lineno == 1, "a long line");
  CHECK(input_next(&in) == 1 && !strcmp(in.line, "last") && in.lineno == 2, "the last line");
  CHECK_INT(input_next(&in), ==, 0);
  input_close(&in);
  f = fopen(path, "w");
  for (int i = 0; i < INPUT_MAX_LINE; i++) fputc('a', f);
  fclose(f);
  CHECK_INT(input_open(&in, "--config", path, "config file", 1000), ==, -1);
  CHECK_INT(input_open(&in, "--config", "/dev/zero", "config file", 1000), ==, -1);
  f = fopen(path, "w");
  for (int i = 0; i < (INPUT_MAX_BYTES / 2) + 1; i++) fputs("#\n", f);
  fclose(f);
  CHECK_INT(input_open(&in, "--config", path, "config file", 1000), ==, -1);
  /* a FIFO with no writer reads as empty after INPUT_WRITER_MS (opening it blocked for ever); a pipe
   * whose writer never writes is refused after the wait, not waited on for ever; one whose
   * writer writes, then ends, is read whole (pipes as /dev/fd/N: no race on who opens first) */
  char fifo[] = "/tmp/arbench-test-fifoXXXXXX";
  int tfd = mkstemp(fifo);
  close(tfd);
  unlink(fifo);
  CHECK_INT(mkfifo(fifo, 0600), ==, 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK_INT(config_expand(fifo, "arbench", 0, NULL, &a), ==, -1);
  for (int writes = 0; writes < 2; writes++) {
    int pfd[2];
    char dev[64];
    if (pipe(pfd)) break;
    pid_t writer = fork();
    if (writer == 0) { /* holds the write end; writes a line after 100 ms, or nothing */
      close(pfd[0]);
      usleep(100000);
      if (writes && write(pfd[1], "-n 3\n", 5) != 5) _exit(1);
      if (!writes) sleep(30);
      _exit(0);
    }
    close(pfd[1]);
    snprintf(dev, sizeof(dev), "/dev/fd/%d", pfd[0]);
    int rc = input_open(&in, "--config", dev, "config file", writes ? 5000 : 300);
    if (writes) {
      CHECK(rc == 0 && input_next(&in) == 1 && !strcmp(in.line, "-n 3"), "the pipe's line");
      if (rc == 0) input_close(&in);
    } else {
      CHECK_INT(rc, ==, -1);
    }
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
    close(pfd[0]);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
  CHECK(took < 3, "the FIFO and pipes took %.1f s", took);
  unlink(fifo);
  unlink(path);
  return TEST_DONE();
}
