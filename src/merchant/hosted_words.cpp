// The hosted pages' words (hosted.hpp): web/hosted/text-<lang>.json, embedded at build time, read
// once at start; a request's Accept-Language chooses the language, English when none matches.
#include <algorithm>
#include <stdexcept>

#include "hosted.hpp"

namespace merchant {

namespace {

// lang -> its words; filled once by load_words before the server runs, read-only after.
std::map<std::string, Words, std::less<>> g_words;

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// One language range of Accept-Language as ours ("" when none): the primary subtag, Portuguese
// by region.
std::string our_lang(std::string_view range) {
    const std::string tag = lower(range);
    const std::size_t dash = tag.find_first_of("-_");
    const std::string primary = tag.substr(0, dash);
    if (primary == "pt") {
        const std::string region = dash == std::string::npos ? "" : tag.substr(dash + 1, 2);
        return region.empty() || region == "br" ? "pt-BR" : "pt-PT";
    }
    return g_words.count(primary) ? primary : "";
}

// A q value ("0.8", "1", "0") in thousandths; -1 when it is not one.
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

std::string Words::operator()(std::string_view key, std::initializer_list<std::pair<std::string_view, std::string>> vars) const {
    const auto it = texts_.find(key);
    if (it == texts_.end()) throw std::logic_error("hosted page text without a value: " + std::string(key));
    std::string out = it->second;
    for (const auto& [name, value] : vars) {
        const std::string mark = "{" + std::string(name) + "}";
        for (std::size_t at = out.find(mark); at != std::string::npos; at = out.find(mark, at + value.size())) {
            out.replace(at, mark.size(), value);
        }
    }
    return out;
}

void load_words(const std::vector<std::pair<std::string, std::string>>& files) {
    for (const auto& [name, body] : files) {
        if (name.rfind("text-", 0) != 0 || name.size() < 11 || name.substr(name.size() - 5) != ".json") continue;
        Words w;
        w.lang_ = name.substr(5, name.size() - 10);
        const JsonDocument doc = paywasm::parse_json(body);
        for (JsonValue m : doc.root().children()) w.texts_.emplace(std::string(m.key()), std::string(m.text()));
        g_words[w.lang_] = std::move(w);
    }
    const auto en = g_words.find("en");
    if (en == g_words.end()) throw std::logic_error("web/hosted/text-en.json is not embedded");
    for (const auto& [lang, w] : g_words) {
        for (const auto& [key, text] : en->second.texts_) {
            if (!w.texts_.count(key)) throw std::logic_error("web/hosted/text-" + lang + ".json has no \"" + key + "\"");
        }
    }
}

const Words& words_for(const Request& req) {
    const std::string header = req.get_header_value("Accept-Language");
    std::string best = "en";
    int best_q = 0;
    std::size_t at = 0;
    // The first range of the highest q wins (a header lists ranges in its own order of preference).
    while (at < header.size() && header.size() <= 1000) {
        const std::size_t comma = std::min(header.find(',', at), header.size());
        const std::string_view item(header.data() + at, comma - at);
        at = comma + 1;
        const std::size_t semi = item.find(';');
        const std::string_view range = trim(item.substr(0, semi));
        int q = 1000;
        if (semi != std::string_view::npos) {
            const std::string_view param = trim(item.substr(semi + 1));
            q = param.rfind("q=", 0) == 0 ? q_value(param.substr(2)) : -1;
        }
        if (q <= best_q) continue;
        if (const std::string lang = our_lang(range); !lang.empty()) {
            best = lang;
            best_q = q;
        }
    }
    return g_words.at(best);
}

}  // namespace merchant
