/* Fuzz target for pfm_dispatch_events() on Itanium 2 and Montecito
 * (libpfm-3 face).
 *
 * The input bytes are read as a request: byte 0 picks the PMU, whether the
 * model input/output structures are passed, system-wide mode and the
 * default privilege levels; then come the events (indices may be out of
 * range, unit masks may be bogus), the per-event options, the unavailable
 * PMCs and every model feature (opcode matchers, EARs, BTB/ETB, IP-EAR, code
 * and data ranges).  Running out of bytes reads zeros.  Properties checked:
 *   - the return code is a libpfm-3 error code;
 *   - on success the first PMCs are the events' counters, each allowed by the
 *     event's counter mask and all distinct, the PMD list starts with the same
 *     numbers, and each range output uses an even number (<= 8) of debug
 *     registers numbered 0..7;
 *   - dispatching the same request again gives the same result.
 *
 * Built two ways: with clang -fsanitize=fuzzer (libFuzzer's main), or with
 * FUZZ_REPLAY_MAIN as a program that replays the corpus files given on the
 * command line plus deterministic mutations of them (meson suite 'fuzz').
 */
#include <perfmon/pfmlib_itanium2.h>
#include <perfmon/pfmlib_montecito.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    const uint8_t *p;
    size_t left;
} reader_t;

static uint8_t rd8(reader_t *r)
{
    if (!r->left)
        return 0;
    r->left--;
    return *r->p++;
}

static uint64_t rdn(reader_t *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)rd8(r) << (8 * i);
    return v;
}

/* Addresses: a 32-bit value shifted into place, sometimes bundle-aligned. */
static uint64_t rd_addr(reader_t *r)
{
    uint8_t how = rd8(r);
    uint64_t a = rdn(r, 4) << (how % 40);
    if (how & 0x80)
        a &= ~0xfULL;
    return a;
}

static void rd_range(reader_t *r, pfmlib_ita2_input_rr_t *rr)
{
    uint8_t ctl = rd8(r);
    rr->rr_used = ctl & 1;
    rr->rr_flags = (ctl >> 1) & 0xf;
    unsigned n = (ctl >> 5) % 5;
    for (unsigned i = 0; i < n; i++) {
        rr->rr_limits[i].rr_plm = rd8(r) % 0x12;
        rr->rr_limits[i].rr_start = rd_addr(r);
        uint8_t len = rd8(r);
        rr->rr_limits[i].rr_end = rr->rr_limits[i].rr_start + (rdn(r, 2) << (len % 24));
        if (len & 0x80)
            rr->rr_limits[i].rr_end &= ~0xfULL;
    }
}

typedef struct {
    pfmlib_input_param_t inp;
    pfmlib_output_param_t outp;
    union { pfmlib_ita2_input_param_t ita2; pfmlib_mont_input_param_t mont; } in;
    union { pfmlib_ita2_output_param_t ita2; pfmlib_mont_output_param_t mont; } out;
} request_t;

_Static_assert(sizeof(pfmlib_ita2_input_rr_t) == sizeof(pfmlib_mont_input_rr_t), "rr layout");

static void build(reader_t *r, request_t *q, int *mont, int *with_in, int *with_out)
{
    memset(q, 0, sizeof(*q));
    uint8_t b0 = rd8(r);
    *mont = b0 & 1;
    *with_in = (b0 >> 1) & 1;
    *with_out = (b0 >> 2) & 1;
    q->inp.pfp_flags = (b0 >> 3) & 1;
    q->inp.pfp_dfl_plm = b0 >> 4;
    unsigned nev = *mont ? 637 : 497, ncnt = *mont ? 12 : 4;
    q->inp.pfp_event_count = rd8(r) % (ncnt + 2);
    for (unsigned i = 0; i < q->inp.pfp_event_count; i++) {
        pfmlib_event_t *e = &q->inp.pfp_events[i];
        e->event = (unsigned)(rdn(r, 2) % (nev + 3));
        uint8_t b = rd8(r);
        e->plm = b & 0x1f;
        e->num_masks = (b >> 5) % 6;
        for (unsigned k = 0; k < e->num_masks; k++)
            e->unit_masks[k] = rd8(r) % 5;
    }
    uint16_t unavail = (uint16_t)rdn(r, 2);
    for (unsigned b = 0; b < 16; b++)
        if (unavail & (1u << b))
            pfm_regmask_set(&q->inp.pfp_unavail_pmcs, b);
    static const unsigned hi_pmcs[8] = { 32, 34, 37, 38, 39, 40, 41, 42 };
    uint8_t unavail_hi = rd8(r);
    for (unsigned b = 0; b < 8; b++)
        if (unavail_hi & (1u << b))
            pfm_regmask_set(&q->inp.pfp_unavail_pmcs, hi_pmcs[b]);
    if (!*mont) {
        pfmlib_ita2_input_param_t *p = &q->in.ita2;
        for (unsigned i = 0; i < PMU_ITA2_NUM_COUNTERS; i++) {
            uint8_t b = rd8(r);
            p->pfp_ita2_counters[i].flags = b & 1;
            p->pfp_ita2_counters[i].thres = (b >> 1) % 9;
            p->pfp_ita2_counters[i].ism = (pfmlib_ita2_ism_t)((b >> 5) % 5);
        }
        uint8_t f = rd8(r);
        p->pfp_ita2_pmc8.opcm_used = f & 1;
        p->pfp_ita2_pmc8.pmc_val = rdn(r, 8);
        p->pfp_ita2_pmc9.opcm_used = (f >> 1) & 1;
        p->pfp_ita2_pmc9.pmc_val = rdn(r, 8);
        pfmlib_ita2_ear_t *ears[2] = { &p->pfp_ita2_iear, &p->pfp_ita2_dear };
        for (int k = 0; k < 2; k++) {
            uint8_t b = rd8(r);
            ears[k]->ear_used = b & 1;
            ears[k]->ear_mode = (pfmlib_ita2_ear_mode_t)((b >> 1) % 4);
            ears[k]->ear_ism = (pfmlib_ita2_ism_t)((b >> 3) % 5);
            ears[k]->ear_plm = rd8(r) % 0x12;
            ears[k]->ear_umask = rdn(r, 2) % 0x120;
        }
        uint8_t b = rd8(r);
        p->pfp_ita2_btb.btb_used = b & 1;
        p->pfp_ita2_btb.btb_ds = (b >> 1) % 3;
        p->pfp_ita2_btb.btb_tm = rd8(r) % 5;
        p->pfp_ita2_btb.btb_ptm = rd8(r) % 5;
        p->pfp_ita2_btb.btb_ppm = rd8(r) % 5;
        p->pfp_ita2_btb.btb_brt = rd8(r) % 5;
        p->pfp_ita2_btb.btb_plm = rd8(r) % 0x12;
        rd_range(r, &p->pfp_ita2_irange);
        rd_range(r, &p->pfp_ita2_drange);
    } else {
        pfmlib_mont_input_param_t *p = &q->in.mont;
        for (unsigned i = 0; i < PMU_MONT_NUM_COUNTERS; i++) {
            uint8_t b = rd8(r);
            p->pfp_mont_counters[i].flags = b & 3;
            p->pfp_mont_counters[i].thres = (b >> 2) % 9;
        }
        pfmlib_mont_opcm_t *ops[2] = { &p->pfp_mont_opcm1, &p->pfp_mont_opcm2 };
        for (int k = 0; k < 2; k++) {
            uint8_t b = rd8(r);
            ops[k]->opcm_used = b & 1;
            ops[k]->opcm_m = (b >> 1) & 1;
            ops[k]->opcm_i = (b >> 2) & 1;
            ops[k]->opcm_f = (b >> 3) & 1;
            ops[k]->opcm_b = (b >> 4) % 3;
            ops[k]->opcm_match = rdn(r, 6);
            ops[k]->opcm_mask = rdn(r, 6);
        }
        pfmlib_mont_ear_t *ears[2] = { &p->pfp_mont_iear, &p->pfp_mont_dear };
        for (int k = 0; k < 2; k++) {
            uint8_t b = rd8(r);
            ears[k]->ear_used = b & 1;
            ears[k]->ear_mode = (pfmlib_mont_ear_mode_t)((b >> 1) % 4);
            ears[k]->ear_plm = rd8(r) % 0x12;
            ears[k]->ear_umask = rdn(r, 2) % 0x120;
        }
        uint8_t b = rd8(r);
        p->pfp_mont_etb.etb_used = b & 1;
        p->pfp_mont_etb.etb_tm = rd8(r) % 5;
        p->pfp_mont_etb.etb_ptm = rd8(r) % 5;
        p->pfp_mont_etb.etb_ppm = rd8(r) % 5;
        p->pfp_mont_etb.etb_brt = rd8(r) % 5;
        p->pfp_mont_etb.etb_plm = rd8(r) % 0x12;
        b = rd8(r);
        p->pfp_mont_ipear.ipear_used = b & 1;
        p->pfp_mont_ipear.ipear_plm = (b >> 1) % 0x12;
        p->pfp_mont_ipear.ipear_delay = (unsigned short)(rdn(r, 2) % 300);
        rd_range(r, (pfmlib_ita2_input_rr_t *)&p->pfp_mont_irange);
        rd_range(r, (pfmlib_ita2_input_rr_t *)&p->pfp_mont_drange);
    }
}

static void check(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_enc_ia64: property violated: %s\n", what);
        abort();
    }
}

static void check_rr(const pfmlib_ita2_output_rr_t *rr)
{
    check(rr->rr_nbr_used <= 8 && (rr->rr_nbr_used & 1) == 0, "debug registers: even count <= 8");
    for (unsigned i = 0; i < rr->rr_nbr_used; i++)
        check(rr->rr_br[i].reg_num < 8, "debug register number 0..7");
}

static request_t req_a, req_b;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int mont, with_in, with_out;
    reader_t r = { data, size };
    build(&r, &req_a, &mont, &with_in, &with_out);
    req_b = req_a;
    check(pfm_force_pmu(mont ? PFMLIB_MONTECITO_PMU : PFMLIB_ITANIUM2_PMU) == PFMLIB_SUCCESS, "force PMU");
    int ret = pfm_dispatch_events(&req_a.inp, with_in ? (void *)&req_a.in : NULL, &req_a.outp,
                                  with_out ? (void *)&req_a.out : NULL);
    check(ret <= 0 && ret >= PFMLIB_ERR_NOMEM, "libpfm-3 error code");
    int ret2 = pfm_dispatch_events(&req_b.inp, with_in ? (void *)&req_b.in : NULL, &req_b.outp,
                                   with_out ? (void *)&req_b.out : NULL);
    check(ret == ret2, "same request, same return code");
    if (ret != PFMLIB_SUCCESS)
        return 0;
    check(memcmp(&req_a.outp, &req_b.outp, sizeof(req_a.outp)) == 0, "same request, same output");
    const pfmlib_output_param_t *o = &req_a.outp;
    unsigned n = req_a.inp.pfp_event_count, used = 0;
    check(o->pfp_pmc_count >= n && o->pfp_pmc_count < 64, "PMC count");
    check(o->pfp_pmd_count >= n && o->pfp_pmd_count < 64, "PMD count");
    for (unsigned i = 0; i < n; i++) {
        pfmlib_regmask_t cnt;
        unsigned num = o->pfp_pmcs[i].reg_num;
        check(pfm_get_event_counters(req_a.inp.pfp_events[i].event, &cnt) == PFMLIB_SUCCESS, "counters");
        check(pfm_regmask_isset(&cnt, num), "event on an allowed counter");
        check(!pfm_regmask_isset(&req_a.inp.pfp_unavail_pmcs, num), "counter available");
        check(!(used & (1u << num)), "distinct counters");
        used |= 1u << num;
        check(o->pfp_pmds[i].reg_num == num, "PMD matches PMC");
    }
    if (with_out) {
        const pfmlib_ita2_output_param_t *mo = (const pfmlib_ita2_output_param_t *)&req_a.out;
        check_rr(&mo->pfp_ita2_irange);
        check_rr(&mo->pfp_ita2_drange);
        int fine = mont ? pfm_mont_irange_is_fine(&req_a.outp, &req_a.out.mont)
                        : pfm_ita2_irange_is_fine(&req_a.outp, &req_a.out.ita2);
        check(fine == 0 || fine == 1, "irange_is_fine is boolean");
    }
    return 0;
}

_Static_assert(sizeof(pfmlib_ita2_output_param_t) == sizeof(pfmlib_mont_output_param_t), "output layout");

#ifdef FUZZ_REPLAY_MAIN
#include <dirent.h>

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

enum { MAXLEN = 1024 };

static size_t mutate(uint8_t *buf, size_t len)
{
    int ops = 1 + (int)(rng() % 4);
    for (int o = 0; o < ops; o++) {
        size_t pos = len ? (size_t)(rng() % len) : 0;
        switch (rng() % 4) {
        case 0:
            if (len)
                buf[pos] ^= (uint8_t)(1u << (rng() % 8));
            break;
        case 1:
            if (len)
                buf[pos] = (uint8_t)rng();
            break;
        case 2:
            if (len > 1) {
                memmove(buf + pos, buf + pos + 1, len - pos - 1);
                len--;
            }
            break;
        default:
            if (len < MAXLEN) {
                memmove(buf + pos + 1, buf + pos, len - pos);
                buf[pos] = (uint8_t)rng();
                len++;
            }
            break;
        }
    }
    return len;
}

static long replay_file(const char *path, long mutations)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "fuzz_enc_ia64: %s: cannot open\n", path);
        exit(1);
    }
    uint8_t buf[MAXLEN + 1];
    size_t n = fread(buf, 1, MAXLEN, fp);
    fclose(fp);
    LLVMFuzzerTestOneInput(buf, n);
    long runs = 1;
    for (long m = 0; m < mutations; m++) {
        uint8_t mb[MAXLEN + 1];
        memcpy(mb, buf, n);
        size_t ml = mutate(mb, n);
        LLVMFuzzerTestOneInput(mb, ml);
        runs++;
    }
    return runs;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Arguments: [--mutations N] FILE-or-DIRECTORY... (directories in name order) */
int main(int argc, char **argv)
{
    long mutations = 0, runs = 0;
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "--mutations") == 0) {
        mutations = strtol(argv[i + 1], NULL, 10);
        i += 2;
    }
    for (; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            runs += replay_file(argv[i], mutations);
            continue;
        }
        char **names = NULL;
        size_t nn = 0;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.')
                continue;
            names = realloc(names, (nn + 1) * sizeof(*names));
            size_t l = strlen(argv[i]) + strlen(de->d_name) + 2;
            names[nn] = malloc(l);
            snprintf(names[nn], l, "%s/%s", argv[i], de->d_name);
            nn++;
        }
        closedir(d);
        qsort(names, nn, sizeof(*names), cmp_str);
        for (size_t k = 0; k < nn; k++) {
            runs += replay_file(names[k], mutations);
            free(names[k]);
        }
        free(names);
    }
    printf("fuzz_enc_ia64: %ld inputs run, all properties held\n", runs);
    return 0;
}
#endif
