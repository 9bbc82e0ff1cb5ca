/* stages/report_svg.c — inline SVG charts (see stages/report_svg.h). */
#include "stages/report_svg.h"

#include <math.h>
#include <string.h>

void stg_html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* a colour-blind-safe palette (Okabe & Ito) */
static const char *const palette[] = { "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000" };
#define N_PALETTE 8

enum { W = 720, H = 370, ML = 60, MR = 20, MT = 52, MB = 90 };

/* A "nice" tick step for a range: 1, 2 or 5 times a power of ten, about 5 ticks. */
static double tick_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void y_range(const struct stg_chart *c, double *lo, double *hi)
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

static double ypix(double v, double lo, double hi) { return MT + (H - MT - MB) * (1 - (v - lo) / (hi - lo)); }

/* frame, title, y ticks with grid lines and labels, axis titles, x labels at centres xc[g] */
static void axes(FILE *f, const struct stg_chart *c, double lo, double hi, const double *xc)
{
    fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H);
    fprintf(f, "<title>");
    stg_html_text(f, c->title);
    fprintf(f, "</title>\n<text x=\"%d\" y=\"18\" class=\"ct\">", W / 2);
    stg_html_text(f, c->title);
    fprintf(f, "</text>\n");
    double st = tick_step(hi - lo);
    for (double t = lo; t <= hi + st * 1e-9; t += st) {
        double y = ypix(t, lo, hi);
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", ML, W - MR, y, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"yt\">%g</text>\n", ML - 6, y + 4, fabs(t) < st * 1e-9 ? 0.0 : t);
    }
    fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"axis\"/>", ML, W - MR, H - MB, H - MB);
    fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"axis\"/>\n", ML, ML, MT, H - MB);
    int every = c->n_groups > 24 ? (c->n_groups + 23) / 24 : 1;
    /* labels wider than their slot are slanted and cut to their last 20 characters (the full name is
     * in the bar's tooltip and the tables) */
    double slot = c->n_groups > 1 ? (xc[c->n_groups - 1] - xc[0]) / (c->n_groups - 1) * every : W;
    int slant = 0;
    for (int g = 0; g < c->n_groups; g++) slant |= 6.5 * (double)strlen(c->group_labels[g]) > slot;
    for (int g = 0; g < c->n_groups; g += every) {
        const char *lab = c->group_labels[g];
        if (slant && strlen(lab) > 20) { fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"xt\" style=\"text-anchor:end\" transform=\"rotate(-30 %.1f %d)\">…", xc[g], H - MB + 14, xc[g], H - MB + 14); lab += strlen(lab) - 20; }
        else if (slant)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"xt\" style=\"text-anchor:end\" transform=\"rotate(-30 %.1f %d)\">", xc[g],
                    H - MB + 14, xc[g], H - MB + 14);
        else
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"xt\">", xc[g], H - MB + 16);
        stg_html_text(f, lab);
        fprintf(f, "</text>\n");
    }
    if (c->y_title) {
        fprintf(f, "<text x=\"14\" y=\"%d\" class=\"at\" transform=\"rotate(-90 14 %d)\">", (MT + H - MB) / 2, (MT + H - MB) / 2);
        stg_html_text(f, c->y_title);
        fprintf(f, "</text>\n");
    }
    if (c->x_title) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"at\" style=\"text-anchor:end\">", W - MR, H - 30);
        stg_html_text(f, c->x_title);
        fprintf(f, "</text>\n");
    }
}

static void legend(FILE *f, const struct stg_chart *c, int lines)
{
    int x = ML, y = MT - 12;   /* the legend sits between the title and the plot */
    for (int s = 0; s < c->n_series && c->series_labels && c->series_labels[s]; s++) {
        if (lines) fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>", x, x + 14, y - 4, y - 4,
                           palette[s % N_PALETTE]);
        else fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, y - 10, palette[s % N_PALETTE]);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lg\">", x + 18, y);
        stg_html_text(f, c->series_labels[s]);
        fprintf(f, "</text>\n");
        x += 30 + 7 * (int)strlen(c->series_labels[s]);
    }
    if (c->mark && c->mark_label) {
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"mark\"/><text x=\"%d\" y=\"%d\" class=\"lg\">", x, x + 14,
                y - 4, y - 4, x + 18, y);
        stg_html_text(f, c->mark_label);
        fprintf(f, "</text>\n");
    }
}

static void error_bar(FILE *f, double x, double lo, double hi, double ylo, double yhi)
{
    if (isnan(lo) || isnan(hi)) return;
    double a = ypix(lo, ylo, yhi), b = ypix(hi, ylo, yhi);
    fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" class=\"err\"/>", x, a, b, x - 3, a, x + 3, x - 3, b,
            x + 3);
}

void stg_svg_bars(FILE *f, const struct stg_chart *c)
{
    double lo, hi;
    y_range(c, &lo, &hi);
    double gw = (double)(W - ML - MR) / (c->n_groups ? c->n_groups : 1), bw = gw * 0.8 / (c->n_series ? c->n_series : 1);
    double xc[c->n_groups > 0 ? c->n_groups : 1];
    for (int g = 0; g < c->n_groups; g++) xc[g] = ML + gw * (g + 0.5);
    axes(f, c, lo, hi, xc);
    double base = ypix(lo > 0 ? lo : hi < 0 ? hi : 0, lo, hi);
    for (int s = 0; s < c->n_series; s++)
        for (int g = 0; g < c->n_groups; g++) {
            int i = s * c->n_groups + g;
            double v = c->value[i];
            if (isnan(v)) continue;
            double x = ML + gw * g + gw * 0.1 + bw * s, y = ypix(v, lo, hi);
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", x, fmin(y, base),
                    bw * 0.92, fabs(base - y), palette[s % N_PALETTE]);
            if (c->series_labels && c->series_labels[s]) { stg_html_text(f, c->series_labels[s]); fputs(", ", f); }
            stg_html_text(f, c->group_labels[g]);
            fprintf(f, ": %.2f</title></rect>", v);
            error_bar(f, x + bw * 0.46, c->lo ? c->lo[i] : NAN, c->hi ? c->hi[i] : NAN, lo, hi);
            fputc('\n', f);
        }
    if (c->mark)
        for (int g = 0; g < c->n_groups; g++)
            if (!isnan(c->mark[g])) {
                double y = ypix(c->mark[g], lo, hi);
                fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"mark\"/>\n", ML + gw * g + gw * 0.05,
                        ML + gw * (g + 1) - gw * 0.05, y, y);
            }
    legend(f, c, 0);
    fprintf(f, "</svg>\n");
}

void stg_svg_lines(FILE *f, const struct stg_chart *c)
{
    double lo, hi;
    y_range(c, &lo, &hi);
    int n = c->n_groups;
    double step = n > 1 ? (double)(W - ML - MR - 40) / (n - 1) : 0;
    double xc[n > 0 ? n : 1];
    for (int g = 0; g < n; g++) xc[g] = ML + 20 + step * g + (n == 1 ? (W - ML - MR - 40) / 2.0 : 0);
    axes(f, c, lo, hi, xc);
    for (int s = 0; s < c->n_series; s++) {
        fprintf(f, "<path d=\"");
        int pen = 0;
        for (int g = 0; g < n; g++) {
            double v = c->value[s * n + g];
            if (isnan(v)) { pen = 0; continue; }
            fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', xc[g], ypix(v, lo, hi));
            pen = 1;
        }
        fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", palette[s % N_PALETTE]);
        for (int g = 0; g < n; g++) {
            int i = s * n + g;
            if (isnan(c->value[i])) continue;
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", xc[g], ypix(c->value[i], lo, hi),
                    palette[s % N_PALETTE]);
            if (c->series_labels && c->series_labels[s]) { stg_html_text(f, c->series_labels[s]); fputs(", ", f); }
            stg_html_text(f, c->group_labels[g]);
            fprintf(f, ": %.2f</title></circle>", c->value[i]);
            error_bar(f, xc[g], c->lo ? c->lo[i] : NAN, c->hi ? c->hi[i] : NAN, lo, hi);
            fputc('\n', f);
        }
    }
    legend(f, c, 1);
    fprintf(f, "</svg>\n");
}
