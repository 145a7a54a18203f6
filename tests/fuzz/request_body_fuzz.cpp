// libFuzzer target over the request path that needs no database (issue 10, extensions.md §E1):
// the body as read_json_object() reads it (strict_json::parse), the create operations'
// validation (api/bodies.h: the functions the handlers run) and the JSON writer responses
// are written with (common/json_writer.h, api/views.h). Built with
// -DSUPPORTCRM_FUZZ=ON by clang (scripts/fuzz); every input is one request body.
//
// Besides "no crash, no sanitizer report", every input must satisfy these properties; a
// violation prints what broke and aborts (libFuzzer keeps the input as a crash artifact):
//   P1 parse() and valid() agree; a refused text leaves the output null; a UTF-8 byte-order
//      mark in front changes nothing.
//   P2 every string and member name the parser produced is well-formed UTF-8.
//   P3 an accepted value, written with JsonWriter, is JSON the strict parser accepts, with the
//      same value (numbers by value: int, uint and real compare equal when they denote the
//      same double; strings byte for byte; objects as member sets); the writer's output read
//      back and written again is the same bytes.
//   P4 read_json_object() answers exactly as parse() says: {} for no body, invalid_json for a
//      refused text, invalid_body for a non-object, else the parsed object; error bodies are
//      strict JSON.
//   P5 on the object, each operation's validation either fails with a message or yields values
//      within the contract's limits; values kept "as given" (attachments, graphNodes, nodeIds)
//      and the arrays the service writes (tags, toEmails) read back as the body's values;
//      datetimes format (for responses and for the database) and re-parse to the same
//      instant; the response-shaped JSON written from the values (the handlers' shapes,
//      minus what the database adds) is strict JSON.
#include <json/value.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/api_error.h"
#include "api/bodies.h"
#include "api/caller.h"
#include "api/fields.h"
#include "api/handler.h"
#include "api/request.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "common/strict_json.h"
#include "common/text.h"
#include "common/time_util.h"
#include "db/db.h"

using namespace supportcrm;

namespace {

constexpr std::size_t kMaxBodyBytes = 1 << 20;  // the default max-body-bytes
// 2026-01-01T00:00:00Z: "now" for the defaults of datetimes, fixed so runs reproduce.
constexpr timeutil::Millis kNow = 1'767'225'600'000;

// ---------------------------------------------------------------------------------------------
// Failing

[[noreturn]] void violated(const char* property, std::string_view detail) {
    std::string shown;
    append_json_string(shown, detail.substr(0, 4096));
    std::fprintf(stderr, "\nrequest_body_fuzz: PROPERTY VIOLATED: %s\n  detail: %s%s\n", property,
                 shown.c_str(), detail.size() > 4096 ? " (truncated)" : "");
    std::abort();
}

void check(bool ok, const char* property, std::string_view detail = {}) {
    if (!ok) {
        violated(property, detail);
    }
}

// ---------------------------------------------------------------------------------------------
// Semantic equality of two parsed values

bool is_number(const Json::Value& v) {
    return v.type() == Json::intValue || v.type() == Json::uintValue || v.type() == Json::realValue;
}

// Integers compare exactly. Against a real they compare as doubles: the writer prints a double
// as the shortest text that reads back as the same double, which for an integral one is an
// integer literal (3.0 → "3", 2^63 → "9223372036854776000"), so a reader gets that double back
// only by reading the literal as a double.
bool same_number(const Json::Value& a, const Json::Value& b) {
    if (a.type() == Json::realValue || b.type() == Json::realValue) {
        return a.asDouble() == b.asDouble();
    }
    if (a.type() == b.type()) {
        return a.type() == Json::intValue ? a.asInt64() == b.asInt64()
                                          : a.asUInt64() == b.asUInt64();
    }
    const Json::Value& i = a.type() == Json::intValue ? a : b;
    const Json::Value& u = a.type() == Json::intValue ? b : a;
    return i.asInt64() >= 0 && static_cast<std::uint64_t>(i.asInt64()) == u.asUInt64();
}

std::string_view string_bytes(const Json::Value& v) {
    const char* begin = nullptr;
    const char* end = nullptr;
    v.getString(&begin, &end);
    return {begin, static_cast<std::size_t>(end - begin)};
}

bool same_value(const Json::Value& a, const Json::Value& b) {
    if (is_number(a) && is_number(b)) {
        return same_number(a, b);
    }
    if (a.type() != b.type()) {
        return false;
    }
    switch (a.type()) {
        case Json::nullValue:
            return true;
        case Json::booleanValue:
            return a.asBool() == b.asBool();
        case Json::stringValue:
            return string_bytes(a) == string_bytes(b);
        case Json::arrayValue:
            if (a.size() != b.size()) {
                return false;
            }
            for (Json::ArrayIndex i = 0; i < a.size(); ++i) {
                if (!same_value(a[i], b[i])) {
                    return false;
                }
            }
            return true;
        case Json::objectValue:
            if (a.size() != b.size()) {
                return false;
            }
            for (auto it = a.begin(); it != a.end(); ++it) {
                const char* end = nullptr;
                const char* name = it.memberName(&end);
                const Json::Value* other = b.find(name, end);
                if (other == nullptr || !same_value(*it, *other)) {
                    return false;
                }
            }
            return true;
        default:
            return false;
    }
}

// P2: strings and member names are well-formed UTF-8 (text::is_blank and the length checks
// rely on it).
void check_utf8(const Json::Value& v) {
    if (v.isString()) {
        check(text::is_valid_utf8(string_bytes(v)), "P2 parsed string is well-formed UTF-8",
              string_bytes(v));
    } else if (v.isArray()) {
        for (const Json::Value& item : v) {
            check_utf8(item);
        }
    } else if (v.isObject()) {
        for (auto it = v.begin(); it != v.end(); ++it) {
            const char* end = nullptr;
            const char* name = it.memberName(&end);
            std::string_view n(name, static_cast<std::size_t>(end - name));
            check(text::is_valid_utf8(n), "P2 parsed member name is well-formed UTF-8", n);
            check_utf8(*it);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Any parsed value through JsonWriter

bool needs_escape(std::string_view name) {
    for (char c : name) {
        if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') {
            return true;
        }
    }
    return false;
}

void write_value(JsonWriter& w, const Json::Value& v, int depth);

// A value written by a writer of its own and spliced in with raw(), as responses splice stored
// JSON. JsonWriter tracks 64 levels of nesting (json_writer.h); the parser allows 256.
std::string written_apart(const Json::Value& v) {
    std::string out;
    JsonWriter w(out);
    write_value(w, v, 0);
    return out;
}

void write_value(JsonWriter& w, const Json::Value& v, int depth) {
    constexpr int kLevelsPerWriter = 32;
    switch (v.type()) {
        case Json::nullValue:
            w.null();
            return;
        case Json::intValue:
            w.integer(v.asInt64());
            return;
        case Json::uintValue:
            w.uinteger(v.asUInt64());
            return;
        case Json::realValue:
            w.number(v.asDouble());
            return;
        case Json::stringValue:
            w.string(string_bytes(v));
            return;
        case Json::booleanValue:
            w.boolean(v.asBool());
            return;
        case Json::arrayValue:
        case Json::objectValue:
            break;
    }
    if (depth >= kLevelsPerWriter) {
        w.raw(written_apart(v));
        return;
    }
    if (v.isArray()) {
        w.begin_array();
        for (const Json::Value& item : v) {
            write_value(w, item, depth + 1);
        }
        w.end_array();
        return;
    }
    w.begin_object();
    for (auto it = v.begin(); it != v.end(); ++it) {
        const char* end = nullptr;
        const char* name = it.memberName(&end);
        std::string_view n(name, static_cast<std::size_t>(end - name));
        if (!needs_escape(n)) {
            w.key(n);  // key() takes the API's literal names only: nothing to escape
            write_value(w, *it, depth + 1);
        } else {
            std::string member;
            append_json_string(member, n);
            member.push_back(':');
            member += written_apart(*it);
            w.raw(member);
        }
    }
    w.end_object();
}

// P3: write v, read it back strictly, compare. And what the writer wrote is its own canonical
// form: read back and written again it is the same bytes. (Not v's first writing itself: a
// real -0.0 is written "-0", which reads back as the integer 0 and is then written "0".)
void check_round_trip(const Json::Value& v) {
    const std::string out = written_apart(v);
    Json::Value back;
    check(strict_json::parse(out, back), "P3 written value is strict JSON", out);
    check(same_value(v, back), "P3 written value reads back as the same value", out);
    const std::string again = written_apart(back);
    Json::Value back_again;
    check(strict_json::parse(again, back_again) && written_apart(back_again) == again,
          "P3 the writer's output, read back and written again, is the same bytes", again);
}

// ---------------------------------------------------------------------------------------------
// The body as the handlers read it

Checked<Json::Value> read_body(std::string_view data) {
    static Db unconnected{DbSettings{}};  // body parsing never touches the database
    Request r;
    r.method = "POST";
    r.content_type = "application/json";
    StringBody source{std::string(data)};
    r.body_source = &source;
    Caller no_key;
    HandlerContext ctx{r, no_key, unconnected, 0, kMaxBodyBytes};
    return read_json_object(ctx);
}

Json::Value parse_strictly(const std::string& json, const char* property) {
    Json::Value v;
    check(strict_json::parse(json, v), property, json);
    return v;
}

void check_error(const Response& r, const char* code) {
    check(r.status == 400, "P4 body error is a 400", r.body);
    Json::Value v = parse_strictly(r.body, "P4 error body is strict JSON");
    check(v["code"].isString() && v["code"].asString() == code, "P4 error code", r.body);
}

// ---------------------------------------------------------------------------------------------
// Validation and the response-shaped JSON written from what it yields

void check_len(const std::optional<std::string>& s, std::size_t max, const char* property) {
    if (s) {
        check(text::utf8_length(*s) <= max, property, *s);
    }
}

// A datetime the validation accepted formats to text that parses to the same instant, and to
// the DATETIME(3) literal the database gets ("YYYY-MM-DD HH:MM:SS.mmm", UTC).
void check_instant(timeutil::Millis ms) {
    std::string iso = timeutil::format_iso(ms);
    auto back = timeutil::parse_iso8601(iso);
    check(back && back->ms == ms, "P5 formatted datetime parses back to the same instant", iso);
    std::string db = timeutil::format_db(ms);
    check(iso.size() == 24 && db == iso.substr(0, 10) + ' ' + iso.substr(11, 12),
          "P5 a datetime's database literal is its UTC time", db);
}

// A JSON array of strings written by json_string_array: strict, and the body's array (or []).
void check_string_array(const std::string& json, const Json::Value& given, const char* property) {
    Json::Value v = parse_strictly(json, property);
    Json::Value expected = given.isNull() ? Json::Value(Json::arrayValue) : given;
    check(same_value(v, expected), property, json);
}

// A value kept "as given": its text reads back as the body's value (E1).
void check_as_given(const std::string& json, const Json::Value& given, const char* property) {
    Json::Value v = parse_strictly(json, property);
    check(same_value(v, given), property, json);
}

void check_validation_error(const FieldReader& f) {
    check(!f.error().empty(), "P5 a failed validation has a message");
    check_error(errors::validation(f.error()), "validation_failed");
}

PersonRow person(const NewCustomer& c) {
    PersonRow p;
    p.id = 1;
    p.email = c.email;
    p.first_name = c.first_name;
    p.last_name = c.last_name;
    p.full_name = c.full_name;
    p.phone_number = c.phone_number;
    p.storefront_id = c.storefront_id;
    return p;
}

void fuzz_customer(const Json::Value& body) {
    FieldReader f(body);
    NewCustomer c = read_new_customer(f);
    if (!f.ok()) {
        check_validation_error(f);
        return;
    }
    check(c.email || c.phone_number, "P5 customer has an email or a phone number");
    for (const auto* s :
         {&c.email, &c.phone_number, &c.first_name, &c.last_name, &c.storefront_id, &c.site_cms_id,
          &c.social_a_user_id, &c.social_b_user_id, &c.messaging_id}) {
        check_len(*s, kShortText, "P5 customer field within 255 characters");
    }
    check_len(c.full_name, kFullName, "P5 full_name within 511 characters");
    // POST /api/v1/customers's answer, and the customer as tickets show it.
    std::string out;
    JsonWriter w(out);
    w.begin_object().field("success", true).field("existing", false);
    w.key("customer").begin_object();
    w.field("id", std::uint64_t{1})
        .field("email", c.email)
        .field("phone_number", c.phone_number)
        .field("first_name", c.first_name)
        .field("last_name", c.last_name)
        .field("storefront_id", c.storefront_id)
        .field("shopDomain", "shop.example");
    w.end_object().key("asTicketCustomer");
    write_customer(w, person(c), true);
    w.end_object();
    Json::Value v = parse_strictly(out, "P5 customer response is strict JSON");
    check(!c.email || v["customer"]["email"].asString() == *c.email,
          "P5 customer response carries the email", out);
}

void fuzz_ticket(const Json::Value& body) {
    FieldReader f(body);
    NewTicket t = read_new_ticket(f, body, kNow);
    if (!f.ok()) {
        check_validation_error(f);
        return;
    }
    check(!text::is_blank(t.channel), "P5 ticket Channel is not blank", t.channel);
    check_len(t.channel, kShortText, "P5 ticket Channel within 255 characters");
    for (const auto* s :
         {&t.name, &t.thread_id, &t.email_used, &t.contact_reason, &t.language_code, &t.via}) {
        check_len(*s, kShortText, "P5 ticket field within 255 characters");
    }
    check(t.unread_chat_count >= 0 && t.unread_chat_count <= INT32_MAX,
          "P5 unReadChatCount within 0..INT32_MAX");
    check_instant(t.date);
    check_instant(t.last_message_time);
    check_string_array(t.tags_json, body["tags"], "P5 ticket tags read back as given");
    // POST /api/v1/tickets's answer.
    std::string out;
    JsonWriter w(out);
    w.begin_object().field("success", true).key("ticket");
    write_created_ticket(w, 1, t, "shop.example");
    w.end_object();
    parse_strictly(out, "P5 ticket response is strict JSON");
}

void fuzz_comment(const Json::Value& body, std::string_view raw_body) {
    FieldReader f(body);
    NewComment c = read_new_comment(f, body, raw_body, kNow);
    if (!f.ok()) {
        check_validation_error(f);
        return;
    }
    check(!text::is_blank(c.text), "P5 comment text is not blank", c.text);
    check(!c.channel || !text::is_blank(*c.channel), "P5 comment Channel is not blank");
    check_len(c.channel, kShortText, "P5 comment Channel within 255 characters");
    check_len(c.subject, kSubject, "P5 comment subject within 1000 characters");
    check_len(c.from_email, kShortText, "P5 comment fromEmail within 255 characters");
    check_instant(c.time);
    check_string_array(c.tags_json, body["tags"], "P5 comment tags read back as given");
    if (body["toEmails"].isArray()) {
        check_string_array(c.to_emails_json, body["toEmails"],
                           "P5 comment toEmails read back as given");
    } else {
        check(c.to_emails_json == "[]", "P5 comment toEmails other than an array is []",
              c.to_emails_json);
    }
    if (c.attachments_json) {
        check_as_given(*c.attachments_json, body["attachments"],
                       "P5 comment attachments read back as given");
    }
    // A comment as GET /api/v1/tickets/{id}/comments lists it.
    CommentRow row;
    row.id = 1;
    row.text = c.text;
    row.time = timeutil::format_iso(c.time);
    row.channel = c.channel.value_or("Mail");
    row.is_from_shop = c.is_from_shop;
    row.subject = c.subject;
    row.from_email = c.from_email;
    row.to_emails_json = c.to_emails_json;
    row.tags_json = c.tags_json;
    row.attachments_json = c.attachments_json;
    std::string out;
    JsonWriter w(out);
    w.begin_object().field("success", true).key("comments").begin_array();
    write_comment(w, row, PersonRow{});
    w.end_array().field("totalCount", 1).end_object();
    Json::Value v = parse_strictly(out, "P5 comment list is strict JSON");
    if (c.attachments_json) {
        check(same_value(v["comments"][0]["attachments"], body["attachments"]),
              "P5 listed attachments are the body's", out);
    }
}

void fuzz_survey(const Json::Value& body, std::string_view raw_body) {
    FieldReader f(body);
    NewSurvey s = read_new_survey(f, body, raw_body, kNow);
    if (!f.ok()) {
        check_validation_error(f);
        return;
    }
    check(s.mark >= 1 && s.mark <= 5, "P5 mark within 1..5");
    check_instant(s.created_at);
    if (f.present("graphNodes")) {
        check_as_given(s.graph_nodes_json, body["graphNodes"],
                       "P5 survey graphNodes read back as given");
    }
    if (f.present("nodeIds")) {
        check_as_given(s.node_ids_json, body["nodeIds"], "P5 survey nodeIds read back as given");
    }
    // The survey as POST /api/v1/csat answers and GET /api/v1/csat lists it (views.cpp).
    SurveyRow row = row_of_new_survey(RecordedSurvey{1, {}}, s, "shop.example");
    std::string out;
    JsonWriter w(out);
    w.begin_object().field("success", true).key("survey");
    write_survey(w, row);
    w.end_object();
    Json::Value v = parse_strictly(out, "P5 survey response is strict JSON");
    check(same_value(v["survey"]["graphNodes"], parse_strictly(s.graph_nodes_json, "graphNodes")),
          "P5 survey response carries graphNodes", out);
    check(same_value(v["survey"]["nodeIds"], parse_strictly(s.node_ids_json, "nodeIds")),
          "P5 survey response carries nodeIds", out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    // P1
    Json::Value parsed("not touched");
    const bool accepted = strict_json::parse(text, parsed);
    check(accepted == strict_json::valid(text), "P1 parse() and valid() agree");
    if (!accepted) {
        check(parsed.isNull(), "P1 a refused text leaves the output null");
    }
    constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (text.substr(0, kBom.size()) != kBom) {
        const std::string with_bom = std::string(kBom) + std::string(text);
        Json::Value after_bom;
        check(strict_json::parse(with_bom, after_bom) == accepted,
              "P1 a byte-order mark in front changes nothing");
        check(!accepted || same_value(parsed, after_bom),
              "P1 a byte-order mark in front gives the same value");
    }

    if (accepted) {
        check_utf8(parsed);        // P2
        check_round_trip(parsed);  // P3
    }

    // P4
    Checked<Json::Value> body = read_body(text);
    if (text.empty()) {
        check(!body.error && body.value.isObject() && body.value.empty(), "P4 no body reads as {}");
    } else if (!accepted) {
        check(body.error.has_value(), "P4 a refused text is an error");
        check_error(*body.error, "invalid_json");
        return 0;
    } else if (!parsed.isObject()) {
        check(body.error.has_value(), "P4 a non-object is an error");
        check_error(*body.error, "invalid_body");
        return 0;
    } else {
        check(!body.error && same_value(body.value, parsed), "P4 an object reads as parsed");
    }

    // P5
    fuzz_customer(body.value);
    fuzz_ticket(body.value);
    fuzz_comment(body.value, text);
    fuzz_survey(body.value, text);
    return 0;
}
