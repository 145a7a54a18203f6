// The query string of a GET, as name → value pairs (percent-decoded).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace supportcrm {

class QueryParams {
  public:
    explicit QueryParams(std::string_view query);

    // The first value given for name; nullopt when the parameter is absent.
    std::optional<std::string> get(std::string_view name) const;
    // Every value given for name, in order (a parameter that may repeat: E10's tag).
    std::vector<std::string> get_all(std::string_view name) const;

  private:
    std::vector<std::pair<std::string, std::string>> params_;
};

// %XX sequences decoded. '+' stays '+': no parameter of this API holds a space, and a
// client that forgets to encode a "+02:00" offset still means the offset.
std::string percent_decode(std::string_view s);

}  // namespace supportcrm
