#include "admin/commands.h"

#include <boost/program_options.hpp>
#include <chrono>
#include <variant>

#include "common/address_policy.h"
#include "common/file_store.h"
#include "common/json_writer.h"
#include "common/key_terms.h"
#include "common/text.h"
#include "common/time_util.h"
#include "common/webhook_signature.h"
#include "db/admin_repo.h"
#include "db/file_repo.h"
#include "db/migrations.h"
#include "db/webhook_repo.h"

namespace supportcrm::admin {
namespace po = boost::program_options;

namespace {

po::variables_map parse_flags(const std::vector<std::string>& flags,
                              const po::options_description& allowed) {
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(flags).options(allowed).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
    return vm;
}

std::optional<std::string> optional_flag(const po::variables_map& vm, const char* name) {
    if (!vm.count(name)) {
        return std::nullopt;
    }
    return vm[name].as<std::string>();
}

std::uint64_t parse_id(const std::string& text, const char* flag) {
    auto id = text::parse_u64(text);
    if (!id) {
        throw UsageError(std::string("--") + flag + " must be a positive integer");
    }
    return *id;
}

std::string one_line(const std::function<void(JsonWriter&)>& fill) {
    std::string out;
    JsonWriter w(out);
    w.begin_object();
    fill(w);
    w.end_object();
    return out;
}

std::string migrate(Db& db, const Config& config) {
    const MigrateResult done = apply_migrations(db, config.migrations_dir);
    return one_line([&](JsonWriter& w) {
        w.key("applied").begin_array();
        for (const std::string& name : done.applied) {
            w.string(name);
        }
        w.end_array();
        w.key("reindexed")
            .begin_object()
            .field("tickets", done.reindexed.tickets)
            .field("customers", done.reindexed.customers)
            .end_object();
    });
}

// migrate --status: applied (with when) and pending migrations; changes nothing. A deploy
// script checks "pending" is empty before it reloads the service.
std::string migrate_status(Db& db, const Config& config) {
    const MigrationStatus status = migration_status(db, config.migrations_dir);
    return one_line([&](JsonWriter& w) {
        w.key("applied").begin_array();
        for (const AppliedMigration& m : status.applied) {
            w.begin_object()
                .field("version", m.version)
                .field("name", m.name)
                .field("appliedAt", m.applied_at)
                .end_object();
        }
        w.end_array();
        w.key("pending").begin_array();
        for (const Migration& m : status.pending) {
            w.string(m.name);
        }
        w.end_array();
    });
}

std::string brand_create(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("name", po::value<std::string>()->required());
    auto vm = parse_flags(flags, d);
    std::string name = vm["name"].as<std::string>();
    std::uint64_t id = create_brand(db, name);
    return one_line([&](JsonWriter& w) { w.field("id", id).field("name", name); });
}

std::string shop_create(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("domain", po::value<std::string>()->required())("brand-id",
                                                                    po::value<std::string>());
    auto vm = parse_flags(flags, d);
    std::string domain = vm["domain"].as<std::string>();
    std::optional<std::uint64_t> brand;
    if (auto b = optional_flag(vm, "brand-id")) {
        brand = parse_id(*b, "brand-id");
    }
    std::uint64_t id = create_shop(db, domain, brand);
    return one_line([&](JsonWriter& w) {
        w.field("id", id).field("domain", domain).key("brandId");
        brand ? w.uinteger(*brand) : w.null();
    });
}

std::string shop_delete(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("domain", po::value<std::string>()->required());
    auto vm = parse_flags(flags, d);
    delete_shop(db, vm["domain"].as<std::string>());
    return R"({"deleted":true})";
}

// Throws UsageError with key_terms' message when the flag's value is refused.
template <typename T>
T accepted(key_terms::Parsed<T> parsed) {
    if (!parsed.value) {
        throw UsageError(parsed.error);
    }
    return *parsed.value;
}

void write_key_terms(JsonWriter& w, const NewKeyTerms& terms) {
    w.key("scopes").begin_array();
    for (const std::string& name : key_terms::scope_names(terms.scopes)) {
        w.string(name);
    }
    w.end_array();
    w.key("expiresAt");
    terms.expires_ms ? w.string(timeutil::format_iso(*terms.expires_ms)) : w.null();
    w.key("rate");
    terms.rate_count > 0 ? w.string(key_terms::rate_text({terms.rate_count, terms.rate_period_s}))
                         : w.null();
}

std::string key_create(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("shop", po::value<std::string>()->required())(
        "label", po::value<std::string>())("scopes", po::value<std::string>())(
        "expires", po::value<std::string>())("rate", po::value<std::string>());
    auto vm = parse_flags(flags, d);
    // Every flag is checked before anything is written (extensions.md §E12).
    NewKeyTerms terms;
    terms.label = optional_flag(vm, "label");
    terms.scopes = key_terms::scope::default_set;
    if (auto scopes = optional_flag(vm, "scopes")) {
        terms.scopes = accepted(key_terms::parse_scopes(*scopes));
    }
    if (auto expires = optional_flag(vm, "expires")) {
        terms.expires_ms = accepted(key_terms::parse_expires(*expires, timeutil::now_ms()));
    }
    if (auto rate = optional_flag(vm, "rate")) {
        const key_terms::Rate r = accepted(key_terms::parse_rate(*rate));
        terms.rate_count = r.count;
        terms.rate_period_s = r.period_s;
    }
    std::string shop = vm["shop"].as<std::string>();
    CreatedKey key = create_key(db, shop, terms);
    return one_line([&](JsonWriter& w) {
        w.field("id", key.id).field("key", key.secret).field("shop", shop);
        write_key_terms(w, terms);
    });
}

std::string key_list(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("shop", po::value<std::string>()->required());
    auto vm = parse_flags(flags, d);
    std::vector<KeyRow> rows = keys_of_shop(db, vm["shop"].as<std::string>());
    return one_line([&](JsonWriter& w) {
        w.key("keys").begin_array();
        for (const KeyRow& row : rows) {
            w.begin_object().field("id", row.id).field("label", row.terms.label);
            w.field("createdAt", timeutil::format_iso(row.created_ms));
            // lastUsedAt is written at most once a minute: it is right to the minute.
            w.key("lastUsedAt");
            row.last_used_ms ? w.string(timeutil::format_iso(*row.last_used_ms)) : w.null();
            w.field("revoked", row.revoked);
            write_key_terms(w, row.terms);
            w.end_object();
        }
        w.end_array();
    });
}

std::string key_rotate(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("id", po::value<std::string>()->required())("overlap-hours",
                                                                po::value<std::string>());
    auto vm = parse_flags(flags, d);
    const std::uint64_t id = parse_id(vm["id"].as<std::string>(), "id");
    std::uint64_t hours = 24;
    if (auto overlap = optional_flag(vm, "overlap-hours")) {
        hours = accepted(key_terms::parse_overlap_hours(*overlap));
    }
    RotatedKey rotated = rotate_key(db, id, static_cast<std::int64_t>(hours) * 3'600'000);
    return one_line([&](JsonWriter& w) {
        w.field("id", rotated.key.id)
            .field("key", rotated.key.secret)
            .field("replaces", id)
            .field("oldExpiresAt", timeutil::format_iso(rotated.old_expires_ms));
    });
}

std::string key_revoke(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("id", po::value<std::string>()->required());
    auto vm = parse_flags(flags, d);
    revoke_key(db, parse_id(vm["id"].as<std::string>(), "id"));
    return R"({"revoked":true})";
}

std::string user_create(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("shop", po::value<std::string>()->required())(
        "email", po::value<std::string>()->required())("first-name", po::value<std::string>())(
        "last-name", po::value<std::string>());
    auto vm = parse_flags(flags, d);
    std::string shop = vm["shop"].as<std::string>();
    NewUser user{vm["email"].as<std::string>(), optional_flag(vm, "first-name"),
                 optional_flag(vm, "last-name")};
    std::uint64_t id = create_user(db, shop, user);
    return one_line([&](JsonWriter& w) {
        w.field("id", id)
            .field("shop", shop)
            .field("email", user.email)
            .field("first_name", user.first_name)
            .field("last_name", user.last_name);
    });
}

// --- webhook (extensions.md §E5) ---------------------------------------------------------

constexpr std::size_t kMaxUrlBytes = 2048;  // webhooks.url
constexpr std::uint64_t kDefaultDeliveries = 20, kMaxDeliveries = 1000;

std::vector<std::string> split_commas(const std::string& list) {
    std::vector<std::string> out;
    std::size_t from = 0;
    while (true) {
        const std::size_t comma = list.find(',', from);
        out.push_back(list.substr(from, comma == std::string::npos ? comma : comma - from));
        if (comma == std::string::npos) {
            return out;
        }
        from = comma + 1;
    }
}

std::string ascii_lower(std::string s) {
    for (char& c : s) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return s;
}

// "all" when absent; else the comma-separated event names, each known.
unsigned parse_events(const std::optional<std::string>& list) {
    if (!list) {
        return webhook_event::all;
    }
    unsigned mask = 0;
    for (const std::string& name : split_commas(*list)) {
        std::optional<unsigned> bit = event_type_bit(text::trim(name));
        if (!bit) {
            throw UsageError("--events: unknown event '" + std::string(text::trim(name)) +
                             "' (customer.created, ticket.created, comment.created, "
                             "survey.created)");
        }
        mask |= *bit;
    }
    return mask;
}

// The host part of an http(s) URL, as a URL spells it ("[::1]" for IPv6); throws UsageError
// for anything else.
std::string url_host(const std::string& url) {
    const std::string lower = ascii_lower(url.substr(0, 8));
    const std::size_t start = lower.rfind("http://", 0) == 0    ? 7
                              : lower.rfind("https://", 0) == 0 ? 8
                                                                : std::string::npos;
    if (start == std::string::npos) {
        throw UsageError("--url must be an http:// or https:// URL");
    }
    if (url.size() > kMaxUrlBytes) {
        throw UsageError("--url is longer than 2048 bytes");
    }
    std::string authority = url.substr(start, url.find_first_of("/?#", start) - start);
    authority =
        authority.substr(authority.rfind('@') == std::string::npos ? 0 : authority.rfind('@') + 1);
    std::string host = authority[0] == '[' ? authority.substr(0, authority.find(']') + 1)
                                           : authority.substr(0, authority.find(':'));
    if (host.empty() || url.find_first_of(" \t\r\n") != std::string::npos) {
        throw UsageError("--url has no host");
    }
    return host;
}

// The SSRF rule, already when the webhook is made: a host that resolves to a refused address
// is refused now (the deliverer checks again at every attempt; a host that does not resolve
// yet is accepted).
void check_destination(const std::string& host, bool allow_private) {
    auto checked = webhooks::resolve_and_check(host, 443, allow_private);
    if (auto* refusal = std::get_if<webhooks::Refusal>(&checked)) {
        if (refusal->reason.rfind("refused", 0) == 0) {
            throw AdminError(refusal->reason);
        }
    }
}

void write_events(JsonWriter& w, unsigned mask) {
    w.key("events").begin_array();
    for (const std::string& name : event_type_names(mask)) {
        w.string(name);
    }
    w.end_array();
}

std::string webhook_create(Db& db, const Config& config, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("shop", po::value<std::string>()->required())(
        "url", po::value<std::string>()->required())("events", po::value<std::string>());
    auto vm = parse_flags(flags, d);
    const std::string url = vm["url"].as<std::string>();
    check_destination(url_host(url), config.webhooks.allow_private);
    const unsigned events = parse_events(optional_flag(vm, "events"));
    Shop shop = live_shop(db, vm["shop"].as<std::string>());
    // Shown once: only its base64 key part is stored (the deliverer signs with it).
    const std::string secret = webhooks::generate_secret();
    const std::string key_base64 = secret.substr(webhooks::kSecretPrefix.size());
    std::uint64_t id = insert_webhook(db, shop.id, url, events, key_base64, timeutil::now_ms());
    return one_line([&](JsonWriter& w) {
        w.field("id", id).field("url", url);
        write_events(w, events);
        w.field("secret", secret);
    });
}

std::string webhook_list(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("shop", po::value<std::string>()->required());
    auto vm = parse_flags(flags, d);
    Shop shop = live_shop(db, vm["shop"].as<std::string>());
    std::vector<WebhookRow> rows = webhooks_of_shop(db, shop.id);
    return one_line([&](JsonWriter& w) {
        w.key("webhooks").begin_array();
        for (const WebhookRow& row : rows) {
            w.begin_object().field("id", row.id).field("url", row.url);
            write_events(w, row.events);
            w.field("createdAt", row.created_at).end_object();
        }
        w.end_array();
    });
}

std::string webhook_delete(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("id", po::value<std::string>()->required());
    auto vm = parse_flags(flags, d);
    if (!delete_webhook(db, parse_id(vm["id"].as<std::string>(), "id"))) {
        throw AdminError("no webhook with id " + vm["id"].as<std::string>());
    }
    return R"({"deleted":true})";
}

std::string webhook_deliveries_list(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("id", po::value<std::string>()->required())("limit", po::value<std::string>());
    auto vm = parse_flags(flags, d);
    const std::uint64_t id = parse_id(vm["id"].as<std::string>(), "id");
    std::uint64_t limit = kDefaultDeliveries;
    if (auto text = optional_flag(vm, "limit")) {
        limit = parse_id(*text, "limit");
        if (limit > kMaxDeliveries) {
            throw UsageError("--limit must be at most 1000");
        }
    }
    std::optional<std::vector<DeliveryRow>> rows = webhook_deliveries(db, id, limit);
    if (!rows) {
        throw AdminError("no webhook with id " + std::to_string(id));
    }
    return one_line([&](JsonWriter& w) {
        w.key("deliveries").begin_array();
        for (const DeliveryRow& row : *rows) {
            w.begin_object()
                .field("eventId", row.event_id)
                .field("type", event_type_name(row.type))
                .field("attempts", row.attempts)
                .field("status", delivery_status_name(row.status))
                .key("lastStatusCode");
            row.last_status_code ? w.uinteger(*row.last_status_code) : w.null();
            w.field("nextAttemptAt", row.next_attempt_at).end_object();
        }
        w.end_array();
    });
}

// Stray bytes under files-dir (extensions.md §E13; common/file_store.h): temporary uploads and
// content no row names, both older than --grace. The content check is file_bytes_named's
// locking read, which waits for an upload's inserted row; the grace keeps an upload's
// temporary file while it is being received.
std::string files_sweep(Db& db, const Config& config, const std::vector<std::string>& flags) {
    po::options_description allowed;
    allowed.add_options()("grace", po::value<unsigned>()->default_value(3600), "")(
        "dry-run", po::bool_switch(), "");
    po::variables_map vm = parse_flags(flags, allowed);
    const bool dry_run = vm["dry-run"].as<bool>();
    const file_store::SweepReport report = file_store::sweep(
        config.files.dir, std::chrono::seconds(vm["grace"].as<unsigned>()),
        [&](const std::string& sha256) { return file_bytes_named(db, sha256); }, dry_run);
    return one_line([&](JsonWriter& w) {
        w.field("dryRun", dry_run)
            .field("temporaryRemoved", report.temporary_removed)
            .field("unnamedRemoved", report.unnamed_removed)
            .field("kept", report.kept);
    });
}

}  // namespace

std::string usage() {
    return "usage: supportcrm-admin [--config FILE] [--key value ...] COMMAND\n"
           "commands:\n"
           "  migrate [--status]\n"
           "  brand create --name N\n"
           "  shop create --domain D [--brand-id B]\n"
           "  shop delete --domain D\n"
           "  key create --shop D [--label L] [--scopes LIST] [--expires DATETIME] "
           "[--rate N/s|N/m]\n"
           "  key list --shop D\n"
           "  key rotate --id K [--overlap-hours H]\n"
           "  key revoke --id K\n"
           "  user create --shop D --email E [--first-name F] [--last-name L]\n"
           "  webhook create --shop D --url URL [--events LIST]\n"
           "  webhook list --shop D\n"
           "  webhook delete --id N\n"
           "  webhook deliveries --id N [--limit K]\n"
           "  files sweep [--grace SECONDS] [--dry-run]\n";
}

std::string run_command(const Config& config, const std::vector<std::string>& args) {
    if (args.empty()) {
        throw UsageError("no command given");
    }
    Db db(config.db);
    db.connect();
    if (args[0] == "migrate" && args.size() == 1) {
        return migrate(db, config);
    }
    if (args[0] == "migrate" && args.size() == 2 && args[1] == "--status") {
        return migrate_status(db, config);
    }
    if (args.size() < 2) {
        throw UsageError("unknown command: " + args[0]);
    }
    std::string command = args[0] + " " + args[1];
    std::vector<std::string> flags(args.begin() + 2, args.end());
    if (command == "brand create") {
        return brand_create(db, flags);
    }
    if (command == "shop create") {
        return shop_create(db, flags);
    }
    if (command == "shop delete") {
        return shop_delete(db, flags);
    }
    if (command == "key create") {
        return key_create(db, flags);
    }
    if (command == "key list") {
        return key_list(db, flags);
    }
    if (command == "key rotate") {
        return key_rotate(db, flags);
    }
    if (command == "key revoke") {
        return key_revoke(db, flags);
    }
    if (command == "user create") {
        return user_create(db, flags);
    }
    if (command == "webhook create") {
        return webhook_create(db, config, flags);
    }
    if (command == "webhook list") {
        return webhook_list(db, flags);
    }
    if (command == "webhook delete") {
        return webhook_delete(db, flags);
    }
    if (command == "webhook deliveries") {
        return webhook_deliveries_list(db, flags);
    }
    if (command == "files sweep") {
        return files_sweep(db, config, flags);
    }
    throw UsageError("unknown command: " + command);
}

}  // namespace supportcrm::admin
