/* `pmusim trace capture --cpu CPU [-o OUT] [--threads N] [uarch options] --
 * PROGRAM [ARGS...]`: runs an x86-64 Linux program under QEMU user-mode
 * emulation with the pmusim plugin, runs what it executes through the
 * microarchitecture model and writes the trace (docs/CAPTURE.md).
 *
 * The program's standard input, output and error are its own; pmusim exits
 * with the program's exit status (128 + N when a signal N ended it), or 1
 * for its own errors (2 for usage).  A program that crashes or is killed
 * leaves the trace of what it ran, ending with a marker that says so;
 * Ctrl-C leaves a complete trace or none (pmusim/outfile.h).  Processes
 * the program forks run untraced: a marker in the trace and a line on
 * stderr say where and which; with --trace-children each is traced into
 * OUT.PID instead, and what an execve starts into OUT.PID.N
 * (capture_kids.h). */
#include "capture_kids.h"
#include "cmds.h"
#include "pmusim/capture.h"
#include "pmusim/outfile.h"
#include "pmusim/trace.h"
#include "pmusim/uarch.h"
#include "wqueue.h"
#include "../../traces/capture/capstream.h"
#include "../../traces/capture/qemu_env.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CAPTURE_READ (1u << 20) /* bytes per read and per slot of the pump */
#define CAPTURE_SLOTS 8u        /* slots of the pump: how far QEMU may run ahead */
#define CAPTURE_FORK_LINES 10u  /* forks listed one per line on stderr; beyond, a count */

static const char *const capture_usage =
    "pmusim trace capture --cpu wsm|wsm_dp|knm [-o OUT] [--threads N] [--text] [--stats]\n"
    "                     [--clean-env] [--timing] [--qemu PATH] [--qemu-cpu MODEL]\n"
    "                     [--trace-children [--children-wait=SECONDS]]\n"
    "                     [--I1=SIZE,ASSOC,LINE] [--D1=...] [--L2=...|none] [--LL=...]\n"
    "                     [--numa=local|interleave] [--knm-memory=ddr|mcdram]\n"
    "                     -- PROGRAM [ARGS...]";

/* PROGRAM as execvp would find it. */
static char *capture_find_program(const char *prog)
{
    if (strchr(prog, '/'))
        return g_strdup(prog);
    return g_find_program_in_path(prog);
}

/* A script's "#!INTERP [ARG]" line as the kernel reads it: the first line,
 * within the first 256 bytes; INTERP up to the first blank, ARG the rest
 * with the blanks around it removed (one argument, spaces and all), none if
 * empty.  1 for a script, 0 for no "#!", -1 with `error` set. */
static int capture_script(const char *path, char **interp, char **arg, GError **error)
{
    char buf[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
    if (fd >= 0)
        close(fd);
    if (n < 2 || buf[0] != '#' || buf[1] != '!')
        return 0;
    char *nl = memchr(buf, '\n', (size_t)n);
    if (!nl && n == (ssize_t)sizeof buf) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: the script's #! line is longer than %zu bytes", path, sizeof buf - 1);
        return -1;
    }
    char *line = g_strndup(buf + 2, (size_t)((nl ? nl - buf : n) - 2));
    g_strstrip(line);
    size_t k = strcspn(line, " \t");
    if (k == 0 || memchr(line, '\0', k) != NULL) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: the script's #! line names no interpreter", path);
        g_free(line);
        return -1;
    }
    *interp = g_strndup(line, k);
    char *rest = g_strstrip(line + k);
    *arg = *rest ? g_strdup(rest) : NULL;
    g_free(line);
    return 1;
}

/* A clear error unless `path` is an x86-64 ELF executable. */
static gboolean capture_check_program(const char *path, GError **error)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ACCES, "%s: not an executable file", path);
        return FALSE;
    }
    Elf64_Ehdr eh;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, &eh, sizeof eh) : -1;
    if (fd >= 0)
        close(fd);
    if (n < (ssize_t)EI_NIDENT || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: neither an ELF executable nor a script that starts with #!", path);
        return FALSE;
    }
    if (n < (ssize_t)sizeof eh || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: not an x86-64 program (a %s ELF file, machine %u); pmusim captures "
                    "x86-64 Linux programs", path,
                    eh.e_ident[EI_CLASS] == ELFCLASS32   ? "32-bit"
                    : eh.e_ident[EI_CLASS] == ELFCLASS64 ? "64-bit"
                                                         : "damaged",
                    n >= (ssize_t)sizeof eh ? eh.e_machine : 0);
        return FALSE;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: an ELF file but not a program (type %u)", path, eh.e_type);
        return FALSE;
    }
    return TRUE;
}

/* QEMU's -cpu for the modelled CPU, so that CPUID shows the program the
 * family, model and features it would see there (docs/CAPTURE.md "The
 * CPU the program sees"): wsm is libpfm4's 06_25 and wsm_dp 06_2C
 * (reference/uarch.md, "Reference SKUs"), QEMU's Westmere is 06_2C; QEMU's KnightsMill is
 * 06_85, less the features QEMU 7.2's TCG cannot run (it would warn on the
 * program's stderr for each and leave them out anyway). */
static const char *capture_guest_cpu(pmusim_cpu_t cpu)
{
    switch (cpu) {
    case PMUSIM_CPU_WSM: return "Westmere,model=37";
    case PMUSIM_CPU_WSM_DP: return "Westmere";
    default:
        return "KnightsMill,-avx512f,-avx512pf,-avx512er,-avx512cd,-avx512-vpopcntdq,"
               "-avx512-4vnniw,-avx512-4fmaps,-rdseed,-x2apic,-tsc-deadline,-3dnowprefetch";
    }
}

/* The plugin: $PMUSIM_QEMU_PLUGIN, else the one that goes with this
 * pmusim: the build tree's when pmusim runs from its build directory, the
 * installed one otherwise (an installed pmusim never loads a plugin from a
 * build tree that may have moved on), each falling back to the other. */
/* Whether qemu -cpu help lists the model MODEL[,features] names: QEMU
 * itself would refuse it only after the plugin has started, with a message
 * a user has to dig out. */
static gboolean capture_qemu_has_cpu(const char *qemu, const char *model, GError **error)
{
    char *argv[] = {(char *)qemu, (char *)"-cpu", (char *)"help", NULL};
    char *no_env[] = {NULL}; /* QEMU's own, as for the capture (qemu_env.h) */
    char *out = NULL;
    int wst = 0;
    if (!g_spawn_sync(NULL, argv, no_env, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                      &wst, error))
        return FALSE;
    size_t n = strcspn(model, ",");
    gboolean found = FALSE;
    for (char *line = out; line && *line && !found;) {
        char *eol = strchr(line, '\n');
        if (eol)
            *eol = '\0';
        /* "x86 NAME  description" */
        if (g_str_has_prefix(line, "x86 ")) {
            const char *name = line + 4;
            found = strncmp(name, model, n) == 0 && (name[n] == ' ' || name[n] == '\0');
        }
        line = eol ? eol + 1 : NULL;
    }
    g_free(out);
    if (!found)
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "--qemu-cpu: %s has no CPU model '%.*s' (`%s -cpu help` lists them)", qemu,
                    (int)n, model, qemu);
    return found;
}

static char *capture_find_plugin(void)
{
    const char *env = g_getenv("PMUSIM_QEMU_PLUGIN");
    if (env && *env)
        return g_strdup(env);
    char *exe = g_file_read_link("/proc/self/exe", NULL);
    char *exe_dir = exe ? g_path_get_dirname(exe) : NULL;
    gboolean in_build = exe_dir && strcmp(exe_dir, PMUSIM_CLI_BUILD_DIR) == 0;
    g_free(exe);
    g_free(exe_dir);
    const char *candidates[] = {PMUSIM_PLUGIN_BUILD_PATH, PMUSIM_PLUGIN_INSTALL_PATH};
    if (!in_build) {
        candidates[0] = PMUSIM_PLUGIN_INSTALL_PATH;
        candidates[1] = PMUSIM_PLUGIN_BUILD_PATH;
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(candidates); i++)
        if (g_file_test(candidates[i], G_FILE_TEST_IS_REGULAR))
            return g_strdup(candidates[i]);
    return NULL;
}

/* --timing: where the time of the pipeline went (docs/PERFORMANCE.md,
 * "The capture pipeline"). */
typedef struct capture_timing {
    gint64 start_us, read_us;  /* monotonic: fork; time blocked in read() */
    uint64_t cpu0_ns, runq0_ns; /* this thread's CPU and run-queue wait at fork */
} capture_timing_t;

static uint64_t capture_thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds this thread waited on a run queue (schedstat), 0 if unknown. */
static uint64_t capture_thread_runq_ns(void)
{
    char *text = NULL;
    unsigned long long run = 0, wait = 0;
    if (g_file_get_contents("/proc/thread-self/schedstat", &text, NULL, NULL) &&
        sscanf(text, "%llu %llu", &run, &wait) != 2)
        wait = 0;
    g_free(text);
    return wait;
}

static double tv_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static void capture_timing_print(const capture_timing_t *tm, const struct rusage *child,
                                 const pmusim_capture_t *cap)
{
    double wall = (double)(g_get_monotonic_time() - tm->start_us) / 1e6;
    double main_cpu = (double)(capture_thread_cpu_ns() - tm->cpu0_ns) / 1e9;
    double main_runq = (double)(capture_thread_runq_ns() - tm->runq0_ns) / 1e9;
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    double others = tv_s(self.ru_utime) + tv_s(self.ru_stime) - main_cpu;
    uint64_t wns, bytes, rns;
    pmusim_capture_plugin_timing(cap, &wns, &bytes, &rns);
    fprintf(stderr,
            "pmusim: timing: wall %.2f s; QEMU + plugin CPU %.2f s, in pipe writes %.2f s, "
            "waiting for a CPU %.2f s, stream %.1f MB; stream reader + model thread CPU %.2f "
            "s, waiting for the stream %.2f s, waiting for a CPU %.2f s; writer thread (and "
            "start-up) CPU %.2f s\n",
            wall, tv_s(child->ru_utime) + tv_s(child->ru_stime), (double)wns / 1e9,
            (double)rns / 1e9, (double)bytes / 1e6, main_cpu, (double)tm->read_us / 1e6,
            main_runq, others > 0 ? others : 0.0);
}

/* The pump: a thread that only moves the stream from the pipe into up to
 * CAPTURE_SLOTS buffers of CAPTURE_READ bytes, which the main thread
 * parses and models in order.  QEMU can then run up to 8 MiB (about 4 M
 * instructions) ahead of the model instead of the pipe's 1 MiB, so that
 * when the machine is busy and QEMU is not given a processor for a while,
 * the model still has work (docs/PERFORMANCE.md, "The capture pipeline").
 * A slot is handed over when it is full, or as soon as the main thread
 * waits for one; the bytes and their order are the same as with direct
 * reads, so is the trace. */
typedef struct capture_slot {
    uint8_t *data;
    size_t len;
    int err;      /* errno of a failed read, else 0 */
    gboolean eof; /* the last slot: the pipe was closed (or the pump stopped) */
} capture_slot_t;

typedef struct capture_pump {
    int fd, wake[2];           /* the pipe; wake[1] written to stop the pump */
    GAsyncQueue *free, *full;  /* of capture_slot_t* */
    capture_slot_t slots[CAPTURE_SLOTS];
    capture_slot_t stop;       /* pushed on `free` to stop a pump that waits for a slot */
    GThread *thread;
} capture_pump_t;

/* The pump's buffers, queues, pipe and itself, once no thread uses them. */
static void capture_pump_release(capture_pump_t *pp)
{
    for (unsigned i = 0; i < CAPTURE_SLOTS; i++)
        g_free(pp->slots[i].data);
    g_async_queue_unref(pp->free);
    g_async_queue_unref(pp->full);
    close(pp->wake[0]);
    close(pp->wake[1]);
    g_free(pp);
}

static gpointer capture_pump_main(gpointer p)
{
    capture_pump_t *pp = p;
    for (;;) {
        capture_slot_t *s = g_async_queue_pop(pp->free);
        if (s == &pp->stop)
            return NULL;
        s->len = 0;
        s->err = 0;
        s->eof = FALSE;
        while (s->len < CAPTURE_READ) {
            /* something to give to a main thread that waits: now */
            if (s->len && g_async_queue_length(pp->full) < 0)
                break;
            struct pollfd pfd[2] = {{.fd = pp->fd, .events = POLLIN},
                                    {.fd = pp->wake[0], .events = POLLIN}};
            /* with bytes in hand, look again within a millisecond whether
             * the main thread has started to wait */
            int rc = poll(pfd, 2, s->len ? 1 : -1);
            if (rc < 0 && errno == EINTR)
                continue;
            if (rc < 0 || pfd[1].revents) {
                s->err = rc < 0 ? errno : 0;
                s->eof = TRUE;
                break;
            }
            if (rc == 0)
                continue;
            ssize_t n = read(pp->fd, s->data + s->len, CAPTURE_READ - s->len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                s->err = n < 0 ? errno : 0;
                s->eof = TRUE;
                break;
            }
            s->len += (size_t)n;
        }
        gboolean last = s->eof;
        g_async_queue_push(pp->full, s);
        if (last)
            return NULL;
    }
}

static capture_pump_t *capture_pump_new(int fd, GError **error)
{
    capture_pump_t *pp = g_new0(capture_pump_t, 1);
    pp->fd = fd;
    if (pipe2(pp->wake, O_CLOEXEC) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "pipe: %s",
                    g_strerror(errno));
        g_free(pp);
        return NULL;
    }
    pp->free = g_async_queue_new();
    pp->full = g_async_queue_new();
    for (unsigned i = 0; i < CAPTURE_SLOTS; i++) {
        pp->slots[i].data = g_malloc(CAPTURE_READ);
        g_async_queue_push(pp->free, &pp->slots[i]);
    }
    pp->thread = g_thread_try_new("pmusim-pump", capture_pump_main, pp, error);
    if (!pp->thread) {
        capture_pump_release(pp);
        return NULL;
    }
    return pp;
}

/* Stops the pump (if it still runs) and frees it. */
static void capture_pump_free(capture_pump_t *pp)
{
    if (!pp)
        return;
    ssize_t w;
    do
        w = write(pp->wake[1], "x", 1);
    while (w < 0 && errno == EINTR);
    g_async_queue_push(pp->free, &pp->stop);
    g_thread_join(pp->thread);
    capture_pump_release(pp);
}

typedef struct capture_sink {
    pmusim_wqueue_t *q; /* the writer's thread (sim/cli/wqueue.h) */
} capture_sink_t;

static gboolean capture_sink(const pmusim_rec_t *recs, size_t n, void *user, GError **error)
{
    capture_sink_t *s = user;
    return pmusim_wqueue_write(s->q, recs, n, error);
}

/* The model builds its batches in the writer queue's slots, as in `trace
 * annotate`: no copy of each batch. */
static pmusim_rec_t *capture_buffer(size_t n, void *user)
{
    capture_sink_t *s = user;
    return pmusim_wqueue_buffer(s->q, n);
}

/* Whether the trace would go to pmusim's standard output as a stream ("-",
 * or the same pipe or socket by another name, /dev/stdout): the program
 * inherits that standard output, and what it prints would be mixed into
 * the trace's bytes.  (A regular file is replaced by a new one at the end,
 * pmusim/outfile.h, and /dev/null or a terminal mixes nothing that counts.) */
static gboolean capture_out_is_stdout(const char *out)
{
    if (strcmp(out, "-") == 0)
        return TRUE;
    struct stat so, sf;
    return stat(out, &so) == 0 && fstat(STDOUT_FILENO, &sf) == 0 && so.st_dev == sf.st_dev &&
           so.st_ino == sf.st_ino && (S_ISFIFO(so.st_mode) || S_ISSOCK(so.st_mode));
}

/* --children-wait=SECONDS: the value (range-checked after parsing) and
 * whether it was given at all (it goes with --trace-children). */
static gdouble capture_children_wait = 10.0;
static gboolean capture_children_wait_set;

static gboolean capture_children_wait_cb(const char *name, const char *value, gpointer data,
                                         GError **error)
{
    (void)data;
    char *end;
    capture_children_wait = g_ascii_strtod(value, &end);
    if (end == value || *end) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s: expected a number of seconds, got '%s'", name, value);
        return FALSE;
    }
    capture_children_wait_set = TRUE;
    return TRUE;
}

static int capture_fail(GError *error)
{
    int st = pmusim_cli_fail(error);
    g_error_free(error);
    return st;
}

int pmusim_cmd_trace_capture(int argc, char **argv)
{
    /* everything after "--" is the program's */
    int prog_at = -1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            prog_at = i;
            break;
        }
    /* --help needs no program: the option parser prints the help and exits */
    gboolean help = FALSE;
    for (int i = 1; prog_at < 0 && i < argc; i++)
        help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ||
                !strcmp(argv[i], "-?") || g_str_has_prefix(argv[i], "--help-");
    if (help && prog_at < 0)
        prog_at = argc;
    else if (prog_at < 0 || prog_at + 1 >= argc)
        return pmusim_cli_usage("trace capture", "expected -- PROGRAM [ARGS...]\nusage: %s",
                                capture_usage);
    int opt_argc = prog_at;
    char **prog_argv = argv + prog_at + 1;

    GError *error = NULL;
    pmusim_uarch_options_t uo;
    pmusim_uarch_options_init(&uo);
    if (!pmusim_uarch_options_parse_argv(&uo, &opt_argc, argv, &error)) {
        int st = pmusim_cli_usage("trace capture", "%s", error->message);
        g_error_free(error);
        return st;
    }
    char *cpu_name = NULL, *out = NULL, *qemu_opt = NULL, *qemu_cpu = NULL;
    gint threads = 1;
    gboolean text = FALSE, stats = FALSE, clean_env = FALSE, timing = FALSE;
    gboolean trace_children = FALSE;
    capture_children_wait = 10.0;
    capture_children_wait_set = FALSE;
    GOptionEntry entries[] = {
        {"cpu", 0, 0, G_OPTION_ARG_STRING, &cpu_name, "CPU model: wsm, wsm_dp or knm", "CPU"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
         "the trace to write (default: PROGRAM's name + .pmt in the current directory)", "OUT"},
        {"threads", 0, 0, G_OPTION_ARG_INT, &threads,
         "hardware threads of the trace (default 1); guest thread k runs on thread k mod N",
         "N"},
        {"text", 0, 0, G_OPTION_ARG_NONE, &text, "write the text form", NULL},
        {"clean-env", 0, 0, G_OPTION_ARG_NONE, &clean_env,
         "run the program with only PATH=/usr/bin:/bin and LC_ALL=C in its environment, so "
         "that the same program gives the same trace on every machine", NULL},
        {"stats", 0, 0, G_OPTION_ARG_NONE, &stats,
         "print the model's totals on stderr (the figures cachegrind prints)", NULL},
        {"timing", 0, 0, G_OPTION_ARG_NONE, &timing,
         "print on stderr where the time went: wall time, CPU of QEMU, of the model's thread "
         "and of the writer's, time QEMU spent writing the stream and pmusim waiting for it",
         NULL},
        {"trace-children", 0, 0, G_OPTION_ARG_NONE, &trace_children,
         "trace every process the program forks (fork, vfork, system, popen, posix_spawn; "
         "their children too) into OUT.PID, PID the child's process id, as valgrind "
         "--trace-children=yes does; a program an execve starts in any of them goes on "
         "under QEMU, its trace in OUT.PID.N (N: the process's Nth execve)", NULL},
        {"children-wait", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)capture_children_wait_cb,
         "with --trace-children: how long the capture waits, after the program exited, for "
         "children still running (default 10); a child still running then is no longer "
         "traced, its trace ends with a MARKER that says so", "SECONDS"},
        {"qemu", 0, 0, G_OPTION_ARG_FILENAME, &qemu_opt,
         "the qemu-x86_64 to use (default: from PATH)", "PATH"},
        {"qemu-cpu", 0, 0, G_OPTION_ARG_STRING, &qemu_cpu,
         "the CPU QEMU shows the program (its -cpu: CPUID's family, model and features, which "
         "choose the C library's code paths; default: the modelled CPU, docs/CAPTURE.md; "
         "'max' = every feature QEMU can run)", "MODEL"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("-- PROGRAM [ARGS...]");
    g_option_context_set_summary(ctx, capture_usage);
    g_option_context_set_description(ctx,
        "Runs PROGRAM under QEMU user-mode emulation (Debian package qemu-user) with the\n"
        "pmusim plugin, models its caches, TLBs, branch prediction and timing, and\n"
        "writes the trace.  Cache options are spelled as cachegrind's.\n\n"
        "Examples:\n"
        "  pmusim trace capture --cpu wsm -o ls.pmt -- /bin/ls -l\n"
        "  pmusim trace capture --cpu knm --threads 2 -o t.pmt -- ./threads 2\n"
        "  pmusim trace capture --cpu wsm --D1=32768,8,64 --L2=none -- ./stream\n"
        "  pmusim trace capture --cpu wsm --trace-children -o w.pmt -- ./workers 4\n"
        "    (w.pmt, and w.pmt.PID for each process it forks)\n");
    g_option_context_add_main_entries(ctx, entries, NULL);
    char **opt_copy = g_new0(char *, opt_argc + 1);
    memcpy(opt_copy, argv, (size_t)opt_argc * sizeof *argv);
    char **opt_v = opt_copy;
    int status = 0;
    char *program = NULL, *plugin = NULL, *qemu = NULL, *plugin_arg = NULL;
    char *interp = NULL, *interp_arg = NULL; /* a #! script's */
    pmusim_uarch_t *u = NULL;
    pmusim_capture_t *cap = NULL;
    pmusim_trace_writer_t *w = NULL;
    pmusim_trace_header_t hdr = {0};
    int pipefd[2] = {-1, -1};
    int shm_fd = -1;
    pid_t child = -1;
    capture_sink_t sink = {0};
    capture_pump_t *pump = NULL;
    capture_kids_t *kids = NULL;
    qemu_env_plan_t env_plan = {0};

    if (!pmusim_cli_parse(ctx, "trace capture", &opt_argc, &opt_v, &error)) {
        status = pmusim_cli_usage("trace capture", "%s", error->message);
        g_clear_error(&error);
        goto out;
    }
    if (opt_argc != 2 || strcmp(opt_v[1], "capture") != 0) {
        status = pmusim_cli_usage("trace capture", "unexpected argument '%s' before --",
                                  opt_argc > 2 ? opt_v[2] : opt_v[opt_argc - 1]);
        goto out;
    }
    if (!cpu_name) {
        status = pmusim_cli_usage("trace capture", "--cpu is required: wsm, wsm_dp or knm (an "
                                  "x86-64 program runs on an x86 model)");
        goto out;
    }
    pmusim_cpu_t cpu = pmusim_cpu_from_name(cpu_name);
    if (cpu != PMUSIM_CPU_WSM && cpu != PMUSIM_CPU_WSM_DP && cpu != PMUSIM_CPU_KNM) {
        status = pmusim_cli_usage("trace capture",
                                  "--cpu must be wsm, wsm_dp or knm (an x86-64 program runs on "
                                  "an x86 model), not '%s'", cpu_name);
        goto out;
    }
    uint32_t maxt = pmusim_uarch_max_threads(cpu);
    if (threads < 1 || (uint32_t)threads > maxt) {
        status = pmusim_cli_usage("trace capture", "--threads must be 1..%u on %s", maxt,
                                  pmusim_cpu_name(cpu));
        goto out;
    }
    program = capture_find_program(prog_argv[0]);
    if (!program) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no such program in PATH",
                    prog_argv[0]);
        status = capture_fail(error);
        goto out;
    }
    /* a script runs under its interpreter, as execve runs it: QEMU is given
     * INTERP [ARG] SCRIPT ARGS */
    struct stat pst;
    if (stat(program, &pst) == 0 && S_ISREG(pst.st_mode) && access(program, X_OK) == 0) {
        int sc = capture_script(program, &interp, &interp_arg, &error);
        if (sc < 0 || (sc > 0 && !capture_check_program(interp, &error))) {
            if (sc > 0)
                g_prefix_error(&error, "%s: the script's interpreter: ", program);
            status = capture_fail(error);
            goto out;
        }
    }
    if (!interp && !capture_check_program(program, &error)) {
        status = capture_fail(error);
        goto out;
    }
    qemu = qemu_opt ? g_strdup(qemu_opt) : g_find_program_in_path("qemu-x86_64");
    if (!qemu || !g_file_test(qemu, G_FILE_TEST_IS_EXECUTABLE)) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "qemu-x86_64 not found: install the Debian package qemu-user "
                    "(apt-get install qemu-user), or name it with --qemu");
        status = capture_fail(error);
        goto out;
    }
    if (qemu_cpu && !capture_qemu_has_cpu(qemu, qemu_cpu, &error)) {
        status = pmusim_cli_usage("trace capture", "%s", error->message);
        g_clear_error(&error);
        goto out;
    }
    plugin = capture_find_plugin();
    if (!plugin) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "the pmusim QEMU plugin is not built: install the Debian package "
                    "libcapstone-dev and rebuild pmusim (or set PMUSIM_QEMU_PLUGIN)");
        status = capture_fail(error);
        goto out;
    }
    if (!out) {
        char *base = g_path_get_basename(program);
        out = g_strdup_printf("%s.pmt", base);
        g_free(base);
    }

    if (trace_children && (strcmp(out, "-") == 0 ||
                           !(capture_children_wait >= 0 && capture_children_wait <= 1e6))) {
        status = pmusim_cli_usage("trace capture", strcmp(out, "-") == 0
                                      ? "--trace-children writes OUT.PID: -o must name a file"
                                      : "--children-wait must be 0..1000000 seconds");
        goto out;
    }
    if (capture_children_wait_set && !trace_children) {
        status = pmusim_cli_usage("trace capture", "--children-wait goes with --trace-children");
        goto out;
    }
    if (capture_out_is_stdout(out)) {
        status = pmusim_cli_usage("trace capture",
                                  "-o %s: the program writes to the same standard output, and "
                                  "its output would end up inside the trace: -o must name a "
                                  "file (or a pipe other than standard output)", out);
        goto out;
    }
    const gboolean over_program = pmusim_outfile_same_file(out, program);
    if (over_program || (interp && pmusim_outfile_same_file(out, interp))) {
        status = pmusim_cli_usage("trace capture", "%s: refusing to write the trace over the "
                                  "program%s", out, over_program ? "" : "'s interpreter");
        goto out;
    }
    /* the model and the trace */
    pmusim_trace_header_init(&hdr, cpu, (uint32_t)threads);
    u = pmusim_uarch_new(cpu, (uint32_t)threads, &uo, capture_sink, &sink, &error);
    if (!u) {
        status = pmusim_cli_usage("trace capture", "%s", error->message);
        g_clear_error(&error);
        goto out;
    }
    char *cmdline = g_strjoinv(" ", prog_argv);
    const char *guest_cpu = qemu_cpu ? qemu_cpu : capture_guest_cpu(cpu);
    capture_header_fill(&hdr, u, cmdline, guest_cpu, 0, 0);
    g_free(cmdline);
    w = pmusim_trace_writer_open(out, text ? PMUSIM_TRACE_TEXT : PMUSIM_TRACE_BINARY, &hdr,
                                 &error);
    if (!w) {
        status = capture_fail(error);
        goto out;
    }
    /* the program sees pmusim's environment (or --clean-env's) as -E
     * options; QEMU runs with its own, nearly always empty: the user's
     * LD_PRELOAD, QEMU_STRACE ... are the program's, not QEMU's
     * (qemu_env.h).  The C library's start-up reads the environment: a
     * fixed one makes the instruction stream the same on every machine
     * (the order is the one the program saw before the -E options) */
    static char *const clean[] = {"LC_ALL=C", "PATH=/usr/bin:/bin", NULL};
    if (qemu_env_plan(clean_env ? clean : environ, &env_plan) != 0) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "out of memory");
        status = capture_fail(error);
        goto out;
    }
    if (env_plan.note) {
        /* what QEMU cannot carry: said at the trace's start and on stderr */
        char *why = g_strdup_printf("environment: the program's differs from pmusim's: %s",
                                    env_plan.note);
        pmusim_rec_t m = {.cycle = 0, .kind = PMUSIM_REC_MARKER, .plm = 3, .name = why};
        gboolean wrote = pmusim_trace_writer_write(w, &m, 1, &error);
        fprintf(stderr, "pmusim: %s\n", why);
        g_free(why);
        if (!wrote) {
            status = capture_fail(error);
            goto out;
        }
    }
    sink.q = pmusim_wqueue_new(w);
    pmusim_uarch_set_buffer(u, capture_buffer);
    cap = pmusim_capture_new(u, (uint32_t)threads, "capture stream");

    /* the program under QEMU */
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        g_set_error(&error, G_FILE_ERROR, g_file_error_from_errno(errno), "pipe: %s",
                    g_strerror(errno));
        status = capture_fail(error);
        goto out;
    }
#ifdef F_SETPIPE_SZ
    /* a pipe as large as a read (Linux allows 1 MiB unprivileged): the
     * plugin's 256 KiB chunks then mostly arrive whole and are parsed in
     * place, with fewer wake-ups of either side; a refusal only costs speed */
    (void)fcntl(pipefd[0], F_SETPIPE_SZ, (int)CAPTURE_READ);
#endif
    /* the plugin's execution buffers, shared: what QEMU appended but had
     * not sent when it died is still there (docs/CAPTURE.md, "Ended
     * early"); without it a capture still runs, and a death loses them */
    shm_fd = memfd_create("pmusim-capture", MFD_CLOEXEC);
    if (shm_fd >= 0 && ftruncate(shm_fd, (off_t)CAPSTREAM_SHM_SIZE) != 0) {
        close(shm_fd);
        shm_fd = -1;
    }
    plugin_arg = shm_fd >= 0 ? g_strdup_printf("%s,fd=%d,shm=%d", plugin, pipefd[1], shm_fd)
                             : g_strdup_printf("%s,fd=%d", plugin, pipefd[1]);
    if (trace_children) {
        /* the children's streams come through a socket (capture_kids.h) */
        char *cmd = g_strjoinv(" ", prog_argv);
        capture_kids_conf_t kc = {.cpu = cpu, .threads = (uint32_t)threads, .uo = uo,
                                  .text = text, .out = out, .program = cmd,
                                  .guest_cpu = guest_cpu};
        kids = capture_kids_new(&kc, &error);
        g_free(cmd);
        if (!kids) {
            status = capture_fail(error);
            goto out;
        }
        char *with = g_strdup_printf("%s,kids=%s", plugin_arg, capture_kids_socket(kids));
        g_free(plugin_arg);
        plugin_arg = with;
        pmusim_capture_set_children_out(cap, out);
    }
    GPtrArray *qargv = g_ptr_array_new();
    g_ptr_array_add(qargv, qemu);
    g_ptr_array_add(qargv, (char *)"-cpu");
    g_ptr_array_add(qargv, (char *)guest_cpu);
    g_ptr_array_add(qargv, (char *)"-plugin");
    g_ptr_array_add(qargv, plugin_arg);
    for (size_t i = 0; i < env_plan.nargs; i++)
        g_ptr_array_add(qargv, env_plan.args[i]);
    if (interp) {
        g_ptr_array_add(qargv, interp);
        if (interp_arg)
            g_ptr_array_add(qargv, interp_arg);
    }
    g_ptr_array_add(qargv, program);
    for (char **a = prog_argv + 1; *a; a++)
        g_ptr_array_add(qargv, *a);
    g_ptr_array_add(qargv, NULL);
    capture_timing_t tm = {.start_us = g_get_monotonic_time(),
                           .cpu0_ns = capture_thread_cpu_ns(),
                           .runq0_ns = timing ? capture_thread_runq_ns() : 0};
    child = fork();
    if (child == 0) {
        /* the write end crosses exec into QEMU (the plugin closes it for the
         * guest) */
        fcntl(pipefd[1], F_SETFD, 0);
        if (shm_fd >= 0)
            fcntl(shm_fd, F_SETFD, 0);
        /* a standard descriptor pmusim was started without is the
         * program's: closed, as it would be natively */
        for (int fd = 0; fd <= 2; fd++)
            if (pmusim_cli_closed_std_fds() & (1u << fd))
                close(fd);
        execve(qemu, (char **)qargv->pdata, env_plan.host);
        fprintf(stderr, "pmusim: %s: cannot run: %s\n", qemu, g_strerror(errno));
        _exit(127);
    }
    g_ptr_array_free(qargv, TRUE);
    close(pipefd[1]);
    pipefd[1] = -1;
    if (child < 0) {
        g_set_error(&error, G_FILE_ERROR, g_file_error_from_errno(errno), "fork: %s",
                    g_strerror(errno));
        status = capture_fail(error);
        goto out;
    }
    /* Ctrl-C reaches the program too; pmusim's own output is removed by the
     * outfile handler */
    gboolean ok = (pump = capture_pump_new(pipefd[0], &error)) != NULL;
    /* a stream refused before its HELLO is what the plugin sent while QEMU
     * stopped before the program ran: read it to its end, so that QEMU
     * ends as it would (not of SIGPIPE) and its exit status can be told */
    gboolean drain = FALSE;
    while (ok || drain) {
        gint64 r0 = g_get_monotonic_time();
        capture_slot_t *slot = g_async_queue_pop(pump->full);
        tm.read_us += g_get_monotonic_time() - r0;
        gboolean last = slot->eof;
        if (drain) {
            /* the rest of a refused stream: read, not fed */
        } else if (slot->len && !pmusim_capture_feed(cap, slot->data, slot->len, &error)) {
            ok = FALSE;
            drain = !pmusim_capture_binary(cap);
        } else if (slot->err) {
            g_set_error(&error, G_FILE_ERROR, g_file_error_from_errno(slot->err),
                        "reading the capture stream: %s", g_strerror(slot->err));
            ok = FALSE;
        }
        g_async_queue_push(pump->free, slot);
        if (last)
            break;
    }
    capture_pump_free(pump);
    pump = NULL;
    close(pipefd[0]);
    pipefd[0] = -1;
    int wst = 0;
    struct rusage child_usage = {0};
    while (wait4(child, &wst, 0, &child_usage) < 0 && errno == EINTR)
        ;
    const uint32_t program_pid = (uint32_t)child; /* (an execve keeps it) */
    child = -1;
    if (WIFEXITED(wst) && WEXITSTATUS(wst) != 0 && !pmusim_capture_binary(cap)) {
        /* QEMU stopped before the program ran a block (it refused an
         * option, the program or its loader, and said so above): what the
         * plugin sent on its way out is not worth a stream error */
        g_clear_error(&error);
        if (WEXITSTATUS(wst) == 127)
            g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                        "%s could not run %s under the plugin (see the message above)", qemu,
                        program);
        else
            g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                        "%s stopped with exit status %d before %s ran (its message, if any, "
                        "is above)", qemu, WEXITSTATUS(wst), program);
        ok = FALSE;
    }
    if (ok && !pmusim_capture_binary(cap) && WIFSIGNALED(wst)) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "%s was killed by signal %d (%s) before %s ran (a damaged program?)", qemu,
                    WTERMSIG(wst), g_strsignal(WTERMSIG(wst)), program);
        ok = FALSE;
    }
    if (ok && !pmusim_capture_binary(cap)) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "%s ran %s without the pmusim plugin's stream (QEMU refused the plugin "
                    "or the program; see the message above)", qemu, program);
        ok = FALSE;
    }
    /* QEMU died without the END chunk: the items it had not sent */
    if (ok && !pmusim_capture_saw_end(cap)) {
        void *m = shm_fd >= 0 ? mmap(NULL, CAPSTREAM_SHM_SIZE, PROT_READ, MAP_SHARED, shm_fd, 0)
                              : MAP_FAILED;
        ok = pmusim_capture_recover(cap, m != MAP_FAILED ? m : NULL,
                                    m != MAP_FAILED ? CAPSTREAM_SHM_SIZE : 0, NULL, &error);
        if (m != MAP_FAILED)
            munmap(m, CAPSTREAM_SHM_SIZE);
    }
    ok = ok && pmusim_capture_finish(cap, &error) && pmusim_uarch_finish(u, &error) &&
         pmusim_wqueue_sync(sink.q, &error);
    pmusim_wqueue_free(sink.q); /* the writer is this thread's again */
    sink.q = NULL;
    /* a program that did not exit normally: the trace says so at its end */
    if (ok && (!pmusim_capture_saw_end(cap) || WIFSIGNALED(wst))) {
        /* an execve ends the stream without END too (docs/CAPTURE.md, "A
         * program that forks") */
        gboolean traced = FALSE;
        char *ex = !pmusim_capture_saw_end(cap)
                       ? capture_execve_marker(cap, out, program_pid, &traced)
                       : NULL;
        gboolean execd = ex != NULL;
        char *why = execd ? ex
                    : WIFSIGNALED(wst)
                        ? g_strdup_printf("capture ended early: the program was killed by "
                                          "signal %d (%s)", WTERMSIG(wst), g_strsignal(WTERMSIG(wst)))
                        : g_strdup("capture ended early: the plugin did not see the program exit");
        pmusim_uarch_stats_t stt;
        pmusim_uarch_get_stats(u, &stt);
        pmusim_rec_t m = {.cycle = stt.cycles ? stt.cycles - 1 : 0, .kind = PMUSIM_REC_MARKER,
                          .plm = 3, .name = why};
        ok = pmusim_trace_writer_write(w, &m, 1, &error);
        fprintf(stderr, "pmusim: %s\n", why);
        if (!execd && WIFSIGNALED(wst) && WTERMSIG(wst) == SIGILL)
            fprintf(stderr, "pmusim: (QEMU showed the program a %s CPU: a program built for a "
                            "newer one, e.g. with -march=native, can run with --qemu-cpu max)\n",
                    guest_cpu);
        g_free(why);
    }
    guint skipped = 0;
    ok = ok && pmusim_capture_add_symbols(cap, w, &skipped, &error);
    /* forked processes run untraced (docs/CAPTURE.md, "A program that
     * forks"): one line each, or their number when there are many */
    const uint32_t *fork_pids = NULL;
    uint32_t nforks = ok ? pmusim_capture_forks(cap, &fork_pids) : 0;
    if (nforks <= CAPTURE_FORK_LINES) {
        for (uint32_t i = 0; i < nforks; i++)
            fprintf(stderr, "pmusim: fork: child %u not traced (a MARKER in the trace says "
                            "where)\n", fork_pids[i]);
    } else if (nforks) {
        fprintf(stderr, "pmusim: fork: %u children not traced (%u first, %u last; a MARKER "
                        "in the trace says where each was forked)\n",
                nforks, fork_pids[0], fork_pids[nforks - 1]);
    }
    if (ok)
        capture_print_reaped(NULL, cap);
    /* --trace-children: the children traced into files of their own */
    const uint32_t *kid_pids = NULL;
    uint32_t nkids = ok ? pmusim_capture_traced_forks(cap, &kid_pids) : 0;
    if (nkids <= CAPTURE_FORK_LINES) {
        for (uint32_t i = 0; i < nkids; i++)
            fprintf(stderr, "pmusim: fork: child %u traced in %s.%u\n", kid_pids[i], out,
                    kid_pids[i]);
    } else {
        fprintf(stderr, "pmusim: fork: %u children traced in %s.PID (%u first, %u last; a "
                        "MARKER in the trace says where each was forked)\n",
                nkids, out, kid_pids[0], kid_pids[nkids - 1]);
    }
    if (ok && pmusim_capture_guest_threads(cap) > (uint32_t)threads)
        fprintf(stderr, "pmusim: the program ran %u threads on %d hardware thread%s "
                        "(guest thread k on thread k mod %d; see --threads)\n",
                pmusim_capture_guest_threads(cap), threads, threads == 1 ? "" : "s", threads);
    if (!ok) {
        pmusim_trace_writer_abort(w); /* the output is not created */
        w = NULL;
        status = capture_fail(error);
        goto out;
    }
    pmusim_trace_writer_t *wc = w;
    w = NULL;
    if (!pmusim_trace_writer_close(wc, &error)) {
        status = capture_fail(error);
        goto out;
    }
    if (stats) {
        pmusim_uarch_stats_t st;
        pmusim_uarch_get_stats(u, &st);
        fprintf(stderr,
                "pmusim: instructions %" G_GUINT64_FORMAT ", I1 misses %" G_GUINT64_FORMAT
                ", D1 accesses %" G_GUINT64_FORMAT ", D1 misses %" G_GUINT64_FORMAT
                ", L2 misses %" G_GUINT64_FORMAT ", LL accesses %" G_GUINT64_FORMAT
                ", LL misses %" G_GUINT64_FORMAT ", conditional branches %" G_GUINT64_FORMAT
                ", mispredicted %" G_GUINT64_FORMAT ", cycles %" G_GUINT64_FORMAT "\n",
                (guint64)st.insns, (guint64)st.i1_miss, (guint64)st.d1_access,
                (guint64)st.d1_miss, (guint64)st.l2_miss, (guint64)st.ll_access,
                (guint64)st.ll_miss, (guint64)st.cond_branches, (guint64)st.mispredicts,
                (guint64)st.cycles);
        if (pmusim_capture_rep_iterations(cap))
            fprintf(stderr,
                    "pmusim: REP string instructions were re-entered %" G_GUINT64_FORMAT
                    " times, once per iteration (cachegrind and lackey count each as an "
                    "instruction; the hardware and pmusim do not)\n",
                    (guint64)pmusim_capture_rep_iterations(cap));
        if (st.split_parts)
            fprintf(stderr,
                    "pmusim: %" G_GUINT64_FORMAT " parts of long instructions (REP strings) ran "
                    "as instructions of their own: another thread's records filled a queue "
                    "while they waited (docs/UARCH.md, section 1)\n",
                    (guint64)st.split_parts);
        if (st.moved_up)
            fprintf(stderr,
                    "pmusim: %" G_GUINT64_FORMAT " instructions of a thread that fell behind "
                    "were moved up by %" G_GUINT64_FORMAT " cycles in all (docs/UARCH.md, "
                    "section 2)\n",
                    (guint64)st.moved_up, (guint64)st.moved_up_cycles);
    }
    if (timing)
        capture_timing_print(&tm, &child_usage, cap);
    if (skipped)
        fprintf(stderr, "pmusim: symbols of %u mapped file%s could not be read\n", skipped,
                skipped == 1 ? "" : "s");
    /* the children still running: traced until they end, for a while */
    if (kids)
        capture_kids_finish(kids, capture_children_wait);
    status = WIFEXITED(wst) ? WEXITSTATUS(wst) : WIFSIGNALED(wst) ? 128 + WTERMSIG(wst) : 1;
out:
    qemu_env_plan_free(&env_plan);
    capture_kids_free(kids);
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    pmusim_wqueue_free(sink.q);
    if (pipefd[0] >= 0)
        close(pipefd[0]);
    if (pipefd[1] >= 0)
        close(pipefd[1]);
    if (shm_fd >= 0)
        close(shm_fd);
    if (w)
        pmusim_trace_writer_abort(w);
    capture_pump_free(pump);
    pmusim_capture_free(cap);
    pmusim_uarch_free(u);
    if (hdr.meta_keys)
        pmusim_trace_header_clear(&hdr);
    g_free(plugin_arg);
    g_free(plugin);
    g_free(qemu);
    g_free(program);
    g_free(interp);
    g_free(interp_arg);
    g_free(cpu_name);
    g_free(out);
    g_free(qemu_opt);
    g_free(qemu_cpu);
    g_free(opt_copy);
    g_option_context_free(ctx);
    return status;
}
