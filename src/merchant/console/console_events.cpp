// The console's events page (console_pages.hpp): the events sent to the shop's app, failing ones
// first, each with a Resend form; the form that resends every failed event since a time.
#include "console/console_pages.hpp"
#include "gateway/orders.hpp"

namespace merchant {

ConsolePage render_events(Gateway& gw, const Signed& login) {
    Html body;
    for (const auto& sent : sent_events(gw)) {
        const OutboxRow& e = sent.row;
        const std::string& type = sent.type;
        const std::string& session = sent.session_id;
        const bool failing = e.state == "pending" && e.last_error;
        Html resend = Html::element("form", {{"class", "inline"}, {"method", "post"}, {"action", "/events/" + e.id + "/resend"}},
                                    hidden_csrf(login) + Html::element("button", {{"class", "quiet"}, {"type", "submit"},
                                                                                   {"aria-label", "Resend event " + e.id}}, "Resend"));
        body += row({when(e.created_at), Html::element("span", {{"class", "id"}}, e.id), Html::text(type),
                     session.empty() ? Html::text("-") : link("/orders/" + session, session.substr(0, 12) + "..."),
                     failing ? Html::element("span", {{"class", "state-failed"}}, "failing") : Html::text(e.state),
                     Html::text(std::to_string(e.attempts)), Html::text(e.last_error.value_or("")), resend});
    }
    Html main = Html::element("p", {}, "Undelivered events that failed come first, oldest first; then every other event, newest first.");
    main += Html::element("form", {{"class", "stack"}, {"method", "post"}, {"action", "/events/resend-failed"}},
                          hidden_csrf(login) +
                              Html::markup("<label for=\"since\">Resend every failed event created since (UTC)</label>"
                                           "<input id=\"since\" name=\"since\" type=\"datetime-local\" required>") +
                              Html::element("button", {{"type", "submit"}}, "Resend failed events"));
    main += table("Events sent to the shop's app", {"Created", "Event", "Type", "Order", "State", "Attempts", "Last error", "Action"}, body);
    return ConsolePage{"Events", main, "/events"};
}

}  // namespace merchant
