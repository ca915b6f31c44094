// The console's layout (console_pages.hpp): the document around every page (its template is
// web/console/page.html).
#include <map>

#include "console/console_pages.hpp"

namespace merchant {

namespace {

// The flash messages a redirect names by key (never a text from the request).
const std::map<std::string, const char*>& flashes() {
    static const std::map<std::string, const char*> m = {
        {"resent", "The event is queued for delivery again, with the same id."},
        {"resent_failed", "Every failed event since that time is queued for delivery again."},
        {"resolved", "The attempt is resolved; the shop's app is told."},
        {"resolved_stuck", "Every stuck attempt raised before that time is resolved; the shop's app is told of each."},
        {"accepted", "The underpayment is accepted; the shop's app is told."},
        {"noted", "The note is added."},
        {"logged_out", "You are logged out."},
        {"link_created", "The payment link is created: share its URL or print its poster."},
        {"link_deactivated", "The link is deactivated: it takes no new payment (sessions already open stay payable)."},
        {"link_activated", "The link is active again."},
        {"mail_set", "Saved: you are mailed at this address for what you chose."},
        {"mail_off", "You get no mail now."},
        {"had_failures", "Wrong passwords were tried for your account since your last login: see the audit log."},
        {"was_locked", "Your account was locked after wrong passwords since your last login: see the audit log."},
    };
    return m;
}

Html header(const Signed* login, const std::string& current) {
    if (!login) return Html();
    Html items;
    for (auto [href, text] : {std::pair<const char*, const char*>{"/", "Overview"}, {"/orders", "Orders"},
                              {"/orders?state=attention", "Needs attention"}, {"/links", "Links"}, {"/pos", "Point of sale"},
                              {"/events", "Events"}, {"/mail", "Your mail"},
                              {"/subscriptions", "Subscriptions"}, {"/audit", "Audit log"}}) {
        Html a = current == href ? Html::element("a", {{"href", href}, {"aria-current", "page"}}, text) : link(href, text);
        items += Html::element("li", {}, a);
    }
    Html who = Html::element("span", {}, "Signed in as " + login->session.user) +
               Html::element("form", {{"class", "inline"}, {"method", "post"}, {"action", "/logout"}},
                             hidden_csrf(*login) + Html::element("button", {{"class", "quiet"}, {"type", "submit"}}, "Log out"));
    return Html::element("header", {},
                         Html::element("nav", {{"aria-label", "Console"}}, Html::element("ul", {}, items)) +
                             Html::element("div", {{"class", "who"}}, who));
}

}  // namespace

Html hidden_csrf(const Signed& login) {
    return Html::void_element("input", {{"type", "hidden"}, {"name", "csrf"}, {"value", login.session.csrf}});
}

std::string console_document(std::string_view layout, const ConsolePage& page, const Signed* login, const std::string& done,
                             const std::string& css, const std::string& script) {
    Html flash;
    const auto it = flashes().find(done);
    if (it != flashes().end()) flash = Html::element("p", {{"class", "banner ok"}, {"role", "status"}}, it->second);
    Html head;
    if (page.kind != ConsolePage::Kind::page) head += Html::element("script", {{"src", script}, {"defer", "defer"}}, "");
    if (page.kind == ConsolePage::Kind::pos_following) {
        head += Html::element("noscript", {}, Html::markup("<meta http-equiv=\"refresh\" content=\"3\">"));
    }
    return render(layout, {{"title", Html::text(page.title)}, {"css", Html::text(css)}, {"head", head},
                           {"class", Html::text(page.kind == ConsolePage::Kind::page ? "" : "pos")}, {"header", header(login, page.current)},
                           {"flash", flash}, {"main", page.main}});
}

}  // namespace merchant
