/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Private to lib/profile. Its files call one way, top down:
 *
 *   profile.c           load: line check, --set, sections, validation
 *   profile_doc.c       docs/profiles.md from the table
 *   profile_sections.c  typed sections, ports, switch instances
 *   profile_routes.c    [neighbors] and [routes] entries
 *   profile_validate.c  whole-profile checks
 *   profile_text.c      --set split, where a key came from, error lines
 *   profile_view.c      queries on a loaded profile (public ones too)
 *   profile_digest.c    SHA-256 of the effective text (p->digest)
 *   profile_parse.c     one parser per value type, "allowed" texts
 *   profile_keys.c      the one table of keys, and lookups in it
 */
#ifndef PROFILE_PRIV_H
#define PROFILE_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "aifab_profile.h"

/** Which kind of section a key lives in. */
enum profile_sect {
	PROFILE_SECT_GENERAL,   /**< [general], fields of struct aifab_profile */
	PROFILE_SECT_SWITCH,    /**< [switch], fields of struct aifab_profile */
	PROFILE_SECT_PORT,      /**< [port.<name>], struct aifab_port_params */
	PROFILE_SECT_QOS,       /**< [qos], fields of struct aifab_profile */
	PROFILE_SECT_TC,        /**< [tc.<0..7>], struct aifab_tc_params */
	PROFILE_SECT_ECMP,      /**< [ecmp], fields of struct aifab_profile */
	PROFILE_SECT_PFC,       /**< [pfc], fields of struct aifab_profile */
	PROFILE_SECT_GENERATOR, /**< [generator], fields of struct aifab_profile */
	PROFILE_SECT_SWNAMED,   /**< [switch.<name>], struct aifab_switch_params */
	PROFILE_SECT_LAB,       /**< [lab], fields of struct aifab_profile */
	PROFILE_SECT_KINDS,
};

/** Value types. Each has one parser and one "allowed" description. */
enum profile_type {
	PROFILE_T_U32,     /**< decimal or 0x hex, min..max; off -> u16 or u32;
			        pow2: a power of two */
	PROFILE_T_U64,     /**< decimal or 0x hex, min..max */
	PROFILE_T_BOOL,    /**< true/false/yes/no/on/off/1/0 */
	PROFILE_T_MAC,     /**< unicast MAC; off_has -> bool */
	PROFILE_T_IP4,     /**< a.b.c.d/len; off -> u32 host order, off2 -> depth */
	PROFILE_T_IP6,     /**< addr/len; off -> u8[16], off2 -> depth */
	PROFILE_T_STRING,  /**< off -> char[size] */
	PROFILE_T_ENUM,    /**< one of names[]; off -> u8 */
	PROFILE_T_DECIMAL, /**< "2.5" with at most `decimals` decimals; off -> u32
			        text x 10^decimals (Gbit/s -> Mbit/s, % -> ppm);
			        min..max in stored units */
	PROFILE_T_LCORES,  /**< "1", "1,2", "1-3"; off -> u16[], off2 -> u16 count */
	PROFILE_T_MAP,     /**< "26:3 48:6"; off -> u8[size], index = key
			        0..size-1, value 0..max; unlisted keys -> 0 */
	PROFILE_T_FLAGS,   /**< "sip,dip"; off -> u32, bit i = names[i];
			        empty only if zero_ok */
	PROFILE_T_HEX,     /**< "6d:5a:.." or "6d5a.."; off -> u8[size],
			        off2 -> u8 length; a length of exactly min or
			        max bytes, or empty (length 0) if zero_ok */
	PROFILE_T_SAMPLE,  /**< "full", "off" or "every=N" (N in min..max);
			        off -> u32: 1, 0 or N (one in N) */
	PROFILE_T_COUNT,   /**< number of types */
};

/** One row of the key table. */
struct profile_key {
	enum profile_sect sect;
	const char *name;
	enum profile_type type;
	size_t off;        /**< offsetof the value field */
	size_t size;       /**< sizeof the value field */
	size_t off2;       /**< second field (depth / count), see the type */
	size_t off_has;    /**< "has_" bool for optional keys, else SIZE_MAX */
	uint64_t min;      /**< U32, U64, DECIMAL (stored units) range;
			        HEX: the two lengths allowed */
	uint64_t max;      /**< ... MAP: the largest value */
	bool zero_ok;      /**< 0 is allowed besides min..max ("auto");
			        FLAGS / HEX: empty is allowed */
	const char *const *names; /**< ENUM names (index = value) or FLAGS
				       names (index = bit), NULL-terminated */
	bool pow2;         /**< U32: must be a power of two */
	uint8_t decimals;  /**< DECIMAL: digits after the point */
	const char *def;   /**< default as profile text; NULL = unset */
	/** Indexed sections ([tc.<n>]): default of section n; NULL = def. */
	const char *def_idx[AIFAB_N_TC];
	const char *unit;  /**< "" when none */
	const char *help;
};

/** The table, and its length. */
extern const struct profile_key profile_keys[];
extern const unsigned int profile_n_keys;

/* ---- profile_keys.c: lookups in the table ---- */

/** Section names of the kinds, e.g. "general", "port.<name>". */
const char *profile_sect_name(enum profile_sect s);

/** Default text of @p k in section index @p idx (0 unless indexed). */
const char *profile_key_def(const struct profile_key *k, unsigned int idx);

/** Human name of @p k's type, e.g. "integer". */
const char *profile_type_name(enum profile_type t);

/** One-sentence syntax of type @p t, for the docs. */
const char *profile_type_syntax(enum profile_type t);

/** The row of key @p name in sections of @p kind, or NULL. */
const struct profile_key *profile_key_find(enum profile_sect kind,
					   const char *name);

/** The keys of @p kind, ", "-separated, for an error's allowed part. */
void profile_keys_of(enum profile_sect kind, char *buf, size_t len);

/** SHA-256 of the effective text of @p cfg (aifab_profile_load()'s
 * comment), 64 hex digits. @return 0, or -1 out of memory. */
int profile_digest(struct rte_cfgfile *cfg, char out[65]);

/** profile_sect_kind() of "tc.<not 0..7>". */
#define PROFILE_SECT_BAD_INDEX (-2)

/**
 * Section kind (enum profile_sect) of a section name, and for [tc.<n>] its
 * index in @p idx; -1 for neighbors/routes/unknown, PROFILE_SECT_BAD_INDEX
 * for "tc.<not 0..7>".
 */
int profile_sect_kind(const char *name, unsigned int *idx);

/** Where the keys of a singleton or indexed section of @p p live (not
 * ports or named switches). */
void *profile_sect_base(struct aifab_profile *p, int kind, unsigned int idx);

/* ---- profile_parse.c: values ---- */

/**
 * Parse @p val for key @p k into the struct at @p base (struct aifab_profile,
 * struct aifab_port_params or struct aifab_tc_params, as the key's section
 * says).
 * @return 0, or -1 with @p why filled (no "allowed" part).
 */
int profile_key_parse(const struct profile_key *k, void *base,
		      const char *val, char *why, size_t whylen);

/** Human description of what @p k accepts, e.g. "1..512". */
void profile_key_allowed(const struct profile_key *k, char *buf, size_t len);

/**
 * Address helpers shared by the loader's [neighbors]/[routes] parsers.
 * @p family gets AF_INET or AF_INET6; @p addr network order, IPv4 in the
 * first four bytes. @return 0 or -1.
 */
int profile_parse_addr(const char *s, uint8_t *family, uint8_t addr[16]);

/** Like profile_parse_addr() for "addr/len"; @return 0 or -1 with @p why. */
int profile_parse_prefix(const char *s, uint8_t *family, uint8_t addr[16],
			 uint8_t *depth, char *why, size_t whylen);

/** Strict unicast MAC parser. @return 0 or -1 with @p why. */
int profile_parse_mac(const char *s, struct rte_ether_addr *mac,
		      char *why, size_t whylen);

/** @p a (network order) of @p family as text, "?" if it cannot be. */
void profile_fmt_addr(uint8_t family, const uint8_t *a, char *buf, size_t len);

/** A switch name: a lower-case letter, then a-z 0-9 _ (a lib/stats set
 * name "sw_<name>" and a telemetry command). */
bool profile_sw_name_ok(const char *s);

/* ---- the loader (profile.c and the files it calls) ---- */

#define PROFILE_SET_FILE "--set"  /* the file name of --set errors */
#define PROFILE_ALLOWED_LEN 384   /* an error's allowed part */
#define PROFILE_SECTS_ALLOWED "general, switch, port.<name>, qos, " \
	"tc.<0..7>, ecmp, pfc, generator, lab, neighbors, routes, " \
	"switch.<name>, neighbors.<name>, routes.<name>"
#define PROFILE_TC_INDEX_ALLOWED "tc.<n> with n one of 0..7"

#define PROFILE_MAX_ROUTE_FILES 256 /* `[routes(.<name>)] file` keys */
#define PROFILE_ROUTE_KEY_LEN 52     /* an IPv6 prefix fits */

/** One load: the profile being filled, its text and where errors go. */
struct profile_loader {
	struct aifab_profile *p;
	struct rte_cfgfile *cfg;
	const char *file;            /* name for errors: path or embedded */
	const char *const *sets;
	unsigned int n_sets;
	char *err;
	size_t errlen;
	/* The text each entry came from, for error messages. */
	char port_sect[AIFAB_MAX_PORTS][CFG_NAME_LEN];
	char neigh_key[AIFAB_MAX_NEIGHS][CFG_NAME_LEN];
	/* Each route's origin (grown with p->routes): an INI entry, or a
	 * line of a `[routes] file`. */
	struct profile_route_src *route_src;
	char *route_files[PROFILE_MAX_ROUTE_FILES]; /* paths, malloc'd */
	unsigned int n_route_files;
	/* Duplicate-prefix index: open addressing, route index + 1, 0 free */
	uint32_t *route_idx;
	uint32_t idx_cap;            /* power of two, > 2 x routes */
};

/** Where one route came from (profile_route_fail() names it). */
struct profile_route_src {
	char key[PROFILE_ROUTE_KEY_LEN]; /* INI key, or the prefix as written */
	uint32_t line;               /* 0: an INI entry; else the file's line */
	uint16_t file;               /* index into route_files (line != 0) */
};

/** One "--set section.key=value", split. */
struct profile_set_parts {
	char sect[CFG_NAME_LEN];
	char key[CFG_NAME_LEN];
	char val[CFG_VALUE_LEN];
};

/* profile_text.c */

/**
 * The error line "file: [sect] key = 'val': why; allowed: allowed" into
 * the loader's err (long values and reasons cut, control characters '?').
 * @return -1
 */
int profile_fail(const struct profile_loader *l, const char *file,
		 const char *sect, const char *key, const char *val,
		 const char *allowed, const char *fmt, ...)
	__rte_format_printf(7, 8);

/** profile_fail() with a va_list. */
int profile_vfail(const struct profile_loader *l, const char *file,
		  const char *sect, const char *key, const char *val,
		  const char *allowed, const char *fmt, va_list ap)
	__rte_format_printf(7, 0);

/** @p s without leading and trailing blanks (cut in place). */
char *profile_trim(char *s);

/**
 * Split one --set at the dot that ends a known section name. On error
 * @p sp holds as much as could be split and the reason is returned; NULL
 * on success.
 */
const char *profile_set_split(const char *s, struct profile_set_parts *sp);

/** PROFILE_SET_FILE if the last word on sect/key came from a --set, else
 * the file. */
const char *profile_origin(const struct profile_loader *l, const char *sect,
			   const char *key);

/** profile_origin() is PROFILE_SET_FILE. */
bool profile_from_set(const struct profile_loader *l, const char *sect,
		      const char *key);

/* profile_view.c */

/** Index of switch @p sw's neighbour @p a of @p family, or -1. */
int profile_neigh_find(const struct aifab_profile *p, uint8_t sw,
		       uint8_t family, const uint8_t *a);

/* profile_routes.c: [neighbors(.<name>)] and [routes(.<name>)] entries of
 * switch @p sw. @return 0 or -1 with the error. */
int profile_load_neighbors(struct profile_loader *l, const char *sect,
			   uint8_t sw, const struct rte_cfgfile_entry *e,
			   int ne);
int profile_load_routes(struct profile_loader *l, const char *sect,
			uint8_t sw, const struct rte_cfgfile_entry *e, int ne);

/**
 * profile_fail() for route @p i of section @p sect: names its INI entry
 * (file or --set, key, value) or its routes file and line ("PATH:LINE",
 * the prefix, the next hops).
 */
int profile_route_fail(const struct profile_loader *l, uint32_t i,
		       const char *sect, const char *allowed,
		       const char *fmt, ...) __rte_format_printf(5, 6);

/** Free the loader's route bookkeeping (not the profile's routes). */
void profile_routes_done(struct profile_loader *l);

/* profile_sections.c, in this order. @return 0 or -1 with the error. */

/** Every section but the named switches' ones, in file order. */
int profile_load_sections(struct profile_loader *l);
/** The switch instances: [0] the default, the others in order of first
 * use by a port's switch key. */
int profile_build_switches(struct profile_loader *l);
/** [switch.<name>], [neighbors.<name>], [routes.<name>]. */
int profile_load_sw_sections(struct profile_loader *l);

/* profile_validate.c */

/** The whole-profile checks, after every section is loaded (fills each
 * neighbour's port and each route's next-hop neighbours). */
int profile_validate(struct profile_loader *l);

#endif /* PROFILE_PRIV_H */
