// Internal: a parsed JSON document as a flat tree, and the compact writer the codec shares.
//
// codec_json.cpp reads JSON (RFC 8259, strictly) straight into this tree: every value is a node in
// one vector, in document order, numbers keep their exact source text (no double ever sees an
// amount), and object members keep their order (duplicates included; readers decide what to do
// with them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/error.hpp"

namespace paywasm::detail {

// Arrays and objects may nest at most this deep (the root counts as level 1), so hostile input
// cannot exhaust the stack of the recursive writer.
constexpr std::size_t kMaxJsonDepth = 64;

enum class JsonKind : unsigned char { null, boolean, number, string, array, object };

class JsonTree;

// A handle on one node of a JsonTree; valid() is false for "no such value".
class JsonValue {
public:
    JsonValue() = default;
    JsonValue(const JsonTree* tree, std::int32_t index) : tree_(tree), index_(index) {}

    bool valid() const { return tree_ != nullptr && index_ >= 0; }
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
    // Member name, for a member of an object.
    std::string_view key() const;
    // Number of elements or members.
    std::size_t size() const;
    // First element or member (invalid when empty), and the next one after this.
    JsonValue first_child() const;
    JsonValue next_sibling() const;
    std::int32_t index() const { return index_; }

private:
    const JsonTree* tree_ = nullptr;
    std::int32_t index_ = -1;
};

class JsonTree {
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
    friend struct TreeBuilder;
    std::vector<Node> nodes_;
    std::string strings_;  // every key, string value and number text, back to back
};

// Parses `json` (at most kMaxJsonBytes, at most kMaxJsonDepth levels, valid UTF-8, one value and
// nothing after it but whitespace; numbers within a double's range, kept as text; an escaped lone
// low surrogate is kept as its three-byte form, half a pair starting with a high one is refused).
// Throws Error(code, "not valid JSON at offset N: <what>") or the size or depth message.
JsonTree parse_json(std::string_view json, ErrorCode code);

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
