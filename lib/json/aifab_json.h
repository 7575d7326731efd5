/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One JSON emitter for every writer (report, JSON lines, lab results):
 * it owns the commas, the indentation, the string escaping and the number
 * formats, so no caller prints JSON syntax itself.
 *
 *	struct aifab_json j;
 *
 *	aifab_json_begin(&j, f, 2);
 *	aifab_json_obj(&j, NULL);
 *	aifab_json_str(&j, "tool", "dpdk-aifab");
 *	aifab_json_arr(&j, "ports");
 *	aifab_json_str(&j, NULL, "p0");
 *	aifab_json_end(&j);
 *	aifab_json_end(&j);
 *	if (aifab_json_finish(&j) != 0) ...
 *
 * Inside an object every value has a key; inside an array and at the top
 * level none has. One value at the top level (begin again for the next
 * JSON line). Misuse (a key where none belongs or none where one must,
 * end() with nothing open, a second top-level value, nesting deeper than
 * AIFAB_JSON_MAX_DEPTH - 1) writes nothing, sets err and asserts in
 * builds with assertions. No trailing newline: the caller adds it.
 */
#ifndef AIFAB_JSON_H
#define AIFAB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define AIFAB_JSON_MAX_DEPTH 32

struct aifab_json {            /* caller-allocated, opaque in spirit */
	FILE *f;
	unsigned int indent;       /* 0: compact on one line; n: pretty, n spaces per level */
	unsigned int depth;
	bool first[AIFAB_JSON_MAX_DEPTH];
	bool in_array[AIFAB_JSON_MAX_DEPTH];
	int err;                   /* sticky: set on a write error, overflow or misuse */
};

/**
 * Start a document on @p f. @p indent 0: compact, no whitespace at all
 * ({"a":1,"b":[1,2]}); n: one member per line, n spaces per level, ": "
 * after a key, empty containers as {} and [].
 */
void aifab_json_begin(struct aifab_json *j, FILE *f, unsigned int indent);
/** Open an object; @p key NULL at top level or inside an array. */
void aifab_json_obj(struct aifab_json *j, const char *key);
/** Open an array; @p key likewise. */
void aifab_json_arr(struct aifab_json *j, const char *key);
/** Close the innermost object or array. */
void aifab_json_end(struct aifab_json *j);
/**
 * A string, or null when @p v is NULL. '"' and '\\' are escaped, control
 * characters as \b \f \n \r \t or \u00XX; other bytes (UTF-8) pass
 * through unchanged. Keys are escaped the same way.
 */
void aifab_json_str(struct aifab_json *j, const char *key, const char *v);
void aifab_json_u64(struct aifab_json *j, const char *key, uint64_t v);
void aifab_json_i64(struct aifab_json *j, const char *key, int64_t v);
/**
 * A number: "%.*f" with @p decimals >= 0; @p decimals < 0: the fewest
 * significant digits (at most 17) that read back as the same double,
 * without an exponent for 1e-4 <= |v| < 1e16 (100, 0.1, 1e+300, 2.5e-05,
 * as Python's repr). NaN and infinities are written as null.
 */
void aifab_json_dbl(struct aifab_json *j, const char *key, double v,
		    int decimals);
void aifab_json_bool(struct aifab_json *j, const char *key, bool v);
void aifab_json_null(struct aifab_json *j, const char *key);
/**
 * A value rendered elsewhere as JSON text (e.g. by another emitter into a
 * memstream), written as it is after trimming surrounding whitespace.
 * NULL or blank text is misuse. The caller vouches for its syntax.
 */
void aifab_json_raw(struct aifab_json *j, const char *key, const char *json);
/**
 * @return 0 when the top-level value was written and closed and no error
 * happened (err also records a failed write on the stream); else -1.
 */
int aifab_json_finish(struct aifab_json *j);

#endif
