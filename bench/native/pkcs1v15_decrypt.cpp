// bench/native/pkcs1v15_decrypt.cpp — PKCS#1 v1.5 decryption of good and bad-padding ciphertexts,
// side by side: the core's implicit rejection (decrypt_pkcs1v15_implicit, what the sandbox runs
// now), the sandbox's previous path (the strict decrypt in try/catch, a home-made synthetic
// message; copied below as it was) and the strict decrypt in try/catch alone. A benchmark, not a
// test: it prints figures and checks only that every path gave the answer it must.
//
//   paywasm_bench_pkcs1v15 [--rounds N] [--warmup W] [--bits B] [--smoke]
//
// One key (generated, e = 65537), N good ciphertexts (a 106-byte payload, one block each) and N bad
// ones (random blocks below n whose padding the strict decoder refuses). Each round times every
// path on one good and one bad ciphertext, one call each, the order of the paths rotating and good
// and bad alternating first; W warm-up rounds are thrown away. Reported per path: the median and the
// minimum of each kind, and bad ÷ good of the medians (1.000: a bad padding costs what a good one
// does). docs/bench.md has the figures.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cryptopp/hmac.h>
#include <cryptopp/sha.h>

#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"

namespace {

// ---- The sandbox's decrypt_pkcs1v15_implicit before the core had implicit rejection ----
// (demo/sandbox/decode.cpp at b9499ce), unchanged but for the names: the baseline.
namespace old_path {

constexpr char kLabel[] = "paywasm-sandbox implicit rejection v1";

std::string hmac_sha256(const std::string& key, const std::string& message) {
    CryptoPP::HMAC<CryptoPP::SHA256> mac(reinterpret_cast<const CryptoPP::byte*>(key.data()), key.size());
    std::string out(CryptoPP::SHA256::DIGESTSIZE, '\0');
    mac.CalculateDigest(reinterpret_cast<CryptoPP::byte*>(out.data()),
                        reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size());
    return out;
}

std::string rejection_secret(const paywasm::PrivateKey& key) {
    std::string pem = key.to_pem();
    std::string secret = hmac_sha256(pem, kLabel);
    std::fill(pem.begin(), pem.end(), '\0');
    return secret;
}

std::string synthetic_message(const std::string& secret, const std::string& block, std::size_t k) {
    const std::string length_bytes = hmac_sha256(secret, "length" + block);
    const std::size_t max_len = k - 11;
    const std::size_t len =
        ((static_cast<unsigned char>(length_bytes[0]) << 8) | static_cast<unsigned char>(length_bytes[1])) %
        (max_len + 1);
    std::string out;
    for (std::uint32_t counter = 0; out.size() < len; ++counter) {
        std::string c(4, '\0');
        for (int i = 0; i < 4; ++i) c[i] = static_cast<char>((counter >> (24 - 8 * i)) & 0xff);
        out += hmac_sha256(secret, "message" + c + block);
    }
    out.resize(len);
    return out;
}

std::string decrypt_pkcs1v15_implicit(const paywasm::PrivateKey& key, const std::string& base64) {
    std::string ciphertext;
    try {
        ciphertext = paywasm::base64_decode(base64);
    } catch (const paywasm::Error&) {
        throw paywasm::Error(paywasm::ErrorCode::crypto, "decryption failed");
    }
    const std::size_t k = key.public_key().modulus_bytes();
    if (ciphertext.empty() || ciphertext.size() % k != 0) {
        throw paywasm::Error(paywasm::ErrorCode::crypto, "decryption failed");
    }
    const std::string secret = rejection_secret(key);
    std::string out;
    for (std::size_t off = 0; off < ciphertext.size(); off += k) {
        const std::string block = ciphertext.substr(off, k);
        std::string synthetic = synthetic_message(secret, block, k);
        std::string real;
        bool good = true;
        try {
            real = paywasm::decrypt(key, paywasm::base64_encode(block), paywasm::Padding::pkcs1v15);
        } catch (const paywasm::Error&) {
            good = false;
        }
        out += good ? real : synthetic;
    }
    return out;
}

}  // namespace old_path

// The strict decryption with the exception caught: what a caller of decrypt() pays for a bad block.
std::string strict_caught(const paywasm::PrivateKey& key, const std::string& base64) {
    try {
        return paywasm::decrypt(key, base64, paywasm::Padding::pkcs1v15);
    } catch (const paywasm::Error&) {
        return {};
    }
}

struct Path {
    const char* name;
    std::function<std::string(const paywasm::PrivateKey&, const std::string&)> run;
    std::vector<double> good, bad;  // microseconds per call
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

[[noreturn]] void usage() {
    std::fprintf(stderr, "usage: paywasm_bench_pkcs1v15 [--rounds N] [--warmup W] [--bits B] [--smoke]\n");
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    int rounds = 1000, warmup = 50, bits = 2048;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--smoke") {
            rounds = 3;
            warmup = 1;
        } else if ((a == "--rounds" || a == "--warmup" || a == "--bits") && i + 1 < argc) {
            const int v = std::atoi(argv[++i]);
            if (v <= 0 && a != "--warmup") usage();
            (a == "--rounds" ? rounds : a == "--warmup" ? warmup : bits) = v;
        } else {
            usage();
        }
    }

    const paywasm::PrivateKey key = paywasm::PrivateKey::generate(bits);
    const paywasm::PublicKey pub = key.public_key();
    const std::size_t k = pub.modulus_bytes();
    const std::string payload =
        R"({"clientId":"m-1","offerId":"3f0c2a4e-bench","amount":"12.50","currency":"EUR","note":"one block of v1.5"})";
    const int total = rounds + warmup;

    // Inputs, made before any timing. Bad: random blocks below n (first byte 0) that the strict
    // decoder refuses; good: real encryptions of the payload.
    std::vector<std::string> good, bad;
    while (static_cast<int>(bad.size()) < total) {
        std::string block(k, '\0');
        paywasm::random_bytes(reinterpret_cast<unsigned char*>(block.data()) + 1, k - 1);
        const std::string b64 = paywasm::base64_encode(block);
        try {
            paywasm::decrypt(key, b64, paywasm::Padding::pkcs1v15);
        } catch (const paywasm::Error&) {
            bad.push_back(b64);
        }
    }
    for (int i = 0; i < total; ++i) good.push_back(paywasm::encrypt(pub, payload, paywasm::Padding::pkcs1v15));

    std::vector<Path> paths = {
        {"core decrypt_pkcs1v15_implicit (new sandbox path)", paywasm::decrypt_pkcs1v15_implicit, {}, {}},
        {"old sandbox path: decrypt in try/catch + HMAC-over-PEM message", old_path::decrypt_pkcs1v15_implicit, {}, {}},
        {"core decrypt(pkcs1v15) in try/catch, alone", strict_caught, {}, {}},
    };

    using Clock = std::chrono::steady_clock;
    int failures = 0;
    for (int r = 0; r < total; ++r) {
        for (std::size_t j = 0; j < paths.size(); ++j) {
            Path& p = paths[(r + j) % paths.size()];
            for (int h = 0; h < 2; ++h) {
                const bool is_good = (h == 0) == (r % 2 == 0);  // good first on even rounds
                const std::string& input = is_good ? good[r] : bad[r];
                const auto t0 = Clock::now();
                const std::string out = p.run(key, input);
                const auto t1 = Clock::now();
                if (is_good && out != payload) ++failures;
                if (!is_good && out == payload) ++failures;
                if (r < warmup) continue;
                (is_good ? p.good : p.bad).push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            }
        }
    }
    if (failures) {
        std::fprintf(stderr, "bench: %d wrong answers\n", failures);
        return 1;
    }

    std::printf("PKCS#1 v1.5 decryption, RSA-%d, %d rounds (after %d warm-up), one call per sample, microseconds\n\n",
                bits, rounds, warmup);
    std::printf("| path | good: median (min) | bad padding: median (min) | bad − good | bad ÷ good |\n");
    std::printf("|---|---|---|---|---|\n");
    for (const Path& p : paths) {
        const double g = median(p.good), b = median(p.bad);
        std::printf("| %s | %.1f (%.1f) | %.1f (%.1f) | %+.1f | %.3f |\n", p.name, g, minimum(p.good), b, minimum(p.bad),
                    b - g, b / g);
    }
    const double new_good = median(paths[0].good), old_good = median(paths[1].good);
    const double new_bad = median(paths[0].bad), old_bad = median(paths[1].bad);
    std::printf("\nnew ÷ old (medians): good %.3f, bad %.3f\n", new_good / old_good, new_bad / old_bad);
    return 0;
}
