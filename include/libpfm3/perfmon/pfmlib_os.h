/* pmusim libpfm-3 face: OS part of the API.  pmusim never talks to a kernel
 * (it produces register values only), so this header declares nothing; it
 * exists because libpfm-3 programs may include it. */
#ifndef PMUSIM_LIBPFM3_PFMLIB_OS_H
#define PMUSIM_LIBPFM3_PFMLIB_OS_H
#endif
