// config.hpp — the sandbox's command-line options (see docs/sandbox.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sandbox {

struct Config {
    std::string host = "127.0.0.1";
    int port = 8080;             // 0: any free port (printed on the first stdout line)
    std::string data_dir;        // empty: a temporary directory, removed at exit
    double speed = 1.0;          // every sandbox delay is divided by this
    double bank_day_seconds = 0; // one working day of the bank clock; 0: 86400 / speed
    std::string padding;         // oaep-sha1 | oaep-sha256 | pkcs1v15 (| any, see below); empty: keep the stored one
    std::vector<std::string> exchanges = {"coinbase", "okcoin", "kraken", "gemini", "binanceus"};
    std::string site_dir;        // the demo page
    std::string dist_dir;        // the widget's dist/
    std::vector<std::string> connect_src;  // --connect-src: origins the pages may also connect to
    std::size_t max_body = 256 * 1024;  // request bodies over this are refused with 413 unread
    bool quiet = false;          // no access log
    // --strict: the subscription routes also need the merchant's bearer token (merchantAuth alone is
    // made from public data: see SECURITY.md).
    bool strict = false;
    // --control-token: when set, the control API (/__sandbox/*) needs `Authorization: Bearer <token>`.
    std::string control_token;
    // --allow-webhook-host (repeatable): webhook URL hosts allowed besides loopback.
    std::vector<std::string> webhook_hosts;
    // --insecure-any-padding: allows the padding setting "any" (tries OAEP-SHA-1, OAEP-SHA-256,
    // then PKCS#1 v1.5). Off by default: it keeps PKCS#1 v1.5 decryption on for every client.
    bool insecure_any_padding = false;

    // Real durations (speed 1) scaled by `speed`, in milliseconds.
    std::int64_t scaled_ms(double seconds_at_speed_1) const {
        return static_cast<std::int64_t>(seconds_at_speed_1 * 1000.0 / speed);
    }
    std::int64_t bank_day_ms() const {
        return bank_day_seconds > 0 ? static_cast<std::int64_t>(bank_day_seconds * 1000.0) : scaled_ms(86400);
    }
};

}  // namespace sandbox
