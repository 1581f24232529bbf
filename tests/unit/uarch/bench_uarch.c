/* Benchmark of the microarchitecture model (meson benchmark `uarch-annotate`,
 * never run by CI).  Prints, by this thread's CPU time:
 *   1. the model alone: instructions from memory into a sink that drops
 *      them (a loop of loads, stores and branches over 16 KiB with one
 *      load in 8 streaming through memory);
 *   2. `trace annotate` in-process on a generated trace: reader -> model ->
 *      writer, records of the output per second, next to a plain copy
 *      (reader -> writer) of the same trace measured in the same run.
 * Usage: bench-uarch [DIR [INSTRUCTIONS]] (default: current directory, 2e7). */
#include "pmusim/trace.h"
#include "pmusim/tracegen.h"
#include "pmusim/uarch.h"

#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static gboolean drop_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    *(uint64_t *)user += n;
    return TRUE;
}

static void bench_model(pmusim_cpu_t cpu, uint64_t n)
{
    uint64_t out = 0;
    GError *e = NULL;
    pmusim_uarch_t *u = pmusim_uarch_new(cpu, 1, NULL, drop_sink, &out, &e);
    pmusim_uarch_access_t a = { .size = 8 };
    pmusim_uarch_insn_t in = { .plm = 3, .len = 4, .access = &a };
    uint64_t stream = 0;
    double t0 = cpu_seconds();
    for (uint64_t i = 0; i < n; i++) {
        unsigned k = (unsigned)(i & 7);
        in.ip = 0x401000 + k * 4;
        in.naccess = k < 3;
        in.br = k == 7 ? PMUSIM_UARCH_BR_COND : PMUSIM_UARCH_BR_NONE;
        in.taken = (i & 0x3f8) != 0x3f8;
        in.target = 0x401000;
        a.is_store = k == 2;
        a.addr = k == 1 ? 0x20000000 + (stream++ & 0xffffff) * 64
                        : 0x10000000 + (i * 8 & 0x3fff);
        if (!pmusim_uarch_insn(u, &in, &e))
            abort();
    }
    pmusim_uarch_finish(u, &e);
    double dt = cpu_seconds() - t0;
    printf("model alone %-6s %10" PRIu64 " instructions %10" PRIu64 " records %6.3f s  %6.1f M insn/s"
           "  %6.1f M rec/s\n", pmusim_cpu_name(cpu), n, out, dt, (double)n / dt / 1e6,
           (double)out / dt / 1e6);
    pmusim_uarch_free(u);
}

typedef struct pipe {
    pmusim_trace_writer_t *w;
} pipe_t;

static gboolean write_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    return pmusim_trace_writer_write(((pipe_t *)user)->w, recs, n, error);
}

/* reader -> (model) -> writer; returns output records. */
static uint64_t run_pipe(const char *in_path, const char *out_path, gboolean model, double *dt)
{
    GError *e = NULL;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(in_path, &e);
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    pipe_t p = { pmusim_trace_writer_open(out_path, PMUSIM_TRACE_BINARY, h, &e) };
    pmusim_uarch_t *u = model ? pmusim_uarch_new(h->cpu, h->nthreads, NULL, write_sink, &p, &e)
                              : NULL;
    pmusim_rec_t *recs = g_new(pmusim_rec_t, 4096);
    pmusim_uarch_access_t acc[PMUSIM_UARCH_MAX_ACCESSES];
    pmusim_uarch_insn_t in;
    gboolean pending = FALSE;
    double t0 = cpu_seconds();
    gssize n;
    while ((n = pmusim_trace_reader_next_batch(r, recs, 4096, &e)) > 0) {
        if (!u) {
            pmusim_trace_writer_write(p.w, recs, (size_t)n, &e);
            continue;
        }
        for (gssize i = 0; i < n; i++) {
            if (recs[i].kind == PMUSIM_REC_INSN) {
                if (pending)
                    pmusim_uarch_insn(u, &in, &e);
                pmusim_uarch_insn_from_rec(&recs[i], &in, acc);
                pending = TRUE;
            } else if (recs[i].kind == PMUSIM_REC_MEM && pending) {
                pmusim_uarch_insn_add_mem(&in, acc, &recs[i]);
            }
        }
    }
    if (pending)
        pmusim_uarch_insn(u, &in, &e);
    if (u)
        pmusim_uarch_finish(u, &e);
    uint64_t out = pmusim_trace_writer_records_written(p.w);
    pmusim_trace_writer_close(p.w, &e);
    *dt = cpu_seconds() - t0;
    pmusim_uarch_free(u);
    pmusim_trace_reader_free(r);
    g_free(recs);
    return out;
}

static void bench_annotate(const char *dir, pmusim_cpu_t cpu, pmusim_gen_workload_t wl, uint64_t n)
{
    char *in_path = g_build_filename(dir, "bench-uarch-in.pmt", NULL);
    char *out_path = g_build_filename(dir, "bench-uarch-out.pmt", NULL);
    pmusim_gen_params_t gp;
    pmusim_gen_params_init(&gp, cpu);
    gp.workload = wl;
    gp.records = n;
    gp.threads = 1;
    pmusim_trace_header_t h;
    GError *e = NULL;
    pmusim_gen_header(&gp, &h, &e);
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(in_path, PMUSIM_TRACE_BINARY, &h, &e);
    pmusim_gen_run(&gp, w, &e);
    pmusim_trace_writer_close(w, &e);
    pmusim_trace_header_clear(&h);
    double dc, da;
    uint64_t nc = run_pipe(in_path, out_path, FALSE, &dc);
    uint64_t na = run_pipe(in_path, out_path, TRUE, &da);
    printf("annotate %-6s %-6s copy %10" PRIu64 " rec %6.3f s %6.1f M rec/s | annotate %10" PRIu64
           " rec %6.3f s %6.1f M rec/s\n", pmusim_cpu_name(cpu), pmusim_gen_workload_name(wl),
           nc, dc, (double)nc / dc / 1e6, na, da, (double)na / da / 1e6);
    g_unlink(in_path);
    g_unlink(out_path);
    g_free(in_path);
    g_free(out_path);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    uint64_t n = argc > 2 ? g_ascii_strtoull(argv[2], NULL, 10) : 20000000;
    bench_model(PMUSIM_CPU_WSM, n);
    bench_model(PMUSIM_CPU_KNM, n);
    bench_model(PMUSIM_CPU_ITA2, n);
    bench_annotate(dir, PMUSIM_CPU_WSM, PMUSIM_GEN_LOOP, n);
    bench_annotate(dir, PMUSIM_CPU_WSM, PMUSIM_GEN_MIXED, n / 4);
    bench_annotate(dir, PMUSIM_CPU_ITA2, PMUSIM_GEN_LOOP, n);
    return 0;
}
