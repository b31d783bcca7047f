/*
 * test_gwbatch.c - idgen-gateway's Idempotency-Key records (gwbatch.c):
 * a reservation encoded and decoded gives the same IDs, an idgen128's
 * random bits come back from its seed, and what is not a record is refused
 */
#include "gwbatch.h"

#include <stdlib.h>

#include "unit.h"

static GwBatch
sample(int workers)
{
	GwBatch		b;
	int			w;

	memset(&b, 0, sizeof(b));
	b.seq_bits = 12;
	b.counter_bits = 12 + (workers == 8 ? 3 : workers == 4 ? 2 : workers == 2 ? 1 : 0);
	b.time_shift = 22;
	b.first_tick = ((uint64_t) 5000000 << b.counter_bits) + 4000;
	b.count = 1000;
	b.region_bits = (uint64_t) 1 << (12 + 7);
	for (w = 0; w < workers; w++)
		b.worker_bits[w] = (uint64_t) (120 + w) << b.seq_bits;
	b.origin_unix_ms = 1767225600000LL;
	b.epoch_version = 1;
	return b;
}

int
main(void)
{
	uint8_t		rec[GW_BATCH_RECORD_MAX];
	uint8_t		seed[GW_SEED_LEN];
	uint8_t		seed2[GW_SEED_LEN];
	int			has_seed;
	int			workers;
	GwBatch		got;

	for (workers = 1; workers <= 8; workers *= 2)
	{
		GwBatch		b = sample(workers);
		size_t		len = gw_batch_encode(&b, NULL, rec);
		char	   *a;
		char	   *c;
		uint32_t	i;

		unit_context("%d workers", workers);
		CHECK(len <= GW_BATCH_RECORD_MAX);
		CHECK(gw_batch_decode(rec, len, &got, seed2, &has_seed) == 0);
		CHECK(!has_seed);
		for (i = 0; i < b.count; i += 97)
			CHECK_U64(gw_batch_id(&got, i), ==, gw_batch_id(&b, i));
		a = gw_batch_json(&b, 0, NULL);
		c = gw_batch_json(&got, 0, NULL);
		CHECK_STR(a, c);
		free(a);
		free(c);
		/* every length but the right one is refused */
		CHECK(gw_batch_decode(rec, len - 1, &got, seed2, &has_seed) == -1);
		CHECK(gw_batch_decode(rec, len + 1, &got, seed2, &has_seed) == -1);
	}

	/* idgen128: the seed gives the same UUIDs again, another seed others */
	{
		GwBatch		b = sample(2);
		size_t		len;
		char	   *a;
		char	   *c;
		char	   *r;

		unit_context("idgen128");
		for (size_t i = 0; i < sizeof(seed); i++)
			seed[i] = (uint8_t) (i * 37 + 5);
		len = gw_batch_encode(&b, seed, rec);
		CHECK(len < 80);
		CHECK(gw_batch_decode(rec, len, &got, seed2, &has_seed) == 0);
		CHECK(has_seed && memcmp(seed, seed2, sizeof(seed)) == 0);
		a = gw_batch_json(&b, 1, seed);
		c = gw_batch_json(&got, 1, seed2);
		CHECK_STR(a, c);
		seed2[0] ^= 1;
		r = gw_batch_json(&got, 1, seed2);
		CHECK(strcmp(a, r) != 0);
		/* the random bits differ, the time and node fields do not */
		CHECK(strncmp(a, r, 9 + 1 + 18) == 0);
		free(a);
		free(c);
		free(r);
	}

	/* not a record */
	{
		GwBatch		b = sample(1);
		size_t		len = gw_batch_encode(&b, NULL, rec);

		unit_context("malformed records");
		rec[0] = 2;
		CHECK(gw_batch_decode(rec, len, &got, seed2, &has_seed) == -1);
		rec[0] = 1;
		rec[1] = 40;			/* counter bits past the shifts' range */
		CHECK(gw_batch_decode(rec, len, &got, seed2, &has_seed) == -1);
		rec[1] = 12;
		rec[34] = 3;			/* a seed of another length */
		CHECK(gw_batch_decode(rec, len, &got, seed2, &has_seed) == -1);
		CHECK(gw_batch_decode(rec, 10, &got, seed2, &has_seed) == -1);
	}
	return unit_finish("test_gwbatch");
}
