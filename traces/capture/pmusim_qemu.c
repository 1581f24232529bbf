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
 * Arguments: fd=N (the pipe's write end, inherited from pmusim), shm=N
 * (optional: a file of CAPSTREAM_SHM_SIZE bytes for the buffers, also
 * inherited; without it they are private memory), kids=PATH (optional:
 * pmusim's Unix socket for the children's streams).  */
#include "capstream.h"
#include "qemu_plugin_abi.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
static uint64_t seq;                 /* chunk number (the header holds its low 32 bits) */
static uint64_t write_ns, write_bytes; /* --timing: time in writev, bytes sent */
static uint32_t next_tb;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static vbuf_t *vbufs[MAX_VCPUS];
static vbuf_t *shm;                  /* the shared buffers, or NULL */
static csh cs;
static int cs_ok;

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

/* Static facts of one instruction (docs/CAPTURE.md, "Decoding"). */
static void decode(const uint8_t *bytes, size_t size, uint64_t vaddr, capstream_insn_t *out)
{
    memset(out, 0, sizeof *out);
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
    if (has_group(ci, X86_GRP_FPU)) {
        out->fp = FP_SCALAR;
    } else if (has_group(ci, X86_GRP_SSE1) || has_group(ci, X86_GRP_SSE2) ||
               has_group(ci, X86_GRP_SSE3) || has_group(ci, X86_GRP_SSSE3) ||
               has_group(ci, X86_GRP_SSE41) || has_group(ci, X86_GRP_SSE42) ||
               has_group(ci, X86_GRP_AVX) || has_group(ci, X86_GRP_AVX2) ||
               has_group(ci, X86_GRP_AVX512) || has_group(ci, X86_GRP_FMA)) {
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
            mem_ops++;
            if (x->operands[i].access & CS_AC_WRITE)
                mem_written = (x->operands[i].access & CS_AC_READ) ? 2 : 1;
        }
    int plain_move = ci->id == X86_INS_MOV || ci->id == X86_INS_MOVZX || ci->id == X86_INS_MOVSX ||
                     ci->id == X86_INS_MOVSXD || ci->id == X86_INS_MOVAPS ||
                     ci->id == X86_INS_MOVUPS || ci->id == X86_INS_MOVDQA ||
                     ci->id == X86_INS_MOVDQU || ci->id == X86_INS_MOVQ || ci->id == X86_INS_MOVD;
    if (mem_ops && !plain_move)
        out->uops++;
    if (mem_written == 2)
        out->uops++;
    if (out->br == BR_CALL || out->br == BR_IND_CALL || out->br == BR_RET)
        out->uops = 2;
    if ((x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE) &&
        is_string_op(ci->id))
        out->flags |= CAPSTREAM_F_REP;
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
    size_t size = 16 + n * sizeof(capstream_insn_t);
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
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        capstream_insn_t d;
        decode(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn),
               qemu_plugin_insn_vaddr(insn), &d);
        memcpy(payload + 16 + i * sizeof d, &d, sizeof d);
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

static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
    (void)id;
    if (!detached)
        vbuf_flush(vcpu);
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

/* A traced child's stream (kids=PATH): the socket connected before the
 * fork, a shared-buffer file of its own (the parent's slots are the
 * parent's), chunk numbers from 0, and at its start everything a reader
 * needs that went to the parent's stream: HELLO, the blocks translated so
 * far with their ids, the mappings.  The caller holds out_lock. */
static void fork_child_traced(void)
{
    if (out_fd >= 0)
        close(out_fd); /* the parent's pipe or socket */
    out_fd = kid_fd;
    kid_fd = -1;
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
    uint32_t pre[4] = {CAPSTREAM_CHILD_MAGIC, (uint32_t)getpid(), (uint32_t)getppid(), shm != NULL};
    struct iovec iov = {pre, sizeof pre};
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(sizeof(int))];
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
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
    if (w != (ssize_t)sizeof pre) {
        out_failed = 1; /* (a short write of 16 bytes to a stream socket does not happen) */
        return;
    }
    hello_sent = 0;
    send_hello_locked();
    for (uint32_t i = 0; i < tb_table_len; i++) {
        uint32_t n;
        memcpy(&n, tb_table[i] + 4, 4);
        chunk_write_locked(CAPSTREAM_TB, 0, tb_table[i], 16 + n * (uint32_t)sizeof(capstream_insn_t));
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

/* The parent's side of a fork: what its thread executed up to the fork goes
 * in an EXEC chunk, then a FORK chunk with the child's pid (capstream.h). */
static void execve_chunk(unsigned vcpu, uint32_t what)
{
    vbuf_flush(vcpu);
    uint32_t payload[2] = {what, 0};
    pthread_mutex_lock(&out_lock);
    if (!closed && vcpu < MAX_VCPUS)
        chunk_write_locked(CAPSTREAM_EXECVE, (uint16_t)vcpu, payload, sizeof payload);
    pthread_mutex_unlock(&out_lock);
}

/* An execve replaces QEMU, plugin and all, by the new program, which the
 * host runs natively: the stream ends there without END.  The thread's
 * items go out before the call and an EXECVE chunk says it was made, so
 * that pmusim can tell this end from a death; a call that fails returns
 * (on_syscall_ret) and says so.  A detached child's execve sends nothing. */
static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                       uint64_t a7, uint64_t a8)
{
    (void)id, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    if ((num != 59 && num != 322) || detached) /* x86-64 execve, execveat */
        return;
    in_execve = 1;
    execve_chunk(vcpu, 1);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
    (void)id;
    (void)num;
    if (in_execve) {
        in_execve = 0;
        if (!detached)
            execve_chunk(vcpu, 2);
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
        }
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
