// src/wasm/args.hpp — reading the JSON argument object of one pw_call.
//
// Arguments arrive as one JSON object. Members that carry a whole document (an order, a cart, a
// response body) are JSON *text* inside a string member, so the core reads their numbers as exact
// decimal text; everything else is a plain string, integer or boolean. A missing or mistyped
// argument is Error(validation) naming the argument, like any other bad input.
//
// It reads with the core's public JSON reader (paywasm/json.hpp): the module carries one JSON
// parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "paywasm/error.hpp"
#include "paywasm/json.hpp"

namespace paywasm::wasm {

class Args {
public:
    explicit Args(std::string_view json) : tree_(parse_json(json, ErrorCode::validation)) {
        if (!tree_.root().is_object()) fail_validation("arguments", "must be a JSON object");
    }

    bool has(std::string_view name) const { return find(name).valid(); }

    std::string str(std::string_view name) const {
        auto v = opt_str(name);
        if (!v) fail_validation(std::string(name), "is required");
        return *v;
    }

    std::optional<std::string> opt_str(std::string_view name) const {
        JsonValue v = find(name);
        if (!v.valid()) return std::nullopt;
        if (!v.is_string()) fail_validation(std::string(name), "must be a string");
        return std::string(v.text());
    }

    // A JSON number that is an integer of magnitude at most 10^9 (no fraction, no exponent).
    int integer(std::string_view name, int fallback) const {
        JsonValue v = find(name);
        if (!v.valid()) return fallback;
        auto n = v.integer();
        if (!n || *n > 1000000000LL || *n < -1000000000LL) fail_validation(std::string(name), "must be an integer");
        return static_cast<int>(*n);
    }

    // A boolean, false when absent.
    bool flag(std::string_view name) const {
        JsonValue v = find(name);
        if (!v.valid()) return false;
        if (!v.is_bool()) fail_validation(std::string(name), "must be true or false");
        return v.boolean();
    }

private:
    // The member `name` (the last one if repeated), or an invalid value when absent or null.
    JsonValue find(std::string_view name) const {
        JsonValue found = tree_.root().member(name);
        return found.valid() && !found.is_null() ? found : JsonValue();
    }

    JsonDocument tree_;
};

}  // namespace paywasm::wasm
