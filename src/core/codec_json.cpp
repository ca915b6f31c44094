// The JSON layer under the codec: RapidJSON's SAX reader builds a JsonTree; a small writer emits
// compact JSON with JSON.stringify's escaping. This is the only file that includes RapidJSON.
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"

namespace paywasm::detail {

// ---- JsonValue ----

JsonKind JsonValue::kind() const { return tree_->node(index_).kind; }
bool JsonValue::boolean() const { return tree_->node(index_).boolean; }
std::string_view JsonValue::text() const {
    const auto& n = tree_->node(index_);
    return tree_->slice(n.text_at, n.text_len);
}
std::string_view JsonValue::key() const {
    const auto& n = tree_->node(index_);
    return tree_->slice(n.key_at, n.key_len);
}
std::size_t JsonValue::size() const { return tree_->node(index_).size; }
JsonValue JsonValue::first_child() const { return {tree_, tree_->node(index_).first_child}; }
JsonValue JsonValue::next_sibling() const { return {tree_, tree_->node(index_).next_sibling}; }

// ---- Parsing ----

// SAX handler: appends one node per value. Containers are linked through first_child and
// next_sibling, so the tree is freed without recursion however it is shaped.
struct TreeBuilder : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
    JsonTree& tree;
    std::vector<std::int32_t> open;        // containers being filled, innermost last
    std::vector<std::int32_t> last_child;  // per open container, its last child so far
    std::uint32_t key_at = 0, key_len = 0;
    bool depth_exceeded = false;

    explicit TreeBuilder(JsonTree& t) : tree(t) {}

    std::uint32_t store(const char* s, rapidjson::SizeType len) {
        auto at = static_cast<std::uint32_t>(tree.strings_.size());
        tree.strings_.append(s, len);
        return at;
    }

    JsonTree::Node& add(JsonKind kind) {
        auto index = static_cast<std::int32_t>(tree.nodes_.size());
        tree.nodes_.emplace_back();
        JsonTree::Node& n = tree.nodes_.back();
        n.kind = kind;
        if (!open.empty()) {
            JsonTree::Node& parent = tree.nodes_[static_cast<std::size_t>(open.back())];
            if (parent.kind == JsonKind::object) {
                n.key_at = key_at;
                n.key_len = key_len;
            }
            ++parent.size;
            std::int32_t& last = last_child.back();
            if (last < 0)
                parent.first_child = index;
            else
                tree.nodes_[static_cast<std::size_t>(last)].next_sibling = index;
            last = index;
        }
        return tree.nodes_.back();
    }

    bool Null() { add(JsonKind::null); return true; }
    bool Bool(bool b) { add(JsonKind::boolean).boolean = b; return true; }
    bool RawNumber(const char* s, rapidjson::SizeType len, bool) {
        std::uint32_t at = store(s, len);
        JsonTree::Node& n = add(JsonKind::number);
        n.text_at = at;
        n.text_len = len;
        return true;
    }
    bool String(const char* s, rapidjson::SizeType len, bool) {
        std::uint32_t at = store(s, len);
        JsonTree::Node& n = add(JsonKind::string);
        n.text_at = at;
        n.text_len = len;
        return true;
    }
    bool Key(const char* s, rapidjson::SizeType len, bool) {
        key_at = store(s, len);
        key_len = len;
        return true;
    }
    bool start(JsonKind kind) {
        if (open.size() >= kMaxJsonDepth) {
            depth_exceeded = true;
            return false;
        }
        add(kind);
        open.push_back(static_cast<std::int32_t>(tree.nodes_.size() - 1));
        last_child.push_back(-1);
        return true;
    }
    bool end() {
        open.pop_back();
        last_child.pop_back();
        return true;
    }
    bool StartObject() { return start(JsonKind::object); }
    bool EndObject(rapidjson::SizeType) { return end(); }
    bool StartArray() { return start(JsonKind::array); }
    bool EndArray(rapidjson::SizeType) { return end(); }
};

JsonTree parse_json(std::string_view json, ErrorCode code) {
    if (json.size() > kMaxJsonBytes)
        throw Error(code, "JSON text is larger than " + std::to_string(kMaxJsonBytes) + " bytes");
    // RapidJSON's stream reads a NUL as the end of input; a raw NUL is never valid JSON anyway.
    if (std::size_t nul = json.find('\0'); nul != std::string_view::npos)
        throw Error(code, "not valid JSON: NUL byte at offset " + std::to_string(nul));

    JsonTree tree;
    TreeBuilder builder(tree);
    rapidjson::MemoryStream stream(json.data(), json.size());
    rapidjson::Reader reader;
    // Iterative: RapidJSON itself never recurses. Numbers as text: no double ever sees an amount.
    constexpr unsigned kFlags = rapidjson::kParseIterativeFlag |
                                rapidjson::kParseValidateEncodingFlag |
                                rapidjson::kParseNumbersAsStringsFlag |
                                rapidjson::kParseFullPrecisionFlag;
    rapidjson::ParseResult result = reader.Parse<kFlags>(stream, builder);
    if (result.IsError()) {
        std::string where = " at offset " + std::to_string(result.Offset());
        if (builder.depth_exceeded)
            throw Error(code, "JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                                  " levels" + where);
        throw Error(code, std::string("not valid JSON") + where + ": " +
                              rapidjson::GetParseError_En(result.Code()));
    }
    return tree;
}

// ---- Writing ----

namespace {

const char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, unsigned unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 0xF];
}

void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// A surrogate code unit encoded as three bytes (ED A0..BF 80..BF, "WTF-8") at s[i], or 0.
unsigned surrogate_at(std::string_view s, std::size_t i) {
    if (i + 2 < s.size() && static_cast<unsigned char>(s[i]) == 0xED) {
        auto b1 = static_cast<unsigned char>(s[i + 1]);
        auto b2 = static_cast<unsigned char>(s[i + 2]);
        if (b1 >= 0xA0 && b1 <= 0xBF && b2 >= 0x80 && b2 <= 0xBF)
            return 0xD000u | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
    }
    return 0;
}

}  // namespace

// JSON.stringify's QuoteJSONString over UTF-8 input. Text that a JavaScript string can hold but
// UTF-8 cannot (a lone surrogate, which arrives here as its three-byte WTF-8 form) is escaped
// as \udxxx, as JSON.stringify does; bytes that are not UTF-8 at all become U+FFFD, one per
// maximal ill-formed subpart, as TextDecoder does. validate() refuses such strings before this.
void append_quoted(std::string& out, std::string_view s) {
    out += '"';
    std::size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                default:
                    if (c < 0x20)
                        append_u_escape(out, c);
                    else
                        out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        if (unsigned hi = surrogate_at(s, i)) {
            unsigned lo = hi < 0xDC00 ? surrogate_at(s, i + 3) : 0;
            if (lo >= 0xDC00) {  // a pair written as two halves: JavaScript sees one character
                append_utf8(out, 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
                i += 6;
            } else {
                append_u_escape(out, hi);
                i += 3;
            }
            continue;
        }
        // Expected continuation count and the allowed range of the first continuation byte.
        std::size_t need = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) need = 1;
        else if (c == 0xE0) { need = 2; lo = 0xA0; }
        else if (c == 0xED) { need = 2; hi = 0x9F; }
        else if (c >= 0xE1 && c <= 0xEF) need = 2;
        else if (c == 0xF0) { need = 3; lo = 0x90; }
        else if (c >= 0xF1 && c <= 0xF3) need = 3;
        else if (c == 0xF4) { need = 3; hi = 0x8F; }
        std::size_t len = 1;
        bool ok = need > 0;
        for (std::size_t k = 1; ok && k <= need; ++k) {
            if (i + k >= s.size()) { ok = false; break; }
            auto b = static_cast<unsigned char>(s[i + k]);
            unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
            if (b < min || b > max) { ok = false; break; }
            ++len;
        }
        if (ok)
            out.append(s.data() + i, len);
        else
            out += "\xEF\xBF\xBD";  // U+FFFD for the lead byte and the valid continuations seen
        i += len;
    }
    out += '"';
}

void append_compact(std::string& out, JsonValue v) {
    switch (v.kind()) {
        case JsonKind::null: out += "null"; return;
        case JsonKind::boolean: out += v.boolean() ? "true" : "false"; return;
        case JsonKind::number: out += v.text(); return;
        case JsonKind::string: append_quoted(out, v.text()); return;
        case JsonKind::array:
        case JsonKind::object: {
            bool object = v.is_object();
            out += object ? '{' : '[';
            bool first = true;
            for (JsonValue c = v.first_child(); c.valid(); c = c.next_sibling()) {
                if (!first) out += ',';
                first = false;
                if (object) {
                    append_quoted(out, c.key());
                    out += ':';
                }
                append_compact(out, c);  // depth is bounded by kMaxJsonDepth
            }
            out += object ? '}' : ']';
            return;
        }
    }
}

std::string JsonPath::str() const {
    if (parent == nullptr) return std::string();
    std::string out = parent->str();
    if (is_element) return out + "[" + std::to_string(index) + "]";
    if (!out.empty()) out += '.';
    return out.append(name);
}

void append_raw(std::string& out, std::string_view json, const JsonPath& field) {
    JsonTree tree;
    try {
        tree = parse_json(json, ErrorCode::validation);
    } catch (const Error& e) {
        fail_validation(field.str(), e.what());
    }
    append_compact(out, tree.root());
}

void append_extra_members(std::string& out, std::string_view extra, bool& first,
                          const JsonPath& field) {
    if (extra.empty() || extra == "{}") return;
    JsonTree tree;
    try {
        tree = parse_json(extra, ErrorCode::validation);
    } catch (const Error& e) {
        fail_validation(field.str(), e.what());
    }
    if (!tree.root().is_object()) fail_validation(field.str(), "must be the JSON text of an object");
    for (JsonValue m = tree.root().first_child(); m.valid(); m = m.next_sibling()) {
        if (!first) out += ',';
        first = false;
        append_quoted(out, m.key());
        out += ':';
        append_compact(out, m);
    }
}

}  // namespace paywasm::detail

namespace paywasm {

std::string json_quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    detail::append_quoted(out, s);
    return out;
}

}  // namespace paywasm
