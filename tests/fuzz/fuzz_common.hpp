// tests/fuzz/fuzz_common.hpp — what every libFuzzer target shares: the input as text, the rule that a
// parser may fail only with paywasm::Error of the codes it documents, and property checks that abort
// (libFuzzer reports an abort as a crash and saves the input that caused it).
//
// Anything else escaping a parser (std::out_of_range, std::bad_alloc, a Crypto++ exception) is not
// caught here: it reaches std::terminate, which aborts with the exception's type, so libFuzzer
// records it as a crash too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/utf8.hpp"
#include "paywasm/error.hpp"

namespace paywasm::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what` when `ok` is false: a broken property is a crash.
#define PAYWASM_FUZZ_CHECK(ok, what)                                                                \
    do {                                                                                             \
        if (!(ok)) ::paywasm::fuzz::property_failed(__FILE__, __LINE__, #ok, what);                  \
    } while (false)

[[noreturn]] inline void property_failed(const char* file, int line, const char* expr, std::string_view what) {
    std::fprintf(stderr, "\n==paywasm-fuzz== property failed at %s:%d: %s\n  %.*s\n", file, line, expr,
                 static_cast<int>(what.size() < 2000 ? what.size() : 2000), what.data());
    std::abort();
}

// True when `s` is safe to show as is in a log line, a terminal or a UI: well-formed UTF-8 without
// C0 or C1 controls, DEL, bidi overrides or line/paragraph separators (what paywasm/text.hpp's
// escape_untrusted() promises to leave; checked here from core/utf8.hpp's definitions, not with it).
inline bool printable(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        std::uint32_t cp = 0;
        const std::size_t n = detail::utf8_decode(s, i, cp);
        if (n == 0 || detail::is_control(cp) || detail::is_bidi_override(cp) || cp == 0x2028 || cp == 0x2029)
            return false;
        i += n;
    }
    return true;
}

// Runs `body`; a paywasm::Error whose code is one of `allowed` is the parser saying no, and is
// swallowed (returns false). Any other code is a broken contract and aborts. Returns true when
// `body` returned normally.
template <class Body>
bool accepts(std::initializer_list<ErrorCode> allowed, Body&& body) {
    try {
        body();
        return true;
    } catch (const Error& e) {
        bool known = false;
        for (ErrorCode c : allowed) known = known || c == e.code();
        if (!known) {
            property_failed(__FILE__, __LINE__, "error code is one the parser documents",
                            std::string(to_string(e.code())) + ": " + e.what());
        }
        PAYWASM_FUZZ_CHECK(e.what()[0] != '\0', "an error has a message");
        // Messages reach logs, terminals and the shopper's screen: untrusted text in them is escaped.
        PAYWASM_FUZZ_CHECK(printable(e.what()), "an error message holds no control byte");
        PAYWASM_FUZZ_CHECK(printable(e.field()), "an error's field path holds no control byte");
        return false;
    }
}

}  // namespace paywasm::fuzz
