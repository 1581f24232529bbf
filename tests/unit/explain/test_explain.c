/* Explain mode (ops->describe_reg): exact descriptions of representative
 * register writes on every model, the Westmere / Westmere DP offcore naming
 * difference, and FALSE for registers a model does not implement.  Each
 * expected string was checked field by field against the layouts of
 * ../shared/reference/ia64-pmu.md and x86-pmu.md. */
#include "pmusim/sim.h"
#include "cu_main.h"

#include <string.h>

static const pmusim_model_ops_t *model(const char *name)
{
    const pmusim_model_ops_t *ops = pmusim_model_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ops->describe_reg);
    return ops;
}

/* describe_reg must succeed and append exactly `want` to what is there. */
static void expect(const char *name, pmusim_regspace_t space, uint32_t num, uint64_t value,
                   const char *want)
{
    const pmusim_model_ops_t *ops = model(name);
    GString *s = g_string_new("pre:");
    CU_ASSERT_TRUE(ops->describe_reg(space, num, value, s));
    CU_ASSERT_TRUE(g_str_has_prefix(s->str, "pre:"));
    if (strcmp(s->str + 4, want) != 0)
        fprintf(stderr, "\n%s %s%u=0x%llx\n  got:  %s\n  want: %s\n", name,
                pmusim_regspace_name(space), num, (unsigned long long)value, s->str + 4, want);
    CU_ASSERT_STRING_EQUAL(s->str + 4, want);
    g_string_free(s, TRUE);
}

static void expect_none(const char *name, pmusim_regspace_t space, uint32_t num)
{
    const pmusim_model_ops_t *ops = model(name);
    GString *s = g_string_new(NULL);
    CU_ASSERT_FALSE(ops->describe_reg(space, num, 0x1234, s));
    CU_ASSERT_EQUAL(s->len, 0);
    g_string_free(s, TRUE);
}

/* ---- Itanium 2 ---- */

static void test_ita2_counters(void)
{
    /* ref §3.2: libpfm3's CPU_CYCLES at plm 3 */
    expect("ita2", PMUSIM_REG_PMC, 4, 0x1228,
           "counter config for PMD4: plm=0x8 (level 3) ev=0 oi=1 pm=0 es=0x12 umask=0x0 thres=0 "
           "ism=both(0) enable=0 -> CPU_CYCLES; bit 23 (PMU enable) is forced to 1 as perfmon "
           "does");
    expect("ita2", PMUSIM_REG_PMC, 5, 0x00300829,
           "counter config for PMD5: plm=0x9 (levels 0,3) ev=0 oi=1 pm=0 es=0x08 umask=0x0 "
           "thres=3 ism=both(0) -> IA64_INST_RETIRED");
    expect("ita2", PMUSIM_REG_PMC, 6, 0x0f000000,
           "counter config for PMD6: plm=0x0 (no level: off) ev=0 oi=0 pm=0 es=0x00 umask=0x0 "
           "thres=0 ism=none(3) -> BACK_END_BUBBLE_ALL");
    expect("ita2", PMUSIM_REG_PMC, 0, 0x31,
           "freeze/overflow status: fr=1 (frozen) overflow=PMD4,PMD5");
    expect("ita2", PMUSIM_REG_PMC, 0, 0, "freeze/overflow status: fr=0 (counting) overflow=none");
    expect("ita2", PMUSIM_REG_PMD, 4, UINT64_C(0x7ffffffffff6),
           "counter value: 0x7ffffffffff6 = 2^47-10 (overflows after 10 more)");
    expect("ita2", PMUSIM_REG_PMD, 5, UINT64_MAX,
           "counter value: 0x7fffffffffff = 2^47-1 (overflows after 1 more); bits 63:47 are "
           "ignored");
    expect("ita2", PMUSIM_REG_PMD, 6, 1000, "counter value: 0x3e8 = 1000");
}

static void test_ita2_qualifiers(void)
{
    /* PMC8: bits 31:30 are not writable (forced 0), bit 2 forced 1 */
    expect("ita2", PMUSIM_REG_PMC, 8, UINT64_C(0xc0000004fffffff8),
           "opcode matcher 0 (IBRP0/IBRP2): ig_ad=0 inv=0 mask=0x7ffffff match=0x0000002 "
           "slots=m,i; bits 0xc0000004 are not writable and keep their reset value");
    expect("ita2", PMUSIM_REG_PMC, 15, 0xfffffffa,
           "opcode matcher use per IBR pair: IBRP0=PMC8 IBRP1=none IBRP2=PMC8 IBRP3=none");
    expect("ita2", PMUSIM_REG_PMC, 13, UINT64_C(0x00006078fefefee6),
           "data-range config: DBRP0=on(cfg=0 code range+opcode+data range) DBRP1=on(cfg=3 "
           "always) DBRP2=off DBRP3=off");
    expect("ita2", PMUSIM_REG_PMC, 14, UINT64_C(0x0db60db60db60db6),
           "code-range config: IBRP0=ignored IBRP1=ignored IBRP2=ignored IBRP3=ignored fine=0");
    expect("ita2", PMUSIM_REG_PMC, 14, UINT64_C(0x0db60db60db62d34),
           "code-range config: IBRP0=used IBRP1=ignored IBRP2=used IBRP3=ignored fine=1");
    expect("ita2", PMUSIM_REG_IBR, 0, UINT64_C(0x4000000000001000),
           "IBRP0 address: 0x4000000000001000");
    expect("ita2", PMUSIM_REG_IBR, 1, UINT64_C(0x88fffffffffff000),
           "IBRP0 mask: mask=0xfffffffffff000 (1 = bit compared; 63:56 always) plm=0x8 (level "
           "3) x=1 (cleared: perfmon arms no breakpoint)");
    expect("ita2", PMUSIM_REG_DBR, 3, UINT64_C(0x09ffffffffffffc0),
           "DBRP1 mask: mask=0xffffffffffffc0 (1 = bit compared; 63:56 always) plm=0x9 (levels "
           "0,3) r=0 w=0; plm is ignored for data ranges");
}

static void test_ita2_captures(void)
{
    /* ref §6: L1I_EAR_CACHE_LAT4 at plm 3 = 0x3fe8 */
    expect("ita2", PMUSIM_REG_PMC, 10, 0x3fe8,
           "I-EAR config: plm=0x8 (level 3) pm=0 mode=cache umask=0xff (latency bins "
           ">=4,>=8,>=16,>=32,>=128,>=256,>=1024,>=4096) ism=both(0)");
    expect("ita2", PMUSIM_REG_PMC, 10, 0x20e8,
           "I-EAR config: plm=0x8 (level 3) pm=0 mode=cache umask=0x07 (latency bins "
           ">=4,>=8,>=16) ism=both(0)");
    expect("ita2", PMUSIM_REG_PMC, 10, 0x00c8,
           "I-EAR config: plm=0x8 (level 3) pm=0 mode=tlb umask=0x6 (VHPT|FAULT) ism=both(0)");
    expect("ita2", PMUSIM_REG_PMC, 10, 0x1008,
           "I-EAR config: plm=0x8 (level 3) pm=0 mode=off (ct=01: nothing monitored) "
           "ism=both(0)");
    expect("ita2", PMUSIM_REG_PMC, 11, 0x00030008,
           "D-EAR config: plm=0x8 (level 3) pm=0 mode=cache(0) umask=0x3 (loads missing L1D "
           "with latency >= 32) ism=both(0)");
    expect("ita2", PMUSIM_REG_PMC, 11, 0x000e0088,
           "D-EAR config: plm=0x8 (level 3) pm=0 mode=tlb(1) umask=0xe (L2DTLB|VHPT|FAULT) "
           "ism=both(0)");
    expect("ita2", PMUSIM_REG_PMC, 11, 0x108,
           "D-EAR config: plm=0x8 (level 3) pm=0 mode=alat(2) umask=0x0 (ALAT misses) "
           "ism=both(0)");
    /* ref §8.1: libpfm3's BRANCH_EVENT default, plm 3 */
    expect("ita2", PMUSIM_REG_PMC, 12, 0x3f08,
           "BTB config: plm=0x8 (level 3) pm=0 ds=0 tm=3(all) ptm=3(all) ppm=3(all) brt=0(all)");
    expect("ita2", PMUSIM_REG_PMC, 12, 0xa6c8,
           "BTB config: plm=0x8 (level 3) pm=1 ds=1 tm=2(taken) ptm=1(target-mispredicted) "
           "ppm=2(path-predicted) brt=2(return)");
    expect("ita2", PMUSIM_REG_PMD, 16, 0xb, "BTB index (bbi, full, b1, bruflush): 0xb");
    expect("ita2", PMUSIM_REG_PMD, 9, 0x10, "BTB entry: 0x10 (entry 1)");
    expect("ita2", PMUSIM_REG_PMD, 17, 0x1238, "D-EAR instruction address: 0x1238");
}

static void test_ita2_unimplemented(void)
{
    expect_none("ita2", PMUSIM_REG_PMC, 16);
    expect_none("ita2", PMUSIM_REG_PMC, 32); /* a Montecito register */
    expect_none("ita2", PMUSIM_REG_PMD, 18);
    expect_none("ita2", PMUSIM_REG_IBR, 8);
    expect_none("ita2", PMUSIM_REG_DBR, 8);
    expect_none("ita2", PMUSIM_REG_MSR, 0x186);
    expect_none("ita2", PMUSIM_REG_PMC, 300);
}

/* ---- Montecito ---- */

static void test_mont(void)
{
    /* ref §3.2: libpfm3's CPU_OP_CYCLES_ALL at plm 3 */
    expect("mont", PMUSIM_REG_PMC, 4, 0x2001208,
           "counter config for PMD4: plm=0x8 (level 3) ev=0 oi=0 pm=0 es=0x12 umask=0x0 thres=0 "
           "ism=ia64(2) all=0 mesi=0x0 -> CPU_OP_CYCLES_ALL");
    /* ism is forced to 0b10: the note names the kept bit */
    expect("mont", PMUSIM_REG_PMC, 12, 0x1208,
           "counter config for PMD12: plm=0x8 (level 3) ev=0 oi=0 pm=0 es=0x12 umask=0x0 "
           "thres=0 ism=ia64(2) all=0 mesi=0x0 -> CPU_OP_CYCLES_ALL; bits 0x2000000 are not "
           "writable and keep their reset value");
    expect("mont", PMUSIM_REG_PMC, 6, 0x4e000828 | (UINT64_C(1) << 26),
           "counter config for PMD6: plm=0x8 (level 3) ev=0 oi=1 pm=0 es=0x08 umask=0x0 thres=0 "
           "ism=ia64(2) all=1 mesi=0x9(IM) -> IA64_INST_RETIRED_THIS");
    expect("mont", PMUSIM_REG_PMC, 0, 0x8001,
           "freeze/overflow status: fr=1 (frozen) overflow=PMD15");
    expect("mont", PMUSIM_REG_PMC, 32, UINT64_C(0x030f01ffffffffff),
           "opcode matcher 0 mask (IBRP0/IBRP2): mask=0x1ffffffffff slots=m,i,f,b inv=1 "
           "ig_ad=1");
    expect("mont", PMUSIM_REG_PMC, 33, 0x12345, "opcode matcher 0 match: match=0x00000012345");
    expect("mont", PMUSIM_REG_PMC, 35, 0x7, "opcode matcher 1 match: match=0x00000000007");
    expect("mont", PMUSIM_REG_PMC, 34, UINT64_C(0x0008000000000000),
           "opcode matcher 1 mask (IBRP1/IBRP3): mask=0x00000000000 slots=m");
    expect("mont", PMUSIM_REG_PMC, 36, 0xfffffff5,
           "opcode matcher use per IBR pair: IBRP0=none IBRP1=PMC34/35 IBRP2=none "
           "IBRP3=PMC34/35");
    expect("mont", PMUSIM_REG_PMC, 37, 0x3fe8,
           "I-EAR config: plm=0x8 (level 3) pm=0 mode=cache umask=0xff (latency bins "
           ">=4,>=8,>=16,>=32,>=128,>=256,>=1024,>=4096)");
    expect("mont", PMUSIM_REG_PMC, 38, 0x2db4,
           "code-range config: IBRP0=used IBRP1=ignored IBRP2=ignored IBRP3=ignored fine=1");
    expect("mont", PMUSIM_REG_PMC, 39, 0x3f88,
           "ETB config: plm=0x8 (level 3) pm=0 ds=1 (reserved on mont) tm=3(all) ptm=3(all) "
           "ppm=3(all) brt=0(all)");
    expect("mont", PMUSIM_REG_PMC, 40, 0x2020088,
           "D-EAR config: plm=0x8 (level 3) pm=0 mode=tlb(1) umask=0x2 (L2DTLB) ism=ia64(2)");
    expect("mont", PMUSIM_REG_PMC, 41, UINT64_C(0x2078fefefefe),
           "data-range config: DBRP0=on(cfg=3 always) DBRP1=off DBRP2=off DBRP3=off");
    expect("mont", PMUSIM_REG_PMC, 42, 0xa408,
           "IP-EAR config: plm=0x8 (level 3) pm=0 mode=4 (IP-EAR on) delay=20");
    expect("mont", PMUSIM_REG_PMD, 38, 0x25, "ETB/IP-EAR index (ebi, full): 0x25");
    expect("mont", PMUSIM_REG_PMD, 63, 0x10, "ETB/IP-EAR entry: 0x10 (entry 15)");
    expect("mont", PMUSIM_REG_PMD, 15, 5, "counter value: 0x5 = 5");
    expect_none("mont", PMUSIM_REG_PMD, 37); /* unimplemented per the kernel table */
    expect_none("mont", PMUSIM_REG_PMC, 16);
    expect_none("mont", PMUSIM_REG_PMD, 0);
    expect_none("mont", PMUSIM_REG_MSR, 0x38f);
}

/* ---- Westmere ---- */

static void test_wsm_evtsel(void)
{
    expect("wsm", PMUSIM_REG_MSR, 0x186, 0x5101c0,
           "PMC0: event=0xc0 umask=0x01 usr=1 os=0 edge=0 pc=0 int=1 any=0 en=1 inv=0 cmask=0 "
           "-> counts INSN records");
    expect("wsm", PMUSIM_REG_MSR, 0x187, 0x2c3003c,
           "PMC1: event=0x3c umask=0x00 usr=1 os=1 edge=0 pc=0 int=0 any=0 en=1 inv=1 cmask=2 "
           "-> counts active (unhalted) cycles");
    expect("wsm", PMUSIM_REG_MSR, 0x189, 0x1e6302b1,
           "PMC3: event=0xb1 umask=0x02 usr=1 os=1 edge=0 pc=0 int=0 any=1 en=1 inv=0 cmask=30 "
           "-> no trace-derived event (counts explicit EVENT records)");
    expect("wsm", PMUSIM_REG_MSR, 0x186, UINT64_C(0x100000000),
           "PMC0: event=0x00 umask=0x00 usr=0 os=0 edge=0 pc=0 int=0 any=0 en=0 inv=0 cmask=0 "
           "-> no trace-derived event (counts explicit EVENT records); bits 0x100000000 are "
           "reserved (#GP)");
    /* counters load bits 31:0 sign-extended into 48 bits */
    expect("wsm", PMUSIM_REG_MSR, 0xc1, 0xfffffff6,
           "counter value 0xfffffffffff6 = 2^48-10 (overflows after 10 more) (bit 31 "
           "sign-extended)");
    expect("wsm", PMUSIM_REG_MSR, 0x30a, 0x100, "counter value 0x100 = 256");
}

static void test_wsm_controls(void)
{
    expect("wsm", PMUSIM_REG_MSR, 0x38d, 0xb03,
           "FIXED_CTR0: en=3(all rings) any=0 pmi=0; FIXED_CTR1: en=0(off) any=0 pmi=0; "
           "FIXED_CTR2: en=3(all rings) any=0 pmi=1");
    expect("wsm", PMUSIM_REG_MSR, 0x38d, 0x1062,
           "FIXED_CTR0: en=2(rings 1-3) any=0 pmi=0; FIXED_CTR1: en=2(rings 1-3) any=1 pmi=0; "
           "FIXED_CTR2: en=0(off) any=0 pmi=0; bits 0x1000 are reserved (#GP)");
    expect("wsm", PMUSIM_REG_MSR, 0x38f, UINT64_C(0x700000003),
           "enabled counters: IA32_PMC0 IA32_PMC1 IA32_FIXED_CTR0 IA32_FIXED_CTR1 "
           "IA32_FIXED_CTR2");
    expect("wsm", PMUSIM_REG_MSR, 0x38f, 0, "enabled counters: none");
    expect("wsm", PMUSIM_REG_MSR, 0x390, UINT64_C(0x4000000000000001),
           "clear overflow status of: IA32_PMC0 OvfBuf");
    expect("wsm", PMUSIM_REG_MSR, 0x3f1, UINT64_C(0x800000001),
           "PEBS on: IA32_PMC0; load latency on: IA32_PMC3");
    expect("wsm", PMUSIM_REG_MSR, 0x3f6, 100,
           "load-latency threshold: 100 cycles (counts loads slower than that)");
    expect("wsm", PMUSIM_REG_MSR, 0x1d9, 0x1000,
           "debug control: FREEZE_PERFMON_ON_PMI=1 (a PMI clears IA32_PERF_GLOBAL_CTRL)");
    expect("wsm", PMUSIM_REG_MSR, 0x38e, 0, "overflow status (read-only: a write is #GP)");
}

/* ref §8.2: bits 12-14 name different responses on the two Westmere models;
 * ref §8.1's example value 0x2033 = ANY_DATA (0x33) + bit 13. */
static void test_wsm_offcore_naming(void)
{
    expect("wsm", PMUSIM_REG_MSR, 0x1a6, 0x2033,
           "offcore response 0 filter (OFFCORE_RESPONSE_0): request=DMND_DATA_RD|DMND_RFO|"
           "PF_DATA_RD|PF_RFO response=LOCAL_DRAM (shared by the core's threads)");
    expect("wsm_dp", PMUSIM_REG_MSR, 0x1a6, 0x2033,
           "offcore response 0 filter (OFFCORE_RESPONSE_0): request=DMND_DATA_RD|DMND_RFO|"
           "PF_DATA_RD|PF_RFO response=REMOTE_DRAM (shared by the core's threads)");
    expect("wsm", PMUSIM_REG_MSR, 0x1a7, 0x7044,
           "offcore response 1 filter (OFFCORE_RESPONSE_1): request=DMND_IFETCH|PF_IFETCH "
           "response=REMOTE_CACHE_FWD|LOCAL_DRAM|REMOTE_DRAM (shared by the core's threads)");
    expect("wsm_dp", PMUSIM_REG_MSR, 0x1a7, 0x7044,
           "offcore response 1 filter (OFFCORE_RESPONSE_1): request=DMND_IFETCH|PF_IFETCH "
           "response=LOCAL_DRAM_AND_REMOTE_CACHE_HIT|REMOTE_DRAM|OTHER_LLC_MISS (shared by the "
           "core's threads)");
    expect("wsm", PMUSIM_REG_MSR, 0x1a6, 0x10000,
           "offcore response 0 filter (OFFCORE_RESPONSE_0): request=none response=none (shared "
           "by the core's threads); bits 0x10000 are reserved on wsm (#GP)");
}

static void test_wsm_unimplemented(void)
{
    expect_none("wsm", PMUSIM_REG_MSR, 0x18a); /* IA32_PERFEVTSEL4 */
    expect_none("wsm", PMUSIM_REG_MSR, 0xc5);  /* IA32_PMC4 */
    expect_none("wsm", PMUSIM_REG_MSR, 0x30c); /* a fourth fixed counter */
    expect_none("wsm", PMUSIM_REG_MSR, 0x10);  /* TSC */
    expect_none("wsm", PMUSIM_REG_PMC, 4);
    expect_none("wsm_dp", PMUSIM_REG_PMD, 4);
}

/* ---- Knights Mill ---- */

static void test_knm(void)
{
    expect("knm", PMUSIM_REG_MSR, 0x186, 0x4300c0,
           "PMC0: event=0xc0 umask=0x00 usr=1 os=1 edge=0 pc=0 int=0 any=0 en=1 inv=0 cmask=0 "
           "-> counts INSN records");
    /* 40-bit counters */
    expect("knm", PMUSIM_REG_MSR, 0xc2, 0xfffffff6,
           "counter value 0xfffffffff6 = 2^40-10 (overflows after 10 more) (bit 31 "
           "sign-extended)");
    /* plain OFFCORE_RESPONSE_0 (ref §8.3: 0x18000) */
    expect("knm", PMUSIM_REG_MSR, 0x1a6, 0x18000,
           "offcore response 0 filter (OFFCORE_RESPONSE_0): request=ANY_REQUEST "
           "response=ANY_RESPONSE outstanding=0");
    expect("knm", PMUSIM_REG_MSR, 0x1a6, (UINT64_C(1) << 23) | (UINT64_C(1) << 31) | 0x1,
           "offcore response 0 filter (OFFCORE_RESPONSE_0): request=DMND_DATA_RD "
           "response=DDR_NEAR(bits 23,31) outstanding=0");
    /* average-latency mode: requests + OUTSTANDING on RSP_0 */
    expect("knm", PMUSIM_REG_MSR, 0x1a6, (UINT64_C(1) << 38) | 0x3081,
           "offcore response 0 filter (OFFCORE_RESPONSE_0): request=DMND_DATA_RD|PARTIAL_READS|"
           "PF_SOFTWARE|PF_L1_DATA_RD response=none outstanding=1 (average-latency mode: counts "
           "requests in flight per cycle)");
    expect("knm", PMUSIM_REG_MSR, 0x1a7, 0x13081 | (UINT64_C(1) << 19) | (UINT64_C(1) << 25),
           "offcore response 1 filter (OFFCORE_RESPONSE_1): request=DMND_DATA_RD|PARTIAL_READS|"
           "PF_SOFTWARE|PF_L1_DATA_RD response=ANY_RESPONSE|bits 19,25");
    /* PARTIAL_WRITES (bit 8) is valid on RSP_1 only; OUTSTANDING on RSP_0 only */
    expect("knm", PMUSIM_REG_MSR, 0x1a6, 0x100,
           "offcore response 0 filter (OFFCORE_RESPONSE_0): request=PARTIAL_WRITES "
           "response=none outstanding=0; bits 0x100 are reserved on knm (#GP)");
    expect("knm", PMUSIM_REG_MSR, 0x1a7, UINT64_C(1) << 38,
           "offcore response 1 filter (OFFCORE_RESPONSE_1): request=none response=none; bits "
           "0x4000000000 are reserved on knm (#GP)");
    expect("knm", PMUSIM_REG_MSR, 0x3f1, 0x1, "PEBS on: IA32_PMC0");
    expect("knm", PMUSIM_REG_MSR, 0x3f1, 0x2,
           "PEBS on: IA32_PMC1; bits 0x2 are reserved on knm (#GP)");
    expect("knm", PMUSIM_REG_MSR, 0x38f, UINT64_C(0x100000002),
           "enabled counters: IA32_PMC1 IA32_FIXED_CTR0");
    expect_none("knm", PMUSIM_REG_MSR, 0x188); /* IA32_PERFEVTSEL2: knm has 2 counters */
    expect_none("knm", PMUSIM_REG_MSR, 0xc3);  /* IA32_PMC2 */
    expect_none("knm", PMUSIM_REG_MSR, 0x3f6); /* no load-latency facility */
    expect_none("knm", PMUSIM_REG_IBR, 0);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("explain", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_ita2_counters);
    PMUSIM_ADD_TEST(s, test_ita2_qualifiers);
    PMUSIM_ADD_TEST(s, test_ita2_captures);
    PMUSIM_ADD_TEST(s, test_ita2_unimplemented);
    PMUSIM_ADD_TEST(s, test_mont);
    PMUSIM_ADD_TEST(s, test_wsm_evtsel);
    PMUSIM_ADD_TEST(s, test_wsm_controls);
    PMUSIM_ADD_TEST(s, test_wsm_offcore_naming);
    PMUSIM_ADD_TEST(s, test_wsm_unimplemented);
    PMUSIM_ADD_TEST(s, test_knm);
}
