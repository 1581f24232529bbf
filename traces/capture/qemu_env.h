/* How to start qemu-x86_64 (QEMU 7.2 user mode) so that its guest program
 * sees a given environment while QEMU itself runs with one pmusim controls
 * (docs/CAPTURE.md, "The guest's environment").  Used by `pmusim trace
 * capture` for the program and by the plugin for an execve under
 * --trace-children; plain C and libc only, as the plugin links no GLib.
 *
 * QEMU builds the guest's environment from its own (the host process's),
 * then applies QEMU_SET_ENV/QEMU_UNSET_ENV and the -E/-U options, in a
 * list where each new name goes to the front: the guest sees QEMU's own
 * environment in reverse order after the -E entries, the last -E first.
 * -E splits its argument at commas and stops QEMU at an entry without
 * '=', and a name set twice is kept once.  So the plan passes each entry
 * with -E, last first, and QEMU's own environment stays empty; what -E
 * cannot carry (an entry with a comma) goes through QEMU's own
 * environment when no part of the host process reads that name. */
#ifndef PMUSIM_QEMU_ENV_H
#define PMUSIM_QEMU_ENV_H

#include <stddef.h>

typedef struct qemu_env_plan {
    char **args;   /* "-E", "NAME=VALUE", ... for QEMU's options; NULL-terminated */
    size_t nargs;  /* strings in args */
    char **host;   /* QEMU's own environment, NULL-terminated (may be empty) */
    char *note;    /* NULL when the guest sees exactly `env`; else what differs */
} qemu_env_plan_t;

/* Plans `env` (NULL-terminated; NULL: empty).  The strings of args and host
 * point into env's, which must outlive the plan.  Returns 0, or -1 when out
 * of memory (the plan is then empty). */
int qemu_env_plan(char *const *env, qemu_env_plan_t *plan);
void qemu_env_plan_free(qemu_env_plan_t *plan);

/* 1 when a variable of this name (the text up to '=' or the end) changes
 * the host QEMU process itself: the dynamic loader's LD_*, QEMU's QEMU_*,
 * the C library's GLIBC_TUNABLES and MALLOC_*, GLib's G_*. */
int qemu_env_host_reads(const char *entry);

#endif
