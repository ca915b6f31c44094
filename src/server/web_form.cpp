// The page kit's forms, cookies and URL encoding (web_form.hpp).
#include "server/web_form.hpp"

#include "server/http.hpp"

namespace paywasm::server {

Form parse_urlencoded(std::string_view text, std::size_t max_value) {
    Form form;
    for_each_urlencoded(text, [&](std::string_view encoded_name, std::string_view encoded_value) {
        std::string name = url_decode(encoded_name);
        std::string value = url_decode(encoded_value);
        if (max_value > 0 && value.size() > max_value) throw HttpError(400, "validation", "a field is too long", name);
        form.emplace(std::move(name), std::move(value));
        return false;
    });
    return form;
}

Form read_form(const Request& req, std::string_view body, std::size_t max_value) {
    if (req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) != 0) {
        throw HttpError(415, "unsupported_media_type", "send the form as application/x-www-form-urlencoded");
    }
    return parse_urlencoded(body, max_value);
}

std::string field(const Form& form, std::string_view name) {
    const auto it = form.find(name);
    return it == form.end() ? std::string() : it->second;
}

std::string cookie(const Request& req, std::string_view name) {
    for (const auto& [k, v] : req.headers) {
        if (!same_name(k, "Cookie")) continue;
        std::size_t at = 0;
        while (at < v.size()) {
            std::size_t end = v.find(';', at);
            if (end == std::string::npos) end = v.size();
            std::string_view part(v.data() + at, end - at);
            at = end + 1;
            while (!part.empty() && (part.front() == ' ' || part.front() == '\t')) part.remove_prefix(1);
            if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=') {
                std::string_view value = part.substr(name.size() + 1);
                while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
                return std::string(value);
            }
        }
    }
    return {};
}

std::string url_encode(std::string_view text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace paywasm::server
