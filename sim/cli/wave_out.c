/* pmusim wave's writers: text table, VCD + GTKWave save file, SVG diagram.
 * See wave_out.h.  Formats: docs/WAVE.md. */
#include "wave_out.h"
#include "pmusim/outfile.h"

#include <inttypes.h>
#include <string.h>

/* Signals a counter has in the VCD, in this order. */
enum { VCD_VALUE, VCD_OCC, VCD_INC, VCD_COND, VCD_EDGE, VCD_OVF, VCD_FRZ, VCD_IRQ, VCD_PER_SIG };
static const char *const vcd_names[VCD_PER_SIG] = {
    NULL, "occurrences", "increment", "condition", "edge", "overflow", "freeze", "interrupt",
};

/* One kept row (SVG). */
typedef struct wave_row {
    uint64_t cycle, retired;
} wave_row_t;

/* An output file: pmusim/outfile.h writes it whole or not at all. */
typedef struct wave_file {
    pmusim_outfile_t *o;
    FILE *fp;
} wave_file_t;

struct wave_out {
    wave_out_opts_t o;
    const GArray *sigs;
    wave_file_t vcd, gtkw, svg;
    pmusim_counter_probe_t *prev; /* previous row (text '*', VCD changes) */
    uint64_t prev_retired;
    gboolean have_prev;
    GArray *rows;                 /* SVG: of wave_row_t */
    GArray *probes;               /* SVG: rows x sigs probes */
    GArray *marks;                /* cycles with an overflow or interrupt (GTKWave markers) */
};

static gboolean wave_file_open(wave_file_t *f, const char *path, const char *const *inputs,
                               GError **error)
{
    f->o = pmusim_outfile_open(path, inputs, error);
    f->fp = f->o ? pmusim_outfile_fp(f->o) : NULL;
    return f->o != NULL;
}

static gboolean wave_file_commit(wave_file_t *f, GError **error)
{
    if (!f->o)
        return TRUE;
    pmusim_outfile_t *o = f->o;
    f->o = NULL;
    f->fp = NULL;
    return pmusim_outfile_commit(o, error);
}

static void wave_file_abort(wave_file_t *f)
{
    pmusim_outfile_abort(f->o);
    f->o = NULL;
    f->fp = NULL;
}

static const wave_sig_t *sig_at(const wave_out_t *w, guint i)
{
    return &g_array_index(w->sigs, wave_sig_t, i);
}

/* ---- text ---- */

static void text_header(wave_out_t *w)
{
    FILE *fp = w->o.text;
    fprintf(fp, "%s on %s: counters at the end of each cycle\n", w->o.trace, w->o.pmu);
    fprintf(fp, "per counter: value ('*' when it changed), +N occurrences of the event in the\n"
                "cycle, then C when the threshold/inv condition held and E when the edge\n"
                "detector fired (counters with a threshold, inv or edge), O overflow,\n"
                "F frozen, I interrupt\n\n");
    for (guint i = 0; i < w->sigs->len; i++) {
        const wave_sig_t *s = sig_at(w, i);
        fprintf(fp, "  c%-2u %s", i, s->reg);
        if (w->o.threads)
            fprintf(fp, " thread %u", s->thread);
        fprintf(fp, "  %s\n", s->label);
    }
    fprintf(fp, "\n%10s %7s", "cycle", "retired");
    for (guint i = 0; i < w->sigs->len; i++) {
        char h[8];
        g_snprintf(h, sizeof h, "c%u", i);
        fprintf(fp, " | %15s %5s %s", h, "occ", i + 1 == w->sigs->len ? "flags" : "flags");
    }
    fputc('\n', fp);
}

static void text_row(wave_out_t *w, uint64_t cycle, uint64_t retired,
                     const pmusim_counter_probe_t *p)
{
    FILE *fp = w->o.text;
    fprintf(fp, "%10" PRIu64 " %7" PRIu64, cycle, retired);
    for (guint i = 0; i < w->sigs->len; i++) {
        gboolean changed = w->have_prev && p[i].value != w->prev[i].value;
        char occ[24], flags[8];
        g_snprintf(occ, sizeof occ, "+%" PRIu64, p[i].raw);
        int k = 0;
        if (p[i].conditioned && p[i].cond)
            flags[k++] = 'C';
        if (p[i].conditioned && p[i].edge)
            flags[k++] = 'E';
        if (p[i].overflow)
            flags[k++] = 'O';
        if (p[i].frozen)
            flags[k++] = 'F';
        if (p[i].interrupt)
            flags[k++] = 'I';
        flags[k] = '\0';
        gboolean last = i + 1 == w->sigs->len;
        fprintf(fp, " | %15" PRIu64 "%c%5s %-*s", p[i].value, changed ? '*' : ' ', occ,
                last ? 0 : 5, flags);
    }
    fputc('\n', fp);
}

/* ---- VCD ---- */

static void vcd_id(unsigned i, char out[8])
{
    int k = 0; /* identifiers from the printable range '!'..'~' */
    do {
        out[k++] = (char)('!' + i % 94);
        i /= 94;
    } while (i && k < 6);
    out[k] = '\0';
}

/* A VCD reference: printable, no white space, no '.' (GTKWave's hierarchy
 * separator) and no '[' (bit ranges). */
static void vcd_ref(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len; s++) {
        char c = *s;
        out[k++] = (c > ' ' && c < 127 && c != '.' && c != '[' && c != ']') ? c : '_';
    }
    out[k] = '\0';
}

static const char *vcd_value_name(const wave_sig_t *s, char *buf, size_t len)
{
    vcd_ref(s->label, buf, len);
    return buf;
}

static void vcd_header(wave_out_t *w)
{
    FILE *fp = w->vcd.fp;
    fprintf(fp, "$version pmusim wave $end\n");
    fprintf(fp, "$comment %s on %s. One time unit is one core cycle: the $timescale below is "
                "nominal, since a VCD must name a unit. Each value is the one at the end of "
                "its cycle. $end\n", w->o.trace, w->o.pmu);
    fprintf(fp, "$timescale 1ns $end\n$scope module pmu $end\n");
    char id[8], name[PMUSIM_REG_LABEL_MAX + 8];
    uint32_t cur_thread = UINT32_MAX;
    for (guint i = 0; i < w->sigs->len; i++) {
        const wave_sig_t *s = sig_at(w, i);
        if (s->thread != cur_thread) {
            if (cur_thread != UINT32_MAX)
                fprintf(fp, "$upscope $end\n");
            fprintf(fp, "$scope module thread%u $end\n", s->thread);
            cur_thread = s->thread;
        }
        fprintf(fp, "$scope module %s $end\n", s->reg);
        for (unsigned k = 0; k < VCD_PER_SIG; k++) {
            vcd_id(i * VCD_PER_SIG + k, id);
            gboolean bit = k >= VCD_COND;
            fprintf(fp, "$var %s %d %s %s $end\n", bit ? "wire" : "integer", bit ? 1 : 64, id,
                    k == VCD_VALUE ? vcd_value_name(s, name, sizeof name) : vcd_names[k]);
        }
        fprintf(fp, "$upscope $end\n");
    }
    if (cur_thread != UINT32_MAX)
        fprintf(fp, "$upscope $end\n");
    vcd_id(w->sigs->len * VCD_PER_SIG, id);
    fprintf(fp, "$var integer 32 %s retired $end\n", id);
    fprintf(fp, "$upscope $end\n$enddefinitions $end\n");
}

static void vcd_bits(FILE *fp, uint64_t v, const char *id)
{
    fputc('b', fp);
    int top = 63;
    while (top > 0 && !(v >> top & 1))
        top--;
    for (int b = top; b >= 0; b--)
        fputc((v >> b & 1) ? '1' : '0', fp);
    fprintf(fp, " %s\n", id);
}

static uint64_t probe_field(const pmusim_counter_probe_t *p, unsigned k)
{
    switch (k) {
    case VCD_VALUE: return p->value;
    case VCD_OCC: return p->raw;
    case VCD_INC: return p->increment;
    case VCD_COND: return p->conditioned ? p->cond : 0;
    case VCD_EDGE: return p->conditioned ? p->edge : 0;
    case VCD_OVF: return p->overflow;
    case VCD_FRZ: return p->frozen;
    default: return p->interrupt;
    }
}

static void vcd_row(wave_out_t *w, uint64_t cycle, uint64_t retired,
                    const pmusim_counter_probe_t *p)
{
    FILE *fp = w->vcd.fp;
    char id[8];
    fprintf(fp, "#%" PRIu64 "\n", cycle);
    if (!w->have_prev)
        fprintf(fp, "$dumpvars\n");
    for (guint i = 0; i < w->sigs->len; i++) {
        for (unsigned k = 0; k < VCD_PER_SIG; k++) {
            uint64_t v = probe_field(&p[i], k);
            if (w->have_prev && v == probe_field(&w->prev[i], k))
                continue;
            vcd_id(i * VCD_PER_SIG + k, id);
            if (k >= VCD_COND)
                fprintf(fp, "%c%s\n", v ? '1' : '0', id);
            else
                vcd_bits(fp, v, id);
        }
    }
    if (!w->have_prev || retired != w->prev_retired) {
        vcd_id(w->sigs->len * VCD_PER_SIG, id);
        vcd_bits(fp, retired, id);
    }
    if (!w->have_prev)
        fprintf(fp, "$end\n");
}

/* ---- GTKWave save file ---- */

static void gtkw_write(wave_out_t *w, uint64_t end)
{
    FILE *fp = w->gtkw.fp;
    /* GTKWave 3.3 draws about 50 * 2^((z + 2) / 3) pixels per time unit at
     * zoom z (measured on its window: z = -2 gives 50, z = 4 gives 200); pick
     * the largest z that fits the window into ~760 pixels of the wave pane */
    double span = (double)MAX(end - w->o.from, 1u), px = 50.0;
    int zoom = -2;
    const double step = 1.2599210498948732; /* 2^(1/3) */
    while (zoom < 30 && px * step * span <= 760.0) {
        px *= step;
        zoom++;
    }
    while (zoom > -90 && px * span > 760.0) {
        px /= step;
        zoom--;
    }
    fprintf(fp, "[*] pmusim wave: open with  gtkwave %s %s\n", w->o.vcd_path, w->o.gtkw_path);
    fprintf(fp, "[dumpfile] \"%s\"\n", w->o.vcd_path);
    fprintf(fp, "[timestart] %" PRIu64 "\n", w->o.from);
    fprintf(fp, "[size] 1400 800\n[pos] -1 -1\n");
    /* the primary marker and the named markers A..Z at the first overflows
     * and interrupts */
    fprintf(fp, "*%d.000000 %" G_GINT64_FORMAT, zoom,
            w->marks->len ? (gint64)g_array_index(w->marks, uint64_t, 0) : (gint64)-1);
    for (guint k = 0; k < 26; k++)
        fprintf(fp, " %" G_GINT64_FORMAT,
                k < w->marks->len ? (gint64)g_array_index(w->marks, uint64_t, k) : (gint64)-1);
    fputc('\n', fp);
    fprintf(fp, "[treeopen] pmu.\n");
    uint32_t cur_thread = UINT32_MAX;
    for (guint i = 0; i < w->sigs->len; i++)
        if (sig_at(w, i)->thread != cur_thread) {
            cur_thread = sig_at(w, i)->thread;
            fprintf(fp, "[treeopen] pmu.thread%u.\n", cur_thread);
        }
    fprintf(fp, "[sst_width] 240\n[signals_width] 320\n[sst_expanded] 1\n");
    /* @24: decimal, right-justified; @28: binary (one-bit lanes) */
    /* integer variables are named without a bit range */
    fprintf(fp, "@24\npmu.retired\n");
    char name[PMUSIM_REG_LABEL_MAX + 8];
    for (guint i = 0; i < w->sigs->len; i++) {
        const wave_sig_t *s = sig_at(w, i);
        char *scope = g_strdup_printf("pmu.thread%u.%s", s->thread, s->reg);
        fprintf(fp, "@800200\n-%s %s\n", s->reg, s->label);
        fprintf(fp, "@24\n%s.%s\n", scope, vcd_value_name(s, name, sizeof name));
        fprintf(fp, "%s.occurrences\n%s.increment\n", scope, scope);
        fprintf(fp, "@28\n");
        for (unsigned k = VCD_COND; k < VCD_PER_SIG; k++)
            fprintf(fp, "%s.%s\n", scope, vcd_names[k]);
        fprintf(fp, "@1000200\n-%s %s\n", s->reg, s->label);
        g_free(scope);
    }
}

/* ---- SVG ---- */

#define SVG_LABEL_W 300
#define SVG_BUS_H 26
#define SVG_BIT_H 16
#define SVG_GAP 6
#define SVG_TOP 56

static void svg_escape(FILE *fp, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '&': fputs("&amp;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default:
            if ((unsigned char)*s >= ' ')
                fputc(*s, fp);
        }
    }
}

static void svg_label(FILE *fp, double y, const char *text, const char *cls)
{
    fprintf(fp, "<text x=\"8\" y=\"%.1f\" class=\"%s\">", y, cls);
    svg_escape(fp, text);
    fputs("</text>\n", fp);
}

typedef uint64_t (*svg_get_fn)(const wave_out_t *w, guint row, guint sig);

static uint64_t svg_get_value(const wave_out_t *w, guint r, guint s)
{
    return g_array_index(w->probes, pmusim_counter_probe_t, r * w->sigs->len + s).value;
}
static uint64_t svg_get_occ(const wave_out_t *w, guint r, guint s)
{
    return g_array_index(w->probes, pmusim_counter_probe_t, r * w->sigs->len + s).raw;
}
static uint64_t svg_get_retired(const wave_out_t *w, guint r, guint s)
{
    (void)s;
    return g_array_index(w->rows, wave_row_t, r).retired;
}

/* A value as a person reads it: counters preset near their wrap (sampling
 * periods, overflow set-ups) as "2^47-3" rather than 15 digits. */
static int svg_value_text(uint64_t v, char *buf, size_t len)
{
    if (v >= (1ull << 32)) {
        int k = 64 - __builtin_clzll(v); /* 2^(k-1) <= v < 2^k */
        uint64_t d = k < 64 ? (1ull << k) - v : 0;
        if (k < 64 && d < (1ull << 20))
            return g_snprintf(buf, len, "2^%d-%" PRIu64, k, d);
    }
    return g_snprintf(buf, len, "%" PRIu64, v);
}

/* A bus lane: a box per run of equal values, the value written in it when
 * it fits. */
static void svg_bus(const wave_out_t *w, FILE *fp, double y, double cw, guint sig, svg_get_fn get)
{
    guint n = w->rows->len;
    guint start = 0;
    for (guint r = 1; r <= n; r++) {
        if (r < n && get(w, r, sig) == get(w, start, sig))
            continue;
        double x0 = SVG_LABEL_W + start * cw, x1 = SVG_LABEL_W + r * cw;
        double e = MIN(3.0, (x1 - x0) / 4);
        uint64_t v = get(w, start, sig);
        fprintf(fp, "<polygon class=\"%s\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f "
                    "%.1f,%.1f %.1f,%.1f\"/>\n", v ? "bus" : "busz",
                x0, y + SVG_BUS_H / 2.0, x0 + e, y + 3, x1 - e, y + 3, x1, y + SVG_BUS_H / 2.0,
                x1 - e, y + SVG_BUS_H - 3, x0 + e, y + SVG_BUS_H - 3);
        char txt[40];
        int len = svg_value_text(v, txt, sizeof txt);
        if (len * 7.0 + 4 <= x1 - x0)
            fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"val\">%s</text>\n", (x0 + x1) / 2,
                    y + SVG_BUS_H / 2.0 + 4, txt);
        start = r;
    }
}

/* A one-bit lane as a square wave. */
static void svg_bit(const wave_out_t *w, FILE *fp, double y, double cw, guint sig, unsigned k,
                    const char *cls)
{
    fprintf(fp, "<polyline class=\"%s\" points=\"", cls);
    double lo = y + SVG_BIT_H - 2, hi = y + 2;
    for (guint r = 0; r < w->rows->len; r++) {
        const pmusim_counter_probe_t *p =
            &g_array_index(w->probes, pmusim_counter_probe_t, r * w->sigs->len + sig);
        double yy = probe_field(p, k) ? hi : lo;
        fprintf(fp, "%.1f,%.1f %.1f,%.1f ", SVG_LABEL_W + r * cw, yy, SVG_LABEL_W + (r + 1) * cw,
                yy);
    }
    fputs("\"/>\n", fp);
}

static void svg_write(wave_out_t *w, gboolean ended, uint64_t last_cycle)
{
    FILE *fp = w->svg.fp;
    guint n = w->rows->len;
    double cw = n ? MIN(28.0, MAX(4.0, 1000.0 / n)) : 28.0;
    /* lanes: retired, then per counter value, occurrences and the bit lanes */
    double h = SVG_TOP + SVG_BUS_H + SVG_GAP;
    for (guint i = 0; i < w->sigs->len; i++) {
        gboolean cond = FALSE;
        for (guint r = 0; r < n; r++)
            cond |= g_array_index(w->probes, pmusim_counter_probe_t, r * w->sigs->len + i)
                        .conditioned;
        h += 2 * (SVG_BUS_H + SVG_GAP) + (cond ? 5 : 3) * (SVG_BIT_H + 2) + 2 * SVG_GAP;
    }
    h += 30;
    double width = SVG_LABEL_W + MAX(n, 1u) * cw + 20;
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"12\">\n",
            width, h, width, h);
    fputs("<style>\n"
          ".bus{fill:#e8f0fe;stroke:#1a56b0;stroke-width:1}\n"
          ".busz{fill:#f4f4f4;stroke:#999}\n"
          ".val{text-anchor:middle;fill:#0b2a5b}\n"
          ".lbl{fill:#222}\n.sub{fill:#555}\n.title{font-size:14px;font-weight:bold}\n"
          ".grid{stroke:#ddd;stroke-width:1}\n.tick{fill:#666;text-anchor:middle}\n"
          ".bit{fill:none;stroke:#2b7a2b;stroke-width:1.5}\n"
          ".ovf{fill:none;stroke:#c0392b;stroke-width:1.5}\n"
          ".frz{fill:none;stroke:#1f6fb2;stroke-width:1.5}\n"
          ".irq{fill:none;stroke:#8e44ad;stroke-width:1.5}\n"
          ".mark{stroke:#c0392b;stroke-width:1;stroke-dasharray:4,3}\n"
          ".note{fill:#a00}\n"
          "</style>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", fp);
    fprintf(fp, "<text x=\"8\" y=\"20\" class=\"title\">");
    svg_escape(fp, w->o.trace);
    fprintf(fp, " on %s, cycles %" PRIu64 "..%" PRIu64 " (values at the end of each cycle)</text>\n",
            w->o.pmu, w->o.from, n ? g_array_index(w->rows, wave_row_t, n - 1).cycle : w->o.from);
    /* cycle grid and ticks */
    guint step = 1;
    while (step * cw < 36)
        step = step < 5 ? step + 1 : (step < 10 ? 10 : step * 2);
    for (guint r = 0; r <= n; r += step) {
        double x = SVG_LABEL_W + r * cw;
        fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\"/>\n", x,
                SVG_TOP - 10, x, h - 24);
        if (r < n)
            fprintf(fp, "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%" PRIu64 "</text>\n",
                    x + cw / 2, SVG_TOP - 14, g_array_index(w->rows, wave_row_t, r).cycle);
    }
    /* markers at overflows and interrupts */
    for (guint r = 0; r < n; r++) {
        gboolean mark = FALSE;
        for (guint i = 0; i < w->sigs->len; i++) {
            const pmusim_counter_probe_t *p =
                &g_array_index(w->probes, pmusim_counter_probe_t, r * w->sigs->len + i);
            mark |= p->overflow || p->interrupt;
        }
        if (mark)
            fprintf(fp, "<line class=\"mark\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\"/>\n",
                    SVG_LABEL_W + (r + 0.5) * cw, SVG_TOP - 6, SVG_LABEL_W + (r + 0.5) * cw,
                    h - 24);
    }
    double y = SVG_TOP;
    svg_label(fp, y + 17, "instructions retired", "lbl");
    svg_bus(w, fp, y, cw, 0, svg_get_retired);
    y += SVG_BUS_H + SVG_GAP;
    static const struct {
        unsigned k;
        const char *name, *cls;
        gboolean cond_only;
    } bits[] = {
        {VCD_COND, "condition (threshold/inv)", "bit", TRUE},
        {VCD_EDGE, "edge detector", "bit", TRUE},
        {VCD_OVF, "overflow", "ovf", FALSE},
        {VCD_FRZ, "frozen", "frz", FALSE},
        {VCD_IRQ, "interrupt", "irq", FALSE},
    };
    for (guint i = 0; i < w->sigs->len; i++) {
        const wave_sig_t *s = sig_at(w, i);
        gboolean cond = FALSE;
        for (guint r = 0; r < n; r++)
            cond |= g_array_index(w->probes, pmusim_counter_probe_t, r * w->sigs->len + i)
                        .conditioned;
        y += SVG_GAP;
        char *head = w->o.threads ? g_strdup_printf("%s t%u %s", s->reg, s->thread, s->label)
                                  : g_strdup_printf("%s %s", s->reg, s->label);
        if (strlen(head) > 40)
            strcpy(head + 37, "...");
        svg_label(fp, y + 17, head, "lbl");
        g_free(head);
        svg_bus(w, fp, y, cw, i, svg_get_value);
        y += SVG_BUS_H + SVG_GAP;
        svg_label(fp, y + 17, "  occurrences in the cycle", "sub");
        svg_bus(w, fp, y, cw, i, svg_get_occ);
        y += SVG_BUS_H + SVG_GAP;
        for (unsigned b = 0; b < G_N_ELEMENTS(bits); b++) {
            if (bits[b].cond_only && !cond)
                continue;
            char *lbl = g_strdup_printf("  %s", bits[b].name);
            svg_label(fp, y + 12, lbl, "sub");
            g_free(lbl);
            svg_bit(w, fp, y, cw, i, bits[b].k, bits[b].cls);
            y += SVG_BIT_H + 2;
        }
        y += SVG_GAP;
    }
    if (ended)
        fprintf(fp, "<text x=\"8\" y=\"%.0f\" class=\"note\">the trace ends at cycle %" PRIu64
                    ": nothing after it is shown</text>\n", h - 8, last_cycle);
    fputs("</svg>\n", fp);
}

/* ---- the writer ---- */

wave_out_t *wave_out_open(const wave_out_opts_t *o, const GArray *sigs, GError **error)
{
    wave_out_t *w = g_new0(wave_out_t, 1);
    w->o = *o;
    w->sigs = sigs;
    w->prev = g_new0(pmusim_counter_probe_t, sigs->len + 1);
    w->marks = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    if ((o->vcd_path && !wave_file_open(&w->vcd, o->vcd_path, o->inputs, error)) ||
        (o->gtkw_path && !wave_file_open(&w->gtkw, o->gtkw_path, o->inputs, error)) ||
        (o->svg_path && !wave_file_open(&w->svg, o->svg_path, o->inputs, error))) {
        wave_out_abort(w);
        return NULL;
    }
    if (o->svg_path) {
        w->rows = g_array_new(FALSE, FALSE, sizeof(wave_row_t));
        w->probes = g_array_new(FALSE, FALSE, sizeof(pmusim_counter_probe_t));
    }
    text_header(w);
    if (w->vcd.fp)
        vcd_header(w);
    return w;
}

void wave_out_row(wave_out_t *w, uint64_t cycle, uint64_t retired,
                  const pmusim_counter_probe_t *probes)
{
    text_row(w, cycle, retired, probes);
    if (w->vcd.fp)
        vcd_row(w, cycle, retired, probes);
    if (w->rows) {
        wave_row_t r = {.cycle = cycle, .retired = retired};
        g_array_append_val(w->rows, r);
        g_array_append_vals(w->probes, probes, w->sigs->len);
    }
    gboolean mark = FALSE;
    for (guint i = 0; i < w->sigs->len; i++)
        mark |= probes[i].overflow || probes[i].interrupt;
    if (mark && w->marks->len < 26)
        g_array_append_val(w->marks, cycle);
    memcpy(w->prev, probes, w->sigs->len * sizeof *probes);
    w->prev_retired = retired;
    w->have_prev = TRUE;
}

gboolean wave_out_close(wave_out_t *w, uint64_t rows, uint64_t last_cycle, gboolean ended,
                        GError **error)
{
    if (ended) {
        if (rows)
            fprintf(w->o.text, "-- the trace ends at cycle %" PRIu64 ": no rows after it\n",
                    last_cycle);
        else
            fprintf(w->o.text, "-- the trace ends before cycle %" PRIu64 ": nothing to show\n",
                    w->o.from);
    }
    uint64_t end = rows ? last_cycle + 1 : w->o.from;
    if (w->vcd.fp)
        fprintf(w->vcd.fp, "#%" PRIu64 "\n", end);
    if (w->gtkw.fp)
        gtkw_write(w, end);
    if (w->svg.fp)
        svg_write(w, ended, last_cycle);
    /* every output is committed or every one is discarded */
    gboolean ok = wave_file_commit(&w->vcd, error);
    ok = ok && wave_file_commit(&w->gtkw, error);
    ok = ok && wave_file_commit(&w->svg, error);
    wave_out_abort(w);
    return ok;
}

void wave_out_abort(wave_out_t *w)
{
    if (!w)
        return;
    wave_file_abort(&w->vcd);
    wave_file_abort(&w->gtkw);
    wave_file_abort(&w->svg);
    g_free(w->prev);
    if (w->rows)
        g_array_free(w->rows, TRUE);
    if (w->probes)
        g_array_free(w->probes, TRUE);
    g_array_free(w->marks, TRUE);
    g_free(w);
}
