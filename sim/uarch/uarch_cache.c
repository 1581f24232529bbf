/* Set-associative LRU structures (caches and TLBs) and branch predictors.
 *
 * A cache is cachegrind's shape (cg_sim.c): one flat array of tags, a set's
 * ways in LRU order with the most recently used first, so a hit on the MRU
 * way costs one compare and any access at most `assoc` moves.  Blocks are
 * addresses shifted by the block size (a cache line, or a 4 KiB page for a
 * TLB); bit 0 of a stored tag is the dirty bit. */
#include "uarch_priv.h"

#include <string.h>

gboolean uarch_cache_init(uarch_cache_t *c, const pmusim_uarch_geom_t *g)
{
    memset(c, 0, sizeof *c);
    if (!g->size || !g->assoc || !g->line || (g->line & (g->line - 1)) ||
        g->size % ((uint64_t)g->assoc * g->line))
        return FALSE;
    uint64_t sets = g->size / ((uint64_t)g->assoc * g->line);
    if (!sets || sets > (UINT64_C(1) << 30))
        return FALSE;
    c->assoc = g->assoc;
    c->sets = (uint32_t)sets;
    c->line_bits = (uint32_t)__builtin_ctz(g->line);
    c->pow2 = !(sets & (sets - 1));
    c->set_mask = sets - 1;
    /* a 64 GiB cache of 64-byte lines has 8 GiB of tags: a clean refusal
     * where memory is short, not an abort */
    c->tags = g_try_new(uint64_t, sets * g->assoc);
    if (!c->tags)
        return FALSE;
    for (uint64_t i = 0; i < sets * g->assoc; i++)
        c->tags[i] = UARCH_TAG_EMPTY;
    return TRUE;
}

void uarch_cache_free(uarch_cache_t *c)
{
    g_free(c->tags);
    c->tags = NULL;
}

static inline uint64_t *cache_set(const uarch_cache_t *c, uint64_t blk)
{
    /* Sets that are not a power of two (Westmere-EP's 12 MB L3) use a modulo
     * index: the real slice hash is undisclosed (uarch.md §1.1, E). */
    uint64_t s = c->pow2 ? (blk & c->set_mask) : (blk % c->sets);
    return &c->tags[s * c->assoc];
}

void uarch_cache_access(uarch_cache_t *c, uint64_t blk, gboolean dirty, uarch_fill_t *f)
{
    uint64_t *set = cache_set(c, blk);
    const uint64_t key = blk << 1;
    f->evicted = f->evicted_dirty = FALSE;
    if ((set[0] | 1) == (key | 1)) { /* MRU hit: the common case */
        set[0] |= (uint64_t)dirty;
        f->hit = TRUE;
        return;
    }
    /* one pass over ways 1 ..: each moves down one place until the block
     * is found (it becomes MRU) or the last way falls out (a miss) */
    uint64_t moving = set[0];
    for (uint32_t w = 1; w < c->assoc; w++) {
        const uint64_t cur = set[w];
        set[w] = moving;
        if ((cur | 1) == (key | 1) && cur != UARCH_TAG_EMPTY) {
            set[0] = cur | (uint64_t)dirty;
            f->hit = TRUE;
            return;
        }
        moving = cur;
    }
    f->hit = FALSE;
    if (moving != UARCH_TAG_EMPTY) { /* the LRU way's block */
        f->evicted = TRUE;
        f->evicted_dirty = moving & 1;
        f->victim = moving >> 1;
    }
    set[0] = key | (uint64_t)dirty;
}

uarch_probe_t uarch_cache_probe(uarch_cache_t *c, uint64_t blk, gboolean dirty)
{
    uint64_t *set = cache_set(c, blk);
    const uint64_t key = blk << 1;
    for (uint32_t w = 0; w < c->assoc; w++)
        if (set[w] != UARCH_TAG_EMPTY && (set[w] | 1) == (key | 1)) {
            const uarch_probe_t was = (set[w] & 1) ? UARCH_PROBE_DIRTY : UARCH_PROBE_CLEAN;
            uint64_t moving = set[w] | (uint64_t)dirty;
            memmove(&set[1], &set[0], w * sizeof *set);
            set[0] = moving;
            return was;
        }
    return UARCH_PROBE_MISS;
}

gboolean uarch_cache_invalidate(uarch_cache_t *c, uint64_t blk, gboolean *was_present)
{
    uint64_t *set = cache_set(c, blk);
    const uint64_t key = blk << 1;
    for (uint32_t w = 0; w < c->assoc; w++)
        if (set[w] != UARCH_TAG_EMPTY && (set[w] | 1) == (key | 1)) {
            gboolean d = set[w] & 1;
            memmove(&set[w], &set[w + 1], (c->assoc - 1 - w) * sizeof *set);
            set[c->assoc - 1] = UARCH_TAG_EMPTY;
            if (was_present)
                *was_present = TRUE;
            return d;
        }
    if (was_present)
        *was_present = FALSE;
    return FALSE;
}

/* ---- branch prediction ---- */

gboolean uarch_bpred_init(uarch_bpred_t *b, const uarch_cpu_cfg_t *cfg)
{
    memset(b, 0, sizeof *b);
    uint32_t n = 1u << cfg->bp_log2_entries;
    b->ctr = g_malloc(n);
    memset(b->ctr, 1, n); /* weakly not taken */
    b->ctr_mask = n - 1;
    b->hist_mask = (1u << cfg->bp_hist_bits) - 1;
    b->btb_assoc = cfg->btb_assoc;
    b->btb_sets = cfg->btb_entries / cfg->btb_assoc;
    /* the set index is a mask (uarch_btb_set()) */
    g_assert(b->btb_sets && !(b->btb_sets & (b->btb_sets - 1)));
    b->btb_set_mask = b->btb_sets - 1;
    b->btb = g_new(uarch_btb_entry_t, cfg->btb_entries);
    for (uint32_t i = 0; i < cfg->btb_entries; i++)
        b->btb[i] = (uarch_btb_entry_t){ UINT64_MAX, 0 };
    return TRUE;
}

void uarch_bpred_free(uarch_bpred_t *b)
{
    g_free(b->ctr);
    g_free(b->btb);
}

/* Ways 1 .. assoc - 1 of `set` (way 0 is not ip: uarch_btb_lookup_update()). */
gboolean uarch_btb_lookup_update_slow(uarch_bpred_t *b, uarch_btb_entry_t *set, uint64_t ip,
                                      uint64_t target, uint64_t *predicted)
{
    uint32_t w;
    gboolean hit = FALSE;
    for (w = 1; w < b->btb_assoc; w++)
        if (set[w].ip == ip) {
            hit = TRUE;
            *predicted = set[w].target;
            break;
        }
    if (!hit)
        w = b->btb_assoc - 1;
    for (; w > 0; w--) /* a short loop: memmove is a call, also for w = 0 */
        set[w] = set[w - 1];
    set[0] = (uarch_btb_entry_t){ ip, target };
    return hit;
}
