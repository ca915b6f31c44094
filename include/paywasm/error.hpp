// paywasm/error.hpp — the one exception type of the core.
//
// Every failure the core reports is a paywasm::Error with a stable code (its string form is what the
// JS layer and the CLI show), a developer-facing message, and, where one applies, the path of the
// field at fault (`cart[2].quantity`). Internal invariants use assert; everything a caller can cause
// throws an Error.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace paywasm {

enum class ErrorCode {
    // Caused by the caller's input.
    validation,        // a request or payload breaks a rule; field() names it
    invalid_key,       // a key that cannot be parsed, is too small, or has a bad exponent
    key_mismatch,      // the key's fingerprint differs from the pinned one
    crypto,            // encryption or decryption failed (decryption failures carry one constant message)
    invalid_qr,        // QR text too long, or a QR string that is not a payment URI
    // Caused by the service's answer.
    bad_response,      // the body is not JSON, or a field has the wrong type or is missing
    unauthorized,      // HTTP 401/403
    not_found,         // HTTP 404 (for example an unknown exchange name)
    server,            // HTTP 5xx or another unexpected status
    // Exchange payment errors 418-422 (service's front-end codes).
    authentication_failed,   // 418
    insufficient_balance,    // 419
    whitelist_pending,       // 420
    wallet_unsupported,      // 421
    below_minimum,           // 422
    // Raised by transports (CLI, browser), never by the sans-IO core.
    network,
    timeout,
    // A caller's mistake that is not about data: wrong command-line usage (CLI exit code 2), a
    // missing widget setting, and in the core an unknown endpoint name (endpoint_by_name).
    usage,
    io,                // a local file could not be read or written (CLI)
};

// Stable snake_case name of a code, e.g. "insufficient_balance".
std::string_view to_string(ErrorCode code);

class Error : public std::runtime_error {
public:
    Error(ErrorCode code, std::string message, std::string field = {})
        : std::runtime_error(std::move(message)), code_(code), field_(std::move(field)) {}

    ErrorCode code() const noexcept { return code_; }
    // Path of the offending field (`cart[2].quantity`), or empty.
    const std::string& field() const noexcept { return field_; }
    // HTTP status of the answer that caused it, or 0.
    int http_status() const noexcept { return http_status_; }
    Error& with_http_status(int status) { http_status_ = status; return *this; }

private:
    ErrorCode code_;
    std::string field_;
    int http_status_ = 0;
};

// Shorthand used throughout: a validation error naming field `path`.
[[noreturn]] void fail_validation(const std::string& path, const std::string& reason);

}  // namespace paywasm
