/* report/svg.h — the charts of the report as SVG: grouped bar charts (optional error bars
 * and a reference mark per group), line charts (optional error bars) and the layer × task heatmap,
 * with title, a note line (n, what the error bars are), axes, ticks, axis titles and a legend.
 *
 * Every chart is a standalone <svg> element: presentation attributes, no CSS class the page must
 * supply, so the same text is inlined in the HTML page and written as a file by --figures (and
 * from there to PDF/PNG through librsvg).
 *
 * Legibility rules, checked in Chromium by tests/cli/t5170-report-legible.sh:
 *   - no colour is used twice in one chart: RPT_CHART_MAX_SERIES colours (Okabe & Ito's eight,
 *     then four of Paul Tol's); a caller with more series draws small multiples (report_html.c);
 *   - the legend wraps into as many rows as it needs below the plot; the chart grows to hold it;
 *   - every text lies inside the SVG: margins are computed from the labels' lengths;
 *   - a series' marks carry data-series="k" and its legend entry data-legend="k", so a test can
 *     match them without reading colours.
 *
 * Why our own writer: the report must be one self-contained file that renders without network or
 * scripts; the C plotting libraries in Debian (PLplot, gnuplot via a pipe) write SVG with their own
 * fonts and page furniture that has to be post-processed to be inlined, and would add a dependency
 * for three chart types. */
#ifndef SP_RPT_SVG_H
#define SP_RPT_SVG_H

#include <stdio.h>

#define RPT_CHART_MAX_SERIES 12

struct rpt_chart {
    const char *title, *x_title, *y_title;
    const char *note;                   /* one line under the title: n, what the error bars are; NULL: none */
    int n_groups;                       /* bars: groups along x; lines: points along x */
    const char *const *group_labels;    /* n_groups */
    int n_series;                       /* at most RPT_CHART_MAX_SERIES */
    const char *const *series_labels;   /* n_series (legend; none drawn for one series without a label) */
    const double *value;                /* [series * n_groups + group]; NAN: no bar/point */
    const double *lo, *hi;              /* the same layout, error bar ends; NULL or NAN: none */
    const double *mark;                 /* [group]: a reference tick across the group (bars); NULL: none */
    const char *mark_label;             /* the legend's name for the marks */
    double y_min, y_max;                /* the y range; y_max <= y_min: from the data (from 0) */
    const int *dashed;                  /* [series]: nonzero draws the line dashed (baselines); NULL: none */
};

/* Writes one <svg> element (width 100% of its container, fixed aspect). */
void rpt_svg_bars(FILE *f, const struct rpt_chart *c);
void rpt_svg_lines(FILE *f, const struct rpt_chart *c);

/* The layer × task figure: one row per measure (a probing task, a token probe, a structural
 * probe's UUAS, trees' UAS), one column per layer (then other encoders), the value in each cell,
 * coloured by its gain over the row's baseline (points; negative: below it), the baseline in the
 * last column, the best cell of a row outlined. */
struct rpt_heatmap {
    const char *title, *note;
    int n_rows, n_cols;
    const char *const *row_labels;      /* n_rows */
    const char *const *col_labels;      /* n_cols */
    const char *col_title;              /* over the columns: "layer (0 = embeddings)" */
    int n_layer_cols;                   /* the first n_layer_cols columns are layers; a gap, then the others */
    const double *value;                /* [row * n_cols + col]; NAN: empty cell */
    const char *const *row_fmt;         /* printf format of the row's values ("%.1f") */
    const double *gain_scale;           /* [row]: the factor from the row's units to points (1, or 100 for DSpr) */
    const unsigned char *flag;          /* [row * n_cols + col]: 1 = too few test items ("!"); NULL: none */
    const double *baseline;             /* [row] the baseline's value; NAN: none */
    const char *const *baseline_labels; /* [row] what the baseline is */
};
void rpt_svg_heatmap(FILE *f, const struct rpt_heatmap *h);

/* Text with &, <, >, " escaped (for HTML and SVG); a byte XML does not allow (a control other than
 * tab and line breaks) or that is no UTF-8 written as the text \xHH, so the page and the SVG parse. */
void rpt_html_text(FILE *f, const char *s);

#endif
