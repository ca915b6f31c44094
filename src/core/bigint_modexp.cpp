// src/core/bigint_modexp.cpp — Montgomery modular exponentiation for the RSA public operation.
// The timing model is bigint_modexp.hpp's: the exponent and the modulus are public, the base (the
// padded block of the shopper's payload) is secret. So no branch or memory access below depends on
// the base's value: the product and reduction loops run a fixed number of times for a given
// modulus, and every Montgomery product ends in a masked select (subtract_if_at_least), not a
// branch. Branches on the exponent's bits (the ladder) and on the modulus (setup, at_least) are on
// public data. One exception, argued in the header: to_limbs skips the base's leading zero bytes.
//
// Numbers are little-endian vectors of 32-bit limbs; every product is 32x32 -> 64 bits. A Montgomery
// product is done in two steps: the full 2s-limb product (schoolbook; a square computes each cross
// product a[i]*a[j] once and doubles them, about half the multiplications, and e = 65537 is 16
// squarings for 1 multiplication), then the reduction: s times, add the multiple m*n that clears the
// lowest remaining limb. What is left, shifted down s limbs, is a*b/R mod n, below 2n; one
// conditional subtraction brings it below n.
//
// Two exponentiations run side by side, in lockstep: limb j of the two numbers sits at [2j] and
// [2j + 1] ("pairs"), and every step works on both lanes at once. In wasm with SIMD128 (this file is
// compiled with -msimd128) a lane pair is one v128: i64x2.extmul_low_i32x4_u gives both 32x32->64
// products in one instruction, and the loads, adds and shifts are shared as well. Elsewhere the same
// steps run on two scalars (Lanes below), so the native tests check the same algorithm.
#include "core/bigint_modexp.hpp"

#include "paywasm/error.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

// The file is compiled for speed (-O2 in wasm) for the three loops of the Montgomery product; the
// rest runs a few times per block or per key and is kept small.
#if defined(__clang__)
#define SMALL __attribute__((minsize))
#else
#define SMALL
#endif

namespace paywasm::detail {

namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// ---- Two lanes ----
// V: two 64-bit lanes. P: two 32-bit multiplicands (what mul() takes); in SIMD the i32 lanes 0, 1.
// The wrappers must inline: called, each would cost more than the instruction it wraps.
#define ALWAYS_INLINE inline __attribute__((always_inline))
#if defined(__wasm_simd128__)
using V = v128_t;
ALWAYS_INLINE V ld(const u32* p) { return wasm_u64x2_load32x2(p); }  // p[0], p[1], zero-extended
ALWAYS_INLINE void st(u32* p, V v) { wasm_v128_store64_lane(p, wasm_i32x4_shuffle(v, v, 0, 2, 0, 2), 0); }  // low halves
ALWAYS_INLINE V ldp(const u32* p) { return wasm_v128_load64_zero(p); }  // p[0], p[1] as multiplicands
ALWAYS_INLINE V splat(const u32* p) { return wasm_v128_load32_splat(p); }  // p[0] in both lanes, as a multiplicand
// wasm_u64x2_extmul_low_u32x4 is written in the header as extend * extend, and once inlined next to
// a load LLVM 14 folds it into i64x2.load32x2_u + i64x2.mul, which V8 lowers to about 8 x64
// instructions instead of extmul's 3 (pmuludq): the instruction itself, as inline assembly.
ALWAYS_INLINE V mul(V a, V b) {
    V r;
    __asm__("local.get %1\n\tlocal.get %2\n\ti64x2.extmul_low_i32x4_u\n\tlocal.set %0" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
ALWAYS_INLINE V add(V a, V b) { return wasm_i64x2_add(a, b); }
ALWAYS_INLINE V hi(V a) { return wasm_u64x2_shr(a, 32); }
ALWAYS_INLINE V lo(V a) { return wasm_v128_and(a, wasm_i64x2_const_splat(0xffffffff)); }
ALWAYS_INLINE V zero() { return wasm_i64x2_const_splat(0); }
ALWAYS_INLINE V to_p(V v) { return wasm_i32x4_shuffle(v, v, 0, 2, 0, 2); }  // low halves as multiplicands
ALWAYS_INLINE V mul_low32(V p, u32 k) { return wasm_i32x4_mul(p, wasm_i32x4_splat(static_cast<int>(k))); }  // P * k mod 2^32
ALWAYS_INLINE u32 lane0(V v) { return static_cast<u32>(wasm_i64x2_extract_lane(v, 0)); }
ALWAYS_INLINE u32 lane1(V v) { return static_cast<u32>(wasm_i64x2_extract_lane(v, 1)); }
#else
struct V {
    u64 x0, x1;
};
ALWAYS_INLINE V ld(const u32* p) { return {p[0], p[1]}; }
ALWAYS_INLINE void st(u32* p, V v) {
    p[0] = static_cast<u32>(v.x0);
    p[1] = static_cast<u32>(v.x1);
}
ALWAYS_INLINE V ldp(const u32* p) { return {p[0], p[1]}; }
ALWAYS_INLINE V splat(const u32* p) { return {p[0], p[0]}; }
ALWAYS_INLINE V mul(V a, V b) { return {u64{static_cast<u32>(a.x0)} * static_cast<u32>(b.x0), u64{static_cast<u32>(a.x1)} * static_cast<u32>(b.x1)}; }
ALWAYS_INLINE V add(V a, V b) { return {a.x0 + b.x0, a.x1 + b.x1}; }
ALWAYS_INLINE V hi(V a) { return {a.x0 >> 32, a.x1 >> 32}; }
ALWAYS_INLINE V lo(V a) { return {a.x0 & 0xffffffffu, a.x1 & 0xffffffffu}; }
ALWAYS_INLINE V zero() { return {0, 0}; }
ALWAYS_INLINE V to_p(V v) { return lo(v); }
ALWAYS_INLINE V mul_low32(V p, u32 k) { return {static_cast<u32>(static_cast<u32>(p.x0) * k), static_cast<u32>(static_cast<u32>(p.x1) * k)}; }
ALWAYS_INLINE u32 lane0(V v) { return static_cast<u32>(v.x0); }
ALWAYS_INLINE u32 lane1(V v) { return static_cast<u32>(v.x1); }
#endif

SMALL std::string_view strip_zeros(std::string_view m) {
    while (!m.empty() && m.front() == '\0') m.remove_prefix(1);
    return m;
}

// Big-endian bytes -> limbs little-endian limbs at out[0], out[stride], ...; false when the value
// does not fit. `out` must hold stride * limbs entries.
SMALL bool to_limbs(std::string_view bytes, std::size_t limbs, u32* out, std::size_t stride) {
    bytes = strip_zeros(bytes);
    if (bytes.size() > limbs * 4) return false;
    for (std::size_t j = 0; j < limbs; ++j) out[j * stride] = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        auto byte = static_cast<u32>(static_cast<unsigned char>(bytes[bytes.size() - 1 - i]));
        out[(i / 4) * stride] |= byte << (8 * (i % 4));
    }
    return true;
}

// a >= b over s limbs (a's limbs `stride` apart, b's contiguous), with `a_top` an extra high limb.
SMALL bool at_least(const u32* a, u32 a_top, const u32* b, std::size_t s, std::size_t stride) {
    if (a_top != 0) return true;
    for (std::size_t i = s; i-- > 0;) {
        if (a[i * stride] != b[i]) return a[i * stride] > b[i];
    }
    return true;
}

// a -= b over s limbs, a's `stride` apart (the borrow out of the top is dropped: callers know
// a >= b, counting a_top).
SMALL void subtract(u32* a, const u32* b, std::size_t s, std::size_t stride) {
    u64 borrow = 0;
    for (std::size_t i = 0; i < s; ++i) {
        u64 d = static_cast<u64>(a[i * stride]) - b[i] - borrow;
        a[i * stride] = static_cast<u32>(d);
        borrow = (d >> 32) & 1;
    }
}

// a -= b when a + a_top * 2^(32s) >= b (a_top is 0 or 1), else a stays: always both passes over
// every limb, the result chosen by a mask, so neither a branch nor a memory access depends on the
// values (a holds the secret payload's block).
SMALL void subtract_if_at_least(u32* a, u32 a_top, const u32* b, std::size_t s, std::size_t stride) {
    u64 borrow = 0;
    for (std::size_t i = 0; i < s; ++i) borrow = ((static_cast<u64>(a[i * stride]) - b[i] - borrow) >> 32) & 1;
    const u64 top = static_cast<u64>(a_top) - borrow;   // wraps (top bit set) exactly when a < b
    const u32 keep = static_cast<u32>(0) - static_cast<u32>(top >> 63);  // all ones: a < b, keep a
    borrow = 0;
    for (std::size_t i = 0; i < s; ++i) {
        const u64 d = static_cast<u64>(a[i * stride]) - b[i] - borrow;
        borrow = (d >> 32) & 1;
        a[i * stride] = (a[i * stride] & keep) | (static_cast<u32>(d) & ~keep);
    }
}

// t[0..2s) = a * b, pairs.
void multiply_full(const u32* a, const u32* b, u32* t, std::size_t s) {
    for (std::size_t j = 0; j < 2 * s; ++j) t[j] = 0;
    for (std::size_t i = 0; i < s; ++i) {
        const V bi = ldp(b + 2 * i);
        V carry = zero();
        u32* ti = t + 2 * i;
        for (std::size_t j = 0; j < s; ++j) {
            V p = add(add(mul(ldp(a + 2 * j), bi), ld(ti + 2 * j)), carry);  // < 2^64: no overflow
            st(ti + 2 * j, p);
            carry = hi(p);
        }
        st(ti + 2 * s, carry);
    }
}

// t[0..2s) = a * a, pairs (s even): the cross products once, doubled, plus the squares on the
// diagonal. Rows i and i+1 of the cross products (a[i]*a[j], j > i, at limb i+j) go together, as
// in reduce(): at limb q, row i adds a[i]*a[q-i] and row i+1 then a[i+1]*a[q-i-1].
void square_full(const u32* a, u32* t, std::size_t s) {
    for (std::size_t j = 0; j < 4 * s; ++j) t[j] = 0;
    for (std::size_t i = 0; i < s; i += 2) {
        const V ai = ldp(a + 2 * i), ai1 = ldp(a + 2 * (i + 1));
        u32* tq = t + 2 * (2 * i + 1);  // limb 2i+1: row i alone
        V p1 = add(mul(ai, ai1), ld(tq));
        st(tq, p1);
        V c1 = hi(p1);
        if (i + 2 < s) {
            V a_prev = ldp(a + 2 * (i + 2));
            p1 = add(add(mul(ai, a_prev), ld(tq + 2)), c1);  // limb 2i+2: row i alone (a[i+1]^2 is diagonal)
            st(tq + 2, p1);
            c1 = hi(p1);
            V c2 = zero();
            for (std::size_t j = i + 3; j < s; ++j) {
                u32* tj = t + 2 * (i + j);
                const V aj = ldp(a + 2 * j);
                p1 = add(add(mul(ai, aj), ld(tj)), c1);
                c1 = hi(p1);
                V p2 = add(add(mul(ai1, a_prev), lo(p1)), c2);
                st(tj, p2);
                c2 = hi(p2);
                a_prev = aj;
            }
            V p2 = add(add(mul(ai1, a_prev), c1), c2);  // limb i+s: row i+1's last (zero until now)
            st(t + 2 * (i + s), p2);
            st(t + 2 * (i + s + 1), hi(p2));
        } else {
            st(t + 2 * (i + s), c1);
        }
    }
    // t = 2t + sum a[i]^2 * 2^(64i), one pass: each limb doubled plus its half of the square.
    V carry = zero();
    for (std::size_t i = 0; i < s; ++i) {
        const V ai = ldp(a + 2 * i);
        const V sq = mul(ai, ai);
        V t0 = ld(t + 4 * i);
        V w = add(add(add(t0, t0), lo(sq)), carry);
        st(t + 4 * i, w);
        V t1 = ld(t + 4 * i + 2);
        w = add(add(add(t1, t1), hi(sq)), hi(w));
        st(t + 4 * i + 2, w);
        carry = hi(w);
    }
}

}  // namespace

SMALL std::size_t bit_length(std::string_view magnitude) {
    magnitude = strip_zeros(magnitude);
    if (magnitude.empty()) return 0;
    std::size_t bits = (magnitude.size() - 1) * 8;
    for (auto top = static_cast<unsigned char>(magnitude[0]); top != 0; top >>= 1) ++bits;
    return bits;
}

SMALL int compare_magnitudes(std::string_view a, std::string_view b) {
    a = strip_zeros(a);
    b = strip_zeros(b);
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

SMALL MontgomeryModulus::MontgomeryModulus(std::string_view modulus) {
    modulus = strip_zeros(modulus);
    if (modulus.empty() || (static_cast<unsigned char>(modulus.back()) & 1) == 0 ||
        (modulus.size() == 1 && static_cast<unsigned char>(modulus[0]) < 3)) {
        throw Error(ErrorCode::crypto, "Montgomery modulus must be odd and at least 3");
    }
    // An even number of limbs, for reduce()'s two rows at a time: a top limb of zeros, when there is
    // one, changes nothing but R (n < R still).
    const std::size_t s = ((modulus.size() + 3) / 4 + 1) & ~std::size_t{1};
    base_bytes_ = (modulus.size() + 3) / 4 * 4;
    n_ = Limbs(s);
    to_limbs(modulus, s, n_.data(), 1);

    // n' = -n^-1 mod 2^32. Newton's iteration x <- x(2 - n x) doubles the number of correct low
    // bits each time; x = n is already right to 3 bits for odd n, so 4 rounds give 48 >= 32.
    u32 inv = n_[0];
    for (int i = 0; i < 4; ++i) inv *= 2 - n_[0] * inv;
    n_prime_ = 0 - inv;

    // R^2 mod n without a division: with c = s, doubling (and subtracting n when needed) from
    // 2^(bits(n)-1) up to 2^(32s + c) mod n, then five Montgomery squarings, each taking
    // 2^(32s + x) to 2^(32s + 2x): 2^(32s + 32c) = 2^(64s) = R^2. In pairs, both lanes the same.
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
        if (at_least(x.data(), carry, n_.data(), s, 1)) subtract(x.data(), n_.data(), s, 1);
    }
    Limbs xx(2 * s), y(2 * s), scratch(4 * s + 2);
    for (std::size_t j = 0; j < s; ++j) xx[2 * j] = xx[2 * j + 1] = x[j];
    for (int i = 0; i < 5; ++i) {
        multiply(xx.data(), xx.data(), y.data(), scratch.data());
        xx.swap(y);
    }
    r_squared_ = std::move(xx);
}

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
    V top = zero();  // the carry out of t[i + s], added one limb higher in the next round
    // Two rows at a time (s is even): row i+1's multiple m2 is known once row i has passed limb
    // i+1, so both rows then walk n together (half the loads and stores of t). Same sums, same
    // order per limb, as two single rows.
    for (std::size_t i = 0; i < s; i += 2) {
        u32* ti = t + 2 * i;
        const V m1 = mul_low32(ldp(ti), n_prime_);
        const V n0 = splat(n), n1 = splat(n + 1);
        V c1 = hi(add(mul(m1, n0), ld(ti)));  // the low half is 0 by the choice of m1
        V p1 = add(add(mul(m1, n1), ld(ti + 2)), c1);
        c1 = hi(p1);
        const V m2 = mul_low32(to_p(p1), n_prime_);
        V c2 = hi(add(mul(m2, n0), lo(p1)));  // limb i+1: 0 as well
        V n_prev = n1;
        for (std::size_t j = 2; j < s; ++j) {
            const V nj = splat(n + j);
            p1 = add(add(mul(m1, nj), ld(ti + 2 * j)), c1);  // row i at limb i+j
            c1 = hi(p1);
            V p2 = add(add(mul(m2, n_prev), lo(p1)), c2);  // row i+1 at the same limb
            st(ti + 2 * j, p2);
            c2 = hi(p2);
            n_prev = nj;
        }
        p1 = add(add(ld(ti + 2 * s), c1), top);  // limb i+s: row i's carries
        V p2 = add(add(mul(m2, n_prev), lo(p1)), c2);
        st(ti + 2 * s, p2);
        V sum = add(add(ld(ti + 2 * s + 2), hi(p2)), hi(p1));  // limb i+s+1
        st(ti + 2 * s + 2, sum);
        top = hi(sum);
    }
    // t[s..2s) + top * 2^(32s) < 2n here, in each lane; one subtraction at most.
    for (std::size_t j = 0; j < 2 * s; ++j) out[j] = t[2 * s + j];
    subtract_if_at_least(out, lane0(top), n, s, 2);
    subtract_if_at_least(out + 1, lane1(top), n, s, 2);
}

SMALL std::string MontgomeryModulus::power_each(const std::string_view* bases, std::size_t count,
                                               std::string_view exponent, std::size_t out_bytes) const {
    const std::size_t s = n_.size();
    exponent = strip_zeros(exponent);
    const std::size_t ebits = bit_length(exponent);
    std::string results(count * out_bytes, '\0');
    Limbs b(2 * s), acc(2 * s), tmp(2 * s), bm(2 * s), scratch(4 * s + 2);
    for (std::size_t first = 0; first < count; first += 2) {
        const std::size_t lanes = count - first < 2 ? 1 : 2;  // an odd last base runs in both lanes
        for (std::size_t lane = 0; lane < 2; ++lane) {
            const std::string_view base = strip_zeros(bases[first + (lane < lanes ? lane : 0)]);
            if (base.size() > base_bytes_ || !to_limbs(base, s, b.data() + lane, 2)) {
                throw Error(ErrorCode::crypto, "RSA input is longer than the modulus");
            }
        }
        if (ebits == 0) {  // b^0 = 1 (n >= 3)
            for (std::size_t j = 0; j < 2 * s; ++j) acc[j] = j < 2 ? 1 : 0;
        } else {
            multiply(b.data(), r_squared_.data(), bm.data(), scratch.data());  // b*R mod n (reduces b too)
            // Left to right over the exponent's bits, starting after its top bit (acc = b*R there).
            // A set lowest bit multiplies by b itself: (x*R) * b / R = x*b, which leaves Montgomery
            // form in the same step; b < R and acc < n keep the product below R*n, as needed.
            acc = bm;
            bool converted = false;
            for (std::size_t k = ebits - 1; k-- > 0;) {
                multiply(acc.data(), acc.data(), tmp.data(), scratch.data());
                acc.swap(tmp);
                auto byte = static_cast<unsigned char>(exponent[exponent.size() - 1 - k / 8]);
                if ((byte >> (k % 8)) & 1) {
                    multiply(acc.data(), k == 0 ? b.data() : bm.data(), tmp.data(), scratch.data());
                    acc.swap(tmp);
                    converted = k == 0;
                }
            }
            if (!converted) {  // out of Montgomery form: acc / R, a reduction alone
                for (std::size_t j = 0; j < 2 * s; ++j) {
                    scratch[j] = acc[j];
                    scratch[2 * s + j] = 0;
                }
                reduce(scratch.data(), acc.data());
            }
        }
        for (std::size_t lane = 0; lane < lanes; ++lane) {
            char* out = &results[(first + lane) * out_bytes];
            for (std::size_t i = 0; i < 4 * s; ++i) {
                auto byte = static_cast<char>((acc[2 * (i / 4) + lane] >> (8 * (i % 4))) & 0xff);
                if (i < out_bytes) {
                    out[out_bytes - 1 - i] = byte;
                } else if (byte != 0) {
                    throw Error(ErrorCode::crypto, "RSA output does not fit in the block");
                }
            }
        }
    }
    return results;
}

SMALL std::string MontgomeryModulus::power(std::string_view base, std::string_view exponent, std::size_t out_bytes) const {
    return power_each(&base, 1, exponent, out_bytes);
}

}  // namespace paywasm::detail
