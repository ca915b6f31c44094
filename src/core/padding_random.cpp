// src/core/padding_random.cpp — where encryption's padding gets its random bytes: the platform
// CSPRNG. Alone in its object file on purpose: the unit tests link their own
// detail::padding_random (tests/unit/random_source.cpp) in its place, and the linker then takes
// nothing from this file. See crypto_internal.hpp.
#include "core/crypto_internal.hpp"

namespace paywasm::detail {

void padding_random(unsigned char* out, std::size_t n) { random_bytes(out, n); }

}  // namespace paywasm::detail
