// The unit tests' hold on encryption's randomness (the link-time seam of core/crypto_internal.hpp).
// The unit test binaries link random_source.cpp, whose detail::padding_random hands out the bytes of
// the ScriptedRandom alive at that moment, and the platform CSPRNG (random_bytes) when there is
// none: every other test encrypts with real randomness. The widget and the programs never link it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace paywasm::test {

// While alive, OAEP seeds and PKCS#1 v1.5 padding strings come from `next`, one byte per call, and
// every byte handed out is kept in bytes(). One at a time (a second while one is alive is a test
// bug: REQUIREd); the unit tests run on one thread.
class ScriptedRandom {
public:
    explicit ScriptedRandom(std::function<unsigned char()> next);
    ~ScriptedRandom();
    ScriptedRandom(const ScriptedRandom&) = delete;
    ScriptedRandom& operator=(const ScriptedRandom&) = delete;

    // Every byte handed out so far, in order.
    const std::string& bytes() const { return bytes_; }

    // For random_source.cpp: the next n bytes into out.
    void fill(unsigned char* out, std::size_t n);

private:
    std::function<unsigned char()> next_;
    std::string bytes_;
};

}  // namespace paywasm::test
