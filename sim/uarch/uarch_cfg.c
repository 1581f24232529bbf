/* Per-CPU parameters of the microarchitecture model, and the cachegrind-style
 * options that override them.
 *
 * Every value cites its row in ../shared/reference/uarch.md (tags in
 * brackets are that document's sources; D = vendor-documented, M = measured,
 * S = a simulator's choice, E = our estimate).  docs/UARCH.md repeats the
 * table with the sources and says what is not modelled. */
#include "uarch_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(pmusim-uarch-error-quark, pmusim_uarch_error)

#define KIB UINT64_C(1024)
#define MIB (UINT64_C(1024) * 1024)
#define PAGE 4096u

/* Westmere core (uarch.md §1.1-1.4, Xeon X5650 [7CPU-WSM]); the two PMU
 * names differ in the uncore (§1.1 L3 and DRAM, §1.8 for 06_25) and in the
 * offcore response bits (§1.6). */
#define WSM_CORE                                                                   \
    .max_threads = 2,                                                              \
    .l1i = { 32 * KIB, 4, 64 },     /* §1.1 M [7CPU-WSM] */                        \
    .l1d = { 32 * KIB, 8, 64 },     /* §1.1 M [7CPU-WSM] */                        \
    .l2 = { 256 * KIB, 8, 64 },     /* §1.1 M [7CPU-WSM] */                        \
    .l3_inclusive = TRUE,           /* §1.1 D [SDM-UNC] */                         \
    .lat_l1d = 4, .lat_l2 = 10, .lat_l2_fp = 10, .lat_l3 = 40, /* §1.1, §6 #5 */   \
    .dtlb = { 64 * PAGE, 4, PAGE },  /* §1.2 D* [TH-NHM] */                        \
    .stlb = { 512 * PAGE, 4, PAGE }, /* §1.2 D* [TH-NHM] */                        \
    .itlb = { 128 * PAGE, 4, PAGE }, /* §1.2 D* (Nehalem; §6 #8 flagged) */        \
    .lat_stlb_hit = 7, .lat_walk = 23, /* §1.2 D* opt. manual; M [7CPU-WSM] */     \
    .bp_log2_entries = 14,          /* §1.3 S [ZSIM] 2^14 2-bit counters */        \
    .bp_hist_bits = 14,             /* E: gshare history (ZSim keeps 18 bits) */   \
    .btb_entries = 512, .btb_assoc = 4, /* §1.3 [UNVERIFIED] E */                  \
    .ras_depth = 16,                /* §1.3 D* [AGNER] */                          \
    .mispredict_penalty = 17,       /* §1.3, §6 #1 */                              \
    .resteer_penalty = 8,           /* §1.3 S [ZSIM] BACLEAR */                    \
    .width = 4, .window = 128,      /* §1.4 D*, M [7CPU-WSM] */                    \
    .lb_entries = 48, .sb_entries = 32, /* §1.4 M [7CPU-WSM]; S [SNIPER] rob.cfg */ \
    .rs_entries = 36,               /* §1 table: unified, M [7CPU-WSM]; S [ZSIM] */ \
    .lfb_entries = 10,              /* §1.4 M [7CPU-WSM]; S [SNIPER] */             \
    .lat_div_int = 23, .lat_div_fp = 7, /* S [ZSIM] 32-bit DIV; DIVSD/SQRTSD */    \
    .ms_uops = 4,                   /* §1.4 D*: MSROM for > 4 uops */              \
    .lsd_uops = 28,                 /* §1.3, §1.4 D* opt. manual: 28-uop LSD/IDQ */ \
    .macro_fusion = TRUE,           /* §1.4 D*: CMP/TEST + Jcc, 64-bit mode too */ \
    .ev = {                                                                        \
        .l1d_m_evict = { 0x51, 0x04, TRUE },  /* L1D:M_EVICT */                    \
        .l2_lines_in = { 0xf1, 0x07, TRUE },  /* L2_LINES_IN:ANY */                \
        .l2_out_clean = { 0xf2, 0x01, TRUE }, /* L2_LINES_OUT:DEMAND_CLEAN */      \
        .l2_out_dirty = { 0xf2, 0x02, TRUE }, /* L2_LINES_OUT:DEMAND_DIRTY */      \
        .l2_out_any = { 0xf2, 0x0f, TRUE },   /* L2_LINES_OUT:ANY */               \
        .l1i_miss = { 0x80, 0x02, TRUE },     /* L1I:MISSES */                     \
        .l1i_hit = { 0x80, 0x01, TRUE },      /* L1I:HITS */                       \
        .itlb_miss = { 0x85, 0x01, TRUE },    /* ITLB_MISSES:ANY */                \
        .itlb_walk = { 0x85, 0x02, TRUE },    /* ITLB_MISSES:WALK_COMPLETED */     \
        .itlb_stlb_hit = { 0x85, 0x10, TRUE }, /* ITLB_MISSES:STLB_HIT */          \
        .itlb_miss_ret = { 0xc8, 0x20, TRUE }, /* ITLB_MISS_RETIRED */            \
        .itlb_walk_cyc = { 0x85, 0x04, TRUE }, /* ITLB_MISSES:WALK_CYCLES */       \
        .dtlb_walk_cyc = { 0x49, 0x04, TRUE }, /* DTLB_MISSES:WALK_CYCLES */       \
        .dtlb_ld_walk_cyc = { 0x08, 0x04, TRUE }, /* DTLB_LOAD_MISSES:WALK_CYCLES */ \
        .l2_ifetch_hit = { 0x24, 0x10, TRUE }, /* L2_RQSTS:IFETCH_HIT */           \
        .l2_ifetch_miss = { 0x24, 0x20, TRUE }, /* L2_RQSTS:IFETCH_MISS */         \
        .l2_pf_hit = { 0x24, 0x40, TRUE },    /* L2_RQSTS:PREFETCH_HIT (none) */   \
        .l2_pf_miss = { 0x24, 0x80, TRUE },   /* L2_RQSTS:PREFETCH_MISS (none) */  \
        .l2_tr_ifetch = { 0xf0, 0x04, TRUE }, /* L2_TRANSACTIONS:IFETCH */         \
        .l2_tr_pf = { 0xf0, 0x08, TRUE },     /* L2_TRANSACTIONS:PREFETCH (none) */\
        .l2_tr_l1d_wb = { 0xf0, 0x10, TRUE }, /* L2_TRANSACTIONS:L1D_WB */         \
        .l2_tr_fill = { 0xf0, 0x20, TRUE },   /* L2_TRANSACTIONS:FILL */           \
        .l2_tr_wb = { 0xf0, 0x40, TRUE },     /* L2_TRANSACTIONS:WB */             \
        .l1d_wb_l2 = { 0x28, 0x0f, TRUE },    /* L1D_WB_L2:MESI */                 \
        .l1d_wb_l2_miss = { 0x28, 0x01, TRUE }, /* L1D_WB_L2:I_STATE */            \
        .oc_l1d_wb = { 0xb0, 0x40, TRUE },    /* OFFCORE_REQUESTS:L1D_WRITEBACK */ \
        .l2_ld_e = { 0x26, 0x04, TRUE },      /* L2_DATA_RQSTS:DEMAND_E_STATE */   \
        .l2_ld_m = { 0x26, 0x08, TRUE },      /* :DEMAND_M_STATE */                \
        .l2_ld_s = { 0x26, 0x02, TRUE },      /* :DEMAND_S_STATE (none) */         \
        .l2_rfo_e = { 0x27, 0x04, TRUE },     /* L2_WRITE RFO E state (no name) */ \
        .l2_rfo_m = { 0x27, 0x08, TRUE },     /* L2_WRITE:RFO_M_STATE */           \
        .l2_rfo_s = { 0x27, 0x02, TRUE },     /* L2_WRITE:RFO_S_STATE (none) */    \
        .l2_lock_e = { 0x27, 0x40, TRUE },    /* L2_WRITE:LOCK_E_STATE */          \
        .l2_lock_m = { 0x27, 0x80, TRUE },    /* L2_WRITE:LOCK_M_STATE */          \
        .l2_lock_s = { 0x27, 0x20, TRUE },    /* L2_WRITE:LOCK_S_STATE (none) */   \
        .l2_pf_i = { 0x26, 0x10, TRUE },      /* :PREFETCH_I_STATE (none) */     \
        .l2_pf_s = { 0x26, 0x20, TRUE },      /* :PREFETCH_S_STATE (none) */     \
        .l2_pf_e = { 0x26, 0x40, TRUE },      /* :PREFETCH_E_STATE (none) */     \
        .l2_pf_m = { 0x26, 0x80, TRUE },      /* :PREFETCH_M_STATE (none) */     \
        .l2_in_e = { 0xf1, 0x04, TRUE },      /* L2_LINES_IN:E_STATE */            \
        .l2_in_s = { 0xf1, 0x02, TRUE },      /* L2_LINES_IN:S_STATE (none) */     \
        .l1d_wb_l2_e = { 0x28, 0x04, TRUE },  /* L1D_WB_L2:E_STATE */              \
        .l1d_wb_l2_m = { 0x28, 0x08, TRUE },  /* L1D_WB_L2:M_STATE */              \
        .l1d_wb_l2_s = { 0x28, 0x02, TRUE },  /* L1D_WB_L2:S_STATE (none) */       \
        .baclear = { 0xe6, 0x01, TRUE },      /* BACLEAR:CLEAR */                  \
        .rob_full = { 0xa2, 0x10, TRUE },     /* RESOURCE_STALLS:ROB_FULL */       \
        .lb_full = { 0xa2, 0x02, TRUE },      /* RESOURCE_STALLS:LOAD */           \
        .sb_full = { 0xa2, 0x08, TRUE },      /* RESOURCE_STALLS:STORE */          \
        .rs_full = { 0xa2, 0x04, TRUE },      /* RESOURCE_STALLS:RS_FULL */        \
        .res_stall_any = { 0xa2, 0x01, TRUE }, /* RESOURCE_STALLS:ANY */           \
        .fetch_stall_cyc = { 0x80, 0x04, TRUE }, /* L1I:CYCLES_STALLED */          \
        .port = { { 0xb1, 0x01, TRUE },       /* UOPS_EXECUTED:PORT0 */            \
                  { 0xb1, 0x02, TRUE },       /* :PORT1 */                         \
                  { 0xb1, 0x04, TRUE },       /* :PORT2_CORE (AnyThread bit) */    \
                  { 0xb1, 0x08, TRUE },       /* :PORT3_CORE */                    \
                  { 0xb1, 0x10, TRUE },       /* :PORT4_CORE */                    \
                  { 0xb1, 0x20, TRUE } },     /* :PORT5 */                         \
        .ld_rs_delayed = { 0x13, 0x02, TRUE }, /* LOAD_DISPATCH:RS_DELAYED (none) */\
        .ld_mob = { 0x13, 0x04, TRUE },       /* LOAD_DISPATCH:MOB (none) */       \
        .div_busy = { 0x14, 0x01, TRUE },     /* ARITH:CYCLES_DIV_BUSY */          \
        .ms_uops = { 0xd1, 0x02, TRUE },      /* UOPS_DECODED:MS */                \
        .lsd_uops = { 0xa8, 0x01, TRUE },     /* LSD:UOPS (per cycle) */           \
        .lsd_overflow = { 0x20, 0x01, TRUE }, /* LSD_OVERFLOW */                   \
        .dec_insts = { 0xd0, 0x01, TRUE },    /* MACRO_INSTS:DECODED */            \
        .iq_writes = { 0x17, 0x01, TRUE },    /* INST_QUEUE_WRITES */              \
        .dec_fusions = { 0xa6, 0x01, TRUE },  /* MACRO_INSTS_FUSIONS_DECODED */    \
        .addr_alias = { 0x07, 0x01, TRUE },   /* PARTIAL_ADDRESS_ALIAS */          \
        .l1d_pf_req = { 0x4e, 0x01, TRUE },   /* L1D_PREFETCH:REQUESTS (none) */   \
        .l1d_pf_miss = { 0x4e, 0x02, TRUE },  /* L1D_PREFETCH:MISS (none) */       \
        .l1d_pf_trig = { 0x4e, 0x04, TRUE },  /* L1D_PREFETCH:TRIGGERS (none) */   \
        .l2_out_pf_clean = { 0xf2, 0x04, TRUE }, /* L2_LINES_OUT:PREFETCH_CLEAN */ \
        .l2_out_pf_dirty = { 0xf2, 0x08, TRUE }, /* :PREFETCH_DIRTY (none) */      \
    }

/* Itanium 2 core (uarch.md §3), shared by Montecito (§4: "as for Itanium 2"). */
#define IA64_CORE                                                                  \
    .ia64 = TRUE,                                                                  \
    .l1i = { 16 * KIB, 4, 64 },     /* §3.1 D* [OWC], M [7CPU-I2] */               \
    .l1d = { 16 * KIB, 4, 64 },     /* §3.1 */                                     \
    .l2 = { 256 * KIB, 8, 128 },    /* §3.1 D*; Montecito L2D §4.1 */              \
    .l1d_int_only = TRUE, .l1d_write_through = TRUE, /* §3.1, §6 #15 */            \
    .lat_l1d = 1, .lat_l2 = 5, .lat_l2_fp = 6, .lat_l3 = 14, /* §3.1 D*, §6 #16 */ \
    .dtlb = { 32 * PAGE, 32, PAGE },  /* §3.2 M: L1 DTLB 32, fully associative */  \
    .stlb = { 128 * PAGE, 128, PAGE }, /* §3.2 M: L2 DTLB 128, fully assoc. */     \
    .itlb = { 32 * PAGE, 32, PAGE },  /* §3.2 M: L1 ITLB 32 */                     \
    .itlb2 = { 128 * PAGE, 128, PAGE }, /* §3.2 M: L2 ITLB 128 */                  \
    .lat_stlb_hit = 4, .lat_walk = 15, /* §3.2 M [7CPU-I2] */                      \
    .bp_log2_entries = 12, .bp_hist_bits = 12, /* §3.3 [UNVERIFIED] E */           \
    .btb_entries = 256, .btb_assoc = 4, .ras_depth = 8, /* §3.3 [UNVERIFIED] E */  \
    .mispredict_penalty = 6,        /* §3.3 D* */                                  \
    .resteer_penalty = 2,           /* §3.3: 0-2 bubbles, E the worst case */      \
    .width = 6,                     /* §3.4: 2 bundles = 6 instructions */         \
    .window = 16                    /* E: stall-on-use, loads used ~16 later */

/* The IA-64 traffic below the L1 caches as model fact records, the same in
 * both CPUs: EVENT code 0x100 (IA64_FACT_CODE), umask = the fact of
 * sim/models/ia64/trace-facts.csv, which lists the events (es, umask of
 * encoder/data/ia64/) each counts for; docs/UARCH.md §5 and
 * docs/trace-events-ia64.md say what each counts and which qualifiers are
 * left out: prefetch, other bus agents, I/O, partial lines. */
#define IA64_FACT(f) { 0x100, (f), TRUE }
#define IA64_EV_BELOW_L1                                                           \
    .itlb_miss = IA64_FACT(0x01),        /* ITLB_L1_MISS */                        \
    .f_l2_if_hit = IA64_FACT(0x02),      /* L2_IFETCH_HIT */                       \
    .f_l2_if_miss = IA64_FACT(0x03),     /* L2_IFETCH_MISS */                      \
    .f_l3_if_hit = IA64_FACT(0x04),      /* L3_IFETCH_HIT */                       \
    .f_l3_if_miss = IA64_FACT(0x05),     /* L3_IFETCH_MISS */                      \
    .f_l3_if_miss_bus = IA64_FACT(0x06), /* L3_IFETCH_MISS_BUS */                  \
    .f_l3_wb_hit = IA64_FACT(0x07),      /* L3_WB_HIT */                           \
    .f_l3_wb_miss = IA64_FACT(0x08),     /* L3_WB_MISS */                          \
    .f_l3_wb_miss_bus = IA64_FACT(0x09), /* L3_WB_MISS_BUS */                      \
    .f_bus_rd_load = IA64_FACT(0x0a),    /* BUS_READ_LOAD */                       \
    .f_bus_rd_store = IA64_FACT(0x0b),   /* BUS_READ_STORE */                      \
    .f_bus_wb_victim = IA64_FACT(0x0c)   /* BUS_WB_VICTIM */

static const uarch_cpu_cfg_t uarch_cpus[] = {
    {
        .cpu = PMUSIM_CPU_WSM,
        .model = "Westmere 06_25 (core of Xeon X5650; 4 MB L3, one socket)",
        WSM_CORE,
        .l3 = { 4 * MIB, 16, 64 },  /* §1.8 E: 4 MB 16-way */
        .lat_dram = 271,            /* §1.8 E: 218 + 20 ns at 2.66 GHz */
        .lat_remote_dram = 271,     /* no second socket */
        .offcore = UARCH_OC_WSM,
    },
    {
        .cpu = PMUSIM_CPU_WSM_DP,
        .model = "Westmere-EP Xeon X5650 (12 MB L3, two sockets)",
        WSM_CORE,
        .l3 = { 12 * MIB, 16, 64 }, /* §1.1 M: 12288 sets, modulo index (E) */
        .lat_dram = 218,            /* §1.1 M [7CPU-WSM] */
        .lat_remote_dram = 320,     /* §1.1 M [7CPU-WSM] */
        .offcore = UARCH_OC_WSM_DP,
    },
    {
        .cpu = PMUSIM_CPU_KNM,
        .model = "Xeon Phi 7295 (Knights Mill; Knights Landing core)",
        .max_threads = 4,
        .l1i = { 32 * KIB, 8, 64 },  /* §2.1 D* [HC-KNL] */
        .l1d = { 32 * KIB, 8, 64 },  /* §2.1 D* */
        .l2 = { 1 * MIB, 16, 64 },   /* §2.1 D*: per tile, §6 #12 */
        .lat_l1d = 4, .lat_l2 = 17, .lat_l2_fp = 17, /* §2.1 D*, §6 #10 */
        .lat_dram = 200,             /* §2.1 M [STUDENT-KNL] DDR quadrant */
        .lat_remote_dram = 200,
        .lat_mcdram = 249,           /* §2.1 M [STUDENT-KNL] MCDRAM flat */
        .dtlb = { 64 * PAGE, 8, PAGE },  /* §2.2 D* uTLB [UNVERIFIED] */
        .stlb = { 256 * PAGE, 8, PAGE }, /* §2.2 D* L2 DTLB 4 KB part */
        .itlb = { 48 * PAGE, 48, PAGE }, /* §2.2 D* fully associative */
        .lat_stlb_hit = 7,           /* E by analogy with Westmere §1.2 */
        .lat_walk = 30,              /* §2.2 E 20-40 */
        .bp_log2_entries = 12, .bp_hist_bits = 12, /* §2.3 [UNVERIFIED] E */
        .btb_entries = 256, .btb_assoc = 4, .ras_depth = 16, /* §2.3 [UNVERIFIED] E */
        .mispredict_penalty = 12,    /* §2.3 E */
        .resteer_penalty = 6,        /* E */
        .width = 2, .window = 72,    /* §2.4 D* */
        /* §2.4 D* [NOTES-KNL]: integer 2 x 12 (one pool: the model does not
         * pick an ALU), memory cluster 12, vector 2 x 20 */
        .rs_entries = 24, .rs_mem_entries = 12, .rs_fp_entries = 40,
        .lat_div_int = 23, .lat_div_fp = 7, /* E [UNVERIFIED]: Westmere's */
        .ms_uops = 3,                /* E [UNVERIFIED]: §2.4 "complex ones via MSROM" */
        .offcore = UARCH_OC_KNM,
        .ev = {
            .l1i_miss = { 0x80, 0x02, TRUE },   /* ICACHE:MISSES */
            .l1i_hit = { 0x80, 0x01, TRUE },    /* ICACHE:HIT */
            .dtlb_walk_cyc = { 0x05, 0x01, TRUE }, /* PAGE_WALKS:D_SIDE_CYCLES */
            .itlb_walk_cyc = { 0x05, 0x02, TRUE }, /* PAGE_WALKS:I_SIDE_CYCLES */
            .baclear = { 0xe6, 0x01, TRUE },    /* BACLEARS:ALL */
            .baclear_cond = { 0xe6, 0x10, TRUE }, /* BACLEARS:COND */
            .rob_full = { 0xca, 0x01, TRUE },   /* NO_ALLOC_CYCLES:ROB_FULL */
            .misp_stall = { 0xca, 0x04, TRUE }, /* NO_ALLOC_CYCLES:MISPREDICTS */
            .rs_full = { 0xcb, 0x1f, TRUE },    /* RS_FULL_STALL:ANY */
            .rs_full_mem = { 0xcb, 0x01, TRUE }, /* RS_FULL_STALL:MEC */
            .rs_rat = { 0xca, 0x20, TRUE },     /* NO_ALLOC_CYCLES:RAT_STALL */
            .not_delivered = { 0xca, 0x90, TRUE }, /* NO_ALLOC_CYCLES:NOT_DELIVERED */
            .no_alloc_all = { 0xca, 0x7f, TRUE }, /* NO_ALLOC_CYCLES:ALL */
            .icache_fill_cyc = { 0x86, 0x04, TRUE }, /* FETCH_STALL:ICACHE_FILL_PENDING_CYCLES */
            .baclear_ret = { 0xe6, 0x08, TRUE }, /* BACLEARS:RETURN (never written) */
            .div_busy = { 0xcd, 0x01, TRUE },   /* CYCLES_DIV_BUSY:ALL */
            .ms_uops = { 0xc2, 0x01, TRUE },    /* UOPS_RETIRED:MS */
            .ms_entry = { 0xe7, 0x01, TRUE },   /* MS_DECODED:ENTRY */
        },
    },
    {
        .cpu = PMUSIM_CPU_ITA2,
        .model = "Itanium 2 6M (Madison, 1.5 GHz)",
        .max_threads = 1,
        IA64_CORE,
        .l3 = { 6 * MIB, 24, 128 },  /* §3.1 D*: 6 MB 24-way */
        .lat_dram = 275,             /* §3.1 E */
        .lat_remote_dram = 275,
        .ev = {
            .l1i_fill = { 0x41, 0x00, TRUE },   /* L1I_FILLS */
            .ifetch_ear = { 0x43, 0x00, TRUE }, /* I-EAR fetch (docs/trace-events-ia64.md) */
            .itlb_walk = { 0x47, 0x02, TRUE },  /* ITLB_MISSES_FETCH_L2ITLB */
            .l3_repl = { 0xdf, 0x00, TRUE },    /* L3_LINES_REPLACED */
            IA64_EV_BELOW_L1,
        },
    },
    {
        .cpu = PMUSIM_CPU_MONT,
        .model = "Itanium 2 9050 (Montecito, 1.6 GHz, one core)",
        .max_threads = 2,
        .soemt = TRUE,
        IA64_CORE,
        .l2i = { 1 * MIB, 8, 128 },  /* §4.1 D* [WIKI-MONT] */
        .lat_l2i = 7,                /* §4.1 [UNVERIFIED] */
        .l3 = { 12 * MIB, 12, 128 }, /* §4.1 D*: 8192 sets */
        .lat_dram = 300,             /* §4.1 E */
        .lat_remote_dram = 300,
        .switch_penalty = 15,        /* §4.2 E [UNVERIFIED] */
        .switch_quantum = 4096,      /* E [UNVERIFIED]: time-out switch after 4096 cycles */
        .ev = {
            .l1i_fill = { 0x41, 0x00, TRUE },   /* L1I_FILLS */
            .ifetch_ear = { 0x43, 0x00, TRUE }, /* I-EAR fetch */
            .itlb_walk = { 0x47, 0x02, TRUE },  /* ITLB_MISSES_FETCH_L2ITLB */
            .l3_repl = { 0xdf, 0x00, TRUE },    /* L3_LINES_REPLACED */
            .ts_l3miss = { 0x0c, 0x01, TRUE },  /* THREAD_SWITCH_EVENTS_L3MISS */
            .ts_timer = { 0x0c, 0x02, TRUE },   /* THREAD_SWITCH_EVENTS_TIMER */
            IA64_EV_BELOW_L1,
        },
    },
};

const uarch_cpu_cfg_t *uarch_cpu_cfg(pmusim_cpu_t cpu)
{
    for (size_t i = 0; i < G_N_ELEMENTS(uarch_cpus); i++)
        if (uarch_cpus[i].cpu == cpu)
            return &uarch_cpus[i];
    return NULL;
}

uint32_t pmusim_uarch_max_threads(pmusim_cpu_t cpu)
{
    const uarch_cpu_cfg_t *c = uarch_cpu_cfg(cpu);
    return c ? c->max_threads : 0;
}

/* ---- options ---- */

void pmusim_uarch_options_init(pmusim_uarch_options_t *o)
{
    memset(o, 0, sizeof *o);
}

const char *pmusim_uarch_options_help(void)
{
    return "  --I1=SIZE,ASSOC,LINE   L1 instruction cache (bytes, ways, bytes)\n"
           "  --D1=SIZE,ASSOC,LINE   L1 data cache\n"
           "  --L2=SIZE,ASSOC,LINE   intermediate (L2) cache; --L2=none: I1/D1 -> LL as in\n"
           "                         cachegrind (an LL that is not inclusive)\n"
           "  --LL=SIZE,ASSOC,LINE   last-level cache (L3; the L2 on knm)\n"
           "  --numa=local|interleave  wsm_dp: odd 4 KiB pages on the remote socket\n"
           "  --knm-memory=ddr|mcdram  knm flat mode: memory the data lives in\n"
           "  --LL-inclusive=yes|no  wsm, wsm_dp, ita2, mont: an LL victim leaves the inner\n"
           "                         levels (default: the CPU's rule; no with --L2=none)\n";
}

static gboolean is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* One field of SIZE,ASSOC,LINE as cachegrind reads it (valgrind 3.19,
 * checked by running it): leading white space, an optional sign, decimal
 * digits, then `stop` (',' or the end).  A magnitude beyond what
 * cachegrind's int holds (2^31 - 1) sets *too_big and stops counting. */
static gboolean parse_geom_field(const char **p, char stop, int64_t *v, gboolean *too_big)
{
    const char *s = *p;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    gboolean neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (*s < '0' || *s > '9')
        return FALSE;
    int64_t x = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (x <= INT32_MAX)
            x = x * 10 + (*s - '0');
        if (x > INT32_MAX)
            *too_big = TRUE;
    }
    if (*s != stop)
        return FALSE;
    *v = neg ? -x : x;
    *p = s + 1;
    return TRUE;
}

/* "SIZE,ASSOC,LINE" with cachegrind's rules, so that a geometry is accepted
 * exactly when cachegrind accepts it (valgrind 3.19, cg_arch.c's checks,
 * each tried on the installed valgrind; docs/UARCH.md §4): numbers that fit
 * in an int, a line a power of two of at least 16 bytes, a size larger than
 * one line, a whole power-of-two number of sets.  (Cachegrind refuses a size
 * 0 and dies of SIGFPE on ASSOC or LINE 0; all are refused here.) */
static gboolean parse_geom(const char *opt, const char *val, pmusim_uarch_geom_t *g,
                           GError **error)
{
    int64_t f[3];
    gboolean too_big = FALSE;
    const char *p = val;
    for (int i = 0; i < 3; i++)
        if (!parse_geom_field(&p, i == 2 ? '\0' : ',', &f[i], &too_big)) {
            g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                        "%s: expected SIZE,ASSOC,LINE (three decimal numbers)%s, got '%s'", opt,
                        strcmp(opt, "--L2") ? "" : " or none", val);
            return FALSE;
        }
    const char *bad = NULL;
    if (too_big)
        bad = "SIZE, ASSOC and LINE must each be at most 2147483647 (as in cachegrind)";
    else if (f[0] <= 0)
        bad = "size must be > 0";
    else if (f[1] <= 0)
        bad = "associativity must be > 0";
    else if (f[2] <= 0)
        bad = "line size must be > 0";
    else if (!is_pow2((uint64_t)f[2]))
        bad = "line size must be a power of two";
    else if (f[2] < 16)
        bad = "line size must be at least 16 (cachegrind's minimum)";
    else if (f[0] <= f[2])
        bad = "size must be larger than the line size";
    else if (f[1] > f[0] / f[2])
        bad = "associativity must be at most size / line size";
    else if (f[0] % (f[1] * f[2]) != 0)
        bad = "size must be a multiple of associativity * line size";
    else if (!is_pow2((uint64_t)(f[0] / (f[1] * f[2]))))
        bad = "the number of sets (size / (associativity * line)) must be a power of two";
    if (bad) {
        g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION, "%s=%s: %s", opt, val,
                    bad);
        return FALSE;
    }
    g->size = (uint64_t)f[0];
    g->assoc = (uint32_t)f[1];
    g->line = (uint32_t)f[2];
    return TRUE;
}

gboolean pmusim_uarch_options_parse(pmusim_uarch_options_t *o, const char *arg,
                                    gboolean *consumed, GError **error)
{
    static const struct {
        const char *name;
        size_t set_off, geom_off;
    } geoms[] = {
        { "--I1", offsetof(pmusim_uarch_options_t, i1_set), offsetof(pmusim_uarch_options_t, i1) },
        { "--D1", offsetof(pmusim_uarch_options_t, d1_set), offsetof(pmusim_uarch_options_t, d1) },
        { "--LL", offsetof(pmusim_uarch_options_t, ll_set), offsetof(pmusim_uarch_options_t, ll) },
        { "--L2", offsetof(pmusim_uarch_options_t, l2_set), offsetof(pmusim_uarch_options_t, l2) },
    };
    *consumed = FALSE;
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq)
        return TRUE;
    size_t nlen = (size_t)(eq - arg);
    const char *val = eq + 1;
    for (size_t i = 0; i < G_N_ELEMENTS(geoms); i++) {
        if (strlen(geoms[i].name) != nlen || strncmp(arg, geoms[i].name, nlen) != 0)
            continue;
        *consumed = TRUE;
        if (i == 3 && !strcmp(val, "none")) {
            o->no_l2 = TRUE;
            o->l2_set = FALSE;
            return TRUE;
        }
        pmusim_uarch_geom_t g;
        if (!parse_geom(geoms[i].name, val, &g, error))
            return FALSE;
        *(gboolean *)((char *)o + geoms[i].set_off) = TRUE;
        *(pmusim_uarch_geom_t *)((char *)o + geoms[i].geom_off) = g;
        if (i == 3)
            o->no_l2 = FALSE;
        return TRUE;
    }
    /* two-valued options: the second value sets the flag; set_off, where
     * not 0, names a flag that says the option was given */
    static const struct {
        const char *name, *off_value, *on_value;
        size_t flag_off, set_off;
    } choices[] = {
        { "--numa", "local", "interleave", offsetof(pmusim_uarch_options_t, numa_interleave), 0 },
        { "--knm-memory", "ddr", "mcdram", offsetof(pmusim_uarch_options_t, knm_mcdram), 0 },
        { "--LL-inclusive", "no", "yes", offsetof(pmusim_uarch_options_t, ll_incl),
          offsetof(pmusim_uarch_options_t, ll_incl_set) },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(choices); i++) {
        if (strlen(choices[i].name) != nlen || strncmp(arg, choices[i].name, nlen) != 0)
            continue;
        *consumed = TRUE;
        gboolean on = !strcmp(val, choices[i].on_value);
        if (!on && strcmp(val, choices[i].off_value) != 0) {
            g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                        "%s=%s: expected %s or %s", choices[i].name, val, choices[i].off_value,
                        choices[i].on_value);
            return FALSE;
        }
        *(gboolean *)((char *)o + choices[i].flag_off) = on;
        if (choices[i].set_off)
            *(gboolean *)((char *)o + choices[i].set_off) = TRUE;
        return TRUE;
    }
    return TRUE;
}

gboolean pmusim_uarch_options_parse_argv(pmusim_uarch_options_t *o, int *argc, char **argv,
                                         GError **error)
{
    static const char *const two_word[] = { "--I1",   "--D1",         "--LL",
                                            "--L2",   "--numa",       "--knm-memory",
                                            "--LL-inclusive" };
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--")) { /* everything after belongs to someone else */
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        char *joined = NULL;
        gboolean two = FALSE;
        const char *arg = argv[i];
        for (size_t k = 0; k < G_N_ELEMENTS(two_word); k++)
            if (!strcmp(argv[i], two_word[k])) {
                if (i + 1 >= *argc) {
                    g_set_error(error, PMUSIM_UARCH_ERROR, PMUSIM_UARCH_ERROR_OPTION,
                                "%s: missing value", argv[i]);
                    return FALSE;
                }
                joined = g_strconcat(argv[i], "=", argv[i + 1], NULL);
                arg = joined;
                two = TRUE;
                break;
            }
        gboolean consumed = FALSE;
        gboolean ok = pmusim_uarch_options_parse(o, arg, &consumed, error);
        g_free(joined);
        if (!ok)
            return FALSE;
        if (!consumed)
            argv[out++] = argv[i];
        else if (two)
            i++;
    }
    if (out < *argc)
        argv[out] = NULL;
    *argc = out;
    return TRUE;
}
