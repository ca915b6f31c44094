// The point of sale's sales (sales.hpp).
#include "gateway/sales.hpp"

#include "paywasm/order.hpp"
#include "rules/session.hpp"
#include "paywasm/decimal.hpp"
#include "paywasm/error.hpp"
#include "server/util.hpp"

namespace merchant {

Link create_sale(Gateway& gw, const std::string& amount, const std::string& note, const Actor& actor) {
    check_text(note, "note");
    if (note.size() > 200) throw HttpError(400, "validation", "the note is at most 200 characters", "note");
    std::string price;
    try {
        price = paywasm::Decimal::parse(amount, "amount").to_string();  // digits only from here on
    } catch (const paywasm::Error&) {
        throw HttpError(400, "validation", "type the amount as digits, like 12.50", "amount");
    }
    const std::string user = actor.name.rfind("console:", 0) == 0 ? actor.name.substr(8) : actor.name;
    // A link's request as the app API takes it, checked by the same rules (the core's cart and
    // currency rules refuse zero, a negative amount, or more decimals than the currency has).
    JsonWriter w;
    w.begin_object().str("name", note.empty() ? "Sale" : note).str("currency", gw.config.pos_currency).key("cart").begin_array();
    w.begin_object().str("id", "sale").str("name", note.empty() ? "Sale" : note).raw("price", json_number(price)).raw("quantity", "1");
    w.end_object().end_array();
    w.num("usageLimit", 1);
    w.str("expiresAt", iso8601((now_ms() + gw.config.link_open_ttl_ms) / 1000 * 1000));
    w.end_object();
    const JsonDocument request = paywasm::parse_json(w.text());
    try {
        return create_link(gw, request.root(), actor, user);
    } catch (const HttpError& e) {
        if (e.status != 400) throw;
        throw HttpError(400, "validation", std::string("this amount cannot be charged: ") + e.what(), "amount");
    } catch (const paywasm::Error& e) {  // the core's cart rules (validate, require_chargeable_total)
        throw HttpError(400, "validation", std::string("this amount cannot be charged: ") + e.what(), "amount");
    }
}

namespace {
// Link `id` as a sale: HttpError 404 when it is none, or a payment link.
LinkRecord sale_record(Gateway& gw, const std::string& id, bool detail) {
    LinkRecord r = link_record(gw, id, detail);
    if (!r.link.sold_by) throw HttpError(404, "not_found", "no sale with this id");
    return r;
}
}  // namespace

std::string sale_url(Gateway& gw, const std::string& id) { return sale_record(gw, id, false).url; }

SaleState sale_state(Gateway& gw, const std::string& id, std::int64_t now) {
    const LinkRecord r = sale_record(gw, id, true);
    SaleState st;
    st.amount = r.fixed_amount.value_or("");
    st.currency = r.link.currency;
    using paywasm::OrderProgress;
    OrderProgress best = OrderProgress::nothing;  // the furthest of the sale's checkouts (the core's order_progress)
    for (const auto& visit : r.sessions) {
        const auto s = gw.store.sessions.session(visit.id);
        if (!s) continue;
        const OrderProgress progress = paywasm::order_progress(order_facts(*s, now));
        if (progress > best) {
            best = progress;
            if (progress == OrderProgress::partial) st.received = s->status.received_amount.value_or("");
        }
    }
    const bool taking = r.state == "open";
    st.state = best == OrderProgress::paid      ? "paid"
               : best == OrderProgress::partial ? "partial"
               : best == OrderProgress::under_way ? "pending"
               : taking                           ? "waiting"
                                                  : "expired";
    st.final = best >= OrderProgress::partial || st.state == "expired";
    return st;
}

}  // namespace merchant
