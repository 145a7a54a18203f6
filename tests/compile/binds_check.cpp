// Compiled (syntax only) by the binds.* CTests, once per CASE: each case but "ok" must fail to
// compile with bound<>()'s own message (db/binds.h), which is what the test matches.
#include <cstdint>
#include <string>

#include "db/statement_params.h"

namespace supportcrm {

void binds_check() {
    const std::uint64_t id = 7;
    const std::string digest = "00ff";
#if CASE == 0  // the control: declared count and types
    bound<Stmt::webhook_delete>(id);
    bound<Stmt::shop_by_key_hash>(KeyDigest(digest));
    bound<Stmt::customer_merge_source>(id, true, false, id);
#elif CASE == 1  // one value too many
    bound<Stmt::webhook_delete>(id, id);
#elif CASE == 2  // one value missing
    bound<Stmt::customer_merge_source>(id, true, false);
#elif CASE == 3  // a string where an id is declared
    bound<Stmt::webhook_delete>(digest);
#elif CASE == 4  // an int where a Bool is declared: no int-to-bool conversion
    bound<Stmt::customer_merge_source>(id, 1, false, id);
#elif CASE == 5  // a plain string where the key's digest is declared
    bound<Stmt::shop_by_key_hash>(digest);
#elif CASE == 6  // a signed int where an id is declared
    bound<Stmt::webhook_delete>(7);
#endif
}

}  // namespace supportcrm
