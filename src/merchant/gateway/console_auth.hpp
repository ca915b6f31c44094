// The console's accounts and logins (docs/merchant.md "The console"): passwords stored with scrypt
// (Crypto++), logins kept server-side; the `console-user` command (program/console_users_cli.cpp) uses them.
//
// Passwords: scrypt with N = 32768, r = 8, p = 1 (32 MiB and about 0.1 s a try), a 16-byte random
// salt per user, a 32-byte key, stored as "scrypt$N$r$p$<salt hex>$<key hex>"; compared in constant
// time. At least kMinPassword characters.
// Logins: a 256-bit random token in the cookie; the database keeps its SHA-256 only (a copy of the
// database opens no console), the user, a CSRF token, and the times: a login ends after
// kLoginIdleMs without a request, kLoginMaxMs after it began, at logout, or when its user is
// removed.
// Wrong passwords (console_auth.cpp log_in), in a sliding window of kFailureWindowMs:
//   - per user: kMaxFailures within the window lock it until the oldest of them leaves the window.
//     A locked user is answered exactly as any wrong password, whatever the password (the same
//     status, body and scrypt): the right one does not reveal the lock, nor the lock the right one.
//     Its attempts meanwhile do not count (a guesser cannot prolong the lock). The user learns of it
//     out of band: the audit log (login_locked, account_locked), `console-user list`, and a notice
//     at its next good login.
//   - per client address (server::client_key: an IPv6 /64 is one client): kMaxAddressFailures
//     within the window, whatever the names, and the address's logins are refused (429) before any
//     password is checked, until the oldest leaves the window. Every attempt answered as wrong
//     counts, a locked user's right password too (else the count would tell it).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>

#include "store/store_console.hpp"

namespace merchant {

inline constexpr std::size_t kMinPassword = 12;
inline constexpr std::int64_t kLoginIdleMs = 30LL * 60 * 1000;
inline constexpr std::int64_t kLoginMaxMs = 12LL * 3600 * 1000;
inline constexpr int kMaxFailures = 5;
inline constexpr int kMaxAddressFailures = 20;
inline constexpr std::int64_t kFailureWindowMs = 15LL * 60 * 1000;

std::string hash_password(const std::string& password);
bool verify_password(const std::string& password, const std::string& stored);
// How many password checks (verify_password: one scrypt each) this process has run: /metrics'
// paywasm_console_password_checks_total, by which a test proves every login answer did the same work.
std::uint64_t password_checks();

// A user name: 1 to 64 of letters, digits and . _ - @.
bool valid_user_name(const std::string& name);


// A password of `in`'s first line (its \r dropped); throws paywasm::Error(usage) under kMinPassword.
std::string read_password(std::istream& in);
// A new random password (20 characters of an unambiguous alphabet, about 110 bits).
std::string generate_password();
// Adds the console user (the audit log says who: `actor`); false and a message on stderr if it exists.
bool add_console_user(ConsoleStore& store, const std::string& name, const std::string& password, const std::string& actor);

// A login attempt's outcome: the new login's cookie token and CSRF token, or why not. `wrong` for
// every refusal about the account (no such user, wrong password, locked: one answer);
// `address_limited` when the client's address has too many wrong passwords (checked first).
struct Login {
    enum Result { ok, wrong, address_limited } result = wrong;
    std::string token, csrf;
    bool user_locked = false;  // wrong: the user was locked (for the audit log only)
    bool locked_now = false;   // wrong: this failure locked the user
    // ok: what its owner is told, since its previous good login.
    std::int64_t failures_before = 0, locked_at_before = 0;
};
// Checks `name` and `password` from `address` (the client's): one scrypt for every attempt past
// the address's limit (a user that does not exist, or is locked, costs the same time as a wrong
// password); on success a fresh login, never one the client brought (session fixation).
Login log_in(ConsoleStore& store, const std::string& name, const std::string& password, const std::string& address, std::int64_t now);
// The login of a cookie token, if live (its idle clock restarts).
std::optional<ConsoleSession> logged_in(ConsoleStore& store, const std::string& token, std::int64_t now);
void log_out(ConsoleStore& store, const std::string& token);

}  // namespace merchant
