// GET and HEAD /healthz — contract §6: for load balancers; no key, 200 while the database
// answers. For HEAD the worker sends the same head without the body.
// A database that does not answer surfaces as DbUnavailable, which the request boundary
// answers 503.
#include "api/handler.h"
#include "db/statement_params.h"

namespace supportcrm {

Response healthz(HandlerContext& ctx) {
    ctx.db.run(bound<Stmt::ping>(),
               [](sql::PreparedStatement& st) { ResultSetPtr rs(st.executeQuery()); });
    Response r;
    r.body = R"({"status":"ok"})";
    return r;
}

}  // namespace supportcrm
