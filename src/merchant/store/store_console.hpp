// The store's console group (store.hpp; the rules are console_auth.hpp's): the console's users, its
// logins and the wrong passwords' windows, and the audit log of every merchant action
// (store_console.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rules/rows.hpp"

namespace paywasm::server {
class Sql;
}

namespace merchant {

struct StoreCore;

class ConsoleStore {
public:
    ConsoleStore(StoreCore& core, paywasm::server::Sql& sql) : core_(core), sql_(&sql) {}

    bool add_console_user(const std::string& name, const std::string& password_hash, std::int64_t now);  // false: exists
    bool remove_console_user(const std::string& name);  // and every login session of it; false: no such user
    // A new password hash, every login of the user ended; false: no such user.
    bool set_console_password(const std::string& name, const std::string& password_hash);
    std::vector<ConsoleUser> console_users();
    std::optional<ConsoleUser> console_user(const std::string& name);

    // The sliding window of wrong passwords (console_auth.hpp): `subject` is user:<name> or
    // address:<client_key>. login_locked_until: while `subject` has `max` failures or more within
    // the last `window_ms`, when the max-th most recent of them leaves the window (else 0).
    std::int64_t login_locked_until(const std::string& subject, std::int64_t window_ms, int max, std::int64_t now);
    // One wrong password of `subject` at `now` (its failures older than `window_ms` go).
    void login_failed(const std::string& subject, std::int64_t window_ms, std::int64_t now);
    // Forgets `subject`'s failures (`console-user unlock`); false: there were none.
    bool clear_login_failures(const std::string& subject);
    // A counted wrong password of user `name`: failed_logins + 1, and locked_at = now when it locked.
    void console_user_failed(const std::string& name, bool locked, std::int64_t now);
    // A good login: failed_logins and locked_at back to 0 (the caller read them first, to tell).
    void console_login_succeeded(const std::string& name);

    void create_console_session(const std::string& token_hash, const ConsoleSession& s, std::int64_t now);
    // The live logins of `name` (console-user sessions), newest first.
    std::vector<ConsoleSession> console_sessions_of(const std::string& name, std::int64_t now);
    // Ends every login of `name`; how many.
    std::int64_t end_console_sessions_of(const std::string& name);
    // The login whose token hashes to `token_hash`, if it has not expired and was seen within
    // `idle_ms`; its seen_at moves to `now`.
    std::optional<ConsoleSession> console_session(const std::string& token_hash, std::int64_t idle_ms, std::int64_t now);
    void end_console_session(const std::string& token_hash);

    // The audit log: every merchant action (app API, console, CLI) and every console login.
    void audit(const std::string& actor, const std::string& action, const std::optional<std::string>& target,
               const std::optional<std::string>& detail, const std::string& address, std::int64_t now);
    // The entries newest first (at, id descending), by keyset after (at, id).
    std::vector<AuditRow> audit_log(const std::optional<std::pair<std::int64_t, std::string>>& after, int limit);

private:
    StoreCore& core_;
    paywasm::server::Sql* const sql_;  // the Store's
};

}  // namespace merchant
