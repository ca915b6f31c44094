// src/core/bigint_modexp.cpp — Montgomery modular exponentiation for the RSA public operation.
// See bigint_modexp.hpp: public exponent only, so no constant-time care is needed or taken.
//
// Numbers are little-endian vectors of 32-bit limbs; every product is 32x32 -> 64 bits (one i64.mul
// in WebAssembly). A Montgomery product is done in two steps: the full 2s-limb product (schoolbook;
// a square computes each cross product a[i]*a[j] once and doubles them, about half the
// multiplications, and e = 65537 is 16 squarings for 1 multiplication), then the reduction: s
// times, add the multiple m*n that clears the lowest remaining limb. What is left, shifted down s
// limbs, is a*b/R mod n, below 2n; one conditional subtraction brings it below n.
#include "core/bigint_modexp.hpp"

#include "paywasm/error.hpp"

namespace paywasm::detail {

namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

std::string_view strip_zeros(std::string_view m) {
    while (!m.empty() && m.front() == '\0') m.remove_prefix(1);
    return m;
}

// Big-endian bytes -> `limbs` little-endian limbs; false when the value does not fit.
bool to_limbs(std::string_view bytes, std::size_t limbs, std::vector<u32>& out) {
    bytes = strip_zeros(bytes);
    if (bytes.size() > limbs * 4) return false;
    out.assign(limbs, 0);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        auto byte = static_cast<u32>(static_cast<unsigned char>(bytes[bytes.size() - 1 - i]));
        out[i / 4] |= byte << (8 * (i % 4));
    }
    return true;
}

// a >= b over s limbs, with `a_top` an extra high limb of a.
bool at_least(const u32* a, u32 a_top, const u32* b, std::size_t s) {
    if (a_top != 0) return true;
    for (std::size_t i = s; i-- > 0;) {
        if (a[i] != b[i]) return a[i] > b[i];
    }
    return true;
}

// a -= b over s limbs (the borrow out of the top is dropped: callers know a >= b, counting a_top).
void subtract(u32* a, const u32* b, std::size_t s) {
    u64 borrow = 0;
    for (std::size_t i = 0; i < s; ++i) {
        u64 d = static_cast<u64>(a[i]) - b[i] - borrow;
        a[i] = static_cast<u32>(d);
        borrow = (d >> 32) & 1;
    }
}

}  // namespace

std::size_t bit_length(std::string_view magnitude) {
    magnitude = strip_zeros(magnitude);
    if (magnitude.empty()) return 0;
    std::size_t bits = (magnitude.size() - 1) * 8;
    for (auto top = static_cast<unsigned char>(magnitude[0]); top != 0; top >>= 1) ++bits;
    return bits;
}

int compare_magnitudes(std::string_view a, std::string_view b) {
    a = strip_zeros(a);
    b = strip_zeros(b);
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

MontgomeryModulus::MontgomeryModulus(std::string_view modulus) {
    modulus = strip_zeros(modulus);
    if (modulus.empty() || (static_cast<unsigned char>(modulus.back()) & 1) == 0 ||
        (modulus.size() == 1 && static_cast<unsigned char>(modulus[0]) < 3)) {
        throw Error(ErrorCode::crypto, "Montgomery modulus must be odd and at least 3");
    }
    const std::size_t s = (modulus.size() + 3) / 4;
    to_limbs(modulus, s, n_);

    // n' = -n^-1 mod 2^32. Newton's iteration x <- x(2 - n x) doubles the number of correct low
    // bits each time; x = n is already right to 3 bits for odd n, so 4 rounds give 48 >= 32.
    u32 inv = n_[0];
    for (int i = 0; i < 4; ++i) inv *= 2 - n_[0] * inv;
    n_prime_ = 0 - inv;

    // R^2 mod n without a division: with c = s, doubling (and subtracting n when needed) from
    // 2^(bits(n)-1) up to 2^(32s + c) mod n, then five Montgomery squarings, each taking
    // 2^(32s + x) to 2^(32s + 2x): 2^(32s + 32c) = 2^(64s) = R^2.
    const std::size_t bits = bit_length(modulus);
    Limbs x(s, 0);
    x[(bits - 1) / 32] = u32{1} << ((bits - 1) % 32);
    for (std::size_t k = bits - 1; k < 32 * s + s; ++k) {
        u32 carry = 0;
        for (std::size_t i = 0; i < s; ++i) {
            u32 next = x[i] >> 31;
            x[i] = (x[i] << 1) | carry;
            carry = next;
        }
        if (at_least(x.data(), carry, n_.data(), s)) subtract(x.data(), n_.data(), s);
    }
    Limbs y(s), scratch(2 * s);
    for (int i = 0; i < 5; ++i) {
        multiply(x.data(), x.data(), y.data(), scratch.data());
        x.swap(y);
    }
    r_squared_ = std::move(x);
}

namespace {

// t[0..2s) = a * b.
void multiply_full(const u32* a, const u32* b, u32* t, std::size_t s) {
    for (std::size_t j = 0; j < s; ++j) t[j] = 0;
    for (std::size_t i = 0; i < s; ++i) {
        const u64 bi = b[i];
        u64 carry = 0;
        u32* ti = t + i;
        for (std::size_t j = 0; j < s; ++j) {
            u64 p = a[j] * bi + ti[j] + carry;  // <= (2^32-1)^2 + 2(2^32-1) = 2^64 - 1: no overflow
            ti[j] = static_cast<u32>(p);
            carry = p >> 32;
        }
        ti[s] = static_cast<u32>(carry);
    }
}

// t[0..2s) = a * a: the cross products once, doubled, plus the squares on the diagonal.
void square_full(const u32* a, u32* t, std::size_t s) {
    for (std::size_t j = 0; j < 2 * s; ++j) t[j] = 0;
    for (std::size_t i = 0; i + 1 < s; ++i) {
        const u64 ai = a[i];
        u64 carry = 0;
        u32* tij = t + 2 * i + 1;  // a[i]*a[j] lands at i + j, j from i + 1
        const u32* aj = a + i + 1;
        const std::size_t count = s - i - 1;
        for (std::size_t j = 0; j < count; ++j) {
            u64 p = aj[j] * ai + tij[j] + carry;
            tij[j] = static_cast<u32>(p);
            carry = p >> 32;
        }
        tij[count] = static_cast<u32>(carry);
    }
    u32 shifted_out = 0;  // t = 2t
    for (std::size_t j = 0; j < 2 * s; ++j) {
        u32 next = t[j] >> 31;
        t[j] = (t[j] << 1) | shifted_out;
        shifted_out = next;
    }
    u64 carry = 0;  // t += sum a[i]^2 * 2^(64i)
    for (std::size_t i = 0; i < s; ++i) {
        u64 sq = static_cast<u64>(a[i]) * a[i];
        u64 lo = static_cast<u64>(t[2 * i]) + static_cast<u32>(sq) + carry;
        t[2 * i] = static_cast<u32>(lo);
        u64 hi = static_cast<u64>(t[2 * i + 1]) + (sq >> 32) + (lo >> 32);
        t[2 * i + 1] = static_cast<u32>(hi);
        carry = hi >> 32;
    }
}

}  // namespace

void MontgomeryModulus::multiply(const u32* a, const u32* b, u32* out, u32* t) const {
    const std::size_t s = n_.size();
    if (a == b) {
        square_full(a, t, s);
    } else {
        multiply_full(a, b, t, s);
    }
    reduce(t, out);
}

void MontgomeryModulus::reduce(u32* t, u32* out) const {
    const std::size_t s = n_.size();
    const u32* n = n_.data();
    u32 top = 0;  // the carry out of t[i + s], added one limb higher in the next round
    std::size_t i = 0;
    // Two rows at a time when s >= 2: row i+1's multiple m2 is known once row i has passed limb
    // i+1, so both rows then walk n together (half the loads and stores of t, two independent
    // multiplications per step). Same sums, same order per limb, as two single rows.
    for (; i + 1 < s; i += 2) {
        const u64 m1 = static_cast<u32>(t[i] * n_prime_);
        u32* ti = t + i;
        u64 c1 = (m1 * n[0] + ti[0]) >> 32;  // the low half is 0 by the choice of m1
        u64 p1 = m1 * n[1] + ti[1] + c1;
        c1 = p1 >> 32;
        const u64 m2 = static_cast<u32>(static_cast<u32>(p1) * n_prime_);
        u64 c2 = (m2 * n[0] + static_cast<u32>(p1)) >> 32;  // limb i+1: 0 as well
        for (std::size_t j = 2; j < s; ++j) {
            p1 = m1 * n[j] + ti[j] + c1;  // row i at limb i+j
            c1 = p1 >> 32;
            u64 p2 = m2 * n[j - 1] + static_cast<u32>(p1) + c2;  // row i+1 at the same limb
            ti[j] = static_cast<u32>(p2);
            c2 = p2 >> 32;
        }
        p1 = static_cast<u64>(ti[s]) + c1 + top;  // limb i+s: row i's carries
        u64 p2 = m2 * n[s - 1] + static_cast<u32>(p1) + c2;
        ti[s] = static_cast<u32>(p2);
        u64 sum = static_cast<u64>(ti[s + 1]) + (p2 >> 32) + (p1 >> 32);  // limb i+s+1
        ti[s + 1] = static_cast<u32>(sum);
        top = static_cast<u32>(sum >> 32);
    }
    for (; i < s; ++i) {
        const u64 m = static_cast<u32>(t[i] * n_prime_);  // t[i] + m*n[0] = 0 mod 2^32
        u32* ti = t + i;
        u64 carry = 0;
        for (std::size_t j = 0; j < s; ++j) {
            u64 p = m * n[j] + ti[j] + carry;
            ti[j] = static_cast<u32>(p);
            carry = p >> 32;
        }
        u64 sum = static_cast<u64>(ti[s]) + carry + top;
        ti[s] = static_cast<u32>(sum);
        top = static_cast<u32>(sum >> 32);
    }
    // t[s..2s) + top * 2^(32s) < 2n here; one subtraction at most.
    for (std::size_t j = 0; j < s; ++j) out[j] = t[s + j];
    if (at_least(out, top, n, s)) subtract(out, n, s);
}

std::string MontgomeryModulus::power(std::string_view base, std::string_view exponent, std::size_t out_bytes) const {
    const std::size_t s = n_.size();
    Limbs b, one(s, 0), acc(s), tmp(s), bm(s), scratch(2 * s);
    if (!to_limbs(base, s, b)) throw Error(ErrorCode::crypto, "RSA input is longer than the modulus");
    one[0] = 1;

    exponent = strip_zeros(exponent);
    if (exponent.empty()) {
        acc = one;  // b^0 = 1 (n >= 3)
    } else {
        multiply(b.data(), r_squared_.data(), bm.data(), scratch.data());  // b*R mod n (reduces b too)
        // Left to right over the exponent's bits, starting after its top bit (acc = b there).
        acc = bm;
        const std::size_t ebits = bit_length(exponent);
        for (std::size_t k = ebits - 1; k-- > 0;) {
            multiply(acc.data(), acc.data(), tmp.data(), scratch.data());
            acc.swap(tmp);
            auto byte = static_cast<unsigned char>(exponent[exponent.size() - 1 - k / 8]);
            if ((byte >> (k % 8)) & 1) {
                multiply(acc.data(), bm.data(), tmp.data(), scratch.data());
                acc.swap(tmp);
            }
        }
        multiply(acc.data(), one.data(), tmp.data(), scratch.data());  // out of Montgomery form
        acc.swap(tmp);
    }

    std::string out(out_bytes, '\0');
    for (std::size_t i = 0; i < 4 * s; ++i) {
        auto byte = static_cast<char>((acc[i / 4] >> (8 * (i % 4))) & 0xff);
        if (i < out_bytes) {
            out[out_bytes - 1 - i] = byte;
        } else if (byte != 0) {
            throw Error(ErrorCode::crypto, "RSA output does not fit in the block");
        }
    }
    return out;
}

}  // namespace paywasm::detail
