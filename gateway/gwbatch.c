/*
 * gwbatch.c - a reservation's IDs as JSON, and as an Idempotency-Key
 * record (gwbatch.h)
 *
 * Pure C: no libpq, no libmicrohttpd.  The record's layout, all integers
 * big-endian:
 *
 *   0      format (1)
 *   1..3   counter_bits, seq_bits, time_shift
 *   4..5   epoch_version
 *   6..13  first_tick       14..17 count
 *   18..25 region_bits      26..33 origin_unix_ms
 *   34     seed length (0 or GW_SEED_LEN), then the seed
 *   then   2^(counter_bits - seq_bits) worker numbers, 4 bytes each
 */
#include "gwbatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "idtext.h"
#include "uuid7.h"

#define GW_BATCH_FORMAT 1
#define GW_BATCH_HEADER 35

bool
gw_random_bytes(void *buf, size_t len)
{
	size_t		got = 0;

	/*
	 * Blocks only until the kernel's pool is first initialised; a signal
	 * is retried, any other error (ENOSYS on an old kernel, a seccomp
	 * filter's EPERM) is the caller's to report, not a loop.
	 */
	while (got < len)
	{
		ssize_t		n = getrandom((uint8_t *) buf + got, len - got, 0);

		if (n > 0)
			got += (size_t) n;
		else if (n < 0 && errno != EINTR)
			return false;
	}
	return true;
}

/* 48 random bits for an idgen128's tail, from a per-thread pool */
static uint64_t
random48(void)
{
	static __thread IdgenRandomPool pool = IDGEN_RANDOM_POOL_INIT;
	uint64_t	r;

	/*
	 * The gateway read random bytes at its start (gw_registry_init) or did
	 * not start; a kernel that stops giving them later leaves no tail
	 * worth issuing, and the process stops rather than issue guessable ones.
	 */
	if (!idgen_random48(&pool, gw_random_bytes, &r))
	{
		fprintf(stderr, "idgen-gateway: getrandom() failed: %s\n", strerror(errno));
		abort();
	}
	return r;
}

/*
 * The i-th ID's random bits from a seed: SHA-256(seed || i / 5) holds
 * five IDs' 48 bits.  *block caches the last hash for the next call.
 */
static uint64_t
seeded48(const uint8_t *seed, uint32_t i, uint8_t hash[32], uint32_t *block)
{
	uint32_t	want = i / 5;
	const uint8_t *p;
	uint64_t	r = 0;
	int			k;

	if (*block != want)
	{
		uint8_t		in[GW_SEED_LEN + 4];

		memcpy(in, seed, GW_SEED_LEN);
		in[GW_SEED_LEN] = (uint8_t) (want >> 24);
		in[GW_SEED_LEN + 1] = (uint8_t) (want >> 16);
		in[GW_SEED_LEN + 2] = (uint8_t) (want >> 8);
		in[GW_SEED_LEN + 3] = (uint8_t) want;
		gw_sha256(in, sizeof(in), hash);
		*block = want;
	}
	p = hash + (i % 5) * 6;
	for (k = 0; k < 6; k++)
		r = (r << 8) | p[k];
	return r;
}

uint64_t
gw_batch_id(const GwBatch *b, uint32_t i)
{
	uint64_t	tick = b->first_tick + i;
	uint64_t	counter = tick & ((UINT64_C(1) << b->counter_bits) - 1);
	uint64_t	seq = counter & ((UINT64_C(1) << b->seq_bits) - 1);

	/* the counter's bits above the sequence pick the worker, in order */
	return ((tick >> b->counter_bits) << b->time_shift) | b->region_bits |
		b->worker_bits[counter >> b->seq_bits] | seq;
}

char *
gw_batch_json(const GwBatch *b, int want128, const uint8_t *seed)
{
	size_t		cap = (size_t) b->count * (want128 ? 40 : 23) + 32;
	char	   *buf = malloc(cap);
	size_t		len;
	uint32_t	i;
	uint8_t		hash[32];
	uint32_t	block = UINT32_MAX;

	if (buf == NULL)
		return NULL;
	memcpy(buf, "{\"ids\": [", 9);
	len = 9;
	for (i = 0; i < b->count; i++)
	{
		uint64_t	id = gw_batch_id(b, i);

		if (i > 0)
			buf[len++] = ',';
		buf[len++] = '"';
		if (want128)
		{
			IdgenUuid7Fields f;
			uint8_t		u[IDGEN_UUID7_LEN];

			/* as the extension's idgen128: the 64-bit ID's node field, its epoch */
			f.unix_ms = (int64_t) (id >> b->time_shift) + b->origin_unix_ms;
			f.node = (uint32_t) (id & ((UINT64_C(1) << b->time_shift) - 1));
			f.epoch = b->epoch_version;
			f.random = seed ? seeded48(seed, i, hash, &block) : random48();
			idgen_uuid7_compose(&f, u);
			idgen_format_uuid(u, buf + len);
			len += 36;
		}
		else
			len += (size_t) idgen_format_u63(id, buf + len);
		buf[len++] = '"';
	}
	memcpy(buf + len, "]}\n", 4);
	return buf;
}

static size_t
put(uint8_t *out, size_t at, uint64_t v, int bytes)
{
	int			k;

	for (k = bytes - 1; k >= 0; k--)
		out[at++] = (uint8_t) (v >> (8 * k));
	return at;
}

static uint64_t
get(const uint8_t *in, size_t at, int bytes)
{
	uint64_t	v = 0;
	int			k;

	for (k = 0; k < bytes; k++)
		v = (v << 8) | in[at + k];
	return v;
}

size_t
gw_batch_encode(const GwBatch *b, const uint8_t *seed, uint8_t out[GW_BATCH_RECORD_MAX])
{
	size_t		at = 0;
	int			workers = 1 << (b->counter_bits - b->seq_bits);
	int			w;

	out[at++] = GW_BATCH_FORMAT;
	out[at++] = (uint8_t) b->counter_bits;
	out[at++] = (uint8_t) b->seq_bits;
	out[at++] = (uint8_t) b->time_shift;
	at = put(out, at, (uint64_t) b->epoch_version, 2);
	at = put(out, at, b->first_tick, 8);
	at = put(out, at, b->count, 4);
	at = put(out, at, b->region_bits, 8);
	at = put(out, at, (uint64_t) b->origin_unix_ms, 8);
	out[at++] = seed ? GW_SEED_LEN : 0;
	if (seed)
	{
		memcpy(out + at, seed, GW_SEED_LEN);
		at += GW_SEED_LEN;
	}
	for (w = 0; w < workers; w++)
		at = put(out, at, b->worker_bits[w] >> b->seq_bits, 4);
	return at;
}

int
gw_batch_decode(const uint8_t *in, size_t len, GwBatch *b,
				uint8_t seed[GW_SEED_LEN], int *has_seed)
{
	size_t		at;
	int			workers;
	int			seed_len;
	int			w;

	memset(b, 0, sizeof(*b));
	if (len < GW_BATCH_HEADER || in[0] != GW_BATCH_FORMAT)
		return -1;
	b->counter_bits = in[1];
	b->seq_bits = in[2];
	b->time_shift = in[3];
	/* the shifts gw_batch_id() makes must stay within 64 bits */
	if (b->seq_bits > 32 || b->counter_bits < b->seq_bits ||
		b->counter_bits - b->seq_bits > 3 ||
		(1 << (b->counter_bits - b->seq_bits)) > GW_MAX_WORKERS ||
		b->time_shift < b->seq_bits || b->time_shift > 62)
		return -1;
	b->epoch_version = (int) get(in, 4, 2);
	b->first_tick = get(in, 6, 8);
	b->count = (uint32_t) get(in, 14, 4);
	b->region_bits = get(in, 18, 8);
	b->origin_unix_ms = (int64_t) get(in, 26, 8);
	seed_len = in[34];
	if (b->count < 1 || (seed_len != 0 && seed_len != GW_SEED_LEN))
		return -1;
	workers = 1 << (b->counter_bits - b->seq_bits);
	if (len != (size_t) (GW_BATCH_HEADER + seed_len + 4 * workers))
		return -1;
	at = GW_BATCH_HEADER;
	*has_seed = seed_len != 0;
	if (seed_len)
		memcpy(seed, in + at, GW_SEED_LEN);
	at += (size_t) seed_len;
	for (w = 0; w < workers; w++, at += 4)
		b->worker_bits[w] = get(in, at, 4) << b->seq_bits;
	return 0;
}
