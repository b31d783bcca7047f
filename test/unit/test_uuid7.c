/*
 * test_uuid7.c - unit tests of src/uuid7.c: the 128-bit idgen128 layout
 *
 * Big-endian bit positions, as documented in uuid7.h:
 *
 *     0-47    unix_ms            64-65   variant 10
 *     48-51   version 0111       66-75   node, low 10 bits
 *     52-63   node, high 12 bits 76-79   epoch
 *                                80-127  random, 48 bits
 *
 * What is checked: compose/decompose are inverses over the documented
 * field ranges; version 7 and variant 10 are always written; byte order is
 * (unix_ms, node, epoch, random) order, so one node's IDs ascend; inputs out
 * of range are masked to their field and never spill into a neighbour;
 * idgen_uuid7_is_v7 looks at exactly the version and variant bits; and a
 * few vectors worked out by hand from the bit positions above.
 */
#include "uuid7.h"
#include "unit.h"

#define MS_MASK ((uint64_t) IDGEN_UUID7_MAX_UNIX_MS)
#define NODE_MASK ((UINT32_C(1) << IDGEN_UUID7_NODE_BITS) - 1)
#define RANDOM_MASK ((UINT64_C(1) << IDGEN_UUID7_RANDOM_BITS) - 1)

/* the 36 characters of the 8-4-4-4-12 form, lowercase; buf needs 37 */
static void
hex_form(const uint8_t b[16], char *buf)
{
	static const char digits[] = "0123456789abcdef";
	int			n = 0;
	int			i;

	for (i = 0; i < 16; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[n++] = '-';
		buf[n++] = digits[b[i] >> 4];
		buf[n++] = digits[b[i] & 15];
	}
	buf[n] = '\0';
}

static int
sign(int64_t v)
{
	return (v > 0) - (v < 0);
}

static int
cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* fields drawn inside their documented ranges, biased toward the edges */
static void
random_fields(IdgenUuid7Fields *f)
{
	f->unix_ms = (int64_t) unit_bits(48);
	f->node = (uint32_t) unit_bits(IDGEN_UUID7_NODE_BITS);
	f->epoch = (int) unit_bits(4);
	f->random = unit_bits(IDGEN_UUID7_RANDOM_BITS);
}

static void
random_bytes(uint8_t b[16])
{
	uint64_t	hi = unit_rand();
	uint64_t	lo = unit_rand();
	int			i;

	for (i = 0; i < 8; i++)
	{
		b[i] = (uint8_t) (hi >> (56 - 8 * i));
		b[8 + i] = (uint8_t) (lo >> (56 - 8 * i));
	}
}

static void
check_version_variant(const uint8_t b[16])
{
	CHECK_U64(b[6] >> 4, ==, 7);
	CHECK_U64(b[8] >> 6, ==, 2);
	CHECK(idgen_uuid7_is_v7(b));
}

static void
check_fields_equal(const IdgenUuid7Fields *got, const IdgenUuid7Fields *want)
{
	CHECK_I64(got->unix_ms, ==, want->unix_ms);
	CHECK_U64(got->node, ==, want->node);
	CHECK_I64(got->epoch, ==, want->epoch);
	CHECK_U64(got->random, ==, want->random);
}

/* compose then decompose gives the fields back, for in-range fields */
static void
test_round_trip(void)
{
	IdgenUuid7Fields f;
	IdgenUuid7Fields back;
	uint8_t		b[16];
	int			n;

	for (n = 0; n < 200000; n++)
	{
		random_fields(&f);
		unit_context("round trip ms %" PRId64 " node %" PRIu32 " epoch %d random %" PRIu64,
					 f.unix_ms, f.node, f.epoch, f.random);
		memset(&back, 0xA5, sizeof(back));
		idgen_uuid7_compose(&f, b);
		idgen_uuid7_decompose(b, &back);
		check_fields_equal(&back, &f);
		check_version_variant(b);
	}

	/* one field at a time walks every bit of it, the others 0 */
	for (n = 0; n < 48; n++)
	{
		memset(&f, 0, sizeof(f));
		f.unix_ms = INT64_C(1) << n;
		unit_context("unix_ms bit %d", n);
		idgen_uuid7_compose(&f, b);
		idgen_uuid7_decompose(b, &back);
		check_fields_equal(&back, &f);

		memset(&f, 0, sizeof(f));
		f.random = UINT64_C(1) << n;
		unit_context("random bit %d", n);
		idgen_uuid7_compose(&f, b);
		idgen_uuid7_decompose(b, &back);
		check_fields_equal(&back, &f);
	}
	for (n = 0; n < IDGEN_UUID7_NODE_BITS; n++)
	{
		memset(&f, 0, sizeof(f));
		f.node = UINT32_C(1) << n;
		unit_context("node bit %d", n);
		idgen_uuid7_compose(&f, b);
		idgen_uuid7_decompose(b, &back);
		check_fields_equal(&back, &f);
	}
	for (n = 0; n < 16; n++)
	{
		memset(&f, 0, sizeof(f));
		f.epoch = n;
		unit_context("epoch %d", n);
		idgen_uuid7_compose(&f, b);
		idgen_uuid7_decompose(b, &back);
		check_fields_equal(&back, &f);
	}
}

/*
 * The other direction: any 16 bytes decompose into in-range fields, and
 * composing them gives the bytes back with version 7 and variant 10
 * written over bits 48-51 and 64-65; unchanged if the bytes were a v7.
 */
static void
test_bytes_round_trip(void)
{
	uint8_t		in[16];
	uint8_t		want[16];
	uint8_t		out[16];
	IdgenUuid7Fields f;
	char		shown[37];
	int			n;

	for (n = 0; n < 100000; n++)
	{
		random_bytes(in);
		/* half of them made v7 first */
		if (n % 2 == 0)
		{
			in[6] = (uint8_t) ((in[6] & 0x0F) | 0x70);
			in[8] = (uint8_t) ((in[8] & 0x3F) | 0x80);
		}
		hex_form(in, shown);
		unit_context("bytes %s", shown);
		idgen_uuid7_decompose(in, &f);
		CHECK_U64(f.unix_ms, <=, MS_MASK);
		CHECK(f.unix_ms >= 0);
		CHECK_U64(f.node, <=, NODE_MASK);
		CHECK(f.epoch >= 0 && f.epoch <= 15);
		CHECK_U64(f.random, <=, RANDOM_MASK);

		idgen_uuid7_compose(&f, out);
		memcpy(want, in, 16);
		want[6] = (uint8_t) ((want[6] & 0x0F) | 0x70);
		want[8] = (uint8_t) ((want[8] & 0x3F) | 0x80);
		CHECK(memcmp(out, want, 16) == 0);
		if (idgen_uuid7_is_v7(in))
			CHECK(memcmp(out, in, 16) == 0);
		else
			CHECK(n % 2 == 1);
	}
}

/* whatever the fields, bits 48-51 are 0111 and bits 64-65 are 10 */
static void
test_version_variant(void)
{
	IdgenUuid7Fields f;
	uint8_t		b[16];
	int			n;

	for (n = 0; n < 100000; n++)
	{
		f.unix_ms = (int64_t) unit_rand();
		f.node = (uint32_t) unit_rand();
		f.epoch = (int) (int32_t) unit_rand();
		f.random = unit_rand();
		unit_context("version/variant of ms %" PRId64 " node %" PRIu32 " epoch %d random %" PRIu64,
					 f.unix_ms, f.node, f.epoch, f.random);
		idgen_uuid7_compose(&f, b);
		check_version_variant(b);
	}
	/* every field at its widest at once */
	f.unix_ms = -1;
	f.node = UINT32_MAX;
	f.epoch = -1;
	f.random = UINT64_MAX;
	unit_context("all fields all ones");
	idgen_uuid7_compose(&f, b);
	check_version_variant(b);
	memset(&f, 0, sizeof(f));
	unit_context("all fields zero");
	idgen_uuid7_compose(&f, b);
	check_version_variant(b);
}

/* (unix_ms, node) first, then (epoch, random): the field order of the bytes */
static int
cmp_time_node(const IdgenUuid7Fields *a, const IdgenUuid7Fields *b)
{
	int			c = sign(a->unix_ms - b->unix_ms);

	return c != 0 ? c : cmp_u64(a->node, b->node);
}

static int
cmp_all(const IdgenUuid7Fields *a, const IdgenUuid7Fields *b)
{
	int			c = cmp_time_node(a, b);

	if (c == 0)
		c = sign((int64_t) a->epoch - b->epoch);
	if (c == 0)
		c = cmp_u64(a->random, b->random);
	return c;
}

/* a neighbour of f: same, next door or anywhere, per field */
static void
near_fields(const IdgenUuid7Fields *f, IdgenUuid7Fields *g)
{
	random_fields(g);
	switch (unit_below(4))
	{
		case 0:
			g->unix_ms = f->unix_ms;
			break;
		case 1:
			g->unix_ms = (f->unix_ms + 1) & (int64_t) MS_MASK;
			break;
		default:
			break;
	}
	switch (unit_below(5))
	{
		case 0:
			g->node = f->node;
			break;
		case 1:
			g->node = (f->node + 1) & NODE_MASK;
			break;
		case 2:
			/* across the split between bytes 6-7 and 8-9 */
			g->node = (f->node | 0x3FF) & NODE_MASK;
			break;
		default:
			break;
	}
	if (unit_below(3) == 0)
		g->epoch = f->epoch;
	if (unit_below(3) == 0)
		g->random = f->random;
}

static void
test_order(void)
{
	IdgenUuid7Fields f;
	IdgenUuid7Fields g;
	uint8_t		a[16];
	uint8_t		b[16];
	int			n;
	int			same_time_node = 0;

	for (n = 0; n < 300000; n++)
	{
		int			bytes;

		random_fields(&f);
		near_fields(&f, &g);
		unit_context("order of (%" PRId64 ", %" PRIu32 ", %d, %" PRIu64 ") and (%" PRId64 ", %" PRIu32 ", %d, %" PRIu64 ")",
					 f.unix_ms, f.node, f.epoch, f.random,
					 g.unix_ms, g.node, g.epoch, g.random);
		idgen_uuid7_compose(&f, a);
		idgen_uuid7_compose(&g, b);
		bytes = memcmp(a, b, 16);
		bytes = (bytes > 0) - (bytes < 0);
		/* time and node decide, whatever epoch and random say */
		if (cmp_time_node(&f, &g) != 0)
			CHECK_I64(bytes, ==, cmp_time_node(&f, &g));
		else
			same_time_node++;
		/* and the whole order is the field order */
		CHECK_I64(bytes, ==, cmp_all(&f, &g));
	}
	/* the generator above must really have made ties on (time, node) */
	unit_context("pairs with equal time and node");
	CHECK_I64(same_time_node, >, 1000);
}

/*
 * One node's IDs: a counter in the low bits of the node field runs up
 * within a millisecond and the millisecond moves on when it wraps, under a
 * fresh random tail each time.  The bytes ascend strictly.
 */
static void
test_node_ascends(void)
{
	IdgenUuid7Fields f;
	uint8_t		prev[16];
	uint8_t		cur[16];
	int			run;
	int			n;

	for (run = 0; run < 20; run++)
	{
		int			counter_bits = 1 + (int) unit_below(IDGEN_UUID7_NODE_BITS);
		uint32_t	counter_mask = (UINT32_C(1) << counter_bits) - 1;
		uint32_t	fixed = (uint32_t) unit_bits(IDGEN_UUID7_NODE_BITS) & NODE_MASK & ~counter_mask;
		uint32_t	counter = (uint32_t) unit_rand() & counter_mask;

		f.unix_ms = (int64_t) (unit_rand() % (MS_MASK - 100000));
		f.node = fixed | counter;
		f.epoch = 1 + (int) unit_below(15);
		f.random = unit_rand() & RANDOM_MASK;
		idgen_uuid7_compose(&f, prev);
		for (n = 0; n < 20000; n++)
		{
			if (counter == counter_mask)
			{
				counter = 0;
				f.unix_ms += 1 + (int64_t) unit_below(3);
			}
			else
				counter++;
			f.node = fixed | counter;
			f.random = unit_rand() & RANDOM_MASK;
			unit_context("run %d step %d: ms %" PRId64 " node %" PRIu32, run, n,
						 f.unix_ms, f.node);
			idgen_uuid7_compose(&f, cur);
			CHECK(memcmp(prev, cur, 16) < 0);
			memcpy(prev, cur, 16);
		}
	}
}

/* out-of-range inputs are cut to their field and touch nothing else */
static void
test_masking(void)
{
	static const int64_t odd_ms[] = {
		-1, INT64_MIN, INT64_MAX, INT64_C(1) << 48, (INT64_C(1) << 48) + 5,
		-(INT64_C(1) << 48), INT64_C(0x7FFF123456789ABC)
	};
	static const uint32_t odd_node[] = {
		UINT32_C(1) << 22, (UINT32_C(1) << 22) | 7, UINT32_MAX, UINT32_C(0x80000000),
		UINT32_C(0xFFC00000)
	};
	static const int odd_epoch[] = {16, 17, 31, 255, -1, -16, -15, 0x7FFFFFF0, -0x7FFFFFFF};
	static const uint64_t odd_random[] = {
		UINT64_C(1) << 48, UINT64_MAX, (UINT64_C(1) << 48) | 1, UINT64_C(0xFFFF000000000000)
	};
	IdgenUuid7Fields base;
	IdgenUuid7Fields f;
	IdgenUuid7Fields masked;
	IdgenUuid7Fields back;
	uint8_t		b[16];
	uint8_t		want[16];
	int			i;
	int			n;

	for (n = 0; n < 200; n++)
	{
		random_fields(&base);

		for (i = 0; i < (int) (sizeof(odd_ms) / sizeof(odd_ms[0])); i++)
		{
			f = base;
			f.unix_ms = odd_ms[i];
			masked = base;
			masked.unix_ms = (int64_t) ((uint64_t) odd_ms[i] & MS_MASK);
			unit_context("unix_ms %" PRId64, odd_ms[i]);
			idgen_uuid7_compose(&f, b);
			idgen_uuid7_compose(&masked, want);
			CHECK(memcmp(b, want, 16) == 0);
			idgen_uuid7_decompose(b, &back);
			check_fields_equal(&back, &masked);
		}
		for (i = 0; i < (int) (sizeof(odd_node) / sizeof(odd_node[0])); i++)
		{
			f = base;
			f.node = odd_node[i];
			masked = base;
			masked.node = odd_node[i] & NODE_MASK;
			unit_context("node %" PRIu32, odd_node[i]);
			idgen_uuid7_compose(&f, b);
			idgen_uuid7_compose(&masked, want);
			CHECK(memcmp(b, want, 16) == 0);
			idgen_uuid7_decompose(b, &back);
			check_fields_equal(&back, &masked);
		}
		for (i = 0; i < (int) (sizeof(odd_epoch) / sizeof(odd_epoch[0])); i++)
		{
			f = base;
			f.epoch = odd_epoch[i];
			masked = base;
			masked.epoch = (int) ((unsigned) odd_epoch[i] & 0xFu);
			unit_context("epoch %d", odd_epoch[i]);
			idgen_uuid7_compose(&f, b);
			idgen_uuid7_compose(&masked, want);
			CHECK(memcmp(b, want, 16) == 0);
			idgen_uuid7_decompose(b, &back);
			check_fields_equal(&back, &masked);
		}
		for (i = 0; i < (int) (sizeof(odd_random) / sizeof(odd_random[0])); i++)
		{
			f = base;
			f.random = odd_random[i];
			masked = base;
			masked.random = odd_random[i] & RANDOM_MASK;
			unit_context("random %" PRIu64, odd_random[i]);
			idgen_uuid7_compose(&f, b);
			idgen_uuid7_compose(&masked, want);
			CHECK(memcmp(b, want, 16) == 0);
			idgen_uuid7_decompose(b, &back);
			check_fields_equal(&back, &masked);
		}
	}

	/* a field at all ones, everything else 0: only its own bits are set */
	memset(&f, 0, sizeof(f));
	f.unix_ms = -1;
	unit_context("unix_ms -1 alone");
	idgen_uuid7_compose(&f, b);
	CHECK(memcmp(b, "\xff\xff\xff\xff\xff\xff\x70\x00\x80\x00\0\0\0\0\0\0", 16) == 0);

	memset(&f, 0, sizeof(f));
	f.node = UINT32_MAX;
	unit_context("node all ones alone");
	idgen_uuid7_compose(&f, b);
	CHECK(memcmp(b, "\0\0\0\0\0\0\x7f\xff\xbf\xf0\0\0\0\0\0\0", 16) == 0);

	memset(&f, 0, sizeof(f));
	f.epoch = -1;
	unit_context("epoch -1 alone");
	idgen_uuid7_compose(&f, b);
	CHECK(memcmp(b, "\0\0\0\0\0\0\x70\x00\x80\x0f\0\0\0\0\0\0", 16) == 0);

	memset(&f, 0, sizeof(f));
	f.random = UINT64_MAX;
	unit_context("random all ones alone");
	idgen_uuid7_compose(&f, b);
	CHECK(memcmp(b, "\0\0\0\0\0\0\x70\x00\x80\x00\xff\xff\xff\xff\xff\xff", 16) == 0);
}

/* exactly version nibble 0111 and variant bits 10, nothing else */
static void
test_is_v7(void)
{
	uint8_t		b[16];
	int			b6;
	int			b8;
	int			bit;
	int			n;

	for (b6 = 0; b6 < 256; b6++)
		for (b8 = 0; b8 < 256; b8++)
		{
			random_bytes(b);
			b[6] = (uint8_t) b6;
			b[8] = (uint8_t) b8;
			unit_context("is_v7 with byte 6 = 0x%02x, byte 8 = 0x%02x", b6, b8);
			CHECK_I64(idgen_uuid7_is_v7(b), ==, (b6 >> 4) == 7 && (b8 >> 6) == 2);
		}

	/* named rows of the table */
	memset(b, 0, 16);
	unit_context("nil uuid");
	CHECK(!idgen_uuid7_is_v7(b));
	memset(b, 0xFF, 16);
	unit_context("max uuid");
	CHECK(!idgen_uuid7_is_v7(b));
	/* version 4 variant 10, as gen_random_uuid() makes */
	b[6] = 0x4F;
	b[8] = 0xBF;
	unit_context("v4");
	CHECK(!idgen_uuid7_is_v7(b));
	/* version 7 under the Microsoft (110) and NCS (0xx) variants */
	b[6] = 0x7F;
	b[8] = 0xDF;
	unit_context("v7 variant 110");
	CHECK(!idgen_uuid7_is_v7(b));
	b[8] = 0x3F;
	unit_context("v7 variant 0xx");
	CHECK(!idgen_uuid7_is_v7(b));
	b[8] = 0xBF;
	unit_context("v7 variant 10");
	CHECK(idgen_uuid7_is_v7(b));
	/* version 8 and 6: next door to 7 */
	b[6] = 0x8F;
	unit_context("v8");
	CHECK(!idgen_uuid7_is_v7(b));
	b[6] = 0x6F;
	unit_context("v6");
	CHECK(!idgen_uuid7_is_v7(b));

	/* flipping one bit of a v7: false exactly for bits 48-51 and 64-65 */
	for (n = 0; n < 200; n++)
	{
		random_bytes(b);
		b[6] = (uint8_t) ((b[6] & 0x0F) | 0x70);
		b[8] = (uint8_t) ((b[8] & 0x3F) | 0x80);
		for (bit = 0; bit < 128; bit++)
		{
			int			in_version = bit >= 48 && bit <= 51;
			int			in_variant = bit == 64 || bit == 65;

			b[bit / 8] ^= (uint8_t) (0x80 >> (bit % 8));
			unit_context("v7 with bit %d flipped", bit);
			CHECK_I64(idgen_uuid7_is_v7(b), ==, !(in_version || in_variant));
			b[bit / 8] ^= (uint8_t) (0x80 >> (bit % 8));
		}
	}
}

/*
 * Vectors worked out by hand from the bit positions in the header comment.
 * The low 64 bits are "10" + node low 10 bits + epoch 4 bits + random 48,
 * so bytes 8-9 read (binary) 10nn nnnn nnnn eeee.
 */
typedef struct Vector
{
	const char *name;
	int64_t		unix_ms;
	uint32_t	node;
	int			epoch;
	uint64_t	random;
	const char *text;
} Vector;

static const Vector vectors[] = {
	/* all zero: only the version and variant bits */
	{"zero", 0, 0, 0, 0, "00000000-0000-7000-8000-000000000000"},
	/* every field full: bytes 8-9 = 10 1111111111 1111 = bfff */
	{"all ones", INT64_C(0xFFFFFFFFFFFF), UINT32_C(0x3FFFFF), 15,
	UINT64_C(0xFFFFFFFFFFFF), "ffffffff-ffff-7fff-bfff-ffffffffffff"},
	/* the time of RFC 9562's example, Tue Feb 22 2022 19:22:22 UTC */
	{"rfc time", INT64_C(0x017F22E279B0), 0, 0, 0,
	"017f22e2-79b0-7000-8000-000000000000"},
	/*
	 * node 0x12345 = 00 0001 0010 0011 0100 0101: high 12 bits 0x048 go
	 * to bytes 6-7 as 70 48; low 10 bits 11 0100 0101 with epoch 0101
	 * make bytes 8-9 10 1101 0001 0101 01 = 1011 0100 0101 0101 = b455
	 */
	{"mixed", INT64_C(0x0123456789AB), UINT32_C(0x12345), 5,
	UINT64_C(0xA1B2C3D4E5F6), "01234567-89ab-7048-b455-a1b2c3d4e5f6"},
	/*
	 * 2026-01-01T00:00:00Z = 1767225600000 ms = 0x019B76DAA800; default
	 * layout region 5, worker 100, seq 4095: node = 5 << 19 | 100 << 12 |
	 * 4095 = 0x2E4FFF = 10 1110 0100 11|11 1111 1111; high 12 bits 0xB93
	 * make bytes 6-7 7b 93; low 10 bits all ones with epoch 0001 make
	 * bytes 8-9 1011 1111 1111 0001 = bff1
	 */
	{"2026 default layout", INT64_C(1767225600000), UINT32_C(0x2E4FFF), 1,
	1, "019b76da-a800-7b93-bff1-000000000001"},
	/* the top node bit alone is the top bit after the version: 78 00 */
	{"node top bit", 0, UINT32_C(1) << 21, 0, 0,
	"00000000-0000-7800-8000-000000000000"},
	/* the lowest bit of the high part: byte 7 = 01 */
	{"node bit 10", 0, UINT32_C(1) << 10, 0, 0,
	"00000000-0000-7001-8000-000000000000"},
	/* the top bit of the low part: byte 8 = 10 1 00000 = a0 */
	{"node bit 9", 0, UINT32_C(1) << 9, 0, 0,
	"00000000-0000-7000-a000-000000000000"},
	/* the lowest node bit sits just above the epoch: byte 9 = 0001 0000 */
	{"node bit 0", 0, 1, 0, 0,
	"00000000-0000-7000-8010-000000000000"},
	/* the epoch is the low nibble of byte 9 */
	{"epoch 9", 0, 0, 9, 0, "00000000-0000-7000-8009-000000000000"},
	/* the top random bit is the top bit of byte 10 */
	{"random top bit", 0, 0, 0, UINT64_C(1) << 47,
	"00000000-0000-7000-8000-800000000000"},
	/* the top time bit is the top bit of byte 0 */
	{"time top bit", INT64_C(1) << 47, 0, 0, 0,
	"80000000-0000-7000-8000-000000000000"},
	/* the lowest time bit is the lowest bit of byte 5 */
	{"time bit 0", 1, 0, 0, 0, "00000000-0001-7000-8000-000000000000"},
};

static void
test_vectors(void)
{
	int			i;

	for (i = 0; i < (int) (sizeof(vectors) / sizeof(vectors[0])); i++)
	{
		const Vector *v = &vectors[i];
		IdgenUuid7Fields f;
		IdgenUuid7Fields back;
		uint8_t		b[16];
		char		text[37];

		f.unix_ms = v->unix_ms;
		f.node = v->node;
		f.epoch = v->epoch;
		f.random = v->random;
		unit_context("vector \"%s\"", v->name);
		idgen_uuid7_compose(&f, b);
		hex_form(b, text);
		CHECK_STR(text, v->text);
		idgen_uuid7_decompose(b, &back);
		check_fields_equal(&back, &f);
		CHECK(idgen_uuid7_is_v7(b));
	}
}

/* a fill that counts its calls and writes 0, 1, 2, ... across them */
static int	fills;
static uint8_t fill_next;
static bool fill_fails;

static bool
counting_fill(void *buf, size_t len)
{
	size_t		i;

	if (fill_fails)
		return false;
	fills++;
	for (i = 0; i < len; i++)
		((uint8_t *) buf)[i] = fill_next++;
	return true;
}

static void
test_random_pool(void)
{
	IdgenRandomPool pool = IDGEN_RANDOM_POOL_INIT;
	uint8_t		want = 0;
	uint64_t	bits;
	int			i;

	unit_context("the random pool");
	fills = 0;
	fill_next = 0;
	fill_fails = false;
	/* 680 draws per fill, the bytes in order, none left out or repeated */
	for (i = 0; i < 3 * (IDGEN_RANDOM_POOL_LEN / 6); i++)
	{
		uint64_t	expect = 0;
		int			k;

		CHECK(idgen_random48(&pool, counting_fill, &bits));
		for (k = 0; k < 6; k++)
			expect = (expect << 8) | want++;
		CHECK_U64(bits, ==, expect);
		CHECK_U64(bits >> 48, ==, 0);
		CHECK_I64(fills, ==, 1 + i / (IDGEN_RANDOM_POOL_LEN / 6));
	}
	/* an empty pool whose source fails says so */
	fill_fails = true;
	CHECK(!idgen_random48(&pool, counting_fill, &bits));
	unit_context("");
}

static void
test_variant_name(void)
{
	int			b;

	unit_context("variant names");
	for (b = 0; b < 256; b++)
	{
		const char *want = b < 0x80 ? "0 (NCS)" : b < 0xC0 ? "10 (RFC 9562)" :
			b < 0xE0 ? "110 (Microsoft)" : "111 (reserved)";

		CHECK_STR(idgen_uuid_variant_name((uint8_t) b), want);
	}
	unit_context("");
}

int
main(void)
{
	test_round_trip();
	test_bytes_round_trip();
	test_version_variant();
	test_order();
	test_node_ascends();
	test_masking();
	test_is_v7();
	test_vectors();
	test_variant_name();
	test_random_pool();
	return unit_finish("test_uuid7");
}
