// The console's order page (console_pages.hpp): what the merchant should know first (a partly paid
// order's accept form), the facts, whom to ship to, the cart, the transactions, the payment attempts
// (a resolve form on each stuck one), the timeline in plain language, a note form. One record and
// one history read through orders.hpp: no query per event.
#include <algorithm>

#include "console/console_pages.hpp"
#include "rules/order_state.hpp"
#include "gateway/orders.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "paywasm/order.hpp"
#include "paywasm/status.hpp"
#include "server/util.hpp"

namespace merchant {

ConsolePage render_order(Gateway& gw, const Signed& login, const std::string& id) {
    const auto record = order_record(gw, id);
    if (!record) throw HttpError(404, "not_found", "no order with this id");
    const Session& s = record->session;
    const OrderHistory history = order_history(gw, s.id);
    const std::int64_t now = now_ms();
    const std::string state(order_state(s, now));
    // The amounts owed of the latest status (events.hpp owed_of), in the transaction's currency.
    const auto amount_of = [&record](paywasm::Money paywasm::Owed::*which) -> std::string {
        if (!record->owed) return "not known yet";
        const paywasm::Money& m = (*record->owed).*which;
        return money(paywasm::amount_text(m), m.currency);
    };
    Html main;
    // What the merchant should know first.
    if (paywasm::is_partly_paid_state(s.status.state) && !s.status.success && !s.underpayment_accepted_at) {
        Html f = hidden_csrf(login) +
                 Html::markup("<label for=\"accept-note\">Why you accept it (kept in the audit log)</label>"
                              "<input id=\"accept-note\" name=\"note\" required maxlength=\"2000\">") +
                 Html::element("button", {{"type", "submit"}}, "Accept the underpayment");
        main += Html::element("section", {{"class", "banner"}, {"aria-labelledby", "partial-h"}},
                              Html::element("h2", {{"id", "partial-h"}}, "Partly paid") +
                                  Html::element("p", {}, "Arrived " + amount_of(&paywasm::Owed::received) + " of " + amount_of(&paywasm::Owed::expected) +
                                                             "; missing " + amount_of(&paywasm::Owed::remaining) + ".") +
                                  Html::element("form", {{"class", "stack"}, {"method", "post"}, {"action", "/orders/" + s.id + "/accept"}}, f));
    }
    if (s.underpayment_accepted_at) {
        main += Html::element("p", {{"class", "banner ok"}}, "Underpayment accepted " + iso8601(*s.underpayment_accepted_at) + ".");
    }
    Html facts;
    const auto fact = [&facts](const char* dt, const Html& dd) { facts += Html::element("dt", {}, dt) + Html::element("dd", {}, dd); };
    fact("Order (offerId)", Html::text(s.offer_id));
    fact("Session", Html::element("span", {{"class", "id"}}, s.id));
    fact("State", state_badge(state));
    fact("Service status", Html::text(s.status.status ? paywasm::checkout_status_words(*s.status.status, paywasm::is_amount_mismatch_state(s.status.state))
                                                       : "none yet"));
    fact("Order total", Html::text(money(s.amount, s.currency)));
    fact("Expected", Html::text(amount_of(&paywasm::Owed::expected)));
    fact("Arrived", Html::text(amount_of(&paywasm::Owed::received)));
    fact("Missing", Html::text(amount_of(&paywasm::Owed::remaining)));
    fact("Created", when(s.created_at));
    fact("Expires", when(s.expires_at));
    main += Html::element("dl", {{"class", "facts"}}, facts);

    // What to ship and to whom, then the cart as the shop sent it.
    main += ship_to_section(ship_to(s));
    Html cart;
    try {
        const auto checkout = paywasm::from_json<paywasm::Checkout>(s.checkout_json);
        for (const auto& item : checkout.cart) {
            cart += row({Html::text(item.name), Html::text(item.quantity.to_string()), Html::text(money(paywasm::amount_text({item.price, checkout.currency}), checkout.currency))});
        }
    } catch (const paywasm::Error&) {
    }
    main += Html::element("h2", {}, "Cart") + table("The cart", {"Item", "Quantity", "Price"}, cart);

    // Transactions and attempts.
    Html txs;
    for (const auto& t : record->transactions) {
        txs += row({Html::element("span", {{"class", "id"}}, t.id), Html::text(paywasm::checkout_status_words(static_cast<int>(t.status), paywasm::is_amount_mismatch_state(t.state))),
                    Html::text(t.native_amount ? money(*t.native_amount, t.native_currency.value_or("")) : "-"),
                    Html::text(t.received_amount ? money(*t.received_amount, t.currency.value_or("")) : "-"), when(t.updated_at)});
    }
    main += Html::element("h2", {}, "Transactions") +
            table("Transactions the service signed", {"Transaction", "Status", "Paid", "Received", "Updated"}, txs);
    Html attempts;
    for (const auto& a : s.attempts) {
        const auto st = attempt_state(a);
        Html act = Html::text("-");
        if (blocks_pay(st) && (!a.resolution || a.conflict_at)) {
            const std::string fid = "res-" + a.id;
            act = Html::element(
                "form", {{"class", "stack"}, {"method", "post"}, {"action", "/orders/" + s.id + "/resolve"}},
                hidden_csrf(login) + Html::void_element("input", {{"type", "hidden"}, {"name", "attempt"}, {"value", a.id}}) + Html::element("label", {{"for", fid + "-r"}}, "Resolution") +
                    Html::element("select", {{"id", fid + "-r"}, {"name", "resolution"}, {"required", "required"}},
                                  Html::markup("<option value=\"\">Choose what the portal shows</option>"
                                               "<option value=\"paid_elsewhere\">Paid (checked in the service's portal)</option>"
                                               "<option value=\"release\">Release: the shopper may pay again</option>"
                                               "<option value=\"not_paid\">Not paid: close the order</option>")) +
                    Html::element("label", {{"for", fid + "-n"}}, "Note") +
                    Html::void_element("input", {{"id", fid + "-n"}, {"name", "note"}, {"required", "required"}, {"maxlength", "2000"}}) +
                    Html::element("button", {{"type", "submit"}}, "Resolve attempt"));
        }
        attempts += row({Html::element("span", {{"class", "id"}}, a.id), Html::text(paywasm::to_string(a.method)), when(a.created_at),
                         Html::text(std::string(to_string(st)) + (needs_attention(a) ? " (needs attention)" : "")),
                         a.transaction_id ? Html::element("span", {{"class", "id"}}, *a.transaction_id) + Html::text(" (verified)")
                                          : Html::element("span", {{"class", "id"}}, a.reported_transaction_id.value_or("")) +
                                                Html::text(a.reported_transaction_id ? " (reported by the browser, not verified)" : ""), act});
    }
    main += Html::element("h2", {}, "Payment attempts") +
            table("What the shopper's browser tried", {"Attempt", "Method", "Started", "State", "Transaction", "Action"}, attempts);

    // The timeline, in plain language.
    std::vector<std::pair<std::int64_t, Html>> lines;
    lines.emplace_back(s.created_at, Html::text("The shop created the order: " + money(s.amount, s.currency) + "."));
    for (const auto& a : s.attempts) {
        lines.emplace_back(a.created_at, Html::text("The shopper's browser started a " + std::string(paywasm::to_string(a.method)) + " payment (attempt " + a.id + ")."));
        if (a.attention_at) lines.emplace_back(*a.attention_at, Html::text("No verified outcome in time: the shop's app was told it needs attention."));
    }
    for (const auto& q : history.qr_codes) {
        lines.emplace_back(q.created_at, Html::text("A QR code was made (order " + q.order_id + ")" +
                                                    (q.transaction_id ? ", transaction " + *q.transaction_id : std::string()) +
                                                    (q.replaced ? "; a newer code replaced it." : ".")));
    }
    for (const auto& w : history.webhooks) {
        const std::string status = paywasm::checkout_status_words(static_cast<int>(w.status), w.outcome == to_string(Outcome::amount_mismatch));
        lines.emplace_back(w.received_at, Html::text("The service signed status " + status + " for transaction " + w.transaction_id +
                                                     "; decided: " + w.outcome + "."));
    }
    for (const auto& r : history.resolutions) {
        lines.emplace_back(r.created_at, Html::text(r.actor + " resolved attempt " + r.attempt_id + " as " + r.resolution + ": " + r.note));
    }
    for (const auto& n : record->notes) lines.emplace_back(n.created_at, Html::text("Note by " + n.actor + ": " + n.note));
    if (s.underpayment_accepted_at) lines.emplace_back(*s.underpayment_accepted_at, Html::text("The merchant accepted the underpayment."));
    for (const auto& sent : history.events) {
        const OutboxRow& e = sent.row;
        const std::string type = sent.type.empty() ? "event" : sent.type;
        Html deliveries;
        for (const auto& d : sent.deliveries) {
            deliveries += Html::element("li", {}, when(d.finished_at) + Html::text(d.http_status ? "HTTP " + std::to_string(*d.http_status) : "no answer") +
                                                      Html::text(d.error ? ": " + *d.error : ""));
        }
        if (deliveries.str().empty()) deliveries = Html::element("li", {}, "not delivered yet");
        Html resend = Html::element("form", {{"class", "inline"}, {"method", "post"}, {"action", "/events/" + e.id + "/resend"}},
                                    hidden_csrf(login) + Html::void_element("input", {{"type", "hidden"}, {"name", "back"}, {"value", s.id}}) +
                                        Html::element("button", {{"class", "quiet"}, {"type", "submit"}, {"aria-label", "Resend event " + e.id}}, "Resend"));
        lines.emplace_back(e.created_at, Html::text("Sent to the shop's app: " + type + " (" + e.id + "), " + e.state + ". ") + resend +
                                             Html::element("ul", {{"aria-label", "Delivery attempts of " + e.id}}, deliveries));
    }
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Html timeline;
    for (const auto& [t, text] : lines) timeline += Html::element("li", {}, when(t) + text);
    main += Html::element("h2", {}, "Timeline") + Html::element("ol", {{"class", "timeline"}}, timeline);

    main += Html::element("h2", {}, "Add a note") +
            Html::element("form", {{"class", "stack"}, {"method", "post"}, {"action", "/orders/" + s.id + "/note"}},
                          hidden_csrf(login) +
                              Html::markup("<label for=\"note\">Note</label><textarea id=\"note\" name=\"note\" required maxlength=\"2000\" rows=\"3\"></textarea>") +
                              Html::element("button", {{"type", "submit"}}, "Add note"));
    return ConsolePage{"Order " + s.offer_id, main, "/orders"};
}

}  // namespace merchant
