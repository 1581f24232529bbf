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

/* Register layouts (REF: ../shared/reference/ia64-pmu.md §3-§8, §10), for
 * programs that build or decode register values by field.  Bit 0 first. */
typedef union {
    unsigned long pmc_val;
    struct {                               /* PMC4-PMC7: counter configuration */
        unsigned long pmc_plm:4;
        unsigned long pmc_ev:1;
        unsigned long pmc_oi:1;
        unsigned long pmc_pm:1;
        unsigned long pmc_ig1:1;
        unsigned long pmc_es:8;
        unsigned long pmc_umask:4;
        unsigned long pmc_thres:3;
        unsigned long pmc_enable:1;        /* PMC4 only */
        unsigned long pmc_ism:2;
        unsigned long pmc_ig2:38;
    } pmc_ita2_counter_reg;
    struct {                               /* PMC8, PMC9: opcode matchers */
        unsigned long opcm_ig_ad:1;
        unsigned long opcm_inv:1;
        unsigned long opcm_bit2:1;
        unsigned long opcm_mask:27;
        unsigned long opcm_ig1:3;
        unsigned long opcm_match:27;
        unsigned long opcm_b:1;
        unsigned long opcm_f:1;
        unsigned long opcm_i:1;
        unsigned long opcm_m:1;
    } pmc8_9_ita2_reg;
    struct {                               /* PMC10, cache mode (ct = 1) */
        unsigned long iear_plm:4;
        unsigned long iear_pm:1;
        unsigned long iear_umask:8;
        unsigned long iear_ct:1;
        unsigned long iear_ism:2;
        unsigned long iear_ig4:48;
    } pmc10_ita2_cache_reg;
    struct {                               /* PMC10, TLB mode (ct = 00) */
        unsigned long iear_plm:4;
        unsigned long iear_pm:1;
        unsigned long iear_umask:7;
        unsigned long iear_ct:2;
        unsigned long iear_ism:2;
        unsigned long iear_ig4:48;
    } pmc10_ita2_tlb_reg;
    struct {                               /* PMC11: D-EAR */
        unsigned long dear_plm:4;
        unsigned long dear_ig1:2;
        unsigned long dear_pm:1;
        unsigned long dear_mode:2;
        unsigned long dear_ig2:7;
        unsigned long dear_umask:4;
        unsigned long dear_ig3:4;
        unsigned long dear_ism:2;
        unsigned long dear_ig4:38;
    } pmc11_ita2_reg;
    struct {                               /* PMC12: BTB */
        unsigned long btbc_plm:4;
        unsigned long btbc_ig1:2;
        unsigned long btbc_pm:1;
        unsigned long btbc_ds:1;
        unsigned long btbc_tm:2;
        unsigned long btbc_ptm:2;
        unsigned long btbc_ppm:2;
        unsigned long btbc_brt:2;
        unsigned long btbc_ig2:48;
    } pmc12_ita2_reg;
    struct {                               /* PMC13: data range / constraints */
        unsigned long darc_ig1:3;
        unsigned long darc_cfg_dbrp0:2;
        unsigned long darc_ig2:6;
        unsigned long darc_cfg_dbrp1:2;
        unsigned long darc_ig3:6;
        unsigned long darc_cfg_dbrp2:2;
        unsigned long darc_ig4:6;
        unsigned long darc_cfg_dbrp3:2;
        unsigned long darc_ig5:16;
        unsigned long darc_ena_dbrp0:1;
        unsigned long darc_ena_dbrp1:1;
        unsigned long darc_ena_dbrp2:1;
        unsigned long darc_ena_dbrp3:1;
        unsigned long darc_ig6:15;
    } pmc13_ita2_reg;
    struct {                               /* PMC14: code range */
        unsigned long iarc_ig1:1;
        unsigned long iarc_ibrp0:1;
        unsigned long iarc_ig2:2;
        unsigned long iarc_ibrp1:1;
        unsigned long iarc_ig3:2;
        unsigned long iarc_ibrp2:1;
        unsigned long iarc_ig4:2;
        unsigned long iarc_ibrp3:1;
        unsigned long iarc_ig5:2;
        unsigned long iarc_fine:1;
        unsigned long iarc_ig6:50;
    } pmc14_ita2_reg;
    struct {                               /* PMC15: matcher <-> IBR pairs */
        unsigned long opcmc_ibrp0_pmc8:1;
        unsigned long opcmc_ibrp1_pmc9:1;
        unsigned long opcmc_ibrp2_pmc8:1;
        unsigned long opcmc_ibrp3_pmc9:1;
        unsigned long opcmc_ig1:60;
    } pmc15_ita2_reg;
} pfm_ita2_pmc_reg_t;

typedef union {
    unsigned long pmd_val;
    struct {
        unsigned long pmd_count:47;
        unsigned long pmd_sxt47:17;
    } pmd_ita2_counter_reg;
    struct {                               /* PMD0: I-EAR address */
        unsigned long iear_stat:2;
        unsigned long iear_ig1:3;
        unsigned long iear_iaddr:59;
    } pmd0_ita2_reg;
    struct {                               /* PMD1: I-EAR latency */
        unsigned long iear_latency:12;
        unsigned long iear_overflow:1;
        unsigned long iear_ig1:51;
    } pmd1_ita2_reg;
    struct {                               /* PMD2: D-EAR data address */
        unsigned long dear_daddr;
    } pmd2_ita2_reg;
    struct {                               /* PMD3: D-EAR latency */
        unsigned long dear_latency:13;
        unsigned long dear_overflow:1;
        unsigned long dear_stat:2;
        unsigned long dear_ig1:48;
    } pmd3_ita2_reg;
    struct {                               /* PMD8-15, PMC12.ds = 0 */
        unsigned long btb_b:1;
        unsigned long btb_mp:1;
        unsigned long btb_slot:2;
        unsigned long btb_addr:60;
    } pmd8_15_ita2_reg;
    struct {                               /* PMD8-15, PMC12.ds = 1 */
        unsigned long btb_b:1;
        unsigned long btb_mp:1;
        unsigned long btb_slot:2;
        unsigned long btb_loaddr:37;
        unsigned long btb_pred:20;
        unsigned long btb_hiaddr:3;
    } pmd8_15_ds_ita2_reg;
    struct {                               /* PMD16: BTB index and extensions */
        unsigned long btbi_bbi:3;
        unsigned long btbi_full:1;
        unsigned long btbi_pmd8ext_b1:1;
        unsigned long btbi_pmd8ext_bruflush:1;
        unsigned long btbi_pmd8ext_ig:2;
        unsigned long btbi_pmd9ext_b1:1;
        unsigned long btbi_pmd9ext_bruflush:1;
        unsigned long btbi_pmd9ext_ig:2;
        unsigned long btbi_pmd10ext_b1:1;
        unsigned long btbi_pmd10ext_bruflush:1;
        unsigned long btbi_pmd10ext_ig:2;
        unsigned long btbi_pmd11ext_b1:1;
        unsigned long btbi_pmd11ext_bruflush:1;
        unsigned long btbi_pmd11ext_ig:2;
        unsigned long btbi_pmd12ext_b1:1;
        unsigned long btbi_pmd12ext_bruflush:1;
        unsigned long btbi_pmd12ext_ig:2;
        unsigned long btbi_pmd13ext_b1:1;
        unsigned long btbi_pmd13ext_bruflush:1;
        unsigned long btbi_pmd13ext_ig:2;
        unsigned long btbi_pmd14ext_b1:1;
        unsigned long btbi_pmd14ext_bruflush:1;
        unsigned long btbi_pmd14ext_ig:2;
        unsigned long btbi_pmd15ext_b1:1;
        unsigned long btbi_pmd15ext_bruflush:1;
        unsigned long btbi_pmd15ext_ig:2;
        unsigned long btbi_ignored:28;
    } pmd16_ita2_reg;
    struct {                               /* PMD17: D-EAR instruction address */
        unsigned long dear_slot:2;
        unsigned long dear_bn:1;
        unsigned long dear_vl:1;
        unsigned long dear_iaddr:60;
    } pmd17_ita2_reg;
} pfm_ita2_pmd_reg_t;

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
