// tests/fuzz/fuzz_codec.hpp — the codec property every JSON target checks.
//
// For a model T and any input x that from_json<T> accepts:
//   s1 = to_json(from_json<T>(x)) succeeds (what was read can always be written),
//   from_json<T>(s1) succeeds and writes back exactly s1 (the canonical form is a fixed point).
// Reading may refuse x only with `refusal` (bad_response for responses, validation for requests).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "paywasm/codec.hpp"

namespace paywasm::fuzz {

// Returns the value read from `input`, or nothing when the codec refused it.
template <class T>
std::optional<T> read_and_round_trip(std::string_view input, ErrorCode refusal) {
    std::optional<T> value;
    if (!accepts({refusal}, [&] { value = from_json<T>(input); })) return std::nullopt;

    std::string first;
    // Writing what was read must not fail: a refusal here means the reader let something through
    // that the writer cannot express.
    try {
        first = to_json(*value);
    } catch (const Error& e) {
        property_failed(__FILE__, __LINE__, "to_json(from_json(x)) succeeds", e.what());
    }
    T again;
    try {
        again = from_json<T>(first);
    } catch (const Error& e) {
        property_failed(__FILE__, __LINE__, "from_json(to_json(from_json(x))) succeeds",
                        std::string(e.what()) + "\n  canonical text: " + first);
    }
    std::string second = to_json(again);
    PAYWASM_FUZZ_CHECK(second == first, "to_json is a fixed point:\n  first:  " + first + "\n  second: " + second);
    return value;
}

}  // namespace paywasm::fuzz
