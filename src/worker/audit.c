/*
 * audit.c - the background worker's audit queue (audit.h)
 *
 * The queue is a StringInfo in TopMemoryContext: the worker resets its
 * work context after every step, and a record must outlive the step that
 * made it until a registry transaction takes it.  The encoding is
 * auditq.c's, pure C and fuzzed.
 */
#include "worker.h"

#include "utils/memutils.h"

#include "audit.h"
#include "core/auditq.h"
#include "registry.h"

void
audit_queue(IdgenWorker *w, const char *action, const char *detail)
{
	MemoryContext old;
	size_t		size;

	if (w->pending_count >= IDGEN_MAX_PENDING_AUDIT)
		return;
	/* every field length-prefixed: a holder's name may hold any byte */
	size = idgen_auditq_record_size(strlen(action), strlen(detail));
	if (size == 0 || size > MaxAllocSize / 2)
	{
		elog(WARNING, "idgen: audit record \"%s\" too long to queue, dropped", action);
		return;
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	if (w->pending_audit.data == NULL)
		initStringInfo(&w->pending_audit);
	enlargeStringInfo(&w->pending_audit, (int) size);
	idgen_auditq_encode(w->pending_audit.data + w->pending_audit.len,
						action, strlen(action), detail, strlen(detail));
	w->pending_audit.len += (int) size;
	w->pending_audit.data[w->pending_audit.len] = '\0';
	w->pending_count++;
	MemoryContextSwitchTo(old);
}

/*
 * Write the queued audit records to the registry's audit log, inside the
 * caller's registry unit.  A node of a shared registry signs them.
 */
void
audit_flush(IdgenWorker *w)
{
	char	   *actor;
	size_t		pos = 0;
	IdgenAuditRecord rec;

	if (w->pending_count == 0)
		return;

	/*
	 * Only audit_queue() writes the queue, so this cannot fail; if it did,
	 * a queue no transaction can write would stop every renewal from now
	 * on.  Say so and let it go.
	 */
	if (idgen_auditq_count(w->pending_audit.data, w->pending_audit.len) != w->pending_count)
	{
		elog(WARNING, "idgen: dropping %d queued audit records: the queue is damaged",
			 w->pending_count);
		resetStringInfo(&w->pending_audit);
		w->pending_count = 0;
		return;
	}

	actor = w->remote ? psprintf("idgen lease worker of %s", w->owner) :
		pstrdup("idgen lease worker");
	/* the buffer stays intact until all of it is written */
	while (idgen_auditq_next(w->pending_audit.data, w->pending_audit.len,
							 &pos, &rec) == IDGEN_AUDITQ_RECORD)
	{
		const char *params[3];

		params[0] = actor;
		params[1] = pnstrdup(rec.action, rec.action_len);
		params[2] = pnstrdup(rec.detail, rec.detail_len);
		registry_exec("INSERT INTO idgen.audit_log (actor, action, detail) VALUES ($1, $2, $3)",
					  3, params);
	}
	resetStringInfo(&w->pending_audit);
	w->pending_count = 0;
}

void
audit_flush_unit(IdgenWorker *w)
{
	if (w->pending_count == 0)
		return;
	registry_begin("idgen: writing the audit log");
	audit_flush(w);
	registry_commit();
}
