// The console's "Your mail" page (console_pages.hpp, mail_settings.hpp): the logged-in user chooses
// their own mail: an address and the kinds (notify.hpp), or none.
#include "console/console_pages.hpp"
#include "rules/notify.hpp"

namespace merchant {

namespace {
const char* kind_label(std::string_view kind) {
    if (kind == "paid") return "Payment received: the whole amount arrived (you may ship)";
    if (kind == "partial") return "Partly paid: part of the amount arrived (do not ship yet)";
    if (kind == "attention") return "Needs attention: a payment's outcome did not arrive in time";
    return "Your app refused an event 3 times (only with a shop app)";
}
}  // namespace

ConsolePage render_mail(Gateway& gw, const Signed& login, const std::optional<MailSetting>& current, const Form& given,
                        const std::string& error) {
    const bool fresh = given.empty();
    const std::string email = fresh ? (current ? current->email : std::string()) : field(given, "email");
    Html main;
    if (gw.config.smtp_url.empty()) {
        main += Html::element("p", {{"class", "banner"}, {"role", "status"}},
                              "This gateway sends no mail yet: its operator sets the mail relay (--smtp-url, docs/seller.md). "
                              "What you choose here applies from then on.");
    }
    if (!error.empty()) main += Html::element("p", {{"class", "banner bad"}, {"role", "alert"}}, error);
    main += Html::element("p", {}, current ? "You are mailed at " + current->email + "." : std::string("You get no mail now."));
    Html kinds;
    for (const char* k : kNotifyKinds) {
        bool on = true;  // a first choice: all four
        if (!fresh) on = field(given, std::string("kind_") + k) == "1";
        else if (current) on = std::find(current->kinds.begin(), current->kinds.end(), k) != current->kinds.end();
        kinds += Html::element("label", {{"class", "check"}},
                               Html::void_element("input", {{"type", "checkbox"}, {"name", std::string("kind_") + k}, {"value", "1"},
                                                            {"checked", on ? std::optional<std::string>("checked") : std::nullopt}}) +
                                   Html::text(" ") + Html::text(kind_label(k)));
    }
    Html form = hidden_csrf(login);
    form += Html::element("label", {{"for", "email"}}, "Your e-mail address");
    form += Html::void_element("input", {{"id", "email"}, {"name", "email"}, {"type", "email"}, {"autocomplete", "email"}, {"value", email}});
    form += Html::element("fieldset", {}, Html::element("legend", {}, "Mail me when") + kinds);
    form += Html::element("button", {{"type", "submit"}}, "Save");
    main += Html::element("form", {{"class", "stack"}, {"method", "post"}, {"action", "/mail"}}, form);
    if (current) {
        main += Html::element("form", {{"method", "post"}, {"action", "/mail/off"}},
                              hidden_csrf(login) + Html::element("button", {{"type", "submit"}, {"class", "quiet"}}, "Stop my mail"));
    }
    return ConsolePage{"Your mail", main, "/mail"};
}

}  // namespace merchant
