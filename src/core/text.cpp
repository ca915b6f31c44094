#include "paywasm/text.hpp"

#include <cstdint>

#include "core/utf8.hpp"

namespace paywasm {

namespace {

const char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, std::uint32_t unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 0xF];
}

// Code points that are escaped even though they are well-formed: controls, and those that break
// or reorder the line they are in (see text.hpp).
bool must_escape(std::uint32_t cp, bool ascii) {
    return detail::is_control(cp) || detail::is_bidi_override(cp) || cp == 0x2028 || cp == 0x2029 ||
           (ascii && cp >= 0x80);
}

// Sets `piece` to what the result shows for the character (or the stray byte) at text[i] and
// returns how many input bytes it stands for (at least 1).
std::size_t shown_piece(std::string_view text, std::size_t i, bool ascii, std::string& piece) {
    piece.clear();
    std::uint32_t cp = 0;
    const std::size_t n = detail::utf8_decode(text, i, cp);
    if (n == 0) {
        const auto b = static_cast<unsigned char>(text[i]);
        piece += "\\x";
        piece += kHex[b >> 4];
        piece += kHex[b & 0xF];
        return 1;
    }
    switch (cp) {
        case '\\': piece = "\\\\"; return n;
        case '"': piece = "\\\""; return n;
        case '\b': piece = "\\b"; return n;
        case '\t': piece = "\\t"; return n;
        case '\n': piece = "\\n"; return n;
        case '\f': piece = "\\f"; return n;
        case '\r': piece = "\\r"; return n;
        default: break;
    }
    if (!must_escape(cp, ascii)) {
        piece.assign(text.substr(i, n));
    } else if (cp < 0x10000) {
        append_u_escape(piece, cp);
    } else {  // only in ascii mode: a surrogate pair, as JSON writes it
        append_u_escape(piece, 0xD800 + ((cp - 0x10000) >> 10));
        append_u_escape(piece, 0xDC00 + ((cp - 0x10000) & 0x3FF));
    }
    return n;
}

}  // namespace

std::string escape_untrusted(std::string_view text, EscapeOptions options) {
    std::string out;
    out.reserve(text.size() < options.max_bytes ? text.size() : options.max_bytes);
    std::string piece;
    for (std::size_t i = 0; i < text.size();) {
        i += shown_piece(text, i, options.ascii, piece);
        if (piece.size() > options.max_bytes - out.size()) return out += "...";
        out += piece;
    }
    return out;
}

std::string escape_untrusted(std::string_view text, std::size_t max_bytes) {
    EscapeOptions options;
    options.max_bytes = max_bytes;
    return escape_untrusted(text, options);
}

bool is_shown_as_is(std::string_view text) {
    std::string piece;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = shown_piece(text, i, false, piece);
        if (piece != text.substr(i, n)) return false;
        i += n;
    }
    return true;
}

}  // namespace paywasm
