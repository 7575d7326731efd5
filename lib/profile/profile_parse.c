/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Profile values: one parser per key type (decimal, hex, booleans, MAC and
 * IP prefixes, lcore lists, maps, flag lists, hex bytes) and the "allowed"
 * text of each key, plus the address and switch-name checks the loader
 * shares. Calls nothing else in lib/profile.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_string_fns.h>

#include "profile_priv.h"

static void
whyf(char *why, size_t len, const char *fmt, ...) __rte_format_printf(3, 4);

static void
whyf(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* Decimal, or hex with 0x. No sign, no spaces, no octal surprises. */
static int
parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	const char *digits = s;
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = s + 2;
		base = 16;
		if (!isxdigit((unsigned char)*digits))
			return -1;
	} else if (!isdigit((unsigned char)*digits)) {
		return -1;
	}
	errno = 0;
	x = strtoull(digits, &end, base);
	if (errno != 0 || *end != '\0' || x > max)
		return -1;
	*v = x;
	return 0;
}

/* "2.5" with @p dec = 3 -> 2500: the text x 10^dec, at most @p dec decimals. */
static int
parse_decimal(const char *s, unsigned int dec, uint64_t *out)
{
	uint64_t whole = 0, frac = 0;
	unsigned int nw = 0, nf = 0;

	for (; isdigit((unsigned char)*s); s++, nw++) {
		if (nw >= 9)
			return -1;
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (nw == 0)
		return -1;
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, nf++) {
			if (nf >= dec)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
		if (nf == 0)
			return -1;
	}
	if (*s != '\0')
		return -1;
	for (; nf < dec; nf++)
		frac *= 10;
	for (nf = 0; nf < dec; nf++)
		whole *= 10;
	*out = whole + frac;
	return 0;
}

/* @p v / 10^dec as short decimal text: 10 with dec 3 -> "0.01". */
static void
fmt_decimal(uint64_t v, unsigned int dec, char *buf, size_t len)
{
	uint64_t scale = 1, frac;
	unsigned int i, n = dec;

	for (i = 0; i < dec; i++)
		scale *= 10;
	frac = v % scale;
	if (frac == 0) {
		snprintf(buf, len, "%" PRIu64, v / scale);
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		n--;
	}
	snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, v / scale, (int)n, frac);
}

static int
parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	unsigned int i;

	for (i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*b = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*b = false;
			return 0;
		}
	}
	return -1;
}

int
profile_parse_mac(const char *s, struct rte_ether_addr *mac,
		  char *why, size_t whylen)
{
	unsigned int i;
	char sep = s[0] != '\0' && s[1] != '\0' ? s[2] : '\0';

	if (strlen(s) != 17 || (sep != ':' && sep != '-')) {
		whyf(why, whylen, "not a MAC address");
		return -1;
	}
	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++) {
		const char *h = s + 3 * i;
		char pair[3] = { h[0], h[1], '\0' };

		if (!isxdigit((unsigned char)h[0]) ||
		    !isxdigit((unsigned char)h[1]) ||
		    (i < RTE_ETHER_ADDR_LEN - 1 && h[2] != sep)) {
			whyf(why, whylen, "not a MAC address");
			return -1;
		}
		mac->addr_bytes[i] = (uint8_t)strtoul(pair, NULL, 16);
	}
	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac)) {
		whyf(why, whylen, "not a unicast MAC address");
		return -1;
	}
	return 0;
}

int
profile_parse_addr(const char *s, uint8_t *family, uint8_t addr[16])
{
	memset(addr, 0, 16);
	if (strchr(s, ':') == NULL) {
		*family = AF_INET;
		return inet_pton(AF_INET, s, addr) == 1 ? 0 : -1;
	}
	*family = AF_INET6;
	return inet_pton(AF_INET6, s, addr) == 1 ? 0 : -1;
}

int
profile_parse_prefix(const char *s, uint8_t *family, uint8_t addr[16],
		     uint8_t *depth, char *why, size_t whylen)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	uint64_t d;
	size_t n;

	if (slash == NULL) {
		whyf(why, whylen, "missing '/<prefix length>'");
		return -1;
	}
	n = (size_t)(slash - s);
	if (n >= sizeof(buf)) {
		whyf(why, whylen, "not an IP address before '/'");
		return -1;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (profile_parse_addr(buf, family, addr) != 0) {
		whyf(why, whylen, "not an IP address before '/'");
		return -1;
	}
	if (!isdigit((unsigned char)slash[1]) || strlen(slash + 1) > 3 ||
	    parse_uint(slash + 1, *family == AF_INET ? 32 : 128, &d) != 0) {
		whyf(why, whylen, "bad prefix length '%s'", slash + 1);
		return -1;
	}
	*depth = (uint8_t)d;
	return 0;
}

/* "1", "1,2", "1-3", "" -> sorted as written, no duplicates. */
static int
parse_lcores(const char *s, uint16_t *ids, uint16_t *n, char *why,
	     size_t whylen)
{
	char buf[CFG_VALUE_LEN];
	char *tok, *save = NULL;
	uint16_t cnt = 0;

	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf)) {
		whyf(why, whylen, "too long");
		return -1;
	}
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char *dash, *lo_s = tok, *hi_s;
		uint64_t lo, hi, id;
		uint16_t j;

		while (isspace((unsigned char)*lo_s))
			lo_s++;
		dash = strchr(lo_s, '-');
		if (dash != NULL)
			*dash = '\0';
		hi_s = dash != NULL ? dash + 1 : lo_s;
		while (isspace((unsigned char)*hi_s))
			hi_s++;
		lo_s[strcspn(lo_s, " \t")] = '\0';
		hi_s[strcspn(hi_s, " \t")] = '\0';
		if (parse_uint(lo_s, UINT32_MAX, &lo) != 0 ||
		    parse_uint(hi_s, UINT32_MAX, &hi) != 0 || hi < lo) {
			whyf(why, whylen, "bad lcore list entry");
			return -1;
		}
		if (hi > RTE_MAX_LCORE - 1) {
			whyf(why, whylen, "lcore %" PRIu64
			     " is above RTE_MAX_LCORE-1", hi);
			return -1;
		}
		for (id = lo; id <= hi; id++) {
			for (j = 0; j < cnt; j++) {
				if (ids[j] == id) {
					whyf(why, whylen, "lcore %" PRIu64
					     " listed twice", id);
					return -1;
				}
			}
			if (cnt >= AIFAB_MAX_WORKERS) {
				whyf(why, whylen, "more than %d lcores",
				     AIFAB_MAX_WORKERS);
				return -1;
			}
			ids[cnt++] = (uint16_t)id;
		}
	}
	*n = cnt;
	return 0;
}

/* "26:3, 48:6" -> map[26] = 3, map[48] = 6, every other entry 0. */
static int
parse_map(const char *s, uint8_t *map, size_t n, uint64_t vmax,
	  char *why, size_t whylen)
{
	char buf[CFG_VALUE_LEN];
	uint8_t out[256];
	bool seen[256] = { false };
	char *tok, *save = NULL;

	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf)) {
		whyf(why, whylen, "too long");
		return -1;
	}
	if (n > sizeof(out))
		n = sizeof(out);
	memset(out, 0, n);
	for (tok = strtok_r(buf, " \t,", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t,", &save)) {
		char *colon = strchr(tok, ':');
		uint64_t k, v;

		if (colon == NULL) {
			whyf(why, whylen, "'%s' is not key:value", tok);
			return -1;
		}
		*colon = '\0';
		if (parse_uint(tok, UINT32_MAX, &k) != 0 ||
		    parse_uint(colon + 1, UINT32_MAX, &v) != 0) {
			*colon = ':';
			whyf(why, whylen, "'%s' is not key:value", tok);
			return -1;
		}
		if (k >= n) {
			whyf(why, whylen, "key %" PRIu64 " is not in 0..%zu",
			     k, n - 1);
			return -1;
		}
		if (v > vmax) {
			whyf(why, whylen, "value %" PRIu64 " of key %" PRIu64
			     " is not in 0..%" PRIu64, v, k, vmax);
			return -1;
		}
		if (seen[k]) {
			whyf(why, whylen, "key %" PRIu64 " listed twice", k);
			return -1;
		}
		seen[k] = true;
		out[k] = (uint8_t)v;
	}
	memcpy(map, out, n);
	return 0;
}

/* "sip,dip" -> bit i for names[i]. */
static int
parse_flags(const char *s, const char *const *names, bool empty_ok,
	    uint32_t *flags, char *why, size_t whylen)
{
	char buf[CFG_VALUE_LEN];
	char *tok, *save = NULL;
	uint32_t out = 0;
	unsigned int i;

	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf)) {
		whyf(why, whylen, "too long");
		return -1;
	}
	for (tok = strtok_r(buf, " \t,", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t,", &save)) {
		for (i = 0; names[i] != NULL; i++)
			if (strcmp(tok, names[i]) == 0)
				break;
		if (names[i] == NULL) {
			whyf(why, whylen, "unknown name '%s'", tok);
			return -1;
		}
		if (out & (1u << i)) {
			whyf(why, whylen, "'%s' listed twice", tok);
			return -1;
		}
		out |= 1u << i;
	}
	if (out == 0 && !empty_ok) {
		whyf(why, whylen, "empty");
		return -1;
	}
	*flags = out;
	return 0;
}

static int
hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "full" -> 1, "off" -> 0, "every=N" -> N (min..max). */
static int
parse_sample(const char *s, uint64_t min, uint64_t max, uint32_t *out,
	     char *why, size_t whylen)
{
	uint64_t v;

	if (strcmp(s, "full") == 0 || strcmp(s, "off") == 0) {
		*out = s[0] == 'f';
		return 0;
	}
	if (strncmp(s, "every=", 6) != 0 || parse_uint(s + 6, max, &v) != 0) {
		whyf(why, whylen, "not full, off or every=<number>");
		return -1;
	}
	if (v < min) {
		whyf(why, whylen, "out of range");
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* "6d5a.." or "6d:5a:.." -> bytes; ':' only between two bytes. */
static int
parse_hex(const char *s, uint8_t *out, size_t max, size_t *n,
	  char *why, size_t whylen)
{
	size_t cnt = 0;

	while (*s != '\0') {
		int hi, lo;

		if (*s == ':' && cnt > 0 && s[1] != '\0' && s[1] != ':') {
			s++;
			continue;
		}
		if (*s == ':') {
			whyf(why, whylen, "':' not between two bytes");
			return -1;
		}
		hi = hex_val(s[0]);
		lo = hi >= 0 && s[1] != '\0' ? hex_val(s[1]) : -1;
		if (hi < 0 || (s[1] != '\0' && s[1] != ':' && lo < 0)) {
			whyf(why, whylen, "'%c' is not a hex digit",
			     hi < 0 ? s[0] : s[1]);
			return -1;
		}
		if (lo < 0) {
			whyf(why, whylen, "odd number of hex digits");
			return -1;
		}
		if (cnt >= max) {
			whyf(why, whylen, "more than %zu bytes", max);
			return -1;
		}
		out[cnt++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	*n = cnt;
	return 0;
}

static void
set_has(const struct profile_key *k, uint8_t *base, bool has)
{
	if (k->off_has != SIZE_MAX)
		*(bool *)(base + k->off_has) = has;
}

/*
 * U32, U64 and DECIMAL: the number in @p v, within min..max (or 0 when
 * zero_ok). U32 is at most UINT32_MAX before the range applies.
 */
static int
key_number(const struct profile_key *k, const char *val, uint64_t *v,
	   char *why, size_t whylen)
{
	if (k->type == PROFILE_T_DECIMAL) {
		if (parse_decimal(val, k->decimals, v) != 0) {
			whyf(why, whylen, "not a decimal number with at most "
			     "%u decimals", k->decimals);
			return -1;
		}
	} else if (parse_uint(val, k->type == PROFILE_T_U64 ? UINT64_MAX :
			      UINT32_MAX, v) != 0) {
		whyf(why, whylen, "not a number");
		return -1;
	}
	if (!(k->zero_ok && *v == 0) && (*v < k->min || *v > k->max)) {
		whyf(why, whylen, "out of range");
		return -1;
	}
	return 0;
}

/* U32 into a u16 or u32 field; a power of two where the key says so. */
static int
key_u32(const struct profile_key *k, uint8_t *base, const char *val,
	char *why, size_t whylen)
{
	uint8_t *f = base + k->off;
	uint64_t v;

	if (key_number(k, val, &v, why, whylen) != 0)
		return -1;
	if (k->pow2 && (v & (v - 1)) != 0) {
		whyf(why, whylen, "not a power of two");
		return -1;
	}
	if (k->size == sizeof(uint16_t))
		*(uint16_t *)f = (uint16_t)v;
	else
		*(uint32_t *)f = (uint32_t)v;
	set_has(k, base, true);
	return 0;
}

/* ENUM: the index of @p val among the key's names, as a u8. */
static int
key_enum(const struct profile_key *k, uint8_t *f, const char *val,
	 char *why, size_t whylen)
{
	unsigned int i;

	for (i = 0; k->names[i] != NULL; i++)
		if (strcmp(val, k->names[i]) == 0)
			break;
	if (k->names[i] == NULL) {
		whyf(why, whylen, "unknown value");
		return -1;
	}
	*f = (uint8_t)i;
	return 0;
}

/* IP4 / IP6: a port's address and prefix length (not 0), then the depth. */
static int
key_prefix(const struct profile_key *k, uint8_t *base, const char *val,
	   char *why, size_t whylen)
{
	uint8_t *f = base + k->off;
	uint8_t fam, addr[16], depth;

	if (profile_parse_prefix(val, &fam, addr, &depth, why, whylen) != 0)
		return -1;
	if (fam != (k->type == PROFILE_T_IP4 ? AF_INET : AF_INET6)) {
		whyf(why, whylen, "wrong address family");
		return -1;
	}
	if (depth == 0) {
		whyf(why, whylen, "prefix length 0 on a port");
		return -1;
	}
	if (k->type == PROFILE_T_IP4) {
		uint32_t be;

		memcpy(&be, addr, sizeof(be));
		*(uint32_t *)f = rte_be_to_cpu_32(be);
	} else {
		memcpy(f, addr, 16);
	}
	base[k->off2] = depth;
	set_has(k, base, true);
	return 0;
}

/* HEX: min or max bytes (or none when zero_ok), zero-padded; the length. */
static int
key_hex(const struct profile_key *k, uint8_t *base, const char *val,
	char *why, size_t whylen)
{
	uint8_t *f = base + k->off;
	uint8_t bytes[256];
	size_t n;

	if (parse_hex(val, bytes, RTE_MIN(k->size, sizeof(bytes)), &n,
		      why, whylen) != 0)
		return -1;
	if (!(k->zero_ok && n == 0) && n != k->min && n != k->max) {
		whyf(why, whylen, "%zu bytes given", n);
		return -1;
	}
	memset(f, 0, k->size);
	memcpy(f, bytes, n);
	base[k->off2] = (uint8_t)n;
	return 0;
}

int
profile_key_parse(const struct profile_key *k, void *basev, const char *val,
		  char *why, size_t whylen)
{
	uint8_t *base = basev;
	uint8_t *f = base + k->off;
	uint64_t v;
	bool b;

	/* Optional keys: empty text means unset. */
	if (k->off_has != SIZE_MAX && val[0] == '\0') {
		set_has(k, base, false);
		return 0;
	}

	switch (k->type) {
	case PROFILE_T_U32:
		return key_u32(k, base, val, why, whylen);
	case PROFILE_T_U64:
		if (key_number(k, val, &v, why, whylen) != 0)
			return -1;
		*(uint64_t *)f = v;
		break;
	case PROFILE_T_DECIMAL:
		if (key_number(k, val, &v, why, whylen) != 0)
			return -1;
		*(uint32_t *)f = (uint32_t)v;
		break;
	case PROFILE_T_BOOL:
		if (parse_bool(val, &b) != 0) {
			whyf(why, whylen, "not a boolean");
			return -1;
		}
		*(bool *)f = b;
		break;
	case PROFILE_T_STRING:
		if (strlen(val) >= k->size) {
			whyf(why, whylen, "too long");
			return -1;
		}
		strlcpy((char *)f, val, k->size);
		break;
	case PROFILE_T_ENUM:
		return key_enum(k, f, val, why, whylen);
	case PROFILE_T_MAC:
		if (profile_parse_mac(val, (struct rte_ether_addr *)f,
				      why, whylen) != 0)
			return -1;
		set_has(k, base, true);
		break;
	case PROFILE_T_IP4:
	case PROFILE_T_IP6:
		return key_prefix(k, base, val, why, whylen);
	case PROFILE_T_LCORES:
		return parse_lcores(val, (uint16_t *)f,
				    (uint16_t *)(base + k->off2), why, whylen);
	case PROFILE_T_MAP:
		return parse_map(val, f, k->size, k->max, why, whylen);
	case PROFILE_T_FLAGS:
		return parse_flags(val, k->names, k->zero_ok, (uint32_t *)f,
				   why, whylen);
	case PROFILE_T_HEX:
		return key_hex(k, base, val, why, whylen);
	case PROFILE_T_SAMPLE:
		return parse_sample(val, k->min, RTE_MIN(k->max, UINT32_MAX),
				    (uint32_t *)f, why, whylen);
	default:
		whyf(why, whylen, "internal: unknown key type");
		return -1;
	}
	return 0;
}

void
profile_key_allowed(const struct profile_key *k, char *buf, size_t len)
{
	unsigned int i;

	switch (k->type) {
	case PROFILE_T_U32:
		snprintf(buf, len, "%s%" PRIu64 "..%" PRIu64 "%s%s",
			 k->zero_ok ? "0 or " : "", k->min, k->max,
			 k->pow2 ? ", a power of two" : "",
			 k->off_has != SIZE_MAX ? ", or empty = unset" : "");
		break;
	case PROFILE_T_U64:
		snprintf(buf, len, "%s%" PRIu64 "..%" PRIu64
			 " (decimal or 0x hex)",
			 k->zero_ok ? "0 or " : "", k->min, k->max);
		break;
	case PROFILE_T_DECIMAL: {
		char lo[32], hi[32];

		fmt_decimal(k->min, k->decimals, lo, sizeof(lo));
		fmt_decimal(k->max, k->decimals, hi, sizeof(hi));
		snprintf(buf, len, "%s%s..%s (at most %u decimals)",
			 k->zero_ok ? "0 or " : "", lo, hi, k->decimals);
		break;
	}
	case PROFILE_T_MAP:
		snprintf(buf, len, "key:value pairs separated by blanks or "
			 "commas, keys 0..%zu each once, values 0..%" PRIu64
			 "; keys not listed map to 0", k->size - 1, k->max);
		break;
	case PROFILE_T_FLAGS:
		strlcpy(buf, "names separated by blanks or commas, each once, "
			"from: ", len);
		for (i = 0; k->names[i] != NULL; i++) {
			if (i > 0)
				strlcat(buf, ", ", len);
			strlcat(buf, k->names[i], len);
		}
		if (!k->zero_ok)
			strlcat(buf, "; not empty", len);
		break;
	case PROFILE_T_HEX:
		snprintf(buf, len, "%" PRIu64 " or %" PRIu64 " bytes as hex "
			 "digits, ':' allowed between bytes%s", k->min, k->max,
			 k->zero_ok ? "; or empty" : "");
		break;
	case PROFILE_T_BOOL:
		snprintf(buf, len, "true, false, yes, no, on, off, 1, 0");
		break;
	case PROFILE_T_STRING:
		snprintf(buf, len, "up to %zu characters", k->size - 1);
		break;
	case PROFILE_T_ENUM:
		buf[0] = '\0';
		for (i = 0; k->names[i] != NULL; i++) {
			if (i > 0)
				strlcat(buf, ", ", len);
			strlcat(buf, k->names[i], len);
		}
		break;
	case PROFILE_T_MAC:
		snprintf(buf, len, "unicast MAC like 02:aa:00:00:00:01%s",
			 k->off_has != SIZE_MAX ? ", or empty = unset" : "");
		break;
	case PROFILE_T_IP4:
		snprintf(buf, len, "a.b.c.d/len with len 1..32%s",
			 k->off_has != SIZE_MAX ? ", or empty = unset" : "");
		break;
	case PROFILE_T_IP6:
		snprintf(buf, len, "IPv6 address/len with len 1..128%s",
			 k->off_has != SIZE_MAX ? ", or empty = unset" : "");
		break;
	case PROFILE_T_SAMPLE:
		snprintf(buf, len, "full, off, or every=N with N %" PRIu64
			 "..%" PRIu64 " (every=1 = full)", k->min, k->max);
		break;
	case PROFILE_T_LCORES:
		snprintf(buf, len, "comma-separated lcore ids or ranges "
			 "(a, a,b, a-b) within 0..%d, at most %d; empty = all "
			 "workers", RTE_MAX_LCORE - 1, AIFAB_MAX_WORKERS);
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
}


void
profile_fmt_addr(uint8_t family, const uint8_t *a, char *buf, size_t len)
{
	if (inet_ntop(family, a, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

/* A switch name: a lower-case letter, then a-z 0-9 _ (a lib/stats set
 * name "sw_<name>" and a telemetry command). */
bool
profile_sw_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= AIFAB_NAME_LEN || !islower((unsigned char)s[0]))
		return false;
	for (; *s != '\0'; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s)
		    &&
		    *s != '_')
			return false;
	return true;
}
