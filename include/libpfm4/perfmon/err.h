/* perfmon/err.h of the libpfm-4 face: err(), errx(), warn() and warnx() for
 * programs written against libpfm-4 (its examples include this header).  On
 * the systems pmusim builds on they are the C library's, from <err.h>. */
#ifndef PMUSIM_LIBPFM4_ERR_H
#define PMUSIM_LIBPFM4_ERR_H

#include <err.h>

#endif
