// src/server/message.hpp — one HTTP request as a route handler sees it, and the answer it fills in.
// Plain data, no I/O: the server (server.hpp) reads and frames the request before any handler runs,
// and writes the answer after. Header names compare case-insensitively.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paywasm::server {

struct StreamBody;  // event_stream.hpp

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
    std::string method;             // "GET", "POST", ... (HEAD is routed as GET, without a body sent)
    std::string target;             // as sent: path and query
    std::string path;               // the target up to '?', not decoded
    std::string query;              // after '?', not decoded; "" when none
    int version = 11;               // 10 or 11
    Headers headers;                // in the order received
    std::string body;               // complete, at most the server's body limit
    std::string remote_addr;        // the peer's address ("127.0.0.1", "::1")
    int remote_port = 0;
    std::vector<std::string> matches;  // the route's pattern captures; [0] is the whole path

    // The first value of header `name`, or `fallback` when absent.
    std::string get_header_value(std::string_view name, std::string_view fallback = {}) const;
    bool has_header(std::string_view name) const;
    // A query parameter, percent- and '+'-decoded; the first one of that name.
    bool has_param(std::string_view name) const;
    std::string get_param_value(std::string_view name) const;
};

struct Response {
    int status = 200;
    Headers headers;
    std::string body;
    bool close = false;  // close the connection once this answer is out
    bool drop = false;   // close the connection without any answer (the sandbox's `drop` fault)

    // Adds a header (a second one of the same name is a second line).
    void set_header(std::string_view name, std::string_view value);
    std::string get_header_value(std::string_view name) const;
    bool has_header(std::string_view name) const;
    void set_content(std::string text, std::string_view content_type);

    // An answer that stays open (event_stream.hpp's make_stream): `status` and `headers` go out with
    // Content-Type text/event-stream, then the stream's coroutine writes events on the server's
    // event loop until it returns; the connection is closed after. Null: an ordinary answer.
    std::shared_ptr<StreamBody> stream;
};

// ASCII case-insensitive equality of header names.
bool same_name(std::string_view a, std::string_view b);
// %XX and '+' decoded (a malformed escape is kept as is).
std::string url_decode(std::string_view text);

// The one reader of application/x-www-form-urlencoded text (a query string, a form body: the page
// kit's parse_urlencoded): calls on_pair(name, value) for each '&'-separated `name=value`, both still
// encoded (a pair without '=' has an empty value; empty pairs are skipped), in order, until on_pair
// returns true; returns whether one did.
template <class F>
bool for_each_urlencoded(std::string_view text, F on_pair) {
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t amp = text.find('&', start);
        const std::string_view part = text.substr(start, amp == std::string_view::npos ? std::string_view::npos : amp - start);
        const std::size_t eq = part.find('=');
        if (!part.empty() && on_pair(part.substr(0, eq), eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1))) {
            return true;
        }
        if (amp == std::string_view::npos) break;
        start = amp + 1;
    }
    return false;
}

}  // namespace paywasm::server
