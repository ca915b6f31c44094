// Unit tests of encryption's randomness: with a known byte stream in place of the platform's
// (random_source.hpp), every block of a multi-block payload is decrypted raw (c^d mod n, Crypto++'s
// Integer: independent of the encoder) and its seed (OAEP) or padding string (PKCS#1 v1.5) read
// back. Each block must have its own, taken from the stream in order, none repeated: an encoder
// that reuses one seed for every block still round-trips, so only this sees it.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <cryptopp/integer.h>
#include <cryptopp/nbtheory.h>
#include <cryptopp/queue.h>
#include <cryptopp/rsa.h>
#include <cryptopp/sha.h>

#include "paywasm/crypto.hpp"
#include "random_source.hpp"
#include "test_crypto_keys.hpp"

using namespace paywasm;
namespace keys = paywasm::test_keys;

namespace {

// SplitMix64, one byte at a time: a stream in which no window repeats. `zero_every` > 0 makes every
// zero_every-th byte 0 (PKCS#1 v1.5 must draw those again).
std::function<unsigned char()> stream(std::uint64_t seed, int zero_every = 0) {
    return [state = seed, word = std::uint64_t{0}, left = 0, n = 0, zero_every]() mutable {
        if (left == 0) {
            std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            word = z ^ (z >> 31);
            left = 8;
        }
        const auto b = static_cast<unsigned char>(word);
        word >>= 8;
        --left;
        ++n;
        return (zero_every > 0 && n % zero_every == 0) ? static_cast<unsigned char>(0) : (b == 0 ? static_cast<unsigned char>(1) : b);
    };
}

// The 2048-bit test key for Crypto++'s raw private operation.
CryptoPP::RSA::PrivateKey raw_key() {
    std::string pem = keys::kPrivate2048;
    const auto begin = pem.find('\n') + 1;
    const auto end = pem.find("-----END");
    const std::string der = base64_decode(pem.substr(begin, end - begin));
    CryptoPP::ByteQueue queue;
    queue.Put(reinterpret_cast<const CryptoPP::byte*>(der.data()), der.size());
    queue.MessageEnd();
    CryptoPP::RSA::PrivateKey key;
    key.Load(queue);  // PKCS#8
    return key;
}

// Each k-byte block of a base64 ciphertext as its encoded message EM = c^d mod n, k bytes.
std::vector<std::string> raw_blocks(const std::string& base64) {
    const CryptoPP::RSA::PrivateKey key = raw_key();
    const std::size_t k = key.GetModulus().ByteCount();
    const std::string c = base64_decode(base64);
    REQUIRE(c.size() % k == 0);
    std::vector<std::string> out;
    for (std::size_t off = 0; off < c.size(); off += k) {
        const CryptoPP::Integer m = CryptoPP::ModularExponentiation(
            CryptoPP::Integer(reinterpret_cast<const CryptoPP::byte*>(c.data()) + off, k), key.GetPrivateExponent(),
            key.GetModulus());
        std::string em(k, '\0');
        m.Encode(reinterpret_cast<CryptoPP::byte*>(em.data()), k);
        out.push_back(em);
    }
    return out;
}

// MGF1 (RFC 8017 B.2.1) with hash H: `length` bytes from `seed`.
template <class H>
std::string mgf1(const std::string& seed, std::size_t length) {
    std::string out;
    for (std::uint32_t counter = 0; out.size() < length; ++counter) {
        H h;
        const unsigned char c[4] = {static_cast<unsigned char>(counter >> 24), static_cast<unsigned char>(counter >> 16),
                                    static_cast<unsigned char>(counter >> 8), static_cast<unsigned char>(counter)};
        std::string digest(H::DIGESTSIZE, '\0');
        h.Update(reinterpret_cast<const CryptoPP::byte*>(seed.data()), seed.size());
        h.Update(c, 4);
        h.Final(reinterpret_cast<CryptoPP::byte*>(digest.data()));
        out += digest;
    }
    return out.substr(0, length);
}

std::string xor_of(std::string a, const std::string& b) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<char>(a[i] ^ b[i]);
    return a;
}

// A message of n printable bytes.
std::string message(std::size_t n) {
    std::string s(n, ' ');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(0x21 + (i * 7) % 90);
    return s;
}

// One OAEP block EM = 0x00 || maskedSeed || maskedDB (RFC 8017 7.1.2): its seed, after checking
// that DB = lHash || 0..0 || 0x01 || `piece`, so the seed read back is the one that was used.
template <class H>
std::string oaep_seed(const std::string& em, const std::string& piece) {
    constexpr std::size_t h = H::DIGESTSIZE;
    REQUIRE(em[0] == '\0');
    const std::string masked_seed = em.substr(1, h);
    const std::string masked_db = em.substr(1 + h);
    const std::string seed = xor_of(masked_seed, mgf1<H>(masked_db, h));
    const std::string db = xor_of(masked_db, mgf1<H>(seed, masked_db.size()));
    std::string l_hash(h, '\0');
    H().CalculateDigest(reinterpret_cast<CryptoPP::byte*>(l_hash.data()), nullptr, 0);
    CHECK(db.substr(0, h) == l_hash);
    const std::size_t one = db.size() - piece.size() - 1;
    CHECK(db.substr(h, one - h) == std::string(one - h, '\0'));
    CHECK(db[one] == '\x01');
    CHECK(db.substr(one + 1) == piece);
    return seed;
}

template <class H>
void every_block_has_its_own_seed(Padding padding) {
    const PublicKey key = PublicKey::parse(keys::kPublic2048);
    const std::size_t piece = max_piece(key, padding);
    const std::string text = message(700);
    const std::size_t blocks = (text.size() + piece - 1) / piece;
    REQUIRE(blocks == 4);
    test::ScriptedRandom random(stream(42));
    const std::string first = encrypt(key, text, padding);
    const std::string second = encrypt(key, text, padding);  // the stream goes on
    constexpr std::size_t h = H::DIGESTSIZE;
    REQUIRE(random.bytes().size() == 2 * blocks * h);  // one seed per block, nothing more

    std::set<std::string> seen;
    std::size_t at = 0;
    for (const std::string* c : {&first, &second}) {
        const std::vector<std::string> ems = raw_blocks(*c);
        REQUIRE(ems.size() == blocks);
        for (std::size_t i = 0; i < blocks; ++i, at += h) {
            CAPTURE(i);
            const std::string seed = oaep_seed<H>(ems[i], text.substr(i * piece, piece));
            CHECK(seed == random.bytes().substr(at, h));  // block i's seed: the stream's next hLen bytes
            CHECK(seen.insert(seed).second);              // and no other block's
        }
    }
    CHECK(first != second);
}

// One PKCS#1 v1.5 block EM = 0x00 || 0x02 || PS || 0x00 || piece: PS, after checking the rest.
std::string pkcs1_padding(const std::string& em, const std::string& piece) {
    REQUIRE(em.size() >= piece.size() + 11);
    CHECK(em[0] == '\0');
    CHECK(em[1] == '\x02');
    const std::size_t separator = em.size() - piece.size() - 1;
    CHECK(em[separator] == '\0');
    CHECK(em.substr(separator + 1) == piece);
    return em.substr(2, separator - 2);
}

}  // namespace

TEST_CASE("Every block of a multi-block OAEP payload gets its own seed, in the order the random source gives them") {
    SUBCASE("OAEP-SHA-1") { every_block_has_its_own_seed<CryptoPP::SHA1>(Padding::oaep_sha1); }
    SUBCASE("OAEP-SHA-256") { every_block_has_its_own_seed<CryptoPP::SHA256>(Padding::oaep_sha256); }
}

TEST_CASE("Every block of a multi-block PKCS#1 v1.5 payload gets its own padding string, zero bytes drawn again") {
    const PublicKey key = PublicKey::parse(keys::kPublic2048);
    const std::size_t piece = max_piece(key, Padding::pkcs1v15);
    const std::string text = message(700);  // 245-byte pieces: 245, 245, 210
    test::ScriptedRandom random(stream(7, 5));  // every fifth byte 0
    const std::vector<std::string> ems = raw_blocks(encrypt(key, text, Padding::pkcs1v15));
    REQUIRE(ems.size() == 3);

    std::string drawn_nonzero;
    for (char b : random.bytes()) {
        if (b != '\0') drawn_nonzero += b;
    }
    std::set<std::string> seen;
    std::string all;
    for (std::size_t i = 0; i < ems.size(); ++i) {
        CAPTURE(i);
        const std::string ps = pkcs1_padding(ems[i], text.substr(i * piece, piece));
        CHECK(ps.size() >= 8);
        CHECK(ps.find('\0') == std::string::npos);
        CHECK(seen.insert(ps).second);  // no block repeats another's padding string
        all += ps;
    }
    // The padding strings are the source's non-zero bytes, in order, each used once.
    CHECK(all == drawn_nonzero.substr(0, all.size()));
}

TEST_CASE("Without a scripted source, encryption's padding comes from the platform") {
    const PublicKey key = PublicKey::parse(keys::kPublic2048);
    std::string a, b;
    {
        test::ScriptedRandom random(stream(1));
        a = encrypt(key, "same");
    }
    {
        test::ScriptedRandom random(stream(1));
        b = encrypt(key, "same");
    }
    CHECK(a == b);  // the same stream, the same ciphertext: the source is the only randomness
    CHECK(encrypt(key, "same") != a);
    CHECK(encrypt(key, "same") != encrypt(key, "same"));
}
