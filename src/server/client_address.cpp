#include "server/client_address.hpp"

#include <utility>  // before Boost.Asio (Boost 1.74's awaitable.hpp uses std::exchange)

#include <algorithm>
#include <boost/asio/ip/address.hpp>

namespace paywasm::server {

std::string canonical_address(std::string_view text) {
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(std::string(text), ec);
    if (ec) return std::string();
    if (address.is_v6() && address.to_v6().is_v4_mapped()) {
        return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6()).to_string();
    }
    return address.to_string();
}

std::string client_key(const std::string& address) {
    boost::system::error_code ec;
    const auto a = boost::asio::ip::make_address(address, ec);
    if (ec || !a.is_v6() || a.to_v6().is_v4_mapped()) return address;
    auto bytes = a.to_v6().to_bytes();
    for (std::size_t i = 8; i < bytes.size(); ++i) bytes[i] = 0;
    return boost::asio::ip::address_v6(bytes).to_string() + "/64";
}

std::string client_address(const std::string& peer, const Headers& headers, const std::vector<std::string>& trusted) {
    const auto is_trusted = [&](const std::string& a) { return std::find(trusted.begin(), trusted.end(), a) != trusted.end(); };
    if (trusted.empty() || !is_trusted(peer)) return peer;
    std::vector<std::string_view> hops;
    for (const auto& [name, value] : headers) {
        if (!same_name(name, "X-Forwarded-For")) continue;
        std::string_view rest(value);
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            std::string_view hop = rest.substr(0, comma);
            while (!hop.empty() && (hop.front() == ' ' || hop.front() == '\t')) hop.remove_prefix(1);
            while (!hop.empty() && (hop.back() == ' ' || hop.back() == '\t')) hop.remove_suffix(1);
            hops.push_back(hop);
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    }
    for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
        const std::string address = canonical_address(*it);
        if (address.empty()) return peer;
        if (!is_trusted(address)) return address;
    }
    return peer;
}

}  // namespace paywasm::server
