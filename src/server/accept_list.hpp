// src/server/accept_list.hpp — the page kit's reader of an Accept-* header's list (RFC 9110 12.4.2:
// Accept-Encoding for the static files' gzip, Accept-Language for the hosted pages' words). No I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paywasm::server {

// One item of the list: its value trimmed and lower-cased ("gzip", "pt-br", "*"), and its weight in
// thousandths: 1000 without a q parameter, 0 to 1000 for a q written as RFC 9110 allows ("0.8",
// "1", "0.000"; the parameter name in any case, spaces around ';' and '=' allowed), -1 for a q that
// is not one ("1.5", "abc", "0.8888"): such an item is never preferred nor accepted.
struct AcceptItem {
    std::string value;
    int q = 1000;
};

// The items of `header` in the order the header lists them (empty items skipped; other parameters
// than q ignored). The caller picks: the highest q first, the first of equal q, q <= 0 refused.
std::vector<AcceptItem> accept_list(std::string_view header);

}  // namespace paywasm::server
