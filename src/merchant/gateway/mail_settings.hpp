// A console user's mail (notify.hpp's kinds), one implementation for both of its callers: the CLI
// (`console-user notify`, console_users_cli.cpp) and the console's "Your mail" page, where each
// user chooses their own (console_mail.cpp). Each change is audited under the actor that made it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/store.hpp"

namespace merchant {

struct MailSetting {
    std::string email;
    std::vector<std::string> kinds;  // in kNotifyKinds' order
};

// Why `email` and `kinds` (comma-separated) cannot be a user's mail ("" when they can): one address
// (an @, no spaces, commas or angle brackets, at most 254 characters) and at least one kind of
// kNotifyKinds.
std::string mail_setting_error(const std::string& email, const std::string& kinds);
// The user's mail, or nullopt when they get none.
std::optional<MailSetting> mail_setting(Store& store, const std::string& user);
// Sets the user's mail (mail_setting_error must be "": paywasm::Error validation otherwise) and
// audits notify_set under `actor` from `address`; returns the setting as stored.
MailSetting set_mail_setting(Store& store, const std::string& user, const std::string& email, const std::string& kinds,
                             const std::string& actor, const std::string& address, std::int64_t now);
// Stops the user's mail (audited notify_off); false when they got none.
bool stop_mail(Store& store, const std::string& user, const std::string& actor, const std::string& address, std::int64_t now);

}  // namespace merchant
