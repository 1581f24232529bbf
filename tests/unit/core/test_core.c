/* Unit tests for the register-write list (text form) and the engine. */
#include "cu_main.h"
#include "pmusim/sim.h"

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

static pmusim_regwrite_t *at(GArray *a, guint i)
{
    return &g_array_index(a, pmusim_regwrite_t, i);
}

static void test_regs_parse_forms(void)
{
    const char *text = "# header comment\n"
                       "\n"
                       "pmc4 0x1228   # CPU_CYCLES\n"
                       "  PMD5 = 17\n"
                       "ibr7 0xffffffffffffffff @0\n"
                       "msr 0x186 0x43003c @1 # INST_RETIRED:ANY_P\n"
                       "IA32_PERF_GLOBAL_CTRL 0x70000000f\n";
    GArray *r = pmusim_regs_new();
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_regs_parse(text, strlen(text), "t.regs", r, &e));
    CU_ASSERT_EQUAL_FATAL(r->len, 5);
    CU_ASSERT_EQUAL(at(r, 0)->space, PMUSIM_REG_PMC);
    CU_ASSERT_EQUAL(at(r, 0)->num, 4);
    CU_ASSERT_EQUAL(at(r, 0)->value, 0x1228);
    CU_ASSERT_EQUAL(at(r, 0)->thread, PMUSIM_THREAD_ALL);
    CU_ASSERT_STRING_EQUAL(at(r, 0)->label, "CPU_CYCLES");
    CU_ASSERT_EQUAL(at(r, 1)->space, PMUSIM_REG_PMD);
    CU_ASSERT_EQUAL(at(r, 1)->num, 5);
    CU_ASSERT_EQUAL(at(r, 1)->value, 17);
    CU_ASSERT_STRING_EQUAL(at(r, 1)->label, "");
    CU_ASSERT_EQUAL(at(r, 2)->space, PMUSIM_REG_IBR);
    CU_ASSERT_EQUAL(at(r, 2)->value, UINT64_MAX);
    CU_ASSERT_EQUAL(at(r, 2)->thread, 0);
    CU_ASSERT_EQUAL(at(r, 3)->space, PMUSIM_REG_MSR);
    CU_ASSERT_EQUAL(at(r, 3)->num, 0x186);
    CU_ASSERT_EQUAL(at(r, 3)->value, 0x43003c);
    CU_ASSERT_EQUAL(at(r, 3)->thread, 1);
    CU_ASSERT_STRING_EQUAL(at(r, 3)->label, "INST_RETIRED:ANY_P");
    CU_ASSERT_EQUAL(at(r, 4)->num, 0x38f);
    CU_ASSERT_EQUAL(at(r, 4)->value, 0x70000000fULL);
    g_array_free(r, TRUE);
}

static void expect_parse_error_len(const char *text, size_t len, const char *fragment)
{
    GArray *r = pmusim_regs_new();
    pmusim_regs_add(r, PMUSIM_REG_PMC, 1, 2, 0, NULL);
    GError *e = NULL;
    CU_ASSERT_FALSE(pmusim_regs_parse(text, len, "bad.regs", r, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->domain, PMUSIM_REGS_ERROR);
    CU_ASSERT_EQUAL(e->code, PMUSIM_REGS_ERROR_PARSE);
    if (!strstr(e->message, fragment))
        fprintf(stderr, "\nmessage '%s' lacks '%s'\n", e->message, fragment);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, fragment));
    /* nothing of the bad file is kept; what was there before stays */
    CU_ASSERT_EQUAL(r->len, 1);
    g_error_free(e);
    g_array_free(r, TRUE);
}

static void expect_parse_error(const char *text, const char *fragment)
{
    expect_parse_error_len(text, strlen(text), fragment);
}

static void test_regs_parse_errors(void)
{
    expect_parse_error("pmc4 0x1\nfoo 3\n", "bad.regs:2: unknown register 'foo'");
    expect_parse_error("pmc4\n", "bad.regs:1: expected a 64-bit value");
    expect_parse_error("pmc4 0x1g\n", "got '0x1g'");
    expect_parse_error("pmc4 -1\n", "got '-1'");
    expect_parse_error("pmc4 0x10000000000000000\n", "expected a 64-bit value");
    expect_parse_error("pmc256 1\n", "out of range");
    expect_parse_error("ibr16 1\n", "out of range");
    expect_parse_error("pmc04 1\n", "out of range");
    expect_parse_error("msr\n", "'msr' needs an address");
    expect_parse_error("msr 0x186\n", "expected a 64-bit value");
    expect_parse_error("pmc4 1 2\n", "expected '@THREAD'");
    expect_parse_error("pmc4 1 @x\n", "expected '@THREAD'");
    expect_parse_error("pmc4 1 @1 extra\n", "unexpected 'extra'");
    expect_parse_error("\n\n\npmc4 1 @65535\n", "bad.regs:4:");
    static const char nul[] = "pmc4 1\npmc5 \0 1\n";
    expect_parse_error_len(nul, sizeof nul - 1, "bad.regs:2: NUL byte");
}

static void test_regs_print_roundtrip(void)
{
    GArray *r = pmusim_regs_new();
    pmusim_regs_add(r, PMUSIM_REG_PMC, 12, 0xffff, PMUSIM_THREAD_ALL, "BRANCH_EVENT");
    pmusim_regs_add(r, PMUSIM_REG_DBR, 3, 0x8000000000000000ULL, 1, NULL);
    pmusim_regs_add(r, PMUSIM_REG_MSR, 0x1a6, 0x2033, PMUSIM_THREAD_ALL, "OFFCORE");
    pmusim_regs_add(r, PMUSIM_REG_MSR, 0x123, 5, 0, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    pmusim_regs_print(r, fp);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "MSR_OFFCORE_RSP_0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "msr 0x123"));
    GArray *back = pmusim_regs_new();
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_regs_parse(buf, len, "printed", back, &e));
    CU_ASSERT_EQUAL_FATAL(back->len, r->len);
    for (guint i = 0; i < r->len; i++) {
        CU_ASSERT_EQUAL(at(back, i)->space, at(r, i)->space);
        CU_ASSERT_EQUAL(at(back, i)->num, at(r, i)->num);
        CU_ASSERT_EQUAL(at(back, i)->value, at(r, i)->value);
        CU_ASSERT_EQUAL(at(back, i)->thread, at(r, i)->thread);
        CU_ASSERT_STRING_EQUAL(at(back, i)->label, at(r, i)->label);
    }
    free(buf);
    g_array_free(r, TRUE);
    g_array_free(back, TRUE);
}

static void test_msr_names(void)
{
    CU_ASSERT_STRING_EQUAL(pmusim_msr_name(0x186), "IA32_PERFEVTSEL0");
    CU_ASSERT_STRING_EQUAL(pmusim_msr_name(0x3f6), "MSR_PEBS_LD_LAT_THRESHOLD");
    CU_ASSERT_PTR_NULL(pmusim_msr_name(0x10));
}

/* ---- a fake model to exercise the engine ---- */
typedef struct {
    pmusim_model_t base;
    uint64_t reg[4][8];
    unsigned writes;
    uint64_t insns;
} fake_t;

static const pmusim_model_ops_t fake_ops;

static pmusim_model_t *fake_create(uint32_t n, GError **e)
{
    fake_t *f = g_new0(fake_t, 1);
    pmusim_model_base_init(&f->base, &fake_ops, n);
    return &f->base;
}
static void fake_destroy(pmusim_model_t *m)
{
    pmusim_model_base_clear(m);
    g_free(m);
}
static gboolean fake_write(pmusim_model_t *m, const pmusim_regwrite_t *w, GError **e)
{
    fake_t *f = (fake_t *)m;
    if (w->num >= 8) {
        g_set_error(e, PMUSIM_SIM_ERROR, PMUSIM_SIM_ERROR_REG, "no register %u", w->num);
        return FALSE;
    }
    CU_ASSERT(w->thread < m->nthreads);
    f->reg[w->thread][w->num] = w->value;
    f->writes++;
    if (w->value & 1)
        pmusim_model_diag(m, "bit 0 of r%u is reserved", w->num);
    return TRUE;
}
static void fake_consume(pmusim_model_t *m, const pmusim_rec_t *r, size_t n)
{
    fake_t *f = (fake_t *)m;
    for (size_t i = 0; i < n; i++)
        if (r[i].kind == PMUSIM_REC_INSN && ++f->insns % 3 == 0)
            pmusim_model_pmi(m, r[i].cycle, r[i].thread);
}
static void fake_report(pmusim_model_t *m, pmusim_report_t *r)
{
    fake_t *f = (fake_t *)m;
    pmusim_counter_result_t c = {.value = f->insns, .enabled = TRUE};
    g_strlcpy(c.reg, "R0", sizeof c.reg);
    g_array_append_val(r->counters, c);
}
static const pmusim_model_ops_t fake_ops = {
    .name = "fake", .isa = PMUSIM_ISA_IA64, .max_threads = 4, .create = fake_create,
    .destroy = fake_destroy, .write_reg = fake_write, .consume = fake_consume,
    .report = fake_report,
};

static unsigned handler_calls;
static void handler(pmusim_model_t *m, uint64_t cycle, uint32_t thread, void *user)
{
    handler_calls++;
    CU_ASSERT_PTR_EQUAL(user, &handler_calls);
    /* a handler may write registers of the model it is called for */
    pmusim_regwrite_t w = {.space = PMUSIM_REG_PMC, .num = 7, .value = cycle, .thread = thread};
    CU_ASSERT_TRUE(m->ops->write_reg(m, &w, NULL));
}

static void test_engine_write_regs(void)
{
    pmusim_model_t *m = fake_ops.create(2, NULL);
    fake_t *f = (fake_t *)m;
    GArray *r = pmusim_regs_new();
    pmusim_regs_add(r, PMUSIM_REG_PMC, 4, 0x10, PMUSIM_THREAD_ALL, "X");
    pmusim_regs_add(r, PMUSIM_REG_PMC, 5, 0x21, 1, NULL);
    GError *e = NULL;
    CU_ASSERT_TRUE(pmusim_model_write_regs(m, r, &e));
    CU_ASSERT_EQUAL(f->writes, 3); /* the ALL write went to both threads */
    CU_ASSERT_EQUAL(f->reg[0][4], 0x10);
    CU_ASSERT_EQUAL(f->reg[1][4], 0x10);
    CU_ASSERT_EQUAL(f->reg[1][5], 0x21);
    CU_ASSERT_EQUAL(f->reg[0][5], 0);
    CU_ASSERT_EQUAL(m->diags->len, 1);

    /* a thread the model does not have */
    g_array_set_size(r, 0);
    pmusim_regs_add(r, PMUSIM_REG_PMC, 4, 0, 2, NULL);
    CU_ASSERT_FALSE(pmusim_model_write_regs(m, r, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "thread 2 does not exist"));
    g_clear_error(&e);

    /* the model refuses: the error names the write */
    g_array_set_size(r, 0);
    pmusim_regs_add(r, PMUSIM_REG_PMC, 4, 0, 0, NULL);
    pmusim_regs_add(r, PMUSIM_REG_PMC, 9, 0, 0, NULL);
    CU_ASSERT_FALSE(pmusim_model_write_regs(m, r, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, PMUSIM_SIM_ERROR_REG);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "write #2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "no register 9"));
    g_clear_error(&e);
    g_array_free(r, TRUE);
    fake_destroy(m);
}

static void test_engine_pmi_and_collect(void)
{
    pmusim_model_t *m = fake_ops.create(1, NULL);
    handler_calls = 0;
    pmusim_rec_t recs[7] = {0};
    for (int i = 0; i < 7; i++) {
        recs[i].kind = PMUSIM_REC_INSN;
        recs[i].cycle = (uint64_t)i * 10;
    }
    m->ops->consume(m, recs, 7); /* PMI at insn 3 and 6, logged only */
    CU_ASSERT_EQUAL(m->pmi_count, 2);
    CU_ASSERT_EQUAL(handler_calls, 0);
    pmusim_model_set_pmi_handler(m, handler, &handler_calls);
    m->ops->consume(m, recs, 3); /* insns 8..10: insn 9 is recs[1] -> PMI at cycle 10 */
    CU_ASSERT_EQUAL(handler_calls, 1);
    CU_ASSERT_EQUAL(((fake_t *)m)->reg[0][7], 10);

    pmusim_report_t r;
    pmusim_report_init(&r);
    pmusim_model_collect(m, &r);
    CU_ASSERT_EQUAL(r.counters->len, 1);
    CU_ASSERT_EQUAL(g_array_index(r.counters, pmusim_counter_result_t, 0).value, 10);
    CU_ASSERT_EQUAL_FATAL(r.log->len, 3);
    CU_ASSERT_EQUAL(g_array_index(r.log, pmusim_sim_event_t, 0).cycle, 20);
    CU_ASSERT_EQUAL(g_array_index(r.log, pmusim_sim_event_t, 1).cycle, 50);
    CU_ASSERT_EQUAL(g_array_index(r.log, pmusim_sim_event_t, 2).cycle, 10);
    CU_ASSERT_STRING_EQUAL(g_array_index(r.log, pmusim_sim_event_t, 0).what, "interrupt");
    pmusim_report_clear(&r);
    fake_destroy(m);
}

static void test_engine_log_and_diag_bounds(void)
{
    pmusim_model_t *m = fake_ops.create(1, NULL);
    for (unsigned i = 0; i < PMUSIM_LOG_MAX + 5; i++)
        pmusim_model_log(m, i, 0, "overflow PMD4");
    CU_ASSERT_EQUAL(m->log->len, PMUSIM_LOG_MAX);
    CU_ASSERT_EQUAL(m->log_dropped, 5);
    for (unsigned i = 0; i < 5000; i++)
        pmusim_model_diag(m, "d%u", i);
    CU_ASSERT_EQUAL(m->diags->len, 1001);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(m->diags, 1000), "further diagnostics suppressed");
    fake_destroy(m);
}

static void test_registry(void)
{
    static const char *const names[] = {"ita2", "mont", "wsm", "wsm_dp", "knm"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        CU_ASSERT_PTR_NOT_NULL(pmusim_model_find(names[i]));
        CU_ASSERT_STRING_EQUAL(pmusim_model_find(names[i])->name, names[i]);
        CU_ASSERT_EQUAL(pmusim_cpu_from_name(names[i]), (pmusim_cpu_t)(i + 1));
        CU_ASSERT_STRING_EQUAL(pmusim_cpu_name((pmusim_cpu_t)(i + 1)), names[i]);
    }
    CU_ASSERT_PTR_NOT_NULL(pmusim_model_find("WSM_DP"));
    CU_ASSERT_PTR_NULL(pmusim_model_find("p4"));
    CU_ASSERT_EQUAL(pmusim_cpu_isa(PMUSIM_CPU_MONT), PMUSIM_ISA_IA64);
    CU_ASSERT_EQUAL(pmusim_cpu_isa(PMUSIM_CPU_KNM), PMUSIM_ISA_X86_64);
    GError *e = NULL;
    CU_ASSERT_PTR_NULL(pmusim_model_new("p4", 1, &e));
    CU_ASSERT_EQUAL(e->code, PMUSIM_SIM_ERROR_NO_MODEL);
    g_clear_error(&e);
    CU_ASSERT_PTR_NULL(pmusim_model_new("ita2", 2, &e));
    CU_ASSERT_EQUAL(e->code, PMUSIM_SIM_ERROR_MISMATCH);
    g_clear_error(&e);
}

/* ---- timed writes: a model that logs what it is given, in order ---- */
typedef struct {
    pmusim_model_t base;
    GString *seen;
} tape_t;

static const pmusim_model_ops_t tape_ops;

static pmusim_model_t *tape_create(uint32_t n, GError **e)
{
    tape_t *t = g_new0(tape_t, 1);
    pmusim_model_base_init(&t->base, &tape_ops, n);
    t->seen = g_string_new(NULL);
    return &t->base;
}
static void tape_destroy(pmusim_model_t *m)
{
    g_string_free(((tape_t *)m)->seen, TRUE);
    pmusim_model_base_clear(m);
    g_free(m);
}
static gboolean tape_write(pmusim_model_t *m, const pmusim_regwrite_t *w, GError **e)
{
    g_string_append_printf(((tape_t *)m)->seen, "w%u=%" G_GUINT64_FORMAT " ", w->num,
                           (guint64)w->value);
    return TRUE;
}
static void tape_consume(pmusim_model_t *m, const pmusim_rec_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(((tape_t *)m)->seen, "%c%" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT
                               " ", r[i].kind == PMUSIM_REC_IDLE ? 'I' : 'M',
                               (guint64)r[i].cycle,
                               (guint64)(r[i].kind == PMUSIM_REC_IDLE ? r[i].n : 0));
}
static void tape_finish(pmusim_model_t *m)
{
    g_string_append(((tape_t *)m)->seen, "end");
}
static const pmusim_model_ops_t tape_ops = {
    .name = "tape", .isa = PMUSIM_ISA_IA64, .max_threads = 1, .create = tape_create,
    .destroy = tape_destroy, .write_reg = tape_write, .consume = tape_consume,
    .finish = tape_finish,
};

/* Writes at cycles 30 and 90 fall inside a 100-cycle IDLE: the engine cuts
 * it at each, brings the model to the cycle with a marker, then writes; a
 * write after the trace's last record is never applied. */
static void test_engine_timed_writes_split_idle(void)
{
    char *path = NULL;
    int fd = g_file_open_tmp("pmusim-timed-XXXXXX.txt", &path, NULL);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    close(fd);
    const char *text = "pmusim-trace 2\nisa ia64\ncpu ita2\nthreads 1\nflags 0x0\n"
                       "0 0 idle n=100\n100 0 marker done\nend 2\n";
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, text, -1, NULL));
    GArray *regs = pmusim_regs_new();
    GError *e = NULL;
    const char *rtext = "pmc1 7\n@cycle 30\npmc1 30\n@cycle 90\npmc1 90\npmc2 91\n"
                        "@cycle 5000\npmc1 5000\n";
    CU_ASSERT_TRUE_FATAL(pmusim_regs_parse(rtext, strlen(rtext), "t.regs", regs, &e));
    CU_ASSERT_EQUAL(at(regs, 0)->at_cycle, 0);
    CU_ASSERT_EQUAL(at(regs, 2)->at_cycle, 90);
    CU_ASSERT_EQUAL(at(regs, 3)->at_cycle, 90);
    pmusim_trace_reader_t *rd = pmusim_trace_reader_open(path, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
    pmusim_model_t *m = tape_ops.create(1, NULL);
    CU_ASSERT_TRUE(pmusim_replay_timed(m, rd, regs, NULL, NULL, &e));
    CU_ASSERT_STRING_EQUAL(((tape_t *)m)->seen->str,
                           "w1=7 I0+30 M30+0 w1=30 I30+60 M90+0 w1=90 w2=91 I90+10 M100+0 end");
    /* the other commands refuse timed writes instead of applying them at 0 */
    CU_ASSERT_FALSE(pmusim_model_write_regs(m, regs, &e));
    CU_ASSERT_PTR_NOT_NULL(e ? strstr(e->message, "write #2 (pmc 0x1) is timed (@cycle 30)")
                             : NULL);
    g_clear_error(&e);
    pmusim_model_free(m);
    pmusim_trace_reader_free(rd);
    g_array_free(regs, TRUE);
    g_unlink(path);
    g_free(path);
}

static void test_regs_at_cycle_roundtrip(void)
{
    const char *text = "pmc4 1\n@cycle 0x10  # later\npmd4 0\n@cycle 16\npmc0 0\n";
    GArray *r = pmusim_regs_new();
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(pmusim_regs_parse(text, strlen(text), "a.regs", r, &e));
    CU_ASSERT_EQUAL_FATAL(r->len, 3);
    CU_ASSERT_EQUAL(at(r, 1)->at_cycle, 16);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    pmusim_regs_print(r, fp);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "@cycle 16\npmd4"));
    GArray *back = pmusim_regs_new();
    CU_ASSERT_TRUE(pmusim_regs_parse(buf, len, "printed", back, &e));
    CU_ASSERT_EQUAL(back->len, 3);
    CU_ASSERT_EQUAL(at(back, 2)->at_cycle, 16);
    free(buf);
    expect_parse_error("@cycle\npmc4 1\n", "bad.regs:1: '@cycle' needs a cycle number");
    expect_parse_error("@cycle 9\n@cycle 8\n", "bad.regs:2: '@cycle 8' goes back in time");
    expect_parse_error("@cycles 9\n", "bad.regs:1: expected '@cycle N'");
    g_array_free(r, TRUE);
    g_array_free(back, TRUE);
}

static void register_suites(void)
{
    CU_pSuite s = CU_add_suite("regs", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_regs_parse_forms);
    PMUSIM_ADD_TEST(s, test_regs_parse_errors);
    PMUSIM_ADD_TEST(s, test_regs_print_roundtrip);
    PMUSIM_ADD_TEST(s, test_msr_names);
    PMUSIM_ADD_TEST(s, test_regs_at_cycle_roundtrip);
    s = CU_add_suite("engine", NULL, NULL);
    PMUSIM_ADD_TEST(s, test_engine_write_regs);
    PMUSIM_ADD_TEST(s, test_engine_pmi_and_collect);
    PMUSIM_ADD_TEST(s, test_engine_log_and_diag_bounds);
    PMUSIM_ADD_TEST(s, test_registry);
    PMUSIM_ADD_TEST(s, test_engine_timed_writes_split_idle);
}
