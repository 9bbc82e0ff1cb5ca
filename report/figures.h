/* report/figures.h — `report --figures DIR`: every chart of the report as a standalone
 * file, DIR/NN-NAME.svg, and as DIR/NN-NAME.pdf and .png rendered from that SVG by librsvg and
 * cairo (Debian's librsvg2; a build without them writes SVG only and refuses pdf/png by name).
 *
 * NN is the chart's place on the page (01, 02, ...), NAME says what it shows ("heatmap-minilm",
 * "layers-minilm", "probing-logreg"). NAME comes from the store's data (corpus, encoder and
 * classifier names), so it is a slug of them, never a path: only [A-Za-z0-9._-] (any other byte,
 * a '/' or a UTF-8 byte, becomes '-', runs of them one; a '.' only after a letter, digit or '_'),
 * so no leading '.' or '-' and no "..", at most RPT_FIG_SLUG_MAX bytes, "chart" when nothing is
 * left; NN makes it unique. The label itself is shown, escaped, in the chart. Every figure is
 * thus a file of the folder named [0-9][0-9]*-*.{svg,pdf,png} (RPT_FIG_PATTERNS: the names the
 * output guard keeps other outputs off). Each file is written through sp_out (a temporary
 * renamed into place), so a figure is whole or absent; the folder is made with its parents. PNG
 * is drawn at twice the SVG's size (about 190 dpi for a 960-px-wide chart), PDF at the SVG's
 * size in points, vector. */
#ifndef SP_RPT_FIGURES_H
#define SP_RPT_FIGURES_H

#include <stddef.h>

enum { RPT_FIG_SVG = 1, RPT_FIG_PDF = 2, RPT_FIG_PNG = 4 };

struct rpt_figures {
    const char *dir;        /* NULL: no figures */
    int formats;            /* RPT_FIG_* */
    int n;                  /* charts written so far */
    int rc;                 /* the first failure (SP_*), SP_OK */
    char err[512];
};

enum { RPT_FIG_SLUG_MAX = 64 };
/* the names a figures folder may hold (fnmatch patterns, '|'-separated; common/guard.h) */
#define RPT_FIG_PATTERNS "[0-9][0-9]*-*.svg|[0-9][0-9]*-*.pdf|[0-9][0-9]*-*.png"

/* The file-name slug of a figure's name (above) into out (cap bytes, at least 6). */
void rpt_figures_slug(char *out, size_t cap, const char *name);
/* Whether this build renders PDF and PNG (librsvg). */
int rpt_figures_can_render(void);
/* The formats of a comma list ("svg,pdf,png") into *formats: SP_OK, or SP_EUSAGE with err. */
int rpt_figures_parse(const char *list, int *formats, char *err, size_t errlen);
/* One chart, its SVG text (len bytes), as the next figure named name: nothing when fig->dir is
 * NULL or an earlier figure failed; a failure is kept in fig->rc/err. */
void rpt_figures_add(struct rpt_figures *fig, const char *name, const char *svg, size_t len);

#endif
