/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JSON emitter: separators, indentation, escaping, number formats.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aifab_json.h"

#ifdef UNIT_TESTING
/* cmocka's expect_assert_failure() catches the misuse asserts. */
void mock_assert(const int result, const char *const expression,
		 const char *const file, const int line);
#undef assert
#define assert(e) mock_assert((int)(e), #e, __FILE__, __LINE__)
#endif

static bool
misuse(struct aifab_json *j, int err)
{
	if (j->err == 0)
		j->err = err;
	assert(!"aifab_json misuse (see aifab_json.h)");
	return false;
}

static void
put_escaped(FILE *f, const char *s)
{
	static const char short_esc[] = "btn\0fr";   /* \b=8 .. \r=13 */

	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c >= '\b' && c <= '\r' && short_esc[c - '\b'] != 0)
			fprintf(f, "\\%c", short_esc[c - '\b']);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
newline(struct aifab_json *j, unsigned int level)
{
	fputc('\n', j->f);
	fprintf(j->f, "%*s", (int)(j->indent * level), "");
}

/*
 * Before a value: check the key against the container, write the comma,
 * the line break and the key. @return false (and nothing written) on
 * misuse or after an earlier error.
 */
static bool
value_begin(struct aifab_json *j, const char *key)
{
	unsigned int d = j->depth;

	if (j->err != 0)
		return false;
	if (d == 0 ? key != NULL || !j->first[0] :
	    j->in_array[d] != (key == NULL))
		return misuse(j, EINVAL);
	if (!j->first[d])
		fputc(',', j->f);
	j->first[d] = false;
	if (d > 0 && j->indent > 0)
		newline(j, d);
	if (key != NULL) {
		put_escaped(j->f, key);
		fputs(j->indent > 0 ? ": " : ":", j->f);
	}
	if (ferror(j->f)) {
		j->err = EIO;
		return false;
	}
	return true;
}

void
aifab_json_begin(struct aifab_json *j, FILE *f, unsigned int indent)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->indent = indent;
	j->first[0] = true;
}

static void
open_container(struct aifab_json *j, const char *key, bool array)
{
	if (j->err == 0 && j->depth + 1 >= AIFAB_JSON_MAX_DEPTH) {
		misuse(j, EOVERFLOW);
		return;
	}
	if (!value_begin(j, key))
		return;
	fputc(array ? '[' : '{', j->f);
	j->depth++;
	j->first[j->depth] = true;
	j->in_array[j->depth] = array;
}

void
aifab_json_obj(struct aifab_json *j, const char *key)
{
	open_container(j, key, false);
}

void
aifab_json_arr(struct aifab_json *j, const char *key)
{
	open_container(j, key, true);
}

void
aifab_json_end(struct aifab_json *j)
{
	unsigned int d = j->depth;

	if (j->err != 0)
		return;
	if (d == 0) {
		misuse(j, EINVAL);
		return;
	}
	if (!j->first[d] && j->indent > 0)
		newline(j, d - 1);
	fputc(j->in_array[d] ? ']' : '}', j->f);
	j->depth--;
}

void
aifab_json_str(struct aifab_json *j, const char *key, const char *v)
{
	if (!value_begin(j, key))
		return;
	if (v == NULL)
		fputs("null", j->f);
	else
		put_escaped(j->f, v);
}

void
aifab_json_u64(struct aifab_json *j, const char *key, uint64_t v)
{
	if (value_begin(j, key))
		fprintf(j->f, "%" PRIu64, v);
}

void
aifab_json_i64(struct aifab_json *j, const char *key, int64_t v)
{
	if (value_begin(j, key))
		fprintf(j->f, "%" PRId64, v);
}

void
aifab_json_dbl(struct aifab_json *j, const char *key, double v, int decimals)
{
	char buf[40];
	const char *e;
	int n, x;

	if (!value_begin(j, key))
		return;
	if (!isfinite(v)) {
		fputs("null", j->f);
		return;
	}
	if (decimals >= 0) {
		fprintf(j->f, "%.*f", decimals, v);
		return;
	}
	/* The fewest digits that read back equal (17 always do), written
	 * without an exponent for 1e-4 <= |v| < 1e16 as Python's repr. */
	for (n = 1;; n++) {
		snprintf(buf, sizeof(buf), "%.*e", n - 1, v);
		if (n == 17 || strtod(buf, NULL) == v)
			break;
	}
	e = strchr(buf, 'e');
	x = e != NULL ? atoi(e + 1) : 0;
	if (x >= -4 && x < 16 && x + 1 > n)
		n = x + 1;
	fprintf(j->f, "%.*g", n, v);
}

void
aifab_json_bool(struct aifab_json *j, const char *key, bool v)
{
	if (value_begin(j, key))
		fputs(v ? "true" : "false", j->f);
}

void
aifab_json_null(struct aifab_json *j, const char *key)
{
	if (value_begin(j, key))
		fputs("null", j->f);
}

void
aifab_json_raw(struct aifab_json *j, const char *key, const char *json)
{
	size_t len;

	if (j->err == 0 && json != NULL)
		json += strspn(json, " \t\r\n");
	if (j->err == 0 && (json == NULL || *json == '\0')) {
		misuse(j, EINVAL);
		return;
	}
	if (!value_begin(j, key))
		return;
	for (len = strlen(json); strchr(" \t\r\n", json[len - 1]) != NULL;)
		len--;
	fwrite(json, 1, len, j->f);
}

int
aifab_json_finish(struct aifab_json *j)
{
	if (j->err == 0 && ferror(j->f))
		j->err = EIO;
	if (j->err == 0 && (j->depth != 0 || j->first[0]))
		j->err = EINVAL;
	return j->err == 0 ? 0 : -1;
}
