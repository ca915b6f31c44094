// Internal: what the codec shares beyond paywasm/json.hpp (the JSON tree and writer are public):
// escaping, compact re-writing, and field paths for error messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/error.hpp"
#include "paywasm/json.hpp"

namespace paywasm::detail {

// The tree types are public (paywasm/json.hpp); the codec knows them by their older names.
using JsonTree = JsonDocument;
using paywasm::JsonKind;
using paywasm::JsonValue;
using paywasm::kMaxJsonDepth;
using paywasm::parse_json;

// Appends `s` as a JSON string literal, escaped exactly as JSON.stringify does.
void append_quoted(std::string& out, std::string_view s);
// Appends `v` as compact JSON: strings re-escaped as JSON.stringify does, numbers in their source
// text, members in their order.
void append_compact(std::string& out, JsonValue v);

// Where a value sits in a document ("cart[2].price"): a chain of frames on the stack, turned into
// text only when an error names it, so reading and writing build no path strings on the way.
// Names are views: they must outlive the path (literals, or keys of the tree being read).
struct JsonPath {
    const JsonPath* parent = nullptr;  // nullptr: the document itself
    std::string_view name;             // member name, unless is_element
    std::size_t index = 0;             // element index, if is_element
    bool is_element = false;

    JsonPath member(std::string_view n) const { return {this, n, 0, false}; }
    JsonPath element(std::size_t i) const { return {this, {}, i, true}; }
    std::string str() const;  // "" for the document itself
};

// For to_json: re-emits the JSON text held by a RawJson (or an `extra` object) compactly, after
// checking it is valid JSON; throws Error(validation, field) when it is not.
void append_raw(std::string& out, std::string_view json, const JsonPath& field);
// Appends the members of the object text `extra` ("{}" or empty: nothing), each preceded by a
// comma unless `first` is set; clears `first` when it wrote any. Throws Error(validation, field)
// when `extra` is not an object.
void append_extra_members(std::string& out, std::string_view extra, bool& first,
                          const JsonPath& field);

}  // namespace paywasm::detail
