/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab ECMP: flow hashing and next-hop group member selection.
 *
 * A hash config (function, per-switch seed, selected fields, Toeplitz key)
 * turns a flow key (addresses, IP protocol, L4 ports, RoCEv2 destination QP)
 * into a 32-bit hash; a group turns the hash into a member slot, either
 * plainly (hash mod number of active members) or resiliently (a bucket
 * table indexed by the hash's low bits, where a member going down or up
 * moves only the buckets it must).
 *
 * The hash input is a tuple of 32-bit words in CPU byte order (the layout
 * rte_softrss() takes), with unselected fields zero:
 *   IPv4: w0 source address, w1 destination address,
 *   IPv6: w0..w3 source address, w4..w7 destination address
 *         (each word one big-endian 4-byte group of the address),
 *   then  sport << 16 | dport,
 *   then, only if PROTO or DQPN is selected, proto << 24 | dqpn.
 * Functions over the tuple:
 *   - crc32c:   fmix32(rte_hash_crc(tuple, 4 * n, seed)). CRC is affine in
 *               its initial value, so two seeds alone would differ only by
 *               an XOR constant and keep two tiers' choices correlated; the
 *               fixed bijective finalizer (MurmurHash3 fmix32) makes the seed
 *               decorrelate them.
 *   - toeplitz: rte_softrss_be(tuple, n, key) with the key converted once;
 *               a non-zero seed is XORed into the key (splitmix64 stream),
 *               seed 0 leaves the key as given, so RSS reference values hold.
 *   - jhash:    rte_jhash(tuple, 4 * n, seed).
 *
 * Nothing here allocates, locks or reads a clock. Hashing and selection
 * only read their config / group. Group updates are plain stores made by
 * the control plane; see aifab_ecmp_member_set_active() for what a reader
 * on another lcore may see meanwhile.
 */
#ifndef AIFAB_ECMP_H
#define AIFAB_ECMP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash_crc.h>

#ifdef __cplusplus
extern "C" {
#endif

struct aifab_pkt_info;

/** Hash functions. One list gives the enum and the profile names. */
#define AIFAB_ECMP_HASH_FNS(X) \
	X(CRC32C, "crc32c") \
	X(TOEPLITZ, "toeplitz") \
	X(JHASH, "jhash")

#define AIFAB_ECMP_FN_ENUM(e, s) AIFAB_ECMP_HASH_##e,
enum aifab_ecmp_hash_fn {
	AIFAB_ECMP_HASH_FNS(AIFAB_ECMP_FN_ENUM) AIFAB_ECMP_HASH_MAX
};
#undef AIFAB_ECMP_FN_ENUM

/** Hashed fields, as bits. One list gives the bits and the profile names. */
#define AIFAB_ECMP_FIELDS(X) \
	X(SIP, "sip") \
	X(DIP, "dip") \
	X(PROTO, "proto") \
	X(SPORT, "sport") \
	X(DPORT, "dport") \
	X(DQPN, "dqpn")

#define AIFAB_ECMP_FIELD_ENUM(e, s) AIFAB_ECMP_FB_##e,
enum aifab_ecmp_field_bit {
	AIFAB_ECMP_FIELDS(AIFAB_ECMP_FIELD_ENUM) AIFAB_ECMP_FB_MAX
};
#undef AIFAB_ECMP_FIELD_ENUM

#define AIFAB_ECMP_F_SIP (1u << AIFAB_ECMP_FB_SIP)
#define AIFAB_ECMP_F_DIP (1u << AIFAB_ECMP_FB_DIP)
#define AIFAB_ECMP_F_PROTO (1u << AIFAB_ECMP_FB_PROTO)
#define AIFAB_ECMP_F_SPORT (1u << AIFAB_ECMP_FB_SPORT)
#define AIFAB_ECMP_F_DPORT (1u << AIFAB_ECMP_FB_DPORT)
#define AIFAB_ECMP_F_DQPN (1u << AIFAB_ECMP_FB_DQPN)
/** Every field. */
#define AIFAB_ECMP_F_ALL ((1u << AIFAB_ECMP_FB_MAX) - 1)
/** The classic 5-tuple. */
#define AIFAB_ECMP_F_5TUPLE (AIFAB_ECMP_F_SIP | AIFAB_ECMP_F_DIP | \
	AIFAB_ECMP_F_PROTO | AIFAB_ECMP_F_SPORT | AIFAB_ECMP_F_DPORT)

/** Longest Toeplitz key accepted. */
#define AIFAB_ECMP_RSS_KEY_MAX 52
/** Shortest Toeplitz key accepted (the Microsoft key's length). */
#define AIFAB_ECMP_RSS_KEY_MIN 40
/** Longest hash input in 32-bit words (IPv6 with proto / dqpn). */
#define AIFAB_ECMP_TUPLE_WORDS 10

/** What the user chooses (profile [ecmp] section). */
struct aifab_ecmp_params {
	enum aifab_ecmp_hash_fn fn;
	uint32_t seed;      /**< per switch; same fn + seed on two tiers polarise */
	uint32_t fields;    /**< AIFAB_ECMP_F_*, at least one */
	/**
	 * Toeplitz key as on the wire (NIC byte order). rss_key_len 0: the
	 * default, the 40-byte Microsoft RSS key followed by its own first
	 * 12 bytes. Otherwise a multiple of 4 in 40..52, and >= 44 when PROTO
	 * or DQPN is selected (Toeplitz reads one key word past the input).
	 */
	uint8_t rss_key[AIFAB_ECMP_RSS_KEY_MAX];
	uint8_t rss_key_len;
};

/** Validated, compiled hash config. Fields are private to the library. */
struct aifab_ecmp_cfg {
	enum aifab_ecmp_hash_fn fn;
	uint32_t seed;
	uint32_t fields;
	uint32_t src_mask;    /**< mask of the source address words */
	uint32_t dst_mask;    /**< mask of the destination address words */
	uint32_t ports_mask;  /**< mask of the sport/dport word */
	uint32_t extra_mask;  /**< mask of the proto/dqpn word */
	uint8_t extra_word;   /**< 1 if the proto/dqpn word is hashed */
	/** Toeplitz key (seed applied), converted for rte_softrss_be(). */
	uint32_t key[AIFAB_ECMP_RSS_KEY_MAX / 4];
};

/** The fields of one flow that can be hashed. */
struct aifab_ecmp_flow {
	uint8_t family;   /**< 4 or 6 */
	uint8_t proto;    /**< IP protocol / IPv6 final next header */
	uint16_t sport;   /**< L4 source port, host order (0 if none) */
	uint16_t dport;   /**< L4 destination port, host order (0 if none) */
	uint32_t dqpn;    /**< BTH destination QP, 24 bits (0 if not RoCE) */
	uint8_t src[16];  /**< network order; IPv4 in the first 4 bytes */
	uint8_t dst[16];
};

/** The Microsoft RSS key (40 bytes), the Toeplitz default. */
extern const uint8_t aifab_ecmp_ms_rss_key[AIFAB_ECMP_RSS_KEY_MIN];

/**
 * Validate @p params and compile them into @p cfg.
 * @return 0, or -EINVAL (unknown function, no or unknown fields, bad key
 *   length); @p cfg is untouched on error.
 */
int aifab_ecmp_config(struct aifab_ecmp_cfg *cfg,
		      const struct aifab_ecmp_params *params);

/**
 * Hash a flow. The result does not depend on unselected fields.
 * @return the 32-bit hash.
 */
uint32_t aifab_ecmp_hash(const struct aifab_ecmp_cfg *cfg,
			 const struct aifab_ecmp_flow *flow);

/**
 * Fill a flow key from a parsed frame.
 *
 * Ports come from UDP (parser) or, for TCP / SCTP, from the first 4 bytes
 * after the IP header when they lie within @p avail. Fragments (first or
 * later) get ports and dqpn 0, so all fragments of a datagram share a path.
 * dqpn is set for RoCEv2 (AIFAB_PKT_F_ROCE) only.
 *
 * @param buf    the frame bytes aifab_pkt_parse() read (frame start).
 * @param avail  bytes readable at @p buf.
 * @param pi     aifab_pkt_parse() result (returned OK).
 * @return 0, or -EINVAL when the frame is not IPv4 / IPv6.
 */
int aifab_ecmp_flow_from_pkt(struct aifab_ecmp_flow *flow, const uint8_t *buf,
			     uint32_t avail, const struct aifab_pkt_info *pi);

/**
 * A burst of parsed frames at once: for each i < @p n,
 * aifab_ecmp_flow_from_pkt(&flow, buf[i], avail[i], pi[i]) then, when it
 * succeeded, hash[i] = aifab_ecmp_hash(cfg, &flow) and ok[i] = 1; else
 * ok[i] = 0 (hash[i] unset). The same results as the two calls per frame,
 * without a call across libraries per frame.
 */
void aifab_ecmp_hash_pkts(const struct aifab_ecmp_cfg *cfg,
			  const uint8_t *const *buf, const uint32_t *avail,
			  const struct aifab_pkt_info *const *pi, uint16_t n,
			  uint32_t *hash, uint8_t *ok);

/**
 * MurmurHash3's 32-bit finalizer (a bijection that mixes all bits), the
 * last step of aifab_ecmp_hash() for CRC32C. A plain function of its
 * word: a loop of it over an array vectorises.
 */
static inline uint32_t
aifab_ecmp_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85EBCA6Bu;
	h ^= h >> 13;
	h *= 0xC2B2AE35u;
	h ^= h >> 16;
	return h;
}

/**
 * rte_hash_crc_8byte() and rte_hash_crc_4byte(): the same CRC32C. Where
 * the build has SSE4.2 the instruction itself, without the check of
 * the algorithm rte_hash_crc.h makes at every call (the switch hashes
 * every frame).
 */
static inline uint32_t
aifab_ecmp_crc32c_8(uint64_t data, uint32_t init)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	return (uint32_t)__builtin_ia32_crc32di(init, data);
#else
	return rte_hash_crc_8byte(data, init);
#endif
}

static inline uint32_t
aifab_ecmp_crc32c_4(uint32_t data, uint32_t init)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	return __builtin_ia32_crc32si(init, data);
#else
	return rte_hash_crc_4byte(data, init);
#endif
}

/**
 * The CRC32C register over an IPv4 tuple's words, masked as @p cfg
 * says: @p sd the addresses in host order (the source in the low 32
 * bits, the destination in the high), @p p the ports word (sport << 16
 * | dport), @p x the proto/dqpn word (hashed when cfg->extra_word).
 * Little-endian hosts: rte_hash_crc()'s 8-byte loads of the tuple's
 * array, from registers.
 */
static inline uint32_t
aifab_ecmp_crc32c_words4(uint32_t seed, uint64_t sd, uint32_t p,
			 bool extra, uint32_t x)
{
	uint32_t h = aifab_ecmp_crc32c_8(sd, seed);

	if (extra)
		return aifab_ecmp_crc32c_8((uint64_t)x << 32 | p, h);
	return aifab_ecmp_crc32c_4(p, h);
}

/**
 * aifab_ecmp_hash4_crc32c() before its finalizer: the CRC32C register
 * over the tuple; aifab_ecmp_fmix32() of it is the hash.
 */
static inline uint32_t
aifab_ecmp_hash4_crc32c_raw(const struct aifab_ecmp_cfg *cfg,
			    const uint8_t *l3, uint16_t sport, uint16_t dport,
			    uint8_t proto, uint32_t dqpn)
{
	uint32_t s, d, p = (((uint32_t)sport << 16) | dport) & cfg->ports_mask;
	uint32_t h;

	memcpy(&s, l3 + 12, sizeof(s)); /* any alignment */
	memcpy(&d, l3 + 16, sizeof(d));
	s = rte_be_to_cpu_32(s) & cfg->src_mask;
	d = rte_be_to_cpu_32(d) & cfg->dst_mask;

#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	h = aifab_ecmp_crc32c_words4(cfg->seed, (uint64_t)d << 32 | s, p,
		cfg->extra_word, (((uint32_t)proto << 24) |
				  (dqpn & 0xFFFFFFu)) & cfg->extra_mask);
#else
	uint32_t t[4] __rte_aligned(8) = { s, d, p, 0 };
	uint32_t n = 3;

	if (cfg->extra_word)
		t[n++] = (((uint32_t)proto << 24) | (dqpn & 0xFFFFFFu)) &
			 cfg->extra_mask;
	h = rte_hash_crc(t, 4 * n, cfg->seed);
#endif
	return h;
}

/**
 * aifab_ecmp_hash() of an IPv4 flow when @p cfg's function is CRC32C,
 * inline, from the fields as a datapath has them: the addresses as they
 * sit in the header (@p l3: the IPv4 header), ports in host order, @p
 * dqpn 0 unless RoCE. The same tuple and the same result as
 * aifab_ecmp_flow_from_pkt() + aifab_ecmp_hash() for a UDP packet that is
 * not a fragment.
 */
static inline uint32_t
aifab_ecmp_hash4_crc32c(const struct aifab_ecmp_cfg *cfg, const uint8_t *l3,
			uint16_t sport, uint16_t dport, uint8_t proto,
			uint32_t dqpn)
{
	return aifab_ecmp_fmix32(aifab_ecmp_hash4_crc32c_raw(cfg, l3, sport,
							     dport, proto,
							     dqpn));
}

/** Profile name of a hash function ("crc32c" ...), or NULL if unknown. */
const char *aifab_ecmp_hash_fn_name(enum aifab_ecmp_hash_fn fn);

/** Hash function from its name. @return the enum (>= 0), or -EINVAL. */
int aifab_ecmp_hash_fn_parse(const char *name);

/** Profile name of one field bit (AIFAB_ECMP_F_SIP ...), or NULL. */
const char *aifab_ecmp_field_name(uint32_t field);

/**
 * Parse a field list such as "sip,dip,sport,dqpn" (comma or '+'
 * separated, spaces allowed) into AIFAB_ECMP_F_* bits.
 * @return 0 with *fields set, or -EINVAL (empty, unknown name).
 */
int aifab_ecmp_fields_parse(const char *text, uint32_t *fields);

/* ---- groups ------------------------------------------------------------- */

/** Largest group (same as the FIB's). */
#define AIFAB_ECMP_MAX_MEMBERS 16
/** Most buckets in a resilient group. */
#define AIFAB_ECMP_MAX_BUCKETS 1024
/** Buckets when init is given 0. */
#define AIFAB_ECMP_DEFAULT_BUCKETS 256
/** Selection result when no member is active. */
#define AIFAB_ECMP_NONE 0xFFu

/**
 * A next-hop group: members (slot -> caller's id, e.g. a FIB next-hop
 * index), which are active, and the bucket table. About 2.1 KB; plain
 * values, may live in an array. Read the fields only through the calls.
 */
struct aifab_ecmp_group {
	uint16_t n_members;
	uint16_t n_active;
	uint16_t n_buckets;   /**< power of two */
	uint8_t resilient;
	uint8_t active[AIFAB_ECMP_MAX_MEMBERS];      /**< by slot */
	uint8_t active_slot[AIFAB_ECMP_MAX_MEMBERS]; /**< plain: active slots */
	uint16_t member[AIFAB_ECMP_MAX_MEMBERS];     /**< slot -> id */
	uint16_t n_owned[AIFAB_ECMP_MAX_MEMBERS];    /**< buckets per slot */
	uint8_t bucket[AIFAB_ECMP_MAX_BUCKETS];      /**< bucket -> slot */
	uint8_t home[AIFAB_ECMP_MAX_BUCKETS];        /**< slot at init */
};

/**
 * Initialise a group with all members active. Bucket b starts on slot
 * b mod n (an even spread: every slot owns floor or ceil of n_buckets / n).
 *
 * @param members    ids, one per slot (duplicates allowed: a weight).
 * @param n          1..AIFAB_ECMP_MAX_MEMBERS.
 * @param n_buckets  power of two in n..AIFAB_ECMP_MAX_BUCKETS, or 0 for
 *                   AIFAB_ECMP_DEFAULT_BUCKETS. Plain groups use the buckets
 *                   only to report how much a change moves.
 * @param resilient  bucket table (true) or hash mod n_active (false).
 * @return 0, or -EINVAL.
 */
int aifab_ecmp_group_init(struct aifab_ecmp_group *g, const uint16_t *members,
			  unsigned int n, unsigned int n_buckets,
			  bool resilient);

/**
 * Take a member out (link down, neighbour lost) or put it back.
 *
 * Resilient: going down, only the member's buckets move, each to the
 * currently least-loaded active member (so all end with floor or ceil of
 * n_buckets / n_active); coming back, the member takes floor(n_buckets /
 * n_active) buckets, one at a time from the most-loaded members, and
 * nothing else moves. Of each donor's buckets it takes its own first (the
 * ones it owned at init), then those of members that are down. When the
 * group is whole again (every member active), the initial table comes
 * back: with one member away at a time that moves exactly the returning
 * member's buckets (its flows return, nobody else's move); after several
 * overlapping changes a few buckets members swapped meanwhile go home
 * too. Plain: the active list changes, so hash mod n_active
 * remaps most flows (roughly (n-1)/n of them for n -> n-1).
 *
 * Updates are plain single-byte stores, not atomic as a whole: a reader on
 * another lcore sees each bucket either old or new (always a valid slot or
 * AIFAB_ECMP_NONE), and a plain group's reader may briefly pick a slot that
 * just went down. Pipelines that cannot tolerate that swap in an updated
 * copy instead.
 *
 * @param slot    0..n_members-1.
 * @return the number of buckets whose member changed (plain groups: the
 *   number of hash values 0..n_buckets-1 whose member changed, an estimate
 *   of the share of flows moved), 0 if the state was already so, or
 *   -EINVAL (bad slot).
 */
int aifab_ecmp_member_set_active(struct aifab_ecmp_group *g,
				 unsigned int slot, bool active);

/**
 * A port went down or came back: set every member of @p g whose id maps
 * to @p port inactive / active (aifab_ecmp_member_set_active() for each,
 * in slot order; several slots on one port: a weighted member).
 *
 * @param port_of  member id -> port, for ids below @p n_ids (other ids
 *                 are on no port and never change).
 * @param slots    if not NULL, the bit of every slot whose state changed
 *                 is ORed in.
 * @return the buckets moved, summed over the changed slots (0 when no
 *   member is on @p port or all were already so).
 */
int aifab_ecmp_group_port_set(struct aifab_ecmp_group *g,
			      const uint16_t *port_of, unsigned int n_ids,
			      uint16_t port, bool active, uint32_t *slots);

/**
 * Slot of the member a hash selects (fast path).
 * @return 0..n_members-1, or AIFAB_ECMP_NONE when no member is active.
 */
static inline unsigned int
aifab_ecmp_select(const struct aifab_ecmp_group *g, uint32_t hash)
{
	if (g->resilient)
		return g->bucket[hash & (uint32_t)(g->n_buckets - 1)];
	if (g->n_active == 0)
		return AIFAB_ECMP_NONE;
	return g->active_slot[hash % g->n_active];
}

/** Id of the member in @p slot (slot < n_members). */
static inline uint16_t
aifab_ecmp_member(const struct aifab_ecmp_group *g, unsigned int slot)
{
	return g->member[slot];
}

/** Whether the member in @p slot is active (false for a bad slot). */
bool aifab_ecmp_member_active(const struct aifab_ecmp_group *g,
			      unsigned int slot);

/**
 * Slot of the first member with id @p id.
 * @return the slot (>= 0), or -ENOENT.
 */
int aifab_ecmp_group_find(const struct aifab_ecmp_group *g, uint16_t id);

/**
 * Imbalance of a group's load: max / mean of per-member bytes (1.0 is
 * perfect; n for everything on one of n members). Feed it the active
 * members' counters, summed over workers.
 * @return the ratio, or 0.0 when @p n is 0 or every count is 0.
 */
double aifab_ecmp_imbalance(const uint64_t *bytes, unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_ECMP_H */
