// test_history.cpp - the pieces of an image at a restore point, and which points a
// prune policy keeps.
#include "history/increment_map.hpp"

#include <rdelta/history.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <ctime>
#include <vector>

using rdelta::detail::increment_map;
using rdelta::detail::piece;

namespace {

// One byte per offset: 'I' image, 'Z' zeros, or '0' + source.
std::string piece_letters(const increment_map& m) {
    std::string s;
    for (const piece& p : m.pieces())
        for (std::uint64_t i = p.from; i < p.to; ++i)
            s += p.source == piece::image ? 'I' : p.source == piece::zeros ? 'Z' : static_cast<char>('0' + p.source);
    return s;
}

std::int64_t at(int year, int month, int day) {
    std::tm tm{};
    tm.tm_year = year - 1900, tm.tm_mon = month - 1, tm.tm_mday = day, tm.tm_hour = 3;
    tm.tm_isdst = -1;
    return static_cast<std::int64_t>(std::mktime(&tm));
}

}  // namespace

TEST_CASE("increment map: later puts win, resizes cut and extend with zeros") {
    increment_map m(10);
    CHECK(piece_letters(m) == "IIIIIIIIII");
    m.put(2, 3, 0, 100);
    CHECK(piece_letters(m) == "II000IIIII");
    m.put(4, 4, 1, 200);
    CHECK(piece_letters(m) == "II001111II");
    m.resize(6);
    CHECK(piece_letters(m) == "II0011");
    m.resize(9);
    CHECK(piece_letters(m) == "II0011ZZZ");
    m.put(0, 20, piece::zeros, 0);  // clipped to the length
    CHECK(piece_letters(m) == "ZZZZZZZZZ");
}

TEST_CASE("increment map: a split piece keeps its source offsets; neighbours that continue merge") {
    increment_map m(100);
    m.put(10, 50, 0, 1000);
    m.put(20, 10, 1, 5000);
    const auto p = m.pieces();
    REQUIRE(p.size() == 5);
    CHECK((p[1].from == 10 && p[1].to == 20 && p[1].at == 1000));
    CHECK((p[3].from == 30 && p[3].to == 60 && p[3].at == 1020));  // 10 bytes further into source 0
    CHECK((p[4].source == piece::image && p[4].at == 60));
    m.put(20, 10, 0, 1010);  // source 0 again, where it continues
    CHECK(m.pieces().size() == 3);
}

TEST_CASE("prune policy: keep-last and borg's daily, weekly and monthly rules") {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
    // Newest first: two points on Dec 6, one a day back to Nov 20, then Oct 31.
    std::vector<std::int64_t> t = {at(2026, 12, 6) + 3600, at(2026, 12, 6)};
    for (int d = 5; d >= 1; --d) t.push_back(at(2026, 12, d));
    for (int d = 30; d >= 20; --d) t.push_back(at(2026, 11, d));
    t.push_back(at(2026, 10, 31));
    auto kept = [&](rdelta::prune_policy p) {
        std::vector<std::size_t> idx;
        const auto k = rdelta::points_kept(t, p);
        for (std::size_t i = 0; i < k.size(); ++i)
            if (k[i]) idx.push_back(i);
        return idx;
    };
    CHECK(kept({.keep_last = 3}) == std::vector<std::size_t>{0, 1, 2});
    CHECK(kept({.daily = 3}) == std::vector<std::size_t>{0, 2, 3});  // the newest of Dec 6, 5, 4
    // ISO weeks: Dec 6 is a Sunday (week of Nov 30), Nov 29 a Sunday, Nov 22 a Sunday.
    CHECK(kept({.weekly = 3}) == std::vector<std::size_t>{0, 8, 15});
    CHECK(kept({.monthly = 5}) == std::vector<std::size_t>{0, 7, 18});  // Dec, Nov, Oct: fewer months than asked
    CHECK(kept({.keep_last = 1, .monthly = 2}) == std::vector<std::size_t>{0, 7});
    CHECK(kept({}).empty());
}
