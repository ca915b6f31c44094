// paywasm/json.hpp — the core's JSON reader as a read-only tree, and its deterministic writer.
//
// Every program of the project (the wasm bridge, the CLI, the sandbox, the merchant gateway) reads
// and writes JSON through this one header, so one set of rules holds everywhere:
//   - reading is strict RFC 8259: valid UTF-8, one value, numbers within a double's range and kept
//     as their exact source text (money never goes through a double), member order and repeated
//     members kept, at most kMaxJsonBytes and kMaxJsonDepth levels (no recursion on hostile
//     nesting); a failure is Error(code) with the byte offset and what was wrong;
//   - writing is compact, members in the order they are written, strings escaped exactly as
//     JavaScript's JSON.stringify escapes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/error.hpp"

namespace paywasm {

// Arrays and objects nest at most this deep (the root counts as level 1).
constexpr std::size_t kMaxJsonDepth = 64;
// Longer JSON texts are refused before parsing.
constexpr std::size_t kMaxJsonBytes = 4 * 1024 * 1024;

enum class JsonKind : unsigned char { null, boolean, number, string, array, object };

class JsonDocument;
namespace detail {
struct TreeBuilder;
}

// A handle on one value of a JsonDocument (valid while the document lives and is not moved);
// valid() is false for "no such value".
class JsonValue {
public:
    JsonValue() = default;
    JsonValue(const JsonDocument* doc, std::int32_t index) : doc_(doc), index_(index) {}

    bool valid() const { return doc_ != nullptr && index_ >= 0; }
    JsonKind kind() const;
    bool is_null() const { return kind() == JsonKind::null; }
    bool is_bool() const { return kind() == JsonKind::boolean; }
    bool is_number() const { return kind() == JsonKind::number; }
    bool is_string() const { return kind() == JsonKind::string; }
    bool is_array() const { return kind() == JsonKind::array; }
    bool is_object() const { return kind() == JsonKind::object; }

    bool boolean() const;
    // A string's decoded value (UTF-8), or a number's source text.
    std::string_view text() const;
    // The member name, for a member of an object.
    std::string_view key() const;
    // Number of elements or members.
    std::size_t size() const;
    // First element or member (invalid when empty), and the next one after this.
    JsonValue first_child() const;
    JsonValue next_sibling() const;
    std::int32_t index() const { return index_; }

    // The member `name` of an object (the last one when repeated, as JSON.parse keeps); invalid
    // when this is not an object or has no such member.
    JsonValue member(std::string_view name) const;
    // A number written as an integer (no fraction, no exponent) within ±2^53; nullopt otherwise.
    std::optional<long long> integer() const;

    // Range-for over the elements or members: `for (JsonValue m : obj.children())`.
    struct Children;
    Children children() const;

private:
    const JsonDocument* doc_ = nullptr;
    std::int32_t index_ = -1;
};

struct JsonValue::Children {
    struct Iterator {
        JsonValue v;
        JsonValue operator*() const { return v; }
        Iterator& operator++() { v = v.next_sibling(); return *this; }
        bool operator!=(const Iterator& o) const { return v.index() != o.v.index(); }
    };
    JsonValue first;
    Iterator begin() const { return {first}; }
    Iterator end() const { return {JsonValue()}; }
};
inline JsonValue::Children JsonValue::children() const { return {valid() ? first_child() : JsonValue()}; }

// A parsed JSON text: every value is a node in one vector, in document order.
class JsonDocument {
public:
    struct Node {
        JsonKind kind = JsonKind::null;
        bool boolean = false;
        std::uint32_t key_at = 0, key_len = 0;    // in strings_
        std::uint32_t text_at = 0, text_len = 0;  // in strings_
        std::int32_t first_child = -1, next_sibling = -1;
        std::uint32_t size = 0;
    };

    JsonValue root() const { return JsonValue(this, nodes_.empty() ? -1 : 0); }
    const Node& node(std::int32_t i) const { return nodes_[static_cast<std::size_t>(i)]; }
    std::string_view slice(std::uint32_t at, std::uint32_t len) const {
        return std::string_view(strings_).substr(at, len);
    }

private:
    friend struct detail::TreeBuilder;
    std::vector<Node> nodes_;
    std::string strings_;  // every key, string value and number text, back to back
};

// Parses `json` by the rules above. Throws Error(code, "not valid JSON at offset N: <what>"), or
// the size or depth message, with `code` the caller's category (validation for input a caller
// gave, bad_response for a server's answer).
JsonDocument parse_json(std::string_view json, ErrorCode code = ErrorCode::validation);

// Compact JSON, written front to back into one string; commas are placed by the writer.
// Nothing is checked: the caller writes a well-formed sequence (a key before each value inside an
// object). raw() appends JSON text as given (for example a model's to_json()).
class JsonWriter {
public:
    JsonWriter& begin_object() { return open('{'); }
    JsonWriter& end_object() { return close('}'); }
    JsonWriter& begin_array() { return open('['); }
    JsonWriter& end_array() { return close(']'); }
    JsonWriter& key(std::string_view name);
    JsonWriter& string(std::string_view s);
    JsonWriter& number(long long n);
    JsonWriter& boolean(bool b);
    JsonWriter& null();
    JsonWriter& raw(std::string_view json);
    JsonWriter& value(JsonValue v);  // a parsed value, re-written compactly

    // Shorthands for one member of an object.
    JsonWriter& str(std::string_view name, std::string_view s);
    JsonWriter& num(std::string_view name, long long n);
    JsonWriter& flag(std::string_view name, bool b);
    JsonWriter& raw(std::string_view name, std::string_view json);

    const std::string& text() const { return out_; }
    std::string take() { return std::move(out_); }

private:
    JsonWriter& open(char c);
    JsonWriter& close(char c);
    void separate();
    std::string out_;
    bool comma_ = false;  // a value was just completed at this level
};

// A JSON string literal of `s` (with the quotes), escaped as JSON.stringify does.
std::string json_quote(std::string_view s);

}  // namespace paywasm
