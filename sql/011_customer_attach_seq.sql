-- Writes that attach personal data to a customer are certified against a merge or an erasure of
-- it, on a Galera cluster too (issue 28; docs/scale-out.md "A ticket created on one node while
-- its customer is merged on another").
--
-- attach_seq: counted up by every write that attaches data to the customer (a ticket create, a
-- comment on one of its tickets), in that write's transaction. The count itself means nothing;
-- the change of the row does: on one server the write holds the row's exclusive lock, so it
-- queues behind a merge or the first transaction of an erasure (both change the row) and then
-- finds the customer merged or erased; on a Galera cluster the write set carries the row's key
-- as an update, and two updates of one row from two nodes conflict at certification (the foreign
-- key's reference key alone does not: Galera orders a reference after an update but lets both
-- commit). A no-op UPDATE would not do: MariaDB skips a row whose values do not change, and no
-- key is appended for it. Not part of any answer, so the customer's version (ETag) stays.
ALTER TABLE customers
    ADD COLUMN IF NOT EXISTS attach_seq BIGINT UNSIGNED NOT NULL DEFAULT 0;
