// Key, encryption and QR commands: keygen, encrypt, decrypt, merchant-auth, fingerprint, qr.
// Each is a thin shell over paywasm/crypto.hpp or paywasm/qr.hpp: read files, call the core, print.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "paywasm/qr.hpp"

namespace paywasm::cli {
namespace {

void print(std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); }

[[noreturn]] void usage_error(const std::string& message) { throw Error(ErrorCode::usage, message); }

// The single optional FILE|- operand ("" = standard input).
std::string input_operand(const Args& args) {
    const auto& pos = args.positional();
    if (pos.size() > 1) usage_error("expected at most one input file, got " + std::to_string(pos.size()));
    return pos.empty() ? std::string() : pos[0];
}

void no_operands(const Args& args) {
    if (!args.positional().empty()) usage_error("unexpected argument '" + args.positional()[0] + "'");
}

int parse_int(const Args& args, std::string_view name, int fallback) {
    if (!args.has(name)) return fallback;
    std::string text = args.get(name);
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) {
        usage_error("--" + std::string(name) + " must be a whole number, not '" + text + "'");
    }
    return std::stoi(text);
}

Padding padding_of(const Args& args) {
    try {
        return parse_padding(args.get("padding", "oaep-sha1"));
    } catch (const Error& e) {
        usage_error(std::string("--") + e.what());
    }
}

PublicKey public_key_of(const Args& args) {
    PublicKey key = PublicKey::parse(read_input(args.require("public-key")));
    if (args.has("key-fingerprint") && key.fingerprint() != args.get("key-fingerprint")) {
        throw Error(ErrorCode::key_mismatch, "the public key's fingerprint " + key.fingerprint() +
                                                 " is not the pinned " + args.get("key-fingerprint"));
    }
    return key;
}

// ---- keygen ----

// The usage text states the core's key-size limits; keep them in step.
static_assert(kMinKeyBits == 2048 && kMaxKeyBits == 8192, "update kKeygenUsage's --bits range");
constexpr std::string_view kKeygenUsage = R"(usage: paywasm keygen [--bits 2048] --private PRIV.pem --public PUB.pem

Generates an RSA key pair (e = 65537) from the system's CSPRNG. Writes the private key as PKCS#8 PEM
with mode 0600 and the public key as SubjectPublicKeyInfo PEM; refuses to overwrite either file.
Prints the public key's SHA-256 fingerprint.

options:
  --bits N          modulus size, a multiple of 8 from 2048 to 8192 (default 2048)
  --private FILE    where to write the private key (new file, mode 0600)
  --public FILE     where to write the public key (new file)
)";

int run_keygen(const Args& args) {
    no_operands(args);
    const int bits = parse_int(args, "bits", 2048);
    const std::string priv_path = args.require("private"), pub_path = args.require("public");
    if (priv_path == pub_path) usage_error("--private and --public must be different files");
    for (const std::string& path : {priv_path, pub_path}) {
        if (::access(path.c_str(), F_OK) == 0) throw Error(ErrorCode::io, path + " already exists (refusing to overwrite)");
    }
    PrivateKey key = PrivateKey::generate(bits);
    PublicKey pub = key.public_key();
    std::string pem = key.to_pem();
    write_file(priv_path, pem, 0600);
    std::fill(pem.begin(), pem.end(), '\0');
    try {
        write_file(pub_path, pub.to_pem(), 0644);
    } catch (...) {
        ::unlink(priv_path.c_str());  // no half-written pair
        throw;
    }
    print("private key: " + priv_path + " (mode 0600)\npublic key:  " + pub_path + " (" + std::to_string(pub.bits()) +
          " bits)\nfingerprint: " + pub.fingerprint() + "\n");
    return 0;
}

// ---- encrypt / decrypt / merchant-auth / fingerprint ----

constexpr std::string_view kEncryptUsage = R"(usage: paywasm encrypt --public-key PUB.pem [--padding P] [--key-fingerprint HEX] [FILE|-]

Encrypts FILE (or standard input) to the RSA public key and prints the base64 ciphertext and a
newline. The plaintext is cut into pieces of the largest size the padding allows (214 bytes for a
2048-bit key with OAEP-SHA-1), each piece is one RSA block of the modulus size, and the blocks are
concatenated before base64. At most 64 KiB.

options:
  --public-key FILE      the RSA public key: PEM (PUBLIC KEY or RSA PUBLIC KEY) or DER
  --padding P            oaep-sha1 (default) | oaep-sha256 (MGF1-SHA-256) | pkcs1v15 (legacy)
  --key-fingerprint HEX  refuse unless the key's SHA-256 fingerprint is HEX
)";

int run_encrypt(const Args& args) {
    PublicKey key = public_key_of(args);
    Padding padding = padding_of(args);
    std::string plaintext = read_input(input_operand(args));
    print(encrypt(key, plaintext, padding) + "\n");
    return 0;
}

constexpr std::string_view kDecryptUsage = R"(usage: paywasm decrypt --private-key PRIV.pem [--padding P] [FILE|-]

Decrypts the base64 ciphertext in FILE (or standard input), as `paywasm encrypt` makes it, and
writes the plaintext bytes to standard output. Every failure says only "decryption failed".

options:
  --private-key FILE   the RSA private key: PEM (PRIVATE KEY or RSA PRIVATE KEY) or DER
  --padding P          oaep-sha1 (default) | oaep-sha256 | pkcs1v15 (legacy)
)";

int run_decrypt(const Args& args) {
    Padding padding = padding_of(args);
    std::string pem = read_input(args.require("private-key"));
    PrivateKey key = PrivateKey::parse(pem);
    std::fill(pem.begin(), pem.end(), '\0');
    print(decrypt(key, read_input(input_operand(args)), padding));
    return 0;
}

constexpr std::string_view kMerchantAuthUsage = R"(usage: paywasm merchant-auth --public-key PUB.pem --merchant-id ID [--padding P] [--key-fingerprint HEX]

Prints the merchantAuth value for subscription debit and cancel: {"merchantId":"ID"} encrypted to
the merchant's public key, base64, and a newline.

options:
  --public-key FILE      the RSA public key (PEM or DER)
  --merchant-id ID       the merchant's id
  --padding P            oaep-sha1 (default) | oaep-sha256 | pkcs1v15 (legacy)
  --key-fingerprint HEX  refuse unless the key's SHA-256 fingerprint is HEX
)";

int run_merchant_auth(const Args& args) {
    no_operands(args);
    PublicKey key = public_key_of(args);
    Padding padding = padding_of(args);
    print(merchant_auth(key, args.require("merchant-id"), padding) + "\n");
    return 0;
}

constexpr std::string_view kFingerprintUsage = R"(usage: paywasm fingerprint --public-key PUB.pem

Prints the lower-case hex SHA-256 of the key's DER SubjectPublicKeyInfo: the value to pin with
--key-fingerprint, and what `openssl pkey -pubin -in PUB.pem -outform DER | sha256sum` prints.
)";

int run_fingerprint(const Args& args) {
    no_operands(args);
    print(PublicKey::parse(read_input(args.require("public-key"))).fingerprint() + "\n");
    return 0;
}

// ---- qr ----

constexpr std::string_view kQrUsage = R"(usage: paywasm qr [--ecc L|M|Q|H] [--border N] [--format svg|text] [--check-uri] TEXT

Prints TEXT as a QR code: an SVG document (default) or half-block characters for a terminal.

options:
  --ecc L|M|Q|H     error-correction level (default M; raised when it fits the same size)
  --border N        quiet-zone width in modules, 0..16 (default 4 for svg, 2 for text)
  --format F        svg (default) | text
  --check-uri       first check that TEXT is a wallet payment URI
                    (<scheme>:<address>?amount=<decimal>&value=<decimal>)
)";

int run_qr(const Args& args) {
    if (args.positional().size() != 1) usage_error("expected exactly one TEXT argument");
    const std::string& text = args.positional()[0];
    const std::string format = args.get("format", "svg");
    if (format != "svg" && format != "text") usage_error("--format must be svg or text, not '" + format + "'");
    Ecc ecc = Ecc::medium;
    try {
        ecc = parse_ecc(args.get("ecc", "M"));
    } catch (const Error& e) {
        usage_error(std::string("--") + e.what());
    }
    const int border = parse_int(args, "border", format == "svg" ? 4 : 2);
    if (border > 16) usage_error("--border must be 0..16, not " + std::to_string(border));
    if (args.has("check-uri")) check_payment_uri(text);
    QrMatrix m = qr_encode(text, ecc);
    print(format == "svg" ? qr_svg(m, border) : qr_text(m, border));
    return 0;
}

PAYWASM_COMMAND(Command{"keygen", "generate an RSA key pair (PKCS#8 private 0600, SPKI public)", kKeygenUsage,
                        {"bits", "private", "public"}, {}, run_keygen})
PAYWASM_COMMAND(Command{"encrypt", "encrypt a payload to a public key (chunked RSA, base64)", kEncryptUsage,
                        {"public-key", "padding", "key-fingerprint"}, {}, run_encrypt})
PAYWASM_COMMAND(Command{"decrypt", "decrypt `encrypt` output with the private key", kDecryptUsage,
                        {"private-key", "padding"}, {}, run_decrypt})
PAYWASM_COMMAND(Command{"merchant-auth", "make the merchantAuth value for subscriptions", kMerchantAuthUsage,
                        {"public-key", "merchant-id", "padding", "key-fingerprint"}, {}, run_merchant_auth})
PAYWASM_COMMAND(Command{"fingerprint", "print a public key's SHA-256 fingerprint", kFingerprintUsage,
                        {"public-key"}, {}, run_fingerprint})
PAYWASM_COMMAND(Command{"qr", "render text (a payment URI) as a QR code, SVG or terminal", kQrUsage,
                        {"ecc", "border", "format"}, {"check-uri"}, run_qr})

}  // namespace
}  // namespace paywasm::cli
