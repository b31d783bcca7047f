/*
 * test_auditq.c - unit tests of src/auditq.c: the lease worker's queue of
 * audit records, length-prefixed so that any byte may appear in them
 *
 * Every decode runs on a buffer of exactly the bytes given, allocated on
 * its own, so AddressSanitizer reports a read one byte past the end.
 */
#include <stdlib.h>

#include "auditq.h"
#include "unit.h"

/* a queue as the lease worker keeps it: bytes appended record by record */
typedef struct Queue
{
	char	   *data;
	size_t		len;
	long		records;
} Queue;

static void
queue_add(Queue *q, const char *action, size_t alen, const char *detail, size_t dlen)
{
	size_t		size = idgen_auditq_record_size(alen, dlen);

	CHECK_U64(size, ==, IDGEN_AUDITQ_OVERHEAD + alen + dlen);
	q->data = realloc(q->data, q->len + size);
	if (q->data == NULL)
		abort();
	CHECK_U64(idgen_auditq_encode(q->data + q->len, action, alen, detail, dlen), ==, size);
	q->len += size;
	q->records++;
}

/* a copy of buf[0, len) with nothing readable after it */
static char *
exact_copy(const char *buf, size_t len)
{
	char	   *copy = malloc(len > 0 ? len : 1);

	if (copy == NULL)
		abort();
	if (len > 0)
		memcpy(copy, buf, len);
	return copy;
}

static long
count_exact(const char *buf, size_t len)
{
	char	   *copy = exact_copy(buf, len);
	long		n = idgen_auditq_count(copy, len);

	free(copy);
	return n;
}

/* the record at *pos must be (action, detail) */
static void
expect_record(const char *buf, size_t len, size_t *pos,
			  const char *action, size_t alen, const char *detail, size_t dlen)
{
	IdgenAuditRecord rec;

	CHECK_I64(idgen_auditq_next(buf, len, pos, &rec), ==, IDGEN_AUDITQ_RECORD);
	CHECK_U64(rec.action_len, ==, alen);
	CHECK_U64(rec.detail_len, ==, dlen);
	CHECK(rec.action_len != alen || alen == 0 || memcmp(rec.action, action, alen) == 0);
	CHECK(rec.detail_len != dlen || dlen == 0 || memcmp(rec.detail, detail, dlen) == 0);
	/* the fields lie inside the buffer */
	CHECK(rec.action >= buf && rec.action + rec.action_len <= buf + len);
	CHECK(rec.detail >= buf && rec.detail + rec.detail_len <= buf + len);
}

static void
test_sizes(void)
{
	unit_context("record sizes");
	CHECK_U64(idgen_auditq_record_size(0, 0), ==, IDGEN_AUDITQ_OVERHEAD);
	CHECK_U64(idgen_auditq_record_size(9, 200), ==, IDGEN_AUDITQ_OVERHEAD + 209);
	CHECK_U64(idgen_auditq_record_size(UINT32_MAX, 0), ==,
			  (uint64_t) UINT32_MAX + IDGEN_AUDITQ_OVERHEAD);
	/* a field its 4-byte length cannot describe */
	CHECK_U64(idgen_auditq_record_size((size_t) UINT32_MAX + 1, 0), ==, 0);
	CHECK_U64(idgen_auditq_record_size(0, (size_t) UINT32_MAX + 1), ==, 0);
	CHECK_U64(idgen_auditq_record_size(SIZE_MAX, SIZE_MAX), ==, 0);
	{
		char		untouched[4] = "abc";

		CHECK_U64(idgen_auditq_encode(untouched, "a", SIZE_MAX, "", 0), ==, 0);
		CHECK_STR(untouched, "abc");
	}
}

/* the layout is the documented one, byte for byte */
static void
test_layout(void)
{
	static const unsigned char expected[] = {
		0xA5, 0, 0, 0, 2, 'o', 'k', 0, 0, 0, 3, 'a', '\n', 'b'
	};
	char		buf[sizeof(expected)];

	unit_context("record layout");
	CHECK_U64(idgen_auditq_encode(buf, "ok", 2, "a\nb", 3), ==, sizeof(expected));
	CHECK(memcmp(buf, expected, sizeof(expected)) == 0);
}

/* every byte value, alone and all together, in either field */
static void
test_every_byte(void)
{
	const char *name_reason = "held by \"a\nb\x1f" "c\" (generation 3)";
	char		all[256];
	Queue		q = {0};
	size_t		pos = 0;
	int			b;

	for (b = 0; b < 256; b++)
		all[b] = (char) b;
	for (b = 0; b < 256; b++)
	{
		char		c = (char) b;

		queue_add(&q, &c, 1, all, sizeof(all));
		queue_add(&q, all, sizeof(all), &c, 1);
	}
	queue_add(&q, "", 0, "", 0);
	queue_add(&q, NULL, 0, NULL, 0);
	queue_add(&q, "collision", 9, name_reason, strlen(name_reason));

	{
		char	   *buf = exact_copy(q.data, q.len);

		unit_context("round trip of every byte value");
		CHECK_I64(idgen_auditq_count(buf, q.len), ==, q.records);
		for (b = 0; b < 256; b++)
		{
			char		c = (char) b;

			unit_context("byte 0x%02x", b);
			expect_record(buf, q.len, &pos, &c, 1, all, sizeof(all));
			expect_record(buf, q.len, &pos, all, sizeof(all), &c, 1);
		}
		unit_context("empty fields");
		expect_record(buf, q.len, &pos, "", 0, "", 0);
		expect_record(buf, q.len, &pos, "", 0, "", 0);
		unit_context("a holder's name with a newline and a unit separator");
		expect_record(buf, q.len, &pos, "collision", 9,
					  name_reason, strlen(name_reason));
		{
			IdgenAuditRecord rec;

			CHECK_I64(idgen_auditq_next(buf, q.len, &pos, &rec), ==, IDGEN_AUDITQ_END);
			CHECK_U64(pos, ==, q.len);
		}
		free(buf);
	}
	free(q.data);
}

/*
 * Cut anywhere: a cut between records leaves whole records, any other cut
 * is refused.  So is every single byte changed where it breaks the frame.
 */
static void
test_truncated(void)
{
	Queue		q = {0};
	size_t		bounds[4];
	size_t		cut;
	int			i;

	bounds[0] = 0;
	queue_add(&q, "fenced", 6, "the lease was fenced", 20);
	bounds[1] = q.len;
	queue_add(&q, "", 0, "x", 1);
	bounds[2] = q.len;
	queue_add(&q, "lease_lost", 10, "", 0);
	bounds[3] = q.len;

	for (cut = 0; cut <= q.len; cut++)
	{
		long		expected = -1;

		for (i = 0; i < 4; i++)
			if (cut == bounds[i])
				expected = i;
		unit_context("cut after %zu of %zu bytes", cut, q.len);
		CHECK_I64(count_exact(q.data, cut), ==, expected);
	}
	free(q.data);
}

static void
test_garbage(void)
{
	static const unsigned char no_mark[] = {0x00, 0, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char text[] = "collision\x1fheld by \"a\nb\"\n";
	static const unsigned char huge_action[] = {0xA5, 0xFF, 0xFF, 0xFF, 0xFF, 'a'};
	static const unsigned char huge_detail[] = {0xA5, 0, 0, 0, 1, 'a', 0xFF, 0xFF, 0xFF, 0xF0};
	static const unsigned char one_past[] = {0xA5, 0, 0, 0, 1, 'a', 0, 0, 0, 2, 'b'};
	static const unsigned char trailing[] = {0xA5, 0, 0, 0, 0, 0, 0, 0, 0, 0xA5};
	static const unsigned char mark_only[] = {0xA5};
	IdgenAuditRecord rec = {"keep", 4, "me", 2};
	size_t		pos;

	unit_context("garbage");
	CHECK_I64(count_exact("", 0), ==, 0);
	CHECK_I64(count_exact((const char *) no_mark, sizeof(no_mark)), ==, -1);
	/* the old "action\x1f" "detail\n" lines are no records */
	CHECK_I64(count_exact((const char *) text, sizeof(text) - 1), ==, -1);
	CHECK_I64(count_exact((const char *) huge_action, sizeof(huge_action)), ==, -1);
	CHECK_I64(count_exact((const char *) huge_detail, sizeof(huge_detail)), ==, -1);
	CHECK_I64(count_exact((const char *) one_past, sizeof(one_past)), ==, -1);
	CHECK_I64(count_exact((const char *) one_past, sizeof(one_past) - 1), ==, -1);
	CHECK_I64(count_exact((const char *) trailing, sizeof(trailing)), ==, -1);
	CHECK_I64(count_exact((const char *) mark_only, sizeof(mark_only)), ==, -1);

	/* a refused record leaves the position and the record as they were */
	pos = 0;
	CHECK_I64(idgen_auditq_next((const char *) huge_detail, sizeof(huge_detail), &pos, &rec),
			  ==, IDGEN_AUDITQ_MALFORMED);
	CHECK_U64(pos, ==, 0);
	CHECK(rec.action_len == 4 && memcmp(rec.action, "keep", 4) == 0);
	CHECK(rec.detail_len == 2 && memcmp(rec.detail, "me", 2) == 0);
	/* a position past the end is no place to read from */
	pos = sizeof(trailing) + 1;
	CHECK_I64(idgen_auditq_next((const char *) trailing, sizeof(trailing), &pos, &rec),
			  ==, IDGEN_AUDITQ_MALFORMED);
	CHECK_U64(pos, ==, sizeof(trailing) + 1);
	/* the one at the end is the end */
	pos = 9;
	CHECK_I64(idgen_auditq_next((const char *) trailing, 9, &pos, &rec), ==, IDGEN_AUDITQ_END);
}

/* random records, random lengths: whatever goes in comes out */
static void
test_random(void)
{
	int			round;

	for (round = 0; round < 300; round++)
	{
		Queue		q = {0};
		char		fields[16][2][64];
		size_t		lens[16][2];
		int			n = (int) unit_below(16) + 1;
		int			i;
		size_t		pos = 0;
		char	   *buf;

		for (i = 0; i < n; i++)
		{
			int			f;

			for (f = 0; f < 2; f++)
			{
				size_t		j;

				lens[i][f] = (size_t) unit_below(65);
				for (j = 0; j < lens[i][f]; j++)
					fields[i][f][j] = (char) unit_rand();
			}
			queue_add(&q, fields[i][0], lens[i][0], fields[i][1], lens[i][1]);
		}
		buf = exact_copy(q.data, q.len);
		unit_context("random round %d, %d records", round, n);
		CHECK_I64(idgen_auditq_count(buf, q.len), ==, n);
		for (i = 0; i < n; i++)
			expect_record(buf, q.len, &pos, fields[i][0], lens[i][0],
						  fields[i][1], lens[i][1]);
		/* and one random byte changed never makes it read out of bounds */
		if (q.len > 0)
		{
			size_t		at = (size_t) unit_below(q.len);
			long		count;

			buf[at] = (char) unit_rand();
			count = idgen_auditq_count(buf, q.len);
			CHECK(count == -1 || (count >= 1 && count <= (long) q.len / IDGEN_AUDITQ_OVERHEAD));
		}
		free(buf);
		free(q.data);
	}
}

int
main(void)
{
	test_sizes();
	test_layout();
	test_every_byte();
	test_truncated();
	test_garbage();
	test_random();
	return unit_finish("test_auditq");
}
