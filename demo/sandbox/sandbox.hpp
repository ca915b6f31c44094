// sandbox.hpp — the sandbox service as one object: configuration, storage, identity, ledger,
// webhooks, faults and the shopper, shared by the three route groups:
//   api.cpp      /api/...        the six endpoints of the payment service
//   control.cpp  /__sandbox/...  the control API for tests and the demo page (docs/sandbox.md)
//   site.cpp     /, /dist/...    the demo page and the widget's files
// and the rest of the sandbox's files (sandbox.cpp: this object):
//   main.cpp           the command line, the listener, the shutdown
//   config.hpp         the command-line options
//   http.hpp           the shared server plumbing the routes use (src/server)
//   decode.hpp         how a client's request is read, apart from the server (fuzzed as it is)
//   store.hpp          the SQLite database and its schema
//   identity.hpp       who the merchant and the shopper are: ids, tokens, keys
//   ledger.hpp         transactions and how their statuses move
//   subscriptions.cpp  subscription debit and cancel, the control API's list
//   market.hpp         the make-believe market: coins, rates, addresses
//   webhooks.hpp       the merchant's webhook outbox
//   faults.hpp         simulated failures for the next requests
#pragma once


#include <optional>
#include <string>
#include <utility>

#include "config.hpp"
#include "faults.hpp"
#include "http.hpp"
#include "identity.hpp"
#include "ledger.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/validate.hpp"
#include "store.hpp"
#include "webhooks.hpp"

namespace sandbox {

// The one sandbox shopper: the profile /users/me returns and a sticky exchange error.
class Shopper {
public:
    explicit Shopper(Db& db) : db_(db) {}
    // The profile /users/me returns, as JSON text.
    std::string profile(const std::string& shopper_id);
    // Merges `patch` (an object) into the profile: a member replaces the one of the same name in
    // place or is appended, the nested `profile` object is merged member-wise; `exchangeError`
    // (418..422 or null) is taken out and stored; {"reset": true} restores the default first.
    // Returns {"profile": ..., "exchangeError": ...} as JSON text.
    std::string update(JsonValue patch, const std::string& shopper_id);
    // {"profile": ..., "exchangeError": ...} as JSON text.
    std::string state(const std::string& shopper_id);
    std::optional<int> exchange_error();

private:
    std::string update_now(JsonValue patch, const std::string& shopper_id);
    Db& db_;
};

struct Sandbox {
    Sandbox(const Config& config, const std::string& data_dir);

    Config config;
    std::string data_dir;
    Db db;
    Identity identity;
    Webhooks webhooks;
    Ledger ledger;
    Faults faults;
    Shopper shopper;
    paywasm::Limits limits;
    int port = 0;  // the bound port

    // oaep-sha1 | oaep-sha256 | pkcs1v15 | any (stored; --padding sets it at startup).
    std::string padding();
    void set_padding(const std::string& name);
    // Decrypts `base64` with the merchant key under the configured padding ("any" tries all three).
    // Returns the plaintext and the padding that worked; throws HttpError(400) naming `field`.
    std::pair<std::string, std::string> decrypt(const std::string& base64, const std::string& field);
};

void register_api(Router& server, Sandbox& sandbox);
void register_control(Router& server, Sandbox& sandbox);
void register_site(Router& server, Sandbox& sandbox);

}  // namespace sandbox
