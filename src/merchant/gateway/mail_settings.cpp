// A console user's mail (mail_settings.hpp).
#include "gateway/mail_settings.hpp"

#include "rules/notify.hpp"
#include "paywasm/error.hpp"

namespace merchant {

namespace {
std::string joined(const std::vector<std::string>& kinds) {
    std::string csv;
    for (const auto& k : kinds) csv += (csv.empty() ? "" : ",") + k;
    return csv;
}
}  // namespace

std::string mail_setting_error(const std::string& email, const std::string& kinds) {
    const auto at = email.find('@');
    if (email.empty() || email.size() > 254 || at == std::string::npos || at == 0 || at + 1 == email.size() ||
        email.find_first_of("<>\r\n\t ,;") != std::string::npos) {
        return "give one e-mail address, like ada@shop.example";
    }
    if (!parse_notify_kinds(kinds)) return "choose at least one kind of mail: paid, partial, attention, refused";
    return "";
}

std::optional<MailSetting> mail_setting(Store& store, const std::string& user) {
    for (const auto& p : store.mail.notify_prefs()) {
        if (p.user == user) return MailSetting{p.email, parse_notify_kinds(p.kinds).value_or(std::vector<std::string>{})};
    }
    return std::nullopt;
}

MailSetting set_mail_setting(Store& store, const std::string& user, const std::string& email, const std::string& kinds,
                             const std::string& actor, const std::string& address, std::int64_t now) {
    if (const std::string why = mail_setting_error(email, kinds); !why.empty()) throw paywasm::Error(paywasm::ErrorCode::validation, why);
    const MailSetting s{email, *parse_notify_kinds(kinds)};
    store.mail.set_notify({user, email, joined(s.kinds)});
    store.console.audit(actor, "notify_set", user, email + " " + joined(s.kinds), address, now);
    return s;
}

bool stop_mail(Store& store, const std::string& user, const std::string& actor, const std::string& address, std::int64_t now) {
    const bool had = store.mail.remove_notify(user);
    store.console.audit(actor, "notify_off", user, std::nullopt, address, now);
    return had;
}

}  // namespace merchant
