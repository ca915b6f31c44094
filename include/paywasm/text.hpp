// paywasm/text.hpp — untrusted text made safe to show: the one function through which every error
// message, log line and header value that quotes outside input passes.
//
// Outside input is anything a client, the payment service, a host page or a file supplied: a JSON
// member name, a currency code, a PEM label, a server's error message, an HTTP method, target or
// header, a webhook's field. Written raw, such text can move a terminal's cursor or rewrite a line
// (C0 and C1 controls: ESC, CSI U+009B), forge a log line (CR, LF, U+2028), display reversed (bidi
// overrides), split an HTTP header, or make a log or a JSON consumer reject the whole line (bytes
// that are not UTF-8). escape_untrusted() leaves none of those in what it returns.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace paywasm {

struct EscapeOptions {
    // The result holds at most this many bytes of escaped text; a longer one is cut before the
    // first character or escape that would not fit, and "..." is appended (so the result is at
    // most max_bytes + 3 bytes). Never half a character, never half an escape.
    std::size_t max_bytes = std::numeric_limits<std::size_t>::max();
    // Escape every non-ASCII code point too (\u00e9; beyond U+FFFF as a surrogate pair, as JSON
    // does): for HTTP header values and logs that must stay ASCII.
    bool ascii = false;
};

// `text` with a visible escape in place of everything that could change how the text around it is
// read or shown:
//   - C0 controls U+0000..U+001F: \b \t \n \f \r, the others \u00XX (\u001b for ESC);
//   - DEL U+007F and the C1 controls U+0080..U+009F: \u007f, \u0080..\u009f;
//   - the line and paragraph separators U+2028, U+2029 and the bidirectional embeddings,
//     overrides and isolates U+202A..U+202E, U+2066..U+2069: \u2028 ... \u2069;
//   - each byte that is not part of well-formed UTF-8 (a stray continuation byte, a truncated,
//     overlong or surrogate sequence, anything above U+10FFFF): \xNN, lower-case hex, per byte;
//   - the backslash and the double quote: \\ and \" (the escapes above are then unambiguous,
//     and a quoted field of a log line cannot be closed from inside).
// Everything else is kept byte for byte. The result is well-formed UTF-8 with none of the code
// points above, and printable ASCII only with options.ascii. For well-formed UTF-8 input that was
// not cut, '"' + result + '"' is a JSON string literal that decodes to `text` exactly.
std::string escape_untrusted(std::string_view text, EscapeOptions options = {});

// The same with a size budget: escape_untrusted(text, {max_bytes}).
std::string escape_untrusted(std::string_view text, std::size_t max_bytes);

// True when escape_untrusted(text) == text: `text` may be shown as it is.
bool is_shown_as_is(std::string_view text);

}  // namespace paywasm
