// GET /api/v1/customers/{customerId}/export — extensions.md §E9: a data subject's copy, as
// ndjson: the customer, then each ticket (id ascending, full shape) followed by its comments
// (v1 order, list shape + ticketId), then the surveys (createdAt ascending, list shape).
//
// Like the CSAT export (handlers/csat_export.cpp) it is streamed: tickets, comments and surveys
// come from the database in keyset chunks and go to nginx as they come, so a worker's memory
// does not grow with the customer's history; nginx buffers them (handlers/csat_export.cpp).
// Everything is read in one transaction WITH CONSISTENT SNAPSHOT, READ ONLY, opened before the
// customer is read: the copy is one moment of the data, whatever is written while it streams.
#include "api/api_error.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/comment_repo.h"
#include "db/customer_repo.h"
#include "db/survey_repo.h"
#include "db/ticket_repo.h"
#include "handlers/path_customer.h"

namespace supportcrm {
namespace {

constexpr std::size_t kFlushBytes = 16 * 1024;
constexpr std::uint64_t kTicketChunk = 100;
constexpr std::uint64_t kCommentChunk = 200;
constexpr std::uint64_t kSurveyChunk = 200;

// {"type":"<type>","data":
void begin_line(std::string& buf, std::string_view type) {
    buf += R"({"type":")";
    buf += type;
    buf += R"(","data":)";
}

void end_line(std::string& buf) {
    buf += "}\n";
}

class CustomerExportStream : public SnapshotStream {
  public:
    CustomerExportStream(Db& db, std::unique_ptr<Transaction> tx, std::string key_digest,
                         std::uint64_t customer_id, std::string shop_domain,
                         std::string customer_line, std::vector<std::uint64_t> first_tickets)
        : SnapshotStream(db, std::move(tx)),
          key_digest_(std::move(key_digest)),
          customer_id_(customer_id),
          shop_domain_(std::move(shop_domain)),
          buf_(std::move(customer_line)),
          tickets_(std::move(first_tickets)) {}

  private:
    void produce(BodySink& sink) override {
        write_tickets(sink);
        write_surveys(sink);
        sink.write(buf_);
    }

    void flush_if_full(BodySink& sink) {
        if (buf_.size() >= kFlushBytes) {
            sink.write(buf_);
            buf_.clear();
        }
    }

    void write_tickets(BodySink& sink) {
        while (!tickets_.empty()) {
            for (std::uint64_t id : tickets_) {
                write_ticket(id);
                flush_if_full(sink);
                write_comments(id, sink);
            }
            const std::uint64_t last = tickets_.back();
            tickets_ = customer_ticket_ids(db_, customer_id_, last, kTicketChunk);
        }
    }

    void write_ticket(std::uint64_t id) {
        std::optional<TicketForPatch> found = KeyedOpener::record_of_settled_key(
            find_ticket_for_patch(db_, key_digest_, id, std::nullopt));
        if (!found) {
            throw std::runtime_error("export: ticket " + std::to_string(id) +
                                     " vanished from the snapshot");
        }
        begin_line(buf_, "ticket");
        JsonWriter w(buf_);
        write_full_ticket(w, found->ticket, shop_domain_);
        end_line(buf_);
    }

    void write_comments(std::uint64_t ticket_id, BodySink& sink) {
        CommentPage page;
        page.rows = kCommentChunk;
        const std::string ticket = std::to_string(ticket_id);
        while (true) {
            std::optional<TicketComments> found = KeyedOpener::record_of_settled_key(
                list_comments(db_, key_digest_, ticket_id, page));
            if (!found) {
                return;  // no (more) comments
            }
            const TicketComments& tc = *found;
            for (const CommentRow& c : tc.comments) {
                begin_line(buf_, "comment");
                {
                    JsonWriter w(buf_);
                    write_comment(w, c, tc.customer);
                }
                // The list shape plus "ticketId" (a conversation id: a string of digits).
                buf_.pop_back();
                buf_ += R"(,"ticketId":")" + ticket + "\"}";
                end_line(buf_);
                flush_if_full(sink);
            }
            if (tc.comments.size() < kCommentChunk) {
                return;
            }
            page.after = CommentPage::After{tc.comments.back().time_ms, tc.comments.back().id};
        }
    }

    void write_surveys(BodySink& sink) {
        std::optional<SurveyKey> after;
        while (true) {
            std::vector<SurveyRow> rows =
                customer_surveys_chunk(db_, customer_id_, after, kSurveyChunk);
            for (const SurveyRow& s : rows) {
                begin_line(buf_, "survey");
                JsonWriter w(buf_);
                write_survey(w, s);
                end_line(buf_);
                flush_if_full(sink);
            }
            if (rows.size() < kSurveyChunk) {
                return;
            }
            after = SurveyKey{rows.back().created_at, rows.back().id};
        }
    }

    std::string key_digest_;
    std::uint64_t customer_id_;
    std::string shop_domain_;
    std::string buf_;                     // what is not yet sent
    std::vector<std::uint64_t> tickets_;  // the current chunk of ticket ids
};

}  // namespace

Response export_customer(HandlerContext& ctx) {
    // The snapshot first: the customer line and everything after it are of one moment.
    auto tx = std::make_unique<Transaction>(ctx.db, /*read_only=*/true);
    Checked<PathCustomer> found = read_path_customer(ctx);
    if (found.error) {
        return std::move(*found.error);
    }
    std::string line;
    begin_line(line, "customer");
    {
        JsonWriter w(line);
        write_fetched_customer(w, found.value.row, found.value.shop->domain);
    }
    end_line(line);
    // The first chunk is read here, inside the request's exception boundary, so a failing
    // database is still a 503 rather than a cut stream.
    std::vector<std::uint64_t> first = customer_ticket_ids(ctx.db, ctx.path_id, 0, kTicketChunk);
    Response r;
    r.content_type = "application/x-ndjson";
    r.stream = std::make_shared<CustomerExportStream>(
        ctx.db, std::move(tx), ctx.caller.key_digest(), ctx.path_id, found.value.shop->domain,
        std::move(line), std::move(first));
    return r;
}

}  // namespace supportcrm
