// src/server/static_files.hpp — a server's own pages and assets: a fixed set of files read once at
// start from a directory the operator names (an option such as paywasm-merchant's --widget-dir), the
// headers every page and asset gets, and HTML templating that escapes every value it inserts.
//
// Files. StaticFiles::load(dir) reads every regular file under `dir` (names of letters, digits and
// ._- only; hidden files skipped) into memory; what changes on disk later is not seen until a
// restart, so a page never mixes two versions (add() takes a file the program embedded at build
// time instead). Each file keeps its Content-Type (by extension),
// an ETag (SHA-256 of the bytes) and its Subresource Integrity value (SHA-384). serve() answers:
//   - with ?v=<version> equal to the file's version (url() writes it): Cache-Control
//     "public, max-age=31536000, immutable" (the URL changes when the bytes do);
//   - otherwise Cache-Control "no-cache" with the ETag, and 304 for a matching If-None-Match;
//   - text, scripts, JSON, SVG and wasm gzip-compressed once at start (Crypto++'s Gzip, level 9)
//     and sent so (Content-Encoding: gzip, ETag "<version>-gz") to a client whose Accept-Encoding
//     takes gzip, with Vary: Accept-Encoding; anyone else gets the bytes as they are;
//   - always X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer and
//     Cross-Origin-Resource-Policy: same-origin; and every file but HTML
//     Content-Security-Policy "default-src 'none'; sandbox" (an SVG opened as a document runs nothing).
//
// Pages. page_headers() sets what an HTML page needs: the Content-Security-Policy built by
// Csp::text() (default-src 'none'; scripts and styles from 'self', and inline only the program's own
// files, each allowed by its hash; only the origins the page names), frame-ancestors 'none' with X-Frame-Options DENY, nosniff,
// Referrer-Policy: same-origin (a page's own form posts carry its Origin, which the handler checks)
// and Cache-Control: no-store (a page shows one shopper's order).
//
// Templating: the page kit's Html and render() (server/html.hpp), included here.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/html.hpp"
#include "server/message.hpp"

namespace paywasm::server {

// The Subresource Integrity value of `bytes`: "sha384-<base64 of the SHA-384>".
std::string sri_sha384(const std::string& bytes);

// A page's Content-Security-Policy. Each list holds origins ("https://pay.example") or the CSP
// keywords a page needs ('data:' for an image); 'self' is always there for scripts, styles, images,
// fonts and connections.
struct Csp {
    bool wasm = false;                     // script-src 'wasm-unsafe-eval' (WebAssembly, no eval)
    bool scripts = true;                   // false: script-src 'none' (a page that runs no script at all)
    std::vector<std::string> connect_src;  // fetch, EventSource
    std::vector<std::string> img_src;
    std::vector<std::string> form_action;  // where the page's forms may go besides 'self'
    std::vector<std::string> script_hashes;  // inline scripts allowed by hash (csp_sha256)
    std::vector<std::string> style_hashes;   // inline stylesheets allowed by hash (csp_sha256)
    bool base_self = false;                  // base-uri 'self' (a page with <base href>), else 'none'
    std::string text() const;
};

// The CSP source that allows an inline <script> or <style> whose text is `bytes`: "'sha256-<base64>'".
std::string csp_sha256(std::string_view bytes);

// Whether an Accept-Encoding value takes gzip: a "gzip" or "*" coding whose q is above 0.
bool accepts_gzip(std::string_view header);

// The headers of an HTML page (above), the policy `csp`.
void page_headers(Response& res, const Csp& csp);

class StaticFiles {
public:
    struct File {
        std::string body, content_type;
        std::string version;    // 16 hex digits of the SHA-256: the ?v= of url() and the ETag
        std::string integrity;  // "sha384-<base64>": a <script>'s or <link>'s integrity attribute
        std::string gzip;       // the body gzip-compressed (empty: not compressible, or no smaller)
    };
    StaticFiles() = default;
    // Reads every file under `dir` (above). Throws std::runtime_error naming `dir` when it cannot be
    // read, or naming the first of `required` that is not there.
    // `keep`, when given, names the files to take (the others are neither read nor served).
    static StaticFiles load(const std::string& dir, const std::vector<std::string>& required = {},
                            const std::function<bool(const std::string&)>& keep = {});
    // Adds (or replaces) file `name` with `body`: files a program embeds at build time.
    void add(const std::string& name, std::string body);

    const File* find(std::string_view name) const;
    // "<prefix><name>?v=<version>"; throws std::logic_error when `name` is not held.
    std::string url(std::string_view prefix, std::string_view name) const;
    // `name`'s integrity value; throws std::logic_error when it is not held.
    const std::string& integrity(std::string_view name) const;
    // Answers a GET or HEAD of `name` (above); false (nothing set) when no such file is held.
    bool serve(const Request& req, Response& res, std::string_view name) const;
    bool empty() const { return files_.empty(); }

private:
    std::map<std::string, File, std::less<>> files_;
};

// The Content-Type the files are served with, by the name's extension (application/octet-stream
// for one not known).
std::string content_type_of(std::string_view name);

// Whether `name` is a plain relative path, the only names served: '/'-separated segments of letters,
// digits and ._- that do not start with '.' (so no "..", no hidden file, no absolute path, no '\').
bool plain_relative_path(std::string_view name);

}  // namespace paywasm::server
