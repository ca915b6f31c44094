// Helpers shared by the unit tests (header-only; doctest must be included first).
#pragma once

#include <string>
#include <string_view>

#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"

namespace paywasm::test {

// The paywasm::Error that `f` throws; the test fails when it throws none.
template <class F>
Error error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    FAIL("expected a paywasm::Error");
    return Error(ErrorCode::usage, "unreachable");
}


// Checks that reading `json` as T fails with `code` and exactly `message`, whose part before the
// first ": " is the field path (no path for a problem with the whole document).
template <class T>
void check_error(std::string_view json, ErrorCode code, const std::string& message,
                 const std::string& field) {
    INFO("input: " << json);
    try {
        (void)from_json<T>(json);
        FAIL("accepted");
    } catch (const Error& e) {
        CHECK(to_string(e.code()) == to_string(code));
        CHECK(std::string(e.what()) == message);
        CHECK(e.field() == field);
    }
}

template <class T>
void check_request_error(std::string_view json, const std::string& field, const std::string& reason) {
    check_error<T>(json, ErrorCode::validation, field.empty() ? reason : field + ": " + reason, field);
}

template <class T>
void check_response_error(std::string_view json, const std::string& field, const std::string& reason) {
    check_error<T>(json, ErrorCode::bad_response, field.empty() ? reason : field + ": " + reason, field);
}

// The message of the Error that reading `json` as T throws ("" when it is accepted).
template <class T>
std::string error_message(std::string_view json) {
    try {
        (void)from_json<T>(json);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

inline bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace paywasm::test
