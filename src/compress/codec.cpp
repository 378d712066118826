// codec.cpp - the codecs' names, magic bytes and levels (rdelta/compression.hpp).
#include <rdelta/compression.hpp>

#include <cstring>

namespace rdelta {

namespace {

struct codec_info {
    codec kind;
    const char* name;
    std::uint8_t magic[codec_magic_size];
    std::size_t magic_len;
    int default_level, max_level;
};

constexpr codec_info codecs[] = {
    {codec::gzip, "gzip", {0x1f, 0x8b}, 2, 6, 9},
    {codec::bzip2, "bzip2", {'B', 'Z', 'h'}, 3, 9, 9},
    {codec::zstd, "zstd", {0x28, 0xb5, 0x2f, 0xfd}, 4, 3, 22},
};

const codec_info* info(codec c) noexcept {
    for (const auto& i : codecs)
        if (i.kind == c) return &i;
    return nullptr;
}

}  // namespace

const char* codec_name(codec c) noexcept {
    const codec_info* i = info(c);
    return i ? i->name : "none";
}

codec detect_codec(std::span<const std::uint8_t> head) noexcept {
    // A zstd stream may start with skippable frames (pzstd writes one before each
    // frame, holding its size): magic 0x184D2A50 to 0x184D2A5F, little-endian.
    if (head.size() >= 4 && (head[0] & 0xF0) == 0x50 && head[1] == 0x2A && head[2] == 0x4D && head[3] == 0x18)
        return codec::zstd;
    for (const auto& i : codecs)
        if (head.size() >= i.magic_len && std::memcmp(head.data(), i.magic, i.magic_len) == 0) return i.kind;
    return codec::none;
}

int default_level(codec c) noexcept {
    const codec_info* i = info(c);
    return i ? i->default_level : 0;
}

int max_level(codec c) noexcept {
    const codec_info* i = info(c);
    return i ? i->max_level : 0;
}

}  // namespace rdelta
