// history_command.hpp - the restore point commands: `history`, `restore`, `prune`,
// and `verify --history`'s part.
#pragma once

#include "invocation.hpp"

#include <rdelta/history.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rdelta::cli {

/// history [--json] IMAGE: the points, newest first.
int history_command(const request& req, const invocation& inv);
/// restore IMAGE POINT OUTPUT: the image as it was at POINT.
int restore_command(const request& req, const invocation& inv);
/// prune --keep-... [--dry-run] IMAGE.
int prune_command(const request& req, const invocation& inv);
/// verify --history: every point of the image's history against its checksums;
/// the exit status (0, or 106 when a point is damaged).
int verify_history_command(const request& req, const invocation& inv, in_place_fd& image);

/// The point POINT names among `points` (newest first): its number ("3"), or a
/// date or time in local time ("2026-12-01" = the end of that day,
/// "2026-12-01T03:00", "2026-12-01 03:00:00"), meaning the newest point at or
/// before it. nullopt with `why` set when it names none.
std::optional<std::uint64_t> resolve_point(const std::string& point, const std::vector<history_point>& points,
                                           std::string& why);

/// A point's time as "2026-12-01T03:00:00+0000" (local time).
std::string point_time(std::int64_t t);

}  // namespace rdelta::cli
