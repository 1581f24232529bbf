/* Fuzz target for the x86 event-string parser and encoder (libpfm-4 face).
 *
 * Input: byte 0 selects the default privilege mask and OS layer, the rest is
 * the event string (cut at the first NUL).  Each input is encoded for the raw
 * PMU layer and for perf_event; properties checked:
 *   - success gives 1 or 2 codes and an fstr "pmu::EVENT..." of at most 260
 *     characters; failure leaves codes, count and fstr untouched;
 *   - PERFEVTSEL EN and INT are set in every raw encoding of a core PMU
 *     (the OS PMUs perf and perf_raw encode perf_event configs instead);
 *   - the canonical string, when it parses again, encodes to the same codes
 *     (not checked for raw umasks wider than 32 bits, which libpfm-4 prints
 *     shortened, nor for a cut fstr).
 *
 * Built two ways: with clang -fsanitize=fuzzer (libFuzzer provides main; see
 * docs/encoder-x86.md), or with FUZZ_REPLAY_MAIN as a normal program that
 * replays the corpus files given on the command line plus a fixed number of
 * deterministic mutations of them (meson suite 'fuzz').
 */
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int initialized;

static void fuzz_init(void)
{
    if (initialized)
        return;
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    unsetenv("LIBPFM_FORCE_PMU");
    if (pfm_initialize() != PFM_SUCCESS)
        abort();
    initialized = 1;
}

static void check(int cond, const char *what, const char *str)
{
    if (!cond) {
        fprintf(stderr, "fuzz_enc_x86: property violated: %s for '%s'\n", what, str);
        abort();
    }
}

/* An event of the OS PMUs perf and perf_raw (perf_event configs, not
 * PERFEVTSEL values). */
static int os_pmu_event(int idx)
{
    pfm_event_info_t info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (pfm_get_event_info(idx, PFM_OS_NONE, &info) != PFM_SUCCESS)
        return 0;
    return info.pmu == PFM_PMU_PERF_EVENT || info.pmu == PFM_PMU_PERF_EVENT_RAW;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init();
    if (size == 0)
        return 0;
    const int sel = data[0];
    char str[512];
    size_t n = size - 1 < sizeof str - 1 ? size - 1 : sizeof str - 1;
    memcpy(str, data + 1, n);
    str[n] = '\0';
    const int plm = sel & 0x1f; /* PLM0..PLMH combinations, all valid */

    char *fstr = NULL;
    uint64_t *codes = NULL;
    int count = 0, idx = -1;
    int ret = pfm_get_event_encoding(str, plm, &fstr, &idx, &codes, &count);
    if (ret != PFM_SUCCESS) {
        check(ret < 0 && ret >= PFM_ERR_TOOSMALL, "error code in range", str);
        check(!fstr && !codes && !count, "outputs untouched on error", str);
    } else {
        check(count == 1 || count == 2, "count 1 or 2", str);
        check(codes != NULL && fstr != NULL, "outputs set", str);
        check(strstr(fstr, "::") != NULL && strlen(fstr) <= 260, "fstr shape", str);
        check(os_pmu_event(idx) || (codes[0] & 0x500000) == 0x500000, "EN and INT set", str);
        check(idx >= 0, "event index", str);
        const int cut = strlen(fstr) >= 255;
        const char *raw = strstr(fstr, ":0x");
        if (!cut && !(raw && count == 2 && codes[1] > 0xffffffffull)) {
            char *f2 = NULL;
            uint64_t *c2 = NULL;
            int n2 = 0;
            if (pfm_get_event_encoding(fstr, plm, &f2, NULL, &c2, &n2) == PFM_SUCCESS) {
                check(n2 == count, "fstr re-encodes to the same count", str);
                for (int i = 0; i < count && i < n2; i++)
                    check(c2[i] == codes[i], "fstr re-encodes to the same codes", str);
            }
            free(f2);
            free(c2);
        }
    }
    free(fstr);
    free(codes);

    /* perf_event layers */
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.size = sizeof arg;
    arg.attr = &attr;
    fstr = NULL;
    arg.fstr = (sel & 0x20) ? &fstr : NULL;
    ret = pfm_get_os_event_encoding(str, plm, (sel & 0x40) ? PFM_OS_PERF_EVENT_EXT : PFM_OS_PERF_EVENT,
                                    &arg);
    if (ret == PFM_SUCCESS && !os_pmu_event(arg.idx)) {
        check(attr.type == PERF_TYPE_RAW, "perf type raw", str);
        check((attr.config & 0x530000) == 0, "perf config without EN/INT/USR/OS", str);
    }
    if (ret == PFM_SUCCESS) {
        check(attr.type <= PERF_TYPE_RAW, "perf type in range", str);
        check(attr.size == sizeof attr, "attr size kept", str);
    }
    free(fstr);
    return 0;
}

#ifdef FUZZ_REPLAY_MAIN
#include <dirent.h>

/* Deterministic xorshift so the replay is the same on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const char *const tokens[] = {
    ":", ".", "::", "=", "0x", "0x1", "0xffff", "0x4000000000", ":u", ":k", ":e", ":i", ":c=1",
    ":c=255", ":c=256", ":t", ":t=0", ":ldlat=3", ":ldlat=2", ":ldlat=70000", ":ANY", ":ANY_P",
    ":ANY_REQUEST", ":ANY_RESPONSE", ":OUTSTANDING", ":DMND_DATA_RD", ":LOCAL_DRAM", ":DDR_NEAR",
    ":period=100", ":freq=10", ":precise=2", ":mg", ":mh", ":excl", ":cpu=1", ":pinned", ",", " ",
    "wsm::", "wsm_dp::", "knm::", "knl::", "OFFCORE_RESPONSE_0", "OFFCORE_RESPONSE_1",
    "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD", "UOPS_RETIRED:STALL_CYCLES", "LLC_MISSES",
};

static size_t mutate(char *buf, size_t len, size_t cap)
{
    int ops = 1 + (int)(rng() % 4);
    for (int o = 0; o < ops; o++) {
        size_t pos = len ? (size_t)(rng() % (len + 1)) : 0;
        switch (rng() % 4) {
        case 0: /* flip a byte */
            if (len)
                buf[pos % len] = (char)(rng() & 0x7f);
            break;
        case 1: /* delete a span */
            if (len) {
                size_t k = 1 + (size_t)(rng() % 8);
                size_t p = pos % len;
                if (p + k > len)
                    k = len - p;
                memmove(buf + p, buf + p + k, len - p - k);
                len -= k;
            }
            break;
        default: { /* insert a token */
            const char *t = tokens[rng() % (sizeof tokens / sizeof tokens[0])];
            size_t tl = strlen(t);
            if (len + tl < cap) {
                memmove(buf + pos + tl, buf + pos, len - pos);
                memcpy(buf + pos, t, tl);
                len += tl;
            }
            break;
        }
        }
    }
    return len;
}

static long replay_file(const char *path, long mutations)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "fuzz_enc_x86: %s: cannot open\n", path);
        exit(1);
    }
    uint8_t buf[600];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    /* strip one trailing newline so corpus files can be edited by hand */
    if (n > 1 && buf[n - 1] == '\n')
        n--;
    LLVMFuzzerTestOneInput(buf, n);
    long runs = 1;
    for (long m = 0; m < mutations; m++) {
        uint8_t mb[600];
        memcpy(mb, buf, n);
        size_t ml = n ? 1 + mutate((char *)mb + 1, n - 1, sizeof mb - 2) : 0;
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
    long mutations = 0;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--mutations") == 0) {
        mutations = strtol(argv[2], NULL, 10);
        first = 3;
    }
    long runs = 0;
    for (int i = first; i < argc; i++) {
        DIR *dir = opendir(argv[i]);
        if (!dir) {
            runs += replay_file(argv[i], mutations);
            continue;
        }
        char **names = NULL;
        size_t nn = 0;
        for (struct dirent *de; (de = readdir(dir));) {
            if (de->d_name[0] == '.')
                continue;
            names = realloc(names, (nn + 1) * sizeof *names);
            names[nn] = malloc(strlen(argv[i]) + strlen(de->d_name) + 2);
            sprintf(names[nn], "%s/%s", argv[i], de->d_name);
            nn++;
        }
        closedir(dir);
        if (nn)
            qsort(names, nn, sizeof *names, cmp_str);
        for (size_t k = 0; k < nn; k++) {
            runs += replay_file(names[k], mutations);
            free(names[k]);
        }
        free(names);
    }
    printf("fuzz_enc_x86: %ld inputs, no property violated\n", runs);
    return 0;
}
#endif
