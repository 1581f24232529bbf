/* pmusim libpfm-3 face: compiler helpers that <perfmon/pfmlib.h> relies on. */
#ifndef PMUSIM_LIBPFM3_PFMLIB_COMP_H
#define PMUSIM_LIBPFM3_PFMLIB_COMP_H

/* Number of bits set in a register-mask word. */
static inline int pfmlib_popcnt(unsigned long v)
{
    return __builtin_popcountl(v);
}

#endif
