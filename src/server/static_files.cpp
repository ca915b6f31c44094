#include "server/static_files.hpp"

#include <cryptopp/filters.h>
#include <cryptopp/gzip.h>
#include <cryptopp/sha.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>

#include "paywasm/crypto.hpp"
#include "server/accept_list.hpp"

namespace paywasm::server {

namespace {

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// `bytes` gzip-compressed at the highest level (Crypto++'s Gzip: RFC 1952), once at start.
std::string gzip_of(const std::string& bytes) {
    std::string out;
    CryptoPP::StringSource(bytes, true, new CryptoPP::Gzip(new CryptoPP::StringSink(out), CryptoPP::Gzip::MAX_DEFLATE_LEVEL));
    return out;
}

}  // namespace

bool accepts_gzip(std::string_view header) {
    for (const auto& item : accept_list(header)) {
        if ((item.value == "gzip" || item.value == "*") && item.q > 0) return true;
    }
    return false;
}

namespace {

// "<name>-<base64 of Hash(bytes)>": the form both an SRI value and a CSP hash source take.
template <class Hash>
std::string hash_source(const char* name, std::string_view bytes) {
    Hash hash;
    std::string digest(Hash::DIGESTSIZE, '\0');
    hash.CalculateDigest(reinterpret_cast<CryptoPP::byte*>(digest.data()),
                         reinterpret_cast<const CryptoPP::byte*>(bytes.data()), bytes.size());
    return std::string(name) + "-" + paywasm::base64_encode(digest);
}

}  // namespace

std::string csp_sha256(std::string_view bytes) { return "'" + hash_source<CryptoPP::SHA256>("sha256", bytes) + "'"; }

std::string sri_sha384(const std::string& bytes) { return hash_source<CryptoPP::SHA384>("sha384", bytes); }

namespace {

void join(std::string& out, const char* directive, std::string_view first, const std::vector<std::string>& more) {
    out += directive;
    out += ' ';
    out += first;
    for (const auto& s : more) {
        out += ' ';
        // A source is one token: a space or ';' in it would add a directive of its own.
        for (char c : s) {
            if (c == ';' || c == ',' || static_cast<unsigned char>(c) <= 0x20) throw std::logic_error("Csp: a source holds a separator");
        }
        out += s;
    }
    out += "; ";
}

}  // namespace

std::string Csp::text() const {
    std::string out = "default-src 'none'; ";
    join(out, "script-src", !scripts ? "'none'" : wasm ? "'self' 'wasm-unsafe-eval'" : "'self'", scripts ? script_hashes : std::vector<std::string>{});
    join(out, "style-src", "'self'", style_hashes);
    join(out, "img-src", "'self'", img_src);
    join(out, "font-src", "'self'", {});
    join(out, "connect-src", "'self'", connect_src);
    join(out, "form-action", "'self'", form_action);
    out += base_self ? "base-uri 'self'; " : "base-uri 'none'; ";
    out += "frame-ancestors 'none'";
    return out;
}

void page_headers(Response& res, const Csp& csp) {
    res.set_header("Content-Security-Policy", csp.text());
    res.set_header("X-Frame-Options", "DENY");
    res.set_header("X-Content-Type-Options", "nosniff");
    // same-origin, not no-referrer: a page's own form posts then carry its Origin (a browser sends
    // "Origin: null" under no-referrer), which a form's handler checks against cross-site posts;
    // nothing leaves for another origin either way.
    res.set_header("Referrer-Policy", "same-origin");
    res.set_header("Cache-Control", "no-store");
}

std::string content_type_of(std::string_view name) {
    if (ends_with(name, ".html")) return "text/html; charset=utf-8";
    if (ends_with(name, ".js") || ends_with(name, ".mjs")) return "text/javascript; charset=utf-8";
    if (ends_with(name, ".css")) return "text/css; charset=utf-8";
    if (ends_with(name, ".wasm")) return "application/wasm";
    if (ends_with(name, ".json") || ends_with(name, ".map")) return "application/json";
    if (ends_with(name, ".svg")) return "image/svg+xml";
    if (ends_with(name, ".png")) return "image/png";
    if (ends_with(name, ".ico")) return "image/x-icon";
    if (ends_with(name, ".woff2")) return "font/woff2";
    if (ends_with(name, ".txt") || ends_with(name, ".ts") || ends_with(name, ".md")) return "text/plain; charset=utf-8";
    return "application/octet-stream";
}

bool plain_relative_path(std::string_view name) {
    static const std::regex kName(R"([A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*)");
    return std::regex_match(name.begin(), name.end(), kName);
}

StaticFiles StaticFiles::load(const std::string& dir, const std::vector<std::string>& required,
                              const std::function<bool(const std::string&)>& keep) {
    namespace fs = std::filesystem;
    StaticFiles out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw std::runtime_error(dir + ": not a readable directory");
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::path rel = fs::relative(it->path(), dir);
        const std::string name = rel.generic_string();
        if (!plain_relative_path(name)) {
            if (it->is_directory()) it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file() || (keep && !keep(name))) continue;
        std::ifstream in(it->path(), std::ios::binary);
        if (!in) throw std::runtime_error(it->path().string() + ": cannot read");
        out.add(name, std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
    }
    if (ec) throw std::runtime_error(dir + ": " + ec.message());
    for (const auto& name : required) {
        if (!out.find(name)) throw std::runtime_error(dir + ": " + name + " is missing");
    }
    return out;
}

void StaticFiles::add(const std::string& name, std::string body) {
    File f;
    f.content_type = content_type_of(name);
    f.version = paywasm::sha256_hex(body).substr(0, 16);
    f.integrity = sri_sha384(body);
    // Text, scripts and wasm travel gzip-compressed to a browser that accepts it, when that is smaller.
    const bool compressible = f.content_type.rfind("text/", 0) == 0 || f.content_type.find("javascript") != std::string::npos ||
                              f.content_type.find("json") != std::string::npos || f.content_type.find("svg") != std::string::npos ||
                              f.content_type.rfind("application/wasm", 0) == 0;
    if (compressible && body.size() > 256) {
        std::string gz = gzip_of(body);
        if (gz.size() < body.size()) f.gzip = std::move(gz);
    }
    f.body = std::move(body);
    files_.insert_or_assign(name, std::move(f));
}

const StaticFiles::File* StaticFiles::find(std::string_view name) const {
    const auto it = files_.find(name);
    return it == files_.end() ? nullptr : &it->second;
}

std::string StaticFiles::url(std::string_view prefix, std::string_view name) const {
    const File* f = find(name);
    if (!f) throw std::logic_error("StaticFiles::url: no file " + std::string(name));
    return std::string(prefix) + std::string(name) + "?v=" + f->version;
}

const std::string& StaticFiles::integrity(std::string_view name) const {
    const File* f = find(name);
    if (!f) throw std::logic_error("StaticFiles::integrity: no file " + std::string(name));
    return f->integrity;
}

bool StaticFiles::serve(const Request& req, Response& res, std::string_view name) const {
    const File* f = find(name);
    if (!f) return false;
    // The gzip copy is another representation: its own ETag, and caches keyed on Accept-Encoding.
    const bool gz = !f->gzip.empty() && accepts_gzip(req.get_header_value("Accept-Encoding"));
    const std::string etag = "\"" + f->version + (gz ? "-gz" : "") + "\"";
    if (!f->gzip.empty()) res.set_header("Vary", "Accept-Encoding");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Referrer-Policy", "no-referrer");
    res.set_header("Cross-Origin-Resource-Policy", "same-origin");
    res.set_header("ETag", etag);
    // Opened as a document (an SVG typed into the address bar), a file runs nothing of this origin.
    if (f->content_type.rfind("text/html", 0) != 0) res.set_header("Content-Security-Policy", "default-src 'none'; sandbox");
    res.set_header("Cache-Control", req.get_param_value("v") == f->version ? "public, max-age=31536000, immutable" : "no-cache");
    if (req.get_header_value("If-None-Match") == etag) {
        res.status = 304;
        res.set_content("", f->content_type);
        return true;
    }
    res.status = 200;
    if (gz) res.set_header("Content-Encoding", "gzip");
    res.set_content(gz ? f->gzip : f->body, f->content_type);
    return true;
}

}  // namespace paywasm::server
