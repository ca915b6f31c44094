// The store's console group (store_console.hpp): the console's users, its logins and the wrong
// passwords' windows, the audit log. Same SQL on SQLite and PostgreSQL (sql.hpp's dialect, plus row
// values in the audit log's keyset comparison).
#include <algorithm>

#include "store/store_console.hpp"
#include "store/store_core.hpp"

#include "server/util.hpp"

namespace merchant {

using namespace paywasm::server;  // Sql, SqlRow, SqlValue, or_null, random_token

bool ConsoleStore::add_console_user(const std::string& name, const std::string& password_hash, std::int64_t now) {
    return sql_->execute("INSERT INTO console_users (name, password_hash, created_at) VALUES (?, ?, ?) "
                         "ON CONFLICT (name) DO NOTHING",
                         {name, password_hash, now}) == 1;
}

bool ConsoleStore::remove_console_user(const std::string& name) {
    bool removed = false;
    sql_->transaction([&] {
        sql_->execute("DELETE FROM console_sessions WHERE user_name = ?", {name});
        sql_->execute("DELETE FROM login_failures WHERE subject = ?", {"user:" + name});
        removed = sql_->execute("DELETE FROM console_users WHERE name = ?", {name}) == 1;
    });
    return removed;
}

bool ConsoleStore::set_console_password(const std::string& name, const std::string& password_hash) {
    bool changed = false;
    sql_->transaction([&] {
        changed = sql_->execute("UPDATE console_users SET password_hash = ? WHERE name = ?", {password_hash, name}) == 1;
        if (changed) sql_->execute("DELETE FROM console_sessions WHERE user_name = ?", {name});
    });
    return changed;
}

std::vector<ConsoleUser> ConsoleStore::console_users() {
    std::vector<ConsoleUser> out;
    for (const auto& r : sql_->query("SELECT name, password_hash, created_at, failed_logins, locked_at FROM console_users "
                                     "ORDER BY name")) {
        out.push_back(ConsoleUser{r.text(0), r.text(1), r.integer(2), r.integer(3), r.integer(4)});
    }
    return out;
}

std::optional<ConsoleUser> ConsoleStore::console_user(const std::string& name) {
    auto rows = sql_->query("SELECT name, password_hash, created_at, failed_logins, locked_at FROM console_users "
                            "WHERE name = ?",
                            {name});
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    return ConsoleUser{r.text(0), r.text(1), r.integer(2), r.integer(3), r.integer(4)};
}

std::int64_t ConsoleStore::login_locked_until(const std::string& subject, std::int64_t window_ms, int max, std::int64_t now) {
    // The max most recent failures inside the window (by the (subject, at) index): locked while the
    // oldest of them is still in it.
    const auto rows = sql_->query("SELECT at FROM login_failures WHERE subject = ? AND at > ? AND at <= ? ORDER BY at DESC LIMIT ?",
                                  {subject, now - window_ms, now, std::int64_t(max)});
    if (max <= 0 || static_cast<int>(rows.size()) < max) return 0;
    return rows.back().integer(0) + window_ms;
}

void ConsoleStore::login_failed(const std::string& subject, std::int64_t window_ms, std::int64_t now) {
    sql_->transaction([&] {
        sql_->execute("DELETE FROM login_failures WHERE subject = ? AND at <= ?", {subject, now - window_ms});
        sql_->execute("INSERT INTO login_failures (subject, at) VALUES (?, ?)", {subject, now});
    });
}

bool ConsoleStore::clear_login_failures(const std::string& subject) {
    return sql_->execute("DELETE FROM login_failures WHERE subject = ?", {subject}) > 0;
}

void ConsoleStore::console_user_failed(const std::string& name, bool locked, std::int64_t now) {
    sql_->execute("UPDATE console_users SET failed_logins = failed_logins + 1, locked_at = CASE WHEN ? = 1 THEN ? ELSE locked_at END "
                  "WHERE name = ?",
                  {std::int64_t(locked ? 1 : 0), now, name});
}

void ConsoleStore::console_login_succeeded(const std::string& name) {
    sql_->execute("UPDATE console_users SET failed_logins = 0, locked_at = 0 WHERE name = ?", {name});
}

void ConsoleStore::create_console_session(const std::string& token_hash, const ConsoleSession& s, std::int64_t now) {
    sql_->transaction([&] {
        // Logins long over go with each new one: the table holds live logins only.
        sql_->execute("DELETE FROM console_sessions WHERE expires_at < ?", {now});
        sql_->execute("INSERT INTO console_sessions (token_hash, user_name, csrf, created_at, seen_at, expires_at, address) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?)",
                      {token_hash, s.user, s.csrf, now, now, s.expires_at, s.address});
    });
}

std::optional<ConsoleSession> ConsoleStore::console_session(const std::string& token_hash, std::int64_t idle_ms,
                                                            std::int64_t now) {
    auto rows = sql_->query("UPDATE console_sessions SET seen_at = ? WHERE token_hash = ? AND expires_at > ? AND seen_at > ? "
                            "RETURNING user_name, csrf, created_at, expires_at",
                            {now, token_hash, now, now - idle_ms});
    if (rows.empty()) return std::nullopt;
    return ConsoleSession{rows[0].text(0), rows[0].text(1), rows[0].integer(2), rows[0].integer(3), now, ""};
}

std::vector<ConsoleSession> ConsoleStore::console_sessions_of(const std::string& name, std::int64_t now) {
    std::vector<ConsoleSession> out;
    for (const auto& r : sql_->query("SELECT user_name, created_at, expires_at, seen_at, address FROM console_sessions "
                                     "WHERE user_name = ? AND expires_at > ? ORDER BY created_at DESC",
                                     {name, now})) {
        out.push_back(ConsoleSession{r.text(0), "", r.integer(1), r.integer(2), r.integer(3), r.optional_text(4).value_or("")});
    }
    return out;
}

std::int64_t ConsoleStore::end_console_sessions_of(const std::string& name) {
    return sql_->execute("DELETE FROM console_sessions WHERE user_name = ?", {name});
}

void ConsoleStore::end_console_session(const std::string& token_hash) {
    sql_->execute("DELETE FROM console_sessions WHERE token_hash = ?", {token_hash});
}

void ConsoleStore::audit(const std::string& actor, const std::string& action, const std::optional<std::string>& target,
                         const std::optional<std::string>& detail, const std::string& address, std::int64_t now) {
    sql_->execute("INSERT INTO audit_log (id, at, actor, action, target, detail, address) VALUES (?, ?, ?, ?, ?, ?, ?)",
                  {random_token("aud_"), now, actor.substr(0, 200), action, or_null(target),
                   detail ? SqlValue(detail->substr(0, 2000)) : SqlValue(), address});
}

std::vector<AuditRow> ConsoleStore::audit_log(const std::optional<std::pair<std::int64_t, std::string>>& after, int limit) {
    std::vector<AuditRow> out;
    std::vector<SqlValue> params;
    std::string where;
    if (after) {
        where = "WHERE (at, id) < (?, ?) ";
        params = {after->first, after->second};
    }
    params.push_back(std::int64_t(std::clamp(limit, 1, 500)));
    for (const auto& r : sql_->query("SELECT id, actor, action, target, detail, address, at FROM audit_log " + where +
                                         "ORDER BY at DESC, id DESC LIMIT ?",
                                     params)) {
        out.push_back(AuditRow{r.text(0), r.text(1), r.text(2), r.optional_text(3), r.optional_text(4), r.optional_text(5),
                               r.integer(6)});
    }
    return out;
}

}  // namespace merchant
