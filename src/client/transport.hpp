// src/client/transport.hpp — the outbound HTTP client (library paywasm_http_client: no server, no
// database, so the CLI links only this): a core HttpRequest sent to the service (the CLI, the
// gateway), and a kept-alive POST for the outboxes (the sandbox's webhooks, the gateway's
// forwarding). cpp-httplib stays inside transport.cpp. TLS certificates are verified against the
// system store; redirects are never followed.
#pragma once

#include <string>
#include <string_view>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "paywasm/protocol.hpp"
#include "client/url.hpp"

namespace paywasm::client {

struct TransportOptions {
    int timeout_seconds = 30;  // connect, read and write each
};

// Sends `request` to base_url + request.path (http:// or https://, certificates verified against the
// system store) exactly once — no retries, no redirects followed. Bodies over kMaxJsonBytes are cut
// off and refused. Throws Error(network) when no complete answer arrived, Error(timeout) when the
// time ran out, Error(validation, "base-url") for a malformed base URL.
HttpResponse send(const HttpRequest& request, std::string_view base_url, const TransportOptions& = {});

// POSTs to one origin over a kept-alive connection (reopened as needed); not thread-safe: one per
// sending thread.
class Poster {
public:
    struct Timeouts {
        int connect_seconds = 5, read_seconds = 10, write_seconds = 10;
    };
    struct Result {
        std::optional<int> status;  // the answer's status; nullopt when none arrived
        std::string error;          // why none arrived ("" when one did)
    };
    // `origin`: "scheme://host[:port]" (Url::origin).
    Poster(const std::string& origin, Timeouts timeouts);
    ~Poster();
    Result post(const std::string& path, const std::vector<std::pair<std::string, std::string>>& headers,
                const std::string& body, const std::string& content_type);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace paywasm::client
