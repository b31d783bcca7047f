/*
 * test_gwbatch.c - idgen-gateway's Idempotency-Key records (gwbatch.c):
 * a reservation encoded and decoded gives the same IDs, an idgen128's
 * random bits come back from its seed, and what is not a record is refused;
 * gw_random_bytes retries a signal and reports any other failure instead
 * of looping on it
 */
#include "gwbatch.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include "unit.h"

/*
 * getrandom() as the test wants it: this definition in the executable
 * takes the place of libc's for gwbatch.c.  fail_errno != 0: the next
 * calls fail with it (fail_times of them; -1: all); otherwise half the
 * asked length at a time, filled with a counter.
 */
static int	fail_errno = 0;
static int	fail_times = 0;
static int	getrandom_calls = 0;

ssize_t
getrandom(void *buf, size_t len, unsigned int flags)
{
	static uint8_t next = 0;
	size_t		n = len > 1 ? len / 2 : len;
	size_t		i;

	(void) flags;
	getrandom_calls++;
	if (fail_errno != 0 && fail_times != 0)
	{
		if (fail_times > 0)
			fail_times--;
		errno = fail_errno;
		return -1;
	}
	for (i = 0; i < n; i++)
		((uint8_t *) buf)[i] = next++;
	return (ssize_t) n;
}

static void
test_random_bytes(void)
{
	uint8_t		buf[16];

	unit_context("random bytes");
	getrandom_calls = 0;
	CHECK(gw_random_bytes(buf, sizeof(buf)));
	CHECK(getrandom_calls >= 2);	/* short reads are continued */

	/* interrupted twice, then given */
	fail_errno = EINTR;
	fail_times = 2;
	getrandom_calls = 0;
	CHECK(gw_random_bytes(buf, sizeof(buf)));
	CHECK(getrandom_calls > 2);

	/* no getrandom() in this kernel: one call, and false, not a loop */
	fail_errno = ENOSYS;
	fail_times = -1;
	getrandom_calls = 0;
	CHECK(!gw_random_bytes(buf, sizeof(buf)));
	CHECK(getrandom_calls == 1);
	fail_errno = EPERM;
	getrandom_calls = 0;
	CHECK(!gw_random_bytes(buf, sizeof(buf)));
	CHECK(getrandom_calls == 1);
	fail_errno = 0;
	fail_times = 0;
	unit_context("");
}

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
	test_random_bytes();
	return unit_finish("test_gwbatch");
}
