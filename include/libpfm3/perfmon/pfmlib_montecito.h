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

/* Register layouts (REF: ../shared/reference/ia64-pmu.md §3-§10), for
 * programs that build or decode register values by field.  Bit 0 first. */
typedef union {
    unsigned long pmc_val;
    struct {                               /* PMC4-PMC15: counter configuration */
        unsigned long pmc_plm:4;
        unsigned long pmc_ev:1;
        unsigned long pmc_oi:1;
        unsigned long pmc_pm:1;
        unsigned long pmc_ig1:1;
        unsigned long pmc_es:8;
        unsigned long pmc_umask:4;
        unsigned long pmc_thres:3;
        unsigned long pmc_ig2:1;
        unsigned long pmc_ism:2;           /* always 2 (IA-64) */
        unsigned long pmc_all:1;           /* 1: both threads */
        unsigned long pmc_i:1;             /* MESI filter */
        unsigned long pmc_s:1;
        unsigned long pmc_e:1;
        unsigned long pmc_m:1;
        unsigned long pmc_res3:33;
    } pmc_mont_counter_reg;
    struct {                               /* PMC32, PMC34: matcher mask */
        unsigned long opcm_mask:41;
        unsigned long opcm_ig1:7;
        unsigned long opcm_b:1;
        unsigned long opcm_f:1;
        unsigned long opcm_i:1;
        unsigned long opcm_m:1;
        unsigned long opcm_ig2:4;
        unsigned long opcm_inv:1;          /* PMC32 only */
        unsigned long opcm_ig_ad:1;        /* PMC32 only */
        unsigned long opcm_ig3:6;
    } pmc32_34_mont_reg;
    struct {                               /* PMC33, PMC35: matcher match */
        unsigned long opcm_match:41;
        unsigned long opcm_ig1:23;
    } pmc33_35_mont_reg;
    struct {                               /* PMC36: channel <-> matcher */
        unsigned long opcm_ch0_ig_opcm:1;
        unsigned long opcm_ch1_ig_opcm:1;
        unsigned long opcm_ch2_ig_opcm:1;
        unsigned long opcm_ch3_ig_opcm:1;
        unsigned long opcm_res:28;
        unsigned long opcm_ig:32;
    } pmc36_mont_reg;
    struct {                               /* PMC37, cache mode */
        unsigned long iear_plm:4;
        unsigned long iear_pm:1;
        unsigned long iear_umask:8;
        unsigned long iear_ct:1;
        unsigned long iear_res:2;
        unsigned long iear_ig:48;
    } pmc37_mont_cache_reg;
    struct {                               /* PMC37, TLB mode */
        unsigned long iear_plm:4;
        unsigned long iear_pm:1;
        unsigned long iear_umask:7;
        unsigned long iear_ct:2;
        unsigned long iear_res:50;
    } pmc37_mont_tlb_reg;
    struct {                               /* PMC40: D-EAR */
        unsigned long dear_plm:4;
        unsigned long dear_ig1:2;
        unsigned long dear_pm:1;
        unsigned long dear_mode:2;
        unsigned long dear_ig2:7;
        unsigned long dear_umask:4;
        unsigned long dear_ig3:4;
        unsigned long dear_ism:2;
        unsigned long dear_ig4:38;
    } pmc40_mont_reg;
    struct {                               /* PMC42: IP-EAR */
        unsigned long ipear_plm:4;
        unsigned long ipear_ig1:2;
        unsigned long ipear_pm:1;
        unsigned long ipear_ig2:1;
        unsigned long ipear_mode:3;
        unsigned long ipear_delay:8;
        unsigned long ipear_ig3:45;
    } pmc42_mont_reg;
    struct {                               /* PMC39: ETB */
        unsigned long etbc_plm:4;
        unsigned long etbc_res1:2;
        unsigned long etbc_pm:1;
        unsigned long etbc_ds:1;
        unsigned long etbc_tm:2;
        unsigned long etbc_ptm:2;
        unsigned long etbc_ppm:2;
        unsigned long etbc_brt:2;
        unsigned long etbc_ig:48;
    } pmc39_mont_reg;
    struct {                               /* PMC41: data range / constraints */
        unsigned long darc_res1:3;
        unsigned long darc_cfg_dtag0:2;
        unsigned long darc_res2:6;
        unsigned long darc_cfg_dtag1:2;
        unsigned long darc_res3:6;
        unsigned long darc_cfg_dtag2:2;
        unsigned long darc_res4:6;
        unsigned long darc_cfg_dtag3:2;
        unsigned long darc_res5:16;
        unsigned long darc_ena_dbrp0:1;
        unsigned long darc_ena_dbrp1:1;
        unsigned long darc_ena_dbrp2:1;
        unsigned long darc_ena_dbrp3:1;
        unsigned long darc_res6:15;
    } pmc41_mont_reg;
    struct {                               /* PMC38: code range */
        unsigned long iarc_res1:1;
        unsigned long iarc_ig_ibrp0:1;
        unsigned long iarc_res2:2;
        unsigned long iarc_ig_ibrp1:1;
        unsigned long iarc_res3:2;
        unsigned long iarc_ig_ibrp2:1;
        unsigned long iarc_res4:2;
        unsigned long iarc_ig_ibrp3:1;
        unsigned long iarc_res5:2;
        unsigned long iarc_fine:1;
        unsigned long iarc_ig6:50;
    } pmc38_mont_reg;
} pfm_mont_pmc_reg_t;

typedef union {
    unsigned long pmd_val;
    struct {
        unsigned long pmd_count:47;
        unsigned long pmd_sxt47:17;
    } pmd_mont_counter_reg;
    struct {                               /* PMD32: D-EAR data address */
        unsigned long dear_daddr;
    } pmd32_mont_reg;
    struct {                               /* PMD33: D-EAR latency */
        unsigned long dear_latency:13;
        unsigned long dear_ov:1;
        unsigned long dear_stat:2;
        unsigned long dear_ig:48;
    } pmd33_mont_reg;
    struct {                               /* PMD34: I-EAR address */
        unsigned long iear_stat:2;
        unsigned long iear_ig:3;
        unsigned long iear_iaddr:59;
    } pmd34_mont_reg;
    struct {                               /* PMD35: I-EAR latency */
        unsigned long iear_latency:12;
        unsigned long iear_ov:1;
        unsigned long iear_ig:51;
    } pmd35_mont_reg;
    struct {                               /* PMD36: D-EAR instruction address */
        unsigned long dear_slot:2;
        unsigned long dear_bn:1;
        unsigned long dear_vl:1;
        unsigned long dear_iaddr:60;
    } pmd36_mont_reg;
    struct {                               /* PMD38: ETB index */
        unsigned long etbi_ebi:4;
        unsigned long etbi_ig1:1;
        unsigned long etbi_full:1;
        unsigned long etbi_ig2:58;
    } pmd38_mont_reg;
    struct {                               /* PMD39, ETB mode: entry extensions (interleaved) */
        unsigned long etb_pmd48ext_b1:1;
        unsigned long etb_pmd48ext_bruflush:1;
        unsigned long etb_pmd48ext_res:2;
        unsigned long etb_pmd56ext_b1:1;
        unsigned long etb_pmd56ext_bruflush:1;
        unsigned long etb_pmd56ext_res:2;
        unsigned long etb_pmd49ext_b1:1;
        unsigned long etb_pmd49ext_bruflush:1;
        unsigned long etb_pmd49ext_res:2;
        unsigned long etb_pmd57ext_b1:1;
        unsigned long etb_pmd57ext_bruflush:1;
        unsigned long etb_pmd57ext_res:2;
        unsigned long etb_pmd50ext_b1:1;
        unsigned long etb_pmd50ext_bruflush:1;
        unsigned long etb_pmd50ext_res:2;
        unsigned long etb_pmd58ext_b1:1;
        unsigned long etb_pmd58ext_bruflush:1;
        unsigned long etb_pmd58ext_res:2;
        unsigned long etb_pmd51ext_b1:1;
        unsigned long etb_pmd51ext_bruflush:1;
        unsigned long etb_pmd51ext_res:2;
        unsigned long etb_pmd59ext_b1:1;
        unsigned long etb_pmd59ext_bruflush:1;
        unsigned long etb_pmd59ext_res:2;
        unsigned long etb_pmd52ext_b1:1;
        unsigned long etb_pmd52ext_bruflush:1;
        unsigned long etb_pmd52ext_res:2;
        unsigned long etb_pmd60ext_b1:1;
        unsigned long etb_pmd60ext_bruflush:1;
        unsigned long etb_pmd60ext_res:2;
        unsigned long etb_pmd53ext_b1:1;
        unsigned long etb_pmd53ext_bruflush:1;
        unsigned long etb_pmd53ext_res:2;
        unsigned long etb_pmd61ext_b1:1;
        unsigned long etb_pmd61ext_bruflush:1;
        unsigned long etb_pmd61ext_res:2;
        unsigned long etb_pmd54ext_b1:1;
        unsigned long etb_pmd54ext_bruflush:1;
        unsigned long etb_pmd54ext_res:2;
        unsigned long etb_pmd62ext_b1:1;
        unsigned long etb_pmd62ext_bruflush:1;
        unsigned long etb_pmd62ext_res:2;
        unsigned long etb_pmd55ext_b1:1;
        unsigned long etb_pmd55ext_bruflush:1;
        unsigned long etb_pmd55ext_res:2;
        unsigned long etb_pmd63ext_b1:1;
        unsigned long etb_pmd63ext_bruflush:1;
        unsigned long etb_pmd63ext_res:2;
    } pmd39_mont_reg;
    struct {                               /* PMD39, IP-EAR mode */
        unsigned long ipear_pmd48ext_cycles:2;
        unsigned long ipear_pmd48ext_f:1;
        unsigned long ipear_pmd48ext_ef:1;
        unsigned long ipear_pmd56ext_cycles:2;
        unsigned long ipear_pmd56ext_f:1;
        unsigned long ipear_pmd56ext_ef:1;
        unsigned long ipear_pmd49ext_cycles:2;
        unsigned long ipear_pmd49ext_f:1;
        unsigned long ipear_pmd49ext_ef:1;
        unsigned long ipear_pmd57ext_cycles:2;
        unsigned long ipear_pmd57ext_f:1;
        unsigned long ipear_pmd57ext_ef:1;
        unsigned long ipear_pmd50ext_cycles:2;
        unsigned long ipear_pmd50ext_f:1;
        unsigned long ipear_pmd50ext_ef:1;
        unsigned long ipear_pmd58ext_cycles:2;
        unsigned long ipear_pmd58ext_f:1;
        unsigned long ipear_pmd58ext_ef:1;
        unsigned long ipear_pmd51ext_cycles:2;
        unsigned long ipear_pmd51ext_f:1;
        unsigned long ipear_pmd51ext_ef:1;
        unsigned long ipear_pmd59ext_cycles:2;
        unsigned long ipear_pmd59ext_f:1;
        unsigned long ipear_pmd59ext_ef:1;
        unsigned long ipear_pmd52ext_cycles:2;
        unsigned long ipear_pmd52ext_f:1;
        unsigned long ipear_pmd52ext_ef:1;
        unsigned long ipear_pmd60ext_cycles:2;
        unsigned long ipear_pmd60ext_f:1;
        unsigned long ipear_pmd60ext_ef:1;
        unsigned long ipear_pmd53ext_cycles:2;
        unsigned long ipear_pmd53ext_f:1;
        unsigned long ipear_pmd53ext_ef:1;
        unsigned long ipear_pmd61ext_cycles:2;
        unsigned long ipear_pmd61ext_f:1;
        unsigned long ipear_pmd61ext_ef:1;
        unsigned long ipear_pmd54ext_cycles:2;
        unsigned long ipear_pmd54ext_f:1;
        unsigned long ipear_pmd54ext_ef:1;
        unsigned long ipear_pmd62ext_cycles:2;
        unsigned long ipear_pmd62ext_f:1;
        unsigned long ipear_pmd62ext_ef:1;
        unsigned long ipear_pmd55ext_cycles:2;
        unsigned long ipear_pmd55ext_f:1;
        unsigned long ipear_pmd55ext_ef:1;
        unsigned long ipear_pmd63ext_cycles:2;
        unsigned long ipear_pmd63ext_f:1;
        unsigned long ipear_pmd63ext_ef:1;
    } pmd39_ipear_mont_reg;
    struct {                               /* PMD48-63, ETB mode */
        unsigned long etb_s:1;
        unsigned long etb_mp:1;
        unsigned long etb_slot:2;
        unsigned long etb_addr:60;
    } pmd48_63_etb_mont_reg;
    struct {                               /* PMD48-63, IP-EAR, ef = 0 */
        unsigned long ipear_addr:60;
        unsigned long ipear_cycles:4;
    } pmd48_63_ipear_mont_reg;
    struct {                               /* PMD48-63, IP-EAR, ef = 1 */
        unsigned long ipear_delay:8;
        unsigned long ipear_addr:52;
        unsigned long ipear_cycles:4;
    } pmd48_63_ipear_ef_mont_reg;
} pfm_mont_pmd_reg_t;

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
