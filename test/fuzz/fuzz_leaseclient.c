/*
 * fuzz_leaseclient.c - libFuzzer target for the lease client's state
 * machine (leaseclient.c): random walks of both clocks (steps, jumps,
 * freezes, a wall clock that goes back) and of the registry's answers, in
 * any order, stale ones included.
 *
 * Each 4-byte record of the input moves the clocks and feeds the machine
 * one answer or asks it what to do.  Invariants: never valid past the end
 * of validity counted from the last answered sending (sent + granted -
 * margin), nor past the last answered sending + H, the registry's hold
 * floor in force at that answer (R1a); never stamps at or past the cap; never valid after a fence
 * until a new grant; nothing renewed once the validity has ended; a
 * release only after a fence.
 */
#include "fuzz.h"
#include "leaseclient.h"

#define WALL0 INT64_C(1790000000000)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzReader	r = {data, size};
	IdgenLeaseClient lc;
	int64_t		boot = 0;
	int64_t		wall = WALL0;
	int64_t		ttl = 1000 + (int64_t) fuzz_u8(&r) * 200;
	bool		fenced = false;
	int64_t		last_end = -1;	/* validity end of the last believed answer */
	int64_t		hold = 0;		/* the hold floor set now; 0: unknown */
	int64_t		hold_at_sent = 0;	/* the one set at the last believed answer */
	int64_t		last_sent = -1;
	int64_t		last_valid = -1;

	idgen_lc_init(&lc, ttl, (int64_t) fuzz_u8(&r) * 10);
	idgen_lc_set_next_switch(&lc, (r.left > 0 && fuzz_u8(&r) & 1) ? WALL0 + 5000 : INT64_MAX);
	/* H, set before the answers it bounds; a registry may change it */
	hold = r.left > 0 ? (int64_t) fuzz_u8(&r) * 100 : 0;
	idgen_lc_set_hold_floor(&lc, hold);
	while (r.left > 0)
	{
		uint8_t		op = fuzz_u8(&r);
		int64_t		d1 = fuzz_u8(&r);
		int64_t		d2 = fuzz_u8(&r);
		int64_t		d3 = fuzz_u8(&r);
		int64_t		wait;
		int64_t		sent;
		IdgenLcAction act;
		IdgenLcVerdict v;
		bool		was_valid;

		/* the monotonic clock only goes forward, sometimes far (a freeze) */
		boot += (op & 0x80) ? d1 * 1000 : d1 * 10;
		/* the wall clock anywhere near, back or ahead */
		wall += (d2 - 128) * ((op & 0x40) ? 1000 : 10);
		was_valid = idgen_lc_valid(&lc, boot);
		switch (op & 7)
		{
			case 0:
			case 1:
				act = idgen_lc_next(&lc, boot, &wait);
				FUZZ_ASSERT(wait >= 0);
				if (act == IDGEN_LC_RELEASE)
					FUZZ_ASSERT(fenced);
				if (act == IDGEN_LC_RENEW)
					FUZZ_ASSERT(was_valid && lc.state == IDGEN_LC_HELD);
				if (act == IDGEN_LC_GIVE_UP || act == IDGEN_LC_RELEASE)
					FUZZ_ASSERT(!idgen_lc_valid(&lc, boot));
				if (act == IDGEN_LC_LEASE && (op & 8))
				{
					/* sent some time ago, granted now */
					sent = boot - d3 * 5;
					idgen_lc_granted(&lc, sent, wall, wall + d3 * 100 + (op >> 4) * 1000);
					fenced = false;
					last_end = lc.valid_until_boot_ms;
					FUZZ_ASSERT(last_end <= sent + ttl);
				}
				break;
			case 2:
				/* a registry replaced, or reconfigured: another H from now on */
				hold = d3 * 100;
				idgen_lc_set_hold_floor(&lc, hold);
				break;
			default:
				sent = boot - d3 * ((op & 0x20) ? 1000 : 5);
				v = idgen_lc_answer(&lc, (IdgenLcAnswer) ((op >> 3) % 6), sent, boot, wall,
									(op & 0x10) ? wall - d3 : -1,
									wall + d1 * 100 + d2 * 10);
				if (v == IDGEN_LC_STOP_FENCED)
				{
					FUZZ_ASSERT(was_valid);
					fenced = true;
				}
				if (v == IDGEN_LC_STOP_FENCED || v == IDGEN_LC_STOP_ENDED)
					FUZZ_ASSERT(!idgen_lc_valid(&lc, boot));
				if (lc.sent_boot_ms == sent && idgen_lc_valid(&lc, boot))
					last_end = lc.valid_until_boot_ms;
				/* a renewal is believed only while the lease is valid */
				if (!was_valid)
					FUZZ_ASSERT(!idgen_lc_valid(&lc, boot));
				break;
		}
		/* a grant or a believed renewal counted validity afresh */
		if (lc.sent_boot_ms != last_sent || lc.valid_until_boot_ms != last_valid)
		{
			last_sent = lc.sent_boot_ms;
			last_valid = lc.valid_until_boot_ms;
			hold_at_sent = hold;
		}
		if (idgen_lc_valid(&lc, boot))
		{
			FUZZ_ASSERT(!fenced);
			FUZZ_ASSERT(hold_at_sent == 0 || lc.valid_until_boot_ms <= lc.sent_boot_ms + hold_at_sent);
			FUZZ_ASSERT(boot < lc.valid_until_boot_ms);
			FUZZ_ASSERT(lc.valid_until_boot_ms <= lc.sent_boot_ms + ttl -
						idgen_lc_margin_ms(lc.granted_ms));
			FUZZ_ASSERT(last_end < 0 || lc.valid_until_boot_ms <= last_end ||
						lc.sent_boot_ms > 0);
			FUZZ_ASSERT(idgen_lc_stamp_limit(&lc, boot) < lc.cap_unix_ms);
		}
		else
			FUZZ_ASSERT(idgen_lc_stamp_limit(&lc, boot) == -1);
	}
	return 0;
}
