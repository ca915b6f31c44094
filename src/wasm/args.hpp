// src/wasm/args.hpp — reading the JSON argument object of one pw_call.
//
// Arguments arrive as one JSON object. Members that carry a whole document (an order, a cart, a
// response body) are JSON *text* inside a string member, so the core reads their numbers as exact
// decimal text; everything else is a plain string, integer or boolean. A missing or mistyped
// argument is Error(validation) naming the argument, like any other bad input.
//
// It reads with the core's own JSON tree (src/core/json_tree.hpp): the module carries one JSON
// parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_tree.hpp"
#include "paywasm/error.hpp"

namespace paywasm::wasm {

class Args {
public:
    explicit Args(std::string_view json) : tree_(detail::parse_json(json, ErrorCode::validation)) {
        if (!tree_.root().is_object()) fail_validation("arguments", "must be a JSON object");
    }

    bool has(std::string_view name) const { return find(name).valid(); }

    std::string str(std::string_view name) const {
        auto v = opt_str(name);
        if (!v) fail_validation(std::string(name), "is required");
        return *v;
    }

    std::optional<std::string> opt_str(std::string_view name) const {
        detail::JsonValue v = find(name);
        if (!v.valid()) return std::nullopt;
        if (!v.is_string()) fail_validation(std::string(name), "must be a string");
        return std::string(v.text());
    }

    // A JSON number that is an integer of magnitude at most 10^9 (no fraction, no exponent).
    int integer(std::string_view name, int fallback) const {
        detail::JsonValue v = find(name);
        if (!v.valid()) return fallback;
        std::string_view text = v.is_number() ? v.text() : std::string_view();
        const bool negative = !text.empty() && text[0] == '-';
        if (negative) text.remove_prefix(1);
        bool ok = !text.empty() && text.size() <= 10;
        long long n = 0;
        for (char c : text) {
            ok = ok && c >= '0' && c <= '9';
            n = n * 10 + (c - '0');
        }
        if (!ok || n > 1000000000LL) fail_validation(std::string(name), "must be an integer");
        return static_cast<int>(negative ? -n : n);
    }

    // An array of strings, or nullopt when absent.
    std::optional<std::vector<std::string>> strings(std::string_view name) const {
        detail::JsonValue v = find(name);
        if (!v.valid()) return std::nullopt;
        if (!v.is_array()) fail_validation(std::string(name), "must be an array of strings");
        std::vector<std::string> out;
        for (detail::JsonValue item = v.first_child(); item.valid(); item = item.next_sibling()) {
            if (!item.is_string()) fail_validation(std::string(name), "must be an array of strings");
            out.emplace_back(item.text());
        }
        return out;
    }

private:
    // The member `name` (the last one if repeated), or an invalid value when absent or null.
    detail::JsonValue find(std::string_view name) const {
        detail::JsonValue found;
        for (detail::JsonValue m = tree_.root().first_child(); m.valid(); m = m.next_sibling()) {
            if (m.key() == name) found = m;
        }
        return found.valid() && !found.is_null() ? found : detail::JsonValue();
    }

    detail::JsonTree tree_;
};

}  // namespace paywasm::wasm
