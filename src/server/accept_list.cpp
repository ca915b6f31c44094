// The page kit's Accept-* list reader (accept_list.hpp).
#include "server/accept_list.hpp"

#include <cctype>

namespace paywasm::server {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// A qvalue ("0", "0.8", "1", "1.000") in thousandths; -1 when it is not one.
int q_value(std::string_view q) {
    if (q.empty() || q.size() > 5 || (q[0] != '0' && q[0] != '1')) return -1;
    int value = (q[0] - '0') * 1000;
    if (q.size() > 1) {
        if (q[1] != '.') return -1;
        int scale = 100;
        for (char c : q.substr(2)) {
            if (c < '0' || c > '9') return -1;
            value += (c - '0') * scale;
            scale /= 10;
        }
    }
    return value > 1000 ? -1 : value;
}

}  // namespace

std::vector<AcceptItem> accept_list(std::string_view header) {
    std::vector<AcceptItem> out;
    std::size_t at = 0;
    while (at <= header.size()) {
        std::size_t end = header.find(',', at);
        if (end == std::string_view::npos) end = header.size();
        const std::string_view item = header.substr(at, end - at);
        at = end + 1;
        std::size_t semi = item.find(';');
        const std::string_view value = trim(item.substr(0, semi));
        if (value.empty()) continue;
        AcceptItem one{lower(value), 1000};
        while (semi != std::string_view::npos) {
            const std::size_t next = item.find(';', semi + 1);
            const std::string_view param = item.substr(semi + 1, next == std::string_view::npos ? std::string_view::npos : next - semi - 1);
            semi = next;
            const std::size_t eq = param.find('=');
            if (eq == std::string_view::npos || lower(trim(param.substr(0, eq))) != "q") continue;
            one.q = q_value(trim(param.substr(eq + 1)));
        }
        out.push_back(std::move(one));
    }
    return out;
}

}  // namespace paywasm::server
