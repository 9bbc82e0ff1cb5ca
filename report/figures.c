/* report/figures.c — charts as files (see report/figures.h). */
#include "report/figures.h"

#include <stdio.h>
#include <string.h>

#include "common/sp.h"

#if SP_HAVE_RSVG
#include <cairo-pdf.h>
#include <cairo.h>
#include <librsvg/rsvg.h>
#endif

int rpt_figures_can_render(void) { return SP_HAVE_RSVG; }

int rpt_figures_parse(const char *list, int *formats, char *err, size_t errlen)
{
    *formats = 0;
    const char *p = list ? list : "";
    while (*p) {
        size_t n = strcspn(p, ",");
        int k = n == 3 && !strncmp(p, "svg", 3) ? RPT_FIG_SVG : n == 3 && !strncmp(p, "pdf", 3) ? RPT_FIG_PDF
              : n == 3 && !strncmp(p, "png", 3) ? RPT_FIG_PNG : 0;
        if (!k) {
            snprintf(err, errlen, "--figure-formats: unknown format '%.*s' (expected a comma list of svg, pdf, png)", (int)n, p);
            return SP_EUSAGE;
        }
        if (k != RPT_FIG_SVG && !SP_HAVE_RSVG) {
            snprintf(err, errlen, "--figure-formats %.*s: this synprobe was built without librsvg, so it writes SVG only "
                     "(apt-get install librsvg2-dev, then rebuild; or --figure-formats svg)", (int)n, p);
            return SP_EUSAGE;
        }
        *formats |= k;
        p += n + (p[n] == ',');
    }
    if (!*formats) { snprintf(err, errlen, "--figure-formats: empty (expected a comma list of svg, pdf, png)"); return SP_EUSAGE; }
    return SP_OK;
}

#if SP_HAVE_RSVG
static cairo_status_t to_file(void *closure, const unsigned char *data, unsigned int len)
{
    return fwrite(data, 1, len, (FILE *)closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* The SVG drawn onto a PDF (vector, size in points = the SVG's pixels) or PNG (twice the size) into f. */
static int render(const char *svg, size_t len, int format, FILE *f, char *err, size_t errlen)
{
    GError *ge = NULL;
    RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, len, &ge);
    if (!h) {
        snprintf(err, errlen, "librsvg cannot read the chart: %s", ge ? ge->message : "unknown error");
        if (ge) g_error_free(ge);
        return SP_EIO;
    }
    double w = 0, hgt = 0;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &hgt) || w <= 0 || hgt <= 0) { w = 960; hgt = 540; }
    double scale = format == RPT_FIG_PNG ? 2 : 1;
    cairo_surface_t *s = format == RPT_FIG_PDF ? cairo_pdf_surface_create_for_stream(to_file, f, w, hgt)
                                               : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)(w * scale), (int)(hgt * scale));
    cairo_t *cr = cairo_create(s);
    RsvgRectangle vp = { 0, 0, w * scale, hgt * scale };
    int ok = rsvg_handle_render_document(h, cr, &vp, &ge);
    cairo_destroy(cr);
    int rc = SP_OK;
    if (!ok) {
        snprintf(err, errlen, "librsvg cannot draw the chart: %s", ge ? ge->message : "unknown error");
        rc = SP_EIO;
    } else if (format == RPT_FIG_PNG) {
        if (cairo_surface_write_to_png_stream(s, to_file, f) != CAIRO_STATUS_SUCCESS) {
            snprintf(err, errlen, "cairo cannot write the PNG");
            rc = SP_EIO;
        }
    }
    cairo_surface_finish(s);
    if (rc == SP_OK && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "cairo: %s", cairo_status_to_string(cairo_surface_status(s)));
        rc = SP_EIO;
    }
    cairo_surface_destroy(s);
    if (ge) g_error_free(ge);
    g_object_unref(h);
    return rc;
}
#endif

void rpt_figures_slug(char *out, size_t cap, const char *name)
{
    size_t n = 0, lim = cap - 1 < RPT_FIG_SLUG_MAX ? cap - 1 : RPT_FIG_SLUG_MAX;
    for (const unsigned char *p = (const unsigned char *)(name ? name : ""); *p && n < lim; p++) {
        int keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '_';
        char c = keep ? (char)*p : '-';
        if (c == '.' && (!n || out[n - 1] == '-' || out[n - 1] == '.')) c = '-';   /* a dot only after a letter,
                                                                                 * digit or '_': no hidden file, no ".." */
        if (c == '-' && (!n || out[n - 1] == '-')) continue;   /* no leading dash; "a//b", "x/../y": one dash */
        out[n++] = c;
    }
    while (n && (out[n - 1] == '-' || out[n - 1] == '.')) n--;
    out[n] = 0;
    if (!n) snprintf(out, cap, "chart");
}

static int write_one(struct rpt_figures *fig, const char *name, const char *ext, int format, const char *svg, size_t len)
{
    char path[4096], why[400], slug[RPT_FIG_SLUG_MAX + 1];
    rpt_figures_slug(slug, sizeof slug, name);
    snprintf(path, sizeof path, "%s/%02d-%s.%s", fig->dir, fig->n, slug, ext);
    struct sp_out out;
    int rc = sp_out_open(&out, path, fig->err, sizeof fig->err);
    if (rc) return rc;
    if (format == RPT_FIG_SVG) {
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out.f);
        rc = fwrite(svg, 1, len, out.f) == len ? SP_OK : SP_EIO;
        if (rc) snprintf(fig->err, sizeof fig->err, "%s: write failed", path);
    } else {
#if SP_HAVE_RSVG
        rc = render(svg, len, format, out.f, why, sizeof why);
        if (rc) snprintf(fig->err, sizeof fig->err, "%s: %s", path, why);
#else
        (void)why;
        rc = SP_EUSAGE;
#endif
    }
    if (rc) { sp_out_abort(&out); return rc; }
    return sp_out_commit(&out, fig->err, sizeof fig->err) ? SP_EIO : SP_OK;
}

void rpt_figures_add(struct rpt_figures *fig, const char *name, const char *svg, size_t len)
{
    if (!fig || !fig->dir || fig->rc) return;
    if (!fig->n && (fig->rc = sp_mkdirs(fig->dir, fig->err, sizeof fig->err))) return;
    fig->n++;
    static const struct { int format; const char *ext; } kinds[] = { { RPT_FIG_SVG, "svg" }, { RPT_FIG_PDF, "pdf" },
                                                                     { RPT_FIG_PNG, "png" } };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds && !fig->rc; k++)
        if (fig->formats & kinds[k].format) fig->rc = write_one(fig, name, kinds[k].ext, kinds[k].format, svg, len);
}
