// src/server/html.hpp — the page kit's HTML builder (page kit: html.hpp, page_pieces.hpp, web_form.hpp,
// accept_list.hpp, iso8601.hpp): HTML that is safe by construction, and the templating the pages fill.
//
// An Html is built only from text (escaped: & < > " ' become entities) or from markup written as a
// string literal in the program's source, so nothing a shop, a shopper or a database holds can become
// markup. Element and attribute names are literals too; attribute values are escaped. An attribute
// whose value is std::nullopt is left out (an optional attribute); a void element (input, img, br,
// meta, link) is written without an end tag.
//
// Templating: render() replaces a template's "{{name}}" placeholders by Html values. A placeholder
// without a value, or a value without a placeholder, throws std::logic_error: a template and its
// program cannot drift apart silently.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace paywasm::server {

// `text` with & < > " ' written as entities: safe in element content and in quoted attributes.
std::string html_escape(std::string_view text);

class Html {
public:
    // name="value" pairs in the order written; a nullopt value leaves the attribute out.
    using Attributes = std::initializer_list<std::pair<const char*, std::optional<std::string>>>;

    Html() = default;
    // Text, escaped.
    static Html text(std::string_view t) { return Html(html_escape(t)); }
    // Markup from the program's source: only a string literal binds here (no runtime string).
    template <std::size_t N>
    static Html markup(const char (&literal)[N]) { return Html(std::string(literal, N - 1)); }
    // An element `<tag attr="value"...>text</tag>` with each attribute value and the text escaped;
    // `tag` and the attribute names are literals of the program's source.
    template <std::size_t N>
    static Html element(const char (&tag)[N], Attributes attributes, std::string_view text) {
        return element_of(std::string_view(tag, N - 1), attributes, Html::text(text), true);
    }
    template <std::size_t N>
    static Html element(const char (&tag)[N], Attributes attributes, const Html& inner) {
        return element_of(std::string_view(tag, N - 1), attributes, inner, true);
    }
    // A void element `<tag attr="value"...>`: no content, no end tag (input, img, br, meta, link).
    template <std::size_t N>
    static Html void_element(const char (&tag)[N], Attributes attributes) {
        return element_of(std::string_view(tag, N - 1), attributes, Html(), false);
    }
    // A raw-text element, `<script>` or `<style>`, holding `code` as written: the program's own files
    // (a script or stylesheet inlined into a page, allowed by its hash in the page's CSP), never
    // data. Throws std::logic_error when `code` could end the element early or open a comment in it
    // (it holds "</" followed by `tag`, any case, or "<!--").
    template <std::size_t N>
    static Html inline_code(const char (&tag)[N], std::string_view code) {
        return inline_code_of(std::string_view(tag, N - 1), code);
    }
    // `<script type="application/json">` holding `json` with every '<' written \u003c: whatever the
    // JSON's strings hold, nothing can end the element or start markup, and JSON.parse of the
    // element's text gives the same value back. Data a page's script reads (the widget's inline JSON).
    static Html json_data(std::string_view json);
    Html& operator+=(const Html& more) {
        html_ += more.html_;
        return *this;
    }
    friend Html operator+(Html a, const Html& b) { return a += b; }
    const std::string& str() const { return html_; }
    bool empty() const { return html_.empty(); }

private:
    explicit Html(std::string html) : html_(std::move(html)) {}
    static Html element_of(std::string_view tag, Attributes attributes, const Html& inner, bool closed);
    static Html inline_code_of(std::string_view tag, std::string_view code);
    std::string html_;
};

// `tmpl` with each "{{name}}" replaced by values[name] (see above: both must match exactly).
std::string render(std::string_view tmpl, const std::map<std::string, Html>& values);

}  // namespace paywasm::server
