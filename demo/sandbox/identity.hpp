// identity.hpp — who the sandbox merchant and shopper are: ids, tokens and keys, generated on the
// first start and kept in the data directory (keys as PEM files, the rest in the settings table).
#pragma once

#include <string>

#include "paywasm/crypto.hpp"
#include "store.hpp"

namespace sandbox {

struct Identity {
    std::string merchant_id;     // UUID; the clientId of every payload
    std::string merchant_token;  // Bearer for QR generate
    std::string shopper_id;      // UUID of the one sandbox shopper
    std::string shopper_token;   // Bearer for payments and /users/me
    std::string merchant_auth;   // one valid merchantAuth; any fresh encryption of {"merchantId":..} works
    paywasm::PrivateKey merchant_key;  // decrypts `data` and merchantAuth
    paywasm::PrivateKey webhook_key;   // signs webhooks
    std::string merchant_public_pem;
    std::string webhook_public_pem;

    // Loads the identity from `data_dir` and `db`, creating whatever is missing.
    static Identity load_or_create(Db& db, const std::string& data_dir);
};

}  // namespace sandbox
