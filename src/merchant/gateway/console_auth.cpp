// The console's accounts and logins (console_auth.hpp).
#include "gateway/console_auth.hpp"

#include <atomic>
#include <cstdlib>
#include <vector>

#include <cryptopp/scrypt.h>
#include <cryptopp/secblock.h>

#include "paywasm/crypto.hpp"
#include "server/client_address.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {

constexpr std::uint64_t kN = 32768;
constexpr unsigned kR = 8, kP = 1;
constexpr std::size_t kSaltBytes = 16, kKeyBytes = 32;

std::string to_hex(const unsigned char* p, std::size_t n) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += hex[p[i] >> 4];
        out += hex[p[i] & 15];
    }
    return out;
}

std::string scrypt_hex(const std::string& password, const std::string& salt, std::uint64_t n, unsigned r, unsigned p) {
    CryptoPP::SecByteBlock key(kKeyBytes);
    CryptoPP::Scrypt scrypt;
    scrypt.DeriveKey(key, key.size(), reinterpret_cast<const CryptoPP::byte*>(password.data()), password.size(),
                     reinterpret_cast<const CryptoPP::byte*>(salt.data()), salt.size(), n, r, p);
    return to_hex(key, key.size());
}

// A hash no password matches, for a user that does not exist: the same work as a real check.
const std::string& decoy_hash() {
    static const std::string hash = hash_password("decoy password that no one has");
    return hash;
}

std::string token_hash(const std::string& token) { return paywasm::sha256_hex(token); }

}  // namespace

std::string hash_password(const std::string& password) {
    unsigned char salt[kSaltBytes];
    paywasm::random_bytes(salt, sizeof salt);
    const std::string salt_hex = to_hex(salt, sizeof salt);
    return "scrypt$" + std::to_string(kN) + "$" + std::to_string(kR) + "$" + std::to_string(kP) + "$" + salt_hex + "$" +
           scrypt_hex(password, salt_hex, kN, kR, kP);
}

namespace {
std::atomic<std::uint64_t> checks{0};
}  // namespace

std::uint64_t password_checks() { return checks.load(); }

bool verify_password(const std::string& password, const std::string& stored) {
    ++checks;
    // scrypt$N$r$p$salt$key, parameters as stored (a later release may raise them for new users).
    std::vector<std::string> parts;
    std::size_t at = 0;
    for (;;) {
        const auto bar = stored.find('$', at);
        parts.push_back(stored.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
        if (bar == std::string::npos) break;
        at = bar + 1;
    }
    if (parts.size() != 6 || parts[0] != "scrypt") return false;
    const auto number = [](const std::string& s) -> std::uint64_t {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return 0;
        return std::strtoull(s.c_str(), nullptr, 10);
    };
    const std::uint64_t n = number(parts[1]), r = number(parts[2]), p = number(parts[3]);
    if (n < 2 || n > (1u << 20) || (n & (n - 1)) || r < 1 || r > 32 || p < 1 || p > 16) return false;
    return paywasm::constant_time_equal(scrypt_hex(password, parts[4], n, static_cast<unsigned>(r), static_cast<unsigned>(p)),
                                        parts[5]);
}

bool valid_user_name(const std::string& name) {
    if (name.empty() || name.size() > 64) return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                        c == '-' || c == '@';
        if (!ok) return false;
    }
    return true;
}

Login log_in(ConsoleStore& store, const std::string& name, const std::string& password, const std::string& address, std::int64_t now) {
    Login out;
    const std::string from = "address:" + paywasm::server::client_key(address);
    if (store.login_locked_until(from, kFailureWindowMs, kMaxAddressFailures, now) > now) {
        out.result = Login::address_limited;
        return out;
    }
    const auto user = valid_user_name(name) ? store.console_user(name) : std::nullopt;
    // Every attempt costs one scrypt, whatever the name: the answer's time tells no guesser which
    // names exist or are locked.
    const bool match = verify_password(password, user ? user->password_hash : decoy_hash());
    const std::string subject = user ? "user:" + user->name : std::string();
    out.user_locked = user && store.login_locked_until(subject, kFailureWindowMs, kMaxFailures, now) > now;
    if (!user || !match || out.user_locked) {
        // One answer for all three; the address counts each (a locked user's right password too).
        store.login_failed(from, kFailureWindowMs, now);
        if (user && !out.user_locked) {
            store.login_failed(subject, kFailureWindowMs, now);
            out.locked_now = store.login_locked_until(subject, kFailureWindowMs, kMaxFailures, now) > now;
            store.console_user_failed(user->name, out.locked_now, now);
        }
        out.result = Login::wrong;
        return out;
    }
    out.failures_before = user->failed_logins;
    out.locked_at_before = user->locked_at;
    store.console_login_succeeded(user->name);
    out.result = Login::ok;
    out.token = paywasm::server::random_token("");
    out.csrf = paywasm::server::random_token("");
    store.create_console_session(token_hash(out.token), ConsoleSession{user->name, out.csrf, now, now + kLoginMaxMs, now, address},
                                 now);
    return out;
}

std::optional<ConsoleSession> logged_in(ConsoleStore& store, const std::string& token, std::int64_t now) {
    if (token.empty() || token.size() > 100) return std::nullopt;
    return store.console_session(token_hash(token), kLoginIdleMs, now);
}

void log_out(ConsoleStore& store, const std::string& token) {
    if (!token.empty()) store.end_console_session(token_hash(token));
}

}  // namespace merchant
