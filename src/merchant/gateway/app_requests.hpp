// What the app's requests share (the app API's /v1/sessions and the links' /v1/links): the bearer
// check, the methods a request names, the return URLs, and the hosted page's URL a session is
// written with. Here, below the route wings, so that the app API, the links and the order records
// read them without including the hosted pages.
#pragma once

#include <optional>
#include <string>

#include "gateway/gateway.hpp"
#include "paywasm/order.hpp"

namespace merchant {

// The app API's bearer check (401 unauthorized otherwise), and the methods a request names (a
// non-empty array of exchange, bank, qr without repeats; else `fallback`).
void require_app(const Gateway& gw, const Request& req);
paywasm::PayMethods methods_of(JsonValue given, paywasm::PayMethods fallback);

// `successUrl` and `cancelUrl` of a request object: each optional, and when given an absolute
// http(s) URL of at most 2000 characters on one of --return-origin (400 validation naming the
// field otherwise: the hosted page never sends a shopper to a place the operator did not allow).
struct ReturnUrls {
    std::optional<std::string> success, cancel;
};
ReturnUrls read_return_urls(JsonValue obj, const Config& config);

// The hosted page's URL of a session: <public url>/pay/<id>.
std::string hosted_url(const Gateway& gw, const std::string& session_id);

}  // namespace merchant
