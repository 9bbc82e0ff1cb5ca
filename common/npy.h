/* common/npy.h — NumPy .npy files: read and write float32, float64 and int32 arrays in C order.
 *
 * Reads format versions 1.0, 2.0 and 3.0 (3.0 only differs in the header's text encoding);
 * little- and big-endian data ('<', '>', '=', '|'); converts to native byte order. Fortran-order
 * arrays, other dtypes, truncated data and trailing bytes are errors whose message names the file.
 * Writes exactly what numpy.save writes (version 1.0, or 2.0 when the header does not fit in 64 KiB):
 * same header text, same padding to a multiple of 64 bytes. */
#ifndef SP_NPY_H
#define SP_NPY_H

#include <stddef.h>
#include <stdio.h>

#include "common/sp.h"

#define SP_NPY_MAXDIM 8

enum sp_dtype { SP_DT_F32 = 0, SP_DT_F64, SP_DT_I32 };

struct sp_npy {
    enum sp_dtype dtype;
    int ndim;                       /* 0 for a scalar */
    size_t shape[SP_NPY_MAXDIM];
    size_t count;                   /* product of shape (1 for a scalar) */
    void *data;                     /* count elements, native byte order, C order; owned */
};

size_t sp_dtype_size(enum sp_dtype t);
const char *sp_dtype_name(enum sp_dtype t);           /* "float32", "float64", "int32" */

/* Read a whole file. On error returns SP_EIO or SP_EPARSE with "PATH: what" in err and
 * leaves *out empty (safe to free). */
int sp_npy_read(const char *path, struct sp_npy *out, char *err, size_t errlen);

/* Parse an in-memory image; name is used in messages. */
int sp_npy_parse(const char *name, const void *buf, size_t len, struct sp_npy *out, char *err, size_t errlen);

/* Write data (count = product of shape, native order) as PATH. */
int sp_npy_write(const char *path, enum sp_dtype dtype, int ndim, const size_t *shape, const void *data,
                 char *err, size_t errlen);

/* Only the header, for a writer that streams the data after it (native byte order, C order). */
int sp_npy_write_header(FILE *f, enum sp_dtype dtype, int ndim, const size_t *shape);
/* Convert the array to float32 in place (float64 rounds, int32 converts). */
void sp_npy_to_f32(struct sp_npy *a);

void sp_npy_free(struct sp_npy *a);

#endif
