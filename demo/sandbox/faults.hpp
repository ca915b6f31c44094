// faults.hpp — simulated failures for the next requests to an /api endpoint (POST /__sandbox/faults).
//
//   {"endpoint": "exchange-pay" | "bank-pay" | "qr-generate" | "users-me" | "subscription-debit" |
//                "subscription-cancel" | "*",
//    "kind": "error-418".."error-422" | "latency" | "500" | "malformed-json" | "drop",
//    "count": 1, "ms": 2000, "form": "body" | "status" | "body-200"}
// Kept in memory only (a restart clears them). Transport kinds (latency, 500, malformed-json, drop)
// are taken when the request arrives; exchange errors after the request passed authentication and
// validation, where the real service would ask the exchange.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "http.hpp"

namespace sandbox {

struct Fault {
    std::int64_t id = 0;
    std::string endpoint;
    std::string kind;
    int remaining = 1;
    int ms = 0;
    std::string form = "body";
};

class Faults {
public:
    // Queues the fault `spec` describes; returns it as JSON text. Throws HttpError(400) naming the
    // bad member.
    std::string add(JsonValue spec);
    // The first queued fault for `endpoint` of a transport kind (or, with exchange_error, of an
    // error-41x kind); consumes one of its count.
    std::optional<Fault> take(const std::string& endpoint, bool exchange_error);
    std::string list();  // JSON array text
    void clear();

    static void write(JsonWriter& w, const Fault&);

private:
    std::mutex mutex_;
    std::vector<Fault> faults_;
    std::int64_t next_id_ = 1;
};

// Writes the simulated exchange error `code` (418..422) in the given form:
//   body     HTTP 400, body {"code":<code>,"message":"<documented message>"}   (the default)
//   status   HTTP <code>, same body. Beware 421: it is "Misdirected Request", which HTTP clients
//            (Node's fetch, HTTP/2 browsers) answer by retrying on a new connection.
//   body-200 HTTP 200, same body
void send_exchange_error(Response& res, int code, const std::string& form, const std::string& exchange);

}  // namespace sandbox
