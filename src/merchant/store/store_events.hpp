// The store's events group (store.hpp): the forwarding outbox and every delivery attempt of its
// events (store_events.cpp). The forwarder (forwarder.cpp) leases and records; the app API and the
// console read and resend.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rules/rows.hpp"

namespace paywasm::server {
class Sql;
}

namespace merchant {

struct StoreCore;

class EventStore {
public:
    EventStore(StoreCore& core, paywasm::server::Sql& sql) : core_(core), sql_(&sql) {}

    // claim_due() leases one due event to this caller for `lease_ms`; an event of a chain (a
    // debit's) only once the chain's earlier events are delivered.
    std::optional<OutboxEvent> claim_due(std::int64_t now, std::int64_t lease_ms);
    void delivered(const std::string& id, std::int64_t now);
    // With mail on, the failure that makes kFailingEventAttempts queues the "refused" mail.
    void failed(const std::string& id, std::int64_t next_attempt_at, const std::string& error);
    void record_delivery(const std::string& event_id, const DeliveryRow& row);

    // The `limit` newest events with their delivery state (GET /v1/events; events.hpp writes them).
    std::vector<OutboxRow> outbox(int limit);
    // One event (nullopt: none with this id), a session's events oldest first, and the events page:
    // the `limit` newest, or with `failed_first` the undelivered ones that failed at least once
    // first (oldest failure first), then the others newest first.
    std::optional<OutboxRow> event(const std::string& id);
    std::vector<OutboxRow> session_events(const std::string& session_id);
    std::vector<OutboxRow> events_page(bool failed_first, int limit);
    // Every delivery attempt of an event, oldest first; and of every event of a session, by event
    // id, each oldest first: one query for an order's timeline.
    std::vector<DeliveryRow> deliveries(const std::string& event_id);
    std::map<std::string, std::vector<DeliveryRow>> session_deliveries(const std::string& session_id);

    // The same event (same id, same body) delivered again: due now, whatever its state. in_flight:
    // a worker is delivering it right now (its lease holds). resend_failed(): every undelivered
    // event created since `since` whose last delivery failed, due now; returns how many.
    enum class Resend { done, not_found, in_flight };
    Resend resend_event(const std::string& id, std::int64_t now);
    std::int64_t resend_failed(std::int64_t since, std::int64_t now);

    // The outbox's health (/metrics, /readyz): the pending events, how long the oldest has waited,
    // and how many are due more than `stuck_ms` ago with no lease (no forwarder is working them).
    struct Backlog {
        std::int64_t pending = 0, oldest_age_ms = 0, stuck = 0;
    };
    Backlog backlog(std::int64_t stuck_ms, std::int64_t now);

private:
    StoreCore& core_;
    paywasm::server::Sql* const sql_;  // the Store's
};

}  // namespace merchant
