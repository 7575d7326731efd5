/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pipelines/lab: the recipe table as `[lab] recipe` sees it. The four
 * measuring recipes of docs/lab.md are found by their names, "none" and unknown
 * names are not; the allowed list the app prints starts with "none" and
 * names each recipe once; creating a pipeline with an unknown recipe is
 * refused with that list (before any DPDK memory is touched: no EAL
 * here). The statistics behind the verdicts: tests/unit/test_verdict.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lab.h"

static const char *const documented[] = { "ecmp", "ecn", "pfc", "incast" };
#define N_DOC (sizeof(documented) / sizeof(documented[0]))

static void
test_recipe_names(void **state)
{
	char list[256], copy[256], *tok, *save = NULL;
	unsigned int i, n = 0, found[N_DOC] = { 0 };

	(void)state;
	for (i = 0; i < N_DOC; i++)
		assert_true(aifab_lab_recipe_exists(documented[i]));
	assert_false(aifab_lab_recipe_exists("none"));
	assert_false(aifab_lab_recipe_exists(""));
	assert_false(aifab_lab_recipe_exists("ECMP"));
	assert_false(aifab_lab_recipe_exists("ecmp "));
	aifab_lab_recipe_names(list, sizeof(list));
	assert_int_equal(strncmp(list, "none, ", 6), 0);
	snprintf(copy, sizeof(copy), "%s", list + 6);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*tok == ' ')
			tok++;
		/* every name listed is a recipe, and listed once */
		assert_true(aifab_lab_recipe_exists(tok));
		for (i = 0; i < N_DOC; i++)
			found[i] += strcmp(tok, documented[i]) == 0;
		n++;
	}
	for (i = 0; i < N_DOC; i++)
		assert_int_equal(found[i], 1);
	assert_true(n >= N_DOC);
	/* a short buffer is cut, not overrun */
	memset(copy, 'x', sizeof(copy));
	aifab_lab_recipe_names(copy, 8);
	assert_string_equal(copy, "none, e");
	assert_true(copy[8] == 'x');
}

static void
test_create_unknown(void **state)
{
	struct aifab_lab_params p;
	struct aifab_env env;
	char err[256] = "", names[256], want[300];

	(void)state;
	memset(&env, 0, sizeof(env));
	aifab_lab_params_defaults(&p);
	snprintf(p.recipe, sizeof(p.recipe), "%s", "bogus");
	assert_null(aifab_lab_create(&env, &p, err, sizeof(err)));
	aifab_lab_recipe_names(names, sizeof(names));
	/* the allowed part: the table, without "none" */
	snprintf(want, sizeof(want), "recipe = 'bogus'; allowed: %s",
		 names + 6);
	assert_string_equal(err, want);
}

static void
test_defaults(void **state)
{
	struct aifab_lab_params p;

	(void)state;
	aifab_lab_params_defaults(&p);
	/* [lab]'s documented defaults (docs/profiles.md) */
	assert_int_equal(p.flows, 64);
	assert_int_equal(p.frames_per_flow, 4);
	assert_int_equal(p.frame_bytes, 256);
	assert_int_equal(p.fields, 0xf);
	assert_int_equal(p.tos, 26 << 2 | 2);
	assert_int_equal(p.sport_base, 49152);
	assert_true(p.max_imbalance == 1.5 && p.min_p == 0.001);
	assert_string_equal(p.recipe, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recipe_names),
		cmocka_unit_test(test_create_unknown),
		cmocka_unit_test(test_defaults),
	};

	return cmocka_run_group_tests_name("lab", tests, NULL, NULL);
}
