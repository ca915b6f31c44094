// The store's order queries (store.hpp; orders.hpp is their one caller): the orders list, what an
// order's record shows besides its session and events, notes, accepted underpayments, the
// overview's figures, the subscription debits (store_orders.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/overview.hpp"
#include "rules/session.hpp"
#include "store/status_hub.hpp"
#include "rules/rows.hpp"

namespace paywasm::server {
class Sql;
}

namespace merchant {

struct StoreCore;

class OrderQueries {
public:
    OrderQueries(StoreCore& core, paywasm::server::Sql& sql) : core_(core), sql_(&sql) {}

    // One page of the orders list (SessionQuery). Attempts are read for attention only (else
    // Session::attempts stays empty).
    std::vector<Session> list_sessions(const SessionQuery& query, std::int64_t now);

    // A session's verified webhooks, QR codes, the merchant's resolutions of its attempts and its
    // notes, each oldest first.
    std::vector<WebhookRow> session_webhooks(const std::string& session_id);
    std::vector<QrRow> session_qr_codes(const std::string& session_id);
    std::vector<ResolutionRow> resolutions(const std::string& session_id);
    std::vector<NoteRow> notes(const std::string& session_id);
    // add_note(): false when there is no such session.
    bool add_note(const std::string& session_id, const std::string& actor, const std::string& note, std::int64_t now);

    // The merchant accepts what arrived for a partly paid session (state partial | partial_closed,
    // not a success): under the session's row lock, underpayment_accepted_at set, the session's
    // version + 1 (`pushed`), and its own event (checkout.underpayment_accepted) in the outbox
    // (`forward`). The verified status is left as the service signed it.
    struct Acceptance {
        enum Result { done, not_found, not_partial, already_accepted } result = not_found;
        std::optional<PushedStatus> pushed;
        std::string event_id;
    };
    Acceptance accept_underpayment(const std::string& session_id, const std::string& note, const std::string& actor,
                                   bool forward, std::int64_t now);

    // The overview's tally of the orders created on day `since_day` or later (overview.hpp sums it):
    // the rows the database keeps per kind of order and day (schema version 12), not the sessions.
    OverviewTally overview_tally(std::int64_t since_day);
    std::int64_t attention_count();
    // The events the app has refused (or not answered) at least `failures` times in a row and not
    // yet taken: still pending, retried with back-off (the overview's "needs attention").
    std::int64_t failing_events(std::int64_t failures);
    // How many sessions kOrderBucketSql puts in `bucket` (paid, partial, failed, refunded; its index).
    std::int64_t count_in_bucket(const std::string& bucket);
    // Subscription debits, newest first, with the latest verified status of each.
    std::vector<DebitRow> debits(int limit);

private:
    StoreCore& core_;
    paywasm::server::Sql* const sql_;  // the Store's
};

}  // namespace merchant
