// src/server/util.hpp — small helpers every native server shares (the sandbox, the gateway): time, ids,
// tokens, loopback checks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace paywasm::server {

std::int64_t now_ms();                       // wall clock, epoch milliseconds
std::string iso8601(std::int64_t epoch_ms);  // "2026-11-22T02:50:26.123Z"
std::string uuid_v4();                       // random, lower-case, from the platform CSPRNG
std::string random_hex(std::size_t bytes);
// A bearer token: `prefix` followed by 32 random bytes in base64url (no padding).
std::string random_token(std::string_view prefix);
// True for a Host header naming loopback: localhost, 127.0.0.1 or [::1], each with or without a
// port (and the name in any case). Empty (HTTP/1.0 without Host) is false.
bool is_loopback_host_header(std::string_view host);
// True when `host` (a URL's host, IPv6 in brackets) is loopback: localhost, 127.0.0.0/8, [::1].
bool is_loopback_host(std::string_view host);

}  // namespace paywasm::server
