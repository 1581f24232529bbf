/*
 * pmusim's libpfm-3 compatible API: Itanium 2 specific part
 * (see libpfm_itanium2(3) and docs/man/libpfm3/).  Layouts follow libpfm-3.
 */
#ifndef PMUSIM_LIBPFM3_PFMLIB_ITANIUM2_H
#define PMUSIM_LIBPFM3_PFMLIB_ITANIUM2_H

#include <perfmon/pfmlib.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMU_ITA2_FIRST_COUNTER  4   /* PMC4/PMD4 is the first counter pair */
#define PMU_ITA2_NUM_COUNTERS   4   /* PMC4..PMC7 */
#define PMU_ITA2_NUM_PMCS       16
#define PMU_ITA2_NUM_PMDS       18
#define PMU_ITA2_NUM_BTB        8
#define PMU_ITA2_COUNTER_WIDTH  47

/* Instruction set filter (PMC4-7 bits 25:24, PMC10, PMC11). */
typedef enum {
    PFMLIB_ITA2_ISM_BOTH = 0,
    PFMLIB_ITA2_ISM_IA32 = 1,
    PFMLIB_ITA2_ISM_IA64 = 2
} pfmlib_ita2_ism_t;

/* Per-event options; entry i applies to pfp_events[i]. */
typedef struct {
    unsigned int      flags;   /* PFMLIB_ITA2_FL_EVT_* */
    unsigned int      thres;   /* 0 .. maxincr-1 */
    pfmlib_ita2_ism_t ism;
} pfmlib_ita2_counter_t;

#define PFMLIB_ITA2_FL_EVT_NO_QUALCHECK 0x1 /* do not refuse unsupported qualifiers */

/* Opcode matcher PMC8 or PMC9: raw register value. */
typedef struct {
    unsigned char opcm_used;
    unsigned long pmc_val;
} pfmlib_ita2_opcm_t;

/* Branch trace buffer (PMC12) filter. */
typedef struct {
    unsigned char btb_used;
    unsigned char btb_ds;
    unsigned char btb_tm;
    unsigned char btb_ptm;
    unsigned char btb_ppm;
    unsigned char btb_brt;
    unsigned int  btb_plm;
} pfmlib_ita2_btb_t;

typedef enum {
    PFMLIB_ITA2_EAR_CACHE_MODE = 0,
    PFMLIB_ITA2_EAR_TLB_MODE   = 1,
    PFMLIB_ITA2_EAR_ALAT_MODE  = 2   /* D-EAR only */
} pfmlib_ita2_ear_mode_t;

/* I-EAR (PMC10) or D-EAR (PMC11) configuration. */
typedef struct {
    unsigned char          ear_used;
    pfmlib_ita2_ear_mode_t ear_mode;
    pfmlib_ita2_ism_t      ear_ism;
    unsigned int           ear_plm;
    unsigned long          ear_umask;
} pfmlib_ita2_ear_t;

/* One requested range [rr_start, rr_end); rr_plm only matters for code. */
typedef struct {
    unsigned int  rr_plm;
    unsigned long rr_start;
    unsigned long rr_end;
} pfmlib_ita2_input_rr_desc_t;

/* How far the programmed range extends before/after the requested one. */
typedef struct {
    unsigned long rr_soff;
    unsigned long rr_eoff;
} pfmlib_ita2_output_rr_desc_t;

/* Up to 4 ranges; an entry with start = end = 0 ends the list. */
typedef struct {
    unsigned int                rr_flags;   /* PFMLIB_ITA2_RR_* */
    pfmlib_ita2_input_rr_desc_t rr_limits[4];
    unsigned char               rr_used;
} pfmlib_ita2_input_rr_t;

typedef struct {
    unsigned int                 rr_nbr_used;  /* debug registers written (not pairs) */
    pfmlib_ita2_output_rr_desc_t rr_infos[4];
    pfmlib_reg_t                 rr_br[8];     /* reg_num = IBR/DBR index 0..7 */
} pfmlib_ita2_output_rr_t;

#define PFMLIB_ITA2_RR_INV          0x1 /* count outside the code range */
#define PFMLIB_ITA2_RR_NO_FINE_MODE 0x2 /* never use fine mode for code ranges */

typedef struct {
    pfmlib_ita2_counter_t  pfp_ita2_counters[PMU_ITA2_NUM_COUNTERS];
    unsigned long          pfp_ita2_flags;
    pfmlib_ita2_opcm_t     pfp_ita2_pmc8;
    pfmlib_ita2_opcm_t     pfp_ita2_pmc9;
    pfmlib_ita2_ear_t      pfp_ita2_iear;
    pfmlib_ita2_ear_t      pfp_ita2_dear;
    pfmlib_ita2_btb_t      pfp_ita2_btb;
    pfmlib_ita2_input_rr_t pfp_ita2_drange;
    pfmlib_ita2_input_rr_t pfp_ita2_irange;
    unsigned long          reserved[1];
} pfmlib_ita2_input_param_t;

typedef struct {
    pfmlib_ita2_output_rr_t pfp_ita2_drange;
    pfmlib_ita2_output_rr_t pfp_ita2_irange;
    unsigned long           reserved[6];
} pfmlib_ita2_output_param_t;

extern int pfm_ita2_is_ear(unsigned int i);
extern int pfm_ita2_is_dear(unsigned int i);
extern int pfm_ita2_is_dear_tlb(unsigned int i);
extern int pfm_ita2_is_dear_cache(unsigned int i);
extern int pfm_ita2_is_dear_alat(unsigned int i);
extern int pfm_ita2_is_iear(unsigned int i);
extern int pfm_ita2_is_iear_tlb(unsigned int i);
extern int pfm_ita2_is_iear_cache(unsigned int i);
extern int pfm_ita2_is_btb(unsigned int i);
extern int pfm_ita2_support_opcm(unsigned int i);
extern int pfm_ita2_support_iarr(unsigned int i);
extern int pfm_ita2_support_darr(unsigned int i);
extern int pfm_ita2_get_ear_mode(unsigned int i, pfmlib_ita2_ear_mode_t *m);
extern int pfm_ita2_irange_is_fine(pfmlib_output_param_t *outp, pfmlib_ita2_output_param_t *mod_out);
extern int pfm_ita2_get_event_maxincr(unsigned int i, unsigned int *maxincr);
extern int pfm_ita2_get_event_umask(unsigned int i, unsigned long *umask);
extern int pfm_ita2_get_event_group(unsigned int i, int *grp);
extern int pfm_ita2_get_event_set(unsigned int i, int *set);

#define PFMLIB_ITA2_EVT_NO_GRP        0
#define PFMLIB_ITA2_EVT_L1_CACHE_GRP  1
#define PFMLIB_ITA2_EVT_L2_CACHE_GRP  2
#define PFMLIB_ITA2_EVT_NO_SET        -1

#ifdef __cplusplus
}
#endif
#endif
