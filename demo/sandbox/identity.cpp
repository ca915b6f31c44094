#include "identity.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "http.hpp"

namespace sandbox {

namespace {

bool read_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

// Private keys are written 0600 and never replaced.
void write_file(const std::string& path, const std::string& data, mode_t mode) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) throw std::runtime_error("cannot create " + path);
    const char* p = data.data();
    std::size_t left = data.size();
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n <= 0) {
            ::close(fd);
            throw std::runtime_error("cannot write " + path);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    ::close(fd);
}

paywasm::PrivateKey load_or_create_key(const std::string& dir, const std::string& name, std::string& public_pem) {
    const std::string private_path = dir + "/" + name + "-key.pem";
    const std::string public_path = dir + "/" + name + "-public.pem";
    std::string pem;
    if (read_file(private_path, pem)) {
        paywasm::PrivateKey key = paywasm::PrivateKey::parse(pem);
        public_pem = key.public_key().to_pem();
        return key;
    }
    paywasm::PrivateKey key = paywasm::PrivateKey::generate(2048);
    write_file(private_path, key.to_pem(), 0600);
    public_pem = key.public_key().to_pem();
    write_file(public_path, public_pem, 0644);
    return key;
}

std::string load_or_create_setting(Db& db, const std::string& key, std::string (*make)()) {
    if (auto v = db.setting(key)) return *v;
    std::string v = make();
    db.set_setting(key, v);
    return v;
}

}  // namespace

Identity Identity::load_or_create(Db& db, const std::string& data_dir) {
    std::string merchant_pub, webhook_pub;
    paywasm::PrivateKey merchant_key = load_or_create_key(data_dir, "merchant", merchant_pub);
    paywasm::PrivateKey webhook_key = load_or_create_key(data_dir, "webhook", webhook_pub);
    Identity id{
        load_or_create_setting(db, "merchant_id", [] { return uuid_v4(); }),
        load_or_create_setting(db, "merchant_token", [] { return random_token("sbx_mt_"); }),
        load_or_create_setting(db, "shopper_id", [] { return uuid_v4(); }),
        load_or_create_setting(db, "shopper_token", [] { return random_token("sbx_st_"); }),
        {},
        std::move(merchant_key),
        std::move(webhook_key),
        std::move(merchant_pub),
        std::move(webhook_pub),
    };
    if (auto auth = db.setting("merchant_auth")) {
        id.merchant_auth = *auth;
    } else {
        id.merchant_auth = paywasm::merchant_auth(id.merchant_key.public_key(), id.merchant_id);
        db.set_setting("merchant_auth", id.merchant_auth);
    }
    return id;
}

}  // namespace sandbox
