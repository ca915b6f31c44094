// The store's mail group (store_mail.hpp; notify.hpp words the mails): who gets which mail, the mail
// outbox, and the mail rows an event queues in its transaction (store_core.hpp).
#include <algorithm>

#include "rules/notify.hpp"
#include "store/store_core.hpp"
#include "store/store_mail.hpp"

namespace merchant {

using paywasm::server::SqlValue;
namespace {

bool wants(const std::string& kinds_csv, const std::string& kind) {
    const auto kinds = parse_notify_kinds(kinds_csv);
    return kinds && std::find(kinds->begin(), kinds->end(), kind) != kinds->end();
}

}  // namespace

void MailStore::enable(std::string shop_name) {
    core_.mail_ = true;
    core_.mail_shop_ = std::move(shop_name);
}

void MailStore::set_notify(const NotifyPref& pref) {
    sql_->execute("INSERT INTO notify_prefs (user_name, email, kinds) VALUES (?, ?, ?) "
                  "ON CONFLICT (user_name) DO UPDATE SET email = excluded.email, kinds = excluded.kinds",
                  {pref.user, pref.email, pref.kinds});
}

bool MailStore::remove_notify(const std::string& user) {
    return sql_->execute("DELETE FROM notify_prefs WHERE user_name = ?", {user}) == 1;
}

std::vector<NotifyPref> StoreCore::notify_prefs() {
    std::vector<NotifyPref> out;
    for (const auto& r : sql_->query("SELECT p.user_name, p.email, p.kinds FROM notify_prefs AS p "
                                     "JOIN console_users AS u ON u.name = p.user_name ORDER BY p.user_name",
                                     {})) {
        out.push_back({r.text(0), r.text(1), r.text(2)});
    }
    return out;
}

std::vector<NotifyPref> MailStore::notify_prefs() { return core_.notify_prefs(); }

void StoreCore::queue_mail(const std::string& event_id, const std::string& body, std::int64_t now) {
    if (!mail_) return;
    if (const auto mail = mail_for_event(body, mail_shop_)) insert_mail(event_id + "/", *mail, now);
}

void StoreCore::queue_refused_mail(const std::string& event_id, std::int64_t now) {
    if (!mail_) return;
    auto rows = sql_->query("SELECT body, attempts, last_error FROM outbox WHERE id = ?", {event_id});
    // Once, when the count reaches the overview's threshold (the same "refused past its retries").
    if (rows.empty() || rows[0].integer(1) != kFailingEventAttempts) return;
    insert_mail(event_id + "/refused/",
                refused_mail(rows[0].text(0), rows[0].integer(1), rows[0].optional_text(2).value_or(""), mail_shop_), now);
}

// One row per user who chose the mail's kind, id `id_prefix` + address: queued once, whoever queues it.
void StoreCore::insert_mail(const std::string& id_prefix, const Mail& mail, std::int64_t now) {
    for (const auto& p : notify_prefs()) {
        if (!wants(p.kinds, mail.kind)) continue;
        sql_->execute("INSERT INTO mail_outbox (id, created_at, recipient, subject, body, state, next_attempt_at) "
                      "VALUES (?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT (id) DO NOTHING",
                      {id_prefix + p.email, now, p.email, mail.subject, mail.text, now});
    }
}

std::optional<MailRow> MailStore::claim_mail(std::int64_t now, std::int64_t lease_ms) {
    const auto id = core_.lease_due("mail_outbox", "", now, lease_ms);
    if (!id) return std::nullopt;
    auto m = sql_->query("SELECT id, recipient, subject, body, attempts, created_at FROM mail_outbox WHERE id = ?", {*id});
    if (m.empty()) return std::nullopt;
    return MailRow{m[0].text(0), m[0].text(1), m[0].text(2), m[0].text(3), m[0].integer(4), m[0].integer(5)};
}

void MailStore::mail_sent(const std::string& id, std::int64_t now) {
    sql_->execute("UPDATE mail_outbox SET state = 'sent', sent_at = ?, attempts = attempts + 1, lease_until = NULL, "
                  "last_error = NULL WHERE id = ? AND state = 'pending'",
                  {now, id});
}

void MailStore::mail_failed(const std::string& id, std::int64_t next_attempt_at, const std::string& error) {
    sql_->execute("UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = ?, lease_until = NULL, "
                  "last_error = ? WHERE id = ? AND state = 'pending' AND lease_until IS NOT NULL",
                  {next_attempt_at, error.substr(0, 500), id});
}

}  // namespace merchant
