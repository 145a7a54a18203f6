// Each statement's declared parameters (the (params) of its entry S(name, (params), SQL)):
// StatementParams<Stmt::name>::type, what bound<Stmt::name>() checks its values against
// (db/binds.h). The repositories include it; it expands the statement lists without their SQL.
#pragma once

#include "db/auth_sql.h"
#include "db/binds.h"
#include "db/statements.h"

namespace supportcrm {

namespace param {

// A declaration's list: (Positional<N>) alone, else each parameter's type.
template <typename... P>
struct ListOf {
    using type = List<P...>;
};
template <std::size_t N>
struct ListOf<Positional<N>> {
    using type = Positional<N>;
};

// A keyed statement's list: Key inserted after the first `at` of its declared parameters.
template <std::size_t at, typename Rest, typename... Before>
struct WithKey;
template <typename... Rest, typename... Before>
struct WithKey<0, List<Rest...>, Before...> {
    using type = List<Before..., Key, Rest...>;
};
template <std::size_t at, typename First, typename... Rest, typename... Before>
requires(at > 0) struct WithKey<at, List<First, Rest...>, Before...> {
    using type = typename WithKey<at - 1, List<Rest...>, Before..., First>::type;
};

// param::of::<name>: statement name's list. A keyed statement's Key follows the placeholders
// of its columns and joins (SUPPORTCRM_KEYED_SQL, db/auth_sql.h).
namespace of {
// clang-format off
#define SUPPORTCRM_UNPAREN(...) __VA_ARGS__
#define SUPPORTCRM_STMT_PARAMS(name, params, ...) using name = ListOf<SUPPORTCRM_UNPAREN params>::type;
#define SUPPORTCRM_KEYED_PARAMS(name, params, columns, joins, tail) \
    using name = WithKey<placeholders(columns joins), ListOf<SUPPORTCRM_UNPAREN params>::type>::type;
SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_PARAMS, SUPPORTCRM_KEYED_PARAMS)
#undef SUPPORTCRM_KEYED_PARAMS
#undef SUPPORTCRM_STMT_PARAMS
// clang-format on
}  // namespace of

}  // namespace param

// clang-format off
#define SUPPORTCRM_STMT_PARAMS(name, ...) \
    template <> struct StatementParams<Stmt::name> { using type = param::of::name; };
SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_PARAMS, SUPPORTCRM_STMT_PARAMS)
#undef SUPPORTCRM_STMT_PARAMS
// clang-format on

// Whether statement id is bound positionally (Db::run_positional): the escape hatch's check.
// clang-format off
#define SUPPORTCRM_STMT_POSITIONAL(name, ...) param::of::name::positional,
inline constexpr bool kPositional[] = {SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_POSITIONAL, SUPPORTCRM_STMT_POSITIONAL)};
#undef SUPPORTCRM_STMT_POSITIONAL
// clang-format on
constexpr bool is_positional(Stmt id) {
    return kPositional[static_cast<std::size_t>(id)];
}

// Whether statement id is keyed (an entry K(...): SUPPORTCRM_KEYED_SQL, db/auth_sql.h): its row
// ends with the key's columns, and no row means an unknown key or nothing found.
// clang-format off
#define SUPPORTCRM_STMT_NOT_KEYED(name, ...) false,
#define SUPPORTCRM_STMT_KEYED(name, ...) true,
inline constexpr bool kKeyed[] = {SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_NOT_KEYED, SUPPORTCRM_STMT_KEYED)};
#undef SUPPORTCRM_STMT_KEYED
#undef SUPPORTCRM_STMT_NOT_KEYED
// clang-format on
constexpr bool is_keyed(Stmt id) {
    return kKeyed[static_cast<std::size_t>(id)];
}

}  // namespace supportcrm
