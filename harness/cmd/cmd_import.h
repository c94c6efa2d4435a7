/* arbench import nccl-tests FILE...: nccl-tests' AllReduce logs (its text table or its -J
 * JSON) as a run folder of source=nccl-tests rows (cmd_import.c). */
#ifndef HX_CMD_IMPORT_H
#define HX_CMD_IMPORT_H

int cmd_import(int argc, char **argv);

#endif
