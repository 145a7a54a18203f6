// Signed webhooks (extensions.md §E5), end to end: the API writes events, the stack's
// supportcrm-webhooks delivers them to a real HTTP receiver in this process, and every
// signature is checked with an independent implementation (Python's hmac, in a child process).
//
// The stack's deliverer runs with webhook-allow-private = true and retries within a second,
// giving up after webhook-retry-for (8 s) (scripts/lib/stack.sh). Tests that stop or kill it
// find it through SUPPORTCRM_WEBHOOKS_PIDFILE and start it again as the stack does.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#include "csat_fixtures.h"
#include "harness.h"
#include "row_lock.h"
#include "tickets_fixtures.h"

namespace it {
namespace {

using namespace std::chrono_literals;

std::string upper_ascii(std::string s) {
    for (char& c : s) {
        if (c >= 'a' && c <= 'z') {
            c = static_cast<char>(c - 'a' + 'A');
        }
    }
    return s;
}

std::string required_env(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') {
        throw std::runtime_error(std::string(name) + " is not set (scripts/test sets it)");
    }
    return v;
}

// ---------------------------------------------------------------------------------------------
// A receiver: HTTP/1.1 on 127.0.0.1, one connection at a time, every request recorded.

struct Received {
    std::map<std::string, std::string> headers;  // names lowercased
    std::string body;
};

// A port for a receiver: the next of SUPPORTCRM_WEBHOOK_RECEIVER_PORTS ("18490-18499") that
// is free, else 0 (the kernel picks one).
uint16_t receiver_port() {
    const char* range = std::getenv("SUPPORTCRM_WEBHOOK_RECEIVER_PORTS");
    if (range == nullptr || *range == '\0') {
        return 0;
    }
    static std::atomic<unsigned> next{0};
    unsigned first = 0, last = 0;
    if (std::sscanf(range, "%u-%u", &first, &last) != 2 || last < first) {
        throw std::runtime_error("SUPPORTCRM_WEBHOOK_RECEIVER_PORTS: expected FIRST-LAST");
    }
    for (unsigned i = 0; i <= last - first; ++i) {
        const unsigned port = first + (next++ % (last - first + 1));
        int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(fd);
        if (free) {
            return static_cast<uint16_t>(port);
        }
    }
    throw std::runtime_error("no free port in SUPPORTCRM_WEBHOOK_RECEIVER_PORTS");
}

class Receiver {
  public:
    // Listens on `port` (0: any free one).
    explicit Receiver(uint16_t port = receiver_port()) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0) {
            ::close(fd_);
            throw std::runtime_error("receiver: cannot listen on 127.0.0.1:" +
                                     std::to_string(port));
        }
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~Receiver() {
        stop_ = true;
        thread_.join();
        ::close(fd_);
    }
    Receiver(const Receiver&) = delete;
    Receiver& operator=(const Receiver&) = delete;

    uint16_t port() const { return port_; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }

    // The statuses of the next answers, in order; 200 once they are used up.
    void answer_with(std::vector<int> statuses) {
        std::lock_guard<std::mutex> lock(mutex_);
        statuses_ = std::move(statuses);
    }
    // The first request is answered only after this long (or never, if the test ends first).
    void hold_first_request(std::chrono::milliseconds how_long) { hold_ = how_long; }
    // Answers without "Connection: close" and reads the next request on the same connection.
    // Call before the first request.
    void keep_connections_open() { keep_alive_ = true; }
    // Connections accepted so far.
    std::size_t connections() const { return connections_.load(); }
    // Requests answered so far (a held one counts once its answer is sent).
    std::size_t answered() const { return answered_.load(); }

    std::vector<Received> received() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return received_;
    }
    // Waits until at least n requests came in.
    bool wait_for(size_t n, std::chrono::milliseconds timeout = 15s) const {
        const auto until = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < until) {
            if (received().size() >= n) {
                return true;
            }
            std::this_thread::sleep_for(20ms);
        }
        return received().size() >= n;
    }

  private:
    void serve() {
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) {
                continue;
            }
            int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (c >= 0) {
                ++connections_;
                while (handle(c) && keep_alive_ && !stop_) {
                }
                ::close(c);
            }
        }
    }

    // Reads one request (headers, then Content-Length bytes); false if the peer went away, sent
    // nothing for 5 s or the receiver is being destroyed.
    bool read_request(int c, Received& out) {
        std::string data;
        char buf[8192];
        std::size_t header_end = std::string::npos;
        std::size_t length = 0;
        while (true) {
            pollfd p{c, POLLIN, 0};
            int ready = 0;
            for (int waited = 0; ready == 0 && waited < 5000 && !stop_; waited += 50) {
                ready = ::poll(&p, 1, 50);
            }
            if (ready <= 0) {
                return false;
            }
            ssize_t n = ::recv(c, buf, sizeof buf, 0);
            if (n <= 0) {
                return false;
            }
            data.append(buf, static_cast<std::size_t>(n));
            if (header_end == std::string::npos) {
                header_end = data.find("\r\n\r\n");
                if (header_end == std::string::npos) {
                    continue;
                }
                std::size_t line_start = data.find("\r\n") + 2;
                while (line_start < header_end) {
                    std::size_t line_end = data.find("\r\n", line_start);
                    std::string line = data.substr(line_start, line_end - line_start);
                    std::size_t colon = line.find(':');
                    std::string name = to_lower(line.substr(0, colon));
                    std::string value = line.substr(colon + 1);
                    value.erase(0, value.find_first_not_of(' '));
                    out.headers[name] = value;
                    line_start = line_end + 2;
                }
                length = out.headers.count("content-length")
                             ? std::stoul(out.headers["content-length"])
                             : 0;
            }
            if (data.size() >= header_end + 4 + length) {
                out.body = data.substr(header_end + 4, length);
                return true;
            }
        }
    }

    // Answers one request; false when none came.
    bool handle(int c) {
        Received r;
        if (!read_request(c, r)) {
            return false;
        }
        int status = 200;
        bool hold = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            received_.push_back(r);
            if (!statuses_.empty()) {
                status = statuses_.front();
                statuses_.erase(statuses_.begin());
            }
            hold = received_.size() == 1 && hold_.count() > 0;
        }
        if (hold) {
            const auto until = std::chrono::steady_clock::now() + hold_;
            while (!stop_ && std::chrono::steady_clock::now() < until) {
                std::this_thread::sleep_for(10ms);
            }
        }
        std::string answer = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 2\r\n" +
                             (keep_alive_ ? "" : "Connection: close\r\n") + "\r\nok";
        (void)::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
        ++answered_;
        return true;
    }

    int fd_ = -1;
    uint16_t port_ = 0;
    std::atomic<bool> stop_{false};
    std::chrono::milliseconds hold_{0};
    std::atomic<bool> keep_alive_{false};
    std::atomic<std::size_t> connections_{0};
    std::atomic<std::size_t> answered_{0};
    mutable std::mutex mutex_;
    std::vector<int> statuses_;
    std::vector<Received> received_;
    std::thread thread_;
};

// ---------------------------------------------------------------------------------------------
// The independent check of a signature: Python's hmac and base64, not this code base's.

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

bool signature_valid(const std::string& secret, const Received& r) {
    char path[] = "/tmp/supportcrm-webhook-body-XXXXXX";
    int fd = ::mkstemp(path);
    if (fd < 0) {
        throw std::runtime_error("mkstemp failed");
    }
    (void)!::write(fd, r.body.data(), r.body.size());
    ::close(fd);
    const std::string script =
        "import sys, hmac, hashlib, base64\n"
        "secret, msg_id, ts, sigs, path = sys.argv[1:6]\n"
        "assert secret.startswith('whsec_')\n"
        "key = base64.b64decode(secret[len('whsec_'):])\n"
        "body = open(path, 'rb').read()\n"
        "mac = hmac.new(key, msg_id.encode() + b'.' + ts.encode() + b'.' + body, hashlib.sha256)\n"
        "want = 'v1,' + base64.b64encode(mac.digest()).decode()\n"
        "print('valid' if any(hmac.compare_digest(want, s) for s in sigs.split(' ')) else 'bad')\n";
    auto header = [&](const char* name) {
        auto it = r.headers.find(name);
        return it == r.headers.end() ? std::string() : it->second;
    };
    const std::string command = "python3 -c " + shell_quote(script) + " " + shell_quote(secret) +
                                " " + shell_quote(header("webhook-id")) + " " +
                                shell_quote(header("webhook-timestamp")) + " " +
                                shell_quote(header("webhook-signature")) + " " + path;
    FILE* p = ::popen(command.c_str(), "r");
    std::string out;
    char buf[64];
    while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) {
        out += buf;
    }
    if (p != nullptr) {
        ::pclose(p);
    }
    ::unlink(path);
    return out == "valid\n";
}

// ---------------------------------------------------------------------------------------------
// The stack's deliverer.

int deliverer_pid() {
    std::ifstream in(required_env("SUPPORTCRM_WEBHOOKS_PIDFILE"));
    int pid = 0;
    in >> pid;
    return pid;
}

bool process_alive(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(") ");
    return close != std::string::npos && text[close + 2] != 'Z';
}

// Signals the stack's deliverer and waits until it is gone.
void stop_deliverer(int signal) {
    const int pid = deliverer_pid();
    ASSERT_GT(pid, 0);
    ASSERT_EQ(::kill(pid, signal), 0);
    for (int i = 0; i < 300 && process_alive(pid); ++i) {
        std::this_thread::sleep_for(50ms);
    }
    ASSERT_FALSE(process_alive(pid)) << "supportcrm-webhooks did not exit";
}

size_t count_in_log(const std::string& needle) {
    const std::string log = read_file(required_env("SUPPORTCRM_WEBHOOKS_LOG"));
    size_t n = 0;
    for (auto at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) {
        ++n;
    }
    return n;
}

// Starts the stack's deliverer as scripts/lib/stack.sh does (its pid file, its log), with
// extra config flags; waits for its "delivering" line.
void start_deliverer(const std::string& extra_flags = "") {
    const size_t before = count_in_log(" delivering: ");
    const std::string command =
        "setsid " + shell_quote(required_env("SUPPORTCRM_WEBHOOKS")) + " --config " +
        shell_quote(env().config) + " " + extra_flags + " </dev/null >>" +
        shell_quote(required_env("SUPPORTCRM_WEBHOOKS_LOG")) + " 2>&1 & echo $! >" +
        shell_quote(required_env("SUPPORTCRM_WEBHOOKS_PIDFILE"));
    ASSERT_EQ(std::system(command.c_str()), 0);
    for (int i = 0; i < 600 && count_in_log(" delivering: ") <= before; ++i) {
        std::this_thread::sleep_for(50ms);
    }
    ASSERT_GT(count_in_log(" delivering: "), before) << "supportcrm-webhooks did not start";
}

// Puts the stack's own deliverer back however the test ends.
struct RestartDelivererAtEnd {
    ~RestartDelivererAtEnd() {
        if (!process_alive(deliverer_pid())) {
            start_deliverer();
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Webhooks and events.

struct Webhook {
    int64_t id = 0;
    std::string secret;
};

Webhook make_webhook(const Shop& shop, const std::string& url, const std::string& events = "") {
    std::vector<std::string> args{"webhook", "create", "--shop", shop.domain, "--url", url};
    if (!events.empty()) {
        args.insert(args.end(), {"--events", events});
    }
    Json::Value out = admin(args);
    return {out["id"].asInt64(), out["secret"].asString()};
}

Json::Value deliveries(const Webhook& w) {
    return admin({"webhook", "deliveries", "--id", std::to_string(w.id)})["deliveries"];
}

// Waits until every delivery of the webhook is `status` (and there are `n`).
bool wait_for_deliveries(const Webhook& w, size_t n, const std::string& status,
                         std::chrono::milliseconds timeout = 20s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    do {
        Json::Value d = deliveries(w);
        bool all = d.size() == n;
        for (const Json::Value& row : d) {
            all = all && row["status"].asString() == status;
        }
        if (all) {
            return true;
        }
        std::this_thread::sleep_for(100ms);
    } while (std::chrono::steady_clock::now() < until);
    return false;
}

Json::Value body_of(const Received& r) {
    return parse_json(r.body);
}

std::string header(const Received& r, const std::string& name) {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? "" : it->second;
}

// Every request is a valid Standard Webhooks delivery of `shop`.
void expect_valid_delivery(const Received& r, const Webhook& w, const Shop& shop) {
    EXPECT_EQ(header(r, "content-type"), "application/json");
    EXPECT_FALSE(header(r, "webhook-id").empty());
    const std::string ts = header(r, "webhook-timestamp");
    ASSERT_FALSE(ts.empty());
    const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    EXPECT_LE(std::llabs(std::stoll(ts) - now), 60);
    EXPECT_TRUE(starts_with(header(r, "webhook-signature"), "v1,"));
    EXPECT_TRUE(signature_valid(w.secret, r)) << printable(r.body);
    EXPECT_TRUE(is_strict_json(r.body));
    Json::Value b = body_of(r);
    EXPECT_EQ(member_names(b),
              (std::vector<std::string>{"data", "shopDomain", "timestamp", "type"}));
    EXPECT_EQ(b["shopDomain"].asString(), shop.domain);
    EXPECT_TRUE(parse_utc_millis(b["timestamp"].asString())) << b["timestamp"];
}

// The requests by event type.
std::map<std::string, std::vector<Received>> by_type(const std::vector<Received>& all) {
    std::map<std::string, std::vector<Received>> out;
    for (const Received& r : all) {
        out[body_of(r)["type"].asString()].push_back(r);
    }
    return out;
}

// One of each event: returns the create responses' objects by type.
std::map<std::string, Json::Value> create_one_of_each(const tickets::World& w) {
    std::map<std::string, Json::Value> out;
    HttpResponse c = post_json(
        "/api/v1/customers", w.shop,
        object({{"email", unique_email("hook")}, {"first_name", "Ann"}, {"storefront_id", 42}}));
    EXPECT_TRUE(is_success(c, 201));
    out["customer.created"] = c.json()["customer"];
    HttpResponse t = post_json("/api/v1/tickets", w.shop,
                               object({{"customerId", w.customer_id},
                                       {"Channel", "email"},
                                       {"name", "Ticket \"quoted\" ü"},
                                       {"tags", tickets::array({"a", "b"})}}));
    EXPECT_TRUE(is_success(t, 201));
    out["ticket.created"] = t.json()["ticket"];
    const std::string ticket_id = t.json()["ticket"]["id"].asString();
    HttpResponse m = post_json(tickets::comments_path(ticket_id), w.shop,
                               object({{"text", "hello\nworld"}, {"isFromShop", false}}));
    EXPECT_TRUE(is_success(m, 201));
    out["comment.created"] = m.json()["comment"];
    out["comment.created"]["ticketId"] = ticket_id;
    HttpResponse s = post_json("/api/v1/csat", w.shop,
                               object({{"conversationId", ticket_id},
                                       {"mark", 2},
                                       {"comment", "slow"},
                                       {"graphNodes", object({{"n", 1}})}}));
    EXPECT_TRUE(is_success(s, 201));
    out["survey.created"] = s.json()["survey"];
    return out;
}

// supportcrm_webhook_deliveries_total{result="..."} of GET /metrics.
double delivery_total(const std::string& result) {
    return metric_sample(metrics(),
                         "supportcrm_webhook_deliveries_total{result=\"" + result + "\"}");
}

double queue_depth() {
    return metric_sample(metrics(), "supportcrm_webhook_queue_depth");
}

// ---------------------------------------------------------------------------------------------

TEST(Webhooks, EveryEventTypeIsDeliveredOnceSignedWithTheResourceOfItsCreateResponse) {
    Receiver receiver;
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url());
    std::map<std::string, Json::Value> created = create_one_of_each(w);
    ASSERT_TRUE(receiver.wait_for(4));
    ASSERT_TRUE(wait_for_deliveries(hook, 4, "delivered"));
    std::this_thread::sleep_for(1s);  // nothing more comes: each event once
    std::vector<Received> all = receiver.received();
    ASSERT_EQ(all.size(), 4u);
    std::set<std::string> ids;
    for (const Received& r : all) {
        expect_valid_delivery(r, hook, w.shop);
        ids.insert(header(r, "webhook-id"));
    }
    EXPECT_EQ(ids.size(), 4u);
    auto typed = by_type(all);
    for (const auto& [type, resource] : created) {
        ASSERT_EQ(typed[type].size(), 1u) << type;
        EXPECT_EQ(body_of(typed[type][0])["data"], resource) << type;
    }
    for (const Json::Value& row : deliveries(hook)) {
        EXPECT_EQ(row["attempts"].asInt(), 1);
        EXPECT_EQ(row["lastStatusCode"].asInt(), 200);
        EXPECT_TRUE(parse_utc_millis(row["nextAttemptAt"].asString()));
    }
}

TEST(Webhooks, FiltersByEventAndSendsEachWebhookItsOwnCopyUnderOneId) {
    Receiver some, every;
    tickets::World w = tickets::make_world();
    Webhook filtered = make_webhook(w.shop, some.url(), "survey.created,ticket.created");
    Webhook all = make_webhook(w.shop, every.url());
    create_one_of_each(w);
    ASSERT_TRUE(every.wait_for(4));
    ASSERT_TRUE(some.wait_for(2));
    ASSERT_TRUE(wait_for_deliveries(filtered, 2, "delivered"));
    ASSERT_TRUE(wait_for_deliveries(all, 4, "delivered"));
    std::this_thread::sleep_for(500ms);
    auto typed = by_type(some.received());
    EXPECT_EQ(some.received().size(), 2u);
    ASSERT_EQ(typed["ticket.created"].size(), 1u);
    ASSERT_EQ(typed["survey.created"].size(), 1u);
    for (const Received& r : some.received()) {
        expect_valid_delivery(r, filtered, w.shop);
    }
    // The same event has the same webhook-id at both receivers.
    auto all_typed = by_type(every.received());
    EXPECT_EQ(header(typed["ticket.created"][0], "webhook-id"),
              header(all_typed["ticket.created"][0], "webhook-id"));
    // list shows both, with their filters and no secret.
    Json::Value list = admin({"webhook", "list", "--shop", w.shop.domain})["webhooks"];
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0]["events"], tickets::array({"ticket.created", "survey.created"}));
    EXPECT_EQ(member_names(list[0]),
              (std::vector<std::string>{"createdAt", "events", "id", "url"}));
    EXPECT_EQ(list[1]["events"].size(), 8u);  // every type, E8 updates and E9 merged/erased
}

// An event no webhook of its shop wants is written already fanned out (sql/022,
// db/webhook_repo.h shop_events): the deliverer never reads it, so a shop without webhooks costs
// the database nothing after its write. Checked with the deliverer stopped, so that only the
// write can have set fanned_out; every path that writes an event is taken: the customers trigger,
// created(), a PATCH's update and the two events of a customer's comment that reopens its ticket.
TEST(Webhooks, AnEventNoWebhookWantsIsWrittenFannedOut) {
    RestartDelivererAtEnd restart;
    Receiver receiver;
    tickets::World w = tickets::make_world();
    Db db;
    const std::string shop = std::to_string(w.shop.id);
    const auto waiting_types = [&] {
        return db.scalar(
            "SELECT COALESCE(GROUP_CONCAT(type ORDER BY id), '') FROM webhook_events "
            "WHERE shop_id = ? AND fanned_out = 0",
            {shop});
    };
    const auto reopening_comment = [&](const std::string& ticket) {
        for (const char* status : {"OPEN", "PENDING"}) {
            ASSERT_TRUE(is_success(http("PATCH", tickets::ticket_path(ticket), json_headers(w.shop),
                                        std::string(R"({"HumanTicketStatus":")") + status + "\"}"),
                                   200));
        }
        tickets::add_comment(w.shop, ticket,
                             object({{"text", "still waiting"}, {"isFromShop", false}}));
    };
    stop_deliverer(SIGTERM);

    const std::string before = tickets::create_ticket_id(w);
    create_one_of_each(w);
    reopening_comment(before);
    EXPECT_EQ(waiting_types(), "");  // no webhook: every event written fanned out
    // The world's customer, a ticket, one of each (4), two PATCHes, the reopening comment's two.
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_events WHERE shop_id = ?", {shop}), 10);

    Webhook hook = make_webhook(w.shop, receiver.url(), "comment.created,customer.created");
    EXPECT_EQ(db.scalar("SELECT webhook_events FROM shops WHERE id = ?", {shop}),
              std::to_string(65536 | (4 | 1) << 8 | 255));
    const std::string after = tickets::create_ticket_id(w);
    create_one_of_each(w);     // customer.created 1, ticket.created 2, comment.created 4, survey 8
    reopening_comment(after);  // ticket.updated 32 (two PATCHes), then ticket.updated 32, comment 4
    EXPECT_EQ(waiting_types(), "1,4,4");

    start_deliverer();
    ASSERT_TRUE(receiver.wait_for(3));
    ASSERT_TRUE(wait_for_deliveries(hook, 3, "delivered"));
    EXPECT_EQ(waiting_types(), "");
    EXPECT_EQ(by_type(receiver.received())["comment.created"].size(), 2u);

    admin({"webhook", "delete", "--id", std::to_string(hook.id)});
    EXPECT_EQ(db.scalar("SELECT webhook_events FROM shops WHERE id = ?", {shop}), "65791");
}

TEST(Webhooks, AnsweredFiveHundredIsRetriedUnderTheSameIdUntilDelivered) {
    Receiver receiver;
    receiver.answer_with({500, 503});
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");
    tickets::create_ticket_id(w);
    ASSERT_TRUE(receiver.wait_for(3));
    ASSERT_TRUE(wait_for_deliveries(hook, 1, "delivered"));
    std::vector<Received> all = receiver.received();
    ASSERT_EQ(all.size(), 3u);
    for (const Received& r : all) {
        expect_valid_delivery(r, hook, w.shop);
        EXPECT_EQ(header(r, "webhook-id"), header(all[0], "webhook-id"));
        EXPECT_EQ(r.body, all[0].body);  // the body is the event's: the same on every retry
    }
    Json::Value d = deliveries(hook)[0];
    EXPECT_EQ(d["attempts"].asInt(), 3);
    EXPECT_EQ(d["lastStatusCode"].asInt(), 200);
    Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_attempts WHERE webhook_id = ?",
                       {std::to_string(hook.id)}),
              3);
    EXPECT_EQ(db.scalar("SELECT GROUP_CONCAT(status_code ORDER BY id) FROM webhook_attempts "
                        "WHERE webhook_id = ?",
                        {std::to_string(hook.id)}),
              "500,503,200");
}

TEST(Webhooks, AReceiverThatWasDownGetsTheEventWhenItComesBack) {
    uint16_t port = 0;
    {
        Receiver probe;  // a port nobody listens on once it is gone
        port = probe.port();
    }
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, "http://127.0.0.1:" + std::to_string(port) + "/hook",
                                "customer.created");
    create_customer(w.shop, object({{"email", unique_email("down")}}));
    // Two refused connections recorded, still pending.
    const auto until = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < until &&
           (deliveries(hook).empty() || deliveries(hook)[0]["attempts"].asInt() < 2)) {
        std::this_thread::sleep_for(100ms);
    }
    Json::Value d = deliveries(hook)[0];
    ASSERT_GE(d["attempts"].asInt(), 2);
    EXPECT_EQ(d["status"], "pending");
    EXPECT_TRUE(d["lastStatusCode"].isNull());
    Receiver receiver(port);
    ASSERT_TRUE(receiver.wait_for(1));
    ASSERT_TRUE(wait_for_deliveries(hook, 1, "delivered"));
    ASSERT_EQ(receiver.received().size(), 1u);
    expect_valid_delivery(receiver.received()[0], hook, w.shop);
    EXPECT_EQ(header(receiver.received()[0], "webhook-id"), d["eventId"].asString());
}

TEST(Webhooks, ADeliveryThatKeepsFailingIsFailedAfterTheRetryWindow) {
    const double failed_before = delivery_total("failed");
    Receiver receiver;
    receiver.answer_with(std::vector<int>(1000, 500));
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");
    tickets::create_ticket_id(w);
    // webhook-retry-for is 8 s on the test stack.
    ASSERT_TRUE(wait_for_deliveries(hook, 1, "failed", 20s));
    EXPECT_GE(delivery_total("failed"), failed_before + 1);
    Json::Value d = deliveries(hook)[0];
    EXPECT_GE(d["attempts"].asInt(), 4);  // 0.3 s, doubling to 1 s, over 8 s
    EXPECT_EQ(d["lastStatusCode"].asInt(), 500);
    const size_t seen = receiver.received().size();
    EXPECT_EQ(seen, d["attempts"].asUInt());
    std::this_thread::sleep_for(1500ms);
    EXPECT_EQ(receiver.received().size(), seen);  // failed is final
}

TEST(Webhooks, NoEventForADuplicateCustomer) {
    Receiver receiver;
    Shop shop = make_shop();
    Webhook hook = make_webhook(shop, receiver.url());
    const std::string email = unique_email("dup");
    EXPECT_TRUE(is_success(post_json("/api/v1/customers", shop, object({{"email", email}})), 201));
    HttpResponse again =
        post_json("/api/v1/customers", shop, object({{"email", upper_ascii(email)}}));
    EXPECT_TRUE(is_success(again, 200));
    EXPECT_TRUE(again.json()["existing"].asBool());
    ASSERT_TRUE(receiver.wait_for(1));
    ASSERT_TRUE(wait_for_deliveries(hook, 1, "delivered"));
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(receiver.received().size(), 1u);
    Db db;
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_events WHERE shop_id = ?",
                       {std::to_string(shop.id)}),
              1);
}

// A BEFORE trigger that fails the statement for rows matching `condition`; dropped on scope
// exit (as in atomicity_test.cpp).
class InjectedFailure {
  public:
    InjectedFailure(Db& db, const std::string& table, const std::string& condition)
        : db_(db),
          name_("it_hook_fail_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++)) {
        db_.execute("CREATE TRIGGER " + name_ + " BEFORE INSERT ON " + table +
                        " FOR EACH ROW BEGIN IF " + condition +
                        " THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; "
                        "END IF; END",
                    {});
    }
    ~InjectedFailure() { db_.execute("DROP TRIGGER IF EXISTS " + name_, {}); }

  private:
    static inline int counter_ = 0;
    Db& db_;
    std::string name_;
};

TEST(Webhooks, NoEventForARolledBackWriteAndNoWriteWithoutItsEvent) {
    Receiver receiver;
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url());
    const std::string ticket = tickets::create_ticket_id(w);
    ASSERT_TRUE(receiver.wait_for(1));
    Db db;
    const std::string shop_id = std::to_string(w.shop.id);
    const int64_t events_before =
        db.count("SELECT COUNT(*) FROM webhook_events WHERE shop_id = ?", {shop_id});
    {
        // The survey's second write (the daily count) fails after the survey row was written:
        // the transaction, and with it any event, is rolled back.
        InjectedFailure failure(db, "survey_daily_counts", "NEW.shop_id = " + shop_id);
        HttpResponse r = http_unchecked("POST", "/api/v1/csat", json_headers(w.shop),
                                        to_json(object({{"conversationId", ticket}, {"mark", 5}})));
        EXPECT_TRUE(is_error(r, 500, "internal_error"));
    }
    {
        // The event itself fails: the customer (one statement with its trigger) is not kept.
        InjectedFailure failure(db, "webhook_events", "NEW.shop_id = " + shop_id);
        const std::string email = unique_email("rollback");
        HttpResponse r = http_unchecked("POST", "/api/v1/customers", json_headers(w.shop),
                                        to_json(object({{"email", email}})));
        EXPECT_TRUE(is_error(r, 500, "internal_error"));
        EXPECT_EQ(db.count("SELECT COUNT(*) FROM customers WHERE shop_id = ? AND email = ?",
                           {shop_id, email}),
                  0);
    }
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM surveys WHERE shop_id = ?", {shop_id}), 0);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_events WHERE shop_id = ?", {shop_id}),
              events_before);
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(receiver.received().size(), 1u);  // the ticket only
}

TEST(Webhooks, NoEventForAnIdempotentReplay) {
    Receiver receiver;
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");
    Headers h = json_headers(w.shop);
    h.emplace_back("Idempotency-Key", "hook-" + unique_suffix());
    const std::string body = to_json(object({{"customerId", w.customer_id}, {"Channel", "chat"}}));
    HttpResponse first = http("POST", "/api/v1/tickets", h, body);
    HttpResponse replay = http("POST", "/api/v1/tickets", h, body);
    EXPECT_TRUE(is_success(first, 201));
    EXPECT_EQ(replay.body, first.body);
    ASSERT_TRUE(receiver.wait_for(1));
    ASSERT_TRUE(wait_for_deliveries(hook, 1, "delivered"));
    std::this_thread::sleep_for(1s);
    ASSERT_EQ(receiver.received().size(), 1u);
    EXPECT_EQ(body_of(receiver.received()[0])["data"], first.json()["ticket"]);
}

TEST(Webhooks, ADelivererKilledMidDeliveryLosesNothing) {
    RestartDelivererAtEnd restart;
    Receiver receiver;
    receiver.hold_first_request(3s);
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");
    tickets::create_ticket_id(w);
    ASSERT_TRUE(receiver.wait_for(1));  // the deliverer is waiting for the answer now
    stop_deliverer(SIGKILL);
    EXPECT_EQ(deliveries(hook)[0]["status"], "pending");
    start_deliverer();
    // Claimed, the delivery is due again once the dead deliverer's lease ends (15 s).
    ASSERT_TRUE(receiver.wait_for(2, 45s));
    ASSERT_TRUE(wait_for_deliveries(hook, 1, "delivered"));
    std::vector<Received> all = receiver.received();
    ASSERT_EQ(all.size(), 2u);  // at least once: the attempt cut short is made again
    EXPECT_EQ(header(all[1], "webhook-id"), header(all[0], "webhook-id"));
    expect_valid_delivery(all[1], hook, w.shop);
    // The killed attempt left no trace but the request the receiver saw.
    EXPECT_EQ(deliveries(hook)[0]["attempts"].asInt(), 1);
}

TEST(Webhooks, SigtermFinishesTheAttemptInHand) {
    RestartDelivererAtEnd restart;
    Receiver receiver;
    receiver.hold_first_request(1500ms);
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");
    tickets::create_ticket_id(w);
    ASSERT_TRUE(receiver.wait_for(1));
    stop_deliverer(SIGTERM);  // returns once it exited: after the held answer came
    Json::Value d = deliveries(hook)[0];
    EXPECT_EQ(d["status"], "delivered");
    EXPECT_EQ(d["attempts"].asInt(), 1);
    start_deliverer();
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(receiver.received().size(), 1u);
}

TEST(Webhooks, LoopbackAndPrivateAddressesAreRefusedUnlessAllowed) {
    // The operator CLI refuses them when the config does not allow them ...
    Shop shop = make_shop();
    for (const std::string url :
         {"http://127.0.0.1:9/hook", "http://localhost/hook", "https://10.0.0.1/",
          "http://169.254.169.254/latest/meta-data", "http://[::1]:8080/", "http://192.168.1.1/"}) {
        AdminResult r = admin_raw({"--webhook-allow-private", "false", "webhook", "create",
                                   "--shop", shop.domain, "--url", url});
        EXPECT_NE(r.exit_code, 0) << url;
        EXPECT_NE(r.err.find("refused"), std::string::npos) << url << ": " << r.err;
    }
    for (const std::string url : {"ftp://example.com/", "example.com/hook", "http:///x"}) {
        AdminResult r = admin_raw({"webhook", "create", "--shop", shop.domain, "--url", url});
        EXPECT_EQ(r.exit_code, 2) << url << ": " << r.err;
    }
    AdminResult unknown = admin_raw({"webhook", "create", "--shop", shop.domain, "--url",
                                     "http://127.0.0.1/", "--events", "ticket.deleted"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_TRUE(admin({"webhook", "list", "--shop", shop.domain})["webhooks"].empty());

    // ... and the deliverer refuses them at every attempt (a webhook made while they were
    // allowed, or a name that resolves to one later): nothing reaches the receiver.
    RestartDelivererAtEnd restart;
    Receiver receiver;
    tickets::World w = tickets::make_world();
    Webhook literal = make_webhook(w.shop, receiver.url(), "ticket.created");
    Webhook named = make_webhook(
        w.shop, "http://localhost:" + std::to_string(receiver.port()) + "/hook", "ticket.created");
    stop_deliverer(SIGTERM);
    start_deliverer("--webhook-allow-private false");
    tickets::create_ticket_id(w);
    Db db;
    const auto until = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < until &&
           db.count("SELECT COUNT(*) FROM webhook_attempts WHERE webhook_id IN (?, ?)",
                    {std::to_string(literal.id), std::to_string(named.id)}) < 2) {
        std::this_thread::sleep_for(100ms);
    }
    EXPECT_EQ(receiver.received().size(), 0u);
    for (const Webhook& hook : {literal, named}) {
        std::optional<std::string> error =
            db.scalar("SELECT error FROM webhook_attempts WHERE webhook_id = ? ORDER BY id LIMIT 1",
                      {std::to_string(hook.id)});
        ASSERT_TRUE(error) << hook.id;
        EXPECT_NE(error->find("refused"), std::string::npos) << *error;
        EXPECT_NE(error->find("loopback"), std::string::npos) << *error;
        EXPECT_EQ(deliveries(hook)[0]["status"], "pending");
    }
    // Allowed again (the stack's own setting): both are delivered.
    stop_deliverer(SIGTERM);
    start_deliverer();
    ASSERT_TRUE(receiver.wait_for(2));
    EXPECT_TRUE(wait_for_deliveries(literal, 1, "delivered"));
    EXPECT_TRUE(wait_for_deliveries(named, 1, "delivered"));
}

// Issue 25: addresses that reach another one through a gateway (NAT64, IPv4-translated,
// 6to4) and reserved blocks are refused by `webhook create` too, each saying what it is.
TEST(Webhooks, TranslatedAndReservedAddressesAreRefusedByWebhookCreate) {
    Shop shop = make_shop();
    const std::pair<const char*, const char*> cases[] = {
        {"http://[64:ff9b::a9fe:a9fe]/latest", "NAT64 (reaches 169.254.169.254, link-local)"},
        {"http://[64:ff9b:1::a00:1]/", "NAT64 (local use)"},
        {"https://[::ffff:0:7f00:1]:8443/", "IPv4-translated (reaches 127.0.0.1, loopback)"},
        {"http://[2002:c0a8:101::1]/", "6to4 (reaches 192.168.1.1, private)"},
        {"http://198.18.0.1/", "reserved (benchmarking)"},
        {"http://198.19.1.1/", "reserved (benchmarking)"},
        {"http://192.0.0.170/", "reserved (IETF protocol assignments)"},
        {"http://192.0.2.10/", "reserved (documentation)"},
        {"http://[2001:db8::10]/", "reserved (documentation)"},
        {"http://[100::1]/", "reserved (discard-only)"},
    };
    for (const auto& [url, kind] : cases) {
        AdminResult r = admin_raw({"--webhook-allow-private", "false", "webhook", "create",
                                   "--shop", shop.domain, "--url", url});
        EXPECT_NE(r.exit_code, 0) << url;
        EXPECT_NE(r.err.find("refused"), std::string::npos) << url << ": " << r.err;
        EXPECT_NE(r.err.find(kind), std::string::npos) << url << ": " << r.err;
    }
    EXPECT_TRUE(admin({"webhook", "list", "--shop", shop.domain})["webhooks"].empty());
}

TEST(Webhooks, OperatorCommandsAnswerAsTheSpecSays) {
    Shop shop = make_shop();
    Json::Value created = admin({"webhook", "create", "--shop", shop.domain, "--url",
                                 "http://127.0.0.1:9/x", "--events", "comment.created"});
    EXPECT_EQ(member_names(created), (std::vector<std::string>{"events", "id", "secret", "url"}));
    EXPECT_TRUE(is_json_integer(created["id"]));
    EXPECT_EQ(created["url"], "http://127.0.0.1:9/x");
    EXPECT_EQ(created["events"], tickets::array({"comment.created"}));
    const std::string secret = created["secret"].asString();
    ASSERT_TRUE(starts_with(secret, "whsec_"));
    EXPECT_EQ(secret.size(), 6u + 44u);  // base64 of 32 bytes
    // Shown once: not in list, not in the admin's output otherwise, not in any log.
    Json::Value list = admin({"webhook", "list", "--shop", shop.domain});
    EXPECT_EQ(to_json(list).find(secret.substr(6)), std::string::npos);
    EXPECT_TRUE(parse_utc_millis(list["webhooks"][0]["createdAt"].asString()));
    EXPECT_EQ(read_file(required_env("SUPPORTCRM_WEBHOOKS_LOG")).find(secret.substr(6)),
              std::string::npos);
    EXPECT_TRUE(
        admin({"webhook", "deliveries", "--id", created["id"].asString()})["deliveries"].empty());
    EXPECT_EQ(to_json(admin({"webhook", "delete", "--id", created["id"].asString()})),
              R"({"deleted":true})");
    EXPECT_TRUE(admin({"webhook", "list", "--shop", shop.domain})["webhooks"].empty());
    EXPECT_NE(admin_raw({"webhook", "delete", "--id", created["id"].asString()}).exit_code, 0);
    EXPECT_NE(admin_raw({"webhook", "deliveries", "--id", created["id"].asString()}).exit_code, 0);
    EXPECT_NE(admin_raw({"webhook", "list", "--shop", "no-such-" + unique_suffix()}).exit_code, 0);
    // A shop without webhooks still records every event (the changes feed, E11, reads them),
    // written fanned out: no webhook wants one (sql/022: 65536 | 255).
    Db db;
    EXPECT_EQ(db.scalar("SELECT webhook_events FROM shops WHERE id = ?", {std::to_string(shop.id)}),
              "65791");
    create_customer(shop, object({{"email", unique_email("none")}}));
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_events WHERE shop_id = ?",
                       {std::to_string(shop.id)}),
              1);
}

// GET /metrics (extensions.md §E6) counts attempts by result for every deliverer, from the
// database, and shows the work waiting. Other tests' deliveries may run meanwhile: the counts
// are compared as at least the change this test makes.
TEST(Webhooks, MetricsCountAttemptsByResultAndShowTheQueueWaiting) {
    RestartDelivererAtEnd restart;
    EXPECT_NE(metrics().find("# TYPE supportcrm_webhook_deliveries_total counter\n"),
              std::string::npos);
    EXPECT_NE(metrics().find("# TYPE supportcrm_webhook_queue_depth gauge\n"), std::string::npos);
    Receiver receiver;
    receiver.answer_with({500});
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");

    // With no deliverer running, each new event waits in the queue.
    stop_deliverer(SIGTERM);
    const double depth_before = queue_depth();
    for (int i = 0; i < 3; ++i) {
        tickets::create_ticket_id(w);
    }
    EXPECT_GE(queue_depth(), depth_before + 3);
    const double delivered_before = delivery_total("delivered");
    const double retried_before = delivery_total("retried");

    start_deliverer();
    ASSERT_TRUE(wait_for_deliveries(hook, 3, "delivered"));
    EXPECT_EQ(receiver.received().size(), 4u);  // one 500, retried
    EXPECT_GE(delivery_total("delivered"), delivered_before + 3);
    EXPECT_GE(delivery_total("retried"), retried_before + 1);
    // The queue drains (what other tests left behind is failed within webhook-retry-for, 8 s).
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (queue_depth() > 0 && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(200ms);
    }
    EXPECT_EQ(queue_depth(), 0);
}

// Retention (webhook-retention-days, 30 by default): the deliverer deletes finished deliveries
// (with their attempts) and events older than that, and keeps everything younger or pending.
TEST(Webhooks, RetentionDeletesOldFinishedRowsAndKeepsYoungAndPendingOnes) {
    RestartDelivererAtEnd restart;
    Receiver receiver;
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");
    Db db;
    const std::string hook_id = std::to_string(hook.id);
    const std::string shop_id = *db.scalar("SELECT shop_id FROM webhooks WHERE id = ?", {hook_id});
    // An event `days_old` days old, already fanned out; its id.
    auto plant_event = [&](int days_old) {
        const std::string marker = unique_suffix();
        db.execute(
            "INSERT INTO webhook_events (shop_id, type, payload, created_at, fanned_out) "
            "VALUES (?, 2, JSON_OBJECT('m', ?), UTC_TIMESTAMP(3) - INTERVAL ? DAY, 1)",
            {shop_id, marker, std::to_string(days_old)});
        return *db.scalar(
            "SELECT id FROM webhook_events WHERE shop_id = ? AND payload = "
            "JSON_OBJECT('m', ?)",
            {shop_id, marker});
    };
    // Its delivery to the hook: status, next_attempt_at (the time it finished) days from now,
    // with two attempts.
    auto plant_delivery = [&](const std::string& event, int status, int days_from_now) {
        const std::string days = std::to_string(days_from_now);
        db.execute(
            "INSERT INTO webhook_deliveries (webhook_id, event_id, status, attempts, "
            "next_attempt_at) VALUES (?, ?, ?, 2, UTC_TIMESTAMP(3) + INTERVAL ? DAY)",
            {hook_id, event, std::to_string(status), days});
        for (int i = 0; i < 2; ++i) {
            db.execute(
                "INSERT INTO webhook_attempts (webhook_id, event_id, attempted_at, "
                "status_code, duration_ms) VALUES (?, ?, UTC_TIMESTAMP(3) + INTERVAL ? "
                "DAY, 500, 1)",
                {hook_id, event, days});
        }
    };
    const std::string old_delivered = plant_event(40);
    plant_delivery(old_delivered, 1, -40);
    const std::string old_failed = plant_event(41);
    plant_delivery(old_failed, 2, -40);
    const std::string old_without_deliveries = plant_event(35);
    const std::string old_pending = plant_event(40);  // the deliverer was down for long
    plant_delivery(old_pending, 0, 1);                // not due: not attempted meanwhile
    const std::string young_delivered = plant_event(29);
    plant_delivery(young_delivered, 1, -29);
    const std::string young_without_deliveries = plant_event(29);

    auto event_exists = [&](const std::string& id) {
        return db.count("SELECT COUNT(*) FROM webhook_events WHERE id = ?", {id}) == 1;
    };
    auto attempts_of = [&](const std::string& event) {
        return db.count("SELECT COUNT(*) FROM webhook_attempts WHERE event_id = ?", {event});
    };
    // Retention runs when the deliverer starts (then every 10 minutes).
    stop_deliverer(SIGTERM);
    start_deliverer();
    const auto until = std::chrono::steady_clock::now() + 15s;
    while ((event_exists(old_delivered) || event_exists(old_without_deliveries)) &&
           std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(100ms);
    }
    for (const std::string& gone : {old_delivered, old_failed, old_without_deliveries}) {
        EXPECT_FALSE(event_exists(gone)) << gone;
        EXPECT_EQ(attempts_of(gone), 0) << gone;
        EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_deliveries WHERE event_id = ?", {gone}),
                  0);
    }
    for (const std::string& kept : {old_pending, young_delivered}) {
        EXPECT_TRUE(event_exists(kept)) << kept;
        EXPECT_EQ(attempts_of(kept), 2) << kept;
    }
    EXPECT_TRUE(event_exists(young_without_deliveries));
    EXPECT_GE(count_in_log("retention: deleted "), 1u);
    // The pending one is still the operator's to see.
    bool listed = false;
    for (const Json::Value& d : deliveries(hook)) {
        listed = listed || (d["eventId"].asString() == old_pending && d["status"] == "pending");
    }
    EXPECT_TRUE(listed);
    admin({"webhook", "delete", "--id", hook_id});  // its planted pending delivery goes with it
}

// An event is also an entry of the changes feed (E11): the deliverer deletes it only once both
// webhook-retention-days and changes-retention-days are over (webhooks/deliverer.cpp,
// prune_if_due: the earlier cutoff). With the feed's retention at 60 days, an event of 40 days
// without deliveries stays while one of 70 goes; with both at 30, the 40-day one goes too.
TEST(Webhooks, RetentionKeepsEventsTheChangesFeedStillKeeps) {
    RestartDelivererAtEnd restart;
    const Shop shop = make_shop();
    Db db;
    const std::string shop_id = std::to_string(shop.id);
    auto plant_event = [&](int days_old) {
        const std::string marker = unique_suffix();
        db.execute(
            "INSERT INTO webhook_events (shop_id, type, payload, created_at, fanned_out) "
            "VALUES (?, 1, JSON_OBJECT('m', ?), UTC_TIMESTAMP(3) - INTERVAL ? DAY, 1)",
            {shop_id, marker, std::to_string(days_old)});
        return *db.scalar(
            "SELECT id FROM webhook_events WHERE shop_id = ? AND payload = "
            "JSON_OBJECT('m', ?)",
            {shop_id, marker});
    };
    auto exists = [&](const std::string& id) {
        return db.count("SELECT COUNT(*) FROM webhook_events WHERE id = ?", {id}) == 1;
    };
    auto until_gone = [&](const std::string& id) {
        const auto until = std::chrono::steady_clock::now() + 20s;
        while (exists(id) && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(100ms);
        }
        return !exists(id);
    };
    const std::string forty = plant_event(40);
    const std::string seventy = plant_event(70);
    // Retention runs when the deliverer starts.
    stop_deliverer(SIGTERM);
    start_deliverer("--changes-retention-days 60");
    ASSERT_TRUE(until_gone(seventy)) << "the 70-day-old event was not pruned";
    EXPECT_TRUE(exists(forty)) << "pruned while the changes feed keeps it (60 days)";
    stop_deliverer(SIGTERM);
    start_deliverer();  // both retentions at 30 days
    EXPECT_TRUE(until_gone(forty)) << "the 40-day-old event outlived both retentions";
}

// Deliveries to one receiver reuse the deliverer's kept-alive connection (each attempt still
// resolves and checks the address first).
TEST(Webhooks, DeliveriesToOneReceiverShareAKeptAliveConnection) {
    Receiver receiver;
    receiver.keep_connections_open();
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");
    for (int i = 0; i < 3; ++i) {
        tickets::create_ticket_id(w);
        ASSERT_TRUE(receiver.wait_for(static_cast<size_t>(i) + 1));  // one attempt each
    }
    ASSERT_TRUE(wait_for_deliveries(hook, 3, "delivered"));
    for (const Received& r : receiver.received()) {
        expect_valid_delivery(r, hook, w.shop);
    }
    EXPECT_EQ(receiver.connections(), 1u);
}

// Issue 25: deliveries to different receivers do not wait for each other. Shop A's receiver
// holds its request for 4 s; shop B's event, created meanwhile, reaches B's receiver while A's
// is still holding (the deliverer used to send a batch one by one: B came after A's answer).
TEST(Webhooks, AReceiverSlowToAnswerHoldsUpNoOtherShop) {
    Receiver slow;
    slow.hold_first_request(4s);
    Receiver fast;
    tickets::World a = tickets::make_world();
    tickets::World b = tickets::make_world();
    Webhook hook_a = make_webhook(a.shop, slow.url(), "ticket.created");
    Webhook hook_b = make_webhook(b.shop, fast.url(), "ticket.created");
    tickets::create_ticket_id(a);
    ASSERT_TRUE(slow.wait_for(1));  // A's request is in hand, its answer held
    const auto created = std::chrono::steady_clock::now();
    tickets::create_ticket_id(b);
    ASSERT_TRUE(fast.wait_for(1, 30s));
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - created);
    EXPECT_EQ(slow.answered(), 0u)
        << "B's event waited for A's receiver (" << took.count() << " ms)";
    std::cout << "[ measured ] shop B's event reached its receiver " << took.count()
              << " ms after its create\n";
    ASSERT_TRUE(wait_for_deliveries(hook_b, 1, "delivered"));
    ASSERT_TRUE(wait_for_deliveries(hook_a, 1, "delivered"));
    expect_valid_delivery(fast.received()[0], hook_b, b.shop);
    expect_valid_delivery(slow.received()[0], hook_a, a.shop);
    EXPECT_EQ(deliveries(hook_a)[0]["attempts"].asInt(), 1);
    EXPECT_EQ(deliveries(hook_b)[0]["attempts"].asInt(), 1);
}

// webhook-max-per-host: a receiver gets at most that many attempts at once; the rest of its
// deliveries stay in the queue, unclaimed (not leased), until one ends.
TEST(Webhooks, AReceiverGetsAtMostMaxPerHostAttemptsAtOnce) {
    RestartDelivererAtEnd restart;
    Receiver slow;
    slow.hold_first_request(3s);
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, slow.url(), "ticket.created");
    stop_deliverer(SIGTERM);
    tickets::create_ticket_id(w);
    tickets::create_ticket_id(w);
    start_deliverer("--webhook-max-per-host 1");
    ASSERT_TRUE(slow.wait_for(1));  // the first is in hand, its answer held
    Db db;
    const std::string id = std::to_string(hook.id);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ? AND "
                       "status = 0 AND next_attempt_at > UTC_TIMESTAMP(3)",
                       {id}),
              1);  // leased: the one in flight
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ? AND "
                       "status = 0 AND attempts = 0 AND next_attempt_at <= UTC_TIMESTAMP(3)",
                       {id}),
              1);  // due, waiting for the receiver's slot
    EXPECT_EQ(slow.answered(), 0u) << "checked after the receiver answered: proves nothing";
    ASSERT_TRUE(wait_for_deliveries(hook, 2, "delivered"));
    EXPECT_EQ(slow.received().size(), 2u);
    stop_deliverer(SIGTERM);
    start_deliverer();
}

// Issue 25: no transaction is open while a receiver is contacted. While A's receiver holds the
// request, the delivery's row is not locked: the claim committed before the POST (the
// deliverer used to hold the claim's transaction, and its row locks, until the answer came).
TEST(Webhooks, NoTransactionIsOpenWhileAReceiverIsContacted) {
    Receiver slow;
    slow.hold_first_request(4s);
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, slow.url(), "ticket.created");
    tickets::create_ticket_id(w);
    ASSERT_TRUE(slow.wait_for(1));  // the deliverer has sent it and waits for the answer
    Db db;
    // NOWAIT: an error at once if any transaction holds the row.
    EXPECT_NO_THROW(
        db.scalar("SELECT attempts FROM webhook_deliveries WHERE webhook_id = ? "
                  "FOR UPDATE NOWAIT",
                  {std::to_string(hook.id)}));
    EXPECT_EQ(slow.answered(), 0u) << "checked after the receiver answered: proves nothing";
    ASSERT_TRUE(wait_for_deliveries(hook, 1, "delivered"));
    EXPECT_EQ(deliveries(hook)[0]["attempts"].asInt(), 1);
}

// aae97dd: the deliverer's fan-out claims new events with a locking read; under REPEATABLE
// READ it also locked the gap after the newest event, so while a fan-out transaction was open
// every write's event insert (E11: every write records one) waited for its commit. The
// fan-out is held open at a real seam: its INSERT of the delivery checks the foreign key on
// the webhook's row, which a test session holds locked. Meanwhile a ticket create of the same
// shop (its event INSERT goes right after the claimed event, in that gap) must not wait.
TEST(Webhooks, AFanOutHeldOpenDoesNotHoldUpAWritesEventInsert) {
    Receiver receiver;
    tickets::World w = tickets::make_world();
    Webhook hook = make_webhook(w.shop, receiver.url(), "ticket.created");
    RowLock lock("SELECT id FROM webhooks WHERE id = " + std::to_string(hook.id) + " FOR UPDATE");
    tickets::create_ticket_id(w);  // its event: claimed, its delivery's insert waits for the lock
    const std::string fan_out = "INSERT IGNORE INTO webhook_deliveries";
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (lock.waiting_in(fan_out) == 0 && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(150ms);  // INNODB_TRX is refreshed at most every 100 ms
    }
    ASSERT_EQ(lock.waiting_in(fan_out), 1) << "the deliverer's fan-out never waited on the lock";

    std::future<std::string> write =
        std::async(std::launch::async, [&] { return tickets::create_ticket_id(w); });
    const std::string event_insert = "INSERT INTO webhook_events";
    bool insert_waited = false;
    while (write.wait_for(150ms) != std::future_status::ready) {
        if (lock.waiting_in(event_insert) > 0) {
            insert_waited = true;  // the gap lock is back: fail now, not after the lock timeout
            break;
        }
    }
    EXPECT_FALSE(insert_waited) << "a write's event insert waited for the open fan-out";
    // The fan-out was still open (waiting) the whole time the write ran.
    EXPECT_EQ(lock.waiting_in(fan_out), 1);
    lock.release();
    EXPECT_FALSE(write.get().empty());
    ASSERT_TRUE(receiver.wait_for(2));  // both tickets delivered once the lock is gone
}

// Retention's event DELETE runs in READ COMMITTED (db/webhook_repo.cpp, prune_webhook_rows):
// under REPEATABLE READ its scan of ix_webhook_events_created locks the gaps it passes too, and
// on a quiet system (no event younger than the cutoff) that range reaches the index's end,
// where every write's event insert goes: for up to its 1 s lock wait, every write waited. The
// prune is held open at a real seam: it reaches an old event whose row a test session holds
// locked, and waits (at most 1 s: its own lock wait). Meanwhile an event inserted into the gap
// its scan has passed (between two old events it read) must not wait; it would under
// REPEATABLE READ, wherever the gap (the index's end included).
TEST(Webhooks, ARetentionPruneHeldOpenTakesNoGapLockAnEventInsertWaitsFor) {
    RestartDelivererAtEnd restart;
    const Shop shop = make_shop();
    Db db;
    const std::string shop_id = std::to_string(shop.id);
    // Old events, fanned out and without deliveries (the prune deletes them), `hours_old` hours
    // old: older than anything other tests leave, so the prune's scan reads them first.
    auto plant_event = [&](int hours_old) {
        const std::string marker = unique_suffix();
        db.execute(
            "INSERT INTO webhook_events (shop_id, type, payload, created_at, fanned_out) "
            "VALUES (?, 2, JSON_OBJECT('m', ?), UTC_TIMESTAMP(3) - INTERVAL ? HOUR, 1)",
            {shop_id, marker, std::to_string(hours_old)});
        return *db.scalar(
            "SELECT id FROM webhook_events WHERE shop_id = ? AND payload = "
            "JSON_OBJECT('m', ?)",
            {shop_id, marker});
    };
    plant_event(96000);
    const std::string held = plant_event(95976);
    RowLock lock("SELECT id FROM webhook_events WHERE id = " + held + " FOR UPDATE");
    const std::string prune =
        "SET STATEMENT innodb_lock_wait_timeout = 1 FOR DELETE FROM "
        "webhook_events";
    // The prune waits for the held row 1 s (its own lock wait), then gives up and deletes
    // nothing. An observation counts only when made inside that second: a busy machine can
    // miss it (the poll, INNODB_TRX's refresh, a slow insert), so each attempt restarts the
    // deliverer (retention runs when it starts) until one is made. A waiting insert fails at
    // once, in any attempt.
    constexpr int kAttempts = 8;
    bool observed = false;
    for (int attempt = 1; attempt <= kAttempts && !observed; ++attempt) {
        const size_t rounds = count_in_log("retention: ");
        stop_deliverer(SIGTERM);
        start_deliverer();
        const auto until = std::chrono::steady_clock::now() + 20s;
        while (lock.waiting_in(prune) == 0 && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(20ms);  // INNODB_TRX is refreshed at most every 100 ms
        }
        if (lock.waiting_in(prune) == 1) {
            const auto seen = std::chrono::steady_clock::now();
            // An event between the two old ones: in the gap before the held one's index entry,
            // which the prune's scan has passed. No wait allowed (timeout 0: an error at once
            // if it waits).
            std::string refused;
            try {
                db.execute(
                    "SET STATEMENT innodb_lock_wait_timeout = 0 FOR "
                    "INSERT INTO webhook_events (shop_id, type, payload, created_at, fanned_out) "
                    "VALUES (?, 2, JSON_OBJECT('m', 'between'), "
                    "UTC_TIMESTAMP(3) - INTERVAL 95988 HOUR, 1)",
                    {shop_id});
            } catch (const std::exception& e) {
                refused = e.what();
            }
            ASSERT_EQ(refused, "") << "the event insert waited for the open prune (a gap lock)";
            // Valid only while the prune was still waiting: it started at most ~150 ms before
            // it was seen (the poll and INNODB_TRX's refresh) and waits 1 s unless released.
            observed = std::chrono::steady_clock::now() - seen < 700ms;
        }
        // This attempt's round ends (it gives up at its lock wait) before the next one or the
        // clean-up.
        const auto logged = std::chrono::steady_clock::now() + 20s;
        while (count_in_log("retention: ") == rounds && std::chrono::steady_clock::now() < logged) {
            std::this_thread::sleep_for(50ms);
        }
    }
    lock.release();
    EXPECT_TRUE(observed) << "in " << kAttempts
                          << " attempts no insert was made while the prune was seen waiting";
    db.execute(
        "DELETE FROM webhook_events WHERE shop_id = ? AND created_at < UTC_TIMESTAMP(3) - "
        "INTERVAL 1000 DAY",
        {shop_id});
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// extensions.md §E9: an erasure cancels the deliveries not yet made of the events carrying the
// customer's data, and tells the receivers with customer.erased (data {"id": <id>}).
TEST(Webhooks, AnErasureCancelsPendingDeliveriesAndSendsCustomerErased) {
    uint16_t down = 0;
    {
        Receiver probe;  // a port nobody listens on once it is gone
        down = probe.port();
    }
    Receiver receiver;
    tickets::World w = tickets::make_world();
    const Shop eraser = with_erase_key(w.shop);
    Webhook stuck = make_webhook(w.shop, "http://127.0.0.1:" + std::to_string(down) + "/hook",
                                 "customer.created");
    Webhook told = make_webhook(w.shop, receiver.url(), "customer.erased");
    const int64_t id =
        create_customer(w.shop, object({{"email", unique_email("erased")}}))["id"].asInt64();
    // The refused delivery is pending (the deliverer retries for 8 s before it fails).
    const auto until = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < until && deliveries(stuck).empty()) {
        std::this_thread::sleep_for(50ms);
    }
    ASSERT_EQ(deliveries(stuck).size(), 1u);
    ASSERT_EQ(deliveries(stuck)[0]["status"], "pending");

    HttpResponse r = http("DELETE", "/api/v1/customers/" + std::to_string(id), key_header(eraser));
    ASSERT_TRUE(is_success(r, 200)) << r.describe();
    EXPECT_EQ(deliveries(stuck)[0]["status"], "cancelled");
    ASSERT_TRUE(receiver.wait_for(1));
    ASSERT_TRUE(wait_for_deliveries(told, 1, "delivered"));
    const Json::Value body = body_of(receiver.received()[0]);
    EXPECT_EQ(body["type"], "customer.erased");
    EXPECT_EQ(body["data"], object({{"id", Json::Value(Json::Int64(id))}}));
    // The event kept only what the changes feed shows of it.
    Db db;
    EXPECT_EQ(db.scalar("SELECT payload FROM webhook_events WHERE shop_id = ? AND type = 1 "
                        "ORDER BY id DESC LIMIT 1",  // the world's own customer came first
                        {std::to_string(w.shop.id)}),
              std::optional<std::string>("{\"id\":" + std::to_string(id) + ",\"erased\":true}"));
}

}  // namespace
}  // namespace it
