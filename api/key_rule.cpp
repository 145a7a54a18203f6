#include "api/key_rule.h"

namespace supportcrm::key_rule {

const char* name(Check c) {
    switch (c) {
        case Check::route:
            return "route";
        case Check::key_given:
            return "key_given";
        case Check::key_known:
            return "key_known";
        case Check::not_expired:
            return "not_expired";
        case Check::shop_live:
            return "shop_live";
        case Check::scope:
            return "scope";
        case Check::rate:
            return "rate";
        case Check::operation:
            return "operation";
    }
    return "?";
}

}  // namespace supportcrm::key_rule
