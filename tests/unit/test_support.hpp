// Helpers shared by the unit tests (header-only; doctest must be included first).
#pragma once

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

}  // namespace paywasm::test
