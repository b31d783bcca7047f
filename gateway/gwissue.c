/*
 * gwissue.c - the gateway's generator (gateway.h)
 *
 * The same rules as a node's generator, with the extension's own pure C
 * (src/layout.c, tick.c, epochs.c, uuid7.c) doing the arithmetic:
 *
 *  - IDs are composed from a tick, (ms << counter_bits) | counter, that
 *    only moves forward (idgen_tick_reserve), at most max_drift ahead of
 *    the wall clock: a clock that went back further is refused, not
 *    followed.
 *  - The gateway leases 2^k single workers (idgen_lease_worker); the
 *    counter's top k bits pick one of them, in ascending order of worker
 *    number, so one gateway's IDs ascend however many workers it holds.
 *  - Every ID's millisecond lies at or above the registry's clock as read
 *    right after the lease (the worker's earlier holders all stopped below
 *    it: idgen_lease_worker hands out only workers whose high-water mark
 *    lies in the past), and below the lease end the registry recorded as
 *    the worker's new high-water mark (the next holder starts above it).
 *    Those two are absolute instants, so no clock skew can make two
 *    holders of one worker meet.
 *  - Nothing is issued once the lease's validity has passed, counted on
 *    CLOCK_BOOTTIME from the moment the lease request was sent: the lease
 *    client (src/leaseclient.c) says how far IDs may be stamped, and the
 *    lease thread publishes its state here.
 *  - IDs are stamped by the wall clock as paced by src/clockpace.c, as a
 *    node's: a step ahead is followed only once confirmed (it lasted the
 *    registry's idgen.clock_jump_confirm, or the registry's clock agrees),
 *    so a jump that comes back costs nothing.
 *  - Layout epochs are only ever added: a registry whose list lost one
 *    the gateway has seen (a restore, a lossy failover) makes it refuse.
 *  - Every ID's millisecond lies at or below the local durable mark (a
 *    file in the state directory, fsync'd before IDs above its previous
 *    value go out), and a restart starts above it: a restarted gateway
 *    never goes below its earlier IDs, whatever worker it gets.
 *  - A new lease set starts one millisecond above the last ID issued, so
 *    a change of workers does not go backwards either.
 *  - Layout epochs switch at their start time; one reservation never
 *    spans two.
 */
#include "gateway.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "clockms.h"
#include "clockpace.h"
#include "layout.h"
#include "tick.h"

/* longest wait inside one request for a clock or a layout switch */
#define GW_WAIT_MAX_MS 100

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
/* serialises writers of the mark file; taken before mu, never inside it */
static pthread_mutex_t mark_mu = PTHREAD_MUTEX_INITIALIZER;

static struct
{
	IdgenEpochList epochs;
	bool		have_epochs;
	bool		epochs_lost;	/* the registry's list lacks one of epochs */
	char		epochs_reason[400];
	int64_t		max_drift_ms;
	int64_t		max_skew_ms;
	int64_t		jump_confirm_ms;
	IdgenPace	pace;

	bool		have_lease;
	GwLeaseSet	lease;			/* workers ascending */
	IdgenLeaseClient lc;		/* the lease client's state, as published */
	int			worker_index_bits;	/* log2 of lease.count */
	GwRefusal	why;			/* when !have_lease */
	char		reason[256];
	bool		skewed;
	char		skew_reason[256];

	/* the epoch the tick counts in; 0: to be set up at the next reservation */
	int			version;
	IdgenLayout layout;
	int			counter_bits;
	uint64_t	last_tick;
	int64_t		next_switch_unix_ms;

	int64_t		last_unix_ms;	/* the newest millisecond issued; -1: none */
	int64_t		floor_unix_ms;	/* IDs start at or above this */
	int64_t		mark_unix_ms;	/* durable: no ID above it, ever */

	int64_t		max_wall_seen;
	bool		in_rollback;

	uint64_t	issued;			/* IDs reserved since the start: the demand */
} g;

static char mark_path[4096];
static char mark_tmp_path[4096];
static char state_path[4096];

int64_t
gw_wall_ms(void)
{
	return idgen_clock_ms(CLOCK_REALTIME);
}

int64_t
gw_boot_ms(void)
{
	return idgen_clock_ms(CLOCK_BOOTTIME);
}

/* under mu */
static int64_t
paced_now(void)
{
	return idgen_paced_ms(gw_wall_ms(), gw_boot_ms(), g.pace.trusted_offset_ms);
}

int64_t
gw_clock_ms(void)
{
	int64_t		v;

	pthread_mutex_lock(&mu);
	v = paced_now();
	pthread_mutex_unlock(&mu);
	return v;
}

/* how far ahead of demand the durable mark is kept: as a node keeps its own */
static int64_t
mark_reserve_ms(void)
{
	return g.max_drift_ms / 2 > 50 ? g.max_drift_ms / 2 : 50;
}

/*
 * Make ms the durable mark: written to a new file, fsync'd, renamed over
 * the old one and the directory fsync'd, so a crash leaves the old mark or
 * the new one, never less.  Only then may IDs up to it go out.
 */
static bool
mark_write(int64_t ms)
{
	char		text[64];
	int			fd;
	int			len;
	bool		ok = false;
	int64_t		cur;

	pthread_mutex_lock(&mark_mu);
	pthread_mutex_lock(&mu);
	cur = g.mark_unix_ms;
	pthread_mutex_unlock(&mu);
	if (ms <= cur)
	{
		pthread_mutex_unlock(&mark_mu);
		return true;
	}
	len = snprintf(text, sizeof(text), "%lld\n", (long long) ms);
	fd = open(mark_tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
	{
		if (write(fd, text, len) == len && fsync(fd) == 0)
			ok = true;
		if (close(fd) != 0)
			ok = false;
	}
	if (ok && rename(mark_tmp_path, mark_path) != 0)
		ok = false;
	if (ok)
	{
		int			dfd = open(state_path, O_RDONLY | O_DIRECTORY);

		ok = dfd >= 0 && fsync(dfd) == 0;
		if (dfd >= 0)
			close(dfd);
	}
	if (ok)
	{
		pthread_mutex_lock(&mu);
		g.mark_unix_ms = ms;
		pthread_mutex_unlock(&mu);
	}
	else
		fprintf(stderr, "idgen-gateway: cannot write the mark %s: %s\n",
				mark_path, strerror(errno));
	pthread_mutex_unlock(&mark_mu);
	return ok;
}

int
gw_issue_init(const char *state_dir, char *err, size_t err_len)
{
	char		lock_path[4096];
	int			lock_fd;
	FILE	   *f;

	g.max_drift_ms = 1000;
	g.max_skew_ms = 1000;
	g.jump_confirm_ms = 60000;
	idgen_pace_init(&g.pace, gw_wall_ms() - gw_boot_ms());
	idgen_lc_init(&g.lc, 0, 0);
	g.last_unix_ms = -1;
	g.floor_unix_ms = IDGEN_RANGE_SPACE_END_UNIX_MS;
	g.mark_unix_ms = -1;
	g.why = GW_NO_LEASE;
	snprintf(g.reason, sizeof(g.reason), "no worker leased yet");
	idgen_epochs_init(&g.epochs);

	snprintf(state_path, sizeof(state_path), "%s", state_dir);
	snprintf(mark_path, sizeof(mark_path), "%s/mark", state_dir);
	snprintf(mark_tmp_path, sizeof(mark_tmp_path), "%s/mark.tmp", state_dir);
	snprintf(lock_path, sizeof(lock_path), "%s/lock", state_dir);

	/* two gateways on one mark would each think the other's IDs are not there */
	lock_fd = open(lock_path, O_RDWR | O_CREAT, 0600);
	if (lock_fd < 0)
	{
		snprintf(err, err_len, "cannot open %s: %s", lock_path, strerror(errno));
		return -1;
	}
	if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0)
	{
		snprintf(err, err_len, "the state directory %s is in use by another idgen-gateway",
				 state_dir);
		return -1;
	}
	/* lock_fd stays open, and locked, for the life of the process */

	f = fopen(mark_path, "r");
	if (f != NULL)
	{
		long long	v;

		if (fscanf(f, "%lld", &v) != 1 || v < 0)
		{
			fclose(f);
			snprintf(err, err_len, "the mark file %s is unreadable; it says how far this gateway issued, so it is not ignored (remove it only if no ID of this state directory's gateway can be newer than the clock minus idgen.max_drift)",
					 mark_path);
			return -1;
		}
		fclose(f);
		g.mark_unix_ms = v;
		/* a restart starts above everything the last run may have issued */
		if (v + 1 > g.floor_unix_ms)
			g.floor_unix_ms = v + 1;
	}
	else if (errno != ENOENT)
	{
		snprintf(err, err_len, "cannot read %s: %s", mark_path, strerror(errno));
		return -1;
	}
	return 0;
}

void
gw_issue_set_epochs(const IdgenEpochList *epochs)
{
	IdgenEpochList before;

	pthread_mutex_lock(&mu);
	before = g.epochs;
	if (idgen_lc_epochs_merge(&g.epochs, g.have_epochs, epochs, g.epochs_reason,
							  (int) sizeof(g.epochs_reason)) != NULL)
	{
		if (!g.epochs_lost)
			fprintf(stderr, "idgen-gateway: refusing to issue: %s\n", g.epochs_reason);
		g.epochs_lost = true;
	}
	else
	{
		/* a new epoch only adds a later switch: set up again */
		if (!g.have_epochs || before.count != g.epochs.count)
			g.version = 0;
		g.epochs_lost = false;
		g.have_epochs = true;
	}
	pthread_mutex_unlock(&mu);
}

void
gw_issue_get_epochs(IdgenEpochList *epochs)
{
	pthread_mutex_lock(&mu);
	*epochs = g.epochs;
	pthread_mutex_unlock(&mu);
}

void
gw_issue_set_limits(int64_t max_drift_ms, int64_t max_skew_ms, int64_t jump_confirm_ms)
{
	pthread_mutex_lock(&mu);
	g.max_drift_ms = max_drift_ms >= 0 ? max_drift_ms : 0;
	g.max_skew_ms = max_skew_ms;
	g.jump_confirm_ms = jump_confirm_ms >= 0 ? jump_confirm_ms : 0;
	pthread_mutex_unlock(&mu);
}

void
gw_issue_clock_confirmed(void)
{
	pthread_mutex_lock(&mu);
	if (idgen_pace_confirm(&g.pace, gw_wall_ms(), gw_boot_ms()))
		fprintf(stderr, "idgen-gateway: a step of the wall clock ahead is confirmed by the registry's clock; IDs follow it\n");
	pthread_mutex_unlock(&mu);
}

int64_t
gw_issue_last_ms(void)
{
	int64_t		v;

	pthread_mutex_lock(&mu);
	v = g.last_unix_ms;
	pthread_mutex_unlock(&mu);
	return v;
}

int64_t
gw_issue_max_skew_ms(void)
{
	int64_t		v;

	pthread_mutex_lock(&mu);
	v = g.max_skew_ms;
	pthread_mutex_unlock(&mu);
	return v;
}

static int
cmp_int(const void *a, const void *b)
{
	int			x = *(const int *) a;
	int			y = *(const int *) b;

	return x < y ? -1 : x > y;
}

void
gw_issue_install_lease(const GwLeaseSet *set, const IdgenLeaseClient *lc)
{
	int			i;
	int			bits = 0;

	pthread_mutex_lock(&mu);
	g.lease = *set;
	/* sorted with their generations: the counter's top bits pick in order */
	for (i = 0; i < set->count; i++)
		g.lease.workers[i] = set->workers[i];
	qsort(g.lease.workers, set->count, sizeof(int), cmp_int);
	for (i = 0; i < set->count; i++)
	{
		int			j;

		for (j = 0; j < set->count; j++)
			if (set->workers[j] == g.lease.workers[i])
				g.lease.generations[i] = set->generations[j];
	}
	while ((1 << bits) < set->count)
		bits++;
	g.worker_index_bits = bits;
	if (set->floor_unix_ms > g.floor_unix_ms)
		g.floor_unix_ms = set->floor_unix_ms;
	g.lc = *lc;
	g.have_lease = true;
	g.version = 0;				/* a new set starts above the last ID */
	pthread_mutex_unlock(&mu);
}

void
gw_issue_renewed(const IdgenLeaseClient *lc)
{
	pthread_mutex_lock(&mu);
	g.lc = *lc;
	g.lease.cap_unix_ms = lc->cap_unix_ms;
	g.lease.valid_until_boot_ms = lc->valid_until_boot_ms;
	pthread_mutex_unlock(&mu);
}

void
gw_issue_drop_lease(GwRefusal why, const char *reason, const IdgenLeaseClient *lc)
{
	pthread_mutex_lock(&mu);
	if (lc != NULL)
		g.lc = *lc;
	g.have_lease = false;
	g.why = why;
	snprintf(g.reason, sizeof(g.reason), "%s", reason);
	pthread_mutex_unlock(&mu);
}

void
gw_issue_set_skew(bool skewed, const char *reason)
{
	pthread_mutex_lock(&mu);
	g.skewed = skewed;
	snprintf(g.skew_reason, sizeof(g.skew_reason), "%s", reason ? reason : "");
	pthread_mutex_unlock(&mu);
}

bool
gw_issue_lease(GwLeaseSet *set)
{
	bool		have;

	pthread_mutex_lock(&mu);
	have = g.have_lease;
	if (have)
		*set = g.lease;
	pthread_mutex_unlock(&mu);
	return have;
}

/* a step back of the wall clock, counted once until it has caught up; under mu */
static void
note_clock(int64_t now)
{
	if (now + 1 < g.max_wall_seen)
	{
		if (!g.in_rollback)
			gw_metric_rollback();
		g.in_rollback = true;
	}
	else
	{
		g.in_rollback = false;
		if (now > g.max_wall_seen)
			g.max_wall_seen = now;
	}
}

bool
gw_issue_keep_mark(void)
{
	int64_t		now;
	int64_t		limit;
	int64_t		demand;
	int64_t		reserve;
	int64_t		mark;

	pthread_mutex_lock(&mu);
	/* the lease thread is the pacing's only observer, as a node's worker */
	idgen_pace_observe(&g.pace, gw_wall_ms(), gw_boot_ms(), g.last_unix_ms,
					   g.max_drift_ms, g.jump_confirm_ms);
	now = paced_now();
	note_clock(now);
	/*
	 * Only what can still be issued: nothing at or past the lease end, so a
	 * clock jumping ahead does not drag the mark (and a restart's start)
	 * along with it.
	 */
	limit = idgen_lc_stamp_limit(&g.lc, gw_boot_ms());
	if (!g.have_lease || limit < 0)
		now = g.last_unix_ms;
	else if (now > limit)
		now = limit;
	demand = now > g.last_unix_ms ? now : g.last_unix_ms;
	reserve = mark_reserve_ms();
	mark = g.mark_unix_ms;
	pthread_mutex_unlock(&mu);
	if (mark - demand >= reserve / 2)
		return true;
	return mark_write(demand + reserve);
}

/*
 * Set up the tick for the epoch in force at now: it starts one
 * millisecond above the last ID issued (under any epoch or lease set),
 * at or above the floor and the epoch's start.  Under mu.  Returns NULL or
 * why the lease set cannot issue under this epoch.
 */
static const char *
setup_epoch(int64_t now)
{
	const IdgenEpoch *e = idgen_epochs_at(&g.epochs, now);
	const IdgenEpoch *next = idgen_epochs_version(&g.epochs, e->version + 1);
	int64_t		start = g.last_unix_ms + 1;
	int			i;

	if (start < g.floor_unix_ms)
		start = g.floor_unix_ms;
	if (start < e->start_unix_ms)
		start = e->start_unix_ms;
	if (start < e->layout.origin_unix_ms + 1)
		start = e->layout.origin_unix_ms + 1;
	if (g.lease.region >= (1 << e->layout.region_bits))
		return "the leased region does not fit the layout in force";
	for (i = 0; i < g.lease.count; i++)
		if (g.lease.workers[i] >= (1 << e->layout.worker_bits))
			return "a leased worker does not fit the layout in force";
	g.layout = e->layout;
	g.version = e->version;
	g.counter_bits = e->layout.seq_bits + g.worker_index_bits;
	g.last_tick = ((uint64_t) (start - e->layout.origin_unix_ms) << g.counter_bits) - 1;
	g.next_switch_unix_ms = next ? next->start_unix_ms : INT64_MAX;
	return NULL;
}

/*
 * The parts of the issue limit (tick.h) under the epoch set up, in layout
 * ms; stamp_limit is the lease client's, in Unix ms.  Under mu.
 */
static IdgenIssueLimits
issue_limits(int64_t stamp_limit)
{
	int64_t		origin = g.layout.origin_unix_ms;
	IdgenIssueLimits l;

	l.horizon_ms = idgen_layout_max_ms(&g.layout);
	l.switch_ms = g.next_switch_unix_ms == INT64_MAX ? INT64_MAX :
		g.next_switch_unix_ms - origin;
	l.mark_ms = g.mark_unix_ms < 0 ? -1 : g.mark_unix_ms - origin;
	l.lease_ms = stamp_limit - origin;
	return l;
}

static int
ceil_seconds(int64_t ms)
{
	return ms <= 0 ? 1 : (int) ((ms + 999) / 1000);
}

GwRefusal
gw_issue_reserve(uint32_t count, GwBatch *batch, char *reason, size_t reason_len,
				 int *retry_after_s)
{
	int			attempt;

	*retry_after_s = 1;
	for (attempt = 0; attempt < 8; attempt++)
	{
		int64_t		boot = gw_boot_ms();
		int64_t		now;
		int64_t		stamp_limit;
		IdgenIssueLimits limits;
		int64_t		end_ms;
		int64_t		wait_ms = 0;
		int64_t		mark_target = -1;
		IdgenReservation res;
		IdgenTickResult r;
		GwRefusal	refusal = GW_OK;
		int			i;

		pthread_mutex_lock(&mu);
		now = paced_now();
		note_clock(now);
		if (g.epochs_lost)
		{
			snprintf(reason, reason_len, "%s", g.epochs_reason);
			refusal = GW_EPOCHS_LOST;
			*retry_after_s = 5;
			goto refuse;
		}
		if (!g.have_lease)
		{
			snprintf(reason, reason_len, "%s", g.reason);
			refusal = g.why;
			*retry_after_s = 1;
			goto refuse;
		}
		stamp_limit = idgen_lc_stamp_limit(&g.lc, boot);
		if (stamp_limit < 0)
		{
			snprintf(reason, reason_len,
					 "the worker lease was not renewed in time (its validity ended %lld ms ago)",
					 (long long) (boot - g.lc.valid_until_boot_ms));
			refusal = GW_LEASE_EXPIRED;
			goto refuse;
		}
		if (g.skewed)
		{
			snprintf(reason, reason_len, "%s", g.skew_reason);
			refusal = GW_CLOCK_SKEW;
			goto refuse;
		}
		if (now < IDGEN_RANGE_SPACE_END_UNIX_MS)
		{
			snprintf(reason, reason_len, "the system clock is before 2026-01-01, where IDs are reserved for numeric ranges");
			refusal = GW_CLOCK_INVALID;
			goto refuse;
		}
		if (g.version == 0 || now >= g.next_switch_unix_ms)
		{
			const char *problem = setup_epoch(now);

			if (problem != NULL)
			{
				snprintf(reason, reason_len, "%s", problem);
				refusal = GW_NO_LEASE;
				goto refuse;
			}
		}
		if (now - g.layout.origin_unix_ms > idgen_layout_max_ms(&g.layout))
		{
			snprintf(reason, reason_len, "layout epoch %d's time field has run out (its horizon has passed)",
					 g.version);
			refusal = GW_CLOCK_INVALID;
			goto refuse;
		}

		limits = issue_limits(stamp_limit);
		r = idgen_tick_reserve(g.last_tick, now - g.layout.origin_unix_ms,
							   g.counter_bits, count, g.max_drift_ms,
							   idgen_issue_limit(&limits), &res);
		if (r == IDGEN_TICK_OK)
		{
			g.last_tick = res.last;
			g.last_unix_ms = (int64_t) (res.last >> g.counter_bits) + g.layout.origin_unix_ms;
			batch->first_tick = res.first;
			batch->count = count;
			batch->counter_bits = g.counter_bits;
			batch->seq_bits = g.layout.seq_bits;
			batch->time_shift = idgen_layout_time_shift(&g.layout);
			batch->region_bits = (uint64_t) g.lease.region <<
				(g.layout.worker_bits + g.layout.seq_bits);
			for (i = 0; i < g.lease.count; i++)
				batch->worker_bits[i] = (uint64_t) g.lease.workers[i] << g.layout.seq_bits;
			batch->origin_unix_ms = g.layout.origin_unix_ms;
			batch->epoch_version = g.version;
			g.issued += count;
			pthread_mutex_unlock(&mu);
			return GW_OK;
		}

		switch (r)
		{
			case IDGEN_TICK_TOO_MANY:
				snprintf(reason, reason_len,
						 "%u IDs do not fit one reservation (at most %lld IDs per millisecond, and at most idgen.max_drift = %lld ms ahead of the clock)",
						 count, (long long) 1 << g.counter_bits, (long long) g.max_drift_ms);
				refusal = GW_TOO_MANY;
				break;
			case IDGEN_TICK_BEFORE_EPOCH:
				snprintf(reason, reason_len, "the system clock is before the layout's epoch");
				refusal = GW_CLOCK_INVALID;
				break;
			case IDGEN_TICK_CLOCK_BEHIND:
				{
					int64_t		fits = idgen_tick_fits_at(g.last_tick, g.counter_bits,
														  count, g.max_drift_ms);

					wait_ms = fits - (now - g.layout.origin_unix_ms);
					if (wait_ms > GW_WAIT_MAX_MS)
					{
						snprintf(reason, reason_len,
								 "the system clock is %lld ms behind the IDs already issued; IDs run at most idgen.max_drift (%lld ms) ahead of the clock",
								 (long long) ((int64_t) (g.last_tick >> g.counter_bits) -
											  (now - g.layout.origin_unix_ms)),
								 (long long) g.max_drift_ms);
						refusal = GW_CLOCK_BEHIND;
						*retry_after_s = ceil_seconds(wait_ms);
					}
				}
				break;
			case IDGEN_TICK_LIMIT:
				end_ms = idgen_tick_end_ms(g.last_tick, now - g.layout.origin_unix_ms,
										   g.counter_bits, count);
				switch (idgen_limit_passed(&limits, end_ms))
				{
					case IDGEN_LIMIT_SWITCH:
						/* one request's IDs are all of one layout: wait for the next */
						wait_ms = g.next_switch_unix_ms - now;
						if (wait_ms > GW_WAIT_MAX_MS)
						{
							snprintf(reason, reason_len,
									 "these IDs would run past the switch to layout epoch %d, due in %lld ms",
									 g.version + 1, (long long) wait_ms);
							refusal = GW_CLOCK_BEHIND;
							*retry_after_s = ceil_seconds(wait_ms);
						}
						break;
					case IDGEN_LIMIT_HORIZON:
						snprintf(reason, reason_len, "these IDs would pass layout epoch %d's horizon",
								 g.version);
						refusal = GW_CLOCK_INVALID;
						break;
					case IDGEN_LIMIT_LEASE:
						snprintf(reason, reason_len, "these IDs would run past the worker lease's end; it is being renewed");
						refusal = GW_LEASE_EXPIRED;
						break;
					case IDGEN_LIMIT_MARK:
						{
							/* end_ms lies below the lease end here; now may not */
							int64_t		upto = now < stamp_limit ? now : stamp_limit;

							end_ms += g.layout.origin_unix_ms;
							mark_target = (end_ms > upto ? end_ms : upto) + mark_reserve_ms();
						}
						break;
				}
				break;
			case IDGEN_TICK_OK:
				break;
		}
refuse:
		pthread_mutex_unlock(&mu);
		if (refusal != GW_OK)
		{
			gw_metric_refusal(refusal);
			return refusal;
		}
		if (mark_target >= 0)
		{
			if (!mark_write(mark_target))
			{
				snprintf(reason, reason_len, "the local durable mark could not be written to %s",
						 mark_path);
				gw_metric_refusal(GW_MARK);
				return GW_MARK;
			}
		}
		else if (wait_ms > 0)
		{
			struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000000};

			nanosleep(&ts, NULL);
		}
	}
	snprintf(reason, reason_len, "the clock did not catch up in time");
	gw_metric_refusal(GW_CLOCK_BEHIND);
	return GW_CLOCK_BEHIND;
}

void
gw_issue_demand(uint64_t *issued, int *seq_bits)
{
	pthread_mutex_lock(&mu);
	*issued = g.issued;
	/* before the first reservation: the newest epoch's, which it will use */
	if (g.version != 0)
		*seq_bits = g.layout.seq_bits;
	else if (g.have_epochs && g.epochs.count > 0)
		*seq_bits = g.epochs.epochs[g.epochs.count - 1].layout.seq_bits;
	else
		*seq_bits = IDGEN_DEFAULT_SEQ_BITS;
	pthread_mutex_unlock(&mu);
}

GwRefusal
gw_issue_health(char *reason, size_t reason_len)
{
	GwRefusal	r = GW_OK;
	int64_t		boot = gw_boot_ms();

	pthread_mutex_lock(&mu);
	if (g.epochs_lost)
	{
		r = GW_EPOCHS_LOST;
		snprintf(reason, reason_len, "%s", g.epochs_reason);
	}
	else if (!g.have_lease)
	{
		r = g.why;
		snprintf(reason, reason_len, "%s", g.reason);
	}
	else if (!idgen_lc_valid(&g.lc, boot))
	{
		r = GW_LEASE_EXPIRED;
		snprintf(reason, reason_len, "the worker lease was not renewed in time");
	}
	else if (g.skewed)
	{
		r = GW_CLOCK_SKEW;
		snprintf(reason, reason_len, "%s", g.skew_reason);
	}
	else if (g.in_rollback && g.last_unix_ms - paced_now() > g.max_drift_ms)
	{
		r = GW_CLOCK_BEHIND;
		snprintf(reason, reason_len, "the system clock went back by more than idgen.max_drift (%lld ms)",
				 (long long) g.max_drift_ms);
	}
	else
		snprintf(reason, reason_len, "issuing");
	pthread_mutex_unlock(&mu);
	return r;
}

void
gw_issue_lease_times(int64_t *validity_ms, int64_t *ttl_ms)
{
	int64_t		boot = gw_boot_ms();

	pthread_mutex_lock(&mu);
	*validity_ms = g.have_lease && idgen_lc_valid(&g.lc, boot) ?
		g.lc.valid_until_boot_ms - boot : 0;
	*ttl_ms = idgen_lc_bounded_ms(&g.lc, g.lc.ttl_ms);
	pthread_mutex_unlock(&mu);
}
