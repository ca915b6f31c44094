// The demo page at / (demo/site/) and the widget's files at /dist/ (the repo's dist/, from
// `make dist`), with exact MIME types (application/wasm for instantiateStreaming) and a strict CSP.

#include <fstream>
#include <iterator>
#include <regex>

#include "paywasm/crypto.hpp"
#include "server/static_files.hpp"
#include "sandbox.hpp"

namespace sandbox {

namespace {

// The policy the pages run under: the one the widget README asks merchants to use; --connect-src
// adds the origins of a merchant back end on another origin (the gateway) to connect-src.
std::string csp(const Config& config) {
    std::string connect = "'self'";
    for (const auto& origin : config.connect_src) connect += " " + origin;
    return "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src " + connect +
           "; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
}

std::string mime_type(const std::string& path) {
    auto ends = [&](const char* ext) {
        std::string e(ext);
        return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
    };
    if (ends(".html")) return "text/html; charset=utf-8";
    if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
    if (ends(".css")) return "text/css; charset=utf-8";
    if (ends(".wasm")) return "application/wasm";
    if (ends(".json") || ends(".map")) return "application/json";
    if (ends(".svg")) return "image/svg+xml";
    if (ends(".png")) return "image/png";
    if (ends(".ico")) return "image/x-icon";
    if (ends(".ts")) return "text/plain; charset=utf-8";
    if (ends(".txt") || ends(".md")) return "text/plain; charset=utf-8";
    return "application/octet-stream";
}

bool read_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

// Relative paths of plain names only: no "..", no hidden files, no backslashes.
bool safe_relative(const std::string& rel) {
    static const std::regex ok(R"([A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*)");
    return std::regex_match(rel, ok) && rel.find("..") == std::string::npos;
}

void common_headers(Response& res) {
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Cache-Control", "no-cache");
    res.set_header("Referrer-Policy", "no-referrer");
}

bool serve_file(Response& res, const std::string& dir, const std::string& rel) {
    std::string data;
    if (!safe_relative(rel) || !read_file(dir + "/" + rel, data)) return false;
    common_headers(res);
    res.status = 200;
    res.set_content(data, mime_type(rel));
    return true;
}


void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
}

// index.html with {{PAYWASM_SCRIPT}} (the widget's script tag with the integrity of the file served
// right now, or a note when dist/ is not built) and {{MERCHANT_ID}}.
void serve_index(Sandbox& sb, Response& res) {
    std::string page;
    if (!read_file(sb.config.site_dir + "/index.html", page)) {
        return send_error(res, 404, "not_found", "the demo page is missing (" + sb.config.site_dir + "/index.html)");
    }
    std::string widget;
    std::string script;
    if (read_file(sb.config.dist_dir + "/paywasm.js", widget)) {
        script = "<script src=\"/dist/paywasm.js\" integrity=\"" + paywasm::server::sri_sha384(widget) + "\" crossorigin=\"anonymous\"></script>";
    } else {
        script = "<!-- dist/paywasm.js is not built: run `make dist` -->";
    }
    replace_all(page, "{{PAYWASM_SCRIPT}}", script);
    replace_all(page, "{{MERCHANT_ID}}", paywasm::server::html_escape(sb.identity.merchant_id));
    common_headers(res);
    res.set_header("Content-Security-Policy", csp(sb.config));
    res.set_header("X-Frame-Options", "DENY");
    res.status = 200;
    res.set_content(page, "text/html; charset=utf-8");
}

}  // namespace

void register_site(Router& server, Sandbox& sb) {
    const std::size_t limit = sb.config.max_body;
    for (const char* page : {"/", "/index.html"}) {
        server.route("GET", page, limit, [&sb](const Request&, Response& res, const std::string&) { serve_index(sb, res); });
    }
    server.route("GET", R"(/dist/(.+))", limit, [&sb](const Request& req, Response& res, const std::string&) {
        if (!serve_file(res, sb.config.dist_dir, req.matches[1])) {
            send_error(res, 404, "not_found", "no such file in dist/ (run `make dist` to build the widget)");
        }
    });
    server.route("GET", R"(/(.+))", limit, [&sb](const Request& req, Response& res, const std::string&) {
        if (!serve_file(res, sb.config.site_dir, req.matches[1])) send_error(res, 404, "not_found", "no such page");
    });
}

}  // namespace sandbox
