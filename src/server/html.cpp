// The page kit's HTML builder (html.hpp).
#include "server/html.hpp"

#include <cctype>
#include <stdexcept>

namespace paywasm::server {

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

Html Html::element_of(std::string_view tag, Attributes attributes, const Html& inner, bool closed) {
    std::string out = "<" + std::string(tag);
    for (const auto& [name, value] : attributes) {
        if (value) out += std::string(" ") + name + "=\"" + html_escape(*value) + "\"";
    }
    out += ">";
    if (closed) out += inner.html_ + "</" + std::string(tag) + ">";
    return Html(std::move(out));
}

Html Html::inline_code_of(std::string_view tag, std::string_view code) {
    std::string lower(code);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("</" + std::string(tag)) != std::string::npos || lower.find("<!--") != std::string::npos) {
        throw std::logic_error("Html::inline_code: the " + std::string(tag) + " holds </" + std::string(tag) + " or <!--");
    }
    std::string out;
    out.reserve(code.size() + 2 * tag.size() + 5);
    out.append("<").append(tag).append(">").append(code).append("</").append(tag).append(">");
    return Html(std::move(out));
}

Html Html::json_data(std::string_view json) {
    std::string out = "<script type=\"application/json\">";
    out.reserve(out.size() + json.size() + 9);
    for (char c : json) {
        if (c == '<') out += "\\u003c";
        else out += c;
    }
    return Html(out + "</script>");
}

std::string render(std::string_view tmpl, const std::map<std::string, Html>& values) {
    std::string out;
    out.reserve(tmpl.size());
    std::map<std::string, bool> used;
    std::size_t at = 0;
    for (;;) {
        const std::size_t open = tmpl.find("{{", at);
        if (open == std::string_view::npos) break;
        const std::size_t close = tmpl.find("}}", open + 2);
        if (close == std::string_view::npos) throw std::logic_error("render: an unclosed {{ in the template");
        const std::string name(tmpl.substr(open + 2, close - open - 2));
        const auto it = values.find(name);
        if (it == values.end()) throw std::logic_error("render: no value for {{" + name + "}}");
        used[name] = true;
        out.append(tmpl.substr(at, open - at));
        out += it->second.str();
        at = close + 2;
    }
    out.append(tmpl.substr(at));
    for (const auto& [name, value] : values) {
        if (!used.count(name)) throw std::logic_error("render: the template has no {{" + name + "}}");
    }
    return out;
}

}  // namespace paywasm::server
