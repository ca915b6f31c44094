// src/wasm/ops.hpp — the operations behind pw_call (see exports.cpp for the calling convention).
#pragma once

#include <string>
#include <string_view>

namespace paywasm::wasm {

// Runs operation `name` on the JSON argument object `args_json` and returns the JSON text of its
// value. Throws paywasm::Error (validation for an unknown op or a bad argument) like the core.
std::string run_op(std::string_view name, std::string_view args_json);

}  // namespace paywasm::wasm
