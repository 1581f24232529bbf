/* Built by tests/install against the installed libpmusim (pkg-config
 * pmusim): programs two Westmere counters with raw MSR writes, replays a
 * trace and prints each counter's value.  Expected on
 * traces/samples/wsm_loop.txt (200 instructions, one a cycle): 200 and 200. */
#include <stdio.h>
#include <pmusim/sim.h>
#include <pmusim/trace.h>
#include <pmusim/regs.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: use_pmusim TRACE\n");
        return 2;
    }
    GError *error = NULL;
    pmusim_model_t *m = pmusim_model_new("wsm", 1, &error);
    if (!m) {
        fprintf(stderr, "model: %s\n", error->message);
        return 1;
    }
    GArray *regs = pmusim_regs_new();
    /* IA32_PERFEVTSEL0 (0x186): INST_RETIRED.ANY_P, event 0xc0 umask 0x01,
     * USR (16) | OS (17) | EN (22) = 0x4301c0 */
    pmusim_regs_add(regs, PMUSIM_REG_MSR, 0x186, 0x4301c0, PMUSIM_THREAD_ALL, "insns");
    /* IA32_PERFEVTSEL1 (0x187): UNHALTED_CORE_CYCLES, event 0x3c umask 0 */
    pmusim_regs_add(regs, PMUSIM_REG_MSR, 0x187, 0x43003c, PMUSIM_THREAD_ALL, "cycles");
    /* IA32_PERF_GLOBAL_CTRL (0x38f): enable PMC0 and PMC1 */
    pmusim_regs_add(regs, PMUSIM_REG_MSR, 0x38f, 0x3, PMUSIM_THREAD_ALL, "");
    pmusim_trace_reader_t *r = NULL;
    int status = 1;
    if (!pmusim_model_write_regs(m, regs, &error) ||
        !(r = pmusim_trace_reader_open(argv[1], &error)) ||
        !pmusim_replay(m, r, NULL, NULL, &error)) {
        fprintf(stderr, "%s\n", error->message);
        goto out;
    }
    pmusim_report_t rep;
    pmusim_report_init(&rep);
    pmusim_model_collect(m, &rep);
    for (guint i = 0; i < rep.counters->len; i++) {
        const pmusim_counter_result_t *c =
            &g_array_index(rep.counters, pmusim_counter_result_t, i);
        if (c->enabled)
            printf("%s %s %llu\n", c->reg, c->event, (unsigned long long)c->value);
    }
    printf("cycles %llu records %llu\n", (unsigned long long)rep.cycles,
           (unsigned long long)rep.records);
    pmusim_report_clear(&rep);
    status = 0;
out:
    g_clear_error(&error);
    if (r)
        pmusim_trace_reader_free(r);
    g_array_unref(regs);
    pmusim_model_free(m);
    return status;
}
