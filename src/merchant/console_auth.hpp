// The console's accounts and logins (docs/merchant.md "The console"): passwords stored with scrypt
// (Crypto++), logins kept server-side, the `console-user` command.
//
// Passwords: scrypt with N = 32768, r = 8, p = 1 (32 MiB and about 0.1 s a try), a 16-byte random
// salt per user, a 32-byte key, stored as "scrypt$N$r$p$<salt hex>$<key hex>"; compared in constant
// time. At least kMinPassword characters.
// Logins: a 256-bit random token in the cookie; the database keeps its SHA-256 only (a copy of the
// database opens no console), the user, a CSRF token, and the times: a login ends after
// kLoginIdleMs without a request, kLoginMaxMs after it began, at logout, or when its user is
// removed. A wrong password counts against the user: kMaxFailures in a row lock it for kLockMs
// (wrong passwords meanwhile neither count nor prolong it).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>

#include "store.hpp"

namespace merchant {

inline constexpr std::size_t kMinPassword = 12;
inline constexpr std::int64_t kLoginIdleMs = 30LL * 60 * 1000;
inline constexpr std::int64_t kLoginMaxMs = 12LL * 3600 * 1000;
inline constexpr int kMaxFailures = 5;
inline constexpr std::int64_t kLockMs = 15LL * 60 * 1000;

std::string hash_password(const std::string& password);
bool verify_password(const std::string& password, const std::string& stored);

// A user name: 1 to 64 of letters, digits and . _ - @.
bool valid_user_name(const std::string& name);

// `paywasm-merchant console-user add|remove|passwd|unlock|list [NAME] [--config F] [--db URL]`
// (argv after "console-user", console_user.cpp), beside a running gateway or not: add and passwd
// read the password from stdin (one line). Returns the process's exit code.
int console_user_command(int argc, char** argv);

// A password of `in`'s first line (its \r dropped); throws paywasm::Error(usage) under kMinPassword.
std::string read_password(std::istream& in);
// A new random password (20 characters of an unambiguous alphabet, about 110 bits).
std::string generate_password();
// Adds the console user (the audit log says who: `actor`); false and a message on stderr if it exists.
bool add_console_user(Store& store, const std::string& name, const std::string& password, const std::string& actor);

// A login attempt's outcome: the new login's cookie token and CSRF token, or why not. `locked`
// only for the right password of a locked user; a wrong one for a locked user is `wrong`, as for
// a name that does not exist (locked_until says it was locked, for the audit log only).
struct Login {
    enum Result { ok, wrong, locked } result = wrong;
    std::string token, csrf;
    std::int64_t locked_until = 0;
};
// Checks `name` and `password`: one scrypt for every attempt (a user that does not exist, or is
// locked, costs the same time as a wrong password); on success a fresh login, never one the
// client brought (session fixation).
Login log_in(Store& store, const std::string& name, const std::string& password, std::int64_t now);
// The login of a cookie token, if live (its idle clock restarts).
std::optional<Store::ConsoleSession> logged_in(Store& store, const std::string& token, std::int64_t now);
void log_out(Store& store, const std::string& token);

}  // namespace merchant
