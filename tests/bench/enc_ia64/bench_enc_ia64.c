/* Benchmark: pfm_dispatch_events() on a mix of Itanium 2 and Montecito
 * requests (counting, thresholds, EARs, BTB/ETB, opcode matchers, code and
 * data ranges).  Prints requests per second.  `meson test --benchmark`. */
#include <perfmon/pfmlib_itanium2.h>
#include <perfmon/pfmlib_montecito.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    int pmu;
    const char *events[4];
    void (*setup)(void *model_in);
} request_t;

static void ita2_thres(void *p)
{
    ((pfmlib_ita2_input_param_t *)p)->pfp_ita2_counters[1].thres = 3;
}

static void ita2_dear(void *p)
{
    pfmlib_ita2_input_param_t *in = p;
    in->pfp_ita2_dear = (pfmlib_ita2_ear_t){ .ear_used = 1, .ear_mode = PFMLIB_ITA2_EAR_CACHE_MODE, .ear_umask = 4 };
}

static void ita2_irange(void *p)
{
    pfmlib_ita2_input_param_t *in = p;
    in->pfp_ita2_irange.rr_used = 1;
    in->pfp_ita2_irange.rr_limits[0].rr_start = 0x1000;
    in->pfp_ita2_irange.rr_limits[0].rr_end = 0x7000;
}

static void ita2_drange(void *p)
{
    pfmlib_ita2_input_param_t *in = p;
    in->pfp_ita2_drange.rr_used = 1;
    in->pfp_ita2_drange.rr_limits[0].rr_start = 0x1003;
    in->pfp_ita2_drange.rr_limits[0].rr_end = 0x1011;
}

static void mont_opcm_fine(void *p)
{
    pfmlib_mont_input_param_t *in = p;
    in->pfp_mont_opcm1 = (pfmlib_mont_opcm_t){ .opcm_used = 1, .opcm_match = 0x1234, .opcm_mask = 0xff,
                                               .opcm_m = 1 };
    in->pfp_mont_irange.rr_used = 1;
    in->pfp_mont_irange.rr_limits[0].rr_start = 0x10000;
    in->pfp_mont_irange.rr_limits[0].rr_end = 0x10800;
}

static void mont_etb(void *p)
{
    pfmlib_mont_input_param_t *in = p;
    in->pfp_mont_etb = (pfmlib_mont_etb_t){ .etb_used = 1, .etb_tm = 3, .etb_ptm = 3, .etb_ppm = 3 };
}

static const request_t mix[] = {
    { PFMLIB_ITANIUM2_PMU, { "IA64_INST_RETIRED", "CPU_CYCLES" }, NULL },
    { PFMLIB_ITANIUM2_PMU, { "CPU_CYCLES", "NOPS_RETIRED", "L1D_READS_SET0" }, ita2_thres },
    { PFMLIB_ITANIUM2_PMU, { "DATA_EAR_CACHE_LAT4", "BRANCH_EVENT" }, ita2_dear },
    { PFMLIB_ITANIUM2_PMU, { "IA64_TAGGED_INST_RETIRED_IBRP0_PMC8", "IA64_TAGGED_INST_RETIRED_IBRP1_PMC9",
                             "IA64_TAGGED_INST_RETIRED_IBRP2_PMC8", "IA64_TAGGED_INST_RETIRED_IBRP3_PMC9" },
      ita2_irange },
    { PFMLIB_ITANIUM2_PMU, { "ALAT_CAPACITY_MISS_ALL", "L2_FORCE_RECIRC_ANY" }, ita2_drange },
    { PFMLIB_MONTECITO_PMU, { "CPU_OP_CYCLES_ALL", "BUS_ALL_SELF", "L2D_BYPASS_L2_DATA1", "L1D_READ_MISSES_ALL" },
      NULL },
    { PFMLIB_MONTECITO_PMU, { "IA64_INST_RETIRED" }, mont_opcm_fine },
    { PFMLIB_MONTECITO_PMU, { "ETB_EVENT", "DATA_EAR_CACHE_LAT8" }, mont_etb },
};
enum { NREQ = sizeof(mix) / sizeof(mix[0]) };

typedef struct {
    int pmu;
    pfmlib_input_param_t inp;
    union { pfmlib_ita2_input_param_t ita2; pfmlib_mont_input_param_t mont; } in;
    int with_model;
} prepared_t;

static prepared_t prep[NREQ];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    static pfmlib_output_param_t outp;
    static union { pfmlib_ita2_output_param_t ita2; pfmlib_mont_output_param_t mont; } out;
    for (int i = 0; i < NREQ; i++) {
        prepared_t *p = &prep[i];
        p->pmu = mix[i].pmu;
        if (pfm_force_pmu(p->pmu) != PFMLIB_SUCCESS)
            return 1;
        p->inp.pfp_dfl_plm = PFM_PLM3;
        for (int k = 0; k < 4 && mix[i].events[k]; k++) {
            if (pfm_find_event(mix[i].events[k], &p->inp.pfp_events[k].event) != PFMLIB_SUCCESS) {
                fprintf(stderr, "bench: unknown event %s\n", mix[i].events[k]);
                return 1;
            }
            p->inp.pfp_event_count++;
        }
        if (mix[i].setup) {
            mix[i].setup(&p->in);
            p->with_model = 1;
        }
        int ret = pfm_dispatch_events(&p->inp, p->with_model ? (void *)&p->in : NULL, &outp,
                                      p->with_model ? (void *)&out : NULL);
        if (ret != PFMLIB_SUCCESS) {
            fprintf(stderr, "bench: request %d fails: %s\n", i, pfm_strerror(ret));
            return 1;
        }
    }
    const long rounds = argc > 1 ? atol(argv[1]) : 200000; /* ROUNDS: for callgrind */
    double t0 = now();
    for (long r = 0; r < rounds; r++) {
        for (int i = 0; i < NREQ; i++) {
            prepared_t *p = &prep[i];
            pfm_force_pmu(p->pmu);
            memset(&out, 0, sizeof(out));
            pfm_dispatch_events(&p->inp, p->with_model ? (void *)&p->in : NULL, &outp,
                                p->with_model ? (void *)&out : NULL);
        }
    }
    double dt = now() - t0;
    printf("enc_ia64: %ld requests in %.3f s: %.0f requests/s (mix of %d kinds)\n", rounds * NREQ, dt,
           rounds * NREQ / dt, NREQ);
    return 0;
}
