/*
 * pmusim's libpfm-3 compatible API: Montecito (Itanium 2 9000) specific part
 * (see libpfm_montecito(3) and docs/man/libpfm3/).  Layouts follow libpfm-3.
 */
#ifndef PMUSIM_LIBPFM3_PFMLIB_MONTECITO_H
#define PMUSIM_LIBPFM3_PFMLIB_MONTECITO_H

#include <perfmon/pfmlib.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMU_MONT_FIRST_COUNTER  4   /* PMC4/PMD4 */
#define PMU_MONT_NUM_COUNTERS   12  /* PMC4..PMC15 */
#define PMU_MONT_NUM_PMCS       27
#define PMU_MONT_NUM_PMDS       36
#define PMU_MONT_NUM_ETB        16
#define PMU_MONT_COUNTER_WIDTH  47

/* Per-event options; entry i applies to pfp_events[i]. */
typedef struct {
    unsigned int flags;  /* PFMLIB_MONT_FL_EVT_* */
    unsigned int thres;  /* 0 .. maxincr-1 */
} pfmlib_mont_counter_t;

#define PFMLIB_MONT_FL_EVT_NO_QUALCHECK 0x1 /* do not refuse unsupported qualifiers */
#define PFMLIB_MONT_FL_EVT_ALL_THRD     0x2 /* count for both threads (not supported) */
#define PFMLIB_MONT_FL_EVT_ACTIVE_ONLY  0x4 /* reserved */
#define PFMLIB_MONT_FL_EVT_ALWAYS       0x8 /* reserved */

/* Opcode matcher 1 (PMC32/33) or 2 (PMC34/35). */
typedef struct {
    unsigned char opcm_used;
    unsigned char opcm_m;
    unsigned char opcm_i;
    unsigned char opcm_f;
    unsigned char opcm_b;
    unsigned long opcm_match;  /* 41 bits */
    unsigned long opcm_mask;   /* 41 bits; 1 = ignore this bit */
} pfmlib_mont_opcm_t;

/* Execution trace buffer (PMC39) filter.  etb_ds is accepted for source
 * compatibility with the manual page; the hardware value 1 is reserved and
 * the library always programs 0. */
typedef struct {
    unsigned char etb_used;
    unsigned int  etb_plm;
    unsigned char etb_ds;
    unsigned char etb_tm;
    unsigned char etb_ptm;
    unsigned char etb_ppm;
    unsigned char etb_brt;
} pfmlib_mont_etb_t;

/* IP event address register (PMC42), shares the ETB data registers. */
typedef struct {
    unsigned char  ipear_used;
    unsigned int   ipear_plm;
    unsigned short ipear_delay;  /* 0..255 */
} pfmlib_mont_ipear_t;

typedef enum {
    PFMLIB_MONT_EAR_CACHE_MODE = 0,
    PFMLIB_MONT_EAR_TLB_MODE   = 1,
    PFMLIB_MONT_EAR_ALAT_MODE  = 2   /* D-EAR only */
} pfmlib_mont_ear_mode_t;

/* I-EAR (PMC37) or D-EAR (PMC40) configuration. */
typedef struct {
    unsigned char          ear_used;
    pfmlib_mont_ear_mode_t ear_mode;
    unsigned int           ear_plm;
    unsigned long          ear_umask;
} pfmlib_mont_ear_t;

typedef struct {
    unsigned int  rr_plm;
    unsigned long rr_start;
    unsigned long rr_end;
} pfmlib_mont_input_rr_desc_t;

typedef struct {
    unsigned long rr_soff;
    unsigned long rr_eoff;
} pfmlib_mont_output_rr_desc_t;

typedef struct {
    unsigned int                rr_flags;   /* PFMLIB_MONT_RR_*, PFMLIB_MONT_IRR_* */
    pfmlib_mont_input_rr_desc_t rr_limits[4];
    unsigned char               rr_used;
} pfmlib_mont_input_rr_t;

#define PFMLIB_MONT_RR_INV             0x1 /* count outside the code range */
#define PFMLIB_MONT_RR_NO_FINE_MODE    0x2 /* never use fine mode for code ranges */
#define PFMLIB_MONT_IRR_DEMAND_FETCH   0x4 /* dual events: demand fetches (IBRP0) */
#define PFMLIB_MONT_IRR_PREFETCH_MATCH 0x8 /* dual events: prefetches (IBRP1) */

typedef struct {
    unsigned int                 rr_nbr_used;
    pfmlib_mont_output_rr_desc_t rr_infos[4];
    pfmlib_reg_t                 rr_br[8];
} pfmlib_mont_output_rr_t;

typedef struct {
    pfmlib_mont_counter_t  pfp_mont_counters[PMU_MONT_NUM_COUNTERS];
    unsigned long          pfp_mont_flags;
    pfmlib_mont_opcm_t     pfp_mont_opcm1;
    pfmlib_mont_opcm_t     pfp_mont_opcm2;
    pfmlib_mont_ear_t      pfp_mont_iear;
    pfmlib_mont_ear_t      pfp_mont_dear;
    pfmlib_mont_ipear_t    pfp_mont_ipear;
    pfmlib_mont_etb_t      pfp_mont_etb;
    pfmlib_mont_input_rr_t pfp_mont_drange;
    pfmlib_mont_input_rr_t pfp_mont_irange;
    unsigned long          reserved[1];
} pfmlib_mont_input_param_t;

typedef struct {
    pfmlib_mont_output_rr_t pfp_mont_drange;
    pfmlib_mont_output_rr_t pfp_mont_irange;
    unsigned long           reserved[6];
} pfmlib_mont_output_param_t;

extern int pfm_mont_is_ear(unsigned int i);
extern int pfm_mont_is_dear(unsigned int i);
extern int pfm_mont_is_dear_tlb(unsigned int i);
extern int pfm_mont_is_dear_cache(unsigned int i);
extern int pfm_mont_is_dear_alat(unsigned int i);
extern int pfm_mont_is_iear(unsigned int i);
extern int pfm_mont_is_iear_tlb(unsigned int i);
extern int pfm_mont_is_iear_cache(unsigned int i);
extern int pfm_mont_is_etb(unsigned int i);
extern int pfm_mont_support_opcm(unsigned int i);
extern int pfm_mont_support_iarr(unsigned int i);
extern int pfm_mont_support_darr(unsigned int i);
extern int pfm_mont_support_all(unsigned int i);
extern int pfm_mont_get_ear_mode(unsigned int i, pfmlib_mont_ear_mode_t *m);
extern int pfm_mont_irange_is_fine(pfmlib_output_param_t *outp, pfmlib_mont_output_param_t *mod_out);
extern int pfm_mont_get_event_maxincr(unsigned int i, unsigned int *maxincr);
extern int pfm_mont_get_event_umask(unsigned int i, unsigned long *umask);
extern int pfm_mont_get_event_group(unsigned int i, int *grp);
extern int pfm_mont_get_event_set(unsigned int i, int *set);
extern int pfm_mont_get_event_type(unsigned int i, int *type);

#define PFMLIB_MONT_EVT_NO_GRP         0
#define PFMLIB_MONT_EVT_L1D_CACHE_GRP  1
#define PFMLIB_MONT_EVT_L2D_CACHE_GRP  2
#define PFMLIB_MONT_EVT_NO_SET         -1

#define PFMLIB_MONT_EVT_ACTIVE         0
#define PFMLIB_MONT_EVT_FLOATING       1
#define PFMLIB_MONT_EVT_CAUSAL         2
#define PFMLIB_MONT_EVT_SELF_FLOATING  3

#ifdef __cplusplus
}
#endif
#endif
