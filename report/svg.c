/* report/svg.c — SVG charts (see report/svg.h). */
#include "report/svg.h"

#include "report/agg.h"

#include <math.h>
#include <string.h>

/* the length of the valid UTF-8 sequence at p (2..4), 0 when it is not one */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) || (p[0] == 0xf0 && p[1] < 0x90) ||
        (p[0] == 0xf4 && p[1] > 0x8f))
        return 0;                                   /* overlong, a surrogate, past U+10FFFF */
    return n;
}

void rpt_html_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if (*p < 0x80 && (*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r')) { fputc(*p, f); break; }
            int n = *p >= 0x80 ? utf8_len(p) : 0;
            if (n) { fwrite(p, 1, (size_t)n, f); p += n - 1; }
            else fprintf(f, "\\x%02x", *p);   /* no XML character (ESC, NUL's kin) or no UTF-8: shown, not dropped */
        }
    }
}

/* Okabe & Ito's colour-blind-safe eight (yellow left out: unreadable as a line on white), then
 * Paul Tol's wine, indigo, olive, teal and a mid grey: twelve colours no two alike */
static const char *const palette[RPT_CHART_MAX_SERIES] = { "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
                                                           "#000000", "#882255", "#332288", "#999933", "#44AA99", "#888888" };

#define FONT "font-family=\"system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif\""
enum { W = 960, MR = 24, PLOT_H = 260, FS = 12 };
/* the width of a text at font size fs, over-estimated (a sans-serif's average advance is ~0.55 em;
 * digits and capitals are wider) so that a text measured to fit does fit */
static double text_w(const char *s, double fs)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) n += (*p & 0xC0) != 0x80;   /* UTF-8 characters */
    return 0.62 * fs * (double)n;
}

static const char *ellipsis = "…";

/* s, cut to about max_w pixels at font size fs from the end kept ("…" + tail when tail, head + "…"
 * otherwise) */
static void text_fit(FILE *f, const char *s, double max_w, double fs, int tail)
{
    if (text_w(s, fs) <= max_w) { rpt_html_text(f, s); return; }
    size_t keep = (size_t)(max_w / (0.62 * fs));
    keep = keep > 1 ? keep - 1 : 0;
    size_t n = strlen(s);
    if (keep > n) keep = n;
    char buf[512];
    if (keep >= sizeof buf) keep = sizeof buf - 1;
    if (tail) {
        const char *t = s + n - keep;
        while (t > s && ((unsigned char)*t & 0xC0) == 0x80) t--;   /* not inside a character */
        fputs(ellipsis, f);
        rpt_html_text(f, t);
    } else {
        while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80) keep--;
        memcpy(buf, s, keep);
        buf[keep] = 0;
        rpt_html_text(f, buf);
        fputs(ellipsis, f);
    }
}

/* A "nice" tick step for a range: 1, 2 or 5 times a power of ten, about 5 ticks. */
static double tick_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void y_range(const struct rpt_chart *c, double *lo, double *hi)
{
    *lo = c->y_min;
    *hi = c->y_max;
    if (*hi > *lo) return;
    *lo = 0;
    *hi = 0;
    int n = c->n_series * c->n_groups;
    for (int i = 0; i < n; i++) {
        double v[3] = { c->value[i], c->hi ? c->hi[i] : NAN, c->lo ? c->lo[i] : NAN };
        for (int k = 0; k < 3; k++) {
            if (isnan(v[k])) continue;
            if (v[k] > *hi) *hi = v[k];
            if (v[k] < *lo) *lo = v[k];
        }
    }
    if (c->mark) for (int g = 0; g < c->n_groups; g++) if (!isnan(c->mark[g]) && c->mark[g] > *hi) *hi = c->mark[g];
    if (*hi <= *lo) *hi = *lo + 1;
    double st = tick_step(*hi - *lo);
    *hi = ceil(*hi / st) * st;
    *lo = floor(*lo / st) * st;
}

/* Where everything goes: computed from the labels before anything is drawn. */
struct layout {
    double lo, hi;             /* y range */
    int ml, mt, plot_b;        /* left margin, plot top, plot bottom */
    int slant;                 /* x labels rotated */
    double xlab_w;             /* the longest x label's drawn width */
    int x_title_y, legend_y, h;
    int legend_rows;
};

static int n_legend(const struct rpt_chart *c)
{
    int n = 0;
    if (c->series_labels) for (int s = 0; s < c->n_series; s++) n += c->series_labels[s] != NULL;
    return n + (c->mark && c->mark_label);
}

/* legend entries laid out in rows across the plot's width: the number of rows */
static int legend_layout(const struct rpt_chart *c, int ml, int place, FILE *f, int y0, int lines);

static double ypix(const struct layout *L, double v) { return L->mt + (L->plot_b - L->mt) * (1 - (v - L->lo) / (L->hi - L->lo)); }

enum { SLANT_DEG = 40, XLAB_MAX = 150 };

static void layout(const struct rpt_chart *c, double slot, double first_x_off, struct layout *L)
{
    y_range(c, &L->lo, &L->hi);
    double st = tick_step(L->hi - L->lo), tick_w = 0;
    char b[32];
    for (double t = L->lo; t <= L->hi + st * 1e-9; t += st) {
        snprintf(b, sizeof b, "%g", fabs(t) < st * 1e-9 ? 0.0 : t);
        if (text_w(b, FS) > tick_w) tick_w = text_w(b, FS);
    }
    L->ml = (int)(tick_w + 12 + (c->y_title ? 22 : 0));
    L->mt = c->note ? 58 : 40;
    L->xlab_w = 0;
    for (int g = 0; g < c->n_groups; g++) {
        double w = text_w(c->group_labels[g], FS);
        if (w > L->xlab_w) L->xlab_w = w;
    }
    if (L->xlab_w > XLAB_MAX) L->xlab_w = XLAB_MAX;
    L->slant = L->xlab_w + 6 > slot;
    int xlab_h = 22;
    if (L->slant) {
        double rad = SLANT_DEG * M_PI / 180;
        xlab_h = (int)(L->xlab_w * sin(rad) + FS + 10);
        /* the first label reaches left of its point by w·cos: keep it inside */
        int need = (int)(L->xlab_w * cos(rad) - first_x_off + 6);
        if (need > L->ml) L->ml = need;
    }
    L->plot_b = L->mt + PLOT_H;
    L->x_title_y = L->plot_b + xlab_h + (c->x_title ? 16 : 0);
    L->legend_y = L->x_title_y + (n_legend(c) ? 22 : 0);
    L->legend_rows = n_legend(c) ? legend_layout(c, L->ml, 0, NULL, 0, 0) : 0;
    L->h = L->legend_y + (L->legend_rows ? (L->legend_rows - 1) * 20 + 10 : 0) + 8;
}

/* the <svg> element, w × h, drawn at most at its own size in the page (max-width): text is never
 * magnified past its size, and shrinks with a narrower page */
static void svg_open_w(FILE *f, const char *title, const char *note, int w, int h)
{
    fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" style=\"max-width:%dpx\" role=\"img\" "
               "xmlns=\"http://www.w3.org/2000/svg\" " FONT " font-size=\"%d\" fill=\"#222\">\n<title>", w, h, w, h, w, FS);
    rpt_html_text(f, title);
    fprintf(f, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n<text x=\"%d\" y=\"22\" font-size=\"15\" "
               "font-weight=\"bold\" text-anchor=\"middle\">", w, h, w / 2);
    text_fit(f, title, w - 20, 15, 0);
    fprintf(f, "</text>\n");
    if (note) {
        fprintf(f, "<text x=\"%d\" y=\"40\" text-anchor=\"middle\" fill=\"#555\">", w / 2);
        text_fit(f, note, w - 20, FS, 0);
        fprintf(f, "</text>\n");
    }
}

static void svg_open(FILE *f, const char *title, const char *note, int h) { svg_open_w(f, title, note, W, h); }

/* frame, y ticks with grid lines and labels, axis titles, x labels at centres xc[g] */
static void axes(FILE *f, const struct rpt_chart *c, const struct layout *L, const double *xc)
{
    double st = tick_step(L->hi - L->lo);
    for (double t = L->lo; t <= L->hi + st * 1e-9; t += st) {
        double y = ypix(L, t);
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>", L->ml, W - MR, y, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L->ml - 6, y + 4, fabs(t) < st * 1e-9 ? 0.0 : t);
    }
    fprintf(f, "<path d=\"M%d %dH%dM%d %dV%d\" stroke=\"#333\" fill=\"none\"/>\n", L->ml, L->plot_b, W - MR, L->ml, L->mt, L->plot_b);
    /* past 40 groups every k-th is labelled, and always the last (a histogram's "60-134": where the
     * data ends), the one before it left out when they would touch */
    int every = c->n_groups > 40 ? (c->n_groups + 39) / 40 : 1, last = c->n_groups - 1;
    for (int g = 0; g < c->n_groups; g = g + every > last && g < last ? last : g + every) {
        if (g != last && g + every > last && last - g < every) continue;
        int y = L->plot_b + 16;
        if (L->slant)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-%d %.1f %d)\"><title>", xc[g], y,
                    SLANT_DEG, xc[g], y);
        else fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\"><title>", xc[g], y);
        rpt_html_text(f, c->group_labels[g]);
        fputs("</title>", f);
        text_fit(f, c->group_labels[g], XLAB_MAX, FS, 1);
        fprintf(f, "</text>\n");
    }
    if (c->y_title) {
        int ym = (L->mt + L->plot_b) / 2;
        fprintf(f, "<text x=\"16\" y=\"%d\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">", ym, ym);
        text_fit(f, c->y_title, L->plot_b - L->mt, 13, 0);
        fprintf(f, "</text>\n");
    }
    if (c->x_title) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" text-anchor=\"middle\">", (L->ml + W - MR) / 2, L->x_title_y);
        text_fit(f, c->x_title, W - MR - L->ml, 13, 0);
        fprintf(f, "</text>\n");
    }
}

/* Lays the legend out from x = ml across to W - MR, wrapping; draws it at y0 when place. The number of rows. */
static int legend_layout(const struct rpt_chart *c, int ml, int place, FILE *f, int y0, int lines)
{
    int x = ml, row = 0, max_w = W - MR - ml;
    for (int s = 0; s <= c->n_series; s++) {
        const char *lab;
        if (s < c->n_series) lab = c->series_labels ? c->series_labels[s] : NULL;
        else lab = c->mark ? c->mark_label : NULL;
        if (!lab) continue;
        double tw = text_w(lab, FS);
        if (tw > max_w - 30) tw = max_w - 30;
        int w = 24 + (int)tw + 18;
        if (x > ml && x + w > W - MR) { x = ml; row++; }
        if (place) {
            int y = y0 + row * 20;
            if (s == c->n_series)
                fprintf(f, "<g data-legend=\"mark\"><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#c00\" stroke-width=\"2\" "
                           "stroke-dasharray=\"4 2\"/>", x, x + 18, y - 4, y - 4);
            else if (lines)
                fprintf(f, "<g data-legend=\"%d\"><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"%s/>", s,
                        x, x + 18, y - 4, y - 4, palette[s], c->dashed && c->dashed[s] ? " stroke-dasharray=\"6 3\"" : "");
            else fprintf(f, "<g data-legend=\"%d\"><rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/>", s, x + 2, y - 10,
                         palette[s]);
            fprintf(f, "<text x=\"%d\" y=\"%d\">", x + 24, y);
            text_fit(f, lab, tw + 1, FS, 0);
            fprintf(f, "</text></g>\n");
        }
        x += w;
    }
    return row + 1;
}

/* colour NULL: dark grey (on a bar); else the series' own (on a line, where bars of several
 * series at one point must be told apart) */
static void error_bar(FILE *f, const struct layout *L, double x, double lo, double hi, const char *colour)
{
    if (isnan(lo) || isnan(hi)) return;
    double a = ypix(L, lo), b = ypix(L, hi);
    fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"1.2\"%s fill=\"none\"/>", x,
            a, b, x - 3, a, x + 3, x - 3, b, x + 3, colour ? colour : "#222", colour ? " stroke-opacity=\"0.7\"" : "");
}

static void mark_title(FILE *f, const struct rpt_chart *c, int s, int g, double v)
{
    fputs("<title>", f);
    if (c->series_labels && c->series_labels[s]) { rpt_html_text(f, c->series_labels[s]); fputs(", ", f); }
    rpt_html_text(f, c->group_labels[g]);
    fprintf(f, ": %.2f", v);
    int i = s * c->n_groups + g;
    if (c->lo && c->hi && !isnan(c->lo[i]) && !isnan(c->hi[i])) fprintf(f, " [%.2f, %.2f]", c->lo[i], c->hi[i]);
    fputs("</title>", f);
}

void rpt_svg_bars(FILE *f, const struct rpt_chart *c)
{
    int ng = c->n_groups ? c->n_groups : 1, ns = c->n_series > RPT_CHART_MAX_SERIES ? RPT_CHART_MAX_SERIES : c->n_series;
    struct layout L;
    double gw0 = (double)(W - 80 - MR) / ng;     /* the slot before the margin is known, for the slant decision */
    layout(c, gw0, gw0 / 2, &L);
    double gw = (double)(W - L.ml - MR) / ng, bw = gw * 0.8 / (ns ? ns : 1);
    double xc[ng];
    for (int g = 0; g < c->n_groups; g++) xc[g] = L.ml + gw * (g + 0.5);
    svg_open(f, c->title, c->note, L.h);
    axes(f, c, &L, xc);
    double base = ypix(&L, L.lo > 0 ? L.lo : L.hi < 0 ? L.hi : 0);
    for (int s = 0; s < ns; s++) {
        fprintf(f, "<g data-series=\"%d\" fill=\"%s\">\n", s, palette[s]);
        for (int g = 0; g < c->n_groups; g++) {
            int i = s * c->n_groups + g;
            double v = c->value[i];
            if (isnan(v)) continue;
            double x = L.ml + gw * g + gw * 0.1 + bw * s, y = ypix(&L, v);
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">", x, fmin(y, base), bw * 0.92, fabs(base - y));
            mark_title(f, c, s, g, v);
            fputs("</rect>", f);
            error_bar(f, &L, x + bw * 0.46, c->lo ? c->lo[i] : NAN, c->hi ? c->hi[i] : NAN, NULL);
            fputc('\n', f);
        }
        fputs("</g>\n", f);
    }
    if (c->mark) {
        fputs("<g data-series=\"mark\">", f);
        for (int g = 0; g < c->n_groups; g++)
            if (!isnan(c->mark[g])) {
                double y = ypix(&L, c->mark[g]);
                fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-width=\"2\" "
                           "stroke-dasharray=\"4 2\"/>\n", L.ml + gw * g + gw * 0.05, L.ml + gw * (g + 1) - gw * 0.05, y, y);
            }
        fputs("</g>\n", f);
    }
    if (L.legend_rows) legend_layout(c, L.ml, 1, f, L.legend_y, 0);
    fprintf(f, "</svg>\n");
}

void rpt_svg_lines(FILE *f, const struct rpt_chart *c)
{
    int n = c->n_groups, ns = c->n_series > RPT_CHART_MAX_SERIES ? RPT_CHART_MAX_SERIES : c->n_series;
    struct layout L;
    double step0 = n > 1 ? (double)(W - 80 - MR - 40) / (n - 1) : W;
    layout(c, step0, 20, &L);
    double step = n > 1 ? (double)(W - L.ml - MR - 40) / (n - 1) : 0;
    double xc[n > 0 ? n : 1];
    for (int g = 0; g < n; g++) xc[g] = L.ml + 20 + step * g + (n == 1 ? (W - L.ml - MR - 40) / 2.0 : 0);
    svg_open(f, c->title, c->note, L.h);
    axes(f, c, &L, xc);
    for (int s = 0; s < ns; s++) {
        fprintf(f, "<g data-series=\"%d\" stroke=\"%s\" fill=\"%s\">\n<path d=\"", s, palette[s], palette[s]);
        int pen = 0;
        for (int g = 0; g < n; g++) {
            double v = c->value[s * n + g];
            if (isnan(v)) { pen = 0; continue; }
            fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', xc[g], ypix(&L, v));
            pen = 1;
        }
        fprintf(f, "\" fill=\"none\" stroke-width=\"2\"%s/>\n", c->dashed && c->dashed[s] ? " stroke-dasharray=\"6 3\"" : "");
        for (int g = 0; g < n; g++) {
            int i = s * n + g;
            if (isnan(c->value[i])) continue;
            if (!(c->dashed && c->dashed[s])) {
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" stroke=\"none\">", xc[g], ypix(&L, c->value[i]));
                mark_title(f, c, s, g, c->value[i]);
                fputs("</circle>", f);
            }
            /* bars of the series at one point side by side, not on top of each other */
            double dodge = ns > 1 ? (s - (ns - 1) / 2.0) * fmin(4.0, step * 0.5 / ns) : 0;
            error_bar(f, &L, xc[g] + dodge, c->lo ? c->lo[i] : NAN, c->hi ? c->hi[i] : NAN, palette[s]);
            fputc('\n', f);
        }
        fputs("</g>\n", f);
    }
    if (L.legend_rows) legend_layout(c, L.ml, 1, f, L.legend_y, 1);
    fprintf(f, "</svg>\n");
}

/* ---- the heatmap ---- */

/* white to blue for gains t in [0, 1], white to orange for losses t in [-1, 0) */
static void heat_colour(double t, char out[8], int *dark)
{
    static const double pos[3] = { 0x08, 0x51, 0x9c }, neg[3] = { 0xd9, 0x48, 0x01 };
    const double *to = t >= 0 ? pos : neg;
    double a = fmin(fabs(t), 1.0);
    int rgb[3];
    for (int k = 0; k < 3; k++) rgb[k] = (int)lround(255 + (to[k] - 255) * a);
    snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    *dark = a > 0.55;
}

/* the heatmap is as wide as its content up to the page's width (1240 px less its padding) */
enum { HM_CELL_H = 26, HM_GAP = 14, HM_MAX_W = 1200 };

void rpt_svg_heatmap(FILE *f, const struct rpt_heatmap *h)
{
    double row_w = 0, cell_w = 62, base_w = text_w("baseline", FS) + 16;
    for (int r = 0; r < h->n_rows; r++) {
        if (text_w(h->row_labels[r], FS) > row_w) row_w = text_w(h->row_labels[r], FS);
        char b[64];
        snprintf(b, sizeof b, h->row_fmt[r], h->baseline[r]);
        double bw = text_w(b, FS) + text_w(h->baseline_labels[r] ? h->baseline_labels[r] : "", 10) + 22;
        if (!isnan(h->baseline[r]) && bw > base_w) base_w = bw;
    }
    for (int c = 0; c < h->n_cols; c++) if (text_w(h->col_labels[c], FS) + 12 > cell_w) cell_w = text_w(h->col_labels[c], FS) + 12;
    if (row_w > 300) row_w = 300;
    int x0 = (int)row_w + 20, gap = h->n_layer_cols < h->n_cols ? HM_GAP : 0;
    double grid_w = cell_w * h->n_cols + gap + HM_GAP + base_w;
    if (x0 + grid_w > HM_MAX_W - 10) cell_w = (HM_MAX_W - 10 - x0 - gap - HM_GAP - base_w) / (h->n_cols ? h->n_cols : 1);
    int y0 = h->note ? 90 : 72;
    int hgt = y0 + HM_CELL_H * h->n_rows + 96;
    /* as wide as its content, its title and note, and the colour legend */
    double content = x0 + cell_w * h->n_cols + gap + HM_GAP + base_w + 10, lw_need = x0 + 440;
    double title_need = fmax(text_w(h->title, 15), h->note ? text_w(h->note, FS) : 0) + 30;
    int width = (int)ceil(fmin(fmax(fmax(content, lw_need), fmin(title_need, W)), HM_MAX_W));
    /* the colour scale: gains in points, shared by all rows */
    double gmax = 1, gmin = 0;
    for (int r = 0; r < h->n_rows; r++)
        for (int c = 0; c < h->n_cols; c++) {
            double v = h->value[r * h->n_cols + c];
            if (isnan(v) || isnan(h->baseline[r])) continue;
            double g = (v - h->baseline[r]) * h->gain_scale[r];
            if (g > gmax) gmax = g;
            if (g < gmin) gmin = g;
        }
    svg_open_w(f, h->title, h->note, width, hgt);
    double xcol[h->n_cols > 0 ? h->n_cols : 1];
    for (int c = 0; c < h->n_cols; c++) xcol[c] = x0 + cell_w * c + (c >= h->n_layer_cols ? gap : 0);
    double xb = x0 + cell_w * h->n_cols + gap + HM_GAP;
    if (h->col_title && h->n_layer_cols) {
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">", x0 + cell_w * h->n_layer_cols / 2, y0 - 26);
        text_fit(f, h->col_title, cell_w * h->n_layer_cols + 40, 13, 0);
        fputs("</text>\n", f);
    }
    for (int c = 0; c < h->n_cols; c++) {
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">", xcol[c] + cell_w / 2, y0 - 8);
        text_fit(f, h->col_labels[c], cell_w - 4, FS, 0);
        fputs("</text>\n", f);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-weight=\"bold\">baseline</text>\n", xb + 6, y0 - 8);
    for (int r = 0; r < h->n_rows; r++) {
        int y = y0 + HM_CELL_H * r;
        fprintf(f, "<g data-row=\"%d\"><text x=\"%d\" y=\"%d\" text-anchor=\"end\"><title>", r, x0 - 8, y + 17);
        rpt_html_text(f, h->row_labels[r]);
        fputs("</title>", f);
        text_fit(f, h->row_labels[r], row_w, FS, 0);
        fputs("</text>\n", f);
        int best = -1;
        for (int c = 0; c < h->n_cols; c++) {
            double v = h->value[r * h->n_cols + c];
            if (!isnan(v) && (best < 0 || v > h->value[r * h->n_cols + best])) best = c;
        }
        for (int c = 0; c < h->n_cols; c++) {
            double v = h->value[r * h->n_cols + c];
            char col[8] = "#f2f2f2";
            int dark = 0;
            if (!isnan(v) && !isnan(h->baseline[r])) {
                double g = (v - h->baseline[r]) * h->gain_scale[r];
                heat_colour(g >= 0 ? g / gmax : (gmin < 0 ? -(g / gmin) : 0), col, &dark);
            }
            fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\">",
                    xcol[c] + 1, y + 1, cell_w - 2, HM_CELL_H - 2, isnan(v) ? "#fafafa" : col, c == best ? "#000" : "#fff",
                    c == best ? "2.5" : "1");
            fputs("<title>", f);
            rpt_html_text(f, h->row_labels[r]);
            fputs(", ", f);
            rpt_html_text(f, h->col_labels[c]);
            if (isnan(v)) fputs(": no result", f);
            else { fputs(": ", f); fprintf(f, h->row_fmt[r], v); }
            fputs("</title></rect>", f);
            if (!isnan(v)) {
                char b[64];
                snprintf(b, sizeof b, h->row_fmt[r], v);
                fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\"%s>%s%s</text>", xcol[c] + cell_w / 2, y + 17,
                        dark ? "#fff" : "#111", c == best ? " font-weight=\"bold\"" : "", b,
                        h->flag && h->flag[r * h->n_cols + c] ? "!" : "");
            }
            fputc('\n', f);
        }
        if (!isnan(h->baseline[r])) {
            char b[64];
            snprintf(b, sizeof b, h->row_fmt[r], h->baseline[r]);
            fprintf(f, "<text x=\"%.1f\" y=\"%d\">%s <tspan font-size=\"10\" fill=\"#555\">", xb + 6, y + 17, b);
            rpt_html_text(f, h->baseline_labels[r] ? h->baseline_labels[r] : "");
            fputs("</tspan></text>\n", f);
        }
        fputs("</g>\n", f);
    }
    /* the colour legend: a bar from gmin to gmax */
    int ly = y0 + HM_CELL_H * h->n_rows + 22, lx = x0, lw = 320;
    fputs("<g data-legend=\"scale\">", f);
    for (int k = 0; k < 32; k++) {
        double g = gmin + (gmax - gmin) * (k + 0.5) / 32;
        char col[8];
        int dark;
        heat_colour(g >= 0 ? g / gmax : -(g / gmin), col, &dark);
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"%s\"/>", lx + lw * k / 32.0, ly, lw / 32.0 + 0.5, col);
    }
    double ticks[3] = { gmin, 0, gmax };
    for (int k = 0; k < 3; k++) {
        if (k == 0 && gmin >= 0) continue;
        double x = lx + lw * (ticks[k] - gmin) / (gmax - gmin);
        fprintf(f, "\n<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/><text x=\"%.1f\" y=\"%d\" "
                   "text-anchor=\"middle\">%+.0f</text>", x, x, ly + 14, ly + 18, x, ly + 30, ticks[k] == 0 ? 0.0 : ticks[k]);
    }
    fprintf(f, "\n<text x=\"%d\" y=\"%d\" fill=\"#555\">colour: points above the row's baseline (DSpr × 100)</text>\n"
               "<text x=\"%d\" y=\"%d\" fill=\"#555\">outlined: the row's best · ! fewer than %d test items</text></g>\n",
            lx, ly + 48, lx, ly + 64, RPT_SMALL_TEST);
    fprintf(f, "</svg>\n");
}
