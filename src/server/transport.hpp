// src/server/transport.hpp — sends a core HttpRequest with cpp-httplib (the CLI and the gateway call the service through it).
#pragma once

#include <string>
#include <string_view>

#include "paywasm/protocol.hpp"

namespace paywasm::server {

// A service base URL (`{base_url}`) cut into its origin (scheme://host[:port]) and its path prefix
// (no trailing '/', may be empty). Error(validation, field) for another scheme than http(s), no
// host, a query or a fragment.
struct BaseUrl {
    std::string origin;
    std::string prefix;
};
BaseUrl split_base_url(std::string_view url, const std::string& field = "base-url");

struct TransportOptions {
    int timeout_seconds = 30;  // connect, read and write each
};

// Sends `request` to base_url + request.path (http:// or https://, certificates verified against the
// system store) exactly once — no retries, no redirects followed. Bodies over kMaxJsonBytes are cut
// off and refused. Throws Error(network) when no complete answer arrived, Error(timeout) when the
// time ran out, Error(validation, "base-url") for a malformed base URL.
HttpResponse send(const HttpRequest& request, std::string_view base_url, const TransportOptions& = {});

}  // namespace paywasm::server
