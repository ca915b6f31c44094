// src/server/web_form.hpp — the page kit's readers of what a browser sends to a page's server:
// application/x-www-form-urlencoded bodies, cookies, and the URL encoder for the links a page
// writes. Both wings of the gateway (the console, the hosted pages) use these and no other.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "server/message.hpp"

namespace paywasm::server {

// A form's fields: name -> value.
using Form = std::map<std::string, std::string, std::less<>>;

// An application/x-www-form-urlencoded text: '&'-separated name=value pairs, each percent- and
// '+'-decoded by url_decode (a malformed escape such as "%zz" or a trailing "%4" is kept as is);
// a pair without '=' is a name with an empty value; empty pairs are skipped; a name sent twice keeps
// its first value (a second one cannot override what the page's own field said). With `max_value`
// above 0, a decoded value longer than that throws HttpError 400 validation naming the field.
Form parse_urlencoded(std::string_view text, std::size_t max_value = 0);
// A request's form body: HttpError 415 unsupported_media_type unless its Content-Type is
// application/x-www-form-urlencoded (parameters such as charset allowed); then parse_urlencoded.
Form read_form(const Request& req, std::string_view body, std::size_t max_value = 0);
// A field's value, empty when absent.
std::string field(const Form& form, std::string_view name);

// The value of cookie `name` in the request's Cookie headers (RFC 6265 5.4: "a=1; b=2", any number
// of headers), exactly as sent (no decoding): the first pair whose name is exactly `name` (case
// matters; "xname" or "name2" is another cookie). Empty when there is none or its value is empty.
std::string cookie(const Request& req, std::string_view name);

// `text` percent-encoded for a URL's query or path segment: the unreserved characters of RFC 3986
// (letters, digits, - _ . ~) as they are, every other byte as %XX (upper-case hex).
std::string url_encode(std::string_view text);

}  // namespace paywasm::server
