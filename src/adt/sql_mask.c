/*
 * sql_mask.c - masked public IDs in SQL: idgen_mask(), idgen_unmask(),
 * idgen_unmask128() and idgen_rotate_mask_key()
 *
 * The permutation and the token format are pure C (mask.h).  What is here
 * finds the keys: they live in idgen.mask_key, which PUBLIC cannot read, so
 * the SQL functions are SECURITY DEFINER and read it through SPI.  The
 * newest key (the highest key id) masks; every key unmasks, so a token made
 * before a rotation keeps working.
 *
 * Key cache.  Each backend reads the whole table once and keeps it in the
 * static "keys" below (at most 255 keys of 32 bytes).  Writes to the table
 * fire a statement trigger, idgen.mask_key_changed(), that queues a
 * relcache invalidation of the table; every backend's relcache callback
 * then marks its copy stale, the writer's own at its next command, the
 * others' when they next process invalidations (at the latest at the start
 * of their next transaction).  A stale copy is read again on next use.
 *
 * The table is read under the calling statement's snapshot (a new one
 * only right after making the first key), so a parallel worker reads what
 * its leader's statement can see.  That snapshot may
 * predate a rotation whose invalidation this backend processed during the
 * transaction; a copy read after such an invalidation is therefore only
 * trusted until the end of the transaction (the "provisional" flag,
 * cleared by a transaction callback).  Finally, a token naming a key the
 * copy lacks makes one more read before it is called foreign: a key made a
 * moment ago by another session unmasks even before its invalidation
 * arrives.
 *
 * Volatility: STABLE, not IMMUTABLE, since keys come and go with
 * rotations.  idgen_mask is PARALLEL UNSAFE: it may write (the first key),
 * and masking in several processes could pick different newest keys.
 * idgen_unmask is PARALLEL SAFE: it only reads, and a token unmasks to the
 * same ID under whatever copy of the keys a process holds.
 */
#include "base.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/uuid.h"

#include "core/mask.h"
#include "core/uuid7.h"

/* a token longer than this is shown cut short in error messages */
#define SHOWN_TOKEN_MAX 64

typedef struct MaskKeyCache
{
	bool		valid;			/* false: read the table again */
	bool		provisional;	/* valid only until the transaction ends */
	Oid			relid;			/* idgen.mask_key, for the relcache callback */
	int			newest;			/* the key that masks; 0: no key at all */
	bool		present[IDGEN_MASK_KEY_ID_MAX + 1];
	uint8		secret[IDGEN_MASK_KEY_ID_MAX + 1][IDGEN_MASK_SECRET_LEN];
} MaskKeyCache;

static MaskKeyCache keys;
static uint64 keys_invalidations;	/* bumped by every invalidation */
static bool inval_in_xact;		/* an invalidation arrived in this xact */
static bool callbacks_registered;

static void
mask_keys_relcache_callback(Datum arg, Oid relid)
{
	/* InvalidOid: every relation's cache was reset */
	if (relid == InvalidOid || relid == keys.relid)
	{
		keys.valid = false;
		keys_invalidations++;
		inval_in_xact = true;
	}
}

static void
mask_keys_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			if (keys.provisional)
				keys.valid = false;
			keys.provisional = false;
			inval_in_xact = false;
			break;
		default:
			break;
	}
}

/*
 * Read idgen.mask_key into the cache.  latest: under a new snapshot, to see
 * a key this very statement just inserted; otherwise under the statement's.
 */
static void
mask_keys_load(bool latest)
{
	Oid			nsp;
	Oid			relid;
	uint64		invalidations_before;
	bool		pushed = false;
	int			rc;
	uint64		i;

	if (!callbacks_registered)
	{
		CacheRegisterRelcacheCallback(mask_keys_relcache_callback, (Datum) 0);
		RegisterXactCallback(mask_keys_xact_callback, NULL);
		callbacks_registered = true;
	}

	nsp = get_namespace_oid("idgen", false);
	relid = get_relname_relid("mask_key", nsp);
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("relation \"idgen.mask_key\" does not exist"),
				 errhint("Update the extension: ALTER EXTENSION idgen UPDATE.")));

	/* forget the old keys first, secrets included */
	memset(&keys, 0, sizeof(keys));
	keys.relid = relid;
	invalidations_before = keys_invalidations;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (latest && !IsInParallelMode())
	{
		PushActiveSnapshot(GetLatestSnapshot());
		pushed = true;
	}
	else if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	rc = SPI_execute("SELECT key_id, secret FROM idgen.mask_key", true, 0);
	if (pushed)
		PopActiveSnapshot();
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading idgen.mask_key failed: %s", SPI_result_code_string(rc));

	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull_id;
		bool		isnull_secret;
		int			key_id = DatumGetInt16(SPI_getbinval(tup, desc, 1, &isnull_id));
		Datum		secret_d = SPI_getbinval(tup, desc, 2, &isnull_secret);
		bytea	   *secret;

		/* the table's CHECK constraints rule these out */
		if (isnull_id || isnull_secret ||
			key_id < IDGEN_MASK_KEY_ID_MIN || key_id > IDGEN_MASK_KEY_ID_MAX)
			elog(ERROR, "idgen.mask_key holds a row with an invalid key id");
		secret = DatumGetByteaPP(secret_d);
		if (VARSIZE_ANY_EXHDR(secret) != IDGEN_MASK_SECRET_LEN)
			elog(ERROR, "idgen.mask_key holds a secret that is not %d bytes long",
				 IDGEN_MASK_SECRET_LEN);
		memcpy(keys.secret[key_id], VARDATA_ANY(secret), IDGEN_MASK_SECRET_LEN);
		keys.present[key_id] = true;
		if (key_id > keys.newest)
			keys.newest = key_id;
	}
	SPI_finish();

	/* an invalidation during the read: use what was read once, then read again */
	keys.valid = keys_invalidations == invalidations_before;
	keys.provisional = inval_in_xact;
}

static inline void
mask_keys_ensure(void)
{
	if (!keys.valid)
		mask_keys_load(false);
}

/* the secret of key_id, or NULL if this database has no such key */
static const uint8 *
mask_key_secret(int key_id)
{
	if (key_id < IDGEN_MASK_KEY_ID_MIN || key_id > IDGEN_MASK_KEY_ID_MAX)
		return NULL;
	mask_keys_ensure();
	if (!keys.present[key_id])
	{
		/* perhaps a key made a moment ago, its invalidation still on the way */
		mask_keys_load(false);
	}
	return keys.present[key_id] ? keys.secret[key_id] : NULL;
}

/* a new random secret, as a bytea, and its fingerprint */
static bytea *
new_secret(char *fingerprint)
{
	bytea	   *secret = palloc(VARHDRSZ + IDGEN_MASK_SECRET_LEN);

	SET_VARSIZE(secret, VARHDRSZ + IDGEN_MASK_SECRET_LEN);
	if (!pg_strong_random(VARDATA(secret), IDGEN_MASK_SECRET_LEN))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random mask key")));
	idgen_mask_fingerprint((const uint8 *) VARDATA(secret), fingerprint);
	return secret;
}

/* wipe a secret once it is stored: its copies belong to the table and cache */
static void
forget_secret(bytea *secret)
{
	explicit_bzero(VARDATA(secret), IDGEN_MASK_SECRET_LEN);
	pfree(secret);
}

/*
 * The first key, made by the first idgen_mask() of a database.  None is
 * made by the install script: a restored dump brings its own key 1, and
 * one made at CREATE EXTENSION would collide with it.
 */
static void
mask_create_first_key(void)
{
	char		fingerprint[IDGEN_MASK_FINGERPRINT_CHARS + 1];
	bytea	   *secret;
	Oid			types[2] = {BYTEAOID, TEXTOID};
	Datum		values[2];
	int			rc;

	if (XactReadOnly || IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("there is no mask key yet, and it cannot be made in a %s",
						XactReadOnly ? "read-only transaction" : "parallel query"),
				 errdetail("The first idgen_mask() of a database makes its first key."),
				 errhint("Run SELECT idgen_rotate_mask_key(); once in a read-write transaction on the primary.")));

	secret = new_secret(fingerprint);
	values[0] = PointerGetDatum(secret);
	values[1] = CStringGetTextDatum(fingerprint);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/*
	 * Two sessions masking for the first time at once: the second waits on
	 * the first's key 1 and then does nothing; the reload below finds it.
	 */
	rc = SPI_execute_with_args(
							   "WITH k AS ("
							   "  INSERT INTO idgen.mask_key (key_id, secret, fingerprint)"
							   "  SELECT 1, $1, $2 WHERE NOT EXISTS (SELECT FROM idgen.mask_key)"
							   "  ON CONFLICT (key_id) DO NOTHING"
							   "  RETURNING key_id, fingerprint)"
							   " INSERT INTO idgen.audit_log (action, detail)"
							   " SELECT 'mask_key_created',"
							   "        pg_catalog.format('key %s, fingerprint %s, made by the first idgen_mask()',"
							   "                          k.key_id, k.fingerprint)"
							   " FROM k",
							   2, types, values, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "creating the first mask key failed: %s", SPI_result_code_string(rc));
	SPI_finish();
	forget_secret(secret);

	mask_keys_load(true);
	if (keys.newest == 0)
		elog(ERROR, "idgen.mask_key is still empty after making its first key");
}

/* the key that masks now, made if there is none yet */
static int
mask_newest_key(void)
{
	mask_keys_ensure();
	if (keys.newest == 0)
		mask_create_first_key();
	return keys.newest;
}

/* the token as an error message shows it: quoted by the caller, cut short */
static char *
shown_token(text *token)
{
	const char *s = VARDATA_ANY(token);
	int			len = VARSIZE_ANY_EXHDR(token);

	if (len <= SHOWN_TOKEN_MAX)
		return text_to_cstring(token);
	return psprintf("%.*s...", pg_mbcliplen(s, len, SHOWN_TOKEN_MAX), s);
}

IDGEN_NORETURN static void report_foreign(text *token);

static void
report_foreign(text *token)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid idgen mask token: \"%s\"", shown_token(token)),
			 errdetail("The token was not made with this database's mask keys, or a character of it was changed."),
			 errhint("Check the token for a mistyped character; a token from another database unmasks only there.")));
}

IDGEN_NORETURN static void report_malformed(text *token);

/* say what is wrong with it: a mistyped character is the common case */
static void
report_malformed(text *token)
{
	const char *s = VARDATA_ANY(token);
	int			len = VARSIZE_ANY_EXHDR(token);
	size_t		at;

	switch (idgen_mask_token_malformed(s, len, &at))
	{
		case IDGEN_MASK_BAD_DIGIT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid idgen mask token: \"%s\"", shown_token(token)),
					 errdetail("Character %d (\"%.*s\") is not a Crockford base32 digit: a token has digits and letters other than i, l, o and u.",
							   (int) at + 1, pg_mblen(s + at), s + at),
					 errhint("Check the token for a mistyped character.")));
			break;
		case IDGEN_MASK_BAD_LAST_DIGIT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid idgen mask token: \"%s\"", shown_token(token)),
					 errdetail("No token ends in \"%c\": its last character was changed.",
							   s[at]),
					 errhint("Check the token for a mistyped character.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid idgen mask token: \"%s\"", shown_token(token)),
					 errdetail("A mask token is %d (idgen) or %d (idgen128) characters of Crockford base32; this one has %d.",
							   IDGEN_MASK_TOKEN64_CHARS, IDGEN_MASK_TOKEN128_CHARS,
							   pg_mbstrlen_with_len(s, len))));
			break;
	}
	pg_unreachable();
}

/* parse and find the key; on return tok is well formed and secret set */
static const uint8 *
open_token(text *token, int want_width, IdgenMaskToken *tok)
{
	const uint8 *secret;

	if (idgen_mask_token_parse(VARDATA_ANY(token), VARSIZE_ANY_EXHDR(token),
							   tok) != IDGEN_MASK_OK)
		report_malformed(token);
	if (tok->width != want_width)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid idgen mask token: \"%s\"", shown_token(token)),
				 errdetail("This is the token of an %s (%d characters), not of an %s.",
						   tok->width == 64 ? "idgen" : "idgen128",
						   tok->width == 64 ? IDGEN_MASK_TOKEN64_CHARS : IDGEN_MASK_TOKEN128_CHARS,
						   want_width == 64 ? "idgen" : "idgen128"),
				 errhint("Use %s() for it.",
						 tok->width == 64 ? "idgen_unmask" : "idgen_unmask128")));
	secret = mask_key_secret(tok->key_id);
	if (secret == NULL)
		report_foreign(token);
	return secret;
}

/* idgen_mask(idgen): the public token of a 64-bit ID, 20 characters */
PG_FUNCTION_INFO_V1(idgen_mask);
Datum
idgen_mask(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	char		buf[IDGEN_MASK_TOKEN64_CHARS + 1];
	int			key_id = mask_newest_key();

	/* an idgen is never negative; the permutation is of [0, 2^63) */
	if (id < 0 || !idgen_mask_token64(keys.secret[key_id], (uint8) key_id,
									  (uint64) id, buf))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("idgen value " INT64_FORMAT " is out of range", id)));
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf, IDGEN_MASK_TOKEN64_CHARS));
}

/* idgen_mask(idgen128): the public token of a 128-bit ID, 32 characters */
PG_FUNCTION_INFO_V1(idgen128_mask);
Datum
idgen128_mask(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *id = PG_GETARG_UUID_P(0);
	char		buf[IDGEN_MASK_TOKEN128_CHARS + 1];
	int			key_id = mask_newest_key();

	idgen_mask_token128(keys.secret[key_id], (uint8) key_id, id->data, buf);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf, IDGEN_MASK_TOKEN128_CHARS));
}

/* idgen_unmask(text): the idgen behind a token; either case is accepted */
PG_FUNCTION_INFO_V1(idgen_unmask);
Datum
idgen_unmask(PG_FUNCTION_ARGS)
{
	text	   *token = PG_GETARG_TEXT_PP(0);
	IdgenMaskToken tok;
	const uint8 *secret = open_token(token, 64, &tok);
	uint64		id;

	if (idgen_mask_token_open64(secret, &tok, &id) != IDGEN_MASK_OK)
		report_foreign(token);
	PG_RETURN_INT64((int64) id);
}

/* idgen_unmask128(text): the idgen128 behind a token */
PG_FUNCTION_INFO_V1(idgen_unmask128);
Datum
idgen_unmask128(PG_FUNCTION_ARGS)
{
	text	   *token = PG_GETARG_TEXT_PP(0);
	IdgenMaskToken tok;
	const uint8 *secret = open_token(token, 128, &tok);
	pg_uuid_t  *id = palloc(sizeof(pg_uuid_t));

	/* only a key holder could make a tagged token that is no UUIDv7 */
	if (idgen_mask_token_open128(secret, &tok, id->data) != IDGEN_MASK_OK ||
		!idgen_uuid7_is_v7(id->data))
		report_foreign(token);
	PG_RETURN_UUID_P(id);
}

/*
 * idgen_rotate_mask_key(): a new key, which masks from now on; the old
 * ones keep unmasking.  Returns the new key's fingerprint.  Key ids are
 * never reused (a token names its key), so there are 255 rotations.
 */
PG_FUNCTION_INFO_V1(idgen_rotate_mask_key);
Datum
idgen_rotate_mask_key(PG_FUNCTION_ARGS)
{
	char		fingerprint[IDGEN_MASK_FINGERPRINT_CHARS + 1];
	bytea	   *secret;
	Oid			types[3] = {INT2OID, BYTEAOID, TEXTOID};
	Datum		values[3];
	Datum		max_id;
	int			next_id;
	bool		isnull;
	int			rc;

	secret = new_secret(fingerprint);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* rotations one at a time; masking (reads) goes on meanwhile */
	rc = SPI_execute("LOCK TABLE idgen.mask_key IN SHARE ROW EXCLUSIVE MODE", false, 0);
	if (rc != SPI_OK_UTILITY)
		elog(ERROR, "locking idgen.mask_key failed: %s", SPI_result_code_string(rc));
	rc = SPI_execute("SELECT pg_catalog.max(key_id)::integer FROM idgen.mask_key", false, 0);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading idgen.mask_key failed: %s", SPI_result_code_string(rc));
	max_id = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	next_id = isnull ? IDGEN_MASK_KEY_ID_MIN : DatumGetInt32(max_id) + 1;
	if (next_id > IDGEN_MASK_KEY_ID_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("all %d mask key ids are in use", IDGEN_MASK_KEY_ID_MAX),
				 errdetail("A token names its key in one byte, and key ids are never reused, so that old tokens keep unmasking.")));

	values[0] = Int16GetDatum((int16) next_id);
	values[1] = PointerGetDatum(secret);
	values[2] = CStringGetTextDatum(fingerprint);
	rc = SPI_execute_with_args(
							   "WITH k AS ("
							   "  INSERT INTO idgen.mask_key (key_id, secret, fingerprint)"
							   "  VALUES ($1, $2, $3)"
							   "  RETURNING key_id, fingerprint)"
							   " INSERT INTO idgen.audit_log (action, detail)"
							   " SELECT 'mask_key_rotated',"
							   "        pg_catalog.format('key %s, fingerprint %s', k.key_id, k.fingerprint)"
							   " FROM k",
							   3, types, values, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "adding a mask key failed: %s", SPI_result_code_string(rc));
	SPI_finish();
	forget_secret(secret);

	PG_RETURN_TEXT_P(cstring_to_text(fingerprint));
}

/*
 * idgen.mask_key_changed(): statement trigger on idgen.mask_key.  Rows do
 * not invalidate the relcache by themselves; this makes every backend's
 * key cache notice a rotation, a restore or a hand edit.
 */
PG_FUNCTION_INFO_V1(idgen_mask_key_changed);
Datum
idgen_mask_key_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "idgen_mask_key_changed: not called as a trigger");
	CacheInvalidateRelcache(trigdata->tg_relation);
	return PointerGetDatum(NULL);
}
