/* The writer thread of sim/cli/wqueue.h: a ring of WQ_SLOTS batches, each
 * the records of one write() call; the main thread fills a free slot, the
 * writer thread writes the oldest full one. */
#include "wqueue.h"

#include <string.h>

#define WQ_SLOTS 16u

typedef struct wq_slot {
    pmusim_rec_t *recs;
    size_t n, cap;
} wq_slot_t;

struct pmusim_wqueue {
    pmusim_trace_writer_t *w;
    GThread *thread;           /* NULL: direct writes */
    GMutex lock;
    GCond cond;                /* a slot was filled or emptied, or stop */
    wq_slot_t slot[WQ_SLOTS];
    unsigned head, count;      /* oldest full slot, full slots */
    gboolean busy;             /* the thread is writing slot[head] */
    gboolean stop;
    wq_slot_t direct;          /* without a thread: pmusim_wqueue_buffer()'s buffer */
    GError *err;               /* the writer's failure */
    gboolean err_told;
};

static gpointer wq_main(gpointer data)
{
    pmusim_wqueue_t *q = data;
    g_mutex_lock(&q->lock);
    for (;;) {
        while (!q->count && !q->stop)
            g_cond_wait(&q->cond, &q->lock);
        if (!q->count)
            break;
        wq_slot_t *s = &q->slot[q->head];
        gboolean write = !q->err;
        q->busy = TRUE;
        g_mutex_unlock(&q->lock);
        GError *e = NULL;
        gboolean ok = !write || pmusim_trace_writer_write_trusted(q->w, s->recs, s->n, &e);
        g_mutex_lock(&q->lock);
        if (!ok)
            q->err = e ? e : g_error_new(PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO,
                                         "trace writer failed");
        q->busy = FALSE;
        q->head = (q->head + 1) % WQ_SLOTS;
        q->count--;
        g_cond_broadcast(&q->cond);
    }
    g_mutex_unlock(&q->lock);
    return NULL;
}

pmusim_wqueue_t *pmusim_wqueue_new(pmusim_trace_writer_t *w)
{
    pmusim_wqueue_t *q = g_new0(pmusim_wqueue_t, 1);
    q->w = w;
    const char *env = g_getenv("PMUSIM_WRITER_THREAD");
    if ((env && !strcmp(env, "0")) || g_get_num_processors() < 2)
        return q;
    g_mutex_init(&q->lock);
    g_cond_init(&q->cond);
    q->thread = g_thread_try_new("pmusim-writer", wq_main, q, NULL);
    if (!q->thread) {
        g_mutex_clear(&q->lock);
        g_cond_clear(&q->cond);
    }
    return q;
}

/* The writer's error for the caller: the error itself the first time. */
static gboolean wq_failed(pmusim_wqueue_t *q, GError **error)
{
    if (!q->err_told) {
        q->err_told = TRUE;
        g_propagate_error(error, g_error_copy(q->err));
    } else {
        g_set_error(error, PMUSIM_TRACE_ERROR, PMUSIM_TRACE_ERROR_IO, "%s",
                    q->err->message);
    }
    return FALSE;
}

/* Room for n records in s. */
static void slot_reserve(wq_slot_t *s, size_t n)
{
    if (s->cap < n) {
        g_free(s->recs);
        s->cap = MAX(n, 1024u);
        s->recs = g_new(pmusim_rec_t, s->cap);
    }
}

pmusim_rec_t *pmusim_wqueue_buffer(pmusim_wqueue_t *q, size_t n)
{
    if (!q->thread) {
        slot_reserve(&q->direct, n);
        return q->direct.recs;
    }
    g_mutex_lock(&q->lock);
    while (q->count == WQ_SLOTS)
        g_cond_wait(&q->cond, &q->lock);
    wq_slot_t *s = &q->slot[(q->head + q->count) % WQ_SLOTS];
    g_mutex_unlock(&q->lock);
    slot_reserve(s, n); /* free: the writer thread does not look at it */
    return s->recs;
}

gboolean pmusim_wqueue_write(pmusim_wqueue_t *q, const pmusim_rec_t *recs, size_t n,
                             GError **error)
{
    if (!q->thread)
        return pmusim_trace_writer_write_trusted(q->w, recs, n, error);
    g_mutex_lock(&q->lock);
    while (q->count == WQ_SLOTS && !q->err)
        g_cond_wait(&q->cond, &q->lock);
    if (q->err) {
        gboolean r = wq_failed(q, error);
        g_mutex_unlock(&q->lock);
        return r;
    }
    wq_slot_t *s = &q->slot[(q->head + q->count) % WQ_SLOTS];
    g_mutex_unlock(&q->lock);
    /* the slot is free: only this thread touches it until it is counted */
    if (recs != s->recs) { /* else filled in place (pmusim_wqueue_buffer) */
        slot_reserve(s, n);
        memcpy(s->recs, recs, n * sizeof *recs);
    }
    s->n = n;
    g_mutex_lock(&q->lock);
    q->count++;
    g_cond_broadcast(&q->cond);
    g_mutex_unlock(&q->lock);
    return TRUE;
}

gboolean pmusim_wqueue_sync(pmusim_wqueue_t *q, GError **error)
{
    if (!q->thread)
        return TRUE;
    g_mutex_lock(&q->lock);
    while (q->count)
        g_cond_wait(&q->cond, &q->lock);
    gboolean ok = !q->err || wq_failed(q, error);
    g_mutex_unlock(&q->lock);
    return ok;
}

void pmusim_wqueue_free(pmusim_wqueue_t *q)
{
    if (!q)
        return;
    if (q->thread) {
        g_mutex_lock(&q->lock);
        q->stop = TRUE;
        g_cond_broadcast(&q->cond);
        g_mutex_unlock(&q->lock);
        g_thread_join(q->thread);
        g_mutex_clear(&q->lock);
        g_cond_clear(&q->cond);
    }
    for (unsigned i = 0; i < WQ_SLOTS; i++)
        g_free(q->slot[i].recs);
    g_free(q->direct.recs);
    if (q->err)
        g_error_free(q->err);
    g_free(q);
}
