// The JSON layer under the codec: a strict RFC 8259 reader that builds a JsonTree, and a small
// writer that emits compact JSON with JSON.stringify's escaping.
#include "core/json_tree.hpp"
#include "core/utf8.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/json.hpp"
#include "paywasm/text.hpp"

namespace paywasm::detail {

namespace {

// Appends code point `cp` as UTF-8. A lone surrogate (U+D800..DFFF) becomes its three-byte form
// ("WTF-8"): that is how a string read from "\udc00" keeps it, and append_quoted writes it back.
void append_utf8(std::string& out, std::uint32_t cp) {
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

}  // namespace

// ---- Parsing ----

namespace {

// A syntax error: where (byte offset) and what, turned into the Error by parse_json.
struct Syntax {
    std::size_t at;
    const char* why;
};
[[noreturn, gnu::cold]] void syntax(std::size_t at, const char* why) { throw Syntax{at, why}; }
struct TooDeep {
    std::size_t at;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

// Reads one JSON text into a JsonTree: one node per value, appended in document order. Containers
// are linked through first_child and next_sibling, so the tree is freed without recursion however
// it is shaped, and the reader itself keeps the open containers on a stack of its own (no
// recursion: depth costs heap, and is capped at kMaxJsonDepth).
struct TreeBuilder {
    TreeBuilder(JsonTree& t, std::string_view text) : tree(t), s(text) {}

    JsonTree& tree;
    std::string_view s;
    std::size_t i = 0;
    std::vector<std::int32_t> open;        // containers being filled, innermost last
    std::vector<std::int32_t> last_child;  // per open container, its last child so far
    std::uint32_t key_at = 0, key_len = 0;

    JsonTree::Node& add(JsonKind kind) {
        auto index = static_cast<std::int32_t>(tree.nodes_.size());
        tree.nodes_.emplace_back();
        tree.nodes_.back().kind = kind;
        if (!open.empty()) {
            JsonTree::Node& parent = tree.nodes_[static_cast<std::size_t>(open.back())];
            if (parent.kind == JsonKind::object) {
                tree.nodes_.back().key_at = key_at;
                tree.nodes_.back().key_len = key_len;
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
    // A string or number: its text is strings_[at, end).
    void add_text(JsonKind kind, std::size_t at) {
        JsonTree::Node& n = add(kind);
        n.text_at = static_cast<std::uint32_t>(at);
        n.text_len = static_cast<std::uint32_t>(tree.strings_.size() - at);
    }

    void skip_space() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    }
    bool next_is(char c) {
        skip_space();
        return i < s.size() && s[i] == c;
    }

    std::uint32_t hex4(std::size_t at) {
        std::uint32_t v = 0;
        for (std::size_t k = at; k < at + 4; ++k) {
            const char c = k < s.size() ? s[k] : '\0';
            const int d = is_digit(c) ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
            if (d < 0) syntax(k, "a \\u escape needs four hex digits");
            v = v << 4 | static_cast<std::uint32_t>(d);
        }
        return v;
    }

    // The string at s[i] == '"', decoded (escapes resolved, raw bytes checked to be UTF-8) and
    // appended to strings_; returns where it starts there.
    std::size_t read_string() {
        std::string& out = tree.strings_;
        const std::size_t at = out.size();
        const std::size_t open_quote = i++;
        for (;;) {
            if (i >= s.size()) syntax(open_quote, "a string has no closing quotation mark");
            const auto c = static_cast<unsigned char>(s[i]);
            if (c == '"') {
                ++i;
                return at;
            }
            if (c < 0x20) syntax(i, "a control character in a string must be escaped");
            if (c >= 0x80) {
                std::uint32_t cp;
                const std::size_t len = utf8_decode(s, i, cp);
                if (len == 0) syntax(i, "a string is not valid UTF-8");
                out.append(s.substr(i, len));
                i += len;
                continue;
            }
            if (c != '\\') {
                out += static_cast<char>(c);
                ++i;
                continue;
            }
            const std::size_t escape = i;
            const char e = i + 1 < s.size() ? s[i + 1] : '\0';
            i += 2;
            switch (e) {
                case '"': case '\\': case '/': out += e; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    std::uint32_t cp = hex4(i);
                    i += 4;
                    if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate needs its low half next
                        if (s.substr(i, 2) != "\\u") syntax(escape, "a \\u escape holds half a surrogate pair");
                        const std::uint32_t low = hex4(i + 2);
                        if (low < 0xDC00 || low > 0xDFFF) syntax(escape, "a \\u escape holds half a surrogate pair");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        i += 6;
                    }
                    append_utf8(out, cp);  // a lone low surrogate is kept (readers decide)
                    break;
                }
                default: syntax(escape, "unknown escape in a string");
            }
        }
    }

    // The number at s[i] ('-' or a digit), checked against the grammar and kept as its text.
    void read_number() {
        const std::size_t start = i;
        if (s[i] == '-') ++i;
        std::size_t digits = i;
        if (i < s.size() && s[i] == '0') {
            ++i;
        } else {
            while (i < s.size() && is_digit(s[i])) ++i;
        }
        if (i == digits) syntax(i, "a number needs digits");
        // Decimal exponent of the first non-zero digit, to refuse numbers beyond a double's range.
        long long lead = s[digits] != '0' ? static_cast<long long>(i - digits) - 1 : 0;
        bool zero = s[digits] == '0';
        if (i < s.size() && s[i] == '.') {
            digits = ++i;
            while (i < s.size() && is_digit(s[i])) {
                if (zero && s[i] != '0') {
                    zero = false;
                    lead = -static_cast<long long>(i - digits) - 1;
                }
                ++i;
            }
            if (i == digits) syntax(i, "a number needs digits after '.'");
        }
        if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
            ++i;
            const bool negative = i < s.size() && s[i] == '-';
            if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
            digits = i;
            long long exponent = 0;
            while (i < s.size() && is_digit(s[i])) {
                if (exponent < 100000) exponent = exponent * 10 + (s[i] - '0');
                ++i;
            }
            if (i == digits) syntax(i, "a number needs digits in its exponent");
            lead += negative ? -exponent : exponent;
        }
        if (!zero && lead > 308) syntax(start, "a number is too large for a double");
        const std::size_t at = tree.strings_.size();
        tree.strings_.append(s.substr(start, i - start));
        add_text(JsonKind::number, at);
    }

    void start(JsonKind kind) {
        if (open.size() >= kMaxJsonDepth) throw TooDeep{i};
        add(kind);
        open.push_back(static_cast<std::int32_t>(tree.nodes_.size() - 1));
        last_child.push_back(-1);
        ++i;
    }
    // Reads `"name" :` at the next non-space byte.
    void read_key() {
        if (!next_is('"')) syntax(i, "expected a member name in double quotes");
        const std::size_t at = read_string();
        key_at = static_cast<std::uint32_t>(at);
        key_len = static_cast<std::uint32_t>(tree.strings_.size() - at);
        if (!next_is(':')) syntax(i, "expected ':' after a member name");
        ++i;
    }

    void read() {
        for (;;) {
            // A value starts here.
            skip_space();
            const char c = i < s.size() ? s[i] : '\0';
            if (c == '{' || c == '[') {
                start(c == '{' ? JsonKind::object : JsonKind::array);
                const char close = c == '{' ? '}' : ']';
                if (!next_is(close)) {
                    if (c == '{') read_key();
                    continue;
                }
                // An empty container ends here: fall through to what comes after it.
            } else if (c == '"') {
                add_text(JsonKind::string, read_string());
            } else if (c == '-' || is_digit(c)) {
                read_number();
            } else if (s.substr(i, 4) == "true" || s.substr(i, 5) == "false") {
                add(JsonKind::boolean).boolean = c == 't';
                i += c == 't' ? 4 : 5;
            } else if (s.substr(i, 4) == "null") {
                add(JsonKind::null);
                i += 4;
            } else {
                syntax(i, i < s.size() ? "expected a value" : "the text ends where a value should be");
            }
            // After a value: close containers until one continues with a comma.
            for (;;) {
                if (open.empty()) {
                    skip_space();
                    if (i < s.size()) syntax(i, "the JSON value is followed by more text");
                    return;
                }
                const bool object = tree.nodes_[static_cast<std::size_t>(open.back())].kind == JsonKind::object;
                // An empty container's closing bracket was seen but not consumed.
                if (next_is(object ? '}' : ']')) {
                    ++i;
                    open.pop_back();
                    last_child.pop_back();
                    continue;
                }
                if (i < s.size() && s[i] == ',') {
                    ++i;
                    if (object) read_key();
                    break;
                }
                syntax(i, object ? "expected ',' or '}' after an object member"
                                 : "expected ',' or ']' after an array element");
            }
        }
    }
};

// ---- Writing ----

namespace {

const char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, unsigned unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 0xF];
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

// A member name is untrusted text: one of plain letters, digits, '_' and '$' is written as is
// ("cart.price"); any other (a control byte, a quote, a dot, non-ASCII, empty or over 64 bytes) in
// quotes and brackets, through escape_untrusted() and cut to 64 bytes of it ("[\"\\u0000items\"]",
// "[\"subscripti\\u007fnId\"]"), so a message or a log line that names it carries no raw bytes.
std::string JsonPath::str() const {
    if (parent == nullptr) return std::string();
    std::string out = parent->str();
    if (is_element) return out + "[" + std::to_string(index) + "]";
    bool plain = !name.empty() && name.size() <= 64;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
        plain = plain && ok;
    }
    if (plain) {
        if (!out.empty()) out += '.';
        return out.append(name);
    }
    return out.append("[\"").append(escape_untrusted(name, 64)).append("\"]");
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

// ---- JsonValue ----

JsonKind JsonValue::kind() const { return doc_->node(index_).kind; }
bool JsonValue::boolean() const { return doc_->node(index_).boolean; }
std::string_view JsonValue::text() const {
    const auto& n = doc_->node(index_);
    return doc_->slice(n.text_at, n.text_len);
}
std::string_view JsonValue::key() const {
    const auto& n = doc_->node(index_);
    return doc_->slice(n.key_at, n.key_len);
}
std::size_t JsonValue::size() const { return doc_->node(index_).size; }
JsonValue JsonValue::first_child() const { return {doc_, doc_->node(index_).first_child}; }
JsonValue JsonValue::next_sibling() const { return {doc_, doc_->node(index_).next_sibling}; }


JsonValue JsonValue::member(std::string_view name) const {
    JsonValue found;
    if (!valid() || !is_object()) return found;
    for (JsonValue m = first_child(); m.valid(); m = m.next_sibling()) {
        if (m.key() == name) found = m;
    }
    return found;
}

std::optional<long long> JsonValue::integer() const {
    if (!valid() || !is_number()) return std::nullopt;
    std::string_view t = text();
    const bool negative = !t.empty() && t[0] == '-';
    if (negative) t.remove_prefix(1);
    if (t.empty() || t.size() > 16) return std::nullopt;
    long long n = 0;
    for (char c : t) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    if (n > (1LL << 53)) return std::nullopt;
    return negative ? -n : n;
}

JsonDocument parse_json(std::string_view json, ErrorCode code) {
    if (json.size() > kMaxJsonBytes)
        throw Error(code, "JSON text is larger than " + std::to_string(kMaxJsonBytes) + " bytes");
    // Refused anyway (a raw NUL is never valid JSON); said plainly, since C strings end there.
    if (std::size_t nul = json.find('\0'); nul != std::string_view::npos)
        throw Error(code, "not valid JSON: NUL byte at offset " + std::to_string(nul));

    JsonDocument tree;
    detail::TreeBuilder reader(tree, json);
    try {
        reader.read();
    } catch (const detail::TooDeep& e) {
        throw Error(code, "JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                              " levels at offset " + std::to_string(e.at));
    } catch (const detail::Syntax& e) {
        throw Error(code, "not valid JSON at offset " + std::to_string(e.at) + ": " + e.why);
    }
    return tree;
}

std::string json_quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    detail::append_quoted(out, s);
    return out;
}

}  // namespace paywasm
