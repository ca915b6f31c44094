// The hosted pages' words (hosted.hpp): web/hosted/text-<lang>.json, embedded at build time, read
// once at start; a request's Accept-Language chooses the language, English when none matches.
#include <algorithm>
#include <stdexcept>

#include "hosted/hosted.hpp"
#include "server/accept_list.hpp"

namespace merchant {

namespace {

// lang -> its words; filled once by load_words before the server runs, read-only after.
std::map<std::string, Words, std::less<>> g_words;

// One language range of Accept-Language (lower-case, as accept_list gives it) as ours ("" when
// none): the primary subtag, Portuguese by region.
std::string our_lang(const std::string& tag) {
    const std::size_t dash = tag.find_first_of("-_");
    const std::string primary = tag.substr(0, dash);
    if (primary == "pt") {
        const std::string region = dash == std::string::npos ? "" : tag.substr(dash + 1, 2);
        return region.empty() || region == "br" ? "pt-BR" : "pt-PT";
    }
    return g_words.count(primary) ? primary : "";
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
    // The first range of the highest q wins (a header lists ranges in its own order of preference).
    if (header.size() > 1000) return g_words.at(best);
    for (const auto& item : paywasm::server::accept_list(header)) {
        if (item.q <= best_q) continue;
        if (const std::string lang = our_lang(item.value); !lang.empty()) {
            best = lang;
            best_q = item.q;
        }
    }
    return g_words.at(best);
}

}  // namespace merchant
