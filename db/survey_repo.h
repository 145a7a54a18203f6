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
};
std::optional<RecordedSurvey> record_survey(Db& db, std::uint64_t shop_id, const NewSurvey& survey);

struct SurveyRow : SurveyFields {
    std::uint64_t id = 0;
    std::string created_at;  // ISO 8601
    std::string shop_domain;
    SurveyCustomer customer;
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
