// Running the statements of db/statements.h: each prepared once per connection, every write
// recorded in the WriteLedger before it is sent, every run timed for the slow log; and the
// helpers that bind and read their values.
//
// This file compiles every statement list's layout checks (db/columns.h).
#define SUPPORTCRM_CHECK_STATEMENT_LAYOUTS 1
#include "db/statements.h"

#include <cppconn/datatype.h>
#include <cppconn/exception.h>

#include "common/time_util.h"
#include "db/db.h"
#include "db/statement_params.h"
#include "db/statement_table.h"

namespace supportcrm {

// Every statement has as many placeholders as it declares parameters: what makes bound<>()'s
// checks of count and order hold for the SQL too.
// clang-format off
#define SUPPORTCRM_CHECK_PLACEHOLDERS(name, params, ...)                                    \
    static_assert(param::placeholders(__VA_ARGS__) == param::of::name::count,               \
                  #name ": its SQL has another number of ? than the parameters it declares");
#define SUPPORTCRM_CHECK_KEYED_PLACEHOLDERS(name, params, columns, joins, tail)              \
    SUPPORTCRM_CHECK_PLACEHOLDERS(name, params, SUPPORTCRM_KEYED_SQL(columns, joins, tail))
SUPPORTCRM_STATEMENTS(SUPPORTCRM_CHECK_PLACEHOLDERS, SUPPORTCRM_CHECK_KEYED_PLACEHOLDERS)
#undef SUPPORTCRM_CHECK_KEYED_PLACEHOLDERS
#undef SUPPORTCRM_CHECK_PLACEHOLDERS
// clang-format on

// A read of the key's columns from the key's tables is an entry K(...), generated
// (SUPPORTCRM_KEYED_SQL), not written out; shop_by_key_hash, the key's own statement, reads
// nothing else.
constexpr bool writes_out_keyed_read(std::string_view sql) {
    return statement_text::starts_with(sql, "SELECT ") &&
           sql.find(SUPPORTCRM_KEY_COLUMNS " FROM " SUPPORTCRM_KEY_TABLES) !=
               std::string_view::npos;
}
// clang-format off
#define SUPPORTCRM_CHECK_NOT_KEYED(name, params, ...)                                       \
    static_assert(Stmt::name == Stmt::shop_by_key_hash || !writes_out_keyed_read(__VA_ARGS__), \
                  #name ": a keyed read is an entry K(name, (params), columns, joins, tail)");
#define SUPPORTCRM_IGNORE_KEYED(...)
SUPPORTCRM_STATEMENTS(SUPPORTCRM_CHECK_NOT_KEYED, SUPPORTCRM_IGNORE_KEYED)
#undef SUPPORTCRM_IGNORE_KEYED
#undef SUPPORTCRM_CHECK_NOT_KEYED
// clang-format on

std::size_t Db::statement_count() {
    return kStatementCount;
}

const char* Db::name(Stmt id) {
    return statement_spec(id).name;
}

bool Db::positional(Stmt id) {
    return is_positional(id);
}

bool Db::writes(Stmt id) {
    return statement_spec(id).writes;
}

void Db::sending(Stmt id) {
    const StatementSpec& s = statement_spec(id);
    ledger_.sending(s.name, s.writes);
}

std::int64_t Db::statement_started(Stmt id) {
    const std::int64_t now = scoreboard::monotonic_ns();
    if (probe_ != nullptr) {
        probe_->started_ns.store(now, std::memory_order_relaxed);
        probe_->statement.store(static_cast<std::int32_t>(id), std::memory_order_relaxed);
    }
    return now;
}

void Db::statement_done(Stmt id, std::int64_t started_ns) {
    if (probe_ != nullptr) {
        probe_->statement.store(-1, std::memory_order_relaxed);
    }
    if (timing_count_ < kMaxTimings) {
        timings_[timing_count_] = {id, scoreboard::monotonic_ns() - started_ns};
    }
    ++timing_count_;
}

sql::PreparedStatement& Db::statement(Stmt id) {
    auto& slot = statements_[static_cast<std::size_t>(id)];
    if (!slot) {
        slot.reset(connection().prepareStatement(statement_spec(id).sql));
    }
    return *slot;
}

void Db::prepare_all() {
    // Prepared only, not run: the ledger sees nothing sent.
    for (std::size_t i = 0; i < kStatementCount; ++i) {
        try {
            statement(static_cast<Stmt>(i));
        } catch (const sql::SQLException& e) {
            failed(e, kStatements[i].name, ledger_.mark());
        }
    }
}

const std::string& Db::cursor_secret() {
    if (cursor_secret_.empty()) {
        cursor_secret_ = run(bound<Stmt::installation_secret>(), [](sql::PreparedStatement& st) {
            ResultSetPtr rs(st.executeQuery());
            if (!rs->next()) {
                throw std::runtime_error(
                    "installation_secrets has no cursor secret: run supportcrm-admin migrate");
            }
            return std::string(rs->getString(1));
        });
    }
    return cursor_secret_;
}

void bind_optional(sql::PreparedStatement& st, unsigned index,
                   const std::optional<std::string>& v) {
    if (v) {
        st.setString(index, *v);
    } else {
        st.setNull(index, sql::DataType::VARCHAR);
    }
}

void bind_optional(sql::PreparedStatement& st, unsigned index,
                   const std::optional<std::uint64_t>& v) {
    if (v) {
        st.setUInt64(index, *v);
    } else {
        st.setNull(index, sql::DataType::BIGINT);
    }
}

std::optional<std::string> optional_string(const sql::ResultSet& rs, unsigned column) {
    if (rs.isNull(column)) {
        return std::nullopt;
    }
    return std::string(rs.getString(column));
}

std::optional<std::uint64_t> optional_uint(const sql::ResultSet& rs, unsigned column) {
    if (rs.isNull(column)) {
        return std::nullopt;
    }
    return rs.getUInt64(column);
}

std::string iso_datetime(const sql::ResultSet& rs, unsigned column) {
    return timeutil::format_iso(rs.getInt64(column));
}

std::optional<std::string> optional_iso_datetime(const sql::ResultSet& rs, unsigned column) {
    if (rs.isNull(column)) {
        return std::nullopt;
    }
    return iso_datetime(rs, column);
}

}  // namespace supportcrm
