// GET /api/v1/csat/export — extensions.md §E4: every survey of the window, newest first, as
// ndjson (the list shape, one per line) or CSV, streamed: rows come from the database in
// keyset chunks and go to nginx as they come, so a worker's memory does not grow with the
// export. nginx buffers the body (to a temp file past its memory buffers, nginx/supportcrm.conf)
// so the worker writes at its own speed and is free whatever the client's: no
// X-Accel-Buffering: no, which made a client that stops reading hold the worker.
#include "api/api_error.h"
#include "api/csat_query.h"
#include "api/csv.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/survey_repo.h"

namespace supportcrm {
namespace {

constexpr std::size_t kFlushBytes = 16 * 1024;

constexpr std::string_view kCsvHeader =
    "id,createdAt,mark,comment,conversationId,messageId,customerId,customerEmail,customerName,"
    "channel,assignedTo,shopDomain\r\n";

void append_optional_cell(std::string& out, const std::optional<std::string>& v) {
    if (v) {
        csv::append_cell(out, *v);
    }
}

void append_csv_row(std::string& out, const SurveyRow& s) {
    auto number = [&](auto n) { csv::append_cell(out, std::to_string(n)); };
    number(s.id);
    out += ',';
    csv::append_cell(out, s.created_at);
    out += ',';
    number(s.mark);
    out += ',';
    append_optional_cell(out, s.comment);
    out += ',';
    number(s.conversation_id);
    out += ',';
    if (s.message_id) {
        number(*s.message_id);
    }
    out += ',';
    if (s.customer.id != 0) {  // 0: erased, an empty cell
        number(s.customer.id);
    }
    out += ',';
    append_optional_cell(out, s.customer.email);
    out += ',';
    append_optional_cell(out, s.customer.name);
    out += ',';
    csv::append_cell(out, s.channel);
    out += ',';
    if (s.assigned_to) {
        number(*s.assigned_to);
    }
    out += ',';
    csv::append_cell(out, s.shop_domain);
    out += csv::kLineEnd;
}

class CsatExportStream : public SnapshotStream {
  public:
    CsatExportStream(Db& db, std::unique_ptr<Transaction> tx, std::unique_ptr<SurveyExport> rows,
                     CsatFormat format)
        : SnapshotStream(db, std::move(tx)), rows_(std::move(rows)), format_(format) {}

  private:
    void produce(BodySink& sink) override {
        std::string buf;
        buf.reserve(kFlushBytes * 2);
        if (format_ == CsatFormat::csv) {
            buf += kCsvHeader;
        }
        while (const SurveyRow* row = rows_->next()) {
            if (format_ == CsatFormat::csv) {
                append_csv_row(buf, *row);
            } else {
                JsonWriter w(buf);
                write_survey(w, *row);
                buf += '\n';
            }
            if (buf.size() >= kFlushBytes) {
                sink.write(buf);
                buf.clear();
            }
        }
        sink.write(buf);
    }

    std::unique_ptr<SurveyExport> rows_;
    CsatFormat format_;
};

}  // namespace

Response export_csat(HandlerContext& ctx) {
    CsatParse parsed =
        parse_csat_query(QueryParams(ctx.request.query), timeutil::now_ms(), CsatEndpoint::export_);
    if (!parsed.error.empty()) {
        return errors::invalid_query(parsed.error);
    }
    const CsatParams& p = parsed.params;
    const Shop& shop = ctx.caller.shop();
    const bool brand = p.brand && shop.brand_id.has_value();
    // One snapshot for the whole export; the first chunks are read here, inside the request's
    // exception boundary, so a failing database is still a 503 rather than a cut stream.
    auto tx = std::make_unique<Transaction>(ctx.db, /*read_only=*/true);
    auto rows = std::make_unique<SurveyExport>(
        ctx.db, scope_shops(ctx.db, shop.id, brand ? shop.brand_id : std::nullopt), p.start, p.end,
        p.filters);
    rows->start();
    Response r;
    r.content_type =
        p.format == CsatFormat::csv ? "text/csv; charset=utf-8" : "application/x-ndjson";
    r.stream = std::make_shared<CsatExportStream>(ctx.db, std::move(tx), std::move(rows), p.format);
    return r;
}

}  // namespace supportcrm
