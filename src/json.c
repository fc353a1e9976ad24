/* Streaming JSON writer (see json.h). */
#include "json.h"

#include <math.h>

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void key(struct json *j, const char *k)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (k) {
		put_string(j->f, k);
		fputc(':', j->f);
	}
}

void json_begin(struct json *j, const char *k)
{
	key(j, k);
	fputc('{', j->f);
	j->need_comma[++j->depth] = false;
}

void json_end(struct json *j)
{
	fputc('}', j->f);
	j->depth--;
}

void json_begin_array(struct json *j, const char *k)
{
	key(j, k);
	fputc('[', j->f);
	j->need_comma[++j->depth] = false;
}

void json_end_array(struct json *j)
{
	fputc(']', j->f);
	j->depth--;
}

void json_str(struct json *j, const char *k, const char *v)
{
	key(j, k);
	if (v)
		put_string(j->f, v);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *k, uint64_t v)
{
	key(j, k);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *k, int64_t v)
{
	key(j, k);
	fprintf(j->f, "%lld", (long long)v);
}

void json_double(struct json *j, const char *k, double v)
{
	key(j, k);
	if (isfinite(v))
		fprintf(j->f, "%.9g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *k, bool v)
{
	key(j, k);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *k)
{
	key(j, k);
	fputs("null", j->f);
}

void json_raw(struct json *j, const char *k, const char *raw)
{
	key(j, k);
	fputs(raw, j->f);
}
