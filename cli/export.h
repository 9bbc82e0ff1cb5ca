/* cli/export.h — `synprobe export` of an encoder run's outputs (cmd_export_encoded.c), called by
 * cmd_export.c once it has parsed the options. corpus: NULL when not given (then not checked). */
#ifndef SP_EXPORT_H
#define SP_EXPORT_H
int export_encoded(const char *db_path, const char *corpus, const char *what, const char *fmt, const char *out_path,
                   const char *run);
#endif
