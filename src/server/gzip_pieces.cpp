// A gzip body from separately compressed pieces (gzip_pieces.hpp).
#include "server/gzip_pieces.hpp"

#include <cryptopp/crc.h>
#include <cryptopp/filters.h>
#include <cryptopp/zdeflate.h>

#include <cstdint>

namespace paywasm::server {

std::string deflate_piece(std::string_view plain, int level) {
    std::string out;
    CryptoPP::Deflator deflator(new CryptoPP::StringSink(out), level);
    deflator.Put(reinterpret_cast<const CryptoPP::byte*>(plain.data()), plain.size());
    // A hard flush: the blocks so far, then an empty stored block (byte-aligned, not the last).
    deflator.Flush(true);
    return out;
}

std::string gzip_join(const std::vector<GzipPart>& parts) {
    // The member's header: ID1 ID2, CM 8 (deflate), no flags, no time, XFL 0, OS 255 (unknown).
    std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
    CryptoPP::CRC32 crc;
    std::uint64_t length = 0;
    for (const GzipPart& p : parts) {
        out += p.deflated.empty() && !p.plain.empty() ? deflate_piece(p.plain, 6) : std::string(p.deflated);
        crc.Update(reinterpret_cast<const CryptoPP::byte*>(p.plain.data()), p.plain.size());
        length += p.plain.size();
    }
    // The last block: final, fixed Huffman codes, only the end-of-block code (bits 1, 01, 0000000).
    out += std::string("\x03\x00", 2);
    CryptoPP::byte digest[4];
    crc.Final(digest);  // CRC-32 as gzip writes it: least significant byte first
    out.append(reinterpret_cast<const char*>(digest), 4);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));  // ISIZE: length mod 2^32
    return out;
}

}  // namespace paywasm::server
