// UTF-8 decoding and the code points paywasm treats as unsafe in text: shared by validation (text
// the service receives) and the response parsers (text from the service shown in error messages).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace paywasm::detail {

// Decodes one UTF-8 code point at s[i] (i < s.size()); returns its length, or 0 if the sequence is
// invalid (overlong, surrogate, > U+10FFFF, truncated).
inline std::size_t utf8_decode(std::string_view s, std::size_t i, std::uint32_t& cp) {
    auto b = static_cast<unsigned char>(s[i]);
    std::size_t len;
    std::uint32_t min;
    if (b < 0x80) { cp = b; return 1; }
    if ((b & 0xE0) == 0xC0) { len = 2; cp = b & 0x1F; min = 0x80; }
    else if ((b & 0xF0) == 0xE0) { len = 3; cp = b & 0x0F; min = 0x800; }
    else if ((b & 0xF8) == 0xF0) { len = 4; cp = b & 0x07; min = 0x10000; }
    else return 0;
    if (i + len > s.size()) return 0;
    for (std::size_t k = 1; k < len; ++k) {
        auto c = static_cast<unsigned char>(s[i + k]);
        if ((c & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

// C0 and C1 controls and DEL.
inline bool is_control(std::uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp < 0xA0); }

// Embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069): they make text display
// differently from what it is.
inline bool is_bidi_override(std::uint32_t cp) {
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace paywasm::detail
