/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The profile digest: SHA-256 (FIPS 180-4) over the effective profile
 * text after --set, host-local keys left out (aifab_profile_load()'s
 * comment has the exact form), so that hosts running one collective can
 * tell they run the same profile. Reads the loader's rte_cfgfile only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "profile_priv.h"

/* ---- SHA-256 (FIPS 180-4) ---------------------------------------------- */

struct sha256 {
	uint32_t h[8];
	uint8_t buf[64];
	uint64_t len;               /* bytes hashed */
};

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t
ror(uint32_t x, unsigned int n)
{
	return x >> n | x << (32 - n);
}

static void
sha_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], v[8], t1, t2;
	unsigned int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
			(uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
				    (w[i - 15] >> 3)) + w[i - 7] +
			(ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(v, s->h, sizeof(v));
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
			((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
			((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(&v[1], &v[0], sizeof(v[0]) * 7);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		s->h[i] += v[i];
}

static void
sha_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
}

static void
sha_add(struct sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;

	while (n > 0) {
		size_t at = s->len % 64, take = RTE_MIN(n, 64 - at);

		memcpy(s->buf + at, p, take);
		s->len += take;
		p += take;
		n -= take;
		if (s->len % 64 == 0)
			sha_block(s, s->buf);
	}
}

/* The digest as 64 lowercase hex digits and a NUL. */
static void
sha_hex(struct sha256 *s, char out[65])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80, be[8];
	unsigned int i;

	sha_add(s, &pad, 1);
	pad = 0;
	while (s->len % 64 != 56)
		sha_add(s, &pad, 1);
	for (i = 0; i < 8; i++)
		be[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha_add(s, be, 8);
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x",
			 (unsigned int)(s->h[i / 4] >> (24 - 8 * (i % 4))) & 0xff);
}

/* ---- the profile's text ------------------------------------------------ */

/* A key that names something of this host only: its name, its devices
 * and cores, the fault stage on its generator ports. */
static bool
host_local(const char *sect, const char *key)
{
	return (strcmp(sect, "general") == 0 && strcmp(key, "host") == 0) ||
		strcmp(key, "device") == 0 || strcmp(key, "lcores") == 0 ||
		(strcmp(sect, "generator") == 0 &&
		 strncmp(key, "fault_", 6) == 0);
}

/* "sha256:<hex>" of file @p path's bytes; false if it cannot be read. */
static bool
file_digest(const char *path, char *out, size_t len)
{
	struct sha256 s;
	char hex[65], buf[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return false;
	sha_init(&s);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sha_add(&s, buf, n);
	fclose(f);
	sha_hex(&s, hex);
	snprintf(out, len, "sha256:%s", hex);
	return true;
}

static int
cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every line of one section into @p lines (from @p n); the new count. */
static int
section_lines(struct rte_cfgfile *cfg, const char *sect, char **lines,
	      int n, int max)
{
	int k = rte_cfgfile_section_num_entries(cfg, sect), i;
	struct rte_cfgfile_entry *e;
	char val[CFG_VALUE_LEN + 80];

	if (k <= 0)
		return n;
	e = calloc((size_t)k, sizeof(*e));
	if (e == NULL)
		return -1;
	k = rte_cfgfile_section_entries(cfg, sect, e, k);
	for (i = 0; i < k && n >= 0; i++) {
		size_t len;

		if (host_local(sect, e[i].name))
			continue;
		snprintf(val, sizeof(val), "%s", e[i].value);
		if (((strcmp(sect, "generator") == 0 &&
		      strcmp(e[i].name, "rank_table") == 0) ||
		     ((strcmp(sect, "routes") == 0 ||
		       strncmp(sect, "routes.", 7) == 0) &&
		      strcmp(e[i].name, "file") == 0)) && val[0] != '\0')
			file_digest(e[i].value, val, sizeof(val));
		len = strlen(sect) + strlen(e[i].name) + strlen(val) + 8;
		if (n >= max || (lines[n] = malloc(len)) == NULL) {
			n = -1;
			break;
		}
		snprintf(lines[n++], len, "[%s] %s = %s\n", sect, e[i].name,
			 val);
	}
	free(e);
	return n;
}

int
profile_digest(struct rte_cfgfile *cfg, char out[65])
{
	int ns = rte_cfgfile_num_sections(cfg, NULL, 0), i, n = 0, max = 0;
	char (*names)[CFG_NAME_LEN] = NULL, **ptrs = NULL, **lines = NULL;
	struct sha256 s;

	names = calloc((size_t)RTE_MAX(ns, 1), sizeof(*names));
	ptrs = calloc((size_t)RTE_MAX(ns, 1), sizeof(*ptrs));
	if (names == NULL || ptrs == NULL)
		goto out;
	for (i = 0; i < ns; i++)
		ptrs[i] = names[i];
	if (ns > 0)
		rte_cfgfile_sections(cfg, ptrs, ns);
	for (i = 0; i < ns; i++)
		max += RTE_MAX(rte_cfgfile_section_num_entries(cfg, names[i]),
			       0);
	lines = calloc((size_t)max + 1, sizeof(*lines));
	for (i = 0; lines != NULL && i < ns && n >= 0; i++)
		n = section_lines(cfg, names[i], lines, n, max);
	if (lines != NULL && n >= 0) {
		qsort(lines, (size_t)n, sizeof(*lines), cmp_lines);
		sha_init(&s);
		for (i = 0; i < n; i++)
			sha_add(&s, lines[i], strlen(lines[i]));
		sha_hex(&s, out);
	}
out:
	for (i = 0; lines != NULL && i < max; i++)
		free(lines[i]);
	free(ptrs);
	free(names);
	if (lines == NULL || n < 0) {
		free(lines);
		return -1;
	}
	free(lines);
	return 0;
}
