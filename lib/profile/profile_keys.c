/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one table of profile keys, and one parser per value type. Parsing,
 * defaults, --set, error messages and docs/profiles.md all come from here.
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

#define P_OFF(f) offsetof(struct aifab_profile, f)
#define P_SZ(f) sizeof(((struct aifab_profile *)0)->f)
#define PP_OFF(f) offsetof(struct aifab_port_params, f)
#define PP_SZ(f) sizeof(((struct aifab_port_params *)0)->f)

static const char *const role_names[] = { "downlink", "uplink", NULL };

const struct profile_key profile_keys[] = {
	/* [general] */
	{ .sect = PROFILE_SECT_GENERAL, .name = "name", .type = PROFILE_T_STRING,
	  .off = P_OFF(name), .size = P_SZ(name), .off_has = SIZE_MAX,
	  .def = "unnamed", .unit = "",
	  .help = "Profile name, shown in reports and telemetry." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "seed", .type = PROFILE_T_U64,
	  .off = P_OFF(seed), .size = P_SZ(seed), .off_has = SIZE_MAX,
	  .min = 0, .max = UINT64_MAX, .def = "1", .unit = "",
	  .help = "Seed of every random draw (ECN marking, ECMP hash, "
		  "generator jitter); the same seed reproduces a run." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "burst", .type = PROFILE_T_U32,
	  .off = P_OFF(burst), .size = P_SZ(burst), .off_has = SIZE_MAX,
	  .min = 1, .max = 512, .def = "32", .unit = "packets",
	  .help = "RX/TX burst size of every poll loop." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "mbufs", .type = PROFILE_T_U32,
	  .off = P_OFF(mbufs), .size = P_SZ(mbufs), .off_has = SIZE_MAX,
	  .min = 1024, .max = 1048576, .zero_ok = true, .def = "0",
	  .unit = "mbufs",
	  .help = "Mbufs per pool; 0 sizes the pool from the ports' "
		  "descriptor rings, burst and lcores." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "mbuf_cache", .type = PROFILE_T_U32,
	  .off = P_OFF(mbuf_cache), .size = P_SZ(mbuf_cache), .off_has = SIZE_MAX,
	  .min = 0, .max = 512, .def = "256", .unit = "mbufs",
	  .help = "Per-lcore mempool cache size." },

	/* [switch] */
	{ .sect = PROFILE_SECT_SWITCH, .name = "enabled", .type = PROFILE_T_BOOL,
	  .off = P_OFF(switch_enabled), .size = P_SZ(switch_enabled),
	  .off_has = SIZE_MAX, .def = "true", .unit = "",
	  .help = "Run the leaf switch pipeline." },
	{ .sect = PROFILE_SECT_SWITCH, .name = "lcores", .type = PROFILE_T_LCORES,
	  .off = P_OFF(switch_lcores), .size = P_SZ(switch_lcores),
	  .off2 = P_OFF(n_switch_lcores), .off_has = SIZE_MAX,
	  .def = "", .unit = "lcore ids",
	  .help = "Lcores that run the switch pipeline, e.g. `1`, `1,2` or "
		  "`1-3`; empty = every worker lcore (the main lcore if "
		  "there is none)." },
	{ .sect = PROFILE_SECT_SWITCH, .name = "check_ipv4_checksum",
	  .type = PROFILE_T_BOOL,
	  .off = P_OFF(check_ip4_csum), .size = P_SZ(check_ip4_csum),
	  .off_has = SIZE_MAX, .def = "true", .unit = "",
	  .help = "Verify IPv4 header checksums and drop bad ones." },

	/* [port.<name>] */
	{ .sect = PROFILE_SECT_PORT, .name = "device", .type = PROFILE_T_STRING,
	  .off = PP_OFF(device), .size = PP_SZ(device), .off_has = SIZE_MAX,
	  .def = "", .unit = "",
	  .help = "Ethdev name to bind (e.g. `0000:3b:00.0`, `net_pcap0`); "
		  "empty = the next unbound ethdev, in section order." },
	{ .sect = PROFILE_SECT_PORT, .name = "mac", .type = PROFILE_T_MAC,
	  .off = PP_OFF(mac), .size = PP_SZ(mac), .off_has = PP_OFF(has_mac),
	  .def = NULL, .unit = "",
	  .help = "Port MAC address; unset = the NIC's own. Unique among "
		  "ports." },
	{ .sect = PROFILE_SECT_PORT, .name = "ipv4", .type = PROFILE_T_IP4,
	  .off = PP_OFF(ip4), .size = PP_SZ(ip4), .off2 = PP_OFF(ip4_depth),
	  .off_has = PP_OFF(has_ip4), .def = NULL, .unit = "",
	  .help = "Port IPv4 address and subnet. Port subnets must not "
		  "overlap; each neighbour must be inside one." },
	{ .sect = PROFILE_SECT_PORT, .name = "ipv6", .type = PROFILE_T_IP6,
	  .off = PP_OFF(ip6), .size = PP_SZ(ip6), .off2 = PP_OFF(ip6_depth),
	  .off_has = PP_OFF(has_ip6), .def = NULL, .unit = "",
	  .help = "Port IPv6 address and subnet, same rules as `ipv4`." },
	{ .sect = PROFILE_SECT_PORT, .name = "role", .type = PROFILE_T_ENUM,
	  .off = PP_OFF(role), .size = PP_SZ(role), .off_has = SIZE_MAX,
	  .names = role_names, .def = "downlink", .unit = "",
	  .help = "`downlink` faces hosts/GPUs, `uplink` faces the spine "
		  "(ECMP group members)." },
	{ .sect = PROFILE_SECT_PORT, .name = "speed_gbps", .type = PROFILE_T_GBPS,
	  .off = PP_OFF(speed_mbps), .size = PP_SZ(speed_mbps),
	  .off_has = SIZE_MAX, .min = 10, .max = 1600000, .zero_ok = true,
	  .def = "0", .unit = "Gbit/s",
	  .help = "Shaper rate and PFC quanta time base; 0 = the link speed "
		  "the NIC reports." },
	{ .sect = PROFILE_SECT_PORT, .name = "mtu", .type = PROFILE_T_U32,
	  .off = PP_OFF(mtu), .size = PP_SZ(mtu), .off_has = SIZE_MAX,
	  .min = 68, .max = 9000, .def = "1500", .unit = "bytes",
	  .help = "L3 MTU." },
	{ .sect = PROFILE_SECT_PORT, .name = "rx_desc", .type = PROFILE_T_U32,
	  .off = PP_OFF(rx_desc), .size = PP_SZ(rx_desc), .off_has = SIZE_MAX,
	  .min = 64, .max = 16384, .def = "1024", .unit = "descriptors",
	  .help = "RX ring size per queue." },
	{ .sect = PROFILE_SECT_PORT, .name = "tx_desc", .type = PROFILE_T_U32,
	  .off = PP_OFF(tx_desc), .size = PP_SZ(tx_desc), .off_has = SIZE_MAX,
	  .min = 64, .max = 16384, .def = "1024", .unit = "descriptors",
	  .help = "TX ring size per queue." },
};

const unsigned int profile_n_keys = RTE_DIM(profile_keys);

const char *
profile_sect_name(enum profile_sect s)
{
	switch (s) {
	case PROFILE_SECT_GENERAL: return "general";
	case PROFILE_SECT_SWITCH: return "switch";
	case PROFILE_SECT_PORT: return "port.<name>";
	default: return "?";
	}
}

const char *
profile_type_name(enum profile_type t)
{
	switch (t) {
	case PROFILE_T_U32: return "integer";
	case PROFILE_T_U64: return "integer (64-bit)";
	case PROFILE_T_BOOL: return "bool";
	case PROFILE_T_MAC: return "MAC";
	case PROFILE_T_IP4: return "IPv4 prefix";
	case PROFILE_T_IP6: return "IPv6 prefix";
	case PROFILE_T_STRING: return "string";
	case PROFILE_T_ENUM: return "enum";
	case PROFILE_T_GBPS: return "decimal";
	case PROFILE_T_LCORES: return "lcore list";
	default: return "?";
	}
}

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

/* "2.5" Gbit/s -> 2500 Mbit/s; at most 3 decimals. */
static int
parse_gbps(const char *s, uint64_t *mbps)
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
			if (nf >= 3)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
		if (nf == 0)
			return -1;
	}
	if (*s != '\0')
		return -1;
	for (; nf < 3; nf++)
		frac *= 10;
	*mbps = whole * 1000 + frac;
	return 0;
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

static void
set_has(const struct profile_key *k, uint8_t *base, bool has)
{
	if (k->off_has != SIZE_MAX)
		*(bool *)(base + k->off_has) = has;
}

int
profile_key_parse(const struct profile_key *k, void *basev, const char *val,
		  char *why, size_t whylen)
{
	uint8_t *base = basev;
	uint8_t *f = base + k->off;
	uint8_t fam, addr[16], depth;
	uint64_t v;
	bool b;
	unsigned int i;

	/* Optional keys: empty text means unset. */
	if (k->off_has != SIZE_MAX && val[0] == '\0') {
		set_has(k, base, false);
		return 0;
	}

	switch (k->type) {
	case PROFILE_T_U32:
		if (parse_uint(val, UINT32_MAX, &v) != 0) {
			whyf(why, whylen, "not a number");
			return -1;
		}
		if (!(k->zero_ok && v == 0) && (v < k->min || v > k->max)) {
			whyf(why, whylen, "out of range");
			return -1;
		}
		if (k->size == sizeof(uint16_t))
			*(uint16_t *)f = (uint16_t)v;
		else
			*(uint32_t *)f = (uint32_t)v;
		break;
	case PROFILE_T_U64:
		if (parse_uint(val, UINT64_MAX, &v) != 0) {
			whyf(why, whylen, "not a number");
			return -1;
		}
		*(uint64_t *)f = v;
		break;
	case PROFILE_T_GBPS:
		if (parse_gbps(val, &v) != 0) {
			whyf(why, whylen, "not a decimal number");
			return -1;
		}
		if (!(k->zero_ok && v == 0) && (v < k->min || v > k->max)) {
			whyf(why, whylen, "out of range");
			return -1;
		}
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
		for (i = 0; k->names[i] != NULL; i++)
			if (strcmp(val, k->names[i]) == 0)
				break;
		if (k->names[i] == NULL) {
			whyf(why, whylen, "unknown value");
			return -1;
		}
		*f = (uint8_t)i;
		break;
	case PROFILE_T_MAC:
		if (profile_parse_mac(val, (struct rte_ether_addr *)f,
				      why, whylen) != 0)
			return -1;
		set_has(k, base, true);
		break;
	case PROFILE_T_IP4:
	case PROFILE_T_IP6:
		if (profile_parse_prefix(val, &fam, addr, &depth,
					 why, whylen) != 0)
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
		break;
	case PROFILE_T_LCORES:
		if (parse_lcores(val, (uint16_t *)f,
				 (uint16_t *)(base + k->off2), why, whylen) != 0)
			return -1;
		break;
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
		snprintf(buf, len, "%s%" PRIu64 "..%" PRIu64,
			 k->zero_ok ? "0 or " : "", k->min, k->max);
		break;
	case PROFILE_T_U64:
		snprintf(buf, len, "0..%" PRIu64 " (decimal or 0x hex)",
			 k->max);
		break;
	case PROFILE_T_GBPS:
		snprintf(buf, len, "%s%" PRIu64 ".%02" PRIu64 "..%" PRIu64
			 " (at most 3 decimals)",
			 k->zero_ok ? "0 or " : "", k->min / 1000,
			 k->min % 1000 / 10, k->max / 1000);
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
