// src/client/url.hpp — the one URL splitter of the native programs (the CLI's and the gateway's
// service URL, the gateway's --app-callback, the sandbox's webhook URL). No I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace paywasm::client {

// An http(s) URL cut into its parts. `origin` is "scheme://host[:port]", `host` keeps an IPv6
// address's brackets, `path` starts with '/' ("/" when the URL has none) and keeps the query.
// `user_info`: the URL names a user ("http://127.0.0.1@example.com/"), which hides the real host
// from a reader: callers refuse such a URL wherever the host matters.
struct Url {
    std::string scheme, origin, host, path;
    bool user_info = false;
};
// nullopt for another scheme or no host.
std::optional<Url> split_url(std::string_view url);

// The origin of an absolute http(s) URL as a browser names it in an Origin header: lower-case
// "scheme://host[:port]" ("https://shop.example:8443"), split by split_url. "" when `url` is not
// one a page may name: another scheme, no host, user info, a host other than letters, digits, '.'
// and '-' (or an IPv6 address in brackets), a port not of 1 to 5 digits, a space, control byte or
// '\' anywhere, or more than 2000 bytes.
std::string http_origin(std::string_view url);

// A service base URL (`{base_url}`) cut into its origin and its path prefix (no trailing '/', may
// be empty). Error(validation, field) for another scheme than http(s), no host, a query or a fragment.
struct BaseUrl {
    std::string origin;
    std::string prefix;
};
BaseUrl split_base_url(std::string_view url, const std::string& field = "base-url");

// `url` fit for a message or a log line: the password of "scheme://user:password@host" and the
// value of a libpq "password=..." pair become "***"; control bytes become '?'; at most 200 bytes.
std::string redact_url(std::string_view url);

}  // namespace paywasm::client
