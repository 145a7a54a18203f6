#include "admin/commands.h"

#include "common/json_writer.h"
#include "common/text.h"
#include "db/admin_repo.h"
#include "db/migrations.h"

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
    std::vector<std::string> applied = apply_migrations(db, config.migrations_dir);
    return one_line([&](JsonWriter& w) {
        w.key("applied").begin_array();
        for (const std::string& name : applied) {
            w.string(name);
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

std::string key_create(Db& db, const std::vector<std::string>& flags) {
    po::options_description d;
    d.add_options()("shop", po::value<std::string>()->required())("label",
                                                                  po::value<std::string>());
    auto vm = parse_flags(flags, d);
    std::string shop = vm["shop"].as<std::string>();
    CreatedKey key = create_key(db, shop, optional_flag(vm, "label"));
    return one_line(
        [&](JsonWriter& w) { w.field("id", key.id).field("key", key.secret).field("shop", shop); });
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

}  // namespace

std::string usage() {
    return "usage: supportcrm-admin [--config FILE] [--key value ...] COMMAND\n"
           "commands:\n"
           "  migrate\n"
           "  brand create --name N\n"
           "  shop create --domain D [--brand-id B]\n"
           "  shop delete --domain D\n"
           "  key create --shop D [--label L]\n"
           "  key revoke --id K\n"
           "  user create --shop D --email E [--first-name F] [--last-name L]\n";
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
    if (command == "key revoke") {
        return key_revoke(db, flags);
    }
    if (command == "user create") {
        return user_create(db, flags);
    }
    throw UsageError("unknown command: " + command);
}

}  // namespace supportcrm::admin
