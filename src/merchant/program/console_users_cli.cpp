// `paywasm-merchant console-user ...` (commands.hpp; console_auth.hpp): the console's accounts from the command
// line, on the gateway's database, while the gateway runs or not. Every change is in the audit log
// as the actor "cli".
// Beside a running gateway: on SQLite the command opens the file beside it (SqlShare::beside_server:
// no process lock; WAL and the busy timeout let it take turns with the gateway's writes) and
// migrates nothing (Store::BesideGateway); on PostgreSQL it is one more client. The gateway reads
// users, logins and wrong passwords from the database at each request, so a change is in effect at
// once: a removed user's or a changed password's logins end, an unlocked user can log in.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <vector>

#include "gateway/console_auth.hpp"
#include "gateway/mail_settings.hpp"
#include "rules/notify.hpp"
#include "options/options.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "server/sql.hpp"
#include "server/util.hpp"
#include "program/commands.hpp"
#include "program/settings.hpp"
#include "store/store.hpp"

namespace merchant {

using paywasm::server::iso8601;
using paywasm::server::now_ms;

std::string read_password(std::istream& in) {
    std::string password;
    std::getline(in, password);
    if (!password.empty() && password.back() == '\r') password.pop_back();
    if (password.size() < kMinPassword) {
        throw paywasm::Error(paywasm::ErrorCode::usage, "the password must be at least " + std::to_string(kMinPassword) + " characters");
    }
    return password;
}

std::string generate_password() {
    static const char alphabet[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";  // 56: no 0/O, 1/l/I
    std::string out;
    while (out.size() < 20) {
        unsigned char b = 0;
        paywasm::random_bytes(&b, 1);
        if (b < 224) out += alphabet[b % 56];  // 224 = 4 * 56: no bias
    }
    return out;
}

bool add_console_user(ConsoleStore& store, const std::string& name, const std::string& password, const std::string& actor) {
    if (!store.add_console_user(name, hash_password(password), now_ms())) {
        std::fprintf(stderr, "paywasm-merchant: console user %s exists (passwd changes its password)\n", name.c_str());
        return false;
    }
    store.audit(actor, "user_added", name, std::nullopt, "", now_ms());
    return true;
}

namespace {

const char* kUsage =
    "usage: paywasm-merchant console-user add NAME      (the password on stdin, one line, at least 12 characters)\n"
    "       paywasm-merchant console-user passwd NAME   (the new password on stdin; its logins end)\n"
    "       paywasm-merchant console-user unlock NAME   (forgets its wrong passwords: it can log in again now)\n"
    "       paywasm-merchant console-user sessions NAME (its live logins)\n"
    "       paywasm-merchant console-user remove NAME   (its logins end too)\n"
    "       paywasm-merchant console-user notify NAME --email ADDRESS [--on KINDS]  (mail it: KINDS of\n"
    "                                                   paid, partial, attention, refused; default all)\n"
    "       paywasm-merchant console-user notify NAME --off\n"
    "       paywasm-merchant console-user list\n"
    "options: --db URL (else PAYWASM_DB, else the configuration file's db, else sqlite:paywasm-merchant.db)\n"
    "         --config FILE (default /etc/paywasm/merchant.conf when it exists)\n"
    "each works while the gateway runs, on SQLite too\n";

int no_such_user(const std::string& name) {
    std::fprintf(stderr, "paywasm-merchant: no console user %s\n", name.c_str());
    return 1;
}

// The database: --db, PAYWASM_DB, the configuration file's `db`, the gateway's default.
std::string database_of(const paywasm::options::Args& args) {
    if (args.has("db")) return args.get("db");
    if (const char* db = std::getenv("PAYWASM_DB"); db && *db) return db;
    std::string path = args.get("config");
    struct stat st {};
    if (path.empty() && ::stat(kDefaultConfigPath, &st) == 0) path = kDefaultConfigPath;
    if (!path.empty()) {
        for (const auto& s : read_config_file(path)) {
            if (s.name == "db") return s.value;
        }
    }
    return Config{}.db;
}

// The store: alone on the database (no gateway holds the SQLite file), opened as the gateway opens
// it (migrated); beside a running gateway, shared and at the gateway's schema.
std::unique_ptr<Store> open_store(const std::string& db) {
    try {
        return std::make_unique<Store>(paywasm::server::open_sql(db));
    } catch (const paywasm::server::StorageInUse&) {
        return std::make_unique<Store>(paywasm::server::open_sql(db, paywasm::server::SqlShare::beside_server), Store::BesideGateway{});
    }
}

// console-user notify NAME (--email ADDRESS [--on KINDS] | --off): the user's mail (notify.hpp).
int notify_command(Store& store, const paywasm::options::Args& args, const std::string& name, std::int64_t now) {
    if (!store.console.console_user(name)) return no_such_user(name);
    if (args.has("off")) {
        const bool had = stop_mail(store, name, "cli", "", now);
        std::printf(had ? "%s gets no mail now\n" : "%s got no mail\n", name.c_str());
        return 0;
    }
    const std::string email = args.get("email");
    const std::string on = args.has("on") ? args.get("on") : "paid,partial,attention,refused";
    if (const std::string why = mail_setting_error(email, on); !why.empty()) {
        throw paywasm::Error(paywasm::ErrorCode::usage, "notify: " + why + " (--email ADDRESS [--on KINDS], or --off)");
    }
    const MailSetting s = set_mail_setting(store, name, email, on, "cli", "", now);
    std::string csv;
    for (const auto& k : s.kinds) csv += (csv.empty() ? "" : ",") + k;
    std::printf("%s is mailed at %s: %s (when the gateway runs with --smtp-url)\n", name.c_str(), email.c_str(), csv.c_str());
    return 0;
}

}  // namespace

int console_user_command(int argc, char** argv) {
    try {
        const paywasm::options::Args args(std::vector<std::string>(argv, argv + argc), {{"db", "config", "email", "on"}, {"off"}, true});
        const auto& words = args.positional();
        const std::vector<std::string> named_verbs = {"add", "remove", "passwd", "unlock", "sessions", "notify"};
        const bool named = words.size() == 2 && std::find(named_verbs.begin(), named_verbs.end(), words[0]) != named_verbs.end();
        if (args.has("help") || (!named && !(words.size() == 1 && words[0] == "list"))) {
            std::fputs(kUsage, args.has("help") ? stdout : stderr);
            return args.has("help") ? 0 : 2;
        }
        if (named && !valid_user_name(words[1])) {
            std::fprintf(stderr, "paywasm-merchant: a user name is 1 to 64 letters, digits and . _ - @\n");
            return 2;
        }
        const std::string& verb = words[0];
        // The password first: nothing is opened for a refused one.
        const std::string password = verb == "add" || verb == "passwd" ? read_password(std::cin) : "";
        const std::unique_ptr<Store> opened = open_store(database_of(args));
        Store& store = *opened;
        const std::int64_t now = now_ms();
        if (verb == "list") {
            std::map<std::string, NotifyPref> mail;
            for (auto& p : store.mail.notify_prefs()) mail[p.user] = p;
            for (const auto& u : store.console.console_users()) {
                const auto m = mail.find(u.name);
                const std::int64_t until = store.console.login_locked_until("user:" + u.name, kFailureWindowMs, kMaxFailures, now);
                std::printf("%s\tcreated %s%s%s\n", u.name.c_str(), iso8601(u.created_at).c_str(),
                            until > now ? ("\tlocked until " + iso8601(until)).c_str() : "",
                            u.failed_logins ? ("\t" + std::to_string(u.failed_logins) + " wrong passwords since the last login").c_str()
                                            : "");
                if (m != mail.end()) std::printf("\tmailed at %s: %s\n", m->second.email.c_str(), m->second.kinds.c_str());
            }
            return 0;
        }
        const std::string& name = words[1];
        if (verb == "add") {
            if (!add_console_user(store.console, name, password, "cli")) return 1;
            std::printf("added %s\n", name.c_str());
            return 0;
        }
        if (verb == "remove") {
            if (!store.console.remove_console_user(name)) return no_such_user(name);
            store.console.audit("cli", "user_removed", name, std::nullopt, "", now);
            std::printf("removed %s\n", name.c_str());
            return 0;
        }
        if (verb == "unlock") {
            if (!store.console.console_user(name)) return no_such_user(name);
            const bool had = store.console.clear_login_failures("user:" + name);
            store.console.audit("cli", "user_unlocked", name, std::nullopt, "", now);
            std::printf(had ? "unlocked %s (its wrong passwords are forgotten)\n" : "%s had no wrong passwords to forget\n", name.c_str());
            return 0;
        }
        if (verb == "notify") return notify_command(store, args, name, now);
        if (verb == "sessions") {
            if (!store.console.console_user(name)) return no_such_user(name);
            for (const auto& s : store.console.console_sessions_of(name, now)) {
                std::printf("began %s\tlast seen %s\tends by %s\tfrom %s\n", iso8601(s.created_at).c_str(), iso8601(s.seen_at).c_str(),
                            iso8601(s.expires_at).c_str(), s.address.empty() ? "-" : s.address.c_str());
            }
            return 0;
        }
        if (!store.console.set_console_password(name, hash_password(password))) return no_such_user(name);
        store.console.audit("cli", "user_password_changed", name, std::nullopt, "", now);
        std::printf("changed the password of %s; its logins ended\n", name.c_str());
        return 0;
    } catch (const paywasm::Error& e) {
        std::fprintf(stderr, "paywasm-merchant: %s\n\n%s", e.what(), kUsage);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "paywasm-merchant: %s\n", e.what());
        return 1;
    }
}

}  // namespace merchant
