/* Trace benchmark (meson benchmark, never run by CI): generates loop-like
 * traces of 1e8 records (x86 wsm and IA-64 ita2) plus smaller stream and
 * mixed ones, then prints the file size per record and the decode rate of
 * pmusim_trace_reader_next_batch (best of several passes, batches of 1024),
 * by wall time and by the thread's CPU time, and the encode rate of
 * pmusim_trace_writer_write_trusted (zstd included): the CPU time of a pass
 * that decodes and writes the records again, less the best decode pass.
 * Usage: bench-trace [DIR [RECORDS]] (default: the current directory, 1e8). */
#include "pmusim/trace.h"
#include "pmusim/tracegen.h"

#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* CPU time of this thread: unlike wall time it does not count the time the
 * benchmark was preempted (the project machine is shared). */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define BATCH 1024

static int bench(const char *dir, pmusim_cpu_t cpu, pmusim_gen_workload_t wl, uint64_t records,
                 unsigned passes)
{
    char name[64];
    g_snprintf(name, sizeof name, "bench-%s-%s.trace", pmusim_cpu_name(cpu),
               pmusim_gen_workload_name(wl));
    char *path = g_build_filename(dir, name, NULL);
    pmusim_gen_params_t p;
    pmusim_gen_params_init(&p, cpu);
    p.workload = wl;
    p.records = records;
    p.seed = 1;
    pmusim_trace_header_t h;
    GError *e = NULL;
    if (!pmusim_gen_header(&p, &h, &e))
        goto fail;
    gint64 t0 = g_get_monotonic_time();
    pmusim_trace_writer_t *w = pmusim_trace_writer_open(path, PMUSIM_TRACE_BINARY, &h, &e);
    pmusim_trace_header_clear(&h);
    if (!w)
        goto fail;
    if (!pmusim_gen_run(&p, w, &e)) {
        pmusim_trace_writer_close(w, NULL);
        goto fail;
    }
    if (!pmusim_trace_writer_close(w, &e))
        goto fail;
    double gen_s = (double)(g_get_monotonic_time() - t0) / 1e6;
    GStatBuf st;
    g_stat(path, &st);

    pmusim_rec_t *recs = g_new(pmusim_rec_t, BATCH);
    double best = 1e30, best_cpu = 1e30;
    uint64_t total = 0, check = 0;
    for (unsigned pass = 0; pass < passes; pass++) {
        pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
        if (!r) {
            g_free(recs);
            goto fail;
        }
        gint64 t1 = g_get_monotonic_time();
        double c1 = cpu_seconds();
        gssize n;
        total = 0;
        while ((n = pmusim_trace_reader_next_batch(r, recs, BATCH, &e)) > 0) {
            total += (uint64_t)n;
            check += recs[n - 1].cycle; /* keeps the decode observable */
        }
        double s = (double)(g_get_monotonic_time() - t1) / 1e6;
        double cs = cpu_seconds() - c1;
        pmusim_trace_reader_free(r);
        if (n < 0) {
            g_free(recs);
            goto fail;
        }
        if (s < best)
            best = s;
        if (cs < best_cpu)
            best_cpu = cs;
    }
    /* decode and encode again (the writer of trace annotate and capture) */
    char *path2 = g_strconcat(path, ".copy", NULL);
    double enc_cpu = 0;
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, &e);
    pmusim_trace_writer_t *w2 =
        r ? pmusim_trace_writer_open(path2, PMUSIM_TRACE_BINARY, pmusim_trace_reader_header(r), &e)
          : NULL;
    if (w2) {
        double c1 = cpu_seconds();
        gssize n;
        while ((n = pmusim_trace_reader_next_batch(r, recs, BATCH, &e)) > 0)
            if (!pmusim_trace_writer_write_trusted(w2, recs, (size_t)n, &e))
                break;
        gboolean ok = n == 0 && !e;
        ok = pmusim_trace_writer_close(w2, ok ? &e : NULL) && ok;
        enc_cpu = cpu_seconds() - c1 - best_cpu;
        if (!ok)
            enc_cpu = 0;
    }
    if (r)
        pmusim_trace_reader_free(r);
    g_unlink(path2);
    g_free(path2);
    g_free(recs);
    if (e)
        goto fail;
    printf("%-6s %-6s %11" PRIu64 " records  %9.4f bytes/record  %10" PRId64
           " bytes  gen+write %5.1f M rec/s  decode %6.1f M rec/s wall, %6.1f M rec/s cpu"
           "  encode %6.1f M rec/s cpu (best of %u, check %" PRIu64 ")\n",
           pmusim_cpu_name(cpu), pmusim_gen_workload_name(wl), total,
           (double)st.st_size / (double)total, (int64_t)st.st_size, (double)records / gen_s / 1e6,
           (double)total / best / 1e6, (double)total / best_cpu / 1e6,
           enc_cpu > 0 ? (double)total / enc_cpu / 1e6 : 0.0, passes, check % 10);
    g_unlink(path);
    g_free(path);
    return total == records ? 0 : 1;
fail:
    fprintf(stderr, "bench-trace: %s\n", e ? e->message : "failed");
    g_clear_error(&e);
    g_unlink(path);
    g_free(path);
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    uint64_t n = argc > 2 ? g_ascii_strtoull(argv[2], NULL, 10) : UINT64_C(100000000);
    if (n < 1000)
        n = 1000;
    int rc = 0;
    rc |= bench(dir, PMUSIM_CPU_WSM, PMUSIM_GEN_LOOP, n, 3);
    rc |= bench(dir, PMUSIM_CPU_ITA2, PMUSIM_GEN_LOOP, n, 3);
    rc |= bench(dir, PMUSIM_CPU_KNM, PMUSIM_GEN_LOOP, n / 10, 3);
    rc |= bench(dir, PMUSIM_CPU_WSM, PMUSIM_GEN_STREAM, n / 10, 3);
    rc |= bench(dir, PMUSIM_CPU_MONT, PMUSIM_GEN_MIXED, n / 10, 3);
    rc |= bench(dir, PMUSIM_CPU_KNM, PMUSIM_GEN_MIXED, n / 10, 3);
    return rc;
}
