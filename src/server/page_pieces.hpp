// src/server/page_pieces.hpp — the page kit's few pieces both page-serving wings write the same way
// (the console, the hosted pages): an amount, a time, a link, a table and its rows. Every text goes
// in escaped (html.hpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "server/html.hpp"

namespace paywasm::server::page {

// An amount and its currency, as every page writes them: "27.50 EUR" (the amount as given: the
// caller formats it by the currency's minor units).
std::string money(const std::string& amount, const std::string& currency);
// A time, in one format on every page: <time datetime="ISO">YYYY-MM-DD HH:MM:SS UTC</time>.
Html when(std::int64_t epoch_ms);
// <a href="href" [class="cls"]>text</a>.
Html link(const std::string& href, std::string_view text, std::optional<std::string> cls = std::nullopt);
// A table row of `cells`, each in a <td>.
Html row(std::initializer_list<Html> cells);
// A table with its caption (class muted) and column names (<th scope="col">); a paragraph
// "<caption>: none." (class muted) when `body` is empty.
Html table(const char* caption, std::initializer_list<const char*> names, const Html& body);

}  // namespace paywasm::server::page
