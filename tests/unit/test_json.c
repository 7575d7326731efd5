/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/json: the emitter's text against literal JSON written here (the
 * syntax is the spec), compact and pretty; escaping, every number kind,
 * misuse and write errors; and a stress document that Python's json
 * module must read back to values Python computes itself.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "aifab_json.h"

#define PYTHON "/usr/bin/python3"

/* A memstream the emitter writes into; out() closes it and hands back
 * the text (freed by the next open). */
struct buf {
	char *text;
	size_t len;
	FILE *f;
};

static FILE *
buf_open(struct buf *b)
{
	free(b->text);
	b->text = NULL;
	b->len = 0;
	b->f = open_memstream(&b->text, &b->len);
	if (b->f == NULL)
		abort();
	return b->f;
}

static const char *
buf_out(struct buf *b)
{
	fclose(b->f);
	b->f = NULL;
	return b->text;
}

/* One value at the top level, compact. */
#define ONE(b, call) do { struct aifab_json j_; \
	aifab_json_begin(&j_, buf_open(b), 0); call; \
	assert_int_equal(aifab_json_finish(&j_), 0); } while (0)

/* Objects, arrays, empty ones, nesting: commas only between members. */
static void
test_compact(void **state)
{
	struct buf b = { 0 };
	struct aifab_json j;

	(void)state;
	aifab_json_begin(&j, buf_open(&b), 0);
	aifab_json_obj(&j, NULL);
	aifab_json_u64(&j, "a", 1);
	aifab_json_arr(&j, "b");
	aifab_json_u64(&j, NULL, 1);
	aifab_json_obj(&j, NULL);
	aifab_json_end(&j);
	aifab_json_arr(&j, NULL);
	aifab_json_end(&j);
	aifab_json_arr(&j, NULL);
	aifab_json_str(&j, NULL, "x");
	aifab_json_end(&j);
	aifab_json_end(&j);
	aifab_json_obj(&j, "c");
	aifab_json_obj(&j, "d");
	aifab_json_bool(&j, "t", true);
	aifab_json_bool(&j, "f", false);
	aifab_json_null(&j, "n");
	aifab_json_end(&j);
	aifab_json_end(&j);
	aifab_json_obj(&j, "e");
	aifab_json_end(&j);
	aifab_json_end(&j);
	assert_int_equal(aifab_json_finish(&j), 0);
	assert_string_equal(buf_out(&b),
			    "{\"a\":1,\"b\":[1,{},[],[\"x\"]],"
			    "\"c\":{\"d\":{\"t\":true,\"f\":false,\"n\":null}},"
			    "\"e\":{}}");
	/* a bare top-level scalar and array */
	ONE(&b, aifab_json_u64(&j_, NULL, 7));
	assert_string_equal(buf_out(&b), "7");
	ONE(&b, (aifab_json_arr(&j_, NULL), aifab_json_end(&j_)));
	assert_string_equal(buf_out(&b), "[]");
	free(b.text);
}

/* Pretty: one member per line, n spaces per level, ": " after keys. */
static void
test_pretty(void **state)
{
	struct buf b = { 0 };
	struct aifab_json j;

	(void)state;
	aifab_json_begin(&j, buf_open(&b), 2);
	aifab_json_obj(&j, NULL);
	aifab_json_str(&j, "tool", "t");
	aifab_json_arr(&j, "list");
	aifab_json_u64(&j, NULL, 1);
	aifab_json_obj(&j, NULL);
	aifab_json_u64(&j, "k", 2);
	aifab_json_end(&j);
	aifab_json_end(&j);
	aifab_json_obj(&j, "empty");
	aifab_json_end(&j);
	aifab_json_arr(&j, "none");
	aifab_json_end(&j);
	aifab_json_end(&j);
	assert_int_equal(aifab_json_finish(&j), 0);
	assert_string_equal(buf_out(&b),
			    "{\n"
			    "  \"tool\": \"t\",\n"
			    "  \"list\": [\n"
			    "    1,\n"
			    "    {\n"
			    "      \"k\": 2\n"
			    "    }\n"
			    "  ],\n"
			    "  \"empty\": {},\n"
			    "  \"none\": []\n"
			    "}");
	aifab_json_begin(&j, buf_open(&b), 4);
	aifab_json_arr(&j, NULL);
	aifab_json_bool(&j, NULL, true);
	aifab_json_end(&j);
	assert_int_equal(aifab_json_finish(&j), 0);
	assert_string_equal(buf_out(&b), "[\n    true\n]");
	free(b.text);
}

static void
test_escape(void **state)
{
	struct buf b = { 0 };
	struct aifab_json j;

	(void)state;
	ONE(&b, aifab_json_str(&j_, NULL, "a\"b\\c/d"));
	assert_string_equal(buf_out(&b), "\"a\\\"b\\\\c/d\"");
	ONE(&b, aifab_json_str(&j_, NULL, "\b\t\n\v\f\r\x01\x1f\x7f "));
	assert_string_equal(buf_out(&b),
			    "\"\\b\\t\\n\\u000b\\f\\r\\u0001\\u001f\x7f \"");
	/* UTF-8 (2, 3 and 4 bytes) unchanged */
	ONE(&b, aifab_json_str(&j_, NULL, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
	assert_string_equal(buf_out(&b),
			    "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	ONE(&b, aifab_json_str(&j_, NULL, ""));
	assert_string_equal(buf_out(&b), "\"\"");
	ONE(&b, aifab_json_str(&j_, NULL, NULL));
	assert_string_equal(buf_out(&b), "null");
	/* keys too */
	aifab_json_begin(&j, buf_open(&b), 0);
	aifab_json_obj(&j, NULL);
	aifab_json_str(&j, "k\"\n\\", "v");
	aifab_json_end(&j);
	assert_int_equal(aifab_json_finish(&j), 0);
	assert_string_equal(buf_out(&b), "{\"k\\\"\\n\\\\\":\"v\"}");
	free(b.text);
}

static void
test_integers(void **state)
{
	struct buf b = { 0 };

	(void)state;
	ONE(&b, aifab_json_u64(&j_, NULL, UINT64_MAX));
	assert_string_equal(buf_out(&b), "18446744073709551615");
	ONE(&b, aifab_json_u64(&j_, NULL, 0));
	assert_string_equal(buf_out(&b), "0");
	ONE(&b, aifab_json_i64(&j_, NULL, INT64_MIN));
	assert_string_equal(buf_out(&b), "-9223372036854775808");
	ONE(&b, aifab_json_i64(&j_, NULL, INT64_MAX));
	assert_string_equal(buf_out(&b), "9223372036854775807");
	ONE(&b, aifab_json_i64(&j_, NULL, -1));
	assert_string_equal(buf_out(&b), "-1");
	free(b.text);
}

static const char *
dbl(struct buf *b, double v, int decimals)
{
	ONE(b, aifab_json_dbl(&j_, NULL, v, decimals));
	return buf_out(b);
}

static void
test_doubles(void **state)
{
	struct buf b = { 0 };

	(void)state;
	assert_string_equal(dbl(&b, 1.5, 3), "1.500");
	assert_string_equal(dbl(&b, 2.0, 0), "2");
	assert_string_equal(dbl(&b, 0.125, 2), "0.12");   /* ties to even */
	assert_string_equal(dbl(&b, -3.25, 6), "-3.250000");
	assert_string_equal(dbl(&b, 1e-9, 9), "0.000000001");
	assert_string_equal(dbl(&b, 123456789.0, 2), "123456789.00");
	/* shortest that reads back */
	assert_string_equal(dbl(&b, 0.1, -1), "0.1");
	assert_string_equal(dbl(&b, 100.0, -1), "100");
	assert_string_equal(dbl(&b, 0.0, -1), "0");
	assert_string_equal(dbl(&b, -0.0, -1), "-0");
	assert_string_equal(dbl(&b, 1.0 / 3.0, -1), "0.3333333333333333");
	assert_string_equal(dbl(&b, 0.1 + 0.2, -1), "0.30000000000000004");
	assert_string_equal(dbl(&b, 1e300, -1), "1e+300");
	assert_string_equal(dbl(&b, DBL_MAX, -1), "1.7976931348623157e+308");
	assert_string_equal(dbl(&b, 4.9406564584124654e-324, -1), "5e-324");
	assert_string_equal(dbl(&b, 2.5e-5, -2), "2.5e-05");
	assert_string_equal(dbl(&b, 1e-4, -1), "0.0001");
	assert_string_equal(dbl(&b, 123.456, -1), "123.456");
	assert_string_equal(dbl(&b, 1e15, -1), "1000000000000000");
	assert_string_equal(dbl(&b, 1e16, -1), "1e+16");
	assert_string_equal(dbl(&b, -1.5e16, -1), "-1.5e+16");
	assert_string_equal(dbl(&b, 9007199254740993.0, -1),
			    "9007199254740992");
	/* NaN and infinities are null in either mode */
	assert_string_equal(dbl(&b, NAN, 3), "null");
	assert_string_equal(dbl(&b, NAN, -1), "null");
	assert_string_equal(dbl(&b, INFINITY, 2), "null");
	assert_string_equal(dbl(&b, -INFINITY, -1), "null");
	free(b.text);
}

/* Misuse writes nothing more, sets err and trips the assert. */
static void
test_misuse(void **state)
{
	struct buf b = { 0 };
	struct aifab_json j;
	unsigned int i;

	(void)state;
	/* a key inside an array */
	aifab_json_begin(&j, buf_open(&b), 0);
	aifab_json_arr(&j, NULL);
	expect_assert_failure(aifab_json_u64(&j, "k", 1));
	assert_int_equal(j.err, EINVAL);
	aifab_json_u64(&j, NULL, 2);   /* sticky: ignored */
	aifab_json_end(&j);
	assert_int_equal(aifab_json_finish(&j), -1);
	assert_string_equal(buf_out(&b), "[");

	/* no key inside an object, and a key at the top level */
	aifab_json_begin(&j, buf_open(&b), 0);
	aifab_json_obj(&j, NULL);
	expect_assert_failure(aifab_json_str(&j, NULL, "v"));
	assert_int_equal(aifab_json_finish(&j), -1);
	assert_string_equal(buf_out(&b), "{");
	aifab_json_begin(&j, buf_open(&b), 0);
	expect_assert_failure(aifab_json_obj(&j, "k"));
	assert_int_equal(aifab_json_finish(&j), -1);
	assert_string_equal(buf_out(&b), "");

	/* end() with nothing open; a second top-level value */
	aifab_json_begin(&j, buf_open(&b), 0);
	aifab_json_u64(&j, NULL, 1);
	expect_assert_failure(aifab_json_end(&j));
	assert_int_equal(aifab_json_finish(&j), -1);
	assert_string_equal(buf_out(&b), "1");
	aifab_json_begin(&j, buf_open(&b), 0);
	aifab_json_u64(&j, NULL, 1);
	expect_assert_failure(aifab_json_u64(&j, NULL, 2));
	assert_int_equal(aifab_json_finish(&j), -1);
	assert_string_equal(buf_out(&b), "1");

	/* raw text must not be blank */
	aifab_json_begin(&j, buf_open(&b), 0);
	expect_assert_failure(aifab_json_raw(&j, NULL, " \n"));
	assert_int_equal(aifab_json_finish(&j), -1);
	buf_out(&b);

	/* nesting beyond AIFAB_JSON_MAX_DEPTH - 1 containers */
	aifab_json_begin(&j, buf_open(&b), 0);
	for (i = 0; i < AIFAB_JSON_MAX_DEPTH - 1; i++)
		aifab_json_arr(&j, NULL);
	assert_int_equal(j.err, 0);
	expect_assert_failure(aifab_json_arr(&j, NULL));
	assert_int_equal(j.err, EOVERFLOW);
	assert_int_equal(aifab_json_finish(&j), -1);
	buf_out(&b);
	free(b.text);
}

/* Not misuse, but not a document: unclosed, empty; a failed write. */
static void
test_incomplete(void **state)
{
	struct buf b = { 0 };
	struct aifab_json j;
	FILE *full;

	(void)state;
	aifab_json_begin(&j, buf_open(&b), 0);
	aifab_json_obj(&j, NULL);
	aifab_json_obj(&j, "a");
	aifab_json_end(&j);
	assert_int_equal(aifab_json_finish(&j), -1);
	buf_out(&b);
	aifab_json_begin(&j, buf_open(&b), 0);
	assert_int_equal(aifab_json_finish(&j), -1);
	buf_out(&b);
	free(b.text);

	full = fopen("/dev/full", "w");
	if (full == NULL)
		skip();
	setvbuf(full, NULL, _IONBF, 0);
	aifab_json_begin(&j, full, 0);
	aifab_json_arr(&j, NULL);
	aifab_json_u64(&j, NULL, 1);
	assert_int_equal(j.err, EIO);
	assert_int_equal(aifab_json_finish(&j), -1);
	fclose(full);
}

/* raw: embedded as it is, surrounding whitespace trimmed. */
static void
test_raw(void **state)
{
	struct buf b = { 0 };
	struct aifab_json j;

	(void)state;
	aifab_json_begin(&j, buf_open(&b), 0);
	aifab_json_obj(&j, NULL);
	aifab_json_raw(&j, "lab", "\n {\"x\": [1, 2]}\n\n");
	aifab_json_u64(&j, "n", 3);
	aifab_json_end(&j);
	assert_int_equal(aifab_json_finish(&j), 0);
	assert_string_equal(buf_out(&b), "{\"lab\":{\"x\": [1, 2]},\"n\":3}");
	free(b.text);
}

/* Every byte 1..127, UTF-8, extremes, deep nesting; compact and pretty. */
static void
stress(FILE *f, unsigned int indent)
{
	static const double d[] = { 0.1, 1.0 / 3.0, 1e300, DBL_MAX,
				    4.9406564584124654e-324, -2.5e-5, M_PI };
	struct aifab_json j;
	char ascii[128];
	unsigned int i;

	for (i = 1; i < 128; i++)
		ascii[i - 1] = (char)i;
	ascii[127] = '\0';
	aifab_json_begin(&j, f, indent);
	aifab_json_obj(&j, NULL);
	aifab_json_str(&j, "ascii", ascii);
	aifab_json_str(&j, ascii, "key");
	aifab_json_str(&j, "utf8", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	aifab_json_u64(&j, "u64max", UINT64_MAX);
	aifab_json_i64(&j, "i64min", INT64_MIN);
	aifab_json_arr(&j, "shortest");
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		aifab_json_dbl(&j, NULL, d[i], -1);
	aifab_json_end(&j);
	aifab_json_dbl(&j, "fixed", 2.0 / 3.0, 3);
	aifab_json_dbl(&j, "nan", NAN, -1);
	aifab_json_arr(&j, "deep");
	for (i = 0; i < AIFAB_JSON_MAX_DEPTH - 3; i++)
		aifab_json_arr(&j, NULL);
	for (i = 0; i < AIFAB_JSON_MAX_DEPTH - 2; i++)
		aifab_json_end(&j);
	aifab_json_end(&j);
	assert_int_equal(aifab_json_finish(&j), 0);
	fputc('\n', f);
}

static const char check_py[] =
	"import json, math, sys\n"
	"for line in open(sys.argv[1], encoding='utf-8').read().split('\\n\\n'):\n"
	"    o = json.loads(line)\n"
	"    a = ''.join(map(chr, range(1, 128)))\n"
	"    assert o['ascii'] == a and o[a] == 'key', o['ascii']\n"
	"    assert o['utf8'] == '\\u00e9\\u20ac\\U0001f600'\n"
	"    assert o['u64max'] == 2**64 - 1 and o['i64min'] == -2**63\n"
	"    assert o['shortest'] == [0.1, 1/3, 1e300, 1.7976931348623157e308,\n"
	"        5e-324, -2.5e-5, math.pi], o['shortest']\n"
	"    assert o['fixed'] == 0.667 and o['nan'] is None\n"
	"    d, n = o['deep'], 1\n"
	"    while d:\n"
	"        d, n = d[0], n + 1\n"
	"    assert n == 30, n\n"
	"print('ok')\n";

/* An independent parser: Python's json module reads both forms back. */
static void
test_python_reads(void **state)
{
	char doc[] = "/tmp/aifab_json_XXXXXX";
	char cmd[256], out[16] = "";
	FILE *f, *p;
	int fd;

	(void)state;
	if (access(PYTHON, X_OK) != 0)
		skip();
	fd = mkstemp(doc);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	stress(f, 0);
	fputc('\n', f);
	stress(f, 3);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), PYTHON " -c \"$AIFAB_JSON_PY\" %s", doc);
	assert_int_equal(setenv("AIFAB_JSON_PY", check_py, 1), 0);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fgets(out, sizeof(out), p) == NULL)
		out[0] = '\0';
	assert_int_equal(pclose(p), 0);
	assert_string_equal(out, "ok\n");
	unlink(doc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_python_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
