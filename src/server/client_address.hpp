// src/server/client_address.hpp — who the client of a request is: the peer, or (behind your reverse
// proxies) the address X-Forwarded-For names; and what a per-client limit counts it as.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/message.hpp"

namespace paywasm::server {

// An IP address in its canonical text, or "" when `text` is not one. An IPv4-mapped IPv6 address
// ("::ffff:10.0.0.1", an IPv4 peer of a dual-stack listener) is its IPv4 address ("10.0.0.1"), so
// that --trusted-proxy 10.0.0.1 and the per-client limits see one address, however it came.
std::string canonical_address(std::string_view text);

// What a per-client limit counts for `address` (a Request::remote_addr): an IPv4 address itself; an
// IPv6 address its /64 ("2001:db8:1:2::/64"), the block one subscriber gets, so that a client
// cannot take a fresh bucket per address of its own block; anything else as it is.
std::string client_key(const std::string& address);

// The client of a request from `peer` with `headers` (ServerOptions::trusted_proxies): the peer,
// unless it is in `trusted`; then the rightmost address of X-Forwarded-For (all such headers, in
// order) that is no trusted proxy. An entry that is not an address (a port, a name, "unknown") ends
// the walk with the peer's own address: nothing a client wrote is taken unchecked.
std::string client_address(const std::string& peer, const Headers& headers, const std::vector<std::string>& trusted);

}  // namespace paywasm::server
