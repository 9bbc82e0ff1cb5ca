/* store/st_int.h — internals shared by the store's own files. */
#ifndef ST_INT_H
#define ST_INT_H

#include "store/store.h"

struct st_db {
    sqlite3 *h;
    char path[1024];
};

/* snprintf of SQLite's message for the connection, prefixed with what we were doing */
int st_sqlerr(struct st_db *db, const char *what, char *err, size_t errlen);

#endif
