// What the store's table groups (store.hpp) share, for the store_*.cpp files only: the one Sql, and
// the steps more than one group takes inside its own transactions. No caller outside the store
// includes this: a caller gets the group it needs (Store's members), never the connection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "rules/decide.hpp"
#include "server/sql.hpp"
#include "rules/session.hpp"
#include "store/status_hub.hpp"
#include "rules/rows.hpp"

namespace merchant {

using paywasm::server::Sql;
struct Mail;  // notify.hpp

struct StoreCore {
    explicit StoreCore(Sql& sql) : sql_(&sql) {}
    Sql* const sql_;  // the Store's

    // The rows `select` finds with `params`, in its order, each made by `read` (SqlRow -> a row).
    template <class Read>
    auto rows(const std::string& select, const std::vector<paywasm::server::SqlValue>& params, Read read) {
        std::vector<std::decay_t<decltype(read(std::declval<const paywasm::server::SqlRow&>()))>> out;
        for (const auto& r : sql_->query(select, params)) out.push_back(read(r));
        return out;
    }

    // ---- sessions (store_sessions.cpp) ----
    // A session read by id (`locked`: its row held until the transaction ends, Sql::query_locked).
    std::optional<Session> read_session(const std::string& id, bool locked);
    // `select_tail` after "SELECT <the session's columns> FROM sessions " (WHERE ... ORDER BY ...),
    // each row a Session without its attempts.
    std::vector<Session> sessions_where(const std::string& select_tail, const std::vector<paywasm::server::SqlValue>& params);
    // The session's QR codes as the rules read them.
    std::vector<QrCodeRow> qr_codes(const std::string& session_id);

    // ---- attempts (store_attempts.cpp) ----
    std::vector<AttemptFacts> attempts(const std::string& session_id);
    // The session's version + 1 and its status pushed (a NOTIFY with its wake tag at commit): a
    // change of its attempts.
    PushedStatus push_change(Session& s, std::int64_t now);
    // Inside apply_webhook: attaches the verified transaction to its attempt (attempt_for_transaction)
    // and records what it said (verified_of); a contradicted resolution queues
    // checkout.resolution_conflict. True when an attempt changed.
    bool settle_attempt(Session& s, const Decision& d, const IncomingTx& in, bool forward, std::int64_t now);

    // ---- links (store_links.cpp): LinkStore::refusal's rule, inside the caller's transaction ----
    std::string link_refusal(const Session& s, std::int64_t now);

    // ---- the outboxes (store_events.cpp) ----
    // An event: its mail rows (queue_mail: with mail on), and with `forward` (an app callback) one
    // outbox row (ON CONFLICT DO NOTHING); `chain`/`seq`: delivered after the chain's earlier rows.
    void queue_event(bool forward, const std::string& id, const std::string& body, std::int64_t now,
                     const std::optional<std::string>& chain = std::nullopt, std::optional<std::int64_t> seq = std::nullopt);
    // One due pending row of the outbox table `table` (outbox, mail_outbox) leased for `lease_ms`:
    // the first by next_attempt_at whose lease ended and that `admits` (" AND <condition>") lets
    // through; another worker or instance may lease it between the read and the UPDATE: only one
    // UPDATE wins, the loser reads the next (4 tries).
    std::optional<std::string> lease_due(const std::string& table, const std::string& admits, std::int64_t now,
                                         std::int64_t lease_ms);

    // ---- mail (store_mail.cpp): off until MailStore::enable ----
    bool mail_ = false;
    std::string mail_shop_;
    std::vector<NotifyPref> notify_prefs();
    // The mail rows an event makes, inside the caller's transaction.
    void queue_mail(const std::string& event_id, const std::string& body, std::int64_t now);
    void queue_refused_mail(const std::string& event_id, std::int64_t now);
    void insert_mail(const std::string& id_prefix, const Mail& mail, std::int64_t now);
};

}  // namespace merchant
