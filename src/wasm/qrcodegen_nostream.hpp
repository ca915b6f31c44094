// src/wasm/qrcodegen_nostream.hpp — force-included into qrcodegen.cpp in the wasm build only.
//
// qrcodegen builds one error message (data_too_long) with a std::ostringstream, and that single use
// links all of libc++'s iostream and locale machinery into the module: about 55 KB of code plus
// sscanf/strftime/printf behind the locale facets. This header stands a small string builder in for
// it, producing the same text. <sstream> is included first so qrcodegen's own #include of it is a
// no-op and the macro below only touches qrcodegen's code.
#pragma once

#include <sstream>
#include <string>

namespace paywasm_wasm_detail {
class StringBuilder {
public:
    StringBuilder& operator<<(const char* s) { text_ += s; return *this; }
    StringBuilder& operator<<(int v) { text_ += std::to_string(v); return *this; }
    std::string str() const { return text_; }

private:
    std::string text_;
};
}  // namespace paywasm_wasm_detail

namespace std {
using paywasm_string_builder = ::paywasm_wasm_detail::StringBuilder;
}
#define ostringstream paywasm_string_builder
