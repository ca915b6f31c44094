// src/server/gzip_pieces.hpp — a gzip response body (RFC 1952) put together from pieces, each
// DEFLATE-compressed on its own (RFC 1951), so that a large piece that never changes (a script a page
// carries inline) is compressed once at start and a page costs only the compression of its own
// bytes. No I/O.
//
// A piece is raw DEFLATE blocks none of which is the last, ended by an empty stored block (a "sync
// flush": the piece ends on a byte boundary). Such pieces concatenate into one valid DEFLATE stream
// when each was compressed with a fresh dictionary (no back-reference reaches into the piece
// before it); gzip_join() then closes the stream with an empty final block and writes the gzip header
// and trailer (the CRC-32 and length of all the plain bytes). A decoder sees one ordinary gzip member.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paywasm::server {

// `plain` as a piece (above), compressed at `level` (1-9) with Crypto++'s Deflator.
std::string deflate_piece(std::string_view plain, int level);

// One part of a body: its plain bytes and, when already compressed, its deflate_piece() (empty: it
// is compressed by gzip_join at level 6).
struct GzipPart {
    std::string_view plain;
    std::string_view deflated;
};

// The gzip member of the parts in order: its decompression is the parts' plain bytes joined.
std::string gzip_join(const std::vector<GzipPart>& parts);

}  // namespace paywasm::server
