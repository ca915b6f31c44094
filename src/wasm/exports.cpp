// src/wasm/exports.cpp — the module's only entry points (plain C exports: no embind, which needs
// 'unsafe-eval' under a Content-Security-Policy).
//
// Calling convention, used by web/src/core.js:
//   p = pw_alloc(n)            n bytes for an argument string (NUL-terminated UTF-8)
//   r = pw_call(op, args)      op name and JSON argument object; returns a NUL-terminated JSON text
//                                {"ok":true,"value":<json>[,"warnings":[...]]}
//                                {"ok":false,"error":{"code","message","field","httpStatus"}}
//   pw_free(p), pw_free(r)     the caller releases both (after wiping them: they may hold a token)
// Nothing throws across the boundary: paywasm::Error keeps its code, any other exception becomes
// code "internal". pw_call returns 0 only when even the error envelope cannot be allocated.
#include <emscripten/emscripten.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/checkout.hpp"
#include "paywasm/error.hpp"
#include "paywasm/json.hpp"
#include "paywasm/protocol.hpp"
#include "wasm/ops.hpp"

namespace {

// Deprecation warnings of the core, handed back with the result (JS prints them with console.warn).
std::vector<std::string> g_warnings;
void collect_warning(std::string_view message) { g_warnings.emplace_back(message); }

std::string error_envelope(const std::string& error) { return "{\"ok\":false,\"error\":" + error + "}"; }

std::string call(const char* op, const char* args) {
    g_warnings.clear();
    try {
        std::string out = "{\"ok\":true,\"value\":";
        out += paywasm::wasm::run_op(op ? op : "", args ? std::string_view(args) : "{}");
        if (!g_warnings.empty()) {
            out += ",\"warnings\":[";
            for (std::size_t i = 0; i < g_warnings.size(); ++i) {
                if (i) out += ',';
                out += paywasm::json_quote(g_warnings[i]);
            }
            out += ']';
        }
        out += '}';
        return out;
    } catch (const paywasm::Error& e) {
        return error_envelope(paywasm::error_json(e));
    } catch (const std::bad_alloc&) {
        return error_envelope(paywasm::error_json("internal", "out of memory"));
    } catch (const std::exception& e) {
        return error_envelope(paywasm::error_json("internal", e.what()));
    } catch (...) {
        return error_envelope(paywasm::error_json("internal", "unknown failure"));
    }
}

char* to_c_string(const std::string& s) {
    auto* out = static_cast<char*>(std::malloc(s.size() + 1));
    if (out) std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

}  // namespace

extern "C" {

// The module has no environment (web/src/core.js hands it an empty one): getenv answers nullptr,
// as libc's would. Linking libc's getenv also links its constructor that copies the environment
// through two WASI imports (environ_sizes_get, environ_get) when _initialize runs, although
// nothing the module reaches calls getenv (the references come from libc's locale and time-zone
// code, which the libc++ objects qrcodegen and Crypto++ use pull into the link). -87 B gzip.
char* getenv(const char*) { return nullptr; }

EMSCRIPTEN_KEEPALIVE void* pw_alloc(std::size_t n) { return std::malloc(n ? n : 1); }

EMSCRIPTEN_KEEPALIVE void pw_free(void* p) { std::free(p); }

EMSCRIPTEN_KEEPALIVE char* pw_call(const char* op, const char* args) {
    static bool sink_set = false;
    if (!sink_set) {
        paywasm::set_warning_sink(collect_warning);
        sink_set = true;
    }
    try {
        return to_c_string(call(op, args));
    } catch (...) {
        return nullptr;  // the envelope itself could not be built (out of memory)
    }
}

}  // extern "C"
