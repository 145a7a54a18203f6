// Typed statement binds: the vocabulary a statement declares its parameters in, and bound<>(),
// which binds a statement's values in their declared order and types.
//
// Every entry of a statement list (db/<resource>_sql.h) declares its parameters beside its SQL:
// S(name, (Id, KeyDigest, OptText), "... ? ... ? ... ?"). db/statements.cpp checks at compile
// time that the SQL has as many placeholders as the list has parameters, and
// db.run(bound<Stmt::name>(id, KeyDigest(digest), label), fn) takes exactly values of the
// declared types, in order: a wrong count, a wrong type or a conversion (int to bool, a string
// to KeyDigest) does not compile. bound() keeps references to its values, no copy nor
// allocation; binding is the same setX calls a hand-written bind makes (each inlined).
//
// Statements whose values are bound by loops (the search statements' word windows, the
// filters' optional pairs) declare (Positional<N>): they run through the reviewed escape hatch
// Db::run_positional() with numbered setX calls, and only their count is checked.
#pragma once

#include <cppconn/datatype.h>
#include <cppconn/prepared_statement.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace supportcrm {

enum class Stmt : std::uint16_t;  // db/statements.h

// The key's digest (hex of its hash): the value of SUPPORTCRM_KEY_MATCH's placeholder, and no
// other. A type of its own, made only explicitly, so that no other string is bound there.
// It refers to the caller's string, which outlives the statement's run.
class KeyDigest {
  public:
    explicit KeyDigest(const std::string& hex) : hex_(&hex) {}
    explicit KeyDigest(std::string&&) = delete;  // would refer to a temporary
    const std::string& hex() const { return *hex_; }

  private:
    const std::string* hex_;
};

namespace param {

template <typename T, typename... Accepted>
constexpr bool one_of = (std::is_same_v<T, Accepted> || ...);

// Each parameter type names the values it accepts (exactly: no conversion) and how it binds one.
struct Id {  // BIGINT UNSIGNED: ids, counts, limits
    template <typename T>
    static constexpr bool accepts = one_of<T, std::uint64_t>;
    static void set(sql::PreparedStatement& st, unsigned i, std::uint64_t v) { st.setUInt64(i, v); }
};
struct UInt {  // INT UNSIGNED: event masks, batch sizes, marks' bits
    template <typename T>
    static constexpr bool accepts = one_of<T, unsigned>;
    static void set(sql::PreparedStatement& st, unsigned i, unsigned v) { st.setUInt(i, v); }
};
struct Int {  // INT: an HTTP status, a survey mark
    template <typename T>
    static constexpr bool accepts = one_of<T, int>;
    static void set(sql::PreparedStatement& st, unsigned i, int v) { st.setInt(i, v); }
};
struct Int64 {  // BIGINT
    template <typename T>
    static constexpr bool accepts = one_of<T, std::int64_t>;
    static void set(sql::PreparedStatement& st, unsigned i, std::int64_t v) { st.setInt64(i, v); }
};
struct Bool {
    template <typename T>
    static constexpr bool accepts = one_of<T, bool>;
    static void set(sql::PreparedStatement& st, unsigned i, bool v) { st.setBoolean(i, v); }
};
struct Text {
    template <typename T>
    static constexpr bool accepts = one_of<T, std::string, std::string_view>;
    static void set(sql::PreparedStatement& st, unsigned i, const std::string& v) {
        st.setString(i, v);
    }
    static void set(sql::PreparedStatement& st, unsigned i, std::string_view v) {
        st.setString(i, std::string(v));
    }
};
// A DATETIME as the server reads it: timeutil::format_db()'s text ("2024-01-31 12:00:00.000").
struct Time {
    template <typename T>
    static constexpr bool accepts = one_of<T, std::string>;
    static void set(sql::PreparedStatement& st, unsigned i, const std::string& v) {
        st.setString(i, v);
    }
};
// The key's digest: SUPPORTCRM_KEY_MATCH's placeholder.
struct Key {
    template <typename T>
    static constexpr bool accepts = one_of<T, KeyDigest>;
    static void set(sql::PreparedStatement& st, unsigned i, const KeyDigest& v) {
        st.setString(i, v.hex());
    }
};

// NULL for nullopt, else the value as Value binds it; null_type is the SQL type the NULL is sent
// as.
template <typename Value, typename T, int null_type>
struct Optional {
    template <typename U>
    static constexpr bool accepts = one_of<U, std::optional<T>>;
    static void set(sql::PreparedStatement& st, unsigned i, const std::optional<T>& v) {
        if (v) {
            Value::set(st, i, *v);
        } else {
            st.setNull(i, null_type);
        }
    }
};
using OptText = Optional<Text, std::string, sql::DataType::VARCHAR>;
using OptTime = Optional<Time, std::string, sql::DataType::TIMESTAMP>;
using OptId = Optional<Id, std::uint64_t, sql::DataType::BIGINT>;
using OptUInt = Optional<UInt, unsigned, sql::DataType::INTEGER>;
using OptInt64 = Optional<Int64, std::int64_t, sql::DataType::BIGINT>;

// The number of placeholders (?) in a statement's text, outside quoted strings ('...', "...",
// a backslash or a doubled quote escaping) and quoted names (`...`).
constexpr std::size_t placeholders(std::string_view sql) {
    std::size_t n = 0;
    char quote = 0;  // the quote we are inside of, or 0
    for (std::size_t i = 0; i < sql.size(); ++i) {
        const char c = sql[i];
        if (quote == 0) {
            n += c == '?';
            quote = c == '\'' || c == '"' || c == '`' ? c : 0;
        } else if (c == '\\' && quote != '`') {
            ++i;  // the escaped character
        } else if (c == quote) {
            quote = 0;  // a doubled quote closes and reopens: the same count
        }
    }
    return n;
}

// A statement's parameter list.
template <typename... P>
struct List {
    static constexpr std::size_t count = sizeof...(P);
    static constexpr bool positional = false;
    template <std::size_t I>
    using at = std::tuple_element_t<I, std::tuple<P...>>;
    template <typename... A>
    static constexpr bool accepts() {
        return (P::template accepts<std::remove_cvref_t<A>> && ...);
    }
};
// The escape hatch: N values bound by numbered setX calls (Db::run_positional).
template <std::size_t N>
struct Positional {
    static constexpr std::size_t count = N;
    static constexpr bool positional = true;
};

}  // namespace param

// Each statement's parameter list: defined for every Stmt in db/statement_params.h.
template <Stmt id>
struct StatementParams;

// A statement and the values of its parameters, bound by Db::run(). Holds references: it lives
// for the full expression that runs it, and a function returning one takes its values by
// reference (a by-value parameter would be gone when the statement runs).
template <typename Params, typename... Args>
class Bound {
  public:
    explicit Bound(Stmt id, const Args&... args) : id_(id), args_(args...) {}
    Stmt statement() const { return id_; }
    void bind(sql::PreparedStatement& st) const {
        bind_all(st, std::index_sequence_for<Args...>{});
    }

  private:
    template <std::size_t... I>
    void bind_all(sql::PreparedStatement& st, std::index_sequence<I...>) const {
        (Params::template at<I>::set(st, static_cast<unsigned>(I + 1), std::get<I>(args_)), ...);
    }
    Stmt id_;
    std::tuple<const Args&...> args_;
};

namespace param {
// Whether values of types Args may bind a statement declaring Params (the messages name why not).
template <typename Params, typename... Args>
constexpr bool check() {
    static_assert(!Params::positional, "a Positional statement runs through Db::run_positional");
    if constexpr (!Params::positional) {
        static_assert(Params::count == sizeof...(Args),
                      "bound<Stmt::x>(...): not the number of parameters the statement declares");
        if constexpr (Params::count == sizeof...(Args)) {
            static_assert(Params::template accepts<Args...>(),
                          "bound<Stmt::x>(...): a value is not of its declared parameter's type "
                          "(db/binds.h: no conversions)");
        }
    }
    return true;
}
}  // namespace param

// The values of statement id's parameters, checked against its declaration.
template <Stmt id, typename... Args>
auto bound(const Args&... args) {
    using Params = typename StatementParams<id>::type;
    static_assert(param::check<Params, Args...>());
    return Bound<Params, Args...>(id, args...);
}

// The same for a statement chosen at run time, id, among `ids`, which must declare the same
// parameters (a page of one scope or another). An id not among them throws std::logic_error.
template <Stmt first, Stmt... ids, typename... Args>
auto bound_one_of(Stmt id, const Args&... args) {
    using Params = typename StatementParams<first>::type;
    static_assert((std::is_same_v<Params, typename StatementParams<ids>::type> && ...),
                  "bound_one_of<...>: the statements declare different parameters");
    static_assert(param::check<Params, Args...>());
    if (id != first && ((id != ids) && ...)) {
        throw std::logic_error("bound_one_of: a statement not among those listed");
    }
    return Bound<Params, Args...>(id, args...);
}

}  // namespace supportcrm
