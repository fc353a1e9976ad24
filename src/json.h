/* A minimal streaming JSON writer: enough for one record per trial. */
#ifndef COPYBENCH_JSON_H
#define COPYBENCH_JSON_H
#include "common.h"

struct json {
	FILE *f;
	int depth;
	bool need_comma[32];
};
void json_init(struct json *j, FILE *f);
void json_begin(struct json *j, const char *key);      /* object; key NULL at top/array */
void json_end(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_str(struct json *j, const char *key, const char *v); /* v NULL -> null */
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v);   /* non-finite -> null */
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
void json_raw(struct json *j, const char *key, const char *raw); /* pre-encoded value */
#endif
