-- A customer's whole life: merge, export, erasure (extensions.md §E9).
--
-- merged_into: the customer this one was merged into, always the last target of a chain: a
-- merge into B re-points every customer already merged into the source at B in its own
-- transaction, so any merged id resolves in one hop (308 Location). A merged row is kept: its
-- id must keep answering 308, and its email_key / phone_key keep the shop's unique keys taken,
-- so a create with the source's email or phone meets the duplicate and is led to the target
-- (db/customer_sql.h, customer_by_email_key / customer_by_phone_key follow merged_into).
-- ix_customers_merged_into serves that re-pointing (few rows per target).
--
-- erased_at: set in the first transaction of an erasure, with every personal field of the
-- customer row (and its duplicate-detection keys, so the same email makes a new customer);
-- from then on the id answers 410. erasure_done_at: set by the last batch, once no ticket,
-- comment or survey of the customer holds personal data; a DELETE finding erased_at set and
-- erasure_done_at NULL (a repeat, or one cut short) carries on where the batches stopped.
ALTER TABLE customers
    ADD COLUMN IF NOT EXISTS merged_into BIGINT UNSIGNED NULL,
    ADD COLUMN IF NOT EXISTS erased_at DATETIME(3) NULL,
    ADD COLUMN IF NOT EXISTS erasure_done_at DATETIME(3) NULL,
    ADD KEY IF NOT EXISTS ix_customers_merged_into (merged_into);

