// Payment links' operations, one implementation for both of their callers: the app API
// (/v1/links with its bearer, hosted/link_routes.cpp) and the console (console_links.cpp, a
// logged-in seller).
// A link is checked once, by the same rules whoever makes it (the core's cart and currency rules);
// each console action is audited (Store::audit) under the actor that asked; each read gives a typed
// record the app API writes as JSON and the console renders as HTML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gateway/orders.hpp"
#include "paywasm/checkout.hpp"

namespace merchant {

// A link as a page or the API shows it: the link, what it asks (read from its spec), its state
// ("open", "closed": expired or used up, "inactive"), why it opens no more (a key of the hosted
// pages' words, "" while it opens), how many of its sessions were paid, and with the detail its
// sessions (500 newest) and what the paid ones add up to per currency.
struct LinkRecord {
    Link link;
    std::string name, state, closed_key, url;
    // A fixed amount: the cart's total (with `currency`); a customer-chosen one: min and max.
    std::optional<std::string> fixed_amount;
    std::optional<std::string> min_amount, max_amount;
    std::vector<std::string> methods;
    bool collect_shipping = false;
    std::int64_t paid_sessions = 0;
    std::vector<LinkSession> sessions;
    std::vector<paywasm::Money> totals;
};

// The URL a customer opens: <public url>/l/<id>.
std::string link_url(const Gateway& gw, const std::string& id);

// A new link from a request object (POST /v1/links's body: {name?, currency, cart | customAmount
// {min, max, label?}, methods?, collectShipping?, successUrl?, cancelUrl?, usageLimit?, expiresAt?});
// HttpError 400 naming the member otherwise; 409 hosted_pages_off without --widget-dir. Audited when
// `actor` is a console user's. `sold_by`: a point-of-sale sale (sales.hpp), not a payment link.
Link create_link(Gateway& gw, JsonValue request, const Actor& actor, const std::optional<std::string>& sold_by = std::nullopt);
// The 500 newest links, without their sessions.
std::vector<LinkRecord> link_list(Gateway& gw);
// Link `id` (HttpError 404 when there is none), with its sessions and totals when `detail`.
LinkRecord link_record(Gateway& gw, const std::string& id, bool detail);
// Stops (`active` false) or resumes a link's openings: sessions already open stay payable. Audited
// (link_deactivated / link_activated) under `actor`. HttpError 404: no such link.
LinkRecord set_link_active(Gateway& gw, const std::string& id, bool active, const Actor& actor);

// The record as GET /v1/links(/{id}) writes it.
std::string link_json(const LinkRecord& r, bool detail);

// The checkout a link's session starts with (`spec`: the link's spec; `offer_id` the session's):
// its cart, or for a customer-chosen amount one line at the minimum until the shopper chooses;
// read and validated by the core (throws its validation error).
paywasm::Checkout link_checkout(const JsonDocument& spec, const std::string& offer_id);
// Why link `l` opens no more, as a key of the hosted pages' words ("" when it opens).
std::string closed_reason(LinkStore& links, const Link& l);

}  // namespace merchant
