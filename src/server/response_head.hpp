// src/server/response_head.hpp — the one writer of an HTTP/1.1 answer's head, for every answer the
// server sends (a handler's, a stream's, and the errors it gives before any handler runs).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "server/message.hpp"

namespace paywasm::server {

// The framing fields of a head, which the server decides (a handler's own are dropped).
struct HeadFraming {
    std::string_view content_type;                // set: replaces the handler's Content-Type
    std::optional<std::size_t> content_length;    // Content-Length: N
    bool chunked = false;                         // Transfer-Encoding: chunked
    std::string_view connection;                  // Connection: close | keep-alive; "": none
    std::optional<long long> keep_alive_seconds;  // Keep-Alive: timeout=N
};

// "HTTP/1.1 <status> <reason>\r\n", then each of `headers` in order with CR and LF taken out of
// names and values (nothing a handler echoes can split the answer), except Content-Length,
// Connection and Transfer-Encoding (and Content-Type when framing.content_type is set); then
// framing's fields in the order above; then the empty line.
std::string response_head(int status, const Headers& headers, const HeadFraming& framing);

// A whole JSON error answer the server gives by itself, with Connection: close:
// {"code":<status>,"error":"<slug>","message":"<message>"} (message escaped for JSON, CR and LF
// dropped), after `headers`.
std::string error_answer(int status, std::string_view slug, std::string_view message, const Headers& headers = {});

}  // namespace paywasm::server
