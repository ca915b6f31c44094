#include "sandbox.hpp"

#include <algorithm>
#include <vector>

#include "decode.hpp"

#include "paywasm/error.hpp"
#include "http.hpp"

namespace sandbox {

namespace {

std::string default_profile(const std::string& shopper_id) {
    JsonWriter w;
    w.begin_object()
        .str("id", shopper_id)
        .str("email", "ada.shopper@example.com")
        .str("username", "ada")
        .str("fullname", "Ada Lovelace")
        .key("avatar").null();
    w.key("profile")
        .begin_object()
        .str("zip", "94110")
        .str("city", "San Francisco")
        .str("phone", "4155550134")
        .str("state", "CA")
        .str("address", "500 Harrison St")
        .str("country", "US")
        .str("lastName", "Lovelace")
        .str("firstName", "Ada")
        .str("dateOfBirth", "12-10-1990")
        .num("phoneCountry", 1)
        .end_object();
    w.num("status", 1).num("type", 2).num("kybCryptoStatus", 1).num("kybBankStatus", 1);
    w.key("shopData").begin_object().end_object();
    w.key("withdrawalAddresses").begin_array().end_array();
    w.flag("ssoStatus", false).flag("enableCancelSubscription", true);
    w.key("verification").null();
    w.key("graphSettings").begin_array().end_array();
    w.flag("is2faEnabled", false).flag("enableBankPayment", true);
    w.key("verificationStatus").null();
    w.end_object();
    return w.take();
}

// The last member named `name` of `obj` is `m` (JSON.parse keeps the last of repeated members).
bool is_last(JsonValue obj, JsonValue m) { return obj.member(m.key()).index() == m.index(); }

// Writes `current` (an object) with `patch`'s members merged in: same-named members replaced in
// place, new ones appended in the patch's order; members named in `skip` are left out of the patch;
// `nested` names one member merged one level deeper the same way when both sides are objects.
void write_merged(JsonWriter& w, JsonValue current, JsonValue patch, const char* nested,
                  const std::vector<std::string_view>& skip) {
    auto skipped = [&](std::string_view k) { return std::find(skip.begin(), skip.end(), k) != skip.end(); };
    w.begin_object();
    for (JsonValue m : current.children()) {
        if (!is_last(current, m)) continue;
        JsonValue p = skipped(m.key()) ? JsonValue() : patch.member(m.key());
        w.key(m.key());
        if (!p.valid()) {
            w.value(m);
        } else if (nested && m.key() == nested && m.is_object() && p.is_object()) {
            write_merged(w, m, p, nullptr, {});
        } else {
            w.value(p);
        }
    }
    for (JsonValue p : patch.children()) {
        if (!is_last(patch, p) || skipped(p.key()) || current.member(p.key()).valid()) continue;
        w.key(p.key()).value(p);
    }
    w.end_object();
}

}  // namespace

// ---- Shopper -----------------------------------------------------------------------------------------

std::string Shopper::profile(const std::string& shopper_id) {
    if (auto text = db_.setting("shopper_profile")) return *text;
    return default_profile(shopper_id);
}

std::string Shopper::update(JsonValue patch, const std::string& shopper_id) {
    return db_.transaction([&] { return update_now(patch, shopper_id); });  // read, merge and write as one
}

std::string Shopper::update_now(JsonValue patch, const std::string& shopper_id) {
    const JsonValue reset = patch.member("reset");
    const bool reset_first = has_kind(reset, paywasm::JsonKind::boolean) && reset.boolean();
    const std::string current_text = reset_first ? default_profile(shopper_id) : profile(shopper_id);
    const JsonDocument current = paywasm::parse_json(current_text);
    for (JsonValue m : patch.children()) {
        const std::string_view key = m.key();
        if (key == "id") throw HttpError(400, "validation", "id: the shopper id cannot be changed", "id");
        if (key == "reset" && !m.is_bool()) throw HttpError(400, "validation", "reset: must be true or false", "reset");
    }
    if (JsonValue v = patch.member("exchangeError"); v.valid()) {
        const long long code = v.is_number() ? v.integer().value_or(0) : 0;
        if (v.is_null()) {
            db_.set_setting("shopper_exchange_error", "");
        } else if (code >= 418 && code <= 422) {
            db_.set_setting("shopper_exchange_error", std::to_string(code));
        } else {
            throw HttpError(400, "validation", "exchangeError: must be 418..422 or null", "exchangeError");
        }
    }
    JsonWriter w;
    write_merged(w, current.root(), patch, "profile", {"reset", "exchangeError"});
    db_.set_setting("shopper_profile", w.text());
    return state(shopper_id);
}

std::string Shopper::state(const std::string& shopper_id) {
    JsonWriter w;
    w.begin_object().raw("profile", profile(shopper_id)).key("exchangeError");
    auto err = exchange_error();
    if (err) w.number(*err);
    else w.null();
    w.end_object();
    return w.take();
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

}  // namespace sandbox
