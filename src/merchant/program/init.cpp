// `paywasm-merchant init` (commands.hpp).
#include "program/commands.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "client/transport.hpp"
#include "client/url.hpp"
#include "gateway/console_auth.hpp"
#include "options/options.hpp"
#include "paywasm/error.hpp"
#include "paywasm/json.hpp"
#include "server/sql.hpp"
#include "server/util.hpp"
#include "program/settings.hpp"
#include "store/store.hpp"

namespace merchant {

namespace {

const char* kUsage =
    "usage: paywasm-merchant init [--config FILE] [--force] [options]   (on a terminal it asks for what is missing)\n"
    "  --config FILE              the configuration file to write (default /etc/paywasm/merchant.conf); the keys\n"
    "                             and secrets/ go in its directory\n"
    "  --service-url URL          the payment service's base URL\n"
    "  --merchant-id ID           your merchant id at the service\n"
    "  --merchant-public-key F    the merchant public key (PEM) the service gave you: copied beside the file\n"
    "  --webhook-public-key F     the service's webhook signing key (PEM): copied beside the file\n"
    "  --merchant-token-file F    a file holding the service's merchant access token (else PAYWASM_MERCHANT_TOKEN,\n"
    "                             else asked on the terminal): copied into secrets/merchant-token (0600)\n"
    "  --sandbox URL              try it on a paywasm-sandbox (http://127.0.0.1:8080): the four values above come\n"
    "                             from its control API, and its webhook URL is set to this gateway's\n"
    "  --shop-name TEXT           the shop's name on the hosted pages\n"
    "  --shop-origin ORIGIN       the shop's web site (https://shop.example), or\n"
    "  --no-web-site              a shop without one: hosted pages and payment links, no shop origin\n"
    "  --db URL                   default sqlite:/var/lib/paywasm/merchant.db\n"
    "  --listen HOST:PORT         default 127.0.0.1:8090\n"
    "  --console-listen HOST:PORT default 127.0.0.1:8091\n"
    "  --public-url URL           the gateway's origin as shoppers reach it (default: the listening address)\n"
    "  --app-callback URL         where your app receives the signed events (default: none)\n"
    "  --widget-dir DIR           the widget's files (default /usr/share/paywasm/widget, the package's)\n"
    "  --user NAME                the gateway's system user, owner of the secrets and the database (default\n"
    "                             paywasm when it exists and init runs as root; else nobody is changed)\n"
    "  --console-user NAME        the first console user (default admin)\n"
    "  --password-stdin           its password from stdin (one line); else one is generated and shown once\n"
    "  --force                    replace a configuration file that holds settings (and its secrets)\n";

[[noreturn]] void fail(const std::string& message) { throw paywasm::Error(paywasm::ErrorCode::usage, message); }

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string directory_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string absolute(const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd)) fail("cannot read the working directory");
    return std::string(cwd) + "/" + path;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The service's user: its uid and gid, or none (-1: nothing is chowned).
struct Owner {
    uid_t uid = static_cast<uid_t>(-1);
    gid_t gid = static_cast<gid_t>(-1);
};

// Writes `content` to `path` (replaced whole: written beside it, then renamed), `mode`, `owner`.
void write_file(const std::string& path, const std::string& content, mode_t mode, const Owner& owner) {
    const std::string temp = path + ".init-tmp";
    ::unlink(temp.c_str());
    const mode_t old = ::umask(077);
    std::FILE* f = std::fopen(temp.c_str(), "wx");
    ::umask(old);
    if (!f) fail("cannot write " + temp + ": " + std::strerror(errno));
    const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
    if (std::fclose(f) != 0 || !written) fail("cannot write " + temp);
    if (::chmod(temp.c_str(), mode) != 0) fail("cannot chmod " + temp + ": " + std::strerror(errno));
    if (owner.uid != static_cast<uid_t>(-1) && ::chown(temp.c_str(), owner.uid, owner.gid) != 0) {
        fail("cannot chown " + temp + ": " + std::strerror(errno));
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) fail("cannot write " + path + ": " + std::strerror(errno));
}

void make_directory(const std::string& path, mode_t mode, const Owner& owner) {
    if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) fail("cannot create " + path + ": " + std::strerror(errno));
    if (::chmod(path.c_str(), mode) != 0) fail("cannot chmod " + path + ": " + std::strerror(errno));
    if (owner.uid != static_cast<uid_t>(-1) && ::chown(path.c_str(), owner.uid, owner.gid) != 0) {
        fail("cannot chown " + path + ": " + std::strerror(errno));
    }
}

// A line typed on the terminal after `question` (echo off for a secret); empty at end of input.
std::string ask(const std::string& question, bool secret = false) {
    std::fprintf(stderr, "%s: ", question.c_str());
    std::fflush(stderr);
    termios before {};
    const bool quiet = secret && ::tcgetattr(STDIN_FILENO, &before) == 0;
    if (quiet) {
        termios off = before;
        off.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        ::tcsetattr(STDIN_FILENO, TCSANOW, &off);
    }
    std::string line;
    std::getline(std::cin, line);
    if (quiet) {
        ::tcsetattr(STDIN_FILENO, TCSANOW, &before);
        std::fputc('\n', stderr);
    }
    return line;
}

// What init was given: each flag, or on a terminal the answer to its question.
class Answers {
public:
    Answers(const paywasm::options::Args& args, bool terminal) : args_(args), terminal_(terminal) {}
    std::string get(const std::string& option, const std::string& question, bool secret = false) const {
        if (args_.has(option)) return args_.get(option);
        if (!terminal_) fail("--" + option + " is required (or run init on a terminal: it asks)");
        const std::string answer = ask(question, secret);
        if (answer.empty()) fail(question + ": no answer");
        return answer;
    }
    bool terminal() const { return terminal_; }

private:
    const paywasm::options::Args& args_;
    bool terminal_;
};

// One `name = value` line; quoted when spaces at an end would be trimmed.
std::string line(const std::string& name, const std::string& value) {
    const bool quote = !value.empty() && (value.front() == ' ' || value.back() == ' ' || value.front() == '"');
    return name + " = " + (quote ? "\"" + value + "\"" : value) + "\n";
}

// What the service's merchant portal would show, read from a paywasm-sandbox's control API
// (GET /__sandbox/merchant; docs/sandbox.md).
struct Portal {
    std::string service_url, merchant_id, merchant_key, webhook_key, token;
};

Portal sandbox_portal(const std::string& sandbox) {
    paywasm::client::split_base_url(sandbox, "sandbox");
    const auto answer = paywasm::client::send({"GET", "/__sandbox/merchant", {{"Accept", "application/json"}}, ""}, sandbox, {10});
    if (answer.status != 200) fail("--sandbox " + sandbox + ": GET /__sandbox/merchant answered " + std::to_string(answer.status));
    const auto doc = paywasm::parse_json(answer.body, paywasm::ErrorCode::bad_response);
    const auto text = [&](const char* name) {
        const auto v = doc.root().member(name);
        if (!v.is_string() || v.text().empty()) fail("--sandbox " + sandbox + ": its merchant has no " + name);
        return std::string(v.text());
    };
    std::string base = sandbox;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return {base + "/api", text("merchantId"), text("publicKey"), text("webhookPublicKey"), text("merchantAccessToken")};
}

// Points the sandbox's webhooks at this gateway (PUT /__sandbox/webhook).
void point_sandbox_webhook(const std::string& sandbox, const std::string& url) {
    paywasm::JsonWriter w;
    w.begin_object().str("url", url).end_object();
    const auto answer = paywasm::client::send({"PUT", "/__sandbox/webhook", {{"Content-Type", "application/json"}}, w.take()}, sandbox, {10});
    if (answer.status != 200) fail("--sandbox: setting its webhook URL to " + url + " answered " + std::to_string(answer.status) + ": " + answer.body);
}

// Chowns the SQLite file and its companions to the service's user (init ran as root).
void give_database(const std::string& db, const Owner& owner) {
    if (owner.uid == static_cast<uid_t>(-1) || db.rfind("sqlite:", 0) != 0) return;
    const std::string path = db.substr(7);
    for (const char* suffix : {"", "-wal", "-shm", ".lock"}) {
        const std::string p = path + suffix;
        if (exists(p) && ::chown(p.c_str(), owner.uid, owner.gid) != 0) fail("cannot chown " + p + ": " + std::strerror(errno));
    }
}

int run(const std::vector<std::string>& argv) {
    const paywasm::options::Args args(
        argv, {{"config", "service-url", "merchant-id", "merchant-public-key", "webhook-public-key", "merchant-token-file",
                "shop-name", "shop-origin", "db", "listen", "console-listen", "public-url", "app-callback", "widget-dir", "user",
                "console-user", "sandbox"},
               {"no-web-site", "password-stdin", "force"}});
    if (args.has("help")) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    const std::string config = absolute(args.get("config", kDefaultConfigPath));
    const std::string dir = directory_of(config);
    if (exists(config) && !read_config_file(config).empty() && !args.has("force")) {
        std::fprintf(stderr, "paywasm-merchant: %s already holds a configuration: nothing changed (--force replaces it and its secrets)\n",
                     config.c_str());
        return 1;
    }
    Owner owner;
    const std::string user = args.get("user", ::geteuid() == 0 && ::getpwnam("paywasm") ? "paywasm" : "");
    if (!user.empty()) {
        const passwd* pw = ::getpwnam(user.c_str());
        if (!pw) fail("--user " + user + ": no such user");
        owner = {pw->pw_uid, pw->pw_gid};
    }
    const Answers answers(args, !args.has("password-stdin") && ::isatty(STDIN_FILENO));
    const std::string sandbox = args.get("sandbox");
    Portal portal;
    if (!sandbox.empty()) {
        for (const char* given : {"service-url", "merchant-id", "merchant-public-key", "webhook-public-key", "merchant-token-file"}) {
            if (args.has(given)) fail(std::string("--sandbox gives --") + given + " itself: give one or the other");
        }
        portal = sandbox_portal(sandbox);
    }
    const std::string service_url = sandbox.empty() ? answers.get("service-url", "The payment service's base URL (https://.../api)") : portal.service_url;
    const std::string merchant_id = sandbox.empty() ? answers.get("merchant-id", "Your merchant id") : portal.merchant_id;
    const std::string merchant_key =
        sandbox.empty() ? slurp(answers.get("merchant-public-key", "The merchant public key's file (PEM)")) : portal.merchant_key;
    const std::string webhook_key =
        sandbox.empty() ? slurp(answers.get("webhook-public-key", "The service's webhook public key's file (PEM)")) : portal.webhook_key;
    std::string token = portal.token;
    if (sandbox.empty()) {
        if (args.has("merchant-token-file")) token = slurp(args.get("merchant-token-file"));
        else if (const char* t = std::getenv("PAYWASM_MERCHANT_TOKEN"); t && *t) token = t;
        else token = answers.get("merchant-token-file", "The service's merchant access token (not shown)", true);
    }
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    if (token.empty() || token.find('\n') != std::string::npos) fail("the merchant access token is one line, not empty");
    const std::string shop_name = answers.get("shop-name", "The shop's name (shown on the payment pages)");
    std::string shop_origin;
    if (args.has("shop-origin") && args.has("no-web-site")) fail("--shop-origin and --no-web-site exclude each other");
    if (args.has("shop-origin")) shop_origin = args.get("shop-origin");
    else if (!args.has("no-web-site")) {
        if (!answers.terminal()) fail("--shop-origin ORIGIN or --no-web-site is required (or run init on a terminal: it asks)");
        const std::string site = ask("Does the shop have a web site? (y/N)");
        if (site == "y" || site == "Y" || site == "yes") shop_origin = ask("Its origin (https://shop.example)");
    }
    const std::string widget_dir = args.get("widget-dir", exists("/usr/share/paywasm/widget") ? "/usr/share/paywasm/widget" : "");
    if (shop_origin.empty() && widget_dir.empty()) {
        fail("a shop without a web site takes payments on the hosted pages: --widget-dir (the package installs /usr/share/paywasm/widget)");
    }
    const std::string db = args.get("db", "sqlite:/var/lib/paywasm/merchant.db");
    const std::string listen = args.get("listen", "127.0.0.1:8090");
    const std::string console_listen = args.get("console-listen", "127.0.0.1:8091");
    const std::string console_user = args.get("console-user", "admin");
    if (!valid_user_name(console_user)) fail("--console-user: 1 to 64 letters, digits and . _ - @");
    const std::string password = args.has("password-stdin") ? read_password(std::cin) : generate_password();

    // The files, each whole; the configuration last (what the gateway and a second init read).
    make_directory(dir, 0755, Owner{});
    const std::string secrets = dir + "/secrets";
    make_directory(secrets, 0700, owner);
    const std::string merchant_pem = dir + "/merchant-public.pem", webhook_pem = dir + "/service-webhook-public.pem";
    write_file(merchant_pem, merchant_key, 0644, Owner{});
    write_file(webhook_pem, webhook_key, 0644, Owner{});
    write_file(secrets + "/merchant-token", token + "\n", 0600, owner);
    for (const char* name : {"app-secret", "event-secret", "metrics-token"}) {
        write_file(secrets + "/" + name, paywasm::server::random_hex(32) + "\n", 0600, owner);
    }
    std::string text = "# paywasm-merchant's configuration, written by `paywasm-merchant init` " + paywasm::server::iso8601(paywasm::server::now_ms()) +
                       ".\n# Keys: the long options of `paywasm-merchant --help`; check it with `paywasm-merchant config check`.\n";
    text += line("service-url", service_url) + line("merchant-id", merchant_id) + line("merchant-public-key", merchant_pem) +
            line("webhook-public-key", webhook_pem) + line("merchant-token-file", secrets + "/merchant-token") +
            line("app-secret-file", secrets + "/app-secret") + line("event-secret-file", secrets + "/event-secret") +
            line("metrics-token-file", secrets + "/metrics-token") + line("db", db) + line("listen", listen) +
            line("console-listen", console_listen) + line("shop-name", shop_name);
    text += shop_origin.empty() ? "# no shop-origin: a shop without a web site (hosted pages and payment links)\n" : line("shop-origin", shop_origin);
    if (!widget_dir.empty()) text += line("widget-dir", widget_dir);
    if (args.has("public-url")) text += line("public-url", args.get("public-url"));
    if (args.has("app-callback")) text += line("app-callback", args.get("app-callback"));
    write_file(config, text, 0644, Owner{});

    // Checked as the gateway reads it: a bad answer stops here, not at the service's start.
    read_settings({"--config", config}, "");
    {
        Store store(paywasm::server::open_sql(db));
        if (!add_console_user(store.console, console_user, password, "init")) {
            if (!store.console.set_console_password(console_user, hash_password(password))) return 1;
        }
    }
    give_database(db, owner);
    // The webhook URL as the service reaches the gateway: --public-url, else the listening address.
    std::string reach = "http://" + listen;
    if (reach.rfind("http://0.0.0.0:", 0) == 0) reach = "http://127.0.0.1:" + reach.substr(15);
    const std::string webhook_url = args.get("public-url", reach) + "/v1/webhooks";
    if (!sandbox.empty()) point_sandbox_webhook(sandbox, webhook_url);
    const std::string console_url = "http://" + console_listen + "/";
    std::printf("paywasm-merchant: wrote %s (check it: paywasm-merchant config check --config %s)\n", config.c_str(), config.c_str());
    std::printf("secrets (0600%s): %s/{merchant-token,app-secret,event-secret,metrics-token}; your app's bearer is app-secret\n",
                user.empty() ? "" : (", " + user).c_str(), secrets.c_str());
    std::printf("database: %s (migrated)\n", paywasm::client::redact_url(db).c_str());
    std::printf("console: %s user %s", console_url.c_str(), console_user.c_str());
    if (args.has("password-stdin")) std::printf(" (the password you gave)\n");
    else std::printf(" password %s (shown once: keep it; change it with console-user passwd)\n", password.c_str());
    if (sandbox.empty()) {
        std::printf("next: start the gateway (systemctl enable --now paywasm-merchant), then set the service's webhook URL to %s\n",
                    webhook_url.c_str());
    } else {
        std::printf("the sandbox %s sends its webhooks to %s\nnext: start the gateway (systemctl enable --now paywasm-merchant)\n",
                    sandbox.c_str(), webhook_url.c_str());
    }
    return 0;
}

}  // namespace

int init_command(const std::vector<std::string>& args) {
    try {
        return run(args);
    } catch (const paywasm::Error& e) {
        std::fprintf(stderr, "paywasm-merchant init: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "paywasm-merchant init: %s\n", e.what());
        return 1;
    }
}

}  // namespace merchant
