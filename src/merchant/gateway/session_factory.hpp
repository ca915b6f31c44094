// The one way a checkout session is made (session_factory.cpp): the app API's POST /v1/sessions
// (app_api.cpp) and a payment link's opening GET /l/{id} (links.cpp) both call open_session().
#pragma once

#include <cstdint>

#include "gateway/gateway.hpp"
#include "paywasm/models.hpp"
#include "rules/session.hpp"

namespace merchant {

// A new session for `checkout` (read and validated by the core). `draft` brings what the caller
// decided: methods_csv, success_url, cancel_url, link_id. The rest is made here: a new id ("cs_"),
// the checkout's offerId and canonical text (the core's to_json), its amount (the core's cart total
// in the checkout's currency), state open, created now and expiring `ttl_ms` later. Stored by
// SessionStore::create_session: `created` is false when a session of the same offerId existed (that
// one is returned; HttpError 409 offer_conflict when its order differs).
Session open_session(Gateway& gw, const paywasm::Checkout& checkout, Session draft, std::int64_t ttl_ms, bool& created);

}  // namespace merchant
