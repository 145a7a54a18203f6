// Each statement's declared parameters (the (params) of its entry S(name, (params), SQL)):
// StatementParams<Stmt::name>::type, what bound<Stmt::name>() checks its values against
// (db/binds.h). The repositories include it; it expands the statement lists without their SQL.
#pragma once

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

// param::of::<name>: statement name's list.
namespace of {
// clang-format off
#define SUPPORTCRM_UNPAREN(...) __VA_ARGS__
#define SUPPORTCRM_STMT_PARAMS(name, params, ...) using name = ListOf<SUPPORTCRM_UNPAREN params>::type;
SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_PARAMS)
#undef SUPPORTCRM_STMT_PARAMS
// clang-format on
}  // namespace of

}  // namespace param

// clang-format off
#define SUPPORTCRM_STMT_PARAMS(name, ...) \
    template <> struct StatementParams<Stmt::name> { using type = param::of::name; };
SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_PARAMS)
#undef SUPPORTCRM_STMT_PARAMS
// clang-format on

// Whether statement id is bound positionally (Db::run_positional): the escape hatch's check.
// clang-format off
#define SUPPORTCRM_STMT_POSITIONAL(name, ...) param::of::name::positional,
inline constexpr bool kPositional[] = {SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_POSITIONAL)};
#undef SUPPORTCRM_STMT_POSITIONAL
// clang-format on
constexpr bool is_positional(Stmt id) {
    return kPositional[static_cast<std::size_t>(id)];
}

}  // namespace supportcrm
