// The demo page at / (demo/site/) and the widget's files at /dist/ (the repo's dist/, from
// `make dist`), read from disk on each request (a `make dist` while the sandbox runs is served at
// once), with the server's Content-Types (application/wasm for instantiateStreaming), page headers
// and templating (server/static_files.hpp).

#include <fstream>
#include <iterator>

#include "server/static_files.hpp"
#include "sandbox.hpp"

namespace sandbox {

namespace {

namespace server = paywasm::server;

// The policy the pages run under: the one the widget README asks merchants to use; --connect-src
// adds the origins of a merchant back end on another origin (the gateway) to connect-src.
server::Csp csp(const Config& config) {
    server::Csp policy;
    policy.wasm = true;
    policy.connect_src = config.connect_src;
    policy.img_src = {"data:"};
    return policy;
}

bool read_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

bool serve_file(Response& res, const std::string& dir, const std::string& rel) {
    std::string data;
    if (!server::plain_relative_path(rel) || !read_file(dir + "/" + rel, data)) return false;
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Cache-Control", "no-cache");
    res.set_header("Referrer-Policy", "no-referrer");
    res.status = 200;
    res.set_content(data, server::content_type_of(rel));
    return true;
}

// index.html, its {{PAYWASM_SCRIPT}} (when it has one: a shop's own built site, served with --site,
// has none) replaced by the widget's script tag with the integrity of the file served right now, or
// a note when dist/ is not built.
void serve_index(Sandbox& sb, Response& res) {
    std::string page;
    if (!read_file(sb.config.site_dir + "/index.html", page)) {
        return send_error(res, 404, "not_found", "the demo page is missing (" + sb.config.site_dir + "/index.html)");
    }
    std::string widget;
    const server::Html script = read_file(sb.config.dist_dir + "/paywasm.js", widget)
        ? server::Html::element("script", {{"src", "/dist/paywasm.js"}, {"integrity", server::sri_sha384(widget)},
                                           {"crossorigin", "anonymous"}}, "")
        : server::Html::markup("<!-- dist/paywasm.js is not built: run `make dist` -->");
    if (page.find("{{PAYWASM_SCRIPT}}") != std::string::npos) page = server::render(page, {{"PAYWASM_SCRIPT", script}});
    server::page_headers(res, csp(sb.config));
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
