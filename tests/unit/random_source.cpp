// The unit build's definition of detail::padding_random (see random_source.hpp): linked into the
// unit test binaries in place of src/core/padding_random.cpp.
#include "random_source.hpp"

#include <doctest/doctest.h>

#include "core/crypto_internal.hpp"
#include "paywasm/crypto.hpp"

namespace paywasm {
namespace {
test::ScriptedRandom* g_active = nullptr;
}  // namespace

namespace test {

ScriptedRandom::ScriptedRandom(std::function<unsigned char()> next) : next_(std::move(next)) {
    REQUIRE(g_active == nullptr);
    g_active = this;
}

ScriptedRandom::~ScriptedRandom() { g_active = nullptr; }

void ScriptedRandom::fill(unsigned char* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = next_();
        bytes_ += static_cast<char>(out[i]);
    }
}

}  // namespace test

void detail::padding_random(unsigned char* out, std::size_t n) {
    if (g_active != nullptr) {
        g_active->fill(out, n);
    } else {
        random_bytes(out, n);
    }
}

}  // namespace paywasm
