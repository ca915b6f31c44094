// The store's mail group (store.hpp; notify.hpp words the mails): who gets which mail, and the mail
// outbox the mailer (mailer.cpp) works (store_mail.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/rows.hpp"

namespace paywasm::server {
class Sql;
}

namespace merchant {

struct StoreCore;

class MailStore {
public:
    MailStore(StoreCore& core, paywasm::server::Sql& sql) : core_(core), sql_(&sql) {}

    // With mail on (the gateway has an SMTP relay), every event queued and every event the app
    // refused kFailingEventAttempts times queues, in the same transaction, one mail row per console
    // user who chose its kind: id "<event id>/<address>", so never twice. Off: none.
    void enable(std::string shop_name);
    void set_notify(const NotifyPref& pref);  // the user's address and kinds (replaces theirs)
    bool remove_notify(const std::string& user);
    std::vector<NotifyPref> notify_prefs();
    // One due mail leased for `lease_ms` as EventStore::claim_due() does; sent/failed only change a
    // pending, leased row (a retried record changes nothing twice).
    std::optional<MailRow> claim_mail(std::int64_t now, std::int64_t lease_ms);
    void mail_sent(const std::string& id, std::int64_t now);
    void mail_failed(const std::string& id, std::int64_t next_attempt_at, const std::string& error);

private:
    StoreCore& core_;
    paywasm::server::Sql* const sql_;  // the Store's
};

}  // namespace merchant
