// prune_policy.cpp - which points a keep-last/daily/weekly/monthly policy keeps,
// as borg and restic choose them: walking from the newest, each rule keeps the
// first point of each period it has not seen yet, until it has kept its count.
#include <rdelta/history.hpp>

#include <ctime>
#include <functional>
#include <vector>

namespace rdelta {

namespace {

std::tm local(std::int64_t t) {
    const auto tt = static_cast<std::time_t>(t);
    std::tm tm{};
    ::localtime_r(&tt, &tm);
    return tm;
}

std::int64_t day_of(std::int64_t t) {
    const std::tm tm = local(t);
    return std::int64_t{tm.tm_year} * 1000 + tm.tm_yday;
}

// The ISO 8601 week: its year and number (the week with the year's first Thursday is 1).
std::int64_t week_of(std::int64_t t) {
    std::tm tm = local(t);
    const int weekday = (tm.tm_wday + 6) % 7;  // Monday = 0
    // The Thursday of this week decides the year.
    std::tm thursday = tm;
    thursday.tm_mday += 3 - weekday;
    thursday.tm_hour = 12;
    thursday.tm_isdst = -1;
    std::mktime(&thursday);
    return std::int64_t{thursday.tm_year} * 100 + thursday.tm_yday / 7;
}

std::int64_t month_of(std::int64_t t) {
    const std::tm tm = local(t);
    return std::int64_t{tm.tm_year} * 12 + tm.tm_mon;
}

void keep_by(const std::vector<std::int64_t>& times, std::uint64_t count,
             const std::function<std::int64_t(std::int64_t)>& period, std::vector<bool>& kept) {
    std::int64_t last = 0;
    bool any = false;
    for (std::size_t i = 0; i < times.size() && count > 0; ++i) {
        const std::int64_t p = period(times[i]);
        if (any && p == last) continue;
        kept[i] = true;
        last = p, any = true, --count;
    }
}

}  // namespace

std::vector<bool> points_kept(const std::vector<std::int64_t>& times_newest_first, const prune_policy& policy) {
    std::vector<bool> kept(times_newest_first.size(), false);
    for (std::size_t i = 0; i < kept.size() && i < policy.keep_last; ++i) kept[i] = true;
    keep_by(times_newest_first, policy.daily, day_of, kept);
    keep_by(times_newest_first, policy.weekly, week_of, kept);
    keep_by(times_newest_first, policy.monthly, month_of, kept);
    return kept;
}

}  // namespace rdelta
