/* Per-file replay benchmark used by scripts/bench.sh (not run by CI).
 *
 *   bench-file FILE [REGS] [PASSES]
 *
 * Prints, for the trace FILE, the median over PASSES (default 5) of:
 *   decode  pmusim_trace_reader_next_batch() in batches of 1024, no model;
 *   zstd    ZSTD_decompressStream() of the same file into a 256 KiB buffer
 *           (what the decoder cannot go below);
 *   count   pmusim_replay() of a model of the trace's CPU and thread count
 *           programmed with the register writes in REGS (docs/REGS.md)
 * as M records/s of the thread's CPU time (the machine is shared: CPU time
 * leaves out the time the process waited for a core), the count/decode time
 * ratio, and the peak resident memory; decode_wall is the decode rate by wall
 * time and decode_cpu the same decode by the CPU time of the whole process
 * (the reader's decompression thread included, where it runs one).  One
 * line, `key=value` fields. */
#include "pmusim/regs.h"
#include "pmusim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zstd.h>

static double clock_now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
    return clock_now(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static gboolean decode(const char *path, uint64_t *nrec, double *secs, double *wall,
                       double *proc, GError **e)
{
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, e);
    if (!r)
        return FALSE;
    pmusim_rec_t *batch = g_new(pmusim_rec_t, 1024);
    uint64_t got = 0, check = 0;
    double w0 = clock_now(CLOCK_MONOTONIC), p0 = clock_now(CLOCK_PROCESS_CPUTIME_ID);
    double t0 = cpu_now();
    gssize k;
    while ((k = pmusim_trace_reader_next_batch(r, batch, 1024, e)) > 0) {
        got += (uint64_t)k;
        check += batch[k - 1].cycle;
    }
    *secs = cpu_now() - t0;
    *wall = clock_now(CLOCK_MONOTONIC) - w0;
    *proc = clock_now(CLOCK_PROCESS_CPUTIME_ID) - p0;
    pmusim_trace_reader_free(r);
    g_free(batch);
    *nrec = got + (check & 0); /* check keeps the records observable */
    return k == 0;
}

static gboolean zstd_only(const char *path, double *secs, GError **e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        g_set_error(e, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot open %s", path);
        return FALSE;
    }
    /* the reader's buffer sizes: 128 KiB of file, 256 KiB of output */
    const size_t icap = 128u * 1024u, ocap = 256u * 1024u;
    void *ibuf = g_malloc(icap), *out = g_malloc(ocap);
    ZSTD_DStream *zd = ZSTD_createDStream();
    size_t ret = 0, got;
    double t0 = cpu_now();
    while (!ZSTD_isError(ret) && (got = fread(ibuf, 1, icap, fp)) > 0) {
        ZSTD_inBuffer in = { ibuf, got, 0 };
        while (in.pos < in.size) {
            ZSTD_outBuffer o = { out, ocap, 0 };
            ret = ZSTD_decompressStream(zd, &o, &in);
            if (ZSTD_isError(ret))
                break;
        }
    }
    *secs = cpu_now() - t0;
    ZSTD_freeDStream(zd);
    g_free(ibuf);
    g_free(out);
    fclose(fp);
    if (ZSTD_isError(ret)) {
        g_set_error(e, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", path, ZSTD_getErrorName(ret));
        return FALSE;
    }
    return TRUE;
}

static gboolean count(const char *path, const GArray *regs, double *secs, GError **e)
{
    pmusim_trace_reader_t *r = pmusim_trace_reader_open(path, e);
    if (!r)
        return FALSE;
    const pmusim_trace_header_t *h = pmusim_trace_reader_header(r);
    pmusim_model_t *m = pmusim_model_new(pmusim_cpu_name(h->cpu), h->nthreads, e);
    gboolean ok = m && pmusim_model_write_regs(m, regs, e);
    if (ok) {
        double t0 = cpu_now();
        ok = pmusim_replay(m, r, NULL, NULL, e);
        *secs = cpu_now() - t0;
    }
    if (m)
        pmusim_model_free(m);
    pmusim_trace_reader_free(r);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: bench-file FILE [REGS] [PASSES]\n");
        return 2;
    }
    const char *path = argv[1];
    const char *regs_path = argc > 2 && *argv[2] ? argv[2] : NULL;
    unsigned passes = argc > 3 ? (unsigned)atoi(argv[3]) : 5;
    if (passes < 1 || passes > 100) {
        fprintf(stderr, "bench-file: PASSES must be 1..100\n");
        return 2;
    }
    GError *e = NULL;
    GArray *regs = pmusim_regs_new();
    if (regs_path && !pmusim_regs_load(regs_path, regs, &e))
        goto fail;
    double td[100], tw[100], tp[100], tz[100], tc[100];
    uint64_t nrec = 0;
    for (unsigned i = 0; i < passes; i++) {
        if (!decode(path, &nrec, &td[i], &tw[i], &tp[i], &e) || !zstd_only(path, &tz[i], &e))
            goto fail;
        if (regs_path && !count(path, regs, &tc[i], &e))
            goto fail;
    }
    double d = median(td, passes), z = median(tz, passes);
    double dw = median(tw, passes), dp = median(tp, passes);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("records=%" G_GUINT64_FORMAT " decode=%.1f zstd=%.1f", (guint64)nrec,
           (double)nrec / d / 1e6, (double)nrec / z / 1e6);
    printf(" decode_wall=%.1f decode_cpu=%.1f", (double)nrec / dw / 1e6, (double)nrec / dp / 1e6);
    if (regs_path) {
        double c = median(tc, passes);
        printf(" count=%.1f count/decode=%.2f", (double)nrec / c / 1e6, c / d);
    }
    printf(" rss_kib=%ld\n", ru.ru_maxrss);
    g_array_free(regs, TRUE);
    return 0;
fail:
    fprintf(stderr, "bench-file: %s\n", e ? e->message : "failed");
    g_clear_error(&e);
    g_array_free(regs, TRUE);
    return 1;
}
