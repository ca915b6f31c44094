// The console's HTTP details (console.hpp): its cookies, its forms, the links it writes.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "gateway.hpp"

namespace merchant {

using Form = std::map<std::string, std::string>;

// The value of cookie `name` in the request's Cookie headers (empty: none).
std::string cookie(Req req, std::string_view name);
// An application/x-www-form-urlencoded body (415 for another type); a repeated name keeps its first.
Form read_form(Req req, const std::string& body);
// A form field's value, empty when absent.
std::string field(const Form& form, const char* name);
// `text` percent-encoded for a URL's query (unreserved characters kept).
std::string url_encode(std::string_view text);

}  // namespace merchant
