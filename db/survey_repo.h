// CSAT survey responses and the per-shop, per-UTC-day, per-mark counts kept beside them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time_util.h"
#include "db/auth_repo.h"
#include "db/db.h"

namespace supportcrm {

struct SurveyCustomer {
    std::uint64_t id = 0;
    std::optional<std::string> email, name, phone;
};

// The columns a client gives when it records a survey: shared by the new survey and the row, so
// that the row of a new survey is a copy of one part, not of each field.
struct SurveyFields {
    std::uint64_t conversation_id = 0;
    int mark = 0;
    std::optional<std::string> comment;
    std::optional<std::int64_t> message_id;
    std::string graph_nodes_json = "{}";  // any JSON object, as text
    std::string node_ids_json = "[]";     // any JSON array, as text
};

struct NewSurvey : SurveyFields {
    timeutil::Millis created_at = 0;
};

// In one transaction: the survey and its day's count. nullopt when the conversation is not in
// the shop. Returns the new id and the conversation's customer.
struct RecordedSurvey {
    std::uint64_t id = 0;
    SurveyCustomer customer;
    bool customer_erased = false;  // nothing written: the ticket's customer was erased (410)
};
std::optional<RecordedSurvey> record_survey(Db& db, std::uint64_t shop_id, const NewSurvey& survey);

struct SurveyRow : SurveyFields {
    std::uint64_t id = 0;
    std::string created_at;  // ISO 8601
    std::string shop_domain;
    SurveyCustomer customer;
    // E4: the conversation's at record time; read by the E4 statements only (not in the list
    // shape, but in the CSV export).
    std::string channel;
    std::optional<std::uint64_t> assigned_to;
};

// The row record_survey() wrote, without reading it back: every column is known.
SurveyRow row_of_new_survey(const RecordedSurvey& recorded, const NewSurvey& survey,
                            std::string shop_domain);

struct CsatQuery {
    std::uint64_t scope_id = 0;  // the shop id, or the brand id when brand
    bool brand = false;
    timeutil::Millis start = 0;  // inclusive
    timeutil::Millis end = 0;    // inclusive, always 23:59:59.999 of its UTC day
    std::uint64_t limit = 10;
    std::uint64_t offset = 0;
};

struct CsatResult {
    std::vector<SurveyRow> surveys;          // createdAt descending, then id descending
    std::array<std::uint64_t, 6> by_mark{};  // [1..5]: surveys in the window with that mark
};

// The page and the window's counts, read in one consistent snapshot.
CsatResult query_csat(Db& db, const CsatQuery& query);

// Shop scope for the shop of the key with this digest, in one statement (query.scope_id and
// query.brand are not used). Neither key nor value when no row came back: an unknown key, an
// empty window or a page past its end; resolve the key, then query_csat().
Keyed<CsatResult> query_shop_csat_for_key(Db& db, const std::string& key_digest,
                                          const CsatQuery& query);

}  // namespace supportcrm

namespace supportcrm {

// ---- E4 (extensions.md): filters, groups, the export.

constexpr unsigned kAllSurveyMarks = 0x3E;  // bits 1..5
struct SurveyFilter {
    unsigned marks = kAllSurveyMarks;  // bit m: mark m counts
    std::optional<std::string> channel;
    std::optional<std::uint64_t> assigned_to;
    std::optional<std::uint64_t> customer_id;
    bool any() const { return marks != kAllSurveyMarks || channel || assigned_to || customer_id; }
};

// A part of a window counted on its own, [start, end] inclusive, and the tag its counts carry
// (a day's index with groupBy=day, 0 otherwise).
struct WindowPart {
    timeutil::Millis start = 0, end = 0;
    std::uint32_t tag = 0;
};

enum class CountKey { tag, channel, agent };

struct GroupCounts {
    std::uint32_t tag = 0;
    std::string channel;
    std::optional<std::uint64_t> agent;      // nullopt: unassigned
    std::array<std::uint64_t, 6> by_mark{};  // only the filter's marks; the others stay 0
};

// The counts of the shops' surveys in the parts that pass the filter, one entry per key that
// has surveys (any order). Statements: one lookup per aligned span of survey_span_counts (a
// greedy cover of each part's quarter-hour grid), the survey rows of parts' ends off that
// grid, or the customer's surveys (by index) when the filter names one.
std::vector<GroupCounts> count_surveys(Db& db, const std::vector<std::uint64_t>& shops,
                                       const std::vector<WindowPart>& parts,
                                       const SurveyFilter& filter, CountKey key);

// The page of the shops' surveys in [start, end] that pass the filter, newest first.
std::vector<SurveyRow> filtered_page(Db& db, const std::vector<std::uint64_t>& shops,
                                     timeutil::Millis start, timeutil::Millis end,
                                     const SurveyFilter& filter, std::uint64_t limit,
                                     std::uint64_t offset);

// The brand's live shops (by id), or just the shop.
std::vector<std::uint64_t> scope_shops(Db& db, std::uint64_t shop_id,
                                       std::optional<std::uint64_t> brand_id);

// Every survey of the shops in [start, end] passing the filter, newest first (createdAt, then
// id), read in chunks of `chunk` rows per shop by keyset: memory is shops x chunk rows,
// whatever the number of surveys. The caller keeps one read-only transaction open around it
// (one snapshot for the whole export).
// GET /api/v1/customers/{id}/export (extensions.md §E9): up to `rows` of the customer's
// surveys after (after_created, after_id), createdAt ascending then id; the first chunk passes
// nullopt.
struct SurveyKey {
    std::string created_at;  // ISO 8601, as SurveyRow has it
    std::uint64_t id = 0;
};
std::vector<SurveyRow> customer_surveys_chunk(Db& db, std::uint64_t customer_id,
                                              const std::optional<SurveyKey>& after,
                                              std::uint64_t rows);

class SurveyExport {
  public:
    SurveyExport(Db& db, std::vector<std::uint64_t> shops, timeutil::Millis start,
                 timeutil::Millis end, SurveyFilter filter, std::size_t chunk = 500);
    // Reads each shop's first chunk (so that a failing database shows before anything is sent).
    void start();
    // The next survey, or nullptr at the end. Valid until the next call.
    const SurveyRow* next();

  private:
    struct ShopCursor {
        std::uint64_t shop_id = 0;
        std::vector<SurveyRow> rows;  // the current chunk
        std::size_t at = 0;
        bool exhausted = false;
        bool started = false;
        std::string last_created;  // DATETIME(3) text of the last row read
        std::uint64_t last_id = 0;
    };
    void refill(ShopCursor& c);

    Db& db_;
    timeutil::Millis start_, end_;
    SurveyFilter filter_;
    std::size_t chunk_;
    std::vector<ShopCursor> cursors_;
    SurveyRow current_;
};

}  // namespace supportcrm
