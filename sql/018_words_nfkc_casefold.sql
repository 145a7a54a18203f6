-- extensions.md §E10 v1.3: words are split from the text after NFKC_Casefold (common/words.cpp,
-- ICU), for the search data and for `q` alike. The words stored before were folded otherwise
-- (towlower(towupper(c)), no normalization: NFD "e\u0301cole", "straße", "ﬁnance" were words
-- no v1.3 query meets), so every ticket's and customer's words are computed again.
--
-- SQL cannot fold as ICU does (MariaDB has no NFKC nor full case folding), so this file only
-- records the work and `supportcrm-admin migrate` does it, in C++ with the service's own
-- words::split, after the files (db/search_reindex.cpp): the rows of search_reindex not yet
-- finished are walked in id order, a bounded batch of tickets (or customers) per transaction,
-- each batch's words rewritten and its progress (done_through, the last id done) committed
-- together. So a migrate cut short (a crash, a lost connection, Ctrl-C) loses at most one
-- batch and the next migrate goes on from done_through; a batch done twice writes the same
-- rows. The service keeps serving meanwhile: a batch locks only its own 200 tickets
-- (customers), for the batch's ~80 ms, and writes only the rows that change (docs/operations.md,
-- "4. Schema").
--
-- A later change of the rule resets the rows (UPDATE search_reindex SET done_through = 0,
-- finished_at = NULL) and the same step runs again.
CREATE TABLE IF NOT EXISTS search_reindex (
    name          VARCHAR(32)     NOT NULL PRIMARY KEY,  -- 'tickets' or 'customers'
    done_through  BIGINT UNSIGNED NOT NULL DEFAULT 0,
    finished_at   DATETIME(3)     NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT IGNORE INTO search_reindex (name) VALUES ('tickets'), ('customers');
