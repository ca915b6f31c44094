// src/server/framing.hpp — where one HTTP/1.1 request head ends and whether it is acceptable: the
// strict framing rules of every native server, as pure functions (no I/O; fuzzed by
// tests/fuzz/fuzz_http_request.cpp). A head refused here is answered 400 and the connection closed,
// so nothing of it can be taken for the next request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "server/message.hpp"

namespace paywasm::server {

struct HeadLimits {
    std::size_t max_bytes = 16 * 1024;  // the whole head, request line to empty line
    std::size_t max_fields = 100;
};

struct RequestHead {
    std::string method, target;
    int version = 11;                    // 10 or 11
    Headers headers;                     // as received
    enum class Body { none, length, chunked } body = Body::none;
    std::uint64_t content_length = 0;    // Body::length only
};

struct FramingError {
    std::string reason;  // for the log and the 400 answer's message; never echoes the request
};

// The length of the head at the start of `data` (request line to the first empty line, inclusive),
// or 0 while it is incomplete. A line ended by a bare LF also ends it (parse_head refuses it).
std::size_t head_length(std::string_view data);

// Parses one complete head (head_length() bytes) by the strict rules, refusing:
//   NUL, bare CR, bare LF or another control character; obs-fold (a line starting with SP or HT);
//   more than `limits` bytes or fields; a malformed request line or field (Boost.Beast's parser);
//   a version other than HTTP/1.0 and 1.1; HTTP/1.1 without exactly one Host (1.0: at most one);
//   two Content-Lengths; Transfer-Encoding with Content-Length; a Transfer-Encoding other than
//   "chunked"; a body (Content-Length above 0, or Transfer-Encoding) on GET, HEAD, OPTIONS, DELETE
//   or TRACE; CONNECT; a target that is not origin-form ("/...", or "*" for OPTIONS).
std::variant<RequestHead, FramingError> parse_head(std::string_view head, const HeadLimits& limits = {});

}  // namespace paywasm::server
