#include "server/options.hpp"

#include <stdexcept>
#include <vector>

namespace paywasm::server {

void for_each_option(int argc, char** argv, std::initializer_list<std::string_view> flags,
                     const std::function<void(const std::string& name, const std::string& value)>& on_option) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h") {
            on_option("help", "");
            continue;
        }
        if (a.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument '" + a + "'");
        std::string name = a.substr(2), value;
        bool is_flag = false;
        for (std::string_view f : flags) is_flag = is_flag || f == name;
        if (is_flag) {
            on_option(name, "");
            continue;
        }
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name.resize(eq);
            for (std::string_view f : flags) {
                if (f == name) throw std::invalid_argument("--" + name + " takes no value");
            }
        } else {
            if (i + 1 >= args.size()) throw std::invalid_argument("--" + name + " needs a value");
            value = args[++i];
        }
        on_option(name, value);
    }
}

}  // namespace paywasm::server
