/* The reader thread of `trace annotate` (sim/cli/afeed.h): a ring of
 * AFEED_SLOTS batches; the thread reads and converts into a free one, the
 * model's thread takes the oldest full one. */
#include "afeed.h"

#include <string.h>

/* Records per reader call: the symbols are added to the output between two
 * calls, so this decides where the symbol block lands in the output (it
 * was the sequential loop's batch). */
#define AFEED_READ 4096u
#define AFEED_SLOTS 4u

struct pmusim_afeed {
    pmusim_trace_reader_t *r;
    gboolean pass_events;
    gboolean pass_threads;
    void (*fill)(struct pmusim_afeed *f, pmusim_afeed_batch_t *b); /* afeed_fill(_feed) */
    /* the converter's state: the reader's side only */
    pmusim_rec_t *recs;        /* AFEED_READ records of one reader call (text form) */
    pmusim_trace_feed_t feed;  /* the binary decoder's (traces/reader_feed.h) */
    gboolean pending;          /* `in` waits for its MEM records */
    pmusim_uarch_insn_t in;
    pmusim_uarch_access_t acc[PMUSIM_UARCH_MAX_ACCESSES];
    guint nsym;                /* symbols handed on so far */
    /* the ring */
    pmusim_afeed_batch_t slot[AFEED_SLOTS];
    GThread *thread;           /* NULL: the caller reads */
    GMutex lock;
    GCond cond;                /* a slot was filled or emptied, or stop */
    unsigned head, count;      /* oldest full slot, full slots */
    gboolean taken;            /* slot[head] is the caller's */
    gboolean stop;
};

/* Room for n elements in an array of `cap`. */
static void *afeed_reserve(void *arr, size_t n, size_t *cap, size_t elem)
{
    if (n <= *cap)
        return arr;
    *cap = n;
    return g_realloc_n(arr, n, elem);
}

static void batch_reset(pmusim_afeed_batch_t *b)
{
    for (size_t i = 0; i < b->nsyms; i++)
        g_free(b->syms[i].name);
    b->ninsns = b->nacc = b->npass = b->nsyms = 0;
    b->end = FALSE;
    g_clear_error(&b->err);
}

static void batch_free(pmusim_afeed_batch_t *b)
{
    batch_reset(b);
    g_free(b->insns);
    g_free(b->acc);
    g_free(b->pass);
    g_free(b->syms);
}

static void push_pass(pmusim_afeed_t *f, pmusim_afeed_batch_t *b, const pmusim_rec_t *r)
{
    f->pending = FALSE; /* the instruction before it is complete, in place */
    pmusim_afeed_pass_t *p = &b->pass[b->npass++];
    p->rec = *r;
    p->at = b->ninsns;
}

/* The symbols the reader has seen since the last batch, copied into b. */
static void take_symbols(pmusim_afeed_t *f, pmusim_afeed_batch_t *b)
{
    const GArray *syms = pmusim_trace_reader_symbols(f->r);
    for (; f->nsym < syms->len; f->nsym++) {
        const pmusim_symbol_t *s = &g_array_index(syms, pmusim_symbol_t, f->nsym);
        b->syms = afeed_reserve(b->syms, b->nsyms + 1, &b->cap_syms, sizeof *b->syms);
        b->syms[b->nsyms++] = (pmusim_symbol_t){ s->start, s->end, g_strdup(s->name) };
    }
}

/* One reader call, converted as the sequential loop of cmd_annotate.c did:
 * an INSN record waits for the MEM records that follow it on its thread
 * and goes to the model when the next INSN, MARKER or passed EVENT comes
 * (or the trace ends); IDLE records are the model's own, THREAD records
 * too unless pass_threads.  The
 * instruction still waiting at the end of a call goes to the model with
 * the next call's batch (after that call's symbols), as it did in the
 * sequential loop: it is kept aside (f->in, f->acc) in between. */
static void afeed_fill(pmusim_afeed_t *f, pmusim_afeed_batch_t *b)
{
    batch_reset(b);
    GError *e = NULL;
    gssize n = pmusim_trace_reader_next_batch(f->r, f->recs, AFEED_READ, &e);
    if (n < 0) {
        b->err = e;
        b->end = TRUE;
        return;
    }
    take_symbols(f, b);
    /* every record makes at most one instruction and one access (a MEM
     * record beyond the maximum: a continuation part and its first access)
     * or one pass-through record; the waiting instruction one and its
     * accesses */
    size_t most = (size_t)n + 1;
    b->insns = afeed_reserve(b->insns, most, &b->cap_insns, sizeof *b->insns);
    b->acc = afeed_reserve(b->acc, most + PMUSIM_UARCH_MAX_ACCESSES, &b->cap_acc, sizeof *b->acc);
    b->pass = afeed_reserve(b->pass, most, &b->cap_pass, sizeof *b->pass);
    pmusim_uarch_insn_t *open = NULL; /* the pending instruction */
    if (f->pending) {
        open = &b->insns[b->ninsns++];
        *open = f->in;
        open->access = b->acc;
        b->nacc = f->in.naccess & PMUSIM_UARCH_ACC_COUNT;
        memcpy(b->acc, f->acc, b->nacc * sizeof *f->acc);
    }
    if (n == 0) {
        f->pending = FALSE;
        b->end = TRUE;
        return;
    }
    for (gssize i = 0; i < n; i++) {
        const pmusim_rec_t *r = &f->recs[i];
        switch (r->kind) {
        case PMUSIM_REC_INSN:
            open = &b->insns[b->ninsns++];
            pmusim_uarch_insn_from_rec(r, open, b->acc + b->nacc);
            b->nacc += open->naccess;
            f->pending = TRUE;
            break;
        case PMUSIM_REC_MEM:
            if (f->pending && r->thread == open->thread) {
                /* open's accesses are the batch's last: room behind them */
                const uint32_t na = open->naccess & PMUSIM_UARCH_ACC_COUNT;
                if (na == PMUSIM_UARCH_MAX_ACCESSES) {
                    /* a long instruction: the next part continues it */
                    open->naccess |= PMUSIM_UARCH_ACC_MORE;
                    pmusim_uarch_insn_t *next = &b->insns[b->ninsns++];
                    *next = *open;
                    next->naccess = PMUSIM_UARCH_ACC_CONT;
                    next->access = b->acc + b->nacc;
                    open = next;
                }
                const uint32_t k = open->naccess & PMUSIM_UARCH_ACC_COUNT;
                pmusim_uarch_insn_add_mem(open, b->acc + (b->nacc - k), r);
                b->nacc++;
            }
            break;
        case PMUSIM_REC_MARKER:
            push_pass(f, b, r);
            break;
        case PMUSIM_REC_EVENT:
            if (f->pass_events)
                push_pass(f, b, r);
            break;
        case PMUSIM_REC_THREAD:
            if (f->pass_threads)
                push_pass(f, b, r);
            break;
        default: /* IDLE: the model makes its own */
            break;
        }
    }
    if (f->pending) { /* not complete yet: aside until the next call */
        const uint32_t na = open->naccess & PMUSIM_UARCH_ACC_COUNT;
        f->in = *open;
        memcpy(f->acc, open->access, na * sizeof *f->acc);
        b->ninsns--;
        b->nacc -= na;
    }
}

/* afeed_fill() for a binary trace: the decoder writes the instructions,
 * accesses and pass-through records into the batch itself
 * (pmusim_trace_reader_next_feed()); the same batch, in the same order. */
static void afeed_fill_feed(pmusim_afeed_t *f, pmusim_afeed_batch_t *b)
{
    batch_reset(b);
    /* room for AFEED_READ records (reader_feed.h) and the waiting instruction */
    b->insns = afeed_reserve(b->insns, AFEED_READ + 1, &b->cap_insns, sizeof *b->insns);
    b->acc = afeed_reserve(b->acc, AFEED_READ + 1 + PMUSIM_UARCH_MAX_ACCESSES, &b->cap_acc,
                           sizeof *b->acc);
    b->pass = afeed_reserve(b->pass, AFEED_READ, &b->cap_pass, sizeof *b->pass);
    pmusim_trace_feed_t *fd = &f->feed;
    fd->insns = b->insns;
    fd->acc = b->acc;
    fd->pass = b->pass;
    fd->ninsns = fd->nacc = fd->npass = 0;
    fd->open = f->pending;
    if (f->pending) {
        b->insns[0] = f->in;
        b->insns[0].access = b->acc;
        fd->nacc = f->in.naccess & PMUSIM_UARCH_ACC_COUNT;
        memcpy(b->acc, f->acc, fd->nacc * sizeof *f->acc);
        fd->ninsns = 1;
    }
    GError *e = NULL;
    gssize n = pmusim_trace_reader_next_feed(f->r, fd, AFEED_READ, &e);
    if (n < 0) { /* no instructions, no symbols */
        b->err = e;
        b->end = TRUE;
        return;
    }
    take_symbols(f, b);
    b->ninsns = fd->ninsns;
    b->nacc = fd->nacc;
    b->npass = fd->npass;
    if (n == 0) {
        f->pending = FALSE;
        b->end = TRUE;
        return;
    }
    f->pending = fd->open;
    if (f->pending) { /* not complete yet: aside until the next call */
        const pmusim_uarch_insn_t *open = &b->insns[b->ninsns - 1];
        const uint32_t na = open->naccess & PMUSIM_UARCH_ACC_COUNT;
        f->in = *open;
        memcpy(f->acc, open->access, na * sizeof *f->acc);
        b->ninsns--;
        b->nacc -= na;
    }
}

static gpointer afeed_main(gpointer data)
{
    pmusim_afeed_t *f = data;
    g_mutex_lock(&f->lock);
    for (;;) {
        while (f->count == AFEED_SLOTS && !f->stop)
            g_cond_wait(&f->cond, &f->lock);
        if (f->stop)
            break;
        pmusim_afeed_batch_t *b = &f->slot[(f->head + f->count) % AFEED_SLOTS];
        g_mutex_unlock(&f->lock);
        /* the slot is free: only this thread touches it until it is counted */
        f->fill(f, b);
        g_mutex_lock(&f->lock);
        f->count++;
        g_cond_broadcast(&f->cond);
        if (b->end)
            break;
    }
    g_mutex_unlock(&f->lock);
    return NULL;
}

pmusim_afeed_t *pmusim_afeed_new(pmusim_trace_reader_t *r, gboolean pass_events,
                                 gboolean pass_threads, const pmusim_uarch_t *model)
{
    pmusim_afeed_t *f = g_new0(pmusim_afeed_t, 1);
    f->r = r;
    f->pass_events = pass_events;
    f->pass_threads = pass_threads;
    if (pmusim_trace_reader_is_binary(r)) {
        f->fill = afeed_fill_feed;
        f->feed.pass_events = pass_events;
        f->feed.pass_threads = pass_threads;
        /* Record templates (reader_feed.h).  A template replaced while
         * filling batch N may still be pointed at by batch N and the ones
         * before it that the model has not finished.  The thread fills
         * batch N + AFEED_SLOTS only once fewer than AFEED_SLOTS slots are
         * full, i.e. after the model gave back batch N (afeed_main()), so
         * a lag of AFEED_SLOTS calls is safe; without the thread, one
         * batch at a time, 1 would do.  The instruction kept aside for the
         * next batch (f->in) points at its entry's template of the moment:
         * no later instruction of its call replaced it. */
        f->feed.model = model;
        f->feed.tmpl_lag = AFEED_SLOTS;
    } else {
        f->fill = afeed_fill;
        f->recs = g_new(pmusim_rec_t, AFEED_READ);
    }
    const char *env = g_getenv("PMUSIM_READER_THREAD");
    if ((env && !strcmp(env, "0")) || g_get_num_processors() < 2)
        return f;
    g_mutex_init(&f->lock);
    g_cond_init(&f->cond);
    f->thread = g_thread_try_new("pmusim-reader", afeed_main, f, NULL);
    if (!f->thread) {
        g_mutex_clear(&f->lock);
        g_cond_clear(&f->cond);
    }
    return f;
}

pmusim_afeed_batch_t *pmusim_afeed_next(pmusim_afeed_t *f)
{
    if (!f->thread) {
        f->fill(f, &f->slot[0]);
        return &f->slot[0];
    }
    g_mutex_lock(&f->lock);
    if (f->taken) { /* the caller is done with the previous one */
        f->head = (f->head + 1) % AFEED_SLOTS;
        f->count--;
        f->taken = FALSE;
        g_cond_broadcast(&f->cond);
    }
    while (!f->count)
        g_cond_wait(&f->cond, &f->lock);
    pmusim_afeed_batch_t *b = &f->slot[f->head];
    f->taken = TRUE;
    g_mutex_unlock(&f->lock);
    return b;
}

void pmusim_afeed_free(pmusim_afeed_t *f)
{
    if (!f)
        return;
    if (f->thread) {
        g_mutex_lock(&f->lock);
        f->stop = TRUE;
        g_cond_broadcast(&f->cond);
        g_mutex_unlock(&f->lock);
        g_thread_join(f->thread);
        g_mutex_clear(&f->lock);
        g_cond_clear(&f->cond);
    }
    for (unsigned i = 0; i < AFEED_SLOTS; i++)
        batch_free(&f->slot[i]);
    pmusim_trace_feed_clear(&f->feed);
    g_free(f->recs);
    g_free(f);
}
