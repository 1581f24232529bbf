/* pmusim's QEMU TCG plugin: records what a user-mode x86-64 program executes
 * and sends it to `pmusim trace capture` as a capture stream (capstream.h,
 * docs/CAPTURE.md).
 *
 * Work is split as QEMU's own plugins advise: everything static about an
 * instruction (length, branch kind, direct target, FP/SIMD class, a uop
 * estimate) is decoded once, with Capstone, when QEMU translates its block,
 * and sent once as a TB chunk; at execution the plugin only appends small
 * items to a per-vCPU buffer: 2 bytes per executed block, and per memory
 * access 2 bytes plus the address as a delta from the previous one (2-4
 * bytes for most accesses).  Buffers go to the pipe in chunks; a full pipe
 * stalls the guest, so memory stays flat however long the program runs.
 * The buffers live in a memory region shared with pmusim (capstream.h), so
 * that a program that dies of a signal, or a QEMU that is killed, leaves
 * pmusim the items not yet sent.
 *
 * A guest that forks: QEMU user mode runs the guest's fork (and vfork, and
 * clone without CLONE_VM, which posix_spawn, system and popen use) as a
 * host fork(), so the child process starts with the plugin's state, the
 * pipe and the shared buffers.  A pthread_atfork() child handler detaches
 * it (closes its copy of the pipe, unmaps the shared buffers, and its
 * callbacks append to private buffers that are never sent); the parent
 * sends a FORK chunk with the child's pid where its thread forked
 * (docs/CAPTURE.md, "A program that forks").
 *
 * With kids=PATH (`trace capture --trace-children`) a child is traced
 * instead: the prepare handler connects a socket to pmusim's PATH before
 * the fork, the child inherits it and makes it its own stream (a preamble
 * with its pid and a shared-buffer file of its own, then HELLO, every block
 * translated so far again, MAPS), the parent closes its copy and says in
 * its FORK chunk that the child is traced.
 *
 * With kids=PATH an execve goes on under QEMU too: the plugin reads the
 * guest's path, argv and envp from guest memory, resolves the program as
 * the kernel would (#! scripts included), ends its stream with an EXECVE
 * chunk that names the image to come, and replaces QEMU by QEMU running
 * the new program with the envp as its environment (-E options: the host
 * QEMU's own stays empty, qemu_env.h) and this plugin (exec=N), whose
 * stream is a connection of its own to PATH (exec_traced();
 * docs/CAPTURE.md, "An execve under --trace-children").
 *
 * Arguments: fd=N (the pipe's write end, inherited from pmusim), shm=N
 * (optional: a file of CAPSTREAM_SHM_SIZE bytes for the buffers, also
 * inherited; without it they are private memory), kids=PATH (optional:
 * pmusim's Unix socket for the children's streams), exec=N and top=1
 * (an exec'd image, given by the plugin itself: image N of its process,
 * which is the captured program when top=1; no fd=).  */
#include "capstream.h"
#include "qemu_env.h"
#include "qemu_plugin_abi.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Branch and FP kinds as pmusim_uarch_br_t / pmusim_uarch_fp_t
 * (include/pmusim/uarch.h); the plugin does not link pmusim. */
enum { BR_NONE, BR_COND, BR_JUMP, BR_CALL, BR_RET, BR_IND_JUMP, BR_IND_CALL };
enum { FP_NONE, FP_SCALAR, FP_SIMD };
/* FP/SIMD classes as pmusim_fp_class_t */
enum { FPC_NONE, FPC_X87, FPC_MMX, FPC_SS, FPC_SD, FPC_PS, FPC_PD, FPC_VI };
/* operation kinds as pmusim_op_kind_t */
enum { OPK_NONE, OPK_PACK, OPK_UNPACK, OPK_PACKED_ARITH, OPK_PACKED_LOGICAL, OPK_PACKED_MPY,
       OPK_PACKED_SHIFT, OPK_SHUFFLE_MOVE, OPK_MUL, OPK_DIV, OPK_FUSED };

#define MAX_VCPUS CAPSTREAM_SHM_VCPUS
#define VBUF_SIZE CAPSTREAM_VBUF_SIZE

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the plugin writes the stream's little-endian words with memcpy");

__attribute__((visibility("default"))) int qemu_plugin_version = PMUSIM_QEMU_PLUGIN_API;

/* One guest thread's EXEC items (capstream.h).  `prev_addr` is the delta
 * base of the chunk being filled (0 at its start), `cur_idx` the
 * instruction of the last access in the current block, `cur_tb` that
 * block; `len` and `pending` tell pmusim after a death what was sent. */
typedef capstream_vbuf_t vbuf_t;

static int out_fd = -1;
static int out_failed;               /* the pipe broke: stop writing */
static int closed;                   /* END was written */
static int detached;                 /* a forked child: sends nothing */
static int out_is_socket;            /* a traced child's stream: send() without SIGPIPE */
static __thread int fork_returned;   /* this thread's fork() just returned in the parent */
static __thread int fork_traced;     /* ... and the child has a stream of its own */
static char *kids_path;              /* kids=PATH: pmusim's socket for children, or NULL */
static int kid_fd = -1;              /* connected by fork_prepare, for the child to come */
static int hello_sent;
/* kids=PATH: every TB chunk's payload, by block id, so that a child can
 * send the blocks it inherits at the start of its own stream */
static uint8_t **tb_table;
static uint32_t tb_table_len, tb_table_cap;
static __thread int in_execve;       /* this thread is in an execve (or execveat) */
static __thread int wait_call;       /* kids=PATH: this thread is in wait4 (61) or waitid (247) */
static __thread uint64_t wait_status; /* ... whose status (or siginfo) goes there */
static uint64_t seq;                 /* chunk number (the header holds its low 32 bits) */
static uint64_t write_ns, write_bytes; /* --timing: time in writev, bytes sent */
static uint32_t next_tb;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static vbuf_t *vbufs[MAX_VCPUS];
static vbuf_t *shm;                  /* the shared buffers, or NULL */
static csh cs;
static int cs_ok;
/* kids=PATH: an execve runs the new image under QEMU and this plugin too */
static uint32_t exec_n;              /* this image's number in its process (exec=N): 0 its first */
static int exec_top;                 /* the process is the captured program (top=1) */
static char *plugin_self;            /* this plugin's absolute path */
static char *qemu_cpu_arg;           /* QEMU's -cpu, or NULL */
static char *qemu_argv0;             /* QEMU's argv[0] */
static int64_t guest_base;           /* host address - guest address (user mode) */
static int guest_base_state;         /* 0 not seen yet, 1 known, 2 not the same for every insn */

/* Writes one chunk; the caller holds out_lock. */
static void chunk_write_locked(uint16_t kind, uint16_t vcpu, const void *payload, uint32_t size)
{
    if (out_failed || out_fd < 0)
        return;
    uint32_t hdr[4];
    hdr[0] = CAPSTREAM_MAGIC;
    hdr[1] = (uint32_t)kind | (uint32_t)vcpu << 16;
    hdr[2] = size;
    hdr[3] = (uint32_t)seq++;
    struct iovec iov[2] = {{hdr, sizeof hdr}, {(void *)payload, size}};
    int n = size ? 2 : 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    write_bytes += sizeof hdr + size;
    while (n) {
        /* a child's socket: a pmusim that stopped reading it (a child
         * still running long after the program exited) must not kill the
         * guest with SIGPIPE */
        ssize_t w = out_is_socket ? sendmsg(out_fd, &(struct msghdr){.msg_iov = iov,
                                                                     .msg_iovlen = (size_t)n},
                                            MSG_NOSIGNAL)
                                  : writev(out_fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            out_failed = 1; /* pmusim went away: the guest runs on untraced */
            break;
        }
        size_t done = (size_t)w;
        while (n && done >= iov[0].iov_len) {
            done -= iov[0].iov_len;
            iov[0] = iov[1];
            n--;
        }
        if (n) {
            iov[0].iov_base = (char *)iov[0].iov_base + done;
            iov[0].iov_len -= done;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    write_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec -
                (uint64_t)t0.tv_nsec;
}

/* Nanoseconds this thread waited on a run queue (the second field of
 * /proc/thread-self/schedstat), 0 when unknown. */
static uint64_t runq_wait_ns(void)
{
    unsigned long long run = 0, wait = 0;
    FILE *fp = fopen("/proc/thread-self/schedstat", "r");
    if (!fp)
        return 0;
    if (fscanf(fp, "%llu %llu", &run, &wait) != 2)
        wait = 0;
    fclose(fp);
    return wait;
}

/* Sends vCPU `vcpu`'s items.  The order of the stores to the shared
 * header is what pmusim reads after a death (capstream.h): `pending` names
 * the chunk before any of it is written, `len` is cleared only once it is
 * written whole, `pending` last. */
static void vbuf_flush(unsigned vcpu)
{
    if (vcpu >= MAX_VCPUS)
        return;
    vbuf_t *b = vbufs[vcpu];
    if (!b || !b->len)
        return;
    pthread_mutex_lock(&out_lock);
    if (!closed && !out_failed && out_fd >= 0) {
        __atomic_store_n(&b->pending, seq + 1, __ATOMIC_RELEASE);
        chunk_write_locked(CAPSTREAM_EXEC, (uint16_t)vcpu, b->data, (uint32_t)b->len);
    }
    pthread_mutex_unlock(&out_lock);
    __atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
    b->prev_addr = 0; /* every chunk starts its own address deltas */
    __atomic_store_n(&b->pending, 0, __ATOMIC_RELEASE);
}

static inline vbuf_t *vbuf_get(unsigned vcpu, size_t need)
{
    if (vcpu >= MAX_VCPUS)
        return NULL;
    vbuf_t *b = vbufs[vcpu];
    if (!b) {
        b = shm ? &shm[vcpu] : calloc(1, sizeof *b);
        vbufs[vcpu] = b;
        if (!b)
            return NULL;
    }
    if (b->len + need > VBUF_SIZE)
        vbuf_flush(vcpu);
    return b;
}

/* ---- execution: the hot path ---- */

static inline void put_block(vbuf_t *b, uint32_t tb_id)
{
    const uint64_t len = b->len;
    if (tb_id < CAPSTREAM_SHORT_TB_IDS) {
        uint16_t h = (uint16_t)(tb_id << 2);
        memcpy(b->data + len, &h, 2);
        /* the bytes before the length that covers them (a QEMU killed
         * between the two leaves pmusim complete items only); a compiler
         * barrier, no instruction */
        __atomic_signal_fence(__ATOMIC_RELEASE);
        b->len = len + 2;
    } else {
        uint32_t w = tb_id << 2 | 2u;
        memcpy(b->data + len, &w, 4);
        __atomic_signal_fence(__ATOMIC_RELEASE);
        b->len = len + 4;
    }
    b->cur_idx = 0;
    b->cur_tb = tb_id;
}

static void on_tb_exec(unsigned int vcpu, void *ud)
{
    vbuf_t *b = vbuf_get(vcpu, 4);
    if (b)
        put_block(b, (uint32_t)(uintptr_t)ud);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    vbuf_t *b = vbuf_get(vcpu, 4 + CAPSTREAM_MAX_ACCESS_ITEM);
    if (!b)
        return;
    uint32_t i = (uint32_t)(uintptr_t)ud;
    if (i < b->cur_idx)
        put_block(b, b->cur_tb); /* QEMU went back in the block: it starts again */
    /* the address as a zigzag delta from the previous one, in as few bytes
     * as hold it (7 significant bytes take 8) */
    uint64_t d = vaddr - b->prev_addr;
    uint64_t z = d << 1 ^ (uint64_t)-(int64_t)(d >> 63);
    unsigned nbytes = (unsigned)(71 - __builtin_clzll(z | 1)) / 8; /* 1..8 */
    nbytes &= (unsigned)-(z != 0);                                   /* 0 for 0 */
    unsigned code = nbytes - (nbytes == 8);
    nbytes += nbytes == 7;
    uint16_t h = (uint16_t)(1u | (qemu_plugin_mem_is_store(info) ? 2u : 0u) |
                            (qemu_plugin_mem_size_shift(info) & 3u) << 2 | code << 4 |
                            (i - b->cur_idx) << 7);
    const uint64_t len = b->len;
    memcpy(b->data + len, &h, 2);
    memcpy(b->data + len + 2, &z, 8); /* little-endian host: the low bytes first */
    __atomic_signal_fence(__ATOMIC_RELEASE); /* as in put_block */
    b->len = len + 2 + nbytes;
    b->prev_addr = vaddr;
    b->cur_idx = i;
}

/* ---- the file mappings (symbols) ---- */

/* The mappings of the process as last read: a block translated outside
 * all of them lies in a mapping made since (a library loaded), and MAPS is
 * sent again. */
typedef struct map_range {
    uint64_t start, end;
} map_range_t;
static map_range_t *known_maps;
static size_t n_known_maps, known_maps_cap, known_maps_hit;

static int maps_known(uint64_t vaddr)
{
    if (known_maps_hit < n_known_maps && vaddr >= known_maps[known_maps_hit].start &&
        vaddr < known_maps[known_maps_hit].end)
        return 1;
    for (size_t i = 0; i < n_known_maps; i++)
        if (vaddr >= known_maps[i].start && vaddr < known_maps[i].end) {
            known_maps_hit = i;
            return 1;
        }
    return 0;
}

/* Sends the file mappings of the process (host view: user-mode QEMU maps a
 * guest file mapping as a host mapping of the same file, at the guest
 * address when QEMU's guest base is 0, as it is for an x86-64 guest on an
 * x86-64 host) and notes every mapping as known; the caller holds out_lock. */
static void send_maps_locked(void)
{
    FILE *fp = fopen("/proc/self/maps", "r");
    if (!fp)
        return;
    char line[4608];
    size_t cap = 1u << 16, len = 0;
    char *out = malloc(cap);
    n_known_maps = 0;
    while (out && fgets(line, sizeof line, fp)) {
        unsigned long long start, end, off;
        char perms[8], path[4096];
        int nf = sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perms, &off, path);
        if (nf >= 2) {
            if (n_known_maps == known_maps_cap) {
                size_t ncap = known_maps_cap ? known_maps_cap * 2 : 64;
                map_range_t *bigger = realloc(known_maps, ncap * sizeof *bigger);
                if (bigger) {
                    known_maps = bigger;
                    known_maps_cap = ncap;
                }
            }
            if (n_known_maps < known_maps_cap)
                known_maps[n_known_maps++] = (map_range_t){start, end};
        }
        if (nf != 5 || path[0] != '/')
            continue; /* QEMU maps guest code without host execute permission:
                       * the reader keeps the mappings that hold executed blocks */
        char rec[4200];
        int n = snprintf(rec, sizeof rec, "%llx %llx %llx %s\n", start, end, off, path);
        if (n <= 0 || (size_t)n >= sizeof rec)
            continue;
        if (len + (size_t)n > CAPSTREAM_MAX_CHUNK)
            break;
        if (len + (size_t)n > cap) {
            char *bigger = realloc(out, cap * 2);
            if (!bigger)
                break;
            out = bigger;
            cap *= 2;
        }
        memcpy(out + len, rec, (size_t)n);
        len += (size_t)n;
    }
    fclose(fp);
    if (out && !closed)
        chunk_write_locked(CAPSTREAM_MAPS, 0, out, (uint32_t)len);
    free(out);
}

/* ---- translation: decode once ---- */

static int has_group(const cs_insn *ci, uint8_t g)
{
    for (uint8_t i = 0; i < ci->detail->groups_count; i++)
        if (ci->detail->groups[i] == g)
            return 1;
    return 0;
}

static int is_string_op(unsigned id)
{
    switch (id) {
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
    case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
    case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
    case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
        return 1;
    default:
        return 0;
    }
}

static int is_gather(unsigned id)
{
    switch (id) {
    case X86_INS_VGATHERDPD: case X86_INS_VGATHERDPS: case X86_INS_VGATHERQPD:
    case X86_INS_VGATHERQPS: case X86_INS_VPGATHERDD: case X86_INS_VPGATHERDQ:
    case X86_INS_VPGATHERQD: case X86_INS_VPGATHERQQ:
        return 1;
    default:
        return 0;
    }
}

/* The class of a two-letter element suffix: ss sd ps pd, else FPC_NONE. */
static uint8_t fp_suffix_class(const char *p)
{
    if (p[0] != 's' && p[0] != 'p')
        return FPC_NONE;
    if (p[1] == 's')
        return p[0] == 's' ? FPC_SS : FPC_PS;
    if (p[1] == 'd')
        return p[0] == 's' ? FPC_SD : FPC_PD;
    return FPC_NONE;
}

/* The FP/SIMD class of an instruction (docs/CAPTURE.md, "Decoding": the
 * rule and its limits).  `simd`: in one of the SSE/AVX groups. */
static uint8_t fp_class(const cs_insn *ci, int simd)
{
    const cs_x86 *x = &ci->detail->x86;
    /* x87: Capstone 4 leaves some (fstp st(i)) out of its FPU group, so the
     * escape opcodes D8-DF count too (Intel SDM Vol. 2, Appendix A.5) */
    if (has_group(ci, X86_GRP_FPU) || (x->opcode[0] >= 0xd8 && x->opcode[0] <= 0xdf))
        return FPC_X87;
    if (has_group(ci, X86_GRP_MMX))
        return FPC_MMX;
    for (uint8_t i = 0; i < x->op_count; i++)
        if (x->operands[i].type == X86_OP_REG && x->operands[i].reg >= X86_REG_MM0 &&
            x->operands[i].reg <= X86_REG_MM7)
            return FPC_MMX; /* an SSE instruction on MMX registers (pshufw, cvtpi2ps) */
    if (!simd)
        return FPC_NONE;
    const char *m = ci->mnemonic;
    if (m[0] == 'k')
        return FPC_NONE; /* AVX-512 mask-register operations */
    if (m[0] == 'v')
        m++; /* the VEX/EVEX form of an SSE mnemonic */
    static const char *const not_data[] = { "prefetch", "clflush", "ldmxcsr", "stmxcsr",
                                            "zeroupper", "zeroall", "lfence", "sfence",
                                            "mfence", "movnti", "crc32", "popcnt" };
    for (size_t i = 0; i < sizeof not_data / sizeof not_data[0]; i++)
        if (strncmp(m, not_data[i], strlen(not_data[i])) == 0)
            return FPC_NONE;
    if (strcmp(m, "movddup") == 0)
        return FPC_PD;
    if (strcmp(m, "movshdup") == 0 || strcmp(m, "movsldup") == 0)
        return FPC_PS;
    size_t n = strlen(m);
    if (strncmp(m, "broadcasts", 10) == 0 && n == 11) /* one element to all: packed */
        return m[10] == 's' ? FPC_PS : FPC_PD;
    const char *two = strncmp(m, "cvt", 3) == 0 ? strchr(m + 3, '2') : NULL;
    if (two && two - m >= 5) {
        /* a conversion: the class of its source, else of its result
         * (cvtss2sd single, cvtsi2sd double, cvtdq2ps packed single) */
        uint8_t c = fp_suffix_class(two - 2);
        if (c == FPC_NONE && strlen(two + 1) >= 2)
            c = fp_suffix_class(two + 1);
        if (c != FPC_NONE)
            return c;
    }
    uint8_t c = n > 2 ? fp_suffix_class(m + n - 2) : FPC_NONE;
    return c != FPC_NONE ? c : FPC_VI;
}

/* The operation-kind rules (docs/CAPTURE.md, "Decoding"): a mnemonic,
 * without the "v" of its VEX/EVEX form, that starts with `stem` has `kind`,
 * where its conditions hold: OPK_INT, of FP/SIMD class mmx or vi (a
 * packed-integer instruction; the stems are of integer instructions, the
 * condition leaves out what shares a stem, movddup); OPK_REG, no memory
 * operand (a load or store moves no data in a SIMD unit).  The first rule
 * whose stem matches decides; no match, or its conditions failing, is
 * OPK_NONE.  One table, searched once per Capstone instruction id
 * (opk_rule_of). */
enum { OPK_INT = 1, OPK_REG = 2 };
static const struct opk_rule {
    const char *stem;
    uint8_t kind, cond;
} opk_rules[] = {
    { "pack", OPK_PACK, OPK_INT },          /* packsswb packssdw packuswb packusdw */
    { "punpck", OPK_UNPACK, OPK_INT },      /* punpckl/h bw wd dq qdq */
    { "pmul", OPK_PACKED_MPY, OPK_INT },    /* pmullw pmulhw pmulhuw pmuludq pmulld pmuldq pmulhrsw */
    { "pmadd", OPK_PACKED_MPY, OPK_INT },   /* pmaddwd pmaddubsw */
    { "psll", OPK_PACKED_SHIFT, OPK_INT },  /* psllw ... pslldq, psllv* */
    { "psrl", OPK_PACKED_SHIFT, OPK_INT },
    { "psra", OPK_PACKED_SHIFT, OPK_INT },
    { "pand", OPK_PACKED_LOGICAL, OPK_INT }, /* pand pandn (pandd ... of AVX-512) */
    { "por", OPK_PACKED_LOGICAL, OPK_INT },
    { "pxor", OPK_PACKED_LOGICAL, OPK_INT },
    { "ptest", OPK_PACKED_LOGICAL, OPK_INT },
    { "padd", OPK_PACKED_ARITH, OPK_INT },  /* padd b w d q, saturating forms */
    { "psub", OPK_PACKED_ARITH, OPK_INT },
    { "pcmp", OPK_PACKED_ARITH, OPK_INT },  /* pcmpeq* pcmpgt*, and pcmp[ei]str[im] */
    { "pavg", OPK_PACKED_ARITH, OPK_INT },
    { "pmin", OPK_PACKED_ARITH, OPK_INT },
    { "pmax", OPK_PACKED_ARITH, OPK_INT },
    { "pabs", OPK_PACKED_ARITH, OPK_INT },
    { "psign", OPK_PACKED_ARITH, OPK_INT },
    { "phadd", OPK_PACKED_ARITH, OPK_INT },
    { "phsub", OPK_PACKED_ARITH, OPK_INT },
    { "phmin", OPK_PACKED_ARITH, OPK_INT }, /* phminposuw */
    { "psad", OPK_PACKED_ARITH, OPK_INT },  /* psadbw */
    { "mpsad", OPK_PACKED_ARITH, OPK_INT }, /* mpsadbw: sums of differences, not a multiply */
    { "pshuf", OPK_SHUFFLE_MOVE, OPK_INT }, /* pshufb pshufd pshufhw pshuflw pshufw */
    { "palignr", OPK_SHUFFLE_MOVE, OPK_INT },
    { "pblend", OPK_SHUFFLE_MOVE, OPK_INT },
    { "pextr", OPK_SHUFFLE_MOVE, OPK_INT },
    { "pinsr", OPK_SHUFFLE_MOVE, OPK_INT },
    { "pmov", OPK_SHUFFLE_MOVE, OPK_INT },  /* pmovsx* pmovzx* pmovmskb */
    { "pbroadcast", OPK_SHUFFLE_MOVE, OPK_INT },
    { "perm", OPK_SHUFFLE_MOVE, OPK_INT },  /* vpermd vpermq ... (AVX2) */
    { "movd", OPK_SHUFFLE_MOVE, OPK_INT | OPK_REG }, /* movd movdqa movdqu movdq2q */
    { "movq", OPK_SHUFFLE_MOVE, OPK_INT | OPK_REG }, /* movq movq2dq */
    { "imul", OPK_MUL, 0 },
    { "mul", OPK_MUL, 0 },                  /* mul mulx mulss mulsd mulps mulpd */
    { "fmul", OPK_MUL, 0 },                 /* fmul fmulp */
    { "fimul", OPK_MUL, 0 },
    { "idiv", OPK_DIV, 0 },
    { "div", OPK_DIV, 0 },                  /* div divss divsd divps divpd */
    { "fdiv", OPK_DIV, 0 },                 /* fdiv fdivp fdivr fdivrp */
    { "fidiv", OPK_DIV, 0 },                /* fidiv fidivr */
    { "sqrt", OPK_DIV, 0 },                 /* sqrtss sqrtsd sqrtps sqrtpd: the divider */
    { "fsqrt", OPK_DIV, 0 },
};
#define OPK_NRULES (sizeof opk_rules / sizeof opk_rules[0])
_Static_assert(OPK_NRULES < 255, "a rule index and the no-rule mark fit a byte");
/* the rule of each Capstone instruction id: 0 not yet searched, 1 +
 * OPK_NRULES none, else 1 + its index; written under out_lock (decode()
 * runs in on_tb_trans with it held) */
static uint8_t opk_rule_by_id[X86_INS_ENDING];

static const struct opk_rule *opk_rule_of(const cs_insn *ci, int simd)
{
    if (ci->id >= X86_INS_ENDING)
        return NULL;
    uint8_t *slot = &opk_rule_by_id[ci->id];
    if (*slot == 0) {
        const char *m = ci->mnemonic;
        if (simd && m[0] == 'v')
            m++; /* the VEX/EVEX form of an SSE mnemonic */
        *slot = 1 + OPK_NRULES;
        for (size_t i = 0; i < OPK_NRULES; i++)
            if (strncmp(m, opk_rules[i].stem, strlen(opk_rules[i].stem)) == 0) {
                *slot = (uint8_t)(1 + i);
                break;
            }
    }
    return *slot <= OPK_NRULES ? &opk_rules[*slot - 1] : NULL;
}

/* The operation kind of an instruction of FP/SIMD class `fpclass` with
 * `mem_ops` memory operands (docs/CAPTURE.md, "Decoding"). */
static uint8_t op_kind(const cs_insn *ci, int simd, uint8_t fpclass, int mem_ops)
{
    const struct opk_rule *rule = opk_rule_of(ci, simd);
    if (!rule)
        return OPK_NONE;
    if ((rule->cond & OPK_INT) && fpclass != FPC_MMX && fpclass != FPC_VI)
        return OPK_NONE;
    if ((rule->cond & OPK_REG) && mem_ops)
        return OPK_NONE;
    return rule->kind;
}

/* The 64-bit general-purpose register a Capstone register is or is part
 * of, as its number in the encoding's order (capstream_regs_t), or -1
 * (RIP, segment, flags, vector and other registers: not tracked); *part
 * is set for an 8- or 16-bit one, whose write keeps the rest. */
static int gpr_of(unsigned r, int *part)
{
    *part = 1;
    switch (r) {
    case X86_REG_AL: case X86_REG_AH: case X86_REG_AX: return 0;
    case X86_REG_CL: case X86_REG_CH: case X86_REG_CX: return 1;
    case X86_REG_DL: case X86_REG_DH: case X86_REG_DX: return 2;
    case X86_REG_BL: case X86_REG_BH: case X86_REG_BX: return 3;
    case X86_REG_SPL: case X86_REG_SP: return 4;
    case X86_REG_BPL: case X86_REG_BP: return 5;
    case X86_REG_SIL: case X86_REG_SI: return 6;
    case X86_REG_DIL: case X86_REG_DI: return 7;
    default: break;
    }
    if (r >= X86_REG_R8B && r <= X86_REG_R15B)
        return 8 + (int)(r - X86_REG_R8B);
    if (r >= X86_REG_R8W && r <= X86_REG_R15W)
        return 8 + (int)(r - X86_REG_R8W);
    *part = 0;
    switch (r) {
    case X86_REG_EAX: case X86_REG_RAX: return 0;
    case X86_REG_ECX: case X86_REG_RCX: return 1;
    case X86_REG_EDX: case X86_REG_RDX: return 2;
    case X86_REG_EBX: case X86_REG_RBX: return 3;
    case X86_REG_ESP: case X86_REG_RSP: return 4;
    case X86_REG_EBP: case X86_REG_RBP: return 5;
    case X86_REG_ESI: case X86_REG_RSI: return 6;
    case X86_REG_EDI: case X86_REG_RDI: return 7;
    default: break;
    }
    if (r >= X86_REG_R8 && r <= X86_REG_R15)
        return 8 + (int)(r - X86_REG_R8);
    if (r >= X86_REG_R8D && r <= X86_REG_R15D)
        return 8 + (int)(r - X86_REG_R8D);
    return -1;
}

/* The flag groups (CAPSTREAM_FL_CF, CAPSTREAM_FL_OSZAP) that Capstone's
 * eflags detail of a non-x87 instruction says it writes (modifies, sets,
 * clears or leaves undefined: one flag of a group is the group) or reads
 * (tests); docs/CAPTURE.md, "Dependences of branches". */
#define FL_WRITES_CF (X86_EFLAGS_MODIFY_CF | X86_EFLAGS_RESET_CF | X86_EFLAGS_SET_CF | \
                      X86_EFLAGS_UNDEFINED_CF)
#define FL_WRITES_OSZAP                                                                     \
    (X86_EFLAGS_MODIFY_OF | X86_EFLAGS_MODIFY_SF | X86_EFLAGS_MODIFY_ZF |                   \
     X86_EFLAGS_MODIFY_AF | X86_EFLAGS_MODIFY_PF | X86_EFLAGS_RESET_OF |                    \
     X86_EFLAGS_RESET_SF | X86_EFLAGS_RESET_AF | X86_EFLAGS_RESET_PF | X86_EFLAGS_RESET_ZF | \
     X86_EFLAGS_SET_OF | X86_EFLAGS_SET_SF | X86_EFLAGS_SET_ZF | X86_EFLAGS_SET_AF |         \
     X86_EFLAGS_SET_PF | X86_EFLAGS_UNDEFINED_OF | X86_EFLAGS_UNDEFINED_SF |                \
     X86_EFLAGS_UNDEFINED_ZF | X86_EFLAGS_UNDEFINED_PF | X86_EFLAGS_UNDEFINED_AF)
#define FL_READS_OSZAP (X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF | X86_EFLAGS_TEST_ZF | \
                        X86_EFLAGS_TEST_PF | X86_EFLAGS_TEST_AF)

/* The flags instruction ci reads and writes (CAPSTREAM_FL_*); `loads`:
 * it reads a memory operand, whose data the written flags then come from.
 * An x87 instruction (whose detail holds x87 flags instead) and one
 * without an eflags detail: Capstone's implicit EFLAGS register, both
 * groups. */
static uint16_t decode_flags(const cs_insn *ci, int loads)
{
    unsigned rd = 0, wr = 0;
    const uint64_t e = has_group(ci, X86_GRP_FPU) ? 0 : ci->detail->x86.eflags;
    if (e) {
        wr = ((e & FL_WRITES_CF) ? CAPSTREAM_FL_CF : 0u) |
             ((e & FL_WRITES_OSZAP) ? CAPSTREAM_FL_OSZAP : 0u);
        rd = ((e & X86_EFLAGS_TEST_CF) ? CAPSTREAM_FL_CF : 0u) |
             ((e & FL_READS_OSZAP) ? CAPSTREAM_FL_OSZAP : 0u);
    } else {
        if (cs_reg_write(cs, ci, X86_REG_EFLAGS))
            wr = CAPSTREAM_FL_CF | CAPSTREAM_FL_OSZAP;
        if (cs_reg_read(cs, ci, X86_REG_EFLAGS))
            rd = CAPSTREAM_FL_CF | CAPSTREAM_FL_OSZAP;
    }
    /* popf writes them from the stack's data (an implicit load: no memory
     * operand) */
    const int ld = loads || ci->id == X86_INS_POPF || ci->id == X86_INS_POPFQ ||
                   ci->id == X86_INS_POPFD;
    return (uint16_t)(rd << CAPSTREAM_FL_SRC_SHIFT | wr << CAPSTREAM_FL_DST_SHIFT |
                      (ld ? wr : 0u) << CAPSTREAM_FL_LD_SHIFT);
}

/* The registers instruction ci reads, writes and addresses memory with
 * (capstream_regs_t; docs/CAPTURE.md, "Dependences of load addresses"),
 * and the flags it reads and writes (*fl, decode_flags()).
 * Explicit operands carry Capstone's read/write access (an operand without
 * one is taken as both); implicit registers are Capstone's lists. */
static void decode_regs(const cs_insn *ci, capstream_regs_t *r, uint16_t *fl)
{
    const cs_x86 *x = &ci->detail->x86;
    const int lea = ci->id == X86_INS_LEA;
    int part, g, loads = 0;
    uint16_t written = 0; /* explicit register operands written */
    for (uint8_t i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        const uint8_t acc = op->access ? op->access : (CS_AC_READ | CS_AC_WRITE);
        if (op->type == X86_OP_REG && (g = gpr_of(op->reg, &part)) >= 0) {
            if (acc & CS_AC_READ)
                r->src |= (uint16_t)(1u << g);
            if (acc & CS_AC_WRITE) {
                r->dst |= (uint16_t)(1u << g);
                written |= (uint16_t)(1u << g);
                if (part)
                    r->src |= (uint16_t)(1u << g);
            }
        } else if (op->type == X86_OP_MEM && ci->id != X86_INS_NOP) {
            uint16_t m = 0;
            if ((g = gpr_of(op->mem.base, &part)) >= 0)
                m |= (uint16_t)(1u << g);
            if ((g = gpr_of(op->mem.index, &part)) >= 0)
                m |= (uint16_t)(1u << g);
            if (lea)
                r->src |= m;
            else
                r->addr |= m;
            loads |= !lea && (acc & CS_AC_READ);
        }
    }
    for (uint8_t i = 0; i < ci->detail->regs_read_count; i++)
        if ((g = gpr_of(ci->detail->regs_read[i], &part)) >= 0)
            r->src |= (uint16_t)(1u << g);
    for (uint8_t i = 0; i < ci->detail->regs_write_count; i++)
        if ((g = gpr_of(ci->detail->regs_write[i], &part)) >= 0) {
            r->dst |= (uint16_t)(1u << g);
            if (part)
                r->src |= (uint16_t)(1u << g);
        }
    /* a stack access is addressed by rsp (push, pop, call, ret, enter);
     * leave loads from rbp and writes rbp with that load */
    if (r->src & (1u << 4) && ci->id != X86_INS_LEAVE &&
        (cs_reg_read(cs, ci, X86_REG_RSP) || cs_reg_read(cs, ci, X86_REG_ESP)))
        r->addr |= 1u << 4;
    if (loads)
        r->ld = written;
    switch (ci->id) {
    case X86_INS_POP:
        r->ld = written; /* pop reg: the register is the stack's data */
        break;
    case X86_INS_LEAVE:
        r->addr |= 1u << 5;
        r->ld = 1u << 5;
        break;
    case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
        r->ld = 1u << 0;
        break;
    case X86_INS_CMPXCHG:
        if (loads)
            r->ld |= 1u << 0; /* rax gets the memory operand when they differ */
        break;
    case X86_INS_XOR: case X86_INS_SUB: case X86_INS_SBB:
        /* a register with itself: xor and sub give 0, sbb 0 or -1 from
         * the carry (the flags it reads, *fl), whatever the register held;
         * Intel's optimization manual lists xor and sub as the zeroing
         * idioms ("Clearing Registers and Dependency Breaking Idioms") */
        if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
            x->operands[1].type == X86_OP_REG && x->operands[0].reg == x->operands[1].reg)
            r->src = 0;
        break;
    default:
        break;
    }
    r->ld &= r->dst;
    *fl = decode_flags(ci, loads);
}

/* An instruction's part in a Westmere macro-fused pair (docs/UARCH.md §1,
 * "Macro-fusion"): a first instruction, TEST or CMP, in a form that fuses;
 * a second, a Jcc, by its condition: the ones TEST fuses with (all), the
 * ones CMP also fuses with (carry and zero; signed since Nehalem). */
enum { FUSE_NONE, FUSE_TEST, FUSE_CMP, FUSE_JCC_TEST, FUSE_JCC_ANY };

/* The first-instruction part of a TEST or CMP: register or immediate
 * against a register, or one memory operand against a register; not
 * memory against an immediate, nor a RIP-relative memory operand (Intel
 * optimization manual §3.4.2.2: the memory form must be one the decoders
 * micro-fuse, which a RIP-relative one is not). */
static uint8_t fuse_first(const cs_insn *ci)
{
    if (ci->id != X86_INS_TEST && ci->id != X86_INS_CMP)
        return FUSE_NONE;
    const cs_x86 *x = &ci->detail->x86;
    if (x->op_count != 2)
        return FUSE_NONE;
    int mem = 0, imm = 0;
    for (uint8_t i = 0; i < 2; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type == X86_OP_MEM) {
            if (op->mem.base == X86_REG_RIP)
                return FUSE_NONE;
            mem = 1;
        } else if (op->type == X86_OP_IMM) {
            imm = 1;
        }
    }
    if (mem && imm)
        return FUSE_NONE;
    return ci->id == X86_INS_TEST ? FUSE_TEST : FUSE_CMP;
}

/* The second-instruction part of a Jcc (not LOOP, JRCXZ ...): O, S and P
 * fuse after TEST only; the carry, zero and signed conditions after CMP
 * as well (Intel optimization manual §3.4.2.2; corsix.org, "x86 macro-op
 * fusion notes", for the conditions Nehalem added to CMP). */
static uint8_t fuse_second(unsigned id)
{
    switch (id) {
    case X86_INS_JO: case X86_INS_JNO: case X86_INS_JS: case X86_INS_JNS:
    case X86_INS_JP: case X86_INS_JNP:
        return FUSE_JCC_TEST;
    case X86_INS_JB: case X86_INS_JAE: case X86_INS_JE: case X86_INS_JNE:
    case X86_INS_JBE: case X86_INS_JA: case X86_INS_JL: case X86_INS_JGE:
    case X86_INS_JLE: case X86_INS_JG:
        return FUSE_JCC_ANY;
    default:
        return FUSE_NONE;
    }
}

/* Static facts of one instruction (docs/CAPTURE.md, "Decoding"); *fuse
 * its part in a macro-fused pair (FUSE_*), *regs its registers. */
static void decode(const uint8_t *bytes, size_t size, uint64_t vaddr, capstream_insn_t *out,
                   uint8_t *fuse, capstream_regs_t *regs, uint16_t *fl)
{
    *fuse = FUSE_NONE;
    memset(out, 0, sizeof *out);
    memset(regs, 0, sizeof *regs);
    *fl = 0;
    out->len = (uint8_t)size;
    out->uops = 1;
    cs_insn *ci = NULL;
    if (!cs_ok || cs_disasm(cs, bytes, size, vaddr, 1, &ci) != 1) {
        out->flags = CAPSTREAM_F_UNDECODED;
        return;
    }
    const cs_x86 *x = &ci->detail->x86;
    const cs_x86_op *op0 = x->op_count ? &x->operands[0] : NULL;
    int direct = op0 && op0->type == X86_OP_IMM;
    if (has_group(ci, CS_GRP_RET)) {
        out->br = BR_RET;
    } else if (has_group(ci, CS_GRP_CALL)) {
        out->br = direct ? BR_CALL : BR_IND_CALL;
    } else if (has_group(ci, CS_GRP_JUMP)) {
        if (ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP)
            out->br = direct ? BR_JUMP : BR_IND_JUMP;
        else
            out->br = BR_COND; /* jcc, loop*, jrcxz */
    }
    if (out->br && direct)
        out->target = (uint64_t)op0->imm;
    const int simd = has_group(ci, X86_GRP_SSE1) || has_group(ci, X86_GRP_SSE2) ||
                     has_group(ci, X86_GRP_SSE3) || has_group(ci, X86_GRP_SSSE3) ||
                     has_group(ci, X86_GRP_SSE41) || has_group(ci, X86_GRP_SSE42) ||
                     has_group(ci, X86_GRP_AVX) || has_group(ci, X86_GRP_AVX2) ||
                     has_group(ci, X86_GRP_AVX512) || has_group(ci, X86_GRP_FMA);
    out->fpclass = fp_class(ci, simd);
    if (has_group(ci, X86_GRP_FPU)) {
        out->fp = FP_SCALAR;
    } else if (simd) {
        /* scalar forms end in ss/sd (addsd, cvtsi2sd, ucomiss ...) */
        size_t n = strlen(ci->mnemonic);
        int scalar = n > 2 && (strcmp(ci->mnemonic + n - 2, "ss") == 0 ||
                               strcmp(ci->mnemonic + n - 2, "sd") == 0);
        out->fp = scalar ? FP_SCALAR : FP_SIMD;
    }
    /* a rough fused-uop estimate: one, plus one for a memory operand that is
     * combined with an operation (load-op), plus one for a store of a
     * read-modify-write; calls and returns two */
    int mem_ops = 0, mem_written = 0;
    for (uint8_t i = 0; i < x->op_count; i++)
        if (x->operands[i].type == X86_OP_MEM && ci->id != X86_INS_LEA && ci->id != X86_INS_NOP) {
            /* a vector (or x87 80-bit) operand: one access of this width,
             * as valgrind counts it, not QEMU's 8-byte pieces; not for the
             * gathers, whose elements are accesses of their own, nor for
             * XSAVE-sized areas (> 64 bytes) */
            if (x->operands[i].size > 8 && x->operands[i].size <= 64 && !is_gather(ci->id) &&
                x->operands[i].size > out->mem_width)
                out->mem_width = x->operands[i].size;
            mem_ops++;
            if (x->operands[i].access & CS_AC_WRITE)
                mem_written = (x->operands[i].access & CS_AC_READ) ? 2 : 1;
        }
    int plain_move = ci->id == X86_INS_MOV || ci->id == X86_INS_MOVZX || ci->id == X86_INS_MOVSX ||
                     ci->id == X86_INS_MOVSXD || ci->id == X86_INS_MOVAPS ||
                     ci->id == X86_INS_MOVUPS || ci->id == X86_INS_MOVDQA ||
                     ci->id == X86_INS_MOVDQU || ci->id == X86_INS_MOVQ || ci->id == X86_INS_MOVD;
    out->opkind = op_kind(ci, simd, out->fpclass, mem_ops);
    if (mem_ops && !plain_move)
        out->uops++;
    if (mem_written == 2)
        out->uops++;
    if (out->br == BR_CALL || out->br == BR_IND_CALL || out->br == BR_RET)
        out->uops = 2;
    if ((x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE) &&
        is_string_op(ci->id))
        out->flags |= CAPSTREAM_F_REP;
    /* a locked read-modify-write: the LOCK prefix, or XCHG with a memory
     * operand, which is locked without it (Intel SDM vol. 2A, "LOCK--Assert
     * LOCK# Signal Prefix") */
    if (mem_ops && (x->prefix[0] == X86_PREFIX_LOCK || ci->id == X86_INS_XCHG))
        out->flags |= CAPSTREAM_F_LOCK;
    *fuse = out->br == BR_COND ? fuse_second(ci->id) : fuse_first(ci);
    decode_regs(ci, regs, fl);
    cs_free(ci, 1);
}

/* The HELLO chunk.  QEMU knows the guest binary only once it has loaded it,
 * so this is sent at the first translation; the caller holds out_lock. */
static void send_hello_locked(void)
{
    if (hello_sent)
        return;
    hello_sent = 1;
    const char *bin = qemu_plugin_path_to_binary();
    size_t blen = bin ? strlen(bin) : 0;
    uint8_t *hello = malloc(4 + blen);
    if (hello) {
        uint32_t v = CAPSTREAM_VERSION;
        memcpy(hello, &v, 4);
        if (blen)
            memcpy(hello + 4, bin, blen);
        chunk_write_locked(CAPSTREAM_HELLO, 0, hello, (uint32_t)(4 + blen));
        free(hello);
    }
    free((void *)bin);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (n == 0 || detached)
        return; /* a forked child's new blocks run without callbacks */
    if (n > CAPSTREAM_MAX_TB_INSNS)
        n = CAPSTREAM_MAX_TB_INSNS; /* QEMU's blocks are far shorter */
    size_t size = CAPSTREAM_TB_SIZE(n);
    uint8_t *payload = malloc(size);
    if (!payload)
        return;
    pthread_mutex_lock(&out_lock);
    send_hello_locked();
    uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
    if (!maps_known(vaddr))
        send_maps_locked(); /* a new mapping: its symbols even if the program dies */
    uint32_t tb_id = next_tb++;
    uint32_t n32 = (uint32_t)n;
    memcpy(payload, &tb_id, 4);
    memcpy(payload + 4, &n32, 4);
    memcpy(payload + 8, &vaddr, 8);
    if (kids_path && guest_base_state != 2) {
        /* where guest memory lies in QEMU's (for an execve's strings):
         * the same offset for every block, else unknown */
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, 0);
        const uint8_t *h = qemu_plugin_insn_haddr(insn);
        int64_t base = (int64_t)((uint64_t)(uintptr_t)h - qemu_plugin_insn_vaddr(insn));
        if (!h || (guest_base_state == 1 && base != guest_base))
            guest_base_state = 2;
        else if (guest_base_state == 0)
            guest_base = base, guest_base_state = 1;
    }
    uint8_t fuse_prev = FUSE_NONE;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        capstream_insn_t d;
        uint8_t fuse;
        capstream_regs_t rg;
        uint16_t fl;
        decode(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn),
               qemu_plugin_insn_vaddr(insn), &d, &fuse, &rg, &fl);
        /* a TEST or CMP and the Jcc after it in the block: the first is
         * marked (a pair whose Jcc starts another block is not seen) */
        if ((fuse == FUSE_JCC_ANY && fuse_prev != FUSE_NONE) ||
            (fuse == FUSE_JCC_TEST && fuse_prev == FUSE_TEST))
            payload[16 + (i - 1) * sizeof d + offsetof(capstream_insn_t, opkind)] = OPK_FUSED;
        fuse_prev = fuse == FUSE_TEST || fuse == FUSE_CMP ? fuse : FUSE_NONE;
        memcpy(payload + 16 + i * sizeof d, &d, sizeof d);
        memcpy(payload + 16 + n * sizeof d + i * sizeof rg, &rg, sizeof rg);
        memcpy(payload + 16 + n * (sizeof d + sizeof rg) + i * sizeof fl, &fl, sizeof fl);
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                         (void *)(uintptr_t)i);
    }
    if (!closed)
        chunk_write_locked(CAPSTREAM_TB, 0, payload, (uint32_t)size);
    if (kids_path && tb_id == tb_table_len) {
        if (tb_table_len == tb_table_cap) {
            uint32_t ncap = tb_table_cap ? tb_table_cap * 2 : 1024;
            uint8_t **bigger = realloc(tb_table, ncap * sizeof *bigger);
            if (bigger) {
                tb_table = bigger;
                tb_table_cap = ncap;
            }
        }
        if (tb_table_len < tb_table_cap) {
            tb_table[tb_table_len++] = payload; /* kept for the children */
            payload = NULL;
        }
    }
    pthread_mutex_unlock(&out_lock);
    free(payload);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)tb_id);
}

/* ---- threads and exit ---- */

/* A THREAD chunk {what} for vCPU `vcpu` (capstream.h); {3} also carries
 * a futex address (12 bytes), {1} a clear-child-tid address if not 0 (12,
 * else 4), {4} whether the call did not wait (`addr` 1; 8 bytes), {5} an
 * address and a count (16). */
static void thread_chunk_addr(unsigned vcpu, uint32_t what, uint64_t addr, uint32_t n)
{
    uint32_t payload[4] = {what, (uint32_t)addr, (uint32_t)(addr >> 32), n};
    pthread_mutex_lock(&out_lock);
    if (hello_sent && !closed && vcpu < MAX_VCPUS)
        chunk_write_locked(CAPSTREAM_THREAD, (uint16_t)vcpu, payload,
                           what == 3 || (what == 1 && addr) ? 12 : what == 5 ? 16 : what == 4 ? 8 : 4);
    pthread_mutex_unlock(&out_lock);
}

static void thread_chunk(unsigned vcpu, uint32_t what)
{
    thread_chunk_addr(vcpu, what, 0, 0);
}

/* The clear-child-tid address of the clone call this host thread is in
 * (clone with CLONE_CHILD_CLEARTID: that word is cleared and its futex
 * waiters are woken when the new thread exits, which is how pthread_join
 * waits), else 0; read by on_vcpu_init() in the same call. */
static __thread uint64_t clone_ctid;

/* QEMU creates a guest thread's vCPU in the creating thread, inside its
 * clone call (whose items on_syscall() sent first): the THREAD {1} chunk
 * comes after the creator's instructions up to the clone, so pmusim knows
 * the new thread from there on (and waits for its chunks in the model's
 * time order), with the clear-child-tid address when the clone gave one.
 * vCPU 0, created before the first block, is known by its chunks. */
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
    (void)id;
    if (!detached)
        thread_chunk_addr(vcpu, 1, clone_ctid, 0);
    clone_ctid = 0;
}

/* Called in the exiting thread: its last items, then THREAD {2}, so that
 * pmusim stops waiting for it (its vCPU number may be given to a later
 * thread, which THREAD {1} announces again). */
static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
    (void)id;
    if (detached)
        return;
    vbuf_flush(vcpu);
    thread_chunk(vcpu, 2);
}

static void on_exit_cb(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    if (detached)
        return; /* a forked child's exit: the stream is the parent's */
    for (unsigned v = 0; v < MAX_VCPUS; v++)
        vbuf_flush(v);
    pthread_mutex_lock(&out_lock);
    send_maps_locked();
    uint64_t end[4] = {0, write_ns, write_bytes + CAPSTREAM_HEADER_SIZE + sizeof end, runq_wait_ns()};
    chunk_write_locked(CAPSTREAM_END, 0, end, sizeof end); /* reason 0: a normal exit */
    closed = 1;
    if (out_fd >= 0)
        close(out_fd);
    out_fd = -1;
    pthread_mutex_unlock(&out_lock);
}

/* ---- fork ---- */

/* Before the host fork(): no chunk is half written when the child gets its
 * copy of the lock.  QEMU's fork_start() has stopped the other vCPUs
 * outside guest code, but a thread may still be in a callback run outside
 * it (a vCPU's exit). */
static void fork_prepare(void)
{
    pthread_mutex_lock(&out_lock);
    /* kids=PATH: the child's channel must exist before the fork for the
     * child to inherit it; a table of blocks with a gap (an allocation
     * failed) cannot make its stream whole, and a process pmusim no longer
     * reads (out_failed) has no reader for its children either */
    if (kids_path && !detached && !closed && !out_failed && tb_table_len == next_tb) {
        kid_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (kid_fd >= 0 && strlen(kids_path) < sizeof sa.sun_path) {
            memcpy(sa.sun_path, kids_path, strlen(kids_path) + 1);
            if (connect(kid_fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
                close(kid_fd);
                kid_fd = -1;
            }
        } else if (kid_fd >= 0) {
            close(kid_fd);
            kid_fd = -1;
        }
    }
}

static void fork_parent(void)
{
    fork_traced = kid_fd >= 0;
    if (kid_fd >= 0)
        close(kid_fd); /* the child's; a fork that failed leaves pmusim an empty connection */
    kid_fd = -1;
    pthread_mutex_unlock(&out_lock);
    fork_returned = 1; /* the system call's return says whether it worked */
}

/* A stream of its own on the connected socket out_fd (a traced child, or
 * an exec'd image): a shared-buffer file of its own (the parent's slots
 * are the parent's; an exec'd image has none), chunk numbers from 0, and
 * the preamble `pre` (its last word's bit 0 set here when the file is
 * mapped) with the file attached and `extra` after it.  0, or -1 when the
 * preamble could not be sent.  The caller holds out_lock (or runs alone). */
static int own_stream_open(uint32_t pre[4], const void *extra, size_t extra_len)
{
    out_is_socket = 1;
    seq = 0;
    write_ns = write_bytes = 0;
    closed = out_failed = 0;
    for (unsigned v = 0; v < MAX_VCPUS; v++) {
        if (vbufs[v] && !shm)
            free(vbufs[v]);
        vbufs[v] = NULL; /* the items in them are the parent's */
    }
    if (shm)
        munmap(shm, CAPSTREAM_SHM_SIZE);
    shm = NULL;
    int mfd = memfd_create("pmusim-capture", MFD_CLOEXEC);
    if (mfd >= 0 && ftruncate(mfd, (off_t)CAPSTREAM_SHM_SIZE) == 0) {
        void *m = mmap(NULL, CAPSTREAM_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
        if (m != MAP_FAILED)
            shm = m;
    }
    /* the preamble, with the file when it is mapped */
    pre[3] |= shm != NULL;
    struct iovec iov[2] = {{pre, 16}, {(void *)extra, extra_len}};
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(sizeof(int))];
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = extra_len ? 2 : 1};
    if (shm) {
        mh.msg_control = cm.b;
        mh.msg_controllen = sizeof cm.b;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &mfd, sizeof mfd);
    }
    ssize_t w;
    do
        w = sendmsg(out_fd, &mh, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (mfd >= 0)
        close(mfd);
    if (w >= 16 && (size_t)w < 16 + extra_len) {
        /* the rest of the command line (the file went with the first part) */
        const char *rest = (const char *)extra + (w - 16);
        size_t left = extra_len - (size_t)(w - 16);
        while (left) {
            ssize_t k = send(out_fd, rest, left, MSG_NOSIGNAL);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            rest += k;
            left -= (size_t)k;
        }
        if (!left)
            w = (ssize_t)(16 + extra_len);
    }
    if (w != (ssize_t)(16 + extra_len)) {
        out_failed = 1;
        return -1;
    }
    return 0;
}

/* A traced child's stream (kids=PATH): the socket connected before the
 * fork, and at its start everything a reader needs that went to the
 * parent's stream: HELLO, the blocks translated so far with their ids, the
 * mappings.  The caller holds out_lock. */
static void fork_child_traced(void)
{
    if (out_fd >= 0)
        close(out_fd); /* the parent's pipe or socket */
    out_fd = kid_fd;
    kid_fd = -1;
    uint32_t pre[4] = {CAPSTREAM_CHILD_MAGIC, (uint32_t)getpid(), (uint32_t)getppid(), 0};
    if (own_stream_open(pre, NULL, 0) != 0)
        return; /* (a short write of 16 bytes to a stream socket does not happen) */
    hello_sent = 0;
    send_hello_locked();
    for (uint32_t i = 0; i < tb_table_len; i++) {
        uint32_t n;
        memcpy(&n, tb_table[i] + 4, 4);
        chunk_write_locked(CAPSTREAM_TB, 0, tb_table[i], CAPSTREAM_TB_SIZE(n));
    }
    send_maps_locked();
}

/* The child: its callbacks must not write into the parent's shared buffers
 * or pipe, nor keep the pipe open (pmusim reads until every write end is
 * closed).  Its only thread is the one that forked; the buffers of the
 * parent's other threads are not its own.  Blocks translated before the
 * fork keep their callbacks, which from now on append to private buffers
 * that a flush empties without sending; blocks it translates get none. */
static void fork_child(void)
{
    exec_n = 0; /* a new process: its first image */
    exec_top = 0;
    if (kid_fd >= 0) {
        fork_child_traced();
        pthread_mutex_unlock(&out_lock);
        return;
    }
    detached = 1;
    closed = 1;
    out_failed = 1;
    if (out_fd >= 0)
        close(out_fd);
    out_fd = -1;
    for (unsigned v = 0; v < MAX_VCPUS; v++) {
        if (vbufs[v] && !shm)
            free(vbufs[v]); /* private: the child's own copy */
        vbufs[v] = NULL;
    }
    if (shm)
        munmap(shm, CAPSTREAM_SHM_SIZE);
    shm = NULL;
    pthread_mutex_unlock(&out_lock);
}

/* An EXECVE chunk {what, arg} and `text` (NULL: none) after an EXEC chunk
 * with what the thread executed up to the call (capstream.h). */
static void execve_chunk(unsigned vcpu, uint32_t what, uint32_t arg, const char *text)
{
    vbuf_flush(vcpu);
    size_t tn = text ? strnlen(text, CAPSTREAM_EXECVE_MAX_TEXT) : 0;
    uint8_t payload[8 + CAPSTREAM_EXECVE_MAX_TEXT];
    memcpy(payload, &what, 4);
    memcpy(payload + 4, &arg, 4);
    if (tn)
        memcpy(payload + 8, text, tn);
    pthread_mutex_lock(&out_lock);
    if (!closed && vcpu < MAX_VCPUS)
        chunk_write_locked(CAPSTREAM_EXECVE, (uint16_t)vcpu, payload, (uint32_t)(8 + tn));
    pthread_mutex_unlock(&out_lock);
}

/* ---- execve under --trace-children: the new image under QEMU too ---- */

/* A growable vector of malloc'd strings, NULL-terminated. */
typedef struct strv {
    char **v;
    size_t n, cap;
} strv_t;

static int strv_add(strv_t *sv, char *s)
{
    if (!s)
        return -1;
    if (sv->n + 2 > sv->cap) {
        size_t ncap = sv->cap ? sv->cap * 2 : 16;
        char **bigger = realloc(sv->v, ncap * sizeof *bigger);
        if (!bigger) {
            free(s);
            return -1;
        }
        sv->v = bigger;
        sv->cap = ncap;
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
    return 0;
}

static void strv_free(strv_t *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    memset(sv, 0, sizeof *sv);
}

/* Guest memory, read with process_vm_readv() on our own process: in user
 * mode the guest's address space is QEMU's at guest_base + the guest
 * address, and a bad guest pointer is then an error, not a fault of QEMU.
 * Pieces never cross a page (the call does not split an iovec). */
static int guest_read(uint64_t gaddr, void *dst, size_t n)
{
    uint8_t *d = dst;
    while (n) {
        uint64_t h = gaddr + (uint64_t)guest_base;
        size_t piece = 4096 - (size_t)(h & 4095);
        if (piece > n)
            piece = n;
        struct iovec l = {d, piece}, r = {(void *)(uintptr_t)h, piece};
        if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)piece)
            return -1;
        d += piece;
        gaddr += piece;
        n -= piece;
    }
    return 0;
}

/* A guest string of at most `max` bytes with its NUL (malloc'd); NULL when
 * it cannot be read or is longer. */
static char *guest_string(uint64_t gaddr, size_t max)
{
    size_t len = 0;
    char *s = malloc(max);
    while (s && len < max) {
        uint64_t h = gaddr + len + (uint64_t)guest_base;
        size_t piece = 4096 - (size_t)(h & 4095);
        if (piece > max - len)
            piece = max - len;
        if (guest_read(gaddr + len, s + len, piece) != 0)
            break;
        if (memchr(s + len, '\0', piece))
            return s;
        len += piece;
    }
    free(s);
    return NULL;
}

/* The kernel's bounds on execve's strings (fs/exec.c): each at most
 * MAX_ARG_STRLEN (32 pages) with its NUL, all of them and their pointers
 * below a quarter of the stack limit, at most 3/4 of 8 MiB, at least 32
 * pages. */
#define EXEC_MAX_STRLEN (32u * 4096u)

static uint64_t exec_arg_limit(void)
{
    uint64_t limit = 6u << 20;
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur / 4 < limit)
        limit = rl.rlim_cur / 4;
    return limit < EXEC_MAX_STRLEN ? EXEC_MAX_STRLEN : limit;
}

/* The guest's NULL-terminated vector at `gaddr` (NULL: empty, as Linux
 * takes it), counting its bytes in *total.  -1 if unreadable or over the
 * bounds (left to QEMU: the guest gets the kernel's EFAULT or E2BIG). */
static int guest_strv(uint64_t gaddr, strv_t *sv, uint64_t *total, uint64_t limit)
{
    for (uint64_t i = 0; gaddr; i++) {
        uint64_t p;
        if (guest_read(gaddr + 8 * i, &p, 8) != 0)
            return -1;
        if (!p)
            return 0;
        char *str = guest_string(p, EXEC_MAX_STRLEN);
        if (!str)
            return -1;
        *total += strlen(str) + 1 + 8;
        if (*total >= limit || strv_add(sv, str) != 0)
            return -1;
    }
    return 0;
}

/* How the kernel would run `path`, with the guest's argv in `args`
 * (rewritten for each #! script): 1 when the program it ends at is an
 * x86-64 ELF that QEMU can read (*prog, malloc'd; args the guest's argv
 * for it), else 0 with `why`: the call is left to QEMU, which asks the
 * kernel (the guest gets its error, or the program runs natively). */
static int exec_resolve(const char *path, strv_t *args, char **prog, char *why, size_t wn)
{
    char *cur = strdup(path);
    /* the kernel runs a chain of up to 5 #! scripts (the 6th: ELOOP;
     * "a script whose interpreter is a script", 4 deep, checked natively:
     * docs/CAPTURE.md) */
    for (int scripts = 0; cur; scripts++) {
        struct stat st;
        if (stat(cur, &st) != 0 || !S_ISREG(st.st_mode) || access(cur, X_OK) != 0) {
            snprintf(why, wn, "%s is not an executable file: left to the kernel", cur);
            break;
        }
        uint8_t buf[256];
        int fd = open(cur, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
        if (fd >= 0)
            close(fd);
        if (n < 0) {
            snprintf(why, wn, "%s cannot be read (QEMU must read it): %s", cur, strerror(errno));
            break;
        }
        if (n >= 20 && memcmp(buf, "\177ELF", 4) == 0) {
            uint16_t type, machine;
            memcpy(&type, buf + 16, 2);
            memcpy(&machine, buf + 18, 2);
            if (buf[4] != 2 || machine != 62 || (type != 2 && type != 3)) {
                snprintf(why, wn, "%s is not an x86-64 program (ELF class %u, machine %u)", cur,
                         buf[4], machine);
                break;
            }
            if (st.st_mode & (S_ISUID | S_ISGID)) {
                /* QEMU would run it with the caller's privileges, not
                 * the program's */
                snprintf(why, wn, "%s is set-user-ID or set-group-ID: the kernel runs it with "
                         "its privileges", cur);
                break;
            }
            *prog = cur;
            return 1;
        }
        if (n < 2 || buf[0] != '#' || buf[1] != '!') {
            snprintf(why, wn, "%s is neither an ELF program nor a #! script", cur);
            break;
        }
        if (scripts == 5) {
            snprintf(why, wn, "%s: more #! scripts than the kernel runs in a chain", cur);
            break;
        }
        /* "#!INTERP [ARG]": the first line of the first 256 bytes, INTERP
         * up to the first blank, ARG the rest without the blanks around it
         * (one argument); a line the 256 bytes cut is left to the kernel */
        uint8_t *nl = memchr(buf, '\n', (size_t)n);
        if (!nl && n == (ssize_t)sizeof buf) {
            snprintf(why, wn, "%s: a #! line of 256 bytes or more", cur);
            break;
        }
        char line[256];
        size_t ln = (size_t)((nl ? nl - buf : n) - 2);
        memcpy(line, buf + 2, ln);
        line[ln] = '\0';
        ln = strlen(line); /* a NUL ends the line too */
        while (ln && (line[ln - 1] == ' ' || line[ln - 1] == '\t'))
            line[--ln] = '\0';
        char *name = line + strspn(line, " \t");
        size_t k = strcspn(name, " \t");
        if (k == 0) {
            snprintf(why, wn, "%s: a #! line without an interpreter", cur);
            break;
        }
        char *arg = name + k;
        arg += strspn(arg, " \t");
        name[k] = '\0';
        /* argv: INTERP [ARG] SCRIPT ARGV[1...] */
        strv_t na = {0};
        int bad = strv_add(&na, strdup(name)) != 0 || (*arg && strv_add(&na, strdup(arg)) != 0) ||
                  strv_add(&na, strdup(cur)) != 0;
        for (size_t i = 1; !bad && i < args->n; i++)
            bad = strv_add(&na, strdup(args->v[i])) != 0;
        if (bad) {
            strv_free(&na);
            snprintf(why, wn, "out of memory");
            break;
        }
        strv_free(args);
        *args = na;
        free(cur);
        cur = strdup(name);
    }
    free(cur);
    return 0;
}

/* The guest's execve (or execveat) of a traced process (kids=PATH): the new
 * image runs under QEMU with this plugin too (docs/CAPTURE.md, "Tracing
 * the children").  Returns only when the call is left to QEMU (it runs
 * the guest's call: the guest gets the kernel's error, or the program runs
 * natively); `why` then says why. */
static void exec_traced(unsigned vcpu, int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                        uint64_t a4, uint64_t a5, char *why, size_t wn)
{
    uint64_t gpath = a1, gargv = a2, genvp = a3;
    if (num == 322) { /* execveat(dirfd, path, argv, envp, flags) */
        if ((int32_t)a1 != AT_FDCWD || a5 != 0) {
            snprintf(why, wn, "execveat with a directory descriptor or flags is left to QEMU");
            return;
        }
        gpath = a2, gargv = a3, genvp = a4;
    }
    if (guest_base_state != 1 || !plugin_self) {
        snprintf(why, wn, "the guest's memory or the plugin's path is not known");
        return;
    }
    strv_t args = {0}, env = {0}, qargv = {0};
    qemu_env_plan_t plan = {0};
    char *path = guest_string(gpath, 4096), *prog = NULL, *plug = NULL;
    uint64_t total = 0, limit = exec_arg_limit();
    if (!path || guest_strv(gargv, &args, &total, limit) != 0 ||
        guest_strv(genvp, &env, &total, limit) != 0) {
        snprintf(why, wn, "the guest's path, argv or envp cannot be read or is too long");
        goto out;
    }
    if (args.n == 0) {
        snprintf(why, wn, "%s: an empty argv", path);
        goto out;
    }
    if (!exec_resolve(path, &args, &prog, why, wn))
        goto out;
    /* QEMU again: the same -cpu, this plugin with kids=PATH and the image's
     * number, -0 for the guest's argv[0], the program (a path QEMU does not
     * take for an option or look up in PATH) and the arguments */
    if (asprintf(&plug, "%s,kids=%s,exec=%u,top=%d", plugin_self, kids_path, exec_n + 1,
                 exec_top) < 0) {
        plug = NULL;
        snprintf(why, wn, "out of memory");
        goto out;
    }
    /* the guest's envp as -E options, QEMU's own environment (nearly
     * always empty) apart: the guest's LD_PRELOAD, QEMU_STRACE ... are the
     * new program's, not the host QEMU's (qemu_env.h) */
    if (qemu_env_plan(env.v, &plan) != 0) {
        snprintf(why, wn, "out of memory");
        goto out;
    }
    int bad = strv_add(&qargv, strdup(qemu_argv0 ? qemu_argv0 : "qemu-x86_64")) != 0;
    if (qemu_cpu_arg)
        bad |= strv_add(&qargv, strdup("-cpu")) != 0 || strv_add(&qargv, strdup(qemu_cpu_arg)) != 0;
    bad |= strv_add(&qargv, strdup("-plugin")) != 0 || strv_add(&qargv, strdup(plug)) != 0 ||
           strv_add(&qargv, strdup("-0")) != 0 || strv_add(&qargv, strdup(args.v[0])) != 0;
    for (size_t i = 0; i < plan.nargs; i++)
        bad |= strv_add(&qargv, strdup(plan.args[i])) != 0;
    char *p2 = NULL;
    if (prog[0] == '/' || (strchr(prog, '/') && prog[0] != '-'))
        p2 = strdup(prog);
    else if (asprintf(&p2, "./%s", prog) < 0)
        p2 = NULL;
    bad |= strv_add(&qargv, p2) != 0;
    for (size_t i = 1; i < args.n; i++)
        bad |= strv_add(&qargv, strdup(args.v[i])) != 0;
    if (bad) {
        snprintf(why, wn, "out of memory");
        goto out;
    }
    /* this image's stream ends: the thread's items, the mappings (the
     * symbols), EXECVE {3, N} with the program that continues in image N's
     * stream and, when the new image's environment cannot be the guest's
     * envp exactly, {4, N} with what differs; the pipe or socket is
     * close-on-exec.  The output lock is held through the execve, so that
     * no other thread's chunk (a block translated, a buffer full) follows
     * {3, N} */
    vbuf_flush(vcpu);
    size_t tn = strnlen(prog, CAPSTREAM_EXECVE_MAX_TEXT);
    size_t nn = plan.note ? strnlen(plan.note, CAPSTREAM_EXECVE_MAX_TEXT) : 0;
    uint8_t *payload = malloc(8 + (tn > nn ? tn : nn));
    if (!payload) {
        snprintf(why, wn, "out of memory");
        goto out;
    }
    uint32_t head[2] = {3, exec_n + 1};
    memcpy(payload, head, 8);
    memcpy(payload + 8, prog, tn);
    pthread_mutex_lock(&out_lock);
    send_maps_locked();
    chunk_write_locked(CAPSTREAM_EXECVE, (uint16_t)vcpu, payload, (uint32_t)(8 + tn));
    if (nn) {
        head[0] = 4;
        memcpy(payload, head, 8);
        memcpy(payload + 8, plan.note, nn);
        chunk_write_locked(CAPSTREAM_EXECVE, (uint16_t)vcpu, payload, (uint32_t)(8 + nn));
    }
    execve("/proc/self/exe", qargv.v, plan.host);
    int e = errno;
    pthread_mutex_unlock(&out_lock);
    free(payload);
    snprintf(why, wn, "the host's execve of QEMU failed: %s", strerror(e));
out:
    free(path);
    free(prog);
    free(plug);
    strv_free(&args);
    qemu_env_plan_free(&plan);
    strv_free(&env);
    strv_free(&qargv);
}

/* An execve replaces QEMU, plugin and all, by the new program.  Without
 * kids=PATH the host runs it natively: the stream ends there without END.
 * The thread's items go out before the call and an EXECVE chunk says it
 * was made, so that pmusim can tell this end from a death; a call that
 * fails returns (on_syscall_ret) and says so.  With kids=PATH the new
 * image runs under QEMU and this plugin (exec_traced()) when it can, and
 * the chunk says why when it cannot.  A detached child's execve sends
 * nothing. */
/* x86-64 system calls that wait for another thread, a child, a signal, a
 * timer or file descriptors: futex's wait operations (futex(uaddr, op,
 * ...): WAIT 0, LOCK_PI 6, WAIT_BITSET 9, WAIT_REQUEUE_PI 11, LOCK_PI2 13,
 * without the PRIVATE and CLOCK_REALTIME bits), futex_waitv, poll, ppoll,
 * select, pselect6, epoll_wait, epoll_pwait(2), pause, nanosleep,
 * clock_nanosleep, rt_sigsuspend, rt_sigtimedwait, wait4, waitid.  read
 * and write, which wait only on some descriptors, are not among them. */
static int waiting_call(int64_t num, uint64_t a2)
{
    switch (num) {
    case 202: {
        const uint64_t op = a2 & 0x7f;
        return op == 0 || op == 6 || op == 9 || op == 11 || op == 13;
    }
    case 7: case 23: case 34: case 35: case 61: case 128: case 130: case 230: case 232:
    case 247: case 270: case 271: case 281: case 441: case 449:
        return 1;
    default:
        return 0;
    }
}

/* futex operations that wake waiters (WAKE 1, REQUEUE 3, CMP_REQUEUE 4,
 * WAKE_OP 5, UNLOCK_PI 7, WAKE_BITSET 10, CMP_REQUEUE_PI 12), tkill,
 * tgkill, and a thread's exit (which wakes its joiner: the futex at its
 * clear-child-tid address): the caller's items go out first, so that a
 * woken thread's THREAD {4} comes after what its waker did before. */
static int waking_call(int64_t num, uint64_t a2)
{
    if (num == 60 || num == 200 || num == 234)
        return 1;
    const uint64_t op = a2 & 0x7f;
    return num == 202 && (op == 1 || op == 3 || op == 4 || op == 5 || op == 7 || op == 10 ||
                          op == 12);
}

static int64_t in_wait[MAX_VCPUS]; /* the vCPU's thread is in waiting_call() this + 1 */

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                       uint64_t a7, uint64_t a8)
{
    (void)id, (void)a6, (void)a7, (void)a8;
    if (vcpu < MAX_VCPUS && !detached && waiting_call(num, a2)) {
        /* its items, then THREAD {3}: pmusim does not wait for its chunks
         * until THREAD {4} says the call returned */
        vbuf_flush(vcpu);
        thread_chunk_addr(vcpu, 3, num == 202 ? a1 : 0, 0);
        in_wait[vcpu] = num + 1;
    } else if (vcpu < MAX_VCPUS && !detached && waking_call(num, a2)) {
        vbuf_flush(vcpu);
        /* THREAD {5}: where the waiters on that address wake (futex(uaddr,
         * op, n, ...): WAKE, WAKE_BITSET, WAKE_OP and the requeues wake up
         * to n of uaddr's waiters; UNLOCK_PI one) */
        const uint64_t op = a2 & 0x7f;
        if (num == 202)
            thread_chunk_addr(vcpu, 5, a1, op == 7 ? 1 : a3 > UINT32_MAX ? UINT32_MAX : (uint32_t)a3);
    }
    if ((num == 61 || num == 247) && kids_path && !detached) {
        /* wait4(pid, status, options, rusage), waitid(idtype, id, infop,
         * options, rusage): where the child's status will be (reap_chunk()) */
        wait_call = (int)num;
        wait_status = num == 61 ? a2 : (a4 & 0x01000000u) ? 0 : a3; /* not with WNOWAIT */
        return;
    }
    if ((num == 56 && (a1 & 0x100)) || num == 435) {
        /* clone with CLONE_VM, clone3: a thread may be created (vCPU init
         * hook, on_vcpu_init()); its creator's items go first.  clone(flags,
         * stack, parent_tid, child_tid, tls): child_tid with
         * CLONE_CHILD_CLEARTID (0x00200000); clone3's is in memory the
         * plugin cannot read */
        clone_ctid = num == 56 && (a1 & 0x00200000) ? a4 : 0;
        if (!detached)
            vbuf_flush(vcpu);
        return;
    }
    if ((num != 59 && num != 322) || detached) /* x86-64 execve, execveat */
        return;
    char why[CAPSTREAM_EXECVE_MAX_TEXT] = "";
    if (kids_path && !closed && !out_failed && vcpu < MAX_VCPUS)
        exec_traced(vcpu, num, a1, a2, a3, a4, a5, why, sizeof why);
    in_execve = 1;
    execve_chunk(vcpu, 1, 0, kids_path ? why : NULL);
}

/* kids=PATH: a wait4 or waitid that reaped a child killed by a signal
 * sends a REAPED chunk {pid, signal}: QEMU reaps its children for the
 * guest, so only the guest's wait shows pmusim the signal (the child's
 * own stream just ends).  The status is read from guest memory. */
static void reap_chunk(unsigned vcpu, int call, int64_t ret)
{
    uint32_t payload[2] = {0, 0};
    if (!wait_status || guest_base_state != 1)
        return;
    if (call == 61 && ret > 0) {
        int32_t st;
        if (guest_read(wait_status, &st, 4) != 0 || (st & 0x7f) == 0 || (st & 0x7f) == 0x7f)
            return; /* an exit, a stop or a continue */
        payload[0] = (uint32_t)ret;
        payload[1] = (uint32_t)(st & 0x7f);
    } else if (call == 247 && ret == 0) {
        int32_t si[7]; /* si_signo, si_errno, si_code, pad, si_pid, si_uid, si_status */
        if (guest_read(wait_status, si, sizeof si) != 0 || (si[2] != 2 && si[2] != 3) ||
            si[4] <= 0)
            return; /* not CLD_KILLED or CLD_DUMPED */
        payload[0] = (uint32_t)si[4];
        payload[1] = (uint32_t)si[6];
    } else {
        return;
    }
    if (payload[1] == 0 || payload[1] > 64)
        return;
    vbuf_flush(vcpu);
    pthread_mutex_lock(&out_lock);
    if (!closed && vcpu < MAX_VCPUS)
        chunk_write_locked(CAPSTREAM_REAPED, (uint16_t)vcpu, payload, sizeof payload);
    pthread_mutex_unlock(&out_lock);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
    (void)id;
    if (vcpu < MAX_VCPUS && in_wait[vcpu]) {
        /* {4, 1}: a futex wait that did not wait (EAGAIN: its word had
         * changed, a wake came first) */
        const int futex_again = in_wait[vcpu] == 202 + 1 && ret == -11;
        in_wait[vcpu] = 0;
        if (!detached)
            thread_chunk_addr(vcpu, 4, futex_again ? 1 : 0, 0);
    }
    if (wait_call) {
        int call = wait_call;
        wait_call = 0;
        if (call == num && !detached)
            reap_chunk(vcpu, call, ret);
        return;
    }
    if (in_execve) {
        in_execve = 0;
        if (!detached)
            execve_chunk(vcpu, 2, 0, NULL);
        return;
    }
    if (!fork_returned)
        return;
    fork_returned = 0;
    if (ret <= 0 || detached)
        return; /* the fork failed */
    vbuf_flush(vcpu);
    uint32_t payload[2] = {(uint32_t)ret, (uint32_t)fork_traced};
    pthread_mutex_lock(&out_lock);
    if (!closed && vcpu < MAX_VCPUS) /* (a thread beyond them sends no items either) */
        chunk_write_locked(CAPSTREAM_FORK, (uint16_t)vcpu, payload, sizeof payload);
    pthread_mutex_unlock(&out_lock);
}

/* QEMU's own command line (/proc/self/cmdline), for an execve under
 * kids=PATH: argv[0], -cpu, the plugin's path (the -plugin option's first
 * field, made absolute: the guest may change its directory), and in
 * *guest (malloc'd, may be NULL) the guest's program and arguments
 * joined by blanks, what follows QEMU's options. */
static void read_qemu_cmdline(char **guest)
{
    *guest = NULL;
    FILE *fp = fopen("/proc/self/cmdline", "r");
    if (!fp)
        return;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (len < cap)
            break;
        char *bigger = realloc(buf, cap * 2 + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(fp);
    if (!buf)
        return;
    buf[len] = '\0';
    char *w = buf, *end = buf + len;
    int idx = 0, opts = 1;
    size_t glen = 0;
    char *g = NULL;
    while (w < end) {
        char *next = w + strlen(w) + 1;
        if (idx == 0) {
            qemu_argv0 = strdup(w);
        } else if (opts && w[0] == '-') {
            /* QEMU's options that take a value (the ones pmusim and the
             * plugin pass, and the other usual ones) */
            static const char *const with_value[] = {"-cpu", "-plugin", "-0", "-E", "-U", "-L",
                                                     "-d", "-D", "-B", "-R", "-s", "-r", "-p",
                                                     "-seed", "-trace", "-dfilter", NULL};
            int takes = 0;
            for (int k = 0; with_value[k]; k++)
                takes |= strcmp(w, with_value[k]) == 0;
            if (takes && next < end) {
                if (strcmp(w, "-cpu") == 0 && !qemu_cpu_arg)
                    qemu_cpu_arg = strdup(next);
                if (strcmp(w, "-plugin") == 0 && !plugin_self) {
                    char *first = strndup(next, strcspn(next, ","));
                    plugin_self = first ? realpath(first, NULL) : NULL;
                    free(first);
                }
                next += strlen(next) + 1;
            }
        } else {
            opts = 0;
            size_t wl = strlen(w);
            char *bigger = realloc(g, glen + wl + 2);
            if (bigger) {
                g = bigger;
                if (glen)
                    g[glen++] = ' ';
                memcpy(g + glen, w, wl + 1);
                glen += wl;
            }
        }
        idx++;
        w = next;
    }
    free(buf);
    *guest = g;
}

/* An exec'd image (exec=N): its stream is a connection to pmusim's
 * children socket, like a forked child's, with the preamble of an exec'd
 * image and the guest's command line after it.  -1 when it cannot be
 * made (the image then runs untraced). */
static int exec_image_connect(const char *guest_cmd)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(kids_path) >= sizeof sa.sun_path)
        return -1;
    memcpy(sa.sun_path, kids_path, strlen(kids_path) + 1);
    out_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (out_fd < 0)
        return -1;
    if (connect(out_fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(out_fd);
        out_fd = -1;
        return -1;
    }
    size_t cl = guest_cmd ? strlen(guest_cmd) : 0;
    if (cl > CAPSTREAM_EXEC_MAX_CMDLINE)
        cl = CAPSTREAM_EXEC_MAX_CMDLINE;
    uint32_t pre[4] = {CAPSTREAM_EXEC_MAGIC, (uint32_t)getpid(), exec_n,
                       (uint32_t)exec_top << 1 | (uint32_t)cl << 8};
    return own_stream_open(pre, guest_cmd, cl);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t *info,
                                                               int argc, char **argv)
{
    int shm_fd = -1;
    if (info->system_emulation) {
        qemu_plugin_outs("pmusim capture plugin: user-mode emulation only (qemu-x86_64)\n");
        return -1;
    }
    if (strcmp(info->target_name, "x86_64") != 0) {
        qemu_plugin_outs("pmusim capture plugin: x86_64 guests only\n");
        return -1;
    }
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "fd=", 3) == 0) {
            char *end;
            long v = strtol(argv[i] + 3, &end, 10);
            if (*end == '\0' && v >= 0 && v < 65536)
                out_fd = (int)v;
        } else if (strncmp(argv[i], "kids=", 5) == 0 && argv[i][5]) {
            kids_path = strdup(argv[i] + 5);
        } else if (strncmp(argv[i], "shm=", 4) == 0) {
            char *end;
            long v = strtol(argv[i] + 4, &end, 10);
            if (*end == '\0' && v >= 0 && v < 65536)
                shm_fd = (int)v;
        } else if (strncmp(argv[i], "exec=", 5) == 0) {
            char *end;
            unsigned long v = strtoul(argv[i] + 5, &end, 10);
            if (*end == '\0' && v > 0 && v < UINT32_MAX)
                exec_n = (uint32_t)v;
        } else if (strcmp(argv[i], "top=1") == 0) {
            exec_top = 1;
        }
    }
    if (kids_path) {
        char *guest_cmd = NULL;
        read_qemu_cmdline(&guest_cmd);
        if (!exec_n) {
            exec_top = out_fd >= 0; /* pmusim's QEMU: the program's first image */
        } else if (out_fd < 0 && exec_image_connect(guest_cmd) != 0) {
            /* no stream: the image runs untraced, as a detached child */
            detached = closed = out_failed = 1;
            if (out_fd >= 0)
                close(out_fd);
            out_fd = -1;
            free(guest_cmd);
            qemu_plugin_outs("pmusim capture plugin: an exec'd image could not reach pmusim: "
                             "it runs untraced\n");
            return 0;
        }
        free(guest_cmd);
    }
    if (out_fd < 0 || fcntl(out_fd, F_GETFD) < 0) {
        qemu_plugin_outs("pmusim capture plugin: needs fd=N, an open pipe to pmusim\n");
        return -1;
    }
    /* the guest must not inherit the pipe through exec */
    fcntl(out_fd, F_SETFD, FD_CLOEXEC);
    /* the shared buffers: mapped once, the file closed (the guest must not
     * see it); without them the buffers are private and a death loses
     * their items */
    struct stat st;
    if (shm_fd >= 0 && fstat(shm_fd, &st) == 0 && (uint64_t)st.st_size >= CAPSTREAM_SHM_SIZE) {
        void *m = mmap(NULL, CAPSTREAM_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
        if (m != MAP_FAILED)
            shm = m;
    }
    if (shm_fd >= 0)
        close(shm_fd);
    cs_ok = cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK &&
            cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
    qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
    qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
    if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0) {
        qemu_plugin_outs("pmusim capture plugin: pthread_atfork failed\n");
        return -1;
    }
    return 0;
}
