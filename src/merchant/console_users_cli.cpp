// `paywasm-merchant console-user ...` (console_auth.hpp): the console's accounts from the command
// line, on the gateway's database. Every change is in the audit log as the actor "cli".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <vector>

#include "console_auth.hpp"
#include "server/util.hpp"

namespace merchant {

using paywasm::server::iso8601;
using paywasm::server::now_ms;

namespace {

// One line of stdin, at least kMinPassword characters; nullopt (and why on stderr) otherwise.
std::optional<std::string> read_password() {
    std::string password;
    std::getline(std::cin, password);
    if (!password.empty() && password.back() == '\r') password.pop_back();
    if (password.size() < kMinPassword) {
        std::fprintf(stderr, "paywasm-merchant: the password must be at least %zu characters\n", kMinPassword);
        return std::nullopt;
    }
    return password;
}

int no_such_user(const std::string& name) {
    std::fprintf(stderr, "paywasm-merchant: no console user %s\n", name.c_str());
    return 1;
}

}  // namespace

int console_user_command(int argc, char** argv) {
    const char* usage =
        "usage: paywasm-merchant console-user add NAME [--db URL]      (the password on stdin, one line)\n"
        "       paywasm-merchant console-user passwd NAME [--db URL]   (the new password on stdin; its logins end)\n"
        "       paywasm-merchant console-user unlock NAME [--db URL]   (forgets its wrong passwords)\n"
        "       paywasm-merchant console-user sessions NAME [--db URL] (its live logins)\n"
        "       paywasm-merchant console-user remove NAME [--db URL]   (its logins end too)\n"
        "       paywasm-merchant console-user list [--db URL]\n"
        "--db defaults to PAYWASM_DB, else sqlite:paywasm-merchant.db (stop a gateway on the same SQLite file first)\n";
    std::vector<std::string> args(argv, argv + argc);
    std::string db = std::getenv("PAYWASM_DB") && *std::getenv("PAYWASM_DB") ? std::getenv("PAYWASM_DB") : "sqlite:paywasm-merchant.db";
    std::vector<std::string> words;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--db" && i + 1 < args.size()) db = args[++i];
        else if (args[i].rfind("--db=", 0) == 0) db = args[i].substr(5);
        else words.push_back(args[i]);
    }
    const std::vector<std::string> named_verbs = {"add", "remove", "passwd", "unlock", "sessions"};
    const bool named = words.size() == 2 && std::find(named_verbs.begin(), named_verbs.end(), words[0]) != named_verbs.end();
    if (!named && !(words.size() == 1 && words[0] == "list")) {
        std::fputs(usage, stderr);
        return 2;
    }
    if (named && !valid_user_name(words[1])) {
        std::fprintf(stderr, "paywasm-merchant: a user name is 1 to 64 letters, digits and . _ - @\n");
        return 2;
    }
    const std::string& verb = words[0];
    try {
        Store store(paywasm::server::open_sql(db));
        const std::int64_t now = now_ms();
        if (verb == "list") {
            for (const auto& u : store.console_users()) {
                const std::int64_t until = store.login_locked_until("user:" + u.name, kFailureWindowMs, kMaxFailures, now);
                std::printf("%s\tcreated %s%s%s\n", u.name.c_str(), iso8601(u.created_at).c_str(),
                            until > now ? ("\tlocked until " + iso8601(until)).c_str() : "",
                            u.failed_logins ? ("\t" + std::to_string(u.failed_logins) + " wrong passwords since the last login").c_str()
                                            : "");
            }
            return 0;
        }
        const std::string& name = words[1];
        if (verb == "remove") {
            if (!store.remove_console_user(name)) return no_such_user(name);
            store.audit("cli", "user_removed", name, std::nullopt, "", now);
            std::printf("removed %s\n", name.c_str());
            return 0;
        }
        if (verb == "unlock") {
            if (!store.console_user(name)) return no_such_user(name);
            const bool had = store.clear_login_failures("user:" + name);
            store.audit("cli", "user_unlocked", name, std::nullopt, "", now);
            std::printf(had ? "unlocked %s (its wrong passwords are forgotten)\n" : "%s had no wrong passwords to forget\n", name.c_str());
            return 0;
        }
        if (verb == "sessions") {
            if (!store.console_user(name)) return no_such_user(name);
            for (const auto& s : store.console_sessions_of(name, now)) {
                std::printf("began %s\tlast seen %s\tends by %s\tfrom %s\n", iso8601(s.created_at).c_str(), iso8601(s.seen_at).c_str(),
                            iso8601(s.expires_at).c_str(), s.address.empty() ? "-" : s.address.c_str());
            }
            return 0;
        }
        const auto password = read_password();
        if (!password) return 2;
        if (verb == "passwd") {
            if (!store.set_console_password(name, hash_password(*password))) return no_such_user(name);
            store.audit("cli", "user_password_changed", name, std::nullopt, "", now);
            std::printf("changed the password of %s; its logins ended\n", name.c_str());
            return 0;
        }
        if (!store.add_console_user(name, hash_password(*password), now)) {
            std::fprintf(stderr, "paywasm-merchant: console user %s exists (remove it first)\n", name.c_str());
            return 1;
        }
        store.audit("cli", "user_added", name, std::nullopt, "", now);
        std::printf("added %s\n", name.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "paywasm-merchant: %s\n", e.what());
        return 1;
    }
}

}  // namespace merchant
