/* Native encoder face for ita2/mont (pmusim/encoder.h): events + options ->
 * register writes, errors, event listing. */
#include "cu_main.h"
#include "pmusim/encoder.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct { pmusim_regspace_t space; uint32_t num; uint64_t value; const char *label; } exp_reg_t;

static void check_regs(GArray *regs, const exp_reg_t *exp, size_t n)
{
    CU_ASSERT_EQUAL(regs->len, n);
    for (size_t i = 0; i < n && i < regs->len; i++) {
        const pmusim_regwrite_t *w = &g_array_index(regs, pmusim_regwrite_t, i);
        if (w->space != exp[i].space || w->num != exp[i].num || w->value != exp[i].value)
            fprintf(stderr, "  reg[%zu]: got %s%u=0x%" PRIx64 ", expected %s%u=0x%" PRIx64 "\n", i,
                    pmusim_regspace_name(w->space), w->num, w->value, pmusim_regspace_name(exp[i].space),
                    exp[i].num, exp[i].value);
        CU_ASSERT_EQUAL(w->space, exp[i].space);
        CU_ASSERT_EQUAL(w->num, exp[i].num);
        CU_ASSERT_EQUAL(w->value, exp[i].value);
        if (exp[i].label)
            CU_ASSERT_STRING_EQUAL(w->label, exp[i].label);
    }
}

#define CHECK_REGS(regs, ...)                                                           \
    do {                                                                                \
        static const exp_reg_t exp_[] = { __VA_ARGS__ };                                \
        check_regs((regs), exp_, sizeof(exp_) / sizeof(exp_[0]));                       \
    } while (0)

static GArray *encode(const pmusim_encoder_pmu_t *pmu, const char *events, const pmusim_encode_opt_t *opts,
                      size_t nopts, unsigned plm, GError **error)
{
    char **ev = g_strsplit(events, ",", -1);
    GArray *regs = pmusim_regs_new();
    if (!pmu->encode((const char *const *)ev, g_strv_length(ev), opts, nopts, plm, regs, error)) {
        g_array_unref(regs);
        regs = NULL;
    }
    g_strfreev(ev);
    return regs;
}

static void test_ita2_counting(void)
{
    GError *error = NULL;
    GArray *regs = encode(&pmusim_encoder_ita2, "IA64_INST_RETIRED,CPU_CYCLES", NULL, 0, PMUSIM_PLM3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CHECK_REGS(regs, { PMUSIM_REG_PMC, 4, 0x828, "IA64_INST_RETIRED" }, { PMUSIM_REG_PMC, 5, 0x1228, "CPU_CYCLES" },
               { PMUSIM_REG_PMD, 4, 0, "IA64_INST_RETIRED" }, { PMUSIM_REG_PMD, 5, 0, "CPU_CYCLES" });
    g_array_unref(regs);

    pmusim_encode_opt_t opts[] = { { "thres", "NOPS_RETIRED=5" }, { "plm", "NOPS_RETIRED=0x1" },
                                   { "systemwide", "1" } };
    regs = encode(&pmusim_encoder_ita2, "NOPS_RETIRED", opts, 3, PMUSIM_PLM3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CHECK_REGS(regs, { PMUSIM_REG_PMC, 4, 0x505061, "NOPS_RETIRED" }, { PMUSIM_REG_PMC, 15, 0xffffffff, NULL },
               { PMUSIM_REG_PMD, 4, 0, NULL });
    g_array_unref(regs);
}

static void test_ita2_range_and_ear(void)
{
    GError *error = NULL;
    pmusim_encode_opt_t opts[] = { { "no_qualcheck", "1" }, { "irange", "0x4000-0x5000" } };
    GArray *regs = encode(&pmusim_encoder_ita2, "FE_BUBBLE_ALL", opts, 2, PMUSIM_PLM3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CHECK_REGS(regs, { PMUSIM_REG_PMC, 4, 0x7128, "FE_BUBBLE_ALL" }, { PMUSIM_REG_PMC, 14, 0xdb4, NULL },
               { PMUSIM_REG_PMC, 13, 0x2078fefefeeeULL, NULL }, { PMUSIM_REG_PMC, 8, 0xffffffff3ffffffcULL, NULL },
               { PMUSIM_REG_PMC, 15, 0xffffffff, NULL }, { PMUSIM_REG_PMD, 4, 0, NULL },
               { PMUSIM_REG_IBR, 0, 0x4000, "code range" }, { PMUSIM_REG_IBR, 1, 0x08fffffffffff000ULL, NULL });
    g_array_unref(regs);

    pmusim_encode_opt_t dear[] = { { "dear", "tlb:2" }, { "btb", "tm=3,ptm=3,ppm=3" } };
    regs = encode(&pmusim_encoder_ita2, "CPU_CYCLES", dear, 1, PMUSIM_PLM3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CHECK_REGS(regs, { PMUSIM_REG_PMC, 4, 0x1228, NULL }, { PMUSIM_REG_PMC, 11, 0x20088, "D-EAR" },
               { PMUSIM_REG_PMC, 15, 0xffffffff, NULL }, { PMUSIM_REG_PMC, 12, 0, "BTB" },
               { PMUSIM_REG_PMD, 4, 0, NULL });
    g_array_unref(regs);
    /* D-EAR in TLB mode and an active BTB */
    CU_ASSERT_PTR_NULL(encode(&pmusim_encoder_ita2, "CPU_CYCLES", dear, 2, PMUSIM_PLM3, &error));
    CU_ASSERT(g_error_matches(error, PMUSIM_ENCODER_ERROR, -11));
    g_clear_error(&error);
}

static void test_mont_opcm_etb(void)
{
    GError *error = NULL;
    pmusim_encode_opt_t opts[] = { { "opcm1", "0x1234/0xff:mb" } };
    GArray *regs = encode(&pmusim_encoder_mont, "IA64_INST_RETIRED", opts, 1, PMUSIM_PLM3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CHECK_REGS(regs, { PMUSIM_REG_PMC, 4, 0x2000808, NULL }, { PMUSIM_REG_PMC, 32, 0x02090000000000ffULL, NULL },
               { PMUSIM_REG_PMC, 33, 0x1234, "opcode matcher" }, { PMUSIM_REG_PMD, 4, 0, NULL });
    g_array_unref(regs);
    pmusim_encode_opt_t etb[] = { { "etb", "tm=2,ptm=1,ppm=3,brt=1,plm=1" } };
    regs = encode(&pmusim_encoder_mont, "ETB_EVENT", etb, 1, PMUSIM_PLM3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CHECK_REGS(regs, { PMUSIM_REG_PMC, 4, 0x2001108, NULL }, { PMUSIM_REG_PMC, 39, 0x7601, "ETB" },
               { PMUSIM_REG_PMD, 4, 0, NULL });
    g_array_unref(regs);
    /* MESI unit masks in the event string */
    regs = encode(&pmusim_encoder_mont, "L3_READS_ALL_ALL:M", NULL, 0, PMUSIM_PLM3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CHECK_REGS(regs, { PMUSIM_REG_PMC, 4, 0x420fdd08, NULL }, { PMUSIM_REG_PMD, 4, 0, NULL });
    g_array_unref(regs);
    CU_ASSERT_PTR_NULL(encode(&pmusim_encoder_mont, "L3_READS_ALL_ALL", NULL, 0, PMUSIM_PLM3, &error));
    CU_ASSERT(g_error_matches(error, PMUSIM_ENCODER_ERROR, -22));
    g_clear_error(&error);
    /* IP-EAR */
    pmusim_encode_opt_t ipear[] = { { "ipear", "5" } };
    regs = encode(&pmusim_encoder_mont, "CPU_OP_CYCLES_ALL", ipear, 1, PMUSIM_PLM3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(regs);
    CHECK_REGS(regs, { PMUSIM_REG_PMC, 4, 0x2001208, NULL }, { PMUSIM_REG_PMC, 42, 0x2c08, "IP-EAR" },
               { PMUSIM_REG_PMD, 4, 0, NULL });
    g_array_unref(regs);
}

static void test_errors(void)
{
    GError *error = NULL;
    CU_ASSERT_PTR_NULL(encode(&pmusim_encoder_ita2, "NO_SUCH_EVENT", NULL, 0, PMUSIM_PLM3, &error));
    CU_ASSERT(g_error_matches(error, PMUSIM_ENCODER_ERROR, -4));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "NO_SUCH_EVENT") : NULL);
    g_clear_error(&error);
    pmusim_encode_opt_t bad[] = { { "thres", "CPU_CYCLES=1" } };
    CU_ASSERT_PTR_NULL(encode(&pmusim_encoder_ita2, "CPU_CYCLES", bad, 1, PMUSIM_PLM3, &error));
    CU_ASSERT(g_error_matches(error, PMUSIM_ENCODER_ERROR, -2));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "invalid parameters") : NULL);
    g_clear_error(&error);
    pmusim_encode_opt_t notin[] = { { "thres", "NOPS_RETIRED=1" } };
    CU_ASSERT_PTR_NULL(encode(&pmusim_encoder_ita2, "CPU_CYCLES", notin, 1, PMUSIM_PLM3, &error));
    CU_ASSERT(g_error_matches(error, PMUSIM_ENCODER_ERROR, -4));
    g_clear_error(&error);
    pmusim_encode_opt_t unknown[] = { { "opcm1", "1/2" } };   /* a Montecito option */
    CU_ASSERT_PTR_NULL(encode(&pmusim_encoder_ita2, "CPU_CYCLES", unknown, 1, PMUSIM_PLM3, &error));
    CU_ASSERT(g_error_matches(error, PMUSIM_ENCODER_ERROR, -2));
    g_clear_error(&error);
    pmusim_encode_opt_t range[] = { { "irange", "0x4000" } };
    CU_ASSERT_PTR_NULL(encode(&pmusim_encoder_ita2, "CPU_CYCLES", range, 1, PMUSIM_PLM3, &error));
    CU_ASSERT(g_error_matches(error, PMUSIM_ENCODER_ERROR, -2));
    g_clear_error(&error);
    CU_ASSERT_PTR_NULL(encode(&pmusim_encoder_ita2, "CPU_CYCLES,CPU_CYCLES,CPU_CYCLES,CPU_CYCLES,CPU_CYCLES", NULL,
                              0, PMUSIM_PLM3, &error));
    CU_ASSERT(g_error_matches(error, PMUSIM_ENCODER_ERROR, -5));
    g_clear_error(&error);
}

static void test_tables_and_show(void)
{
    const char *name;
    uint32_t code, umask;
    CU_ASSERT_EQUAL(pmusim_encoder_ita2.event_count(), 497);
    CU_ASSERT_EQUAL(pmusim_encoder_mont.event_count(), 637);
    CU_ASSERT_TRUE(pmusim_encoder_ita2.event_code(179, &name, &code, &umask));
    CU_ASSERT_STRING_EQUAL(name, "CPU_CYCLES");
    CU_ASSERT_EQUAL(code, 0x12);
    CU_ASSERT_FALSE(pmusim_encoder_ita2.event_code(497, &name, &code, &umask));
    CU_ASSERT_PTR_NOT_NULL(pmusim_encoder_mont.option_help[0]);

    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    GError *error = NULL;
    CU_ASSERT_TRUE(pmusim_encoder_ita2.show_event("DATA_EAR_CACHE_LAT4", fp, &error));
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "EAR mode : cache"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Code     : 0xc8"));
    free(buf);
    fp = open_memstream(&buf, &len);
    CU_ASSERT_FALSE(pmusim_encoder_mont.show_event("NOPE", fp, &error));
    fclose(fp);
    free(buf);
    g_clear_error(&error);
    fp = open_memstream(&buf, &len);
    pmusim_encoder_mont.list_events(fp);
    fclose(fp);
    unsigned lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    CU_ASSERT_EQUAL(lines, 637);
    free(buf);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("native_ia64", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_ita2_counting);
    PMUSIM_ADD_TEST(s, test_ita2_range_and_ear);
    PMUSIM_ADD_TEST(s, test_mont_opcm_etb);
    PMUSIM_ADD_TEST(s, test_errors);
    PMUSIM_ADD_TEST(s, test_tables_and_show);
}
