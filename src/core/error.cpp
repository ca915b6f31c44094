#include "paywasm/error.hpp"

namespace paywasm {

std::string_view to_string(ErrorCode code) {
    switch (code) {
        case ErrorCode::validation: return "validation";
        case ErrorCode::invalid_key: return "invalid_key";
        case ErrorCode::key_mismatch: return "key_mismatch";
        case ErrorCode::crypto: return "crypto";
        case ErrorCode::invalid_qr: return "invalid_qr";
        case ErrorCode::bad_response: return "bad_response";
        case ErrorCode::unauthorized: return "unauthorized";
        case ErrorCode::not_found: return "not_found";
        case ErrorCode::server: return "server";
        case ErrorCode::authentication_failed: return "authentication_failed";
        case ErrorCode::insufficient_balance: return "insufficient_balance";
        case ErrorCode::whitelist_pending: return "whitelist_pending";
        case ErrorCode::wallet_unsupported: return "wallet_unsupported";
        case ErrorCode::below_minimum: return "below_minimum";
        case ErrorCode::network: return "network";
        case ErrorCode::timeout: return "timeout";
        case ErrorCode::usage: return "usage";
        case ErrorCode::io: return "io";
    }
    return "unknown";
}

void fail_validation(const std::string& path, const std::string& reason) {
    throw Error(ErrorCode::validation, path.empty() ? reason : path + ": " + reason, path);
}

}  // namespace paywasm
