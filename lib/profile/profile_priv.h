/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Private to lib/profile: the one table of keys (profile_keys.c) and the
 * typed value parsers that the loader (profile.c) and the doc writer share.
 */
#ifndef PROFILE_PRIV_H
#define PROFILE_PRIV_H

#include <stddef.h>
#include <stdint.h>

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

/** Section names of the kinds, e.g. "general", "port.<name>". */
const char *profile_sect_name(enum profile_sect s);

/** Default text of @p k in section index @p idx (0 unless indexed). */
const char *profile_key_def(const struct profile_key *k, unsigned int idx);

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

/** Human name of @p k's type, e.g. "integer". */
const char *profile_type_name(enum profile_type t);

/** One-sentence syntax of type @p t, for the docs. */
const char *profile_type_syntax(enum profile_type t);

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

#endif /* PROFILE_PRIV_H */
