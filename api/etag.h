// Entity tags of one ticket or one customer (extensions.md §E8): the strong ETag an answer
// carries, and the If-Match / If-None-Match lists a request compares with it. Pure functions:
// the version a tag names comes from the record's row (its version column), so the create,
// fetch and PATCH answers of an unchanged record carry the same tag.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace supportcrm::etag {

// Which resource a tag names: the same id and version of a ticket and a customer never share one.
enum class Kind : char { ticket = 't', customer = 'c' };

// "\"c12.3\"": strong, quoted, opaque to clients. For a customer.
std::string of(Kind kind, std::uint64_t id, std::uint64_t version);

// A ticket's tag names its own version and its customer's (the fetch shape's `Customer`: a
// change of the customer's name, a merge or an erasure changes the ticket's tag too, so a
// revalidated cache never keeps old or erased personal data; E8, v1.3). Its `User` changes
// only with assigned_to, which is the ticket's own version. "\"t12.3.7\"".
std::string of_ticket(std::uint64_t id, std::uint64_t version, std::uint64_t customer_version);

// An If-Match or If-None-Match value (RFC 9110 §13.1.1/§13.1.2): `*`, or a comma-separated
// list of entity tags, each strong ("x") or weak (W/"x"); empty list elements are allowed.
struct Condition {
    bool any = false;  // `*`
    struct Tag {
        bool weak = false;
        std::string quoted;  // with its quotes, as it is compared
    };
    std::vector<Tag> tags;
};

// nullopt when the value is not `*` or an entity-tag list (a 400 for If-Match).
std::optional<Condition> parse(std::string_view header);

// If-Match: the strong comparison, so a weak tag never matches; `*` matches any current record.
bool matches_strong(const Condition& condition, std::string_view current);

// If-None-Match: the weak comparison (W/"x" names "x" too); `*` matches any current record.
bool matches_weak(const Condition& condition, std::string_view current);

}  // namespace supportcrm::etag
