/* Config files expand into the words the command line would have had. */
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
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
  unlink(path);
  return TEST_DONE();
}
