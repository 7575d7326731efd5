/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The recipe table: every recipe `[lab] recipe` (--lab NAME) may name, in
 * the order their names are listed. A recipe is its own file filling a
 * struct lab_recipe (lab_priv.h); adding one is a line here, its file in
 * meson.build, and a test (docs/lab.md "Adding a recipe").
 */
#include <stddef.h>

#include "lab_priv.h"

extern const struct lab_recipe lab_recipe_ecmp;
extern const struct lab_recipe lab_recipe_ecn;
extern const struct lab_recipe lab_recipe_pfc;
extern const struct lab_recipe lab_recipe_incast;
extern const struct lab_recipe lab_recipe_echo;

const struct lab_recipe *const lab_recipes[] = {
	&lab_recipe_ecmp,
	&lab_recipe_ecn,
	&lab_recipe_pfc,
	&lab_recipe_incast,
	&lab_recipe_echo,  /* the smallest recipe: what adding one takes */
	NULL,
};
