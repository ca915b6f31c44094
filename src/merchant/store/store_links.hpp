// The store's links group (store.hpp): the payment links table and what links read and change of
// their sessions (store_links.cpp). The routes are links.cpp's and hosted_page.cpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/session.hpp"
#include "rules/rows.hpp"

namespace paywasm::server {
class Sql;
}

namespace merchant {

struct StoreCore;

class LinkStore {
public:
    LinkStore(StoreCore& core, paywasm::server::Sql& sql) : core_(core), sql_(sql) {}
    void insert(const Link& link);
    std::optional<Link> find(const std::string& id);
    std::vector<Link> list(int limit);  // the newest links, sales left out
    bool set_active(const std::string& id, bool active, std::int64_t now);  // false: no such link
    std::int64_t paid_sessions(const std::string& id);
    std::vector<LinkSession> sessions(const std::string& id, int limit);
    // A link session's shopper fields (and chosen amount): the checkout replaced, and its expiry moved
    // to `expires_at`, only while nothing was paid or started (no QR code, no attempt) and no fields
    // were given before. False when that no longer holds.
    bool set_details(const std::string& session_id, const std::string& checkout_json, const std::string& checkout_hash,
                     const std::string& amount, std::int64_t expires_at, std::int64_t now);
    bool details_given(const std::string& session_id);
    // Why the session's payment link takes no payment (an attempt, a QR code) now, or "" (not a
    // link session, or it does): details_required (the shopper's fields not given yet),
    // link_inactive, link_expired, link_used_up (usageLimit: that many of the link's other sessions
    // are paid, hold money in flight by a verified status, or have an attempt or QR code and have
    // not expired). Inside a transaction after the session's row lock (the sessions and attempts
    // groups call it so) it locks the link's row (FOR UPDATE on PostgreSQL, SQLite's write lock):
    // two instances deciding for two sessions of one link take turns, so the count and the new
    // attempt are one compare-and-set.
    std::string refusal(const Session& s, std::int64_t now);

private:
    StoreCore& core_;
    paywasm::server::Sql& sql_;  // the Store's
};

}  // namespace merchant
