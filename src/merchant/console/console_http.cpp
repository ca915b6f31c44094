// The console's HTTP details (console_http.hpp).
#include "console/console_http.hpp"

#include <algorithm>
#include <cctype>

namespace merchant {

namespace {
std::string lower(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}
}  // namespace

std::vector<std::string> console_hosts(const std::vector<std::string>& listed, const std::string& origin,
                                       const std::string& listen_host, int port) {
    std::vector<std::string> out;
    if (!listed.empty()) {
        for (const auto& h : listed) out.push_back(lower(h));
        return out;
    }
    if (!origin.empty()) {
        out.push_back(lower(origin.substr(origin.find("://") + 3)));
        return out;
    }
    std::string p = std::to_string(port);
    p.insert(0, 1, ':');
    out = {"localhost" + p, "127.0.0.1" + p, "[::1]" + p};
    const std::string host = lower(listen_host);
    if (!host.empty() && host != "0.0.0.0" && host != "::" && host != "localhost" && host != "127.0.0.1" && host != "::1") {
        std::string name = host;
        if (name.find(':') != std::string::npos) {  // an IPv6 address, as a Host header writes it
            name.insert(0, 1, '[');
            name += ']';
        }
        out.push_back(name + p);
    }
    return out;
}

bool host_allowed(Req req, const std::vector<std::string>& allowed) {
    const std::string host = lower(req.get_header_value("Host"));
    return std::find(allowed.begin(), allowed.end(), host) != allowed.end();
}

void no_store_json(Res res) {
    if (res.get_header_value("Content-Type").rfind("application/json", 0) != 0) return;
    if (!res.has_header("Cache-Control")) res.set_header("Cache-Control", "no-store");
    if (!res.has_header("X-Content-Type-Options")) res.set_header("X-Content-Type-Options", "nosniff");
}

void check_form_origin(Req req, const std::string& own) {
    if (!req.has_header("Origin")) return;
    if (req.get_header_value("Origin") != own) throw HttpError(403, "cross_origin", "the console takes forms from its own pages only");
}

}  // namespace merchant
