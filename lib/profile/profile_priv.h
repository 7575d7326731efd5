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
	PROFILE_SECT_KINDS,
};

/** Value types. Each has one parser and one "allowed" description. */
enum profile_type {
	PROFILE_T_U32,     /**< decimal or 0x hex, min..max; off -> u16 or u32 */
	PROFILE_T_U64,     /**< decimal or 0x hex */
	PROFILE_T_BOOL,    /**< true/false/yes/no/on/off/1/0 */
	PROFILE_T_MAC,     /**< unicast MAC; off_has -> bool */
	PROFILE_T_IP4,     /**< a.b.c.d/len; off -> u32 host order, off2 -> depth */
	PROFILE_T_IP6,     /**< addr/len; off -> u8[16], off2 -> depth */
	PROFILE_T_STRING,  /**< off -> char[size] */
	PROFILE_T_ENUM,    /**< one of names[]; off -> u8 */
	PROFILE_T_GBPS,    /**< decimal Gbit/s -> u32 Mbit/s */
	PROFILE_T_LCORES,  /**< "1", "1,2", "1-3"; off -> u16[], off2 -> u16 count */
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
	uint64_t min;      /**< U32 / GBPS (in Mbit/s) range */
	uint64_t max;
	bool zero_ok;      /**< 0 is allowed besides min..max ("auto") */
	const char *const *names; /**< ENUM names, NULL-terminated, index = value */
	const char *def;   /**< default as profile text; NULL = unset */
	const char *unit;  /**< "" when none */
	const char *help;
};

/** The table, and its length. */
extern const struct profile_key profile_keys[];
extern const unsigned int profile_n_keys;

/** Section names of the kinds, e.g. "general", "port.<name>". */
const char *profile_sect_name(enum profile_sect s);

/**
 * Parse @p val for key @p k into the struct at @p base (struct aifab_profile
 * or struct aifab_port_params, as the key's section says).
 * @return 0, or -1 with @p why filled (no "allowed" part).
 */
int profile_key_parse(const struct profile_key *k, void *base,
		      const char *val, char *why, size_t whylen);

/** Human description of what @p k accepts, e.g. "1..512". */
void profile_key_allowed(const struct profile_key *k, char *buf, size_t len);

/** Human name of @p k's type, e.g. "u32". */
const char *profile_type_name(enum profile_type t);

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
