/* stages/report_svg.h — the charts of the HTML report as inline SVG: grouped bar charts (with
 * optional error bars and a reference mark per group) and line charts (with optional error bars),
 * with axes, ticks, tick labels, axis titles and a legend.
 *
 * Why our own writer: the report must be one self-contained file that renders without network or
 * scripts; the C plotting libraries in Debian (PLplot, gnuplot via a pipe) write SVG with their own
 * fonts and page furniture that has to be post-processed to be inlined, and would add a dependency
 * for three chart types. These ~200 lines draw exactly what the report needs. */
#ifndef SP_STG_REPORT_SVG_H
#define SP_STG_REPORT_SVG_H

#include <stdio.h>

struct stg_chart {
    const char *title, *x_title, *y_title;
    int n_groups;                       /* bars: groups along x; lines: points along x */
    const char *const *group_labels;    /* n_groups */
    int n_series;
    const char *const *series_labels;   /* n_series (legend; none drawn for one series without a label) */
    const double *value;                /* [series * n_groups + group]; NAN: no bar/point */
    const double *lo, *hi;              /* the same layout, error bar ends; NULL or NAN: none */
    const double *mark;                 /* [group]: a reference tick across the group (bars); NULL: none */
    const char *mark_label;             /* the legend's name for the marks */
    double y_min, y_max;                /* the y range; y_max <= y_min: from the data (from 0) */
};

/* Writes one <svg> element (width 100% of its container, fixed aspect). */
void stg_svg_bars(FILE *f, const struct stg_chart *c);
void stg_svg_lines(FILE *f, const struct stg_chart *c);
/* Text with &, <, >, " escaped (for HTML and SVG). */
void stg_html_text(FILE *f, const char *s);

#endif
