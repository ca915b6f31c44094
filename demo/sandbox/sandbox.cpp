#include "sandbox.hpp"

#include "decode.hpp"

#include "paywasm/error.hpp"
#include "util.hpp"

namespace sandbox {

namespace {

json default_profile(const std::string& shopper_id) {
    return json{
        {"id", shopper_id},
        {"email", "ada.shopper@example.com"},
        {"username", "ada"},
        {"fullname", "Ada Lovelace"},
        {"avatar", nullptr},
        {"profile",
         {{"zip", "94110"},
          {"city", "San Francisco"},
          {"phone", "4155550134"},
          {"state", "CA"},
          {"address", "500 Harrison St"},
          {"country", "US"},
          {"lastName", "Lovelace"},
          {"firstName", "Ada"},
          {"dateOfBirth", "12-10-1990"},
          {"phoneCountry", 1}}},
        {"status", 1},
        {"type", 2},
        {"kybCryptoStatus", 1},
        {"kybBankStatus", 1},
        {"shopData", json::object()},
        {"withdrawalAddresses", json::array()},
        {"ssoStatus", false},
        {"enableCancelSubscription", true},
        {"verification", nullptr},
        {"graphSettings", json::array()},
        {"is2faEnabled", false},
        {"enableBankPayment", true},
        {"verificationStatus", nullptr},
    };
}

}  // namespace

// ---- Shopper -----------------------------------------------------------------------------------------

json Shopper::profile(const std::string& shopper_id) {
    if (auto text = db_.setting("shopper_profile")) return json::parse(*text);
    return default_profile(shopper_id);
}

json Shopper::update(const json& patch, const std::string& shopper_id) {
    auto lk = db_.lock();
    json current = patch.value("reset", false) ? default_profile(shopper_id) : profile(shopper_id);
    for (auto it = patch.begin(); it != patch.end(); ++it) {
        const std::string& key = it.key();
        if (key == "reset") continue;
        if (key == "exchangeError") {
            const json& v = it.value();
            if (v.is_null()) {
                db_.set_setting("shopper_exchange_error", "");
            } else if (v.is_number_integer() && v.get<int>() >= 418 && v.get<int>() <= 422) {
                db_.set_setting("shopper_exchange_error", std::to_string(v.get<int>()));
            } else {
                throw HttpError(400, "validation", "exchangeError: must be 418..422 or null", "exchangeError");
            }
            continue;
        }
        if (key == "id") throw HttpError(400, "validation", "id: the shopper id cannot be changed", "id");
        if (key == "profile" && it.value().is_object() && current["profile"].is_object()) {
            for (auto p = it.value().begin(); p != it.value().end(); ++p) current["profile"][p.key()] = p.value();
        } else {
            current[key] = it.value();
        }
    }
    db_.set_setting("shopper_profile", current.dump());
    json out = current;
    auto err = exchange_error();
    return json{{"profile", out}, {"exchangeError", err ? json(*err) : json(nullptr)}};
}

std::optional<int> Shopper::exchange_error() {
    auto v = db_.setting("shopper_exchange_error");
    if (!v || v->empty()) return std::nullopt;
    return std::stoi(*v);
}

// ---- Sandbox -----------------------------------------------------------------------------------------

Sandbox::Sandbox(const Config& config_, const std::string& data_dir_)
    : config(config_),
      data_dir(data_dir_),
      db(data_dir_ + "/sandbox.db"),
      identity(Identity::load_or_create(db, data_dir_)),
      webhooks(db, config, identity),
      ledger(db, config, identity, webhooks),
      shopper(db) {
    limits.exchanges = config.exchanges;
    if (!config.padding.empty()) set_padding(config.padding);
}

std::string Sandbox::padding() {
    std::string stored = db.setting("padding").value_or("oaep-sha1");
    // "any" stored by an older run counts only with --insecure-any-padding.
    if (stored == "any" && !config.insecure_any_padding) return "oaep-sha1";
    return stored;
}

void Sandbox::set_padding(const std::string& name) {
    if (name == "any") {
        if (!config.insecure_any_padding) {
            throw HttpError(400, "validation",
                            "padding: any needs the sandbox started with --insecure-any-padding (it keeps PKCS#1 v1.5 "
                            "decryption on for every client); use oaep-sha1, oaep-sha256 or pkcs1v15",
                            "padding");
        }
    } else {
        try {
            paywasm::parse_padding(name);
        } catch (const paywasm::Error&) {
            throw HttpError(400, "validation", "padding: must be oaep-sha1, oaep-sha256 or pkcs1v15", "padding");
        }
    }
    db.set_setting("padding", name);
}

std::pair<std::string, std::string> Sandbox::decrypt(const std::string& base64, const std::string& field) {
    return decrypt_field(identity.merchant_key, padding(), base64, field);
}

httplib::Result Sandbox::call_api(const std::string& method, const std::string& path, const std::string& body,
                                  const httplib::Headers& headers) {
    std::string host = config.host == "0.0.0.0" || config.host.empty() ? "127.0.0.1"
                     : config.host == "::" ? "::1" : config.host;
    httplib::Client client(host, port);
    client.set_read_timeout(130, 0);
    if (method == "GET") return client.Get(("/api" + path).c_str(), headers);
    return client.Post(("/api" + path).c_str(), headers, body, "application/json");
}

}  // namespace sandbox
