// The gateway's database: every query on its tables, by table group, all over one Sql (SQLite or
// PostgreSQL, src/server/sql.hpp) that the Store owns. A caller takes the group it needs
// (gw.store.sessions, ...), never the connection. The money rules are rules/decide.hpp's and
// attempts.hpp's (the store reads their inputs and persists what they decided); the wire shapes
// rules/events.cpp's (the store builds no JSON but the status it pushes: it stores and returns
// typed rows, rules/rows.hpp, and the texts it is given). The part's files (src/merchant/store):
//   store.cpp           this object: the Sql, its schema, the groups
//   schema.hpp          the tables, their migrations, the writer guard
//   status_hub.hpp      which SSE streams a change wakes (NOTIFY carries a wake tag), the stream caps
//   store_core.hpp      what the groups share inside their transactions (the store's files only)
//   store_sessions.hpp  sessions, transactions, QR codes, debits, one verified webhook applied
//   store_webhook.cpp   that webhook: read -> decide -> persist (SessionStore::apply_webhook)
//   store_attempts.hpp  payment attempts: registration, reports, resolutions, the attention pass
//   store_events.hpp    the forwarding outbox and its deliveries
//   store_mail.hpp      who gets which mail, and the mail outbox (notify.hpp, mailer.cpp)
//   store_console.hpp   the console's users and logins, the audit log
//   store_orders.hpp    the orders list and what an order's record and the overview read
//   store_links.hpp     payment links and their sessions
//   store_upkeep.hpp    retention, the rate limits' buckets, key fingerprints, the round trip
#pragma once

#include <memory>

#include "store/store_attempts.hpp"
#include "store/store_console.hpp"
#include "store/store_events.hpp"
#include "store/store_links.hpp"
#include "store/store_mail.hpp"
#include "store/store_orders.hpp"
#include "store/store_sessions.hpp"
#include "store/store_upkeep.hpp"

namespace paywasm::server {
class Sql;
}

namespace merchant {

class Store {
public:
    // Brings the database to the schema of this binary (schema.hpp's migrate()).
    explicit Store(std::unique_ptr<paywasm::server::Sql> sql);
    // Beside a running gateway (console-user): migrates nothing, requires this binary's schema
    // (schema.hpp's require_current_schema()).
    struct BesideGateway {};
    Store(std::unique_ptr<paywasm::server::Sql> sql, BesideGateway);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

private:
    std::unique_ptr<paywasm::server::Sql> sql_;
    std::unique_ptr<StoreCore> core_;

public:
    SessionStore sessions;
    AttemptStore attempts;
    EventStore events;
    MailStore mail;
    ConsoleStore console;
    OrderQueries orders;
    LinkStore links;
    Upkeep upkeep;
};

}  // namespace merchant
