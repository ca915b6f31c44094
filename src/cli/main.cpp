// paywasm — the command-line tool for merchants' back ends (keys, encryption, merchantAuth, QR, and
// the calls that need merchant secrets). Dispatches to the commands registered in cmd_*.cpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/cli.hpp"
#include "paywasm/error.hpp"
#include "paywasm/protocol.hpp"
#include "paywasm/text.hpp"

namespace paywasm::cli {

namespace {
std::vector<Command>& registry() {
    static std::vector<Command> r;
    return r;
}
}  // namespace

void register_command(const Command& c) { registry().push_back(c); }

const std::vector<Command>& commands() {
    auto& r = registry();
    std::sort(r.begin(), r.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
    return r;
}

std::string read_input(const std::string& path) {
    if (path.empty() || path == "-") {
        return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::io, "cannot read " + path + ": " + std::strerror(errno));
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, std::string_view data, unsigned mode) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd < 0) {
        throw Error(ErrorCode::io, "cannot create " + path + ": " + std::strerror(errno) +
                                          (errno == EEXIST ? " (refusing to overwrite)" : ""));
    }
    std::size_t off = 0;
    while (off < data.size()) {
        ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            ::close(fd);
            throw Error(ErrorCode::io, "cannot write " + path + ": " + std::strerror(e));
        }
        off += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) throw Error(ErrorCode::io, "cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace paywasm::cli

namespace {

void print_overview(std::FILE* out) {
    std::fprintf(out, "usage: paywasm <command> [options]   (paywasm <command> --help for details)\n\ncommands:\n");
    for (const auto& c : paywasm::cli::commands()) {
        std::fprintf(out, "  %-16.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                     static_cast<int>(c.summary.size()), c.summary.data());
    }
}

}  // namespace

static void stderr_warning(std::string_view message) {
    std::fwrite(message.data(), 1, message.size(), stderr);
    std::fputc('\n', stderr);
}

int main(int argc, char** argv) {
    using namespace paywasm;
    set_warning_sink(stderr_warning);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) { print_overview(stderr); return 2; }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") { print_overview(stdout); return 0; }

    const auto& cmds = cli::commands();
    auto it = std::find_if(cmds.begin(), cmds.end(), [&](const cli::Command& c) { return c.name == args[0]; });
    if (it == cmds.end()) {
        std::fprintf(stderr, "paywasm: unknown command '%s'\n\n", paywasm::escape_untrusted(args[0], 100).c_str());
        print_overview(stderr);
        return 2;
    }
    const cli::Command& cmd = *it;
    try {
        cli::Args parsed({args.begin() + 1, args.end()}, options::Spec{cmd.value_options, cmd.switches, true});
        if (parsed.has("help")) {
            std::fwrite(cmd.usage.data(), 1, cmd.usage.size(), stdout);
            return 0;
        }
        return cmd.run(parsed);
    } catch (const Error& e) {
        if (e.code() == ErrorCode::usage) {
            std::fprintf(stderr, "paywasm %.*s: %s\n\n%.*s", static_cast<int>(cmd.name.size()), cmd.name.data(),
                         e.what(), static_cast<int>(cmd.usage.size()), cmd.usage.data());
            return 2;
        }
        std::string code(to_string(e.code()));
        std::fprintf(stderr, "error[%s]: %s\n", code.c_str(), paywasm::escape_untrusted(e.what(), 500).c_str());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error[internal]: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
        return 1;
    }
}
