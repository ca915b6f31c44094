// What the app's requests share (app_requests.hpp): the bearer check, the methods, the return URLs
// and the hosted page's URL, for the app API (api/app_api.cpp), the links (gateway/links.cpp,
// hosted/link_routes.cpp) and the order records (gateway/order_record.cpp).
#include "gateway/app_requests.hpp"

#include "client/url.hpp"
#include "paywasm/crypto.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {
using paywasm::client::http_origin;
}  // namespace

void require_app(const Gateway& gw, const Request& req) {
    const std::string token = bearer_token(req);
    if (token.empty() || !paywasm::constant_time_equal(token, gw.config.app_secret)) {
        throw HttpError(401, "unauthorized", "the app API needs Authorization: Bearer <PAYWASM_APP_SECRET>");
    }
}

// The methods a session offers: the request's `methods` (a non-empty array of exchange, bank, qr,
// no repeats: each name read by the core), else --methods.
paywasm::PayMethods methods_of(JsonValue given, paywasm::PayMethods fallback) {
    if (!given.valid() || given.is_null()) return fallback;
    if (!given.is_array() || given.size() == 0) throw HttpError(400, "validation", "methods must be a non-empty array", "methods");
    paywasm::PayMethods chosen;
    for (JsonValue m : given.children()) {
        const std::string name = m.is_string() ? std::string(m.text()) : "";
        const auto method = paywasm::pay_method_from(name);
        if (!method) throw HttpError(400, "validation", "methods may only hold \"exchange\", \"bank\" and \"qr\"", "methods");
        if (chosen.has(*method)) throw HttpError(400, "validation", "methods names " + name + " twice", "methods");
        chosen.add(*method);
    }
    return chosen;
}

std::string hosted_url(const Gateway& gw, const std::string& session_id) { return gw.config.public_url + "/pay/" + session_id; }

ReturnUrls read_return_urls(JsonValue obj, const Config& config) {
    ReturnUrls out;
    const auto one = [&](const char* name) -> std::optional<std::string> {
        auto v = opt_string(obj, name);
        if (!v) return std::nullopt;
        const std::string origin = http_origin(*v);
        if (origin.empty()) throw HttpError(400, "validation", std::string(name) + " must be an absolute http(s) URL", name);
        for (const auto& allowed : config.return_origins) {
            if (origin == allowed) return v;
        }
        throw HttpError(400, "return_origin_not_allowed",
                        std::string(name) + "'s origin " + origin + " is not one of --return-origin", name);
    };
    out.success = one("successUrl");
    out.cancel = one("cancelUrl");
    return out;
}

}  // namespace merchant
