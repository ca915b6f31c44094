// The store's attempts group (store.hpp; the rules are attempts.hpp's): registration, the
// browser's reports, the merchant's resolutions, the attention pass (store_attempts.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rules/attempts.hpp"
#include "rules/session.hpp"
#include "store/status_hub.hpp"
#include "rules/rows.hpp"

namespace paywasm::server {
class Sql;
}

namespace merchant {

struct StoreCore;

class AttemptStore {
public:
    AttemptStore(StoreCore& core, paywasm::server::Sql& sql) : core_(core), sql_(&sql) {}

    // Each runs in one transaction with the session's row locked (two tabs, two instances: one at a
    // time, each seeing what the other committed), and a change pushes the session's status (its
    // version + 1, with `payable`) to its streams: `pushed` for StatusHub::notify.
    struct Change {
        enum Result { done, not_found, attempt_not_found, in_flight, already_paid, expired, closed, already_reported,
                      already_resolved, settled, link_refused, transaction_elsewhere } result = not_found;
        std::string refused;  // link_refused: LinkStore::refusal's reason
        AttemptFacts attempt;
        Payable payable;
        std::optional<PushedStatus> pushed;
    };
    // Registers attempt `attempt_id` of `method` when Pay is armed (payable()) and the session's link
    // takes it (LinkStore::refusal); else says why not.
    Change register_attempt(const std::string& session_id, paywasm::PayMethod method, const std::string& attempt_id,
                            std::int64_t now);
    // The browser's one report, stored as the attempt's reported_transaction_id (never its verified
    // transaction_id); transaction_elsewhere when the gateway holds that transaction for another
    // session (transaction_elsewhere(): a webhook's, a session's, another session's attempt's).
    Change report_attempt(const std::string& session_id, const std::string& attempt_id, const AttemptReport& report,
                          std::int64_t now);
    bool transaction_elsewhere(const std::string& transaction_id, const std::string& session_id);
    // The merchant's resolution of an attempt (release | paid_elsewhere | not_paid): the audited
    // record (resolutions), the attempt's resolution, its own event in the outbox (`forward`).
    // settled: a verified outcome already decided the attempt. A conflicted attempt may be resolved again.
    Change resolve_attempt(const std::string& session_id, const std::string& attempt_id, const std::string& resolution,
                           const std::string& note, const std::string& actor, bool forward, std::int64_t now);
    // The attention pass (the pruner thread): each attempt stuck by `t` (stuck_since() <= now) and
    // not yet signalled gets attention_at by compare-and-set and, in the same transaction, ONE
    // checkout.attention_needed outbox row. Candidates are read kAttentionPage at a time, paging on
    // to the last. Returns the sessions whose attempts changed.
    static constexpr int kAttentionPage = 500;
    std::vector<std::string> attention_pass(const AttentionThresholds& t, bool forward, std::int64_t now);

private:
    // The one path of a change to an existing attempt (report, resolution): in one transaction, the
    // session read with its row locked and the attempt found (else attempt_not_found; no session:
    // not_found), then `change` decides with out.attempt set to the attempt as read.
    using Changer = std::function<void(Session&, AttemptFacts&, Change&)>;
    Change change_attempt(const std::string& session_id, const std::string& attempt_id, const Changer& change);
    StoreCore& core_;
    paywasm::server::Sql* const sql_;  // the Store's
};

}  // namespace merchant
